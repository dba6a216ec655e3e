# Guest side of t-harness.sh (sourced after tests/vm/guest-lib.sh).
case $DT_HOST in
h-ok) ok "$DT_HOST ran its script" ;;
h-fail) exit 3 ;;
h-hang) while :; do sleep 60; done ;;
esac
dt_finish
