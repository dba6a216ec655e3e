# Guest side of the demo (sourced after tests/vm/guest-lib.sh). Three
# hosts serve a request chain made of Debian's programs; a fourth
# collects their traces:
#
#   dt-client            dt-proxy                dt-backend
#   curl, flagged  --8080-->  nginx  --8000-->  python3 -m http.server
#   N requests     <--------  (reverse proxy, <--------  (HTTP/1.1: a
#   bg-curl loop   --8080-->   upstream                  thread per
#   (unflagged)                keep-alive)               connection)
#          \                     |                      /
#           `---- dtracer record --collector dt-collector ----'
#
# Background traffic that nobody flagged: dt-client's bg-curl loop goes
# through the same nginx to the same python3, on the same kept-alive
# upstream connections as the flagged requests; dt-proxy and dt-backend
# run a second web server (bg-httpd, port 8001) and fetch from the next
# host's (bg-curl): dt-proxy -> dt-backend -> dt-client. Their process
# names (symbolic links to python3 and curl) let the test show they are
# absent from the trace. Each host counts the requests it served and
# those it traced (dtracer's propagations) in $DT_RESULTS/served.
#
# Knobs: DT_DEMO_REQUESTS (default 20). Hand-shakes (dt-tcp): 7496
# (the collector is up), 7498/7499 (dt-proxy/dt-backend are serving and
# recording), 7497 (dt-client is done), 7495 (a host stopped recording),
# 7494 (every host stopped: the bg-httpds another host fetches from may
# go).
tcp=$DT_BUILDDIR/tests/tools/dt-tcp
dtracer=$DT_BUILDDIR/collector/dtracer
nginx=$DT_BUILDDIR/tests/vm/build/nginx/usr/sbin/nginx
sys=/sys/distributed-tracer
N=${DT_DEMO_REQUESTS:-20}

say() {
	echo "$*" > "$DT_RESULTS/progress"
}

# background [URL]: the unflagged traffic of this host: a bg-httpd, and
# (with URL) a bg-curl loop fetching URL.
background() {
	mkdir -p /tmp/bg
	echo "background $DT_HOST" > /tmp/bg/index.html
	ln -s "$(command -v python3)" /tmp/bg-httpd
	ln -s "$(command -v curl)" /tmp/bg-curl
	/tmp/bg-httpd -m http.server 8001 --directory /tmp/bg \
		> /tmp/bg-httpd.log 2>&1 &
	bg_httpd=$!
	[ $# = 0 ] || background_loop "$1"
}

# background_loop URL: the bg-curl loop; a fetch counts ("ok") only if
# it got a 2xx answer (-f: an error page is no fetch).
background_loop() {
	# shellcheck disable=SC2016
	sh -c 'while :; do
		/tmp/bg-curl -fsS -o /dev/null "$1" && echo ok
		sleep 0.1
	done' bg "$1" > /tmp/bg-curl.log 2>&1 &
	bg_loop=$!
}

# Ready only once this host's background traffic flows; what it fetches
# from now on, it fetches while recording and while the requests run.
background_flows() {
	check "background traffic flows (bg-curl -> $1)" \
		wait_for $(slow 180) grep -q '^ok$' /tmp/bg-curl.log
	bg_before=$(grep -c '^ok$' /tmp/bg-curl.log)
}

# bg_fetched N: the loop has fetched N times since it was ready.
bg_fetched() {
	n=$(($(grep -c '^ok$' /tmp/bg-curl.log) - bg_before))
	[ "$n" -ge "$1" ]
}

# Called once the requests are answered, before this host says so (the
# client) or stops recording: the loop runs until it has fetched 3 times
# since it was ready, however slow the guests, then stops. The bg-httpd
# stays up for the host that fetches from it, until background_end.
background_stop() {
	wait_for $(slow 60) bg_fetched 3
	kill "$bg_loop" 2>/dev/null
	bg_fetched 0
	echo "$n" > "$DT_RESULTS/background"
	check "background traffic ran beside the requests ($n fetches)" \
		test "$n" -ge 3
}

# Every host has stopped (the collector says so on 7494): nobody fetches
# from this host's bg-httpd any more.
background_end() {
	$tcp request -w $(slow 240) dt-collector 7494 ping > /dev/null 2>&1
	kill "$bg_httpd" 2>/dev/null
}

record() {
	say "loading dtracer.ko, recording to dt-collector"
	check "modprobe dtracer" modprobe dtracer
	check "probe armed" sh -c "echo 1 > $sys/probe"
	check "the collector is up" $tcp request -w $(slow 240) dt-collector 7496 ping
	check "dtracer record --collector dt-collector --gate thread" sh -c \
		"$dtracer record --collector dt-collector --gate thread > $DT_RESULTS/record.log 2>&1"
}

# served PROGRAM COUNT: "PROGRAM SERVED TRACED" in $DT_RESULTS/served,
# TRACED being the requests this host read marked (propagations).
served() {
	echo "$1 $2 $(stat_of propagations)" > "$DT_RESULTS/served"
}

stop() {
	check "dtracer stop" sh -c "$dtracer stop > $DT_RESULTS/stop.log 2>&1"
	cat $sys/stats > "$DT_RESULTS/stats"
	check "told dt-collector this session is closed" \
		$tcp request -w 120 dt-collector 7495 done
	check "rmmod dtracer" rmmod dtracer
	background_end
	say "done"
}

case $DT_HOST in
dt-collector)
	say "starting lttng-relayd"
	check "dtracer collect starts lttng-relayd" sh -c \
		"$dtracer collect -o /tmp/traces > $DT_RESULTS/collect.log 2>&1"
	$tcp serve -4 7496 0 > /dev/null 2>&1 &
	ready=$!
	say "receiving the hosts' traces"
	check "three hosts closed their sessions" timeout $(slow 600) $tcp serve -4 7495 3
	kill $ready
	timeout $(slow 300) $tcp serve -4 7494 3 > /dev/null 2>&1 &
	ended=$!
	sleep 1
	check "the collector holds the three hosts' traces" sh -c '
		for h in dt-client dt-proxy dt-backend; do
			find /tmp/traces/$h -path "*/kernel/metadata" | grep -q . || exit 1
		done'
	pkill lttng-relayd
	cp -r /tmp/traces "$DT_RESULTS/traces"
	wait $ended
	check "the three hosts heard that all had stopped" test $? = 0
	say "done"
	;;
