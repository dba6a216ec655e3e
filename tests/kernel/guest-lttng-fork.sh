# Guest side of t-lttng-fork.sh (sourced after tests/vm/guest-lib.sh).
trace=/tmp/trace

check "lttng-sessiond starts" lttng-sessiond -d
check "lttng-sessiond loaded the fork's lttng-tracer" grep -q '^lttng_tracer ' /proc/modules
check "lttng-tracer came from our module tree" \
	sh -c 'modinfo -n lttng-tracer | grep -q /extra/lttng/'
check "the patched timer probe is loaded" grep -q '^lttng_probe_timer ' /proc/modules
check "lttng list -k shows timer_hrtimer_start" \
	sh -c 'lttng list -k | grep -q "timer_hrtimer_start "'

# Every probe module of the fork loads into this kernel (the ones built
# from Debian's linux-source headers included).
failed=
for ko in /lib/modules/$(uname -r)/extra/lttng/lttng-probe-*.ko; do
	m=$(basename "$ko" .ko)
	modprobe "$m" 2> /tmp/modprobe.err || failed="$failed $m($(head -c 120 /tmp/modprobe.err))"
done
n=$(ls /lib/modules/$(uname -r)/extra/lttng/lttng-probe-*.ko | wc -l)
[ -z "$failed" ] && ok "all $n probe modules load" ||
	{ not_ok "all $n probe modules load"; diag "failed:$failed"; }

check "kernel session created" lttng create fork --output="$trace"
check "events enabled" lttng enable-event -k timer_hrtimer_start,sched_switch,kmem_kmalloc
check "syscalls enabled" lttng enable-event -k --syscall --all
check "session started" lttng start
# Work that arms hrtimers (sleeps), switches tasks and makes syscalls.
for i in 1 2 3 4 5; do sleep 0.05; done
dd if=/dev/zero of=/dev/null bs=4k count=100 2>/dev/null
check "session stopped" lttng stop
check "session destroyed" lttng destroy fork

if babeltrace2 "$trace" > /tmp/trace.txt 2> /tmp/bt.err; then
	ok "babeltrace2 reads the trace ($(wc -l < /tmp/trace.txt) events)"
else
	not_ok "babeltrace2 reads the trace"
	diag "$(head -n 20 /tmp/bt.err)"
fi
count() {
	grep -c " $1: " /tmp/trace.txt
}
n=$(count timer_hrtimer_start)
[ "$n" -gt 0 ] && ok "timer_hrtimer_start recorded ($n)" || not_ok "timer_hrtimer_start recorded"
n=$(count sched_switch)
[ "$n" -gt 0 ] && ok "sched_switch recorded ($n)" || not_ok "sched_switch recorded"
n=$(count kmem_kmalloc)
[ "$n" -gt 0 ] && ok "kmem_kmalloc recorded ($n; its probe needs mm/slab.h from linux-source)" ||
	not_ok "kmem_kmalloc recorded"
n=$(grep -c ' syscall_entry_' /tmp/trace.txt)
[ "$n" -gt 0 ] && ok "syscall entries recorded ($n)" || not_ok "syscall entries recorded"
n=$(grep -c ' syscall_exit_' /tmp/trace.txt)
[ "$n" -gt 0 ] && ok "syscall exits recorded ($n)" || not_ok "syscall exits recorded"
total=$(count timer_hrtimer_start)
armed=$(grep ' timer_hrtimer_start: ' /tmp/trace.txt |
	grep -cE 'was_armed = (0|1) }')
if [ "$total" -gt 0 ] && [ "$armed" -eq "$total" ]; then
	ok "every timer_hrtimer_start carries was_armed ($armed/$total)"
else
	not_ok "every timer_hrtimer_start carries was_armed ($armed/$total)"
	diag "$(grep -m 3 ' timer_hrtimer_start: ' /tmp/trace.txt)"
fi
grep -m 3 ' timer_hrtimer_start: ' /tmp/trace.txt > "$DT_RESULTS/hrtimer-sample.txt"
dt_finish
