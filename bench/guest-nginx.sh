# Guest side of bench/nginx.sh (sourced after tests/vm/guest-lib.sh).
#
#   dt-a (server)                          dt-b (client, drives the rounds)
#   nginx (Debian's), one worker,  <-----  ab -k -c 32 -n REQUESTS
#   a 16-byte static file, 8080    <-----  flagged: curl, a request every
#                                          50 ms while ab runs
#   dt-gomid (Go net/http) asking  <-----  the same: the Go workload
#   nginx for it, 8091
#   dt-pymid.py (a thread pool)    <-----  ab -c 32 (a connection a
#   asking nginx for it, 8093              request): the Python workload
#   control: socat on 7100         <-----  "none" / "stock" / "idle" ...
#
# Set-ups on dt-a (dtracer.ko loaded, lttng-sessiond running in all):
#   none     probe 0, no LTTng session: a host without dtracer (probe 0
#            unregisters every hook: docs/architecture.md);
#   stock    probe 0, a session recording every system call and the
#            scheduler's switches and wake-ups, gate off: stock LTTng;
#   idle     probe 1, the same session with gate thread, nothing
#            flagged: what a host pays for dtracer waiting;
#   flagged  idle, and on dt-b a flagged client (curl, a new connection
#            every 50 ms) among ab's load: its requests traced on dt-a.
# dt-b: probe 1 in idle and flagged, else 0. The Go workload runs none,
# idle and flagged, with `dtracer go` on dt-gomid: its uprobes (a trap
# on each goroutine switch and channel operation) are on while probe is
# 1. The Python workload the same, with `dtracer python` on CPython's
# _queue module: a trap on each put and get of every SimpleQueue of
# every python3 process (each request is one job through the pool).
#
# Figures: the instructions dt-a executed (kernel and user: the
# servers, the tracer, LTTng's daemons, everything) per request served,
# and the ratio none's over the set-up's (a throughput ratio: 1 is no
# cost); ab's requests per second (the wall clock under TCG: noisy)
# beside. Each round runs every set-up once (rotating order); ratios
# per round.
. "$DT_SRCDIR/bench/stats.sh"
sys=/sys/distributed-tracer
rounds=${DT_BENCH_ROUNDS:-5}
requests=${DT_BENCH_REQUESTS:-10000}
setups=${DT_BENCH_NGINX_SETUPS:-none stock idle flagged}
workloads=${DT_BENCH_WORKLOADS:-nginx go python}
mark=$DT_BUILDDIR/bench/insn/dt-insn-mark
insn_log=${DT_INSN_LOG:-$DT_RESULTS/insn.log}
nginx=$DT_BUILDDIR/tests/vm/build/nginx/usr/sbin/nginx

# insn: "MARK KERNEL USER": a new mark, and the instructions so far.
insn() {
	$mark || return 1
	tail -n 1 "$insn_log"
}

# session SETUP: dt-a's state for that set-up (the last one's session
# destroyed first).
session() {
	lttng destroy nginx > /dev/null 2>&1
	rm -rf /tmp/bench-nginx
	case $1 in
	none | stock) echo 0 > $sys/probe ;;
	idle | flagged) echo 1 > $sys/probe ;;
	*) return 1 ;;
	esac
	[ "$1" = none ] && return 0
	if [ "$1" = stock ]; then
		echo off > $sys/gate
	else
		echo thread > $sys/gate
	fi
	lttng create nginx --output=/tmp/bench-nginx > /dev/null &&
		lttng enable-event -k --syscall -a > /dev/null &&
		lttng enable-event -k sched_switch,sched_wakeup > /dev/null &&
		lttng enable-event -k 'dtracer_*' > /dev/null &&
		lttng start nginx > /dev/null
}

# The server's control script sources this file for its functions.
[ "${DT_BENCH_FUNCS:-0}" = 1 ] && return 0

[ -f "$insn_log" ] || {
	not_ok "QEMU runs the dt-insn plugin (no $insn_log: run bench/nginx.sh)"
	dt_finish
}

