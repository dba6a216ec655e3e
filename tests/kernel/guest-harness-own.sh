# A guest script of its own, for t-harness.sh (sourced after guest-lib.sh).
ok "$DT_HOST ran its own script, peers: $DT_HOSTS"
[ "$(dt_addr h-own)" = "$DT_ADDR" ] && [ -n "$(dt_addr h-ok)" ]
