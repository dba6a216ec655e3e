# Guest side of bench/net.sh (sourced after tests/vm/guest-lib.sh).
#
#   dt-a (server)                        dt-b (client, drives the rounds)
#   iperf3 -s                  <-------  iperf3 -c dt-a -t SECS
#   dt-tcp serve 7000 0 (echo) <-------  dt-tcp rr dt-a 7000 SECS
#   control: socat on 7100     <-------  "none" / "idle" / "flagged" ...
#
# Set-ups, the same on both guests: none = dtracer.ko not loaded; idle =
# loaded and armed (probe 1), no thread flagged; flagged = the same, and
# the client's traffic thread flagged (add_pid), so that every segment it
# sends is marked and the server's reading threads are flagged by
# propagation. Each round runs every set-up once (rotating order); ratios
# are taken per round to that round's "none".
. "$DT_SRCDIR/bench/stats.sh"
sys=/sys/distributed-tracer
tcp=$DT_BUILDDIR/tests/tools/dt-tcp
rounds=${DT_BENCH_ROUNDS:-11}
secs=${DT_BENCH_SECONDS:-3}
# DT_BENCH_SETUPS may add "disarmed" (loaded, probe 0: the module
# without its packet hooks) to split idle's cost.
setups=${DT_BENCH_SETUPS:-none idle flagged}

# DT_BENCH_ALT_MODULE=PATH: set-ups idle-alt and flagged-alt are idle
# and flagged with that dtracer.ko (another build, loaded with insmod and
# the modprobe.d options) instead of the module tree's: a change measured
# against the code before it, side by side in one run.
alt=${DT_BENCH_ALT_MODULE:-}

