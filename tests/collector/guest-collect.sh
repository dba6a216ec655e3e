# Guest side of t-collect.sh (sourced after tests/vm/guest-lib.sh), and
# with knobs of bench/guest-merge.sh and tests/collector/guest-flight.sh.
#
#   dt-a client            dt-b middle               dt-c server
#   bash, flagged  --7400-->  socat (fork)  --7401-->  dt-tcp serve
#   N requests      <--------               <--------  (clock +7 s)
#          \                  |                   /
#           `--- dtracer record --collector dt-d ---'   dt-d: dtracer collect
#
# Ready/done handshakes: 7496 (dt-d's relayd is up), 7498/7499 (dt-b and
# dt-c are recording), 7497 (dt-a is done), 7495 (a host has stopped its
# session; dt-d copies the traces once all three have).
tcp=$DT_BUILDDIR/tests/tools/dt-tcp
dtracer=$DT_BUILDDIR/collector/dtracer
sys=/sys/distributed-tracer
N=${DT_COLLECT_REQUESTS:-20}
# bench/guest-merge.sh sets these to record a big trace.
gate=${DT_COLLECT_GATE:-thread}

record() {
	check "modprobe dtracer" modprobe dtracer
	check "probe armed" sh -c "echo 1 > $sys/probe"
	check "the collector is up" $tcp request -w $(slow 240) dt-d 7496 ping
	check "dtracer record streams to dt-d" sh -c \
		"$dtracer record --collector dt-d --gate $gate ${DT_COLLECT_RECORD:-} > /tmp/record.log 2>&1"
	diag "$(tr '\n' ';' < /tmp/record.log)"
	if [ -n "${DT_COLLECT_RECORD:-}" ]; then
		check "record says what it configured: snapshot session, server trigger" \
			grep -q "add-trigger --name dtracer-dtracer .*--name=dtracer_unflag --filter=request == 1 && duration_ns >= .* --action=snapshot-session dtracer" /tmp/record.log
		check "record says what it configured: client trigger" \
			grep -q "add-trigger --name dtracer-dtracer-answer .*--name=dtracer_answer --filter=duration_ns >= .* --action=snapshot-session dtracer" /tmp/record.log
		# guest-flight.sh asks for 8 sub-buffers of 512 KiB per CPU.
		lttng list dtracer > /tmp/session.txt 2>&1
		check "the flight recorder's channel overwrites, 8 x 524288 bytes per CPU" sh -c "
			grep -q 'Event-loss mode: *overwrite' /tmp/session.txt &&
			grep -q 'Sub-buffer size: *524288 bytes' /tmp/session.txt &&
			grep -q 'Sub-buffer count: *8\$' /tmp/session.txt"
		check "both triggers are there" sh -c "lttng list-triggers > /tmp/triggers.txt &&
			grep -qx -- '- name: dtracer-dtracer' /tmp/triggers.txt &&
			grep -qx -- '- name: dtracer-dtracer-answer' /tmp/triggers.txt"
	fi
	load=
	if [ -n "${DT_COLLECT_LOAD:-}" ]; then
		sh -c "$DT_COLLECT_LOAD" > /dev/null 2>&1 &
		load=$!
	fi
}

stop() {
	[ -z "$load" ] || wait "$load"
	check "dtracer stop" sh -c "$dtracer stop > /tmp/stop.log 2>&1"
	if [ -n "${DT_COLLECT_RECORD:-}" ]; then
		check "dtracer stop removed both triggers" sh -c \
			"! lttng list-triggers | grep -q 'name: dtracer-dtracer'"
	fi
	check "told dt-d this session is closed" $tcp request -w 120 dt-d 7495 done
	check "rmmod dtracer" rmmod dtracer
}

