# Guest side of bench/merge.sh: tests/collector/guest-collect.sh with
# every event recorded (gate off) and a syscall-heavy load beside the
# requests, to give the merge a trace of some size.
DT_COLLECT_GATE=off
DT_COLLECT_PLAIN=0
DT_COLLECT_LOAD="dd if=/dev/zero of=/dev/null bs=64 count=${DT_BENCH_MERGE_DD:-150000}"
. "$DT_SRCDIR/tests/collector/guest-collect.sh"
