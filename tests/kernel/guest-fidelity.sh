# Guest side of t-fidelity.sh (sourced after tests/vm/guest-lib.sh).
#
#   dt-a clients               dt-b proxy                dt-c backend
#   curl, flagged  ---------->  nginx, one worker  ---->  dt-httpd (a thread
#   3 curl loops, unflagged     8080: upstream            per connection,
#                               keep-alive (HTTP/1.1)     HTTP/1.1 keep-alive)
#                               8081: none (HTTP/1.0)     logs per request
#                                                         whether its thread
#                                                         was flagged
#
# Two phases, one per nginx port. In each, three unflagged curl loops
# (5 requests per connection) run through nginx; one flagged curl makes
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
# Hand-shakes (dt-tcp) on 7600 + 20 * PHASE: +1 dt-b and dt-c ready,
# +2 the flagged client is done (dt-a serves it to both), +3 both
# checked (dt-a waits for both).
tcp=$DT_BUILDDIR/tests/tools/dt-tcp
httpd=$DT_BUILDDIR/tests/tools/dt-httpd
pcap=$DT_BUILDDIR/tests/tools/dt-pcap
nginx=$DT_BUILDDIR/tests/vm/build/nginx/usr/sbin/nginx
sys=/sys/distributed-tracer
N=20

