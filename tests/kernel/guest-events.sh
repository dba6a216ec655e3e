# Guest side of t-events.sh (sourced after tests/vm/guest-lib.sh).
#
#   dt-a client            dt-b middle                dt-c server
#   bash, flagged  --7400-->  socat (fork)  --7401-->  dt-tcp serve -d 500
#   (/dev/tcp)     <--------                <--------
#   7498/7499: "ready" servers on dt-b/dt-c; 7497: "done" from dt-a.
#
# Each host records dtracer's events (and the syscalls of flagged
# threads, gate "thread") in its own LTTng session; the traces go to the
# results, where t-events.sh matches them across hosts.
tcp=$DT_BUILDDIR/tests/tools/dt-tcp
sys=/sys/distributed-tracer

check "modprobe dtracer" modprobe dtracer
check "probe armed" sh -c "echo 1 > $sys/probe"
check "gate thread" sh -c "echo thread > $sys/gate"
check "lttng-sessiond starts with dtracer's probes" \
	env LTTNG_EXTRA_KMOD_PROBES=dtracer lttng-sessiond -d
check "session created" lttng create ev --output=/tmp/ev
check "dtracer's events enabled" lttng enable-event -k 'dtracer_*'
check "syscalls enabled" lttng enable-event -k --syscall read,write,recvfrom,sendto,connect,accept,accept4
check "tid and procname context" lttng add-context -k -t tid -t procname
check "tracing" lttng start

case $DT_HOST in
dt-a)
	check "dt-c is up" $tcp request -w $(slow 240) dt-c 7499 ping
	check "dt-b is up" $tcp request -w $(slow 240) dt-b 7498 ping
	bash -c '
		echo $$ > /sys/distributed-tracer/add_pid || exit 1
		echo $$ > /tmp/client
		exec 3<>/dev/tcp/dt-b/7400 || exit 1
		printf hello >&3
		read -r -t 60 -N 10 answer <&3
		echo "$answer" > /tmp/answer
		exec 3>&-
		echo $$ > /sys/distributed-tracer/remove_pid' > /tmp/client.err 2>&1
	check "the client got the answer through the middle" grep -qx echo:hello /tmp/answer
	cp /tmp/client "$DT_RESULTS/client"
	check "told dt-b we are done" $tcp request -w $(slow 240) dt-b 7497 done
	check "told dt-c we are done" $tcp request -w $(slow 240) dt-c 7497 done
	;;
dt-b)
	socat TCP4-LISTEN:7400,fork,reuseaddr TCP4:dt-c:7401 2> /tmp/socat.err &
	socat=$!
	check "socat listens on 7400" wait_for 30 sh -c "ss -Hltn | grep -q ':7400 '"
	$tcp serve -4 7498 0 > /dev/null 2>&1 &
	ready=$!
	check "dt-a says it is done" timeout $(slow 300) $tcp serve -4 7497 1
	kill $socat $ready
	;;
dt-c)
	$tcp serve -4 -d 500 7401 1 > /tmp/serve.log 2>&1 &
	srv=$!
	$tcp serve -4 7499 0 > /dev/null 2>&1 &
	ready=$!
	check "dt-a says it is done" timeout $(slow 300) $tcp serve -4 7497 1
	wait $srv && ok "the server answered once" || not_ok "the server answered once"
	echo $srv > "$DT_RESULTS/server"
	kill $ready
	;;
esac
check "stop" lttng stop
check "destroy" lttng destroy ev
check "babeltrace2 reads this host's trace" \
	sh -c "babeltrace2 --clock-seconds --no-delta /tmp/ev > $DT_RESULTS/trace.txt"
cp -r /tmp/ev "$DT_RESULTS/ctf"
diag "$(grep -c dtracer_ $DT_RESULTS/trace.txt) dtracer events, stats: $(cat $sys/stats | tr '\n' ' ')"
check "rmmod dtracer" rmmod dtracer
dt_finish
