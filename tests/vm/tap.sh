# TAP output for host-side test scripts (sourced). Lines from the guests
# carry no numbers; automake's tap-driver numbers them.
#
#   tap_result RC DESC   "ok" if RC is 0
#   tap_diag TEXT        a comment line; tap_diag_stdin for a pipe
#   tap_skip_all REASON  skip the whole script
#   tap_skip DESC REASON one test point skipped
#
# Under CI=true (.ci/run sets it) a skip is a failure: scripts/deps.sh
# has installed everything the tests need, so a skip there means a
# probe that is broken, not a tool that is missing.
#   tap_done             print the plan; exit 1 if anything failed

tap_count=0
tap_failed=0

tap_result() {
	tap_count=$((tap_count + 1))
	if [ "$1" -eq 0 ]; then
		printf 'ok %d - %s\n' "$tap_count" "$2"
	else
		printf 'not ok %d - %s\n' "$tap_count" "$2"
		tap_failed=$((tap_failed + 1))
	fi
}

# printf, not echo: dash's echo would expand backslashes.
tap_diag() {
	printf '# %s\n' "$*"
}

tap_diag_stdin() {
	sed 's/^/# /'
}

tap_skip_all() {
	if [ "${CI:-}" = true ]; then
		tap_result 1 "skipped under CI=true (deps.sh installs what it needs): $*"
		tap_done
		exit 1
	fi
	echo "1..0 # SKIP $*"
	exit 0
}

tap_skip() {
	if [ "${CI:-}" = true ]; then
		tap_result 1 "$1: skipped under CI=true (deps.sh installs what it needs): $2"
		return
	fi
	tap_count=$((tap_count + 1))
	printf 'ok %d - %s # SKIP %s\n' "$tap_count" "$1" "$2"
}

tap_done() {
	echo "1..$tap_count"
	[ "$tap_failed" -eq 0 ]
}
