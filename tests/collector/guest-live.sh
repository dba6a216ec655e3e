# Guest side of t-live.sh (sourced after tests/vm/guest-lib.sh): three
# hosts record live (`dtracer record --live`) while `dtracer watch` on
# dt-a prints their requests.
#
#   dt-a client + collector      dt-b middle            dt-c server
#   bash, flagged  --7400-->  socat (fork)  --7401-->  dt-tcp serve
#   lttng-relayd, dtracer watch
#
# The watcher reaches the relayd's live port through a socat forwarder
# (127.0.0.1:5345), which is how its connection drops here.
#
# Phases, each request a new connection (but the load phase's): 2
# requests while dt-c does not record (they print at the watcher's
# timeout, without dt-c); dt-c starts recording (step 1): 4 requests;
# dt-b stops its session and starts another (step 2): 2 requests; under
# load, 20 requests a second apart from one flagged curl (one kept-alive
# connection) through nginx on dt-b (8080, upstream keep-alive) to dt-httpd on dt-c
# (8000, a thread per connection), beside two unflagged curl loops
# through the same nginx (each printed once, when settled: the
# collector issue's run); the forwarder dies and comes back 3 s
# later: 2 requests (DT_LIVE_CYCLES times: 1 here, 20 in `make
# soak-live`). Then a second watcher on dt-b reaches the three
# sessions through dt-a's live port, open to the LAN (`collect
# --live-address`), and is refused each (the relayd lets one viewer at a
# time attach to a session), saying so (step 3). The hosts stop their
# sessions, then the watcher is stopped (SIGINT): what the sessions
# flushed last is in its output. Steps: lead/follow on port 7480 + N.
# Handshakes: 7496 (dt-a records and watches), 7498 (dt-b records and
# socat listens), 7499 (dt-c serves), 7497 (dt-a is done), 7495 (a host
# stopped its session).
tcp=$DT_BUILDDIR/tests/tools/dt-tcp
dtracer=$DT_BUILDDIR/collector/dtracer
sys=/sys/distributed-tracer
httpd=$DT_BUILDDIR/tests/tools/dt-httpd
nginx=$DT_BUILDDIR/tests/vm/build/nginx/usr/sbin/nginx
# Requests per phase (P5: the load phase's, before the drop; P4: after
# each drop, CYCLES of them: DT_LIVE_CYCLES, `make soak-live` 20).
P1=2 P2=4 P3=2 P5=20 P4=2
CYCLES=${DT_LIVE_CYCLES:-1}

load() {
	check "modprobe dtracer" modprobe dtracer
	check "probe armed" sh -c "echo 1 > $sys/probe"
}

record() {
	check "dtracer record --live streams live to dt-a" sh -c \
		"$dtracer record --collector dt-a --live --gate thread > /tmp/record.log 2>&1"
	check "record created a live session (lttng create --live=1000000)" \
		grep -q 'lttng create dtracer --live=1000000 --set-url=net://dt-a' /tmp/record.log
}

stop() {
	check "dtracer stop" sh -c "$dtracer stop > /tmp/stop.log 2>&1"
}

# rows N: the watcher has printed N request rows or more.
rows() {
	[ "$(grep -c '^ *[0-9][0-9]*  [0-9]' /tmp/watch.out)" -ge "$1" ]
}

# requests K: K requests, one connection each, 1.5 s apart, from a bash
# that flags itself. It waits with its own `read -t` on a FIFO nobody
# writes: a `sleep` child would inherit the flag and be part of the
# request until it exits.
requests() {
	rm -f /tmp/idle
	mkfifo /tmp/idle
	K=$1 bash -c '
		exec 4<> /tmp/idle
		echo $$ > /sys/distributed-tracer/add_pid || exit 1
		i=0
		while [ $i -lt $K ]; do
			exec 3<>/dev/tcp/dt-b/7400 || exit 1
			printf hello >&3
			read -r -t 60 -N 10 answer <&3
			echo "$answer" >> /tmp/answers
			exec 3>&-
			i=$((i + 1))
			read -r -t 1.5 -u 4
		done
		echo $$ > /sys/distributed-tracer/remove_pid' >> /tmp/client.err 2>&1
}

# http_requests K: K requests through nginx on dt-b from one flagged
# curl, a second apart (--rate), on one kept-alive connection (bash
# would read the answers a byte at a time: six system calls a byte,
# recorded); their status codes to /tmp/http-answers.
http_requests() {
	_args=
	_i=0
	while [ $_i -lt "$1" ]; do
		_args="$_args -o /dev/null http://dt-b:8080/f-live/$_i"
		_i=$((_i + 1))
	done
	# shellcheck disable=SC2016,SC2086
	sh -c 'echo $$ > /sys/distributed-tracer/add_pid && exec "$@"' flagged \
		curl -s --rate 60/m -w '%{http_code}\n' $_args \
		> /tmp/http-answers 2>> /tmp/client.err
}