dt-backend)
	# The loops start once recording has (bg-curl is a process a fetch:
	# beside lttng-sessiond's start, a loop took the guest's time).
	background
	record
	mkdir -p /tmp/www
	head -c 65536 /dev/urandom > /tmp/www/data.bin
	echo "background, through nginx" > /tmp/www/bg.html
	python3 -m http.server -p HTTP/1.1 8000 --directory /tmp/www \
		> /tmp/httpd.log 2>&1 &
	httpd=$!
	check "python3 -m http.server (HTTP/1.1) listens on 8000" \
		wait_for 60 sh -c "ss -Hltn | grep -q ':8000 '"
	background_loop http://dt-client:8001/
	background_flows http://dt-client:8001/
	$tcp serve -4 7499 0 > /dev/null 2>&1 &
	ready=$!
	say "serving"
	check "dt-client says it is done" timeout $(slow 600) $tcp serve -4 7497 1
	kill $ready $httpd
	served python3 "$(grep -c '"GET ' /tmp/httpd.log)"
	cp /tmp/httpd.log "$DT_RESULTS/"
	background_stop
	stop
	;;
dt-proxy)
	background
	record
	mkdir -p /tmp/nginx
	cp "$DT_SRCDIR/demo/nginx.conf" /tmp/nginx/
	check "nginx (Debian's, unpacked) starts as a reverse proxy to dt-backend" \
		"$nginx" -p /tmp/nginx/ -c nginx.conf -e /tmp/nginx/error.log
	check "nginx listens on 8080" wait_for 60 sh -c "ss -Hltn | grep -q ':8080 '"
	background_loop http://dt-backend:8001/
	background_flows http://dt-backend:8001/
	$tcp serve -4 7498 0 > /dev/null 2>&1 &
	ready=$!
	say "serving"
	check "dt-client says it is done" timeout $(slow 600) $tcp serve -4 7497 1
	kill $ready
	"$nginx" -p /tmp/nginx/ -c nginx.conf -e /tmp/nginx/error.log -s quit
	served nginx "$(grep -c '"GET ' /tmp/nginx/access.log)"
	cp /tmp/nginx/access.log /tmp/nginx/error.log "$DT_RESULTS/" 2>/dev/null
	background_stop
	stop
	;;
dt-client)
	# Its loop goes through nginx to dt-backend: it starts once both
	# serve, so that what it fetches is served, not refused (502).
	background
	record
	check "dt-proxy is serving and recording" $tcp request -w $(slow 600) dt-proxy 7498 ping
	check "dt-backend is serving and recording" $tcp request -w $(slow 600) dt-backend 7499 ping
	background_loop http://dt-proxy:8080/bg.html
	background_flows http://dt-proxy:8080/bg.html
	say "sending $N requests (curl, flagged) through nginx to the backend"
	set --
	i=0
	while [ $i -lt $N ]; do
		set -- "$@" -o /dev/null "http://dt-proxy:8080/data.bin?request=$i"
		i=$((i + 1))
	done
	# Only this curl is flagged: add_pid on its thread, then exec.
	flagged curl -sS -w '%{http_code} %{size_download} %{time_total}\n' "$@" \
		> "$DT_RESULTS/curl.txt" 2> /tmp/curl.err
	check "curl got $N answers of 65536 bytes through nginx" \
		sh -c "[ \$(grep -c '^200 65536 ' $DT_RESULTS/curl.txt) -eq $N ]"
	# Its bg-curl goes through nginx, which quits once told "done".
	background_stop
	check "told dt-proxy we are done" $tcp request -w 120 dt-proxy 7497 done
	check "told dt-backend we are done" $tcp request -w 120 dt-backend 7497 done
	served curl $N
	stop
	;;
esac
dt_finish
