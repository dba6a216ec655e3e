# Guest side of t-dtracer-skeleton.sh (sourced after tests/vm/guest-lib.sh).
sys=/sys/distributed-tracer

check "modprobe dtracer" modprobe dtracer
check "/sys/distributed-tracer/ exists" test -d $sys
check "dt_trace_active is exported" grep -q ' __ksymtab_dt_trace_active' /proc/kallsyms
check "probe reads 0 after load" reads_exactly $sys/probe 0
check "trace reads 0 with no flagged thread" reads_exactly $sys/trace 0
check "probe is writable by root only, trace is read-only" \
	sh -c "[ \"\$(stat -c '%a %U' $sys/probe)\" = '644 root' ] && [ \"\$(stat -c %a $sys/trace)\" = 444 ]"

check "write 1 to probe" sh -c "echo 1 > $sys/probe"
check "probe reads 1" reads_exactly $sys/probe 1
check "writing 1 again is accepted" sh -c "printf 1 > $sys/probe"
check "probe still reads 1" reads_exactly $sys/probe 1

for bad in 2 abc '\n' 10 -1 ' 1' '1\n\n' on; do
	check "probe refuses '$bad' with EINVAL" write_expect $sys/probe "$bad" "Invalid argument"
	check "... and still reads 1" reads_exactly $sys/probe 1
done

check "write 0 to probe" sh -c "echo 0 > $sys/probe"
check "probe reads 0" reads_exactly $sys/probe 0
check "probe refuses '2' while 0, too" write_expect $sys/probe 2 "Invalid argument"
check "... and still reads 0" reads_exactly $sys/probe 0

check "trace is read-only, even for root" write_expect $sys/trace 1 "Permission denied"
check "trace still reads 0" reads_exactly $sys/trace 0
check "an unprivileged user cannot write probe" \
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
	sh -c ". '$DT_SRCDIR/tests/vm/guest-lib.sh'; write_expect $sys/probe 1 'Permission denied'"
check "probe still reads 0" reads_exactly $sys/probe 0
check "an unprivileged user can read probe and trace" \
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
	sh -c "cat $sys/probe $sys/trace"

check "probe armed before unload" sh -c "echo 1 > $sys/probe"
check "rmmod dtracer while armed" rmmod dtracer
check "/sys/distributed-tracer/ is gone" test ! -e $sys
check "no dtracer in /proc/modules" sh -c '! grep -q "^dtracer " /proc/modules'
check "reload dtracer" modprobe dtracer
check "probe starts at 0 again" reads_exactly $sys/probe 0
check "second unload" rmmod dtracer
n=$(dmesg | grep -c 'dtracer: loaded')
m=$(dmesg | grep -c 'dtracer: unloaded')
[ "$n" -eq 2 ] && [ "$m" -eq 2 ] && ok "kernel log: 2 loads, 2 unloads" ||
	not_ok "kernel log: 2 loads, 2 unloads (got $n, $m)"
dt_finish