# curl_loop N: unflagged requests through nginx on dt-b until killed.
curl_loop() {
	while :; do
		curl -s -o /dev/null -w '%{http_code}\n' "http://dt-b:8080/b-live/$1" \
			>> /tmp/loops.out 2>&1
	done
}

# nginx on dt-b: 8080 to dt-c:8000, upstream connections kept alive.
nginx_start() {
	mkdir -p /tmp/nginx
	cat > /tmp/nginx/nginx.conf <<-EOF
	worker_processes 1;
	pid /tmp/nginx/nginx.pid;
	error_log /tmp/nginx/error.log;
	events {
		worker_connections 256;
	}
	http {
		access_log off;
		client_body_temp_path /tmp/nginx/body;
		proxy_temp_path /tmp/nginx/proxy;
		fastcgi_temp_path /tmp/nginx/fastcgi;
		uwsgi_temp_path /tmp/nginx/uwsgi;
		scgi_temp_path /tmp/nginx/scgi;
		upstream be {
			server dt-c:8000;
			keepalive 8;
		}
		server {
			listen 8080;
			location / {
				proxy_pass http://be;
				proxy_http_version 1.1;
				proxy_set_header Connection "";
			}
		}
	}
	EOF
	check "nginx (Debian's, unpacked) starts" \
		"$nginx" -p /tmp/nginx/ -c nginx.conf -e /tmp/nginx/error.log
	check "nginx listens on 8080" \
		wait_for 60 sh -c "ss -Hltn | grep -q ':8080 '"
}

# A second watcher, through the LAN, while dt-a's follows the sessions:
# it finds the three, the relayd refuses it each, it says why; SIGINT.
remote_watch() {
	"$dtracer" watch dt-a > /tmp/remote.out 2>&1 < /dev/null &
	_w=$!
	wait_for 60 sh -c "[ \$(grep -c '^# dt-.: following session dtracer (net://dt-a:5344/' /tmp/remote.out) -eq 3 ] &&
		[ \$(grep -c 'lets one viewer at a time attach' /tmp/remote.out) -eq 3 ]"
	_rc=$?
	kill -INT $_w
	wait $_w && return $_rc
}

case $DT_HOST in
dt-a)
	check "dtracer collect starts lttng-relayd, live port open to the LAN" sh -c \
		"$dtracer collect -o /tmp/traces --live-address 0.0.0.0 > /tmp/collect.log 2>&1"
	load
	forward() {
		socat TCP4-LISTEN:5345,fork,reuseaddr TCP4:127.0.0.1:5344 \
			2>> /tmp/forward.err &
	}
	forward
	# --timeout: room for a loaded machine's flushes (every 1 s)
	"$dtracer" watch --tree --delays --timeout 8s --reference dt-a \
		--html /tmp/live.html 127.0.0.1:5345 > /tmp/watch.out 2> /tmp/watch.err &
	watch=$!
	record
	check "the watcher follows dt-a's session" \
		wait_for 60 grep -q '^# dt-a: following session dtracer' /tmp/watch.out
	$tcp serve -4 7496 0 > /dev/null 2>&1 &
	ready=$!
	check "dt-b is recording" $tcp request -w $(slow 360) dt-b 7498 ping
	check "dt-c is serving" $tcp request -w $(slow 360) dt-c 7499 ping
	check "the watcher follows dt-b's session" \
		wait_for 60 grep -q '^# dt-b: following session dtracer' /tmp/watch.out
	requests $P1
	check "the watcher printed the $P1 requests dt-c did not record (timeout)" \
		wait_for $(slow 60) rows $P1
	lead 1 7480 120
	check "the watcher follows dt-c's session, started after it" \
		wait_for 60 grep -q '^# dt-c: following session dtracer' /tmp/watch.out
	requests $P2
	check "the watcher printed $P2 more" wait_for $(slow 60) rows $((P1 + P2))
	lead 2 7480 120
	check "the watcher follows dt-b's new session" \
		wait_for 60 grep -q '^# dt-b: following session dtracer again' /tmp/watch.out
	requests $P3
	check "the watcher printed $P3 more" wait_for $(slow 60) rows $((P1 + P2 + P3))
	# Under load: the flagged requests beside two curl loops.
	: > /tmp/loops.out
	curl_loop 1 &
	l1=$!
	curl_loop 2 &
	l2=$!
	check "the unflagged curl loops get answers" \
		wait_for $(slow 60) grep -q '^200$' /tmp/loops.out
	http_requests $P5
	kill $l1 $l2
	check "the flagged curl got $P5 answers through nginx" \
		sh -c "[ \$(grep -cx 200 /tmp/http-answers) -eq $P5 ]"
	diag "the curl loops made $(grep -c . /tmp/loops.out) requests beside it"
	check "the watcher printed $P5 more" \
		wait_for $(slow 60) rows $((P1 + P2 + P3 + P5))
	# The watcher's connection drops, for 3 s, CYCLES times.
	c=1
	while [ $c -le "$CYCLES" ]; do
		pkill -f TCP4-LISTEN:5345
		sleep 3
		forward
		check "[drop $c] the watcher lost the 3 sessions and follows them again" \
			wait_for 60 sh -c "[ \$(grep -c '^# dt-.: following session dtracer again, .* was lost' /tmp/watch.out) -ge $((3 * c)) ]"
		requests $P4
		check "[drop $c] the watcher printed $P4 more" \
			wait_for $(slow 60) rows $((P1 + P2 + P3 + P5 + c * P4))
		c=$((c + 1))
	done
	all=$((P1 + P2 + P3 + CYCLES * P4))
	check "the client got $all answers" \
		sh -c "[ \$(grep -cx echo:hello /tmp/answers) -eq $all ]"
	# What the watcher printed while every session still ran.
	cp /tmp/watch.out "$DT_RESULTS/watch-live.txt"
	lead 3 7480 120
	check "told dt-b we are done" $tcp request -w 120 dt-b 7497 done
	check "told dt-c we are done" $tcp request -w 120 dt-c 7497 done
	stop
	check "dt-b and dt-c closed their sessions" timeout $(slow 300) $tcp serve -4 7495 2
	kill $ready
	check "the watcher sees the three sessions end" wait_for 60 sh -c \
		"[ \$(grep -c '^# dt-.: session dtracer ended' /tmp/watch.out) -ge 4 ]"
	kill -INT $watch
	wait $watch
	rc=$?
	check "the watcher stops on SIGINT, status 0 ($rc)" test $rc -eq 0
	cp /tmp/watch.out "$DT_RESULTS/watch.txt"
	cp /tmp/live.html "$DT_RESULTS/live.html" 2>/dev/null
	cp /tmp/watch.err /tmp/client.err "$DT_RESULTS/" 2>/dev/null
	check "the collector holds three hosts' traces" sh -c '
		for h in dt-a dt-b dt-c; do
			find /tmp/traces/$h -path "*/kernel/metadata" | grep -q . || exit 1
		done'
	pkill lttng-relayd
	cp -r /tmp/traces "$DT_RESULTS/traces"
	;;
