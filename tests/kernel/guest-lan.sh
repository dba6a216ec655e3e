# Guest side of t-lan.sh (sourced after tests/vm/guest-lib.sh).
#
#   dt-a (collector)              dt-b
#   lttng-relayd -o /tmp/relay    lttng-sessiond
#   dt-tcp serve 7000  <-------   dt-tcp request dt-a 7000 hello
#   relay 5342/5343    <-------   lttng create --set-url=net://dt-a
#   dt-tcp serve 7001  <-------   "done" once the session is destroyed
#   babeltrace2 /tmp/relay/dt-b/...
tcp=$DT_BUILDDIR/tests/tools/dt-tcp

hostname > "$DT_RESULTS/hostname"
uname -r > "$DT_RESULTS/release"
cat /proc/sys/kernel/random/boot_id > "$DT_RESULTS/boot_id"

case $DT_HOST in
dt-a)
	check "lttng-relayd starts" lttng-relayd -d -o /tmp/relay
	$tcp serve 7000 1 > /tmp/serve.log 2>&1 &
	echo_pid=$!
	check "dt-b says its session is done" timeout $(slow 300) $tcp serve 7001 1
	wait $echo_pid
	[ $? -eq 0 ] && ok "the echo server answered dt-b and exited 0" ||
		not_ok "the echo server answered dt-b and exited 0"
	dir=$(ls -d /tmp/relay/dt-b/stream-* 2>/dev/null | head -n 1)
	check "the relay wrote dt-b's session under dt-b's name" test -d "$dir/kernel"
	if babeltrace2 "$dir" > /tmp/trace.txt 2> /tmp/bt.err; then
		ok "babeltrace2 reads dt-b's streamed trace ($(wc -l < /tmp/trace.txt) events)"
	else
		not_ok "babeltrace2 reads dt-b's streamed trace"
		diag "$(head -n 20 /tmp/bt.err)"
	fi
	n=$(grep -c ' dt-b sched_switch: ' /tmp/trace.txt)
	[ "$n" -gt 0 ] && ok "dt-b's sched_switch events, tagged dt-b ($n)" ||
		not_ok "dt-b's sched_switch events, tagged dt-b"
	;;
dt-b)
	check "lttng-sessiond starts" lttng-sessiond -d
	check "dt-a is reachable over TCP" \
		sh -c "$tcp request -w $(slow 240) dt-a 7000 hello > /tmp/answer"
	check "dt-a's answer is right" grep -qx 'echo:hello' /tmp/answer
	check "session streamed to dt-a" \
		lttng create stream --set-url=net://dt-a
	check "sched_switch enabled" lttng enable-event -k sched_switch
	check "session started" lttng start
	for i in 1 2 3 4 5; do sleep 0.05; done
	check "session stopped" lttng stop
	check "session destroyed (trace flushed to the relay)" lttng destroy stream
	check "told dt-a we are done" $tcp request dt-a 7001 done
	;;
esac
dt_finish
