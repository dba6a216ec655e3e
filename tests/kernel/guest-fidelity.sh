# Guest side of t-fidelity.sh (sourced after tests/vm/guest-lib.sh).
#
#   dt-a clients               dt-b proxy                dt-c backend
#   curl, flagged  ---------->  nginx, one worker  ---->  dt-httpd (a thread
#   3 curl loops, unflagged     8080: upstream            per connection,
#                               keep-alive (HTTP/1.1)     HTTP/1.1 keep-alive)
#                               8081: none (HTTP/1.0)     logs per request
#                               8082: keep-alive, to      whether its thread
#                               dt-c's pool (8004)        was flagged
#   redis-cli, flagged ------>  redis-server (6379)  <--  8003: a pool (one
#   redis-benchmark -P 16                                 reader, 3 workers)
#   ab -k -c 32, h2load -m 16   8090: Node.js loop  ----> 8004: a pool of 2
#                               8083: nginx over a UNIX socket to a
#                               dt-httpd on dt-b (/tmp/unixd.sock)
#                               8443: nginx, TLS 1.2 and 1.3, to 8000
#                               8084: nginx, HTTP/2, to 8000
#                               8085, 8086: nginx to gunicorn
#                               (2 sync workers, dt-wsgi.py) over
#                               /tmp/wsgi.sock, over TCP -> 8000
#                               8087, 8088: nginx to php-fpm
#                               (FastCGI, dt-fpm.php) over
#                               /tmp/php.sock, over TCP -> 8000
#                               8089, 8099: nginx's grpc_pass to
#                               a gRPC server (Go's, dt-grpcgo;
#                               Python's, dt-grpc.py) over
#                               /tmp/grpc.sock, over TCP -> 8000
#                               8100: nghttpx, HTTP/2 -> 8000
#                               (HTTP/1.1), gRPC -> dt-grpcgo
#                               (one HTTP/2 connection)
#                               8091: Go net/http   ---->
#                               8092: Python asyncio -->
#                               8094-8096: io_uring ---->
#                                                         that asks redis
#
# Two phases, one per nginx port. In each, three unflagged curl loops
# (5 requests per connection; with DT_FIDELITY_BENCH=1, ab -k -c 32, as
# in the pool and mixed phases, and redis-benchmark on 32 connections
# instead of 2) run through nginx; one flagged curl makes
# 20 requests on one connection among them; 2 s after it has exited,
# with the loops still running, nothing may be flagged on any host. The
# ground truth is dt-httpd's log (per request: traced or not) and each
# host's list_pid, sampled every 0.1 s. Every segment of the flagged
# curl's connection from nginx carries both marks (a response); nothing
# nginx sends to the loops' connections is marked. A third phase asks
# dt-c directly for responses of 1 MiB, written in 16 KiB writes (8001)
# and sent with sendfile() (8002), 3 each, beside two unflagged loops:
# every byte of the flagged ones comes back with both marks.
#
# Then the event loop of a store: one redis-server, a redis-benchmark
# pipelining 16 commands at a time on 2 connections beside a flagged
# redis-cli making 20 INCRs on one: every reply to the flagged one carries
# both marks, no reply to the benchmark any. A thread pool: dt-c's 8003,
# one thread reading every connection and handing each request to one of
# 3 workers (a mutex and a condition variable): the worker is followed
# by its wake-up (handoff), which is a guess; its log measures it; the
# answers are exact (both marks to the flagged curl, none to the
# loops). And a
# mixed chain, nginx (an event loop) -> dt-c's pool of 2 on 8004 -> the
# redis-server, each worker asking it (an inline PING on a connection
# of its own) before answering: at dt-c, the PINGs of the requests
# traced there are marked, no other; redis's answers to them carry
# both marks, no other.
#
# Then middle tiers under a real load generator (ab, 32 connections
# kept alive, beside the flagged curl), to dt-c's dt-httpd on 8000: a
# Node.js event loop that defers its upstream calls (dt-evloop.js,
# 8090: exact, every flagged request traced at the loop and the
# backend, no other); a Go net/http tier (dt-gomid, 8091, GOMAXPROCS
# 4: goroutines on any thread, followed by `dtracer go`'s uprobes on
# Go's scheduler: checked to the issue's target, all 20 flagged traced
# and at most 1% of the others); and, with DT_FIDELITY_BENCH=1 (the
# benchmark only), a Python asyncio tier
# (dt-aiomid.py, aiohttp, 8092: two upstream calls per request through
# one session of 2 connections; not followed) and a Java thread-pool
# tier (dt-javamid.java, the JDK's HTTP server with 4 workers,
# HttpURLConnection's shared keep-alive cache, 8093). Each logs, per
# request, whether its thread was traced. And nginx's 8083 under the
# same load to a dt-httpd on dt-b behind a UNIX socket (8 kept-alive
# connections): the context crosses the socket (dtracer/unix.c), exact;
# and nginx's 8085 and 8086 to gunicorn's sync workers (Debian's, a
# process per worker, dt-wsgi.py asking dt-c's 8000 for each request,
# its log per request) over a UNIX socket (exact, at gunicorn and at
# the backend) and over TCP on loopback (the issue's target); and
# nginx's 8087 and 8088 to php-fpm (Debian's, FastCGI, 2 workers a
# pool, dt-fpm.php, its log per request), the same two ways.
# And interim answers (dtracer/interim.c): 10 GETs through nginx's TLS
# port 8443, each on a connection of its own (5 in TLS 1.2, 5 in TLS 1.3:
# a handshake each, TLS 1.3's tickets), and 10 POSTs with "Expect:
# 100-continue" in clear on 8080, beside ab -k -c 32 over TLS: nginx
# starts one context per flagged request (20, exact); at the backend,
# through nginx's calls matched by deferred.c's order (a guess), every
# flagged one traced and at most 1% of the others.
# And HTTP/2 in clear (nginx's 8084, prior knowledge): 20 GETs of a
# flagged curl on one connection, one stream after another, beside
# h2load's 32 connections of 16 streams at once: nginx's connection
# frames (SETTINGS, WINDOW_UPDATE, their ACKs) answer no stream, so
# nginx starts one context per flagged request (exact); at the backend,
# the issue's target (nginx's calls by deferred.c's order, a guess).
# The same through nghttpx (Debian's, one worker, 8100) to dt-c's 8000
# over HTTP/1.1: the issue's target at the backend.
# And gRPC (unary calls; HTTP/2 on both sides) through nginx's
# grpc_pass to Go's gRPC server (Debian's grpc-go, dt-grpcgo, followed
# by `dtracer go`: each call runs in a goroutine its connection's reader
# starts), over a UNIX socket and over TCP, beside h2load's 32
# connections of up to 16 calls, paced: at nginx as HTTP/2 (answers
# exact), behind it a floor; the same calls through nghttpx, which
# multiplexes every client's calls on one HTTP/2 connection to Go's
# server (its writes' streams counted: h2.c), to a floor; with
# Python's (python3-grpcio: a poller thread hands each call to a pool
# of 4 through CPython's SimpleQueue, followed by `dtracer python`:
# pyqueue.c), to a floor.
# And, with DT_FIDELITY_BENCH=1 only, io_uring (dt-uring on dt-b: one
# thread, one ring, 8 kept-alive upstream connections, under ab -k -c
# 32): plain, with SQPOLL's kernel thread doing the I/O, and with
# IOSQE_ASYNC (io-wq's workers): measured, at the tier and the backend.
#
# Hand-shakes (dt-tcp) on 6600 + 20 * PHASE: +1 dt-b and dt-c ready,
# +2 the flagged client is done (dt-a serves it to both), +3 both
# checked (dt-a waits for both): below the servers' ports (8000 and up)
# for phases up to 69.
tcp=$DT_BUILDDIR/tests/tools/dt-tcp
httpd=$DT_BUILDDIR/tests/tools/dt-httpd
pcap=$DT_BUILDDIR/tests/tools/dt-pcap
nginx=$DT_BUILDDIR/tests/vm/build/nginx/usr/sbin/nginx
redis=$DT_BUILDDIR/tests/vm/build/redis/bin
sys=/sys/distributed-tracer
N=20

# sample FILE: list_pid every 0.1 s into FILE, until killed (dt-sample:
# one process, where a loop of cat and sleep took a processor).
sample() {
	$DT_BUILDDIR/tests/tools/dt-sample 100 $sys/list_pid > "$1" 2>/dev/null &
	sampler=$!
}

# none_flagged_after: 2 s after the flagged client ended, list_pid is
# empty on this host.
none_flagged_after() {
	sleep 2
	check "[$1] 2 s after the flagged client exited, with the loops running, nothing is flagged" \
		sh -c "l=\$(cat $sys/list_pid); [ -z \"\$l\" ] || { echo \"\$l\"; exit 1; }"
}

# pids_are FILE PID...: every thread sampled in FILE belongs to one of
# the processes PID.
pids_are() {
	_f=$1
	shift
	awk -v ok=" $* " 'index(ok, " " $2 " ") == 0 { print; bad++ } END { exit bad > 0 }' "$_f"
}

