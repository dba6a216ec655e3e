# Guest side of tests/collector/reattach-repro.sh (sourced after
# tests/vm/guest-lib.sh): lttng-live's events lost when a viewer attaches
# again, without dtracer. One quiet kernel session streams live to a
# local relayd; a babeltrace2 viewer follows it, is killed, events are
# made, a new viewer attaches within a live period: are those events
# shown? The relayd's trace on disk is the truth.
relay=/tmp/relay
check "lttng-sessiond starts" lttng-sessiond -d
check "lttng-relayd starts" lttng-relayd -d -o "$relay"
check "a live session streams to it" lttng create quiet --live=1000000 \
	--set-url=net://127.0.0.1
check "one quiet event: sched_process_exec" \
	lttng enable-event -k sched_process_exec
check "session started" lttng start
url=net://127.0.0.1/host/$(hostname)/quiet
# execs NAME N: N programs named NAME exec'd (one event each)
execs() {
	mkdir -p /tmp/bin
	ln -sf /bin/true "/tmp/bin/$1"
	_i=0
	while [ $_i -lt "$2" ]; do
		"/tmp/bin/$1"
		sleep 0.2
		_i=$((_i + 1))
	done
}
babeltrace2 -i lttng-live "$url" > /tmp/v1.txt 2> /tmp/v1.err &
v1=$!
sleep 3
execs before 5
sleep 3
kill $v1
wait $v1 2> /dev/null
execs between 5
sleep 0.3
babeltrace2 -i lttng-live "$url" > /tmp/v2.txt 2> /tmp/v2.err &
v2=$!
sleep 3
execs after 5
sleep 3
check "session stopped" lttng stop
check "session destroyed" lttng destroy quiet
sleep 2
kill $v2 2> /dev/null
wait $v2 2> /dev/null
babeltrace2 "$relay" > /tmp/disk.txt 2> /tmp/disk.err
cp /tmp/v1.txt /tmp/v2.txt /tmp/disk.txt "$DT_RESULTS/" 2> /dev/null
n() {	# n FILE NAME: exec events of NAME in FILE
	grep -c "filename = \"/tmp/bin/$2\"" "$1"
}
for name in before between after; do
	diag "$name: on disk $(n /tmp/disk.txt $name), first viewer" \
		"$(n /tmp/v1.txt $name), second viewer $(n /tmp/v2.txt $name)"
done
check "the relayd's trace on disk holds the 15 events" \
	test "$(grep -c 'filename = "/tmp/bin/' /tmp/disk.txt)" -eq 15
check "the first viewer saw the 5 before it was killed" \
	test "$(n /tmp/v1.txt before)" -eq 5
check "the second viewer saw the 5 after it attached" \
	test "$(n /tmp/v2.txt after)" -eq 5
seen=$(( $(n /tmp/v1.txt between) + $(n /tmp/v2.txt between) ))
diag "made between the viewers: 5; shown by either: $seen" \
	"(lttng-tools $(lttng --version | grep -o '[0-9]*\.[0-9]*\.[0-9]*' | head -n 1)," \
	"babeltrace2 $(babeltrace2 --version | grep -o '[0-9]*\.[0-9]*\.[0-9]*' | head -n 1))"
echo "made while no viewer was attached: $seen of 5 shown by either viewer, $(n /tmp/disk.txt between) on disk (lttng-tools $(lttng --version | grep -o '[0-9]*\.[0-9]*\.[0-9]*' | head -n 1), babeltrace2 $(babeltrace2 --version | grep -o '[0-9]*\.[0-9]*\.[0-9]*' | head -n 1))" > "$DT_RESULTS/reattach.txt"