# sample FILE: list_pid every 0.1 s into FILE, until killed.
sample() {
	while :; do
		cat $sys/list_pid
		sleep 0.1
	done > "$1" 2>/dev/null &
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
		upstream ka {
			server dt-c:8000;
			keepalive 8;
		}
		upstream plain {
			server dt-c:8000;
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
	}
	EOF
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

# client PHASE NAME HOST PORTS FLAGGED_URLS LOOP_URLS: dt-a's side of one
# phase (PORTS: the servers' ports, "P1 P2"; the URL lists space
# separated).
client() {
	base=$((7600 + 20 * $1))
	_name=$2 _host=$3 _ports=$4 _furls=$5 _lurls=$6
	check "[$_name] dt-b is ready" wait_for $(slow 300) $tcp request dt-b $((base + 1)) go
	check "[$_name] dt-c is ready" wait_for $(slow 300) $tcp request dt-c $((base + 1)) go
	_filter=$(echo "$_ports" | sed 's/ / or tcp port /g; s/^/tcp port /')
	# A 64 MiB buffer: the 1 MiB answers come faster than -U writes them.
	tcpdump -i eth0 -n -U -B 65536 -w /tmp/cap-$_name.pcap "$_filter" 2> /tmp/tcpdump-$_name.err &
	tdpid=$!
	check "[$_name] tcpdump is capturing" wait_for 30 grep -q listening /tmp/tcpdump-$_name.err
	# shellcheck disable=SC2086
	loops "$_name" $_lurls
	check "[$_name] the unflagged loops get answers" wait_for $(slow 120) grep -q '^ok$' /tmp/loops-$_name
	sample /tmp/samples-$_name
	_args=
	for u in $_furls; do
		_args="$_args -o /dev/null $u"
	done
	# shellcheck disable=SC2016,SC2086
	sh -c 'echo $$ > /tmp/fpid && echo $$ > '$sys'/add_pid && exec "$@"' flagged \
		curl -s -w '%{local_port} %{size_download}\n' $_args \
		> /tmp/flagged-$_name 2> /tmp/flagged-$_name.err
	fpid=$(cat /tmp/fpid)
	_nf=$(($(echo "$_furls" | wc -w) * $(echo "$_furls" | sed -n 's/.*\[1-\([0-9]*\)\].*/\1/p')))
	check "[$_name] the flagged curl made its $_nf requests" \
		test "$(grep -c . /tmp/flagged-$_name)" = "$_nf"
	# Tell both hosts, then look ourselves, loops still running.
	$tcp serve -4 $((base + 2)) 2 > /dev/null 2>&1 &
	none_flagged_after "$_name"
	check "[$_name] dt-b and dt-c looked too" timeout $(slow 120) $tcp serve -4 $((base + 3)) 2
	kill $sampler
	# shellcheck disable=SC2086
	kill $loops
	check "[$_name] the loops ran beside it ($(grep -c '^ok$' /tmp/loops-$_name) connections)" \
		test "$(grep -c '^ok$' /tmp/loops-$_name)" -ge 2
	check "[$_name] only the flagged curl was flagged here (pid $fpid)" pids_are /tmp/samples-$_name $fpid
	sleep 1
	kill $tdpid
	wait $tdpid
	check "[$_name] the capture reads back" sh -c "$pcap /tmp/cap-$_name.pcap > /tmp/segs-$_name"
	cp /tmp/segs-$_name /tmp/samples-$_name /tmp/flagged-$_name \
		/tmp/tcpdump-$_name.err "$DT_RESULTS/"
	fports=$(awk '{ print $1 }' /tmp/flagged-$_name | sort -u | tr '\n' ' ')
	fbytes=$(awk '{ n += $2 } END { print n + 0 }' /tmp/flagged-$_name)
	set -- $(awk -v p=" $fports" -v sp=" $_ports " -v h="$(dt_addr $_host)" '
		$1 == h && index(sp, " " $2 " ") && $6 > 0 {
			if (index(p, " " $4 " ")) { f++; fm += ($7 && $11); fb += $6 }
			else { b++; bm += $7 }
		}
		END { print f + 0, fm + 0, b + 0, bm + 0, fb + 0 }' /tmp/segs-$_name)
	check "[$_name] every answer to the flagged curl came back with both marks ($2 of $1 segments, $5 bytes; $fbytes of body)" \
		test "$1" -gt 0 -a "$1" = "$2" -a "$5" -gt "$fbytes"
	check "[$_name] no answer to the loops came back marked ($4 of $3 segments)" \
		test "$3" -gt 0 -a "$4" = 0
}

# server PHASE NAME PIDS...: dt-b's or dt-c's side of one phase.
server() {
	base=$((7600 + 20 * $1))
	_name=$2
	shift 2
	sample /tmp/samples-$_name
	check "[$_name] dt-a started" timeout $(slow 600) $tcp serve -4 $((base + 1)) 1
	check "[$_name] dt-a's flagged client is done" \
		wait_for $(slow 600) $tcp request dt-a $((base + 2)) go
	none_flagged_after "$_name"
	kill $sampler
	cp /tmp/samples-$_name "$DT_RESULTS/"
	check "[$_name] only the server's threads were flagged here" pids_are /tmp/samples-$_name "$@"
	check "[$_name] told dt-a" wait_for 60 $tcp request dt-a $((base + 3)) done
}

# truth NAME COUNT: dt-httpd's log of the phase: every flagged request
# (COUNT of them) traced, no unflagged one.
truth() {
	set -- $(awk -v n="$1" '
		index($1, "/f-" n "/") == 1 { f++; ft += $2 == "traced" }
		index($1, "/b-" n "/") == 1 { b++; bt += $2 == "traced" }
		END { print f + 0, ft + 0, b + 0, bt + 0 }' /tmp/httpd.log) "$1" "$2"
	check "[$5] every flagged request was traced at the backend ($2 of $1)" \
		test "$1" = "$6" -a "$2" = "$6"
	check "[$5] no unflagged request was traced at the backend ($4 of $3)" \
		test "$3" -gt 0 -a "$4" = 0
}

check "modprobe dtracer" modprobe dtracer
check "probe armed" sh -c "echo 1 > $sys/probe"
case $DT_HOST in
dt-a)
	for l in 1 2 3; do
		ka="$ka http://dt-b:8080/b-ka/$l/[1-5]"
		plain="$plain http://dt-b:8081/b-plain/$l/[1-5]"
	done
	client 1 ka dt-b 8080 "http://dt-b:8080/f-ka/[1-$N]" "$ka"
	client 2 plain dt-b 8081 "http://dt-b:8081/f-plain/[1-$N]" "$plain"
	client 3 big dt-c "8001 8002" \
		"http://dt-c:8001/f-big/[1-3] http://dt-c:8002/f-file/[1-3]" \
		"http://dt-c:8001/b-big/1/[1-2] http://dt-c:8002/b-file/1/[1-2]"
	;;
dt-b)
	nginx_conf
	check "nginx (Debian's, unpacked), one worker, starts" \
		"$nginx" -p /tmp/nginx/ -c nginx.conf -e /tmp/nginx/error.log
	check "nginx listens on 8080 and 8081" wait_for 60 sh -c \
		"ss -Hltn | grep -q ':8080 ' && ss -Hltn | grep -q ':8081 '"
	pids=$(pgrep -x nginx | tr '\n' ' ')
	server 1 ka $pids
	server 2 plain $pids
	server 3 big $pids
	"$nginx" -p /tmp/nginx/ -c nginx.conf -e /tmp/nginx/error.log -s quit
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
	check "dt-httpd listens on 8001 (1 MiB in 16 KiB writes) and 8002 (sendfile)" \
		wait_for 60 sh -c "ss -Hltn | grep -q ':8001 ' && ss -Hltn | grep -q ':8002 '"
	server 1 ka $hpid
	truth ka $N
	server 2 plain $hpid
	truth plain $N
	server 3 big $big $file
	truth big 3
	truth file 3
	kill $hpid $big $file
	cp /tmp/httpd.log "$DT_RESULTS/"
	;;
esac
diag "$(cat $sys/stats)"
cat $sys/stats > "$DT_RESULTS/stats"
check "rmmod dtracer" rmmod dtracer
dt_finish