nginx_conf() {
	# FastCGI's parameters for dt-fpm.php (no fastcgi_params file).
	fcgi="fastcgi_param SCRIPT_FILENAME /tmp/php/dt-fpm.php;
				fastcgi_param REQUEST_METHOD \$request_method;
				fastcgi_param REQUEST_URI \$request_uri;
				fastcgi_param SERVER_PROTOCOL \$server_protocol;
				fastcgi_param QUERY_STRING \$query_string;"
	mkdir -p /tmp/nginx
	cat > /tmp/nginx/nginx.conf <<-EOF
	worker_processes 1;
	pid /tmp/nginx/nginx.pid;
	error_log /tmp/nginx/error.log;
	events {
		worker_connections 1024;
	}
	http {
		access_log off;
		client_body_temp_path /tmp/nginx/body;
		proxy_temp_path /tmp/nginx/proxy;
		fastcgi_temp_path /tmp/nginx/fastcgi;
		uwsgi_temp_path /tmp/nginx/uwsgi;
		scgi_temp_path /tmp/nginx/scgi;
		upstream ka {
			server dt-c:8000;
			keepalive 8;
		}
		upstream plain {
			server dt-c:8000;
		}
		upstream pool {
			server dt-c:8004;
			keepalive 8;
		}
		upstream local {
			server unix:/tmp/unixd.sock;
			keepalive 8;
		}
		upstream wsgi {
			server unix:/tmp/wsgi.sock;
		}
		upstream wsgitcp {
			server 127.0.0.1:8097;
		}
		upstream fpm {
			server unix:/tmp/php.sock;
		}
		upstream fpmtcp {
			server 127.0.0.1:9001;
		}
		upstream grpc {
			server unix:/tmp/grpc.sock;
			keepalive 8;
		}
		upstream grpctcp {
			server 127.0.0.1:8098;
			keepalive 8;
		}
		server {
			listen 8080;
			location / {
				proxy_pass http://ka;
				proxy_http_version 1.1;
				proxy_set_header Connection "";
			}
		}
		server {
			listen 8081;
			location / {
				proxy_pass http://plain;
			}
		}
		server {
			listen 8082;
			location / {
				proxy_pass http://pool;
				proxy_http_version 1.1;
				proxy_set_header Connection "";
			}
		}
		server {
			listen 8083;
			location / {
				proxy_pass http://local;
				proxy_http_version 1.1;
				proxy_set_header Connection "";
			}
		}
		server {
			listen 8085;
			location / {
				proxy_pass http://wsgi;
			}
		}
		server {
			listen 8086;
			location / {
				proxy_pass http://wsgitcp;
			}
		}
		server {
			listen 8087;
			location / {
				fastcgi_pass fpm;
				$fcgi
			}
		}
		server {
			listen 8088;
			location / {
				fastcgi_pass fpmtcp;
				$fcgi
			}
		}
		server {
			listen 8089 http2;
			location / {
				grpc_pass grpc://grpc;
			}
		}
		server {
			listen 8099 http2;
			location / {
				grpc_pass grpc://grpctcp;
			}
		}
		server {
			listen 8084 http2;
			location / {
				proxy_pass http://ka;
				proxy_http_version 1.1;
				proxy_set_header Connection "";
			}
		}
		server {
			listen 8443 ssl;
			ssl_protocols TLSv1.2 TLSv1.3;
			ssl_certificate /tmp/nginx/tls.crt;
			ssl_certificate_key /tmp/nginx/tls.key;
			location / {
				proxy_pass http://ka;
				proxy_http_version 1.1;
				proxy_set_header Connection "";
			}
		}
	}
	EOF
	# 8443's certificate: made here (an EC key: quick under emulation).
	openssl req -x509 -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-keyout /tmp/nginx/tls.key -out /tmp/nginx/tls.crt -days 2 \
		-subj /CN=dt-b > /tmp/nginx/openssl.log 2>&1
}

# load NAME PORTS URL: unflagged load from a real load generator instead
# of the loops: ab, 32 connections kept alive to PORTS' first (lg=h2:
# h2load, 32 HTTP/2 connections of 16 streams at once each), until
# killed ($loops: its pid); returns once they are up.
load() {
	if [ "${lg:-}" = h2 ]; then
		h2load -c 32 -m 16 -D 3600 "$3" > /tmp/loops-$1 2>&1 &
	elif [ "${lg:-}" = grpc ]; then
		h2load -c 32 -m 16 --rps $grpc_rps -D 3600 $grpc_args \
			-d /tmp/grpc-b-$1 "$3" \
			> /tmp/loops-$1 2>&1 &
	else
		ab -k -c 32 -t 3600 -n 10000000 "$3" > /tmp/loops-$1 2>&1 &
	fi
	loops=$!
	check "[$1] the load generator holds 32 connections" wait_for $(slow 120) sh -c \
		"[ \$(ss -Htn state established '( dport = :${2%% *} )' | wc -l) -ge 32 ]"
}

# grpc_message TEXT FILE: FILE holds one gRPC message (not compressed,
# its length in 4 bytes, big-endian) whose bytes are TEXT (under 256).
grpc_message() {
	printf "\\000\\000\\000\\000\\$(printf %03o ${#1})%s" "$1" > "$2"
}

# loops NAME URL...: an unflagged curl loop per URL (a curl glob: its
# requests share a connection), until killed.
loops() {
	_n=$1
	shift
	loops=
	for u in "$@"; do
		# shellcheck disable=SC2016
		sh -c 'while :; do
			curl -s -o /dev/null "$1" && echo ok
		done' loop "$u" >> /tmp/loops-$_n 2>&1 &
		loops="$loops $!"
	done
}

# capture NAME PORTS: tcpdump on eth0 of the TCP ports PORTS ("P1 P2")
# into /tmp/cap-NAME.pcap, until stop_capture.
capture() {
	_filter=$(echo "$2" | sed 's/ / or tcp port /g; s/^/tcp port /')
	# A 64 MiB buffer: the 1 MiB answers come faster than -U writes them.
	tcpdump -i eth0 -n -U -B 65536 -w /tmp/cap-$1.pcap "$_filter" 2> /tmp/tcpdump-$1.err &
	tdpid=$!
	check "[$1] tcpdump is capturing" wait_for 30 grep -q listening /tmp/tcpdump-$1.err
}

# stop_capture NAME: /tmp/segs-NAME, the capture's segments (dt-pcap).
stop_capture() {
	sleep 1
	tcpdump_stop $tdpid /tmp/tcpdump-$1.err
	check "[$1] the capture reads back" sh -c "$pcap /tmp/cap-$1.pcap > /tmp/segs-$1"
	cp /tmp/segs-$1 /tmp/tcpdump-$1.err "$DT_RESULTS/"
}

# client_begin PHASE NAME PORTS: dt-a waits for dt-b and dt-c, captures.
client_begin() {
	base=$((6600 + 20 * $1))
	check "[$2] dt-b is ready" $tcp request -w $(slow 600) dt-b $((base + 1)) go
	check "[$2] dt-c is ready" $tcp request -w $(slow 600) dt-c $((base + 1)) go
	capture "$2" "$3"
}

# client_end NAME: the flagged client is done: dt-a tells dt-b and dt-c,
# looks itself 2 s later (the unflagged load still running: its pids in
# $loops), waits for both, stops the load and the capture.
client_end() {
	$tcp serve -4 $((base + 2)) 2 > /dev/null 2>&1 &
	none_flagged_after "$1"
	check "[$1] dt-b and dt-c looked too" timeout $(slow 120) $tcp serve -4 $((base + 3)) 2
	kill $sampler
	# shellcheck disable=SC2086
	kill $loops
	check "[$1] only the flagged client was flagged here (pid $fpid)" pids_are /tmp/samples-$1 $fpid
	stop_capture "$1"
	cp /tmp/samples-$1 "$DT_RESULTS/"
}

