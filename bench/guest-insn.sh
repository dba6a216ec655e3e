# Guest side of bench/insn.sh (sourced after tests/vm/guest-lib.sh).
#
# Instruction counts of fixed amounts of work under each set-up, read
# from QEMU's dt-insn plugin (bench/insn/dt-insn.c) through the results
# folder: figures that stay put whatever the host is doing, where times
# under TCG move with the host's load.
#
#   network, both guests, the set-ups of bench/guest-net.sh (none,
#   disarmed, idle, flagged): dt-tcp rrn, RR one-byte round trips on one
#   connection, and iperf3 -n MIB MiB; the instructions both guests
#   executed (kernel and user, everything that ran: the work, interrupts,
#   other tasks), per round trip and per MiB;
#   gate, dt-b alone, the set-ups of bench/guest-gate.sh (none, stock,
#   thread, idle): dd bs=1 of BYTES bytes, unflagged; the instructions
#   dt-b executed.
#
# Each round runs every set-up once (rotating order); ratios are taken
# per round to that round's "none".
#
# DT_BENCH_PROFILE=1 (bench/insn.sh sets DT_VM_PROFILE for QEMU): each
# guest's kernel profile between marks too (profile.N in its results);
# the modules stay loaded at the end and each guest saves /proc/kallsyms,
# for bench/insn/profile.sh. For a profile, run one network set-up
# (DT_BENCH_NET_SETUPS), so that modules load once. marks.SETUP: "ROUND
# CLIENT-RR SERVER-RR CLIENT-IPERF SERVER-IPERF", marks.gate-SETUP:
# "ROUND DD": the index of the mark that ends each interval (its profile
# file's number).
insn_funcs=${DT_BENCH_FUNCS:-0}
DT_BENCH_FUNCS=1
. "$DT_SRCDIR/bench/guest-net.sh"	# setup, tcp, bench_* (stats.sh)
. "$DT_SRCDIR/bench/guest-gate.sh"	# start, stop
DT_BENCH_FUNCS=$insn_funcs
rounds=${DT_BENCH_ROUNDS:-5}
rrs=${DT_BENCH_RR:-2000}
mib=${DT_BENCH_MIB:-16}
bytes=${DT_BENCH_BYTES:-50000}
net_setups=${DT_BENCH_NET_SETUPS:-none disarmed idle flagged}
gate_setups=${DT_BENCH_GATE_SETUPS:-none stock thread idle}
mark=$DT_BUILDDIR/bench/insn/dt-insn-mark
insn_log=${DT_INSN_LOG:-$DT_RESULTS/insn.log}

# insn: "MARK KERNEL USER": the index of a new mark, and the
# instructions this guest has executed so far.
insn() {
	$mark || return 1
	tail -n 1 "$insn_log"
}

# The server's control script sources this file for insn.
[ "$insn_funcs" = 1 ] && return 0

[ -f "$insn_log" ] || {
	not_ok "QEMU runs the dt-insn plugin (no $insn_log: run bench/insn.sh)"
	dt_finish
}

case $DT_HOST in
dt-a)
	iperf3 -s > /tmp/iperf3-s.log 2>&1 &
	iperf=$!
	$tcp serve 7000 0 > /tmp/serve.log 2>&1 &
	serve=$!
	# The control port: one command a connection, one line of answer.
	cat > /tmp/ctl.sh <<EOF
DT_RESULTS=/tmp
DT_INSN_LOG='$insn_log'
. '$DT_SRCDIR/tests/vm/guest-lib.sh'
DT_BENCH_FUNCS=1 . '$DT_SRCDIR/bench/guest-insn.sh'
read -r cmd
case \$cmd in
none | disarmed | idle | flagged | idle-alt | flagged-alt) setup "\$cmd" >> /tmp/ctl.log 2>&1 && echo ok || echo failed ;;
insn) insn ;;
ping) echo ok ;;
kallsyms) cat /proc/kallsyms > '$DT_RESULTS/kallsyms' && echo ok ;;
quit) touch /tmp/quit; echo ok ;;
*) echo "unknown command" ;;
esac
EOF
	socat -t 300 TCP4-LISTEN:7100,fork,reuseaddr SYSTEM:"sh /tmp/ctl.sh" 2> /tmp/socat.err &
	ctl=$!
	wait_for 3000 test -e /tmp/quit
	check "the client said it was done" test -e /tmp/quit
	kill $ctl $iperf $serve
	cp /tmp/ctl.log "$DT_RESULTS/" 2> /dev/null
	;;