# load [alt]: the module tree's dtracer.ko (or alt's) loaded, the other
# one unloaded first.
load() {
	_want=$(modinfo -F srcversion "${1:-dtracer}") || return 1
	if [ -d $sys ] && [ "$(cat /sys/module/dtracer/srcversion)" != "$_want" ]; then
		echo 0 > $sys/probe && rmmod dtracer || return 1
	fi
	[ -d $sys ] && return 0
	if [ -n "${1:-}" ]; then
		# shellcheck disable=SC2046
		insmod "$1" $(sed -n 's/^options dtracer //p' /etc/modprobe.d/*.conf 2> /dev/null)
	else
		modprobe dtracer
	fi
}

# setup NAME: this guest's module state for set-up NAME.
setup() {
	case $1 in
	none)
		if [ -d $sys ]; then
			echo 0 > $sys/probe && rmmod dtracer || return 1
		fi
		;;
	idle | flagged)
		load || return 1
		echo 1 > $sys/probe
		;;
	idle-alt | flagged-alt)
		[ -n "$alt" ] && load "$alt" || return 1
		echo 1 > $sys/probe
		;;
	disarmed)
		load || return 1
		echo 0 > $sys/probe
		;;
	*) return 1 ;;
	esac
}

marks() {
	if [ -d $sys ]; then stat_of "$1"; else echo 0; fi
}

# The server's control script sources this file for the two functions.
[ "${DT_BENCH_FUNCS:-0}" = 1 ] && return 0

case $DT_HOST in
dt-a)
	iperf3 -s > /tmp/iperf3-s.log 2>&1 &
	iperf=$!
	$tcp serve 7000 0 > /tmp/serve.log 2>&1 &
	serve=$!
	# The control port: one command a connection, one line of answer.
	cat > /tmp/ctl.sh <<EOF
DT_RESULTS=/tmp
. '$DT_SRCDIR/tests/vm/guest-lib.sh'
DT_BENCH_FUNCS=1 . '$DT_SRCDIR/bench/guest-net.sh'
read -r cmd
case \$cmd in
none | disarmed | idle | flagged | idle-alt | flagged-alt) setup "\$cmd" >> /tmp/ctl.log 2>&1 && echo ok || echo failed ;;
marks) echo "\$(marks marks_received)" ;;
ping) echo ok ;;
quit) touch /tmp/quit; echo ok ;;
*) echo "unknown command" ;;
esac
EOF
	# -t: the client shuts its side at once; wait for the answer anyway.
	socat -t 300 TCP4-LISTEN:7100,fork,reuseaddr SYSTEM:"sh /tmp/ctl.sh" 2> /tmp/socat.err &
	ctl=$!
	wait_for 1500 test -e /tmp/quit
	check "the client said it was done" test -e /tmp/quit
	kill $ctl $iperf $serve
	cp /tmp/ctl.log "$DT_RESULTS/" 2> /dev/null
	;;
dt-b)
	# iperf SETUP: throughput (kbit/s, received) of one iperf3 run.
	iperf() {
		_pre=
		case $1 in flagged*) _pre=flagged ;; esac
		for _try in 1 2 3; do
			_v=$($_pre iperf3 -c dt-a -t $secs -f k 2> /dev/null |
				awk '/receiver/ { for (i = 1; i <= NF; i++) if ($i == "Kbits/sec") print $(i - 1) }')
			[ -n "$_v" ] && { echo "$_v"; return 0; }
			sleep 1	# the server still busy with the last test
		done
		return 1
	}
	# rr SETUP: round trips per second of one dt-tcp rr run.
	rr() {
		_pre=
		case $1 in flagged*) _pre=flagged ;; esac
		$_pre $tcp rr dt-a 7000 $secs | cut -d' ' -f1
	}
	check "dt-a's control port answers" wait_for 300 ctl_ok ping
	check "dt-a's iperf3 answers" wait_for 60 sh -c "iperf3 -c dt-a -t 1 > /dev/null"
	check "dt-a's echo server answers" $tcp request -w 120 dt-a 7000 ping
	r=0
	while [ $r -lt $rounds ]; do
		for s in $(bench_order $r $setups); do
			ctl_ok $s || { not_ok "dt-a takes set-up $s"; break 2; }
			setup $s || { not_ok "dt-b takes set-up $s"; break 2; }
			sleep 1	# what loading or unloading left behind (RCU, kprobes)
			s0=$(marks marks_sent)
			r0=$(ctl marks)
			i=$(iperf $s) || { not_ok "iperf3 in set-up $s"; break 2; }
			s1=$(marks marks_sent)
			q=$(rr $s) || { not_ok "dt-tcp rr in set-up $s"; break 2; }
			s2=$(marks marks_sent)
			r2=$(ctl marks)
			echo "$r $i $q $((s1 - s0)) $((s2 - s1)) $((r2 - r0))" >> /tmp/net.$s
		done
		r=$((r + 1))
	done
	ctl_ok none && setup none
	ctl quit > /dev/null
	[ -f /tmp/net.flagged ] && [ "$(wc -l < /tmp/net.flagged)" -eq $rounds ] &&
		ok "$rounds rounds of every set-up" || not_ok "$rounds rounds of every set-up"
	m=$(awk '{ n += $4 } END { print n + 0 }' /tmp/net.flagged 2> /dev/null)
	[ "${m:-0}" -gt 0 ] && ok "flagged iperf3 runs sent marks ($m)" ||
		not_ok "flagged iperf3 runs sent marks"
	m=$(awk '{ n += $5 } END { print n + 0 }' /tmp/net.flagged 2> /dev/null)
	[ "${m:-0}" -gt 0 ] && ok "flagged rr runs sent marks ($m)" ||
		not_ok "flagged rr runs sent marks"
	{
		printf '%-8s %10s %6s %13s %8s %6s %13s %11s %11s %11s\n' setup iperf_Mb/s ratio q1-q3 \
			rr/s ratio q1-q3 marks_iperf marks_rr marks_recv
		for s in $setups; do
			[ -f /tmp/net.$s ] || continue
			set -- $(bench_col /tmp/net.$s 2 | bench_stats) \
				$(bench_ratios /tmp/net.none /tmp/net.$s 2 | bench_stats) \
				$(bench_col /tmp/net.$s 3 | bench_stats) \
				$(bench_ratios /tmp/net.none /tmp/net.$s 3 | bench_stats)
			printf '%-8s %10.0f %6.3f %6.3f-%-6.3f %8.0f %6.3f %6.3f-%-6.3f %11s %11s %11s\n' $s \
				"$(echo "$1" | awk '{ print $1 / 1000 }')" $4 $5 $6 $7 ${10} ${11} ${12} \
				$(awk '{ a += $4; b += $5; c += $6 } END { print a + 0, b + 0, c + 0 }' /tmp/net.$s)
		done
		echo "two guests (1 vCPU each, TCG) on the harness's LAN; per set-up and round: iperf3 -c -t $secs"
		echo "(received throughput), then dt-tcp rr for $secs s (1-byte requests, echo answers, one connection)"
		echo "$rounds rounds, each running every set-up once (rotating order); ratios: per round, to that"
		echo "round's 'none', median and quartiles; marks: totals over the rounds (client marks_sent during"
		echo "iperf3 and rr, server marks_received)"
		echo "setups: none = dtracer.ko not loaded on either guest; idle = loaded and armed on both, nothing"
		echo "        flagged; flagged = the same, the client's iperf3 / dt-tcp rr thread flagged (add_pid)"
		case $setups in *disarmed*)
			echo "        disarmed = loaded, probe 0 (no packet hooks)" ;;
		esac
		echo "targets: ratio >= 0.99 idle, >= 0.95 flagged"
	} | tee "$DT_RESULTS/net.txt"
	# The rounds: "ROUND KBIT/S RR/S MARKS_IPERF MARKS_RR MARKS_RECV".
	cp /tmp/net.* "$DT_RESULTS/"
	;;
esac
dt_finish