dt-b)
	load
	nginx_start
	check "dt-a is up" $tcp request -w $(slow 240) dt-a 7496 ping
	record
	socat TCP4-LISTEN:7400,fork,reuseaddr TCP4:dt-c:7401 2> /tmp/socat.err &
	socat=$!
	check "socat listens on 7400" wait_for 30 sh -c "ss -Hltn | grep -q ':7400 '"
	$tcp serve -4 7498 0 > /dev/null 2>&1 &
	ready=$!
	follow 2 7480 dt-a sh -c "$dtracer stop > /tmp/stop-1.log 2>&1 &&
		$dtracer record --collector dt-a --live --gate thread > /tmp/record-2.log 2>&1"
	follow 3 7480 dt-a check "a second watcher, on dt-b, finds the 3 sessions through dt-a's live port and is refused, saying why" \
		remote_watch
	cp /tmp/remote.out "$DT_RESULTS/" 2>/dev/null
	check "dt-a says it is done" timeout $(slow $((400 + 30 * CYCLES))) $tcp serve -4 7497 1
	kill $socat $ready
	"$nginx" -p /tmp/nginx/ -c nginx.conf -e /tmp/nginx/error.log -s quit
	stop
	check "told dt-a this session is closed" $tcp request -w 120 dt-a 7495 done
	;;
dt-c)
	load
	$tcp serve -4 7401 $((P1 + P2 + P3 + CYCLES * P4)) > /tmp/serve.log 2>&1 &
	srv=$!
	# The load phase's backend: its log says, per request, whether the
	# thread that served it was flagged (the server's own truth).
	$httpd 8000 /tmp/httpd.log 2> /tmp/httpd.err &
	hpid=$!
	check "dt-httpd listens on 8000" wait_for 60 sh -c "ss -Hltn | grep -q ':8000 '"
	$tcp serve -4 7499 0 > /dev/null 2>&1 &
	ready=$!
	follow 1 7480 dt-a record
	check "dt-a says it is done" timeout $(slow $((400 + 30 * CYCLES))) $tcp serve -4 7497 1
	wait $srv && ok "the server answered every request" ||
		not_ok "the server answered every request"
	kill $ready $hpid
	cp /tmp/httpd.log "$DT_RESULTS/"
	stop
	check "told dt-a this session is closed" $tcp request -w 120 dt-a 7495 done
	;;
esac
dt_finish