dt-b)
	# sub "I0 K0 U0" "I1 K1 U1": "K1-K0 U1-U0".
	sub() {
		echo "$1 $2" | awk '{ print $5 - $2, $6 - $3 }'
	}
	# idx "I K U": I.
	idx() {
		echo "${1%% *}"
	}
	pre() {
		case $1 in flagged*) echo flagged ;; esac
	}
	check "dt-a's control port answers" wait_for 300 ctl_ok ping
	counts() {
		ctl insn | grep -q '^[0-9][0-9]* [0-9][0-9]* [0-9][0-9]*$'
	}
	check "dt-a counts instructions" counts
	check "dt-a's iperf3 answers" wait_for 60 sh -c "iperf3 -c dt-a -t 1 > /dev/null"
	check "dt-a's echo server answers" $tcp request -w 120 dt-a 7000 ping
	# Network: "ROUND RR_CLIENT_K RR_CLIENT_U RR_SERVER_K RR_SERVER_U
	# IPERF_CLIENT_K IPERF_CLIENT_U IPERF_SERVER_K IPERF_SERVER_U".
	r=0
	while [ $r -lt $rounds ]; do
		for s in $(bench_order $r $net_setups); do
			ctl_ok $s || { not_ok "dt-a takes set-up $s"; break 2; }
			setup $s || { not_ok "dt-b takes set-up $s"; break 2; }
			sleep 1	# what loading or unloading left behind (RCU, kprobes)
			a0=$(ctl insn) b0=$(insn)
			$(pre $s) $tcp rrn dt-a 7000 $rrs > /dev/null ||
				{ not_ok "dt-tcp rrn in set-up $s"; break 2; }
			a1=$(ctl insn) b1=$(insn)
			$(pre $s) iperf3 -c dt-a -n ${mib}M > /dev/null 2>&1 ||
				{ not_ok "iperf3 in set-up $s"; break 2; }
			a2=$(ctl insn) b2=$(insn)
			echo "$r $(sub "$b0" "$b1") $(sub "$a0" "$a1")" \
				"$(sub "$b1" "$b2") $(sub "$a1" "$a2")" >> /tmp/insn-net.$s
			echo "$r $(idx "$b1") $(idx "$a1") $(idx "$b2") $(idx "$a2")" >> /tmp/marks.$s
		done
		r=$((r + 1))
	done
	if [ "${DT_BENCH_PROFILE:-0}" = 1 ]; then
		ctl_ok kallsyms || not_ok "dt-a saves its kallsyms"
	else
		ctl_ok none && setup none
	fi
	ctl quit > /dev/null

	# Gate: dt-b alone. "ROUND KERNEL USER".
	modprobe dtracer && echo 1 > $sys/probe &&
		LTTNG_EXTRA_KMOD_PROBES=dtracer lttng-sessiond -d ||
		not_ok "dtracer and lttng-sessiond for the gate set-ups"
	r=0
	while [ $r -lt $rounds ]; do
		for s in $(bench_order $r $gate_setups); do
			start $s || { not_ok "start set-up $s"; break 2; }
			i0=$(insn)
			dd if=/dev/zero of=/dev/null bs=1 count=$bytes 2> /dev/null
			i1=$(insn)
			stop $s
			echo "$r $(sub "$i0" "$i1")" >> /tmp/insn-gate.$s
			echo "$r $(idx "$i1")" >> /tmp/marks.gate-$s
		done
		r=$((r + 1))
	done

	for s in $net_setups; do
		[ -f /tmp/insn-net.$s ] && [ "$(wc -l < /tmp/insn-net.$s)" -eq $rounds ] ||
			{ not_ok "$rounds rounds of network set-up $s"; continue; }
		# Per round: RR (both guests, per round trip), IPERF (per MiB).
		awk -v n=$rrs -v m=$mib '{ print $1, ($2 + $3 + $4 + $5) / n,
			($6 + $7 + $8 + $9) / m, ($2 + $4) / n, ($6 + $8) / m }' \
			/tmp/insn-net.$s > /tmp/net-per.$s
	done
	for s in $gate_setups; do
		[ -f /tmp/insn-gate.$s ] && [ "$(wc -l < /tmp/insn-gate.$s)" -eq $rounds ] ||
			{ not_ok "$rounds rounds of gate set-up $s"; continue; }
		awk '{ print $1, $2 + $3, $2 }' /tmp/insn-gate.$s > /tmp/gate-per.$s
	done
	# inv BASE FILE N: per round, BASE's column N over FILE's (a
	# throughput ratio: above 1 is faster than BASE).
	inv() {
		awk -v c="$3" 'NR == FNR { base[$1] = $c; next }
			{ if ($c > 0) printf "%.4f\n", base[$1] / $c }' "$1" "$2"
	}
	{
		echo "network: instructions of both guests (kernel + user), per round trip and per MiB"
		printf '%-9s %9s %6s %13s %9s %10s %6s %13s %9s\n' setup insn/rr ratio q1-q3 kernel/rr \
			insn/MiB ratio q1-q3 kernel/MiB
		for s in $net_setups; do
			[ -f /tmp/net-per.$s ] || continue
			set -- $(bench_col /tmp/net-per.$s 2 | bench_stats) \
				$(inv /tmp/net-per.none /tmp/net-per.$s 2 | bench_stats) \
				$(bench_col /tmp/net-per.$s 4 | bench_stats) \
				$(bench_col /tmp/net-per.$s 3 | bench_stats) \
				$(inv /tmp/net-per.none /tmp/net-per.$s 3 | bench_stats) \
				$(bench_col /tmp/net-per.$s 5 | bench_stats)
			printf '%-9s %9.0f %6.4f %6.4f-%-6.4f %9.0f %10.0f %6.4f %6.4f-%-6.4f %9.0f\n' $s \
				$1 $4 $5 $6 $7 ${10} ${13} ${14} ${15} ${16}
		done
		echo
		echo "gate: instructions of dt-b (kernel + user) for dd bs=1 of $bytes bytes ($((2 * bytes)) syscalls)"
		printf '%-9s %12s %6s %13s %12s\n' setup insn ratio q1-q3 kernel
		for s in $gate_setups; do
			[ -f /tmp/gate-per.$s ] || continue
			set -- $(bench_col /tmp/gate-per.$s 2 | bench_stats) \
				$(bench_ratios /tmp/gate-per.none /tmp/gate-per.$s 2 | bench_stats) \
				$(bench_col /tmp/gate-per.$s 3 | bench_stats)
			printf '%-9s %12.0f %6.4f %6.4f-%-6.4f %12.0f\n' $s $1 $4 $5 $6 $7
		done
		echo
		echo "instruction counts from QEMU's dt-insn plugin (TCG, 1 vCPU per guest), $rounds rounds, each running"
		echo "every set-up once (rotating order); median and quartiles over the rounds; ratios per round to"
		echo "that round's 'none'. network ratio: none's instructions over the set-up's (as a throughput"
		echo "ratio: 1 is no cost); gate ratio: the set-up's over none's (a cost: 1 is no cost)."
		echo "network: dt-tcp rrn, $rrs round trips of one byte on one connection; iperf3 -n ${mib}M; setups as"
		echo "in bench/net.sh (none = not loaded, disarmed = probe 0, idle = probe 1 and nothing flagged,"
		echo "flagged = the client's thread flagged). gate: setups as in bench/gate.sh (stock = enable-event -k -a"
		echo "with gate off, thread = gate thread and nothing flagged, idle = one flagged thread asleep)."
		echo "targets: network >= 0.99 idle, >= 0.95 flagged; gate thread <= 1.05"
	} | tee "$DT_RESULTS/insn.txt"
	cp /tmp/insn-net.* /tmp/insn-gate.* /tmp/marks.* "$DT_RESULTS/" 2> /dev/null
	[ "${DT_BENCH_PROFILE:-0}" = 1 ] && cat /proc/kallsyms > "$DT_RESULTS/kallsyms"
	;;
esac
dt_finish