case $DT_HOST in
dt-a)
	check "dtracer loads" modprobe dtracer
	check "lttng-sessiond starts" sh -c \
		'LTTNG_EXTRA_KMOD_PROBES=dtracer lttng-sessiond -d'
	mkdir -p /tmp/nginx /tmp/www
	printf 'sixteen bytes!!\n' > /tmp/www/tiny
	cat > /tmp/nginx/nginx.conf <<-CONF
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
		server {
			listen 8080;
			root /tmp/www;
			keepalive_requests 100000;
		}
	}
	CONF
	check "nginx (Debian's, unpacked), one worker, starts" \
		"$nginx" -p /tmp/nginx/ -c nginx.conf -e /tmp/nginx/error.log
	# From the guest's tmpfs: uprobes read a file's pages through its
	# file system, which the shared 9p root does not offer.
	cp "$DT_BUILDDIR/tests/vm/build/dt-gomid" /tmp/dt-gomid
	check "dtracer go: dt-gomid's goroutines followed" \
		"$DT_BUILDDIR/collector/dtracer" go /tmp/dt-gomid
	/tmp/dt-gomid 8091 127.0.0.1:8080 /tmp/gomid.log 2> /tmp/gomid.err &
	gpid=$!
	# The same for CPython's _queue module (guest-lib.sh).
	pyqueue_follow
	python3 "$DT_SRCDIR/tests/tools/dt-pymid.py" 8093 127.0.0.1:8080 4 \
		2> /tmp/pymid.err &
	ppid_=$!
	cat > /tmp/ctl.sh <<CTL
DT_RESULTS=/tmp
DT_INSN_LOG='$insn_log'
. '$DT_SRCDIR/tests/vm/guest-lib.sh'
DT_BENCH_FUNCS=1 . '$DT_SRCDIR/bench/guest-nginx.sh'
read -r cmd
case \$cmd in
none | stock | idle | flagged) session "\$cmd" >> /tmp/ctl.log 2>&1 && echo ok || echo failed ;;
insn) insn ;;
ping) echo ok ;;
quit) touch /tmp/quit; echo ok ;;
*) echo "unknown command" ;;
esac
CTL
	socat -t 300 TCP4-LISTEN:7100,fork,reuseaddr SYSTEM:"sh /tmp/ctl.sh" 2> /tmp/socat.err &
	ctl=$!
	wait_for 3000 test -e /tmp/quit
	check "the client said it was done" test -e /tmp/quit
	kill $ctl $gpid $ppid_
	wait $ppid_ 2> /dev/null
	umount "$pyq"
	session none
	[ "${DT_BENCH_PROFILE:-0}" = 1 ] && cat /proc/kallsyms > "$DT_RESULTS/kallsyms"
	"$nginx" -p /tmp/nginx/ -c nginx.conf -e /tmp/nginx/error.log -s quit
	cp /tmp/ctl.log /tmp/nginx/error.log /tmp/gomid.err /tmp/pymid.err "$DT_RESULTS/" 2> /dev/null
	;;