# client PHASE NAME HOST PORTS FLAGGED_URLS LOOP_URLS: dt-a's side of one
# phase (PORTS: the servers' ports, "P1 P2"; the URL lists space
# separated).
client() {
	_name=$2 _host=$3 _ports=$4 _furls=$5 _lurls=$6
	client_begin "$1" "$_name" "$_ports"
	if [ -n "${ab:-}" ]; then
		load "$_name" "$_ports" "$_lurls"
	else
		# shellcheck disable=SC2086
		loops "$_name" $_lurls
		check "[$_name] the unflagged loops get answers" wait_for $(slow 120) grep -q '^ok$' /tmp/loops-$_name
	fi
	sample /tmp/samples-$_name
	_args=
	for u in $_furls; do
		_args="$_args -o /dev/null $u"
	done
	# $fargs: the flagged curl's own arguments instead, quoted for the
	# shell (curl's --next between parts, each with its -s and -w),
	# $fnum requests; $fcmd: another flagged client than curl (h2load).
	if [ -n "${fargs:-}" ]; then
		eval "set -- $fargs"
	else
		# shellcheck disable=SC2086
		set -- -s -w '%{local_port} %{size_download}\n' $_args
	fi
	# shellcheck disable=SC2016
	sh -c 'echo $$ > /tmp/fpid && echo $$ > '$sys'/add_pid && exec "$@"' flagged \
		${fcmd:-curl} "$@" > /tmp/flagged-$_name 2> /tmp/flagged-$_name.err
	fpid=$(cat /tmp/fpid)
	_nf=${fnum:-$(($(echo "$_furls" | wc -w) * $(echo "$_furls" | sed -n 's/.*\[1-\([0-9]*\)\].*/\1/p')))}
	if [ "${fcmd:-curl}" = h2load ]; then
		check "[$_name] the flagged h2load made its $_nf requests" \
			grep -q "^requests: $_nf total, $_nf started, $_nf done, $_nf succeeded" /tmp/flagged-$_name
	else
		check "[$_name] the flagged curl made its $_nf requests" \
			test "$(grep -c . /tmp/flagged-$_name)" = "$_nf"
	fi
	client_end "$_name"
	[ -n "${ab:-}" ] ||
	check "[$_name] the loops ran beside it ($(grep -c '^ok$' /tmp/loops-$_name) connections)" \
		test "$(grep -c '^ok$' /tmp/loops-$_name)" -ge 2
	cp /tmp/flagged-$_name "$DT_RESULTS/"
	if [ "${fcmd:-curl}" = h2load ]; then
		# its connections' ports: those of its marked requests (below)
		fports=
		fbytes=$(sed -n 's/^traffic:.* (\([0-9]*\)) data$/\1/p' /tmp/flagged-$_name)
	else
		fports=$(awk '{ print $1 }' /tmp/flagged-$_name | sort -u | tr '\n' ' ')
		fbytes=$(awk '{ n += $2 } END { print n + 0 }' /tmp/flagged-$_name)
	fi
	# A flagged curl's port is its connection from its first marked
	# request on: before that, the port may have been another
	# connection's (ab opens many and reuses ports), neither side's.
	set -- $(awk -v p=" $fports" -v sp=" $_ports " -v h="$(dt_addr $_host)" \
		-v c="$(dt_addr dt-a)" '
		$1 == c && index(sp, " " $4 " ") && $6 > 0 && $7 { on[$2] = 1 }
		$1 == h && index(sp, " " $2 " ") && $6 > 0 {
			if (on[$4]) { f++; fm += ($7 && $11); fb += $6 }
			else if (!index(p, " " $4 " ")) { b++; bm += $7 }
		}
		END { print f + 0, fm + 0, b + 0, bm + 0, fb + 0 }' /tmp/segs-$_name)
	check "[$_name] every answer to the flagged curl came back with both marks ($2 of $1 segments, $5 bytes; $fbytes of body)" \
		test "$1" -gt 0 -a "$1" = "$2" -a "$5" -gt "$fbytes"
	check "[$_name] no answer to the loops came back marked ($4 of $3 segments)" \
		test "$3" -gt 0 -a "$4" = 0
}

# grpc_client PHASE NAME PORT: dt-a's side of a gRPC phase: the flagged
# h2load's N unary calls on one connection to nginx's PORT (their
# message /f-NAME/1), beside the load ($grpc_rps calls a second on each
# of 32 connections, /b-NAME/1).
grpc_client() {
	fargs="-c 1 -m 1 -n $N $grpc_args -d /tmp/grpc-f-$2 http://dt-b:$3/dt.Fid/Call"
	client "$1" "$2" dt-b "$3" "" "http://dt-b:$3/dt.Fid/Call"
}

# redis_client PHASE: dt-a's side of the store's phase. redis-benchmark
# loops (-l) pipelining 16 commands per write on 2 connections; the
# flagged redis-cli makes N INCRs on one connection among them. Its
# connection is the one whose requests came out marked.
redis_client() {
	client_begin "$1" redis 6379
	# The benchmark: 32 connections (make check: 2, its time).
	"$redis/redis-benchmark" -h dt-b -p 6379 -P 16 -c $([ "$go" = 1 ] && echo 32 || echo 2) -l -t set,get -q \
		> /tmp/bench-redis 2>&1 &
	loops=$!
	check "[redis] the benchmark is connected" wait_for $(slow 120) sh -c \
		"[ \$(ss -Htn state established '( dport = :6379 )' | wc -l) -ge 2 ]"
	sample /tmp/samples-redis
	# shellcheck disable=SC2016
	sh -c 'echo $$ > /tmp/fpid && echo $$ > '$sys'/add_pid && exec "$@"' flagged \
		"$redis/redis-cli" -h dt-b -p 6379 -r $N -i 0.05 INCR f-redis \
		> /tmp/flagged-redis 2> /tmp/flagged-redis.err
	fpid=$(cat /tmp/fpid)
	check "[redis] the flagged redis-cli made its $N INCRs" \
		test "$(grep -c '^[0-9]' /tmp/flagged-redis)" = "$N"
	client_end redis
	set -- $(awk -v a="$(dt_addr dt-a)" -v b="$(dt_addr dt-b)" '
		$6 > 0 && $1 == a && $4 == 6379 { q[$2] += 1; qm[$2] += $7 }
		$6 > 0 && $1 == b && $2 == 6379 { r[$4] += 1; rm[$4] += ($7 && $11); rb[$4] += $7 }
		END {
			for (p in q) if (qm[p]) { fp = fp " " p; nf++ }
			for (p in r) if (index(fp " ", " " p " ")) { f += r[p]; fm += rm[p] }
				     else { o += r[p]; om += rb[p]; oq += q[p] - qm[p] }
			print nf + 0, f + 0, fm + 0, o + 0, om + 0, oq + 0
		}' /tmp/segs-redis)
	check "[redis] one connection carried marked requests ($1)" test "$1" = 1
	check "[redis] every reply to the flagged redis-cli came back with both marks ($3 of $2 segments)" \
		test "$2" -gt 0 -a "$2" = "$3"
	check "[redis] no reply to the pipelining benchmark came back marked ($5 of $4 segments, $6 unmarked requests)" \
		test "$4" -gt 0 -a "$5" = 0
}

# loop_session: dt-b records the store's phase with the gate in thread
# mode: redis's read, write and epoll_wait system calls, dtracer's
# events, the tid. redis's write calls are counted from /proc meanwhile.
loop_session() {
	check "lttng-sessiond starts, told to load dtracer's probes" \
		env LTTNG_EXTRA_KMOD_PROBES=dtracer lttng-sessiond -d
	check "gate thread" sh -c "echo thread > $sys/gate"
	check "[redis] a session of the system calls, gated" sh -c "
		lttng create loop --output=/tmp/loop > /dev/null &&
		lttng enable-event -k --syscall read,write,writev,epoll_wait > /dev/null &&
		lttng enable-event -k 'dtracer_*' > /dev/null &&
		lttng add-context -k -t tid > /dev/null &&
		lttng start loop > /dev/null"
	syscw=$(awk '$1 == "syscw:" { print $2 }' /proc/$rpid/io)
	# redis's descriptors that are sockets, sampled through the phase
	# (it also reads files: /proc, its own).
	sh -c 'while :; do
		ls -l /proc/$1/fd 2> /dev/null |
			awk "\$NF ~ /^socket:/ { print \$(NF - 2) }"
		sleep 0.5
	done' sockfds "$rpid" > /tmp/redis-sockfds &
	sockfds=$!
}

# loop_trace: the gate recorded redis only while it worked for the
# flagged client: each of its N replies' write calls returning (the
# write joins the request: its socket serves it), a few more (the call
# that takes it out of the request is recorded on its way in), not the
# thousands it made for the benchmark meanwhile.
loop_trace() {
	syscw=$(($(awk '$1 == "syscw:" { print $2 }' /proc/$rpid/io) - syscw))
	lttng stop loop > /dev/null
	lttng destroy loop > /dev/null
	check "[redis] the trace reads back" sh -c "babeltrace2 /tmp/loop > /tmp/loop.txt"
	_t="tid = $rpid }"
	_x=$(grep -E "syscall_exit_(write|writev):" /tmp/loop.txt | grep -cF "$_t")
	_e=$(grep -E "syscall_entry_(write|writev):" /tmp/loop.txt | grep -cF "$_t")
	_f=$(grep -E "dtracer_flag:" /tmp/loop.txt | grep -cF "$_t")
	# dtracer's own events pass the gate whoever runs (mark_recv is
	# softirq's, on any thread).
	_o=$(grep -v " dtracer_" /tmp/loop.txt | grep -cvF "$_t")
	gzip -c /tmp/loop.txt > "$DT_RESULTS/loop.txt.gz"
	check "[redis] gate thread: redis joined the request for each INCR ($_f flags)" \
		test "$_f" -ge $N
	check "[redis] gate thread: each reply's write recorded, nothing else ($_x write returns of $syscw writes)" \
		test "$_x" -ge $N -a "$_x" -le $((N + 5)) -a "$syscw" -gt $((10 * N))
	check "[redis] gate thread: few write entries ($_e: at most $((3 * N)))" \
		test "$_e" -le $((3 * N))
	check "[redis] gate thread: no other thread's system calls recorded ($_o events)" \
		test "$_o" = 0
	# Entries by connection (descriptors that were sockets): the flagged
	# one's, the most (its requests' reads, its replies' writes), and
	# nothing of the benchmark's (the read after a reply, on another
	# client's connection, was recorded before the gate knew the call's
	# descriptor: dtracer/scope.c).
	kill $sockfds
	sort -u /tmp/redis-sockfds > /tmp/redis-sockfds.u
	set -- $(grep -E "syscall_entry_(read|write|writev):" /tmp/loop.txt |
		grep -F "$_t" | sed -n 's/.*{ fd = \([0-9]*\),.*/\1/p' |
		grep -x -F -f /tmp/redis-sockfds.u | sort | uniq -c | sort -rn |
		awk '{ n++; if (n == 1) m = $1; else o += $1 } END { print n + 0, m + 0, o + 0 }')
	check "[redis] gate thread: read and write calls recorded on the flagged connection only ($2 on it, $3 on $(($1 > 0 ? $1 - 1 : 0)) others)" \
		test "$2" -gt 0 -a "$3" = 0
}

# pool_session: dt-c records dtracer's flags during the pool's phase.
pool_session() {
	check "lttng-sessiond starts, told to load dtracer's probes" \
		env LTTNG_EXTRA_KMOD_PROBES=dtracer lttng-sessiond -d
	check "[pool] a session of dtracer's flags" sh -c "
		lttng create pool --output=/tmp/pool > /dev/null &&
		lttng enable-event -k dtracer_flag > /dev/null &&
		lttng start pool > /dev/null"
}

# pool_trace: the workers' flags say how they were given the request
# (handoff, a guess) and by whom (parent: the pool's reader, or a worker
# that wakes a sibling while it serves a traced request), threads of
# the pool's own process.
pool_trace() {
	lttng stop pool > /dev/null
	lttng destroy pool > /dev/null
	check "[pool] the trace reads back" sh -c "babeltrace2 /tmp/pool > /tmp/pool.txt"
	cp /tmp/pool.txt "$DT_RESULTS/"
	ls /proc/$pool/task > /tmp/pool.tasks
	set -- $(awk -v r="$pool" '
		NR == FNR { task[$1] = 1; next }
		/"handoff"/ {
			match($0, /parent = [0-9]+/)
			p = substr($0, RSTART + 9, RLENGTH - 9)
			n++; byreader += p == r; mine += p in task
		}
		END { print n + 0, byreader + 0, mine + 0 }' /tmp/pool.tasks /tmp/pool.txt)
	check "[pool] the workers' flags say handoff ($1; the pool's reader handed $2; at least $((3 * N / 4)))" \
		test "$2" -ge $((3 * N / 4))
	check "[pool] every handoff's parent is a thread of the pool ($3 of $1)" test "$3" = "$1"
}

# store_truth: dt-c's capture of the mixed phase's PINGs to the store:
# one for every request logged before the capture's end (dt-a's loops
# run until dt-b has looked too: requests logged later may have asked
# the store after tcpdump stopped; /tmp/httpd-store.log is the log as
# it was then, a second before tcpdump was stopped); marked (both
# sides: requests, then responses) for the flagged requests traced at
# dt-c's pool, at most for every request traced there (its log: an
# unflagged one the hand-off's guess gave a traced context is logged
# traced; a worker still in the request it answered last, list_pid's
# "answered", is logged untraced: its PING is unmarked), none other.
store_truth() {
	_n=$(grep -c '^/[fb]-mixed/' /tmp/httpd-store.log)
	_t=$(awk '/^\/[fb]-mixed\// && $2 == "traced"' /tmp/httpd.log | wc -l)
	_tf=$(awk '/^\/f-mixed\// && $2 == "traced"' /tmp/httpd.log | wc -l)
	_b=$(awk '/^\/[fb]-mixed\// && $2 == "untraced"' /tmp/httpd.log | wc -l)
	set -- $(awk -v c="$(dt_addr dt-c)" -v b="$(dt_addr dt-b)" '
		$6 > 0 && $1 == c && $4 == 6379 { q++; qm += $7 && !$11 }
		$6 > 0 && $1 == b && $2 == 6379 { r++; rm += $7 && $11; rb += $7 }
		END { print q + 0, qm + 0, r + 0, rm + 0, rb + 0 }' /tmp/segs-store)
	check "[mixed] the pool asked the store for every request ($1 PINGs; $_n requests logged before the capture's end, $(($_t + $_b)) in all)" \
		test "$1" -ge "$_n" -a "$_n" -ge $((N + 10))
	check "[mixed] the PINGs of the requests traced at the pool were marked, no other ($2 marked, $_tf flagged and $_t in all traced)" \
		test "$2" -ge "$_tf" -a "$2" -le "$_t" -a "$_tf" -gt 0
	check "[mixed] the store's answers to them carried both marks, no other ($4 with both, $5 marked, of $3)" \
		test "$4" = "$2" -a "$5" = "$2"
}

# server PHASE NAME PIDS...: dt-b's or dt-c's side of one phase.
server() {
	base=$((6600 + 20 * $1))
	_name=$2
	shift 2
	sample /tmp/samples-$_name
	check "[$_name] dt-a started" timeout $(slow 600) $tcp serve -4 $((base + 1)) 1
	check "[$_name] dt-a's flagged client is done" \
		$tcp request -w $(slow 1200) dt-a $((base + 2)) go
	none_flagged_after "$_name"
	kill $sampler
	cp /tmp/samples-$_name "$DT_RESULTS/"
	check "[$_name] only the server's threads were flagged here" pids_are /tmp/samples-$_name "$@"
	check "[$_name] told dt-a" $tcp request -w 120 dt-a $((base + 3)) done
}

# tally NAME LOG: "FLAGGED TRACED BACKGROUND TRACED", the phase's
# requests in LOG (/f-NAME/..., /b-NAME/...) and how many were traced.
tally() {
	awk -v n="$1" '
		index($1, "/f-" n "/") == 1 { f++; ft += $2 == "traced" }
		index($1, "/b-" n "/") == 1 { b++; bt += $2 == "traced" }
		END { print f + 0, ft + 0, b + 0, bt + 0 }' "$2"
}

# truth NAME COUNT [LOG WHERE]: dt-httpd's log of the phase (or LOG, a
# server's of the same form, at WHERE): every flagged request (COUNT of
# them) traced, no unflagged one.
truth() {
	set -- $(tally "$1" "${3:-/tmp/httpd.log}") \
		"$1" "$2" "${4:-the backend}"
	check "[$5] every flagged request was traced at $7 ($2 of $1)" \
		test "$1" = "$6" -a "$2" = "$6"
	check "[$5] no unflagged request was traced at $7 ($4 of $3)" \
		test "$3" -gt 0 -a "$4" = 0
}

# target NAME COUNT [LOG WHERE]: as truth, to the fidelity issue's
# target for the runtimes (Go): at least 99% of the COUNT flagged
# requests traced (of 20: all), at most 1% of the others; exact in most
# runs (docs/benchmarks.md counts the others).
target() {
	set -- $(tally "$1" "${3:-/tmp/httpd.log}") \
		"$1" "$2" "${4:-the backend}"
	check "[$5] at least 99% of the flagged requests were traced at $7 ($2 of $1)" \
		test "$1" = "$6" -a $((100 * $2)) -ge $((99 * $1))
	check "[$5] at most 1% of the unflagged requests were traced at $7 ($4 of $3)" \
		test "$3" -gt 0 -a $((100 * $4)) -le "$3"
}

# guess NAME COUNT MIN MAX [LOG WHERE]: as truth, for a hop followed by
# a guess (a pool's worker by its wake-up: a worker that takes the next
# job from the queue without sleeping was handed nothing; one woken by
# the reader's mutex while the reader works for a traced request was
# handed it): at least MIN per cent of the flagged requests traced at
# WHERE (default: the worker, dt-httpd's log), at most MAX per cent of
# the others. The figures go to the log (docs/benchmarks.md).
guess() {
	set -- $(tally "$1" "${5:-/tmp/httpd.log}") \
		"$1" "$2" "$3" "$4" "${6:-the worker}"
	check "[$5] all flagged requests served ($1 of $6)" test "$1" = "$6"
	check "[$5] guessed: $2 of $1 flagged requests traced at $9 (at least $7%)" \
		test $((100 * $2)) -ge $(($7 * $1))
	check "[$5] guessed: $4 of $3 unflagged requests traced at $9 (at most $8%)" \
		test "$3" -gt 0 -a $((100 * $4)) -le $(($8 * $3))
}

# followed NAME COUNT MIN LOG WHERE: as guess, for a hop whose unflagged
# requests traced follow those traced on another host (bounded by
# t-fidelity.sh, with both logs): at least MIN per cent of the flagged
# requests traced at WHERE, the others' figure in the log.
followed() {
	set -- $(tally "$1" "$4") "$1" "$2" "$3" "$5"
	check "[$5] all flagged requests served ($1 of $6)" test "$1" = "$6"
	check "[$5] guessed: $2 of $1 flagged requests traced at $8 (at least $7%)" \
		test $((100 * $2)) -ge $(($7 * $1))
	diag "[$5] $4 of $3 unflagged requests traced at $8"
}

# measured NAME COUNT [LOG WHERE]: as truth, no target: the phase's
# figures (all COUNT flagged requests served; how many traced, of the
# flagged and of the others) for docs/benchmarks.md.
measured() {
	set -- $(tally "$1" "${3:-/tmp/httpd.log}") \
		"$1" "$2" "${4:-the backend}"
	check "[$5] all flagged requests served at $7 ($1 of $6)" test "$1" = "$6"
	diag "[$5] measured at $7: $2 of $1 flagged requests traced, $4 of $3 others"
}

# uring PHASE NAME PORT [-q|-a]: dt-b's io_uring tier (dt-uring, 8 upstream
# connections to dt-c's dt-httpd) for one phase.
uring() {
	check "dt-uring was built (configure found liburing-dev)" \
		test -x "$DT_BUILDDIR/tests/tools/dt-uring"
	$DT_BUILDDIR/tests/tools/dt-uring $4 $3 dt-c:8000 8 /tmp/$2.log \
		2> /tmp/$2.err &
	_upid=$!
	check "dt-uring $4 listens on $3" wait_for 60 sh -c "ss -Hltn | grep -q ':$3 '"
	_p0=$(stat_of propagations)
	server "$1" "$2" $pids $rpid $_upid
	measured "$2" $N /tmp/$2.log "the io_uring tier"
	diag "[$2] contexts started on dt-b: $(($(stat_of propagations) - _p0)) for $N flagged requests"
	cp /tmp/$2.log /tmp/$2.err "$DT_RESULTS/"
	kill $_upid
}

# wsgi_start: gunicorn (Debian's, unpacked in the build tree), 2 sync
# workers running tests/tools/dt-wsgi.py, on /tmp/wsgi.sock and on
# 127.0.0.1:8097, asking dt-c's dt-httpd; its log /tmp/wsgi.log. Sets
# wpid (the arbiter) and wpids (it and its workers).
wsgi_start() {
	mkdir -p /tmp/wsgi
	cp "$DT_SRCDIR/tests/tools/dt-wsgi.py" /tmp/wsgi/dt_wsgi.py
	DT_WSGI_BACKEND=dt-c:8000 DT_WSGI_LOG=/tmp/wsgi.log \
		"$DT_BUILDDIR/tests/vm/build/gunicorn/bin/gunicorn" \
		--chdir /tmp/wsgi -w 2 -b unix:/tmp/wsgi.sock \
		-b 127.0.0.1:8097 dt_wsgi:app > /tmp/wsgi.err 2>&1 &
	wpid=$!
	check "gunicorn (Debian's, unpacked), 2 sync workers, listens on /tmp/wsgi.sock and 8097" \
		wait_for 120 sh -c "ss -Hlx | grep -q /tmp/wsgi.sock &&
			ss -Hltn | grep -q ':8097 ' && [ \$(pgrep -P $wpid | wc -l) = 2 ]"
	# nginx's workers run as nobody.
	chmod 666 /tmp/wsgi.sock
	wpids="$wpid $(pgrep -P $wpid | tr '\n' ' ')"
}

# nghttpx_start: nghttpx (Debian's, unpacked in the build tree), one
# worker, HTTP/2 in clear on 8100 (prior knowledge): /dt.Fid/ (gRPC)
# to Go's gRPC server on 127.0.0.1:8098 over HTTP/2 (every call on one
# connection), the rest to dt-c's dt-httpd over HTTP/1.1 (kept alive).
# Its log /tmp/nghttpx.log. Sets xpids (its master and its worker).
nghttpx_start() {
	"$DT_BUILDDIR/tests/vm/build/nghttpx/bin/nghttpx" --conf=/dev/null \
		-n 1 -f '*,8100;no-tls' -b 'dt-c,8000;/' \
		-b '127.0.0.1,8098;/dt.Fid/;proto=h2' \
		--accesslog-file=/tmp/nghttpx.log \
		--errorlog-file=/tmp/nghttpx.err > /tmp/nghttpx.out 2>&1 &
	_xpid=$!
	check "nghttpx (Debian's, unpacked), one worker, listens on 8100" \
		wait_for 120 sh -c "ss -Hltn | grep -q ':8100 ' &&
			[ \$(pgrep -P $_xpid | wc -l) = 1 ]"
	xpids="$_xpid $(pgrep -P $_xpid | tr '\n' ' ')"
}

# behind PHASE NAME LOG WHO PIDS...: dt-b's side of a server behind
# nginx (WHO, its log LOG, its processes PIDS): over a UNIX socket in
# phase PHASE (NAME; exact: the context crosses the socket, unix.c, and
# the requests read there count as hops), then over TCP on loopback in
# phase PHASE + 1 (NAMEtcp; trusted by default: nginx's calls go by
# deferred.c's order, a guess, so the issue's target).
behind() {
	_bp=$1 _bn=$2 _bl=$3 _bw=$4
	shift 4
	if phase "$_bp"; then
		_bm=$(stat_of unix_hops)
		server "$_bp" "$_bn" $pids $rpid "$@"
		truth "$_bn" $N "$_bl" "$_bw behind nginx's UNIX socket"
		check "[$_bn] the requests read over the UNIX socket counted (unix_hops grew by $(($(stat_of unix_hops) - _bm)), at least $N)" \
			test $(($(stat_of unix_hops) - _bm)) -ge $N
	fi
	if phase $((_bp + 1)); then
		server $((_bp + 1)) "${_bn}tcp" $pids $rpid "$@"
		target "${_bn}tcp" $N "$_bl" "$_bw behind nginx over TCP"
	fi
}

# fpm_start: php-fpm (Debian's, unpacked in the build tree, no php.ini),
# two pools of 2 workers running tests/tools/dt-fpm.php, on
# /tmp/php.sock and on 127.0.0.1:9001, asking dt-c's dt-httpd; its log
# /tmp/fpm.log. Sets fpid (the master) and fpids (it and its workers).
fpm_start() {
	mkdir -p /tmp/php
	cp "$DT_SRCDIR/tests/tools/dt-fpm.php" /tmp/php/
	cat > /tmp/php/fpm.conf <<-EOF
	[global]
	pid = /tmp/php/fpm.pid
	error_log = /tmp/php/error.log
	daemonize = no
	[unix]
	listen = /tmp/php.sock
	listen.mode = 0666
	pm = static
	pm.max_children = 2
	clear_env = no
	[tcp]
	listen = 127.0.0.1:9001
	pm = static
	pm.max_children = 2
	clear_env = no
	EOF
	DT_FPM_BACKEND=dt-c:8000 DT_FPM_LOG=/tmp/fpm.log \
		"$DT_BUILDDIR/tests/vm/build/php/bin/php-fpm" -R -F \
		-y /tmp/php/fpm.conf > /tmp/php/out.log 2>&1 &
	fpid=$!
	check "php-fpm (Debian's, unpacked), 2 pools of 2 workers, listens on /tmp/php.sock and 9001" \
		wait_for 120 sh -c "ss -Hlx | grep -q /tmp/php.sock &&
			ss -Hltn | grep -q ':9001 ' && [ \$(pgrep -P $fpid | wc -l) = 4 ]"
	fpids="$fpid $(pgrep -P $fpid | tr '\n' ' ')"
}

# DT_FIDELITY_BENCH=1 (bench/fidelity.sh): the asyncio and Java phases
# too.
go=${DT_FIDELITY_BENCH:-0}

# phase N: whether this run has phase N: all of them, or those that
# DT_FIDELITY_PHASES lists ("7 8": bench/fidelity.sh's, to measure some
# scenarios only; every host gets the same list).
phase() {
	case " ${DT_FIDELITY_PHASES:-$1} " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}
check "modprobe dtracer" modprobe dtracer
check "probe armed" sh -c "echo 1 > $sys/probe"
case $DT_HOST in
dt-a)
	for l in 1 2 3; do
		ka="$ka http://dt-b:8080/b-ka/$l/[1-5]"
		plain="$plain http://dt-b:8081/b-plain/$l/[1-5]"
	done
	# The benchmark: the nginx, pool and mixed phases under ab -k -c 32
	# as well (make check keeps the curl loops there: its time), the
	# 1 MiB phase with its loops (its point is the answers' size).
	if [ "$go" = 1 ]; then
		ab=1 ka=http://dt-b:8080/b-ka/1 plain=http://dt-b:8081/b-plain/1
	fi
	phase 1 && client 1 ka dt-b 8080 "http://dt-b:8080/f-ka/[1-$N]" "$ka"
	phase 2 && client 2 plain dt-b 8081 "http://dt-b:8081/f-plain/[1-$N]" "$plain"
	ab=
	phase 3 && client 3 big dt-c "8001 8002" \
		"http://dt-c:8001/f-big/[1-3] http://dt-c:8002/f-file/[1-3]" \
		"http://dt-c:8001/b-big/1/[1-2] http://dt-c:8002/b-file/1/[1-2]"
	phase 4 && redis_client 4
	pool= mixed=
	for l in 1 2 3; do
		pool="$pool http://dt-c:8003/b-pool/$l/[1-5]"
		mixed="$mixed http://dt-b:8082/b-mixed/$l/[1-5]"
	done
	if [ "$go" = 1 ]; then
		ab=1 pool=http://dt-c:8003/b-pool/1 mixed=http://dt-b:8082/b-mixed/1
	fi
	phase 5 && client 5 pool dt-c 8003 "http://dt-c:8003/f-pool/[1-$N]" "$pool"
	phase 6 && client 6 mixed dt-b 8082 "http://dt-b:8082/f-mixed/[1-$N]" "$mixed"
	ab=1
	phase 7 && client 7 loop dt-b 8090 "http://dt-b:8090/f-loop/[1-$N]" \
		http://dt-b:8090/b-loop/1
	phase 8 && client 8 go dt-b 8091 "http://dt-b:8091/f-go/[1-$N]" \
		http://dt-b:8091/b-go/1
	# Before the UNIX socket's phase: nginx's calls over it are no
	# forwards in deferred.c's count (docs/limitations.md).
	# Interim answers: 10 GETs over TLS, each on a connection of its
	# own (a handshake each: 5 in TLS 1.2, 5 in TLS 1.3 with its
	# tickets), then 10 POSTs with "Expect: 100-continue" in clear, one
	# connection; ab over TLS.
	q=$((N / 4)) half=$((N / 2))
	head -c 1000 /dev/zero | tr '\0' x > /tmp/tls-body
	w="-s -w '%{local_port} %{size_download}\\n' -o /dev/null -k --http1.1"
	fargs="$w --tls-max 1.2 -H 'Connection: close' 'https://dt-b:8443/f-tls/[1-$q]'"
	fargs="$fargs --next $w --tlsv1.3 -H 'Connection: close' 'https://dt-b:8443/f-tls/[$((q + 1))-$half]'"
	fargs="$fargs --next $w -H 'Expect: 100-continue'"
	fargs="$fargs --data-binary @/tmp/tls-body 'http://dt-b:8080/f-tls/[$((half + 1))-$N]'"
	fnum=$N
	phase 12 && client 12 tls dt-b "8443 8080" "" https://dt-b:8443/b-tls/1
	# HTTP/2 in clear (prior knowledge): a flagged client's requests on
	# one connection, one stream after another (h2load -m 1: curl 7.88
	# fails every request after the first on a connection it reuses with
	# --http2-prior-knowledge, "Error in the HTTP2 framing layer"),
	# beside h2load's 32 connections of 16 streams each.
	fcmd=h2load fargs="-c 1 -m 1 -n $N http://dt-b:8084/f-h2/1" fnum=$N lg=h2
	phase 13 && client 13 h2 dt-b 8084 "" http://dt-b:8084/b-h2/1
	# The same through nghttpx (one worker) to dt-c's dt-httpd over
	# HTTP/1.1.
	fargs="-c 1 -m 1 -n $N http://dt-b:8100/f-h2x/1"
	phase 25 && client 25 h2x dt-b 8100 "" http://dt-b:8100/b-h2x/1
	fcmd= fargs= fnum= lg=
	phase 11 && client 11 unix dt-b 8083 "http://dt-b:8083/f-unix/[1-$N]" \
		http://dt-b:8083/b-unix/1
	# gunicorn (2 sync workers) behind nginx, over a UNIX socket, then
	# over TCP (loopback): each request asks dt-c's backend.
	phase 17 && client 17 wsgi dt-b 8085 "http://dt-b:8085/f-wsgi/[1-$N]" \
		http://dt-b:8085/b-wsgi/1
	phase 18 && client 18 wsgitcp dt-b 8086 "http://dt-b:8086/f-wsgitcp/[1-$N]" \
		http://dt-b:8086/b-wsgitcp/1
	# php-fpm (2 workers a pool) behind nginx's FastCGI, over a UNIX
	# socket, then over TCP (loopback): each request asks the backend.
	phase 19 && client 19 fpm dt-b 8087 "http://dt-b:8087/f-fpm/[1-$N]" \
		http://dt-b:8087/b-fpm/1
	phase 20 && client 20 fpmtcp dt-b 8088 "http://dt-b:8088/f-fpmtcp/[1-$N]" \
		http://dt-b:8088/b-fpmtcp/1
	# gRPC (unary calls, HTTP/2 on both sides) through nginx's
	# grpc_pass to a server over TCP (8099), then over a UNIX socket
	# (8089): Go's (dt-grpcgo), then Python's (dt-grpc.py).
	# The flagged h2load's N calls one after
	# another on one connection, beside h2load's 32 connections of up
	# to 16 calls at once, paced (--rps per connection: unpaced, each
	# flagged call waited behind 512). A call's message is the path the
	# server asks the backend for.
	grpc_args="-H content-type:application/grpc -H te:trailers"
	for n in grpcgo grpcgotcp grpcx grpc grpctcp; do
		for p in f b; do
			grpc_message "/$p-$n/1" /tmp/grpc-$p-$n
		done
	done
	# 0.25 a connection, 8 calls a second: at 0.5, beside the other
	# lane, Go's server fell behind the load in two fresh clones' runs
	# (the TCP phase's 20 flagged calls took 224 and 427 s instead of
	# about 15, and its order went wrong: 10 and 6 of 20).
	fcmd=h2load fnum=$N lg=grpc grpc_rps=0.25
	# Over TCP first: nginx's calls over the UNIX socket are not counted
	# in deferred.c's order, and the requests read for them would be
	# taken for the next calls over TCP until the order's check puts it
	# right (docs/limitations.md).
	phase 24 && grpc_client 24 grpcgotcp 8099
	phase 23 && grpc_client 23 grpcgo 8089
	# The same calls through nghttpx, which multiplexes them all on
	# one HTTP/2 connection to Go's server (8098).
	phase 26 && grpc_client 26 grpcx 8100
	grpc_rps=0.25
	phase 21 && grpc_client 21 grpc 8089
	phase 22 && grpc_client 22 grpctcp 8099
	fcmd= fargs= fnum= lg=
	# io_uring (dt-uring): every socket operation submitted on one
	# ring by one thread, plain, then with a kernel thread polling the
	# submissions (SQPOLL), then each done by io-wq's workers
	# (IOSQE_ASYNC).
	[ "$go" = 1 ] && phase 14 && client 14 uring dt-b 8094 "http://dt-b:8094/f-uring/[1-$N]" \
		http://dt-b:8094/b-uring/1
	[ "$go" = 1 ] && phase 15 && client 15 sqpoll dt-b 8095 "http://dt-b:8095/f-sqpoll/[1-$N]" \
		http://dt-b:8095/b-sqpoll/1
	[ "$go" = 1 ] && phase 16 && client 16 iowq dt-b 8096 "http://dt-b:8096/f-iowq/[1-$N]" \
		http://dt-b:8096/b-iowq/1
	[ "$go" = 1 ] && phase 9 && client 9 aio dt-b 8092 "http://dt-b:8092/f-aio/[1-$N]" \
		http://dt-b:8092/b-aio/1
	[ "$go" = 1 ] && phase 10 && client 10 java dt-b 8093 "http://dt-b:8093/f-java/[1-$N]" \
		http://dt-b:8093/b-java/1
	ab=
	;;
dt-b)
	nginx_conf
	check "nginx (Debian's, unpacked), one worker, starts" \
		"$nginx" -p /tmp/nginx/ -c nginx.conf -e /tmp/nginx/error.log
	check "nginx listens on 8080, 8081 and 8082" wait_for 60 sh -c \
		"ss -Hltn | grep -q ':8080 ' && ss -Hltn | grep -q ':8081 ' && ss -Hltn | grep -q ':8082 '"
	pids=$(pgrep -x nginx | tr '\n' ' ')
	"$redis/redis-server" --port 6379 --save '' --appendonly no \
		--protected-mode no > /tmp/redis.log 2>&1 &
	check "redis-server (Debian's, unpacked) listens on 6379" wait_for 60 sh -c \
		"ss -Hltn | grep -q ':6379 '"
	rpid=$(pgrep -x redis-server)
	phase 1 && server 1 ka $pids
	phase 2 && server 2 plain $pids
	phase 3 && server 3 big $pids
	if phase 4; then
		loop_session
		server 4 redis $pids $rpid
		loop_trace
	fi
	phase 5 && server 5 pool $pids $rpid
	phase 6 && server 6 mixed $pids $rpid
	if phase 7; then
		node "$DT_SRCDIR/tests/tools/dt-evloop.js" 8090 dt-c:8000 /tmp/evloop.log \
			2> /tmp/evloop.err &
		npid=$!
		check "dt-evloop.js (Node.js) listens on 8090" wait_for 60 sh -c "ss -Hltn | grep -q ':8090 '"
		server 7 loop $pids $rpid $npid
		truth loop $N /tmp/evloop.log "the event loop"
		cp /tmp/evloop.log /tmp/evloop.err "$DT_RESULTS/"
		kill $npid
	fi
	if phase 8; then
		# From the guest's tmpfs: uprobes read a file's pages through
		# its file system, which the shared 9p root does not offer (EIO).
		gomid=/tmp/dt-gomid
		cp "$DT_BUILDDIR/tests/vm/build/dt-gomid" $gomid
		check "dtracer go: dt-gomid's goroutines followed" \
			"$DT_BUILDDIR/collector/dtracer" go "$gomid"
		check "... listed in $sys/go, armed" grep -q "^$gomid .* armed$" $sys/go
		GOMAXPROCS=4 "$gomid" 8091 dt-c:8000 \
			/tmp/gomid.log 2> /tmp/gomid.err &
		gpid=$!
		check "dt-gomid (Go, GOMAXPROCS 4) listens on 8091" wait_for 60 sh -c "ss -Hltn | grep -q ':8091 '"
		server 8 go $pids $rpid $gpid
		# Goroutines followed (dtracer/goroutines.c): the issue's
		# target (exact in most runs).
		target go $N /tmp/gomid.log "the Go middle tier"
		cp /tmp/gomid.log /tmp/gomid.err "$DT_RESULTS/"
		kill $gpid
		check "dtracer go --remove: no longer followed" sh -c \
			"'$DT_BUILDDIR/collector/dtracer' go --remove '$gomid' && ! grep -q . $sys/go"
	fi
	if phase 12; then
		# One request, one context, through its interim answers
		# (dtracer/interim.c): nginx starts one per flagged request.
		set -- $(stat_of propagations) $(stat_of interim_answers) \
			$(stat_of tls_tickets_guessed)
		server 12 tls $pids $rpid
		p=$(($(stat_of propagations) - $1))
		i=$(($(stat_of interim_answers) - $2))
		t=$(($(stat_of tls_tickets_guessed) - $3))
		check "[tls] one context per flagged request through the TLS handshakes and 100 Continues ($p contexts for $N requests)" \
			test "$p" = "$N"
		check "[tls] the interim answers seen: $i (handshakes, of which $t TLS 1.3 tickets guessed, at least $((N / 4)); 100 Continues), at least $((N + N / 2))" \
			test "$i" -ge $((N + N / 2)) -a "$t" -ge $((N / 4))
		cp /tmp/nginx/error.log "$DT_RESULTS/"
	fi
	if phase 13; then
		# HTTP/2: nginx's connection frames (SETTINGS, WINDOW_UPDATE,
		# their ACKs) answer no stream (dtracer/interim.c): one
		# context per flagged request.
		set -- $(stat_of propagations) $(stat_of interim_answers) \
			$(stat_of h2_streams) $(stat_of h2_lost)
		server 13 h2 $pids $rpid
		p=$(($(stat_of propagations) - $1))
		i=$(($(stat_of interim_answers) - $2))
		s=$(($(stat_of h2_streams) - $3))
		diag "[h2] HTTP/2 connections lost in this phase: $(($(stat_of h2_lost) - $4))"
		check "[h2] one context per flagged request over HTTP/2 ($p contexts for $N requests)" \
			test "$p" = "$N"
		check "[h2] nginx's connection frames to the flagged curl seen as interim answers ($i, at least 1)" \
			test "$i" -ge 1
		# h2.c reads the frame headers from the receive queue at
		# the read's tracepoint: nothing hooked on tcp_recvmsg.
		check "[h2] streams counted ($s, more than $N) with no kprobe on tcp_recvmsg" \
			sh -c "! grep -q ' tcp_recvmsg+' /sys/kernel/debug/kprobes/list &&
				[ $s -gt $N ]"
		cp /tmp/nginx/error.log "$DT_RESULTS/"
	fi
	if phase 25 || phase 26; then
		nghttpx_start
	fi
	if phase 25; then
		# HTTP/2 through nghttpx (an event loop, as nginx: its calls
		# to dt-c over HTTP/1.1 go by deferred.c's order, a guess).
		server 25 h2x $pids $rpid $xpids
		cp /tmp/nghttpx.log /tmp/nghttpx.err "$DT_RESULTS/"
	fi
	if phase 11; then
		# nginx -> a UNIX socket (keep-alive, 8 connections) ->
		# dt-httpd on this host: the context crosses the socket
		# (dtracer/unix.c), no mark on any wire. dt-httpd also writes
		# each request's path on a UNIX connection it accepted (-n),
		# which a thread of its own reads: bytes written on a serving
		# end are no request, that reader joins nothing.
		$httpd -n /tmp/notify.sock /tmp/unixd.sock /tmp/unixd.log \
			2> /tmp/unixd.err &
		upid=$!
		check "dt-httpd listens on the UNIX socket /tmp/unixd.sock" wait_for 60 sh -c \
			"ss -Hlx | grep -q /tmp/unixd.sock"
		# nginx's workers run as nobody.
		chmod 666 /tmp/unixd.sock
		mark=$(stat_of unix_hops)
		server 11 unix $pids $rpid $upid
		truth unix $N /tmp/unixd.log "the server behind nginx's UNIX socket"
		check "[unix] the requests read over the UNIX socket counted (unix_hops grew by $(($(stat_of unix_hops) - mark)), at least $N)" \
			test $(($(stat_of unix_hops) - mark)) -ge $N
		_nf=$(grep -c '^/f-unix/' /tmp/notify.sock.log)
		_nt=$(grep -c ' traced ' /tmp/notify.sock.log)
		check "[unix] dt-httpd's notes of the flagged requests, written on a UNIX connection it accepted, were read ($_nf of $N) and took their reader into no request ($_nt of $(wc -l < /tmp/notify.sock.log) notes)" \
			test "$_nf" = $N -a "$_nt" = 0
		cp /tmp/unixd.log /tmp/unixd.err /tmp/notify.sock.log \
			/tmp/nginx/error.log "$DT_RESULTS/"
		kill $upid
	fi
	# nginx -> gunicorn, then php-fpm (FastCGI records): over a UNIX
	# socket, then over TCP.
	if phase 17 || phase 18; then
		wsgi_start
		behind 17 wsgi /tmp/wsgi.log "the WSGI worker" $wpids
		cp /tmp/wsgi.log /tmp/wsgi.err "$DT_RESULTS/"
		kill $wpid
	fi
	if phase 19 || phase 20; then
		fpm_start
		behind 19 fpm /tmp/fpm.log "the PHP worker" $fpids
		cp /tmp/fpm.log /tmp/php/error.log "$DT_RESULTS/"
		kill $fpid
	fi
	# nginx -> gRPC (HTTP/2 on both sides: nginx's grpc_pass, one
	# call at a time on each upstream connection) -> Go's gRPC server
	# (a goroutine reading each connection, a new one running each
	# call: followed by `dtracer go`), then Python's (gRPC's C core
	# reading every connection in one poller thread, handing each call
	# to a pool of 4 threads: not followed, measured).
	if phase 23 || phase 24 || phase 26; then
		# From the guest's tmpfs (uprobes; as dt-gomid).
		grpcgo=/tmp/dt-grpcgo
		cp "$DT_BUILDDIR/tests/vm/build/dt-grpcgo" $grpcgo
		check "dtracer go: dt-grpcgo's goroutines followed" \
			"$DT_BUILDDIR/collector/dtracer" go "$grpcgo"
		GOMAXPROCS=4 $grpcgo /tmp/grpc.sock 8098 dt-c:8000 \
			/tmp/grpcgo.log 2> /tmp/grpcgo.err &
		cpid=$!
		check "dt-grpcgo (Debian's grpc-go, GOMAXPROCS 4) listens on /tmp/grpc.sock and 8098" \
			wait_for 60 sh -c "ss -Hlx | grep -q /tmp/grpc.sock &&
				ss -Hltn | grep -q ':8098 '"
		# Each call's goroutine is born in its reader's context
		# (goroutines.c); nginx's upstream writes are in its loop's
		# context (over a UNIX socket: its last read's, a guess) or
		# by deferred.c's order (over TCP, a guess): checked to a
		# floor and a ceiling, the figures in docs/benchmarks.md.
		# The ceiling is 3%: 0 of 64 to 223 unflagged calls here
		# and in the benchmark, but 3 of 128 (2.3%) in a CI run on
		# a host that ran the test twice as slowly (nginx's loop
		# then writes more calls between its reads).
		if phase 24; then
			server 24 grpcgotcp $pids $rpid $cpid
			guess grpcgotcp $N 75 3 /tmp/grpcgo.log \
				"Go's gRPC server behind nginx over TCP"
		fi
		if phase 23; then
			_bm=$(stat_of unix_hops)
			server 23 grpcgo $pids $rpid $cpid
			guess grpcgo $N 75 3 /tmp/grpcgo.log \
				"Go's gRPC server behind nginx's UNIX socket"
			_bt=$(awk '/^\/f-grpcgo\// && $2 == "traced"' /tmp/grpcgo.log | wc -l)
			check "[grpcgo] a context came over the UNIX socket for each call traced ($_bt; unix_hops grew by $(($(stat_of unix_hops) - _bm)))" \
				test $(($(stat_of unix_hops) - _bm)) -ge "$_bt" -a "$_bt" -gt 0
		fi
		if phase 26; then
			# nghttpx multiplexes the calls of every client on one
			# HTTP/2 connection to the server.
			_hc=$(stat_of h2_calls) _hg=$(stat_of h2_streams_guessed)
			_ho=$(stat_of h2_other_answers)
			server 26 grpcx $pids $rpid $xpids $cpid
			# Other calls' answers, written while a traced call
			# was served on the connection (h2.c, egress.c).
			diag "[grpcx] answers of other streams, not the traced call's: $(($(stat_of h2_other_answers) - _ho))"
			read -r _f _ft _u _ut <<-EOF
			$(tally grpcx /tmp/grpcgo.log)
			EOF
			_hg=$(($(stat_of h2_streams_guessed) - _hg))
			check "[grpcx] all flagged requests served ($_f of $N)" \
				test "$_f" = "$N"
			check "[grpcx] guessed: $_ft of $_f flagged requests traced at Go's gRPC server behind nghttpx (at least 85%)" \
				test $((100 * _ft)) -ge $((85 * _f))
			# The calls nghttpx writes with the traced one, in
			# one marked write, start their goroutines in its
			# context at the server (a read's streams are not
			# told apart: each is counted, h2_streams_guessed);
			# h2load's 32 connections ask at the same instants,
			# so those calls come by the dozen when the flagged
			# one is among them (9 of 64 in a CI run). Beside
			# them, a floor of 2%.
			check "[grpcx] guessed: $_ut of $_u unflagged requests traced at Go's gRPC server behind nghttpx, $_hg read with a traced one (at most those and 2%)" \
				test "$_u" -gt 0 -a $((100 * _ut)) -le $((2 * _u + 100 * _hg))
			# Its writes' streams counted (h2.c): a call each.
			check "[grpcx] nghttpx's calls counted in its writes upstream (h2_calls grew by $(($(stat_of h2_calls) - _hc)), at least $N)" \
				test $(($(stat_of h2_calls) - _hc)) -ge $N
			cp /tmp/nghttpx.log /tmp/nghttpx.err "$DT_RESULTS/"
		fi
		cp /tmp/grpcgo.log /tmp/grpcgo.err "$DT_RESULTS/"
		kill $cpid
		check "dtracer go --remove: dt-grpcgo no longer followed" sh -c \
			"'$DT_BUILDDIR/collector/dtracer' go --remove '$grpcgo' && ! grep -q . $sys/go"
	fi
	if phase 21 || phase 22; then
		# The Go server's socket file stays after it.
		rm -f /tmp/grpc.sock
		# CPython's queues followed (pyqueue.c).
		pyqueue_follow
		_qh=$(stat_of queue_handoffs)
		"$DT_BUILDDIR/tests/vm/build/grpc/bin/python3-grpc" \
			"$DT_SRCDIR/tests/tools/dt-grpc.py" /tmp/grpc.sock 8098 \
			dt-c:8000 /tmp/grpc.log 4 > /tmp/grpc.err 2>&1 &
		cpid=$!
		check "dt-grpc.py (Debian's python3-grpcio, unpacked) listens on /tmp/grpc.sock and 8098" \
			wait_for 120 sh -c "ss -Hlx | grep -q /tmp/grpc.sock &&
				ss -Hltn | grep -q ':8098 '"
		# gRPC's C core reads every call in its poller thread, which
		# submits it to the pool (concurrent.futures: a
		# SimpleQueue), and a worker takes it and answers it: the
		# worker takes the call's request with the job (pyqueue.c),
		# so every flagged call is traced from its first. What the
		# poller serves when it submits stays a guess (the call it
		# last read): checked to a floor, the figures in
		# docs/benchmarks.md.
		if phase 21; then
			server 21 grpc $pids $rpid $cpid
			guess grpc $N 85 10 /tmp/grpc.log \
				"Python's gRPC server behind nginx's UNIX socket"
		fi
		if phase 22; then
			server 22 grpctcp $pids $rpid $cpid
			guess grpctcp $N 85 10 /tmp/grpc.log \
				"Python's gRPC server behind nginx over TCP"
		fi
		check "[grpc] jobs handed through CPython's queue (queue_handoffs grew by $(($(stat_of queue_handoffs) - _qh)), at least $N)" \
			test $(($(stat_of queue_handoffs) - _qh)) -ge $N
		cp /tmp/grpc.log /tmp/grpc.err "$DT_RESULTS/"
		kill $cpid
		check "dtracer python --remove: the module no longer followed" sh -c \
			"'$DT_BUILDDIR/collector/dtracer' python --remove '$pyq' && ! grep -q . $sys/python"
		wait $cpid 2> /dev/null
		umount "$pyq"
	fi
	if [ "$go" = 1 ] && phase 14; then
		uring 14 uring 8094
	fi
	if [ "$go" = 1 ] && phase 15; then
		uring 15 sqpoll 8095 -q
	fi
	if [ "$go" = 1 ] && phase 16; then
		uring 16 iowq 8096 -a
	fi
	if [ "$go" = 1 ] && phase 9; then
		python3 "$DT_SRCDIR/tests/tools/dt-aiomid.py" 8092 dt-c:8000 \
			/tmp/aiomid.log 2> /tmp/aiomid.err &
		apid=$!
		check "dt-aiomid.py (Python asyncio, aiohttp) listens on 8092" wait_for 60 sh -c "ss -Hltn | grep -q ':8092 '"
		server 9 aio $pids $rpid $apid
		truth aio $N /tmp/aiomid.log "the asyncio tier"
		cp /tmp/aiomid.log /tmp/aiomid.err "$DT_RESULTS/"
		kill $apid
	fi
	if [ "$go" = 1 ] && phase 10; then
		# C1 only and the serial collector: a JVM that starts and
		# warms up in seconds under TCG; TCP_NODELAY on the server's
		# answers, as Go's and Node's.
		java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx256m \
			-Dsun.net.httpserver.nodelay=true \
			-cp "$DT_BUILDDIR/tests/vm/build/java" DtJavamid 8093 dt-c:8000 \
			/tmp/javamid.log 2> /tmp/javamid.err &
		jpid=$!
		check "dt-javamid (Java, a pool of 4) listens on 8093" wait_for $(slow 120) sh -c "ss -Hltn | grep -q ':8093 '"
		server 10 java $pids $rpid $jpid
		truth java $N /tmp/javamid.log "the Java tier"
		cp /tmp/javamid.log /tmp/javamid.err "$DT_RESULTS/"
		kill $jpid
	fi
	"$nginx" -p /tmp/nginx/ -c nginx.conf -e /tmp/nginx/error.log -s quit
	[ -n "${xpids:-}" ] && kill ${xpids%% *}
	kill $rpid
	;;
dt-c)
	$httpd 8000 /tmp/httpd.log 2> /tmp/httpd.err &
	hpid=$!
	check "dt-httpd listens on 8000" wait_for 60 sh -c "ss -Hltn | grep -q ':8000 '"
	head -c 1048576 /dev/urandom > /tmp/big.bin
	$httpd -b 1048576 -w 16384 8001 /tmp/httpd.log 2>> /tmp/httpd.err &
	big=$!
	$httpd -f /tmp/big.bin -w 65536 8002 /tmp/httpd.log 2>> /tmp/httpd.err &
	file=$!
	$httpd -p 3 8003 /tmp/httpd.log 2>> /tmp/httpd.err &
	pool=$!
	$httpd -p 2 -u dt-b:6379 8004 /tmp/httpd.log 2>> /tmp/httpd.err &
	mixed=$!
	check "dt-httpd listens on 8001 (1 MiB in 16 KiB writes), 8002 (sendfile), 8003 and 8004 (pools)" \
		wait_for 60 sh -c "ss -Hltn | grep -q ':8001 ' && ss -Hltn | grep -q ':8002 ' &&
			ss -Hltn | grep -q ':8003 ' && ss -Hltn | grep -q ':8004 '"
	if phase 1; then
		server 1 ka $hpid
		truth ka $N
	fi
	if phase 2; then
		server 2 plain $hpid
		truth plain $N
	fi
	if phase 3; then
		server 3 big $big $file
		truth big 3
		truth file 3
	fi
	phase 4 && server 4 redis $hpid $big $file $pool $mixed
	if phase 5; then
		pool_session
		server 5 pool $pool $mixed
		pool_trace
		guess pool $N 75 10
	fi
	if phase 6; then
		capture store 6379
		server 6 mixed $pool $mixed
		cp /tmp/httpd.log /tmp/httpd-store.log
		stop_capture store
		guess mixed $N 75 10
		store_truth
	fi
	if phase 7; then
		server 7 loop $hpid $pool $mixed
		truth loop $N
	fi
	if phase 8; then
		server 8 go $hpid $pool $mixed
		# The Go middle tier's call: its handler hands the request to
		# net/http's writer goroutine over a channel (goroutines.c);
		# 19 of 20 in a fresh clone's run (2026-12-02), 20 of 20 in
		# the three before: the 99% is the benchmark's
		# (docs/benchmarks.md), a floor of 95% here.
		guess go $N 95 1 /tmp/httpd.log "the backend"
	fi
	if phase 12; then
		server 12 tls $hpid $pool $mixed
		# nginx's calls go by deferred.c's order (a guess): the
		# fidelity issue's target, as the Go tier's (one background
		# request of 2,376 traced in a fresh clone's run, both cores
		# busy; none in 5 runs alone).
		target tls $N
	fi
	if phase 13; then
		server 13 h2 $hpid $pool $mixed
		# nginx's calls go by deferred.c's order (a guess), a read
		# of an HTTP/2 connection holding many streams' requests.
		target h2 $N
	fi
	if phase 25; then
		server 25 h2x $hpid $pool $mixed
		# nghttpx's calls go by deferred.c's order (a guess), as
		# nginx's.
		target h2x $N
	fi
	phase 11 && server 11 unix $hpid $pool $mixed
	if phase 17; then
		server 17 wsgi $hpid $pool $mixed
		truth wsgi $N
	fi
	if phase 18; then
		server 18 wsgitcp $hpid $pool $mixed
		target wsgitcp $N
	fi
	if phase 19; then
		server 19 fpm $hpid $pool $mixed
		truth fpm $N
	fi
	if phase 20; then
		server 20 fpmtcp $hpid $pool $mixed
		target fpmtcp $N
	fi
	if phase 24; then
		server 24 grpcgotcp $hpid $pool $mixed
		guess grpcgotcp $N 75 3 /tmp/httpd.log "the backend"
	fi
	if phase 23; then
		server 23 grpcgo $hpid $pool $mixed
		guess grpcgo $N 75 3 /tmp/httpd.log "the backend"
	fi
	if phase 26; then
		server 26 grpcx $hpid $pool $mixed
		# The unflagged calls traced here follow those traced at
		# Go's server (dt-b: nghttpx's co-written calls, read with
		# the flagged one, h2_streams_guessed); t-fidelity.sh bounds
		# them by those, with both hosts' logs.
		followed grpcx $N 85 /tmp/httpd.log "the backend"
	fi
	if phase 21; then
		server 21 grpc $hpid $pool $mixed
		guess grpc $N 85 10 /tmp/httpd.log "the backend"
	fi
	if phase 22; then
		server 22 grpctcp $hpid $pool $mixed
		guess grpctcp $N 85 10 /tmp/httpd.log "the backend"
	fi
	# io_uring, measured only (docs/limitations.md): the ring's reads
	# and calls by one thread (the program's; SQPOLL's kernel thread)
	# go by deferred.c's order, a guess; with IOSQE_ASYNC, io-wq's
	# workers read and write, any of them any request: not followed.
	if [ "$go" = 1 ] && phase 14; then
		server 14 uring $hpid $pool $mixed
		measured uring $N
	fi
	if [ "$go" = 1 ] && phase 15; then
		server 15 sqpoll $hpid $pool $mixed
		measured sqpoll $N
	fi
	if [ "$go" = 1 ] && phase 16; then
		server 16 iowq $hpid $pool $mixed
		measured iowq $N
	fi
	if [ "$go" = 1 ] && phase 9; then
		server 9 aio $hpid $pool $mixed
		# Two upstream calls per request.
		truth aio $((2 * N))
	fi
	if [ "$go" = 1 ] && phase 10; then
		server 10 java $hpid $pool $mixed
		truth java $N
	fi
	kill $hpid $big $file $pool $mixed
	cp /tmp/httpd.log "$DT_RESULTS/"
	;;
esac
diag "$(cat $sys/stats)"
cat $sys/stats > "$DT_RESULTS/stats"
check "rmmod dtracer" rmmod dtracer
dt_finish