case $DT_HOST in
dt-d)
	check "dtracer collect starts lttng-relayd" sh -c \
		"$dtracer collect -o /tmp/traces > /tmp/collect.log 2>&1"
	check "dtracer collect again: it runs already" sh -c \
		"$dtracer collect | grep -q 'already running'"
	$tcp serve -4 7496 0 > /dev/null 2>&1 &
	ready=$!
	check "three sessions closed" timeout $(slow 400) $tcp serve -4 7495 3
	kill $ready
	sleep 1
	# relayd's layout: HOST/SESSION-DATE/kernel (streamed) or
	# HOST/SESSION-DATE/snapshot-N-DATE-K/kernel (snapshots).
	check "the collector holds three hosts' traces" sh -c '
		for h in dt-a dt-b dt-c; do
			find /tmp/traces/$h -path "*/kernel/metadata" | grep -q . || exit 1
		done'
	cp -r /tmp/traces "$DT_RESULTS/traces"
	pkill lttng-relayd
	# A kernel trace without dtracer's events, for `dtracer requests`'s
	# bad-input case (t-collect.sh): stock LTTng, nothing flagged. Only
	# t-collect reads it (DT_COLLECT_PLAIN=0: t-flight, the benchmark).
	[ "${DT_COLLECT_PLAIN:-1}" = 0 ] ||
	check "a plain kernel trace (no dtracer events)" sh -c '
		lttng-sessiond -d &&
		lttng create plain --output=/tmp/plain &&
		lttng enable-event -k sched_switch,sched_wakeup &&
		lttng start && sleep 1 && lttng stop && lttng destroy'
	[ "${DT_COLLECT_PLAIN:-1}" = 0 ] || cp -r /tmp/plain "$DT_RESULTS/plain"
	;;
dt-a)
	record
	check "dt-b is recording" $tcp request -w $(slow 360) dt-b 7498 ping
	check "dt-c is recording" $tcp request -w $(slow 360) dt-c 7499 ping
	N=$N bash -c '
		echo $$ > /sys/distributed-tracer/add_pid || exit 1
		i=0
		while [ $i -lt $N ]; do
			exec 3<>/dev/tcp/dt-b/7400 || exit 1
			printf hello >&3
			read -r -t 60 -N 10 answer <&3
			echo "$answer" >> /tmp/answers
			exec 3>&-
			i=$((i + 1))
		done
		echo $$ > /sys/distributed-tracer/remove_pid' > /tmp/client.err 2>&1
	check "the client got $N answers through the middle" \
		sh -c "[ \$(grep -cx echo:hello /tmp/answers) -eq $N ]"
	check "dtracer counted one answer per request ($(stat_of answers) of $N)" \
		test "$(stat_of answers)" -eq "$N"
	check "told dt-b we are done" $tcp request -w 120 dt-b 7497 done
	check "told dt-c we are done" $tcp request -w 120 dt-c 7497 done
	stop
	;;
dt-b)
	record
	socat TCP4-LISTEN:7400,fork,reuseaddr TCP4:dt-c:7401 2> /tmp/socat.err &
	socat=$!
	check "socat listens on 7400" wait_for 30 sh -c "ss -Hltn | grep -q ':7400 '"
	$tcp serve -4 7498 0 > /dev/null 2>&1 &
	ready=$!
	check "dt-a says it is done" timeout $(slow 400) $tcp serve -4 7497 1
	kill $socat $ready
	stop
	;;
dt-c)
	# This host's clock is 7 s ahead: the merge must align it.
	check "clock stepped 7 s ahead" sh -c 'date -s "@$(($(date +%s) + 7))" > /dev/null'
	record
	# shellcheck disable=SC2086
	$tcp serve -4 ${DT_COLLECT_SERVE:-} 7401 $N > /tmp/serve.log 2>&1 &
	srv=$!
	$tcp serve -4 7499 0 > /dev/null 2>&1 &
	ready=$!
	check "dt-a says it is done" timeout $(slow 400) $tcp serve -4 7497 1
	wait $srv && ok "the server answered $N requests" || not_ok "the server answered $N requests"
	kill $ready
	stop
	;;
esac
dt_finish