dt-b)
	check "dtracer loads" modprobe dtracer
	check "dt-a's control port answers" wait_for 300 ctl_ok ping
	check "dt-a's nginx answers" wait_for 60 sh -c "curl -sf http://dt-a:8080/tiny > /dev/null"
	check "dt-a's Go tier answers" wait_for 60 sh -c "curl -sf http://dt-a:8091/tiny > /dev/null"
	check "dt-a's Python tier answers" wait_for 60 sh -c "curl -sf http://dt-a:8093/tiny > /dev/null"
	# run SETUP ROUND: one run of workload $w (URL $url) in that set-up:
	# "ROUND INSN KERNEL REQUESTS RPS" to /tmp/insn.$w.SETUP.
	run() {
		rm -f /tmp/ab-done /tmp/flagged-n
		touch /tmp/flagged-n
		a0=$(ctl insn)
		if [ "$1" = flagged ]; then
			flagged sh -c "while [ ! -e /tmp/ab-done ]; do
				curl -sf -o /dev/null $url && echo >> /tmp/flagged-n
				sleep 0.05; done" &
			fl=$!
		fi
		ab $keep -c 32 -n "$requests" "$url" > /tmp/ab.out 2>&1
		touch /tmp/ab-done
		[ "$1" = flagged ] && wait "$fl"
		a1=$(ctl insn)
		echo "$2 ${a1%% *}" >> "/tmp/marks.$w.$1"
		done_=$(awk '/^Complete requests:/ { print $3 }' /tmp/ab.out)
		failed=$(awk '/^Failed requests:/ { print $3 }' /tmp/ab.out)
		rps=$(awk '/^Requests per second:/ { print $4 }' /tmp/ab.out)
		[ "${done_:-0}" = "$requests" ] && [ "${failed:-1}" = 0 ] || return 1
		echo "$2 $a0 $a1 $((done_ + $(wc -l < /tmp/flagged-n))) $rps" |
			awk '{ print $1, $6 - $3 + $7 - $4, $6 - $3, $8, $9 }' >> "/tmp/insn.$w.$1"
	}
	# setups_of W: the set-ups of workload W (stock for nginx only).
	setups_of() {
		if [ "$1" != nginx ]; then echo "$setups" | sed 's/stock//'; else echo "$setups"; fi
	}
	r=0
	while [ $r -lt "$rounds" ]; do
		for w in $workloads; do
			url=http://dt-a:8080/tiny keep=-k
			[ $w = go ] && url=http://dt-a:8091/tiny
			# The Python tier closes each connection.
			[ $w = python ] && url=http://dt-a:8093/tiny keep=
			for s in $(bench_order $r $(setups_of $w)); do
				ctl_ok "$s" || { not_ok "dt-a takes set-up $s"; break 3; }
				case $s in
				idle | flagged) echo 1 > $sys/probe ;;
				*) echo 0 > $sys/probe ;;
				esac
				sleep 1
				run "$s" $r || { not_ok "ab to $w in set-up $s: $(tail -n 3 /tmp/ab.out)"; break 3; }
			done
		done
		r=$((r + 1))
	done
	ctl_ok none
	ctl quit > /dev/null
	echo 0 > $sys/probe
	for w in $workloads; do
		for s in $(setups_of $w); do
			[ -f /tmp/insn.$w.$s ] && [ "$(wc -l < /tmp/insn.$w.$s)" -eq "$rounds" ] ||
				{ not_ok "$rounds rounds of $w in set-up $s"; continue; }
			# Per round: instructions and kernel instructions per
			# request, ab's requests/s, requests.
			awk '{ print $1, $2 / $4, $3 / $4, $5, $4 }' /tmp/insn.$w.$s > /tmp/per.$w.$s
		done
	done
	# inv BASE FILE N: per round, BASE's column N over FILE's.
	inv() {
		awk -v c="$3" 'NR == FNR { base[$1] = $c; next }
			{ if ($c > 0) printf "%.4f\n", base[$1] / $c }' "$1" "$2"
	}
	{
		for w in $workloads; do
			case $w in
			nginx) echo "nginx, a 16-byte file, ab -k -c 32 -n $requests: dt-a's instructions (kernel + user) per request" ;;
			go) echo "dt-gomid (Go net/http, under dtracer go) asking nginx for it, the same: dt-a's instructions per request" ;;
			python) echo "dt-pymid.py (a pool of 4, under dtracer python) asking nginx for it, ab -c 32 (a connection a request): dt-a's instructions per request" ;;
			esac
			printf '%-8s %9s %6s %13s %10s %9s %6s %13s %9s\n' setup insn/req ratio q1-q3 kernel/req \
				ab-req/s ratio q1-q3 requests
			for s in $(setups_of $w); do
				[ -f /tmp/per.$w.$s ] || continue
				set -- $(bench_col /tmp/per.$w.$s 2 | bench_stats) \
					$(inv /tmp/per.$w.none /tmp/per.$w.$s 2 | bench_stats) \
					$(bench_col /tmp/per.$w.$s 3 | bench_stats) \
					$(bench_col /tmp/per.$w.$s 4 | bench_stats) \
					$(bench_ratios /tmp/per.$w.none /tmp/per.$w.$s 4 | bench_stats) \
					$(bench_col /tmp/per.$w.$s 5 | bench_stats)
				printf '%-8s %9.0f %6.4f %6.4f-%-6.4f %10.0f %9.1f %6.4f %6.4f-%-6.4f %9.0f\n' "$s" \
					"$1" "$4" "$5" "$6" "$7" "${10}" "${13}" "${14}" "${15}" "${16}"
			done
			echo
		done
		echo "instruction counts from QEMU's dt-insn plugin (TCG, 1 vCPU per guest), $rounds rounds, each running"
		echo "every set-up once (rotating order); median and quartiles over the rounds; ratios per round to"
		echo "that round's 'none' (insn: none's over the set-up's, a throughput ratio; ab: the set-up's"
		echo "requests/s over none's, wall clock). none = probe 0, no session; stock = every system call and"
		echo "sched_switch/sched_wakeup recorded, gate off; idle = probe 1, the same session, gate thread"
		echo "(and dtracer go's and dtracer python's uprobes); flagged = idle with a flagged curl (a request every"
		echo "50 ms) among ab's. target: flagged >= 0.97 of none"
	} | tee "$DT_RESULTS/nginx.txt"
	cp /tmp/insn.* /tmp/marks.* "$DT_RESULTS/" 2> /dev/null
	;;
esac
dt_finish
