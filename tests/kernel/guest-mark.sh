# Guest side of t-mark.sh (sourced after tests/vm/guest-lib.sh).
#
#   dt-a: no dtracer; tcpdump on eth0 (GRO off: the wire's segments);
#         dt-tcp servers on ports 7100-7110; analysis once dt-b says done
#   dt-b: dtracer armed; clients, flagged or not, one port per case
#
#   7100 flagged echo   7101 unflagged echo (same time)   7102 duo: two
#   threads on one socket, one flagged, 12 writes each back to back (at
#   most 12 marked ranges unacknowledged: within a socket's 16)   7103 flagged 1 MiB (TSO)
#   7104 unflagged 1 MiB (same time)   7105 flagged 256 KiB, 10% loss
#   7106 flagged echo, probe 0   7107/7108 IPv6 flagged/unflagged echo
#   7109 flagged 1 MiB, TSO off (software GSO)   7110 flagged echo, TX
#   checksum offload off   7111 two flagged clients, max_sockets 1 on
#   dt-b: the first (socat) keeps its connection open until the second
#   one's socket has been refused (counted drop), whatever the timing
#   (the server takes one connection at a time: the second is answered
#   once the first has closed)   7112 flagged echo signed with TCP-MD5
#   (RFC 2385): answered, nothing marked (marks_signed)
#   7199 "done"
tcp=$DT_BUILDDIR/tests/tools/dt-tcp
pcap=$DT_BUILDDIR/tests/tools/dt-pcap
sys=/sys/distributed-tracer

# count PORT: "N M": data segments sent to PORT, and how many are marked.
count() {
	awk -v p="$1" '$4 == p && $6 > 0 { n++; m += $7 } END { print n + 0, m + 0 }' /tmp/segs
}

all_marked() {
	set -- $(count "$1")
	[ "$1" -gt 0 ] && [ "$1" -eq "$2" ] || { echo "$2 of $1 data segments marked"; return 1; }
}

none_marked() {
	set -- $(count "$1")
	[ "$1" -gt 0 ] && [ "$2" -eq 0 ] || { echo "$2 of $1 data segments marked"; return 1; }
}

# retransmitted PORT: "R M": data segments to PORT that resend bytes seen
# before on their connection, and how many of them are marked.
retransmitted() {
	awk -v p="$1" '$4 == p && $6 > 0 {
		c = $1 " " $2
		if (!(c in isn)) isn[c] = $5
		rel = ($5 - isn[c] + 4294967296) % 4294967296
		if (rel < top[c]) { r++; m += $7 }
		if (rel + $6 > top[c]) top[c] = rel + $6
	} END { print r + 0, m + 0 }' /tmp/segs
}

# requests PORT: "N M": data segments sent to PORT that carry bytes not
# seen before on their connection (a retransmission of a request, which
# a loaded machine's timers can cause, is not a request of its own), and
# how many of them are marked.
requests() {
	awk -v p="$1" '$4 == p && $6 > 0 {
		c = $1 " " $2
		if (!(c in isn)) isn[c] = $5
		rel = ($5 - isn[c] + 4294967296) % 4294967296
		if (rel + $6 > top[c]) { n++; m += $7; top[c] = rel + $6 }
	} END { print n + 0, m + 0 }' /tmp/segs
}

nstat_of() {
	nstat -az "$1" | awk -v k="$1" '$1 == k { print $2 }'
}

case $DT_HOST in
dt-a)
	check "GRO off on eth0 (capture the wire's segments)" ethtool -K eth0 gro off
	tcpdump -i eth0 -n -U -w /tmp/cap.pcap tcp 2> /tmp/tcpdump.err &
	tdpid=$!
	check "tcpdump is capturing" wait_for 30 grep -q listening /tmp/tcpdump.err
	for p in 7100 7101 7102 7106 7110; do
		$tcp serve -4 $p 0 > /tmp/serve-$p.log 2>&1 &
	done
	for p in 7103 7104 7105 7109; do
		$tcp serve -4 -s $p 0 > /tmp/serve-$p.log 2>&1 &
	done
	$tcp serve -4 7111 0 > /tmp/serve-7111.log 2>&1 &
	$tcp serve -4 -m dtracer-md5 7112 0 > /tmp/serve-7112.log 2>&1 &
	for p in 7107 7108; do
		$tcp serve -6 $p 0 > /tmp/serve-$p.log 2>&1 &
	done
	check "dt-b says it is done" timeout $(slow 500) $tcp serve -4 7199 1
	sleep 1
	tcpdump_stop $tdpid /tmp/tcpdump.err
	check "the capture reads back" sh -c "$pcap /tmp/cap.pcap > /tmp/segs"
	cp /tmp/segs "$DT_RESULTS/segs"
	diag "$(wc -l < /tmp/segs) TCP segments captured"

	check "flagged client: every data segment marked" all_marked 7100
	check "unflagged client at the same time: none marked" none_marked 7101
	f=$(awk '$4 == 7102 && $6 > 0 && $9 == "F" && $10 == "F"' /tmp/segs | wc -l)
	fm=$(awk '$4 == 7102 && $6 > 0 && $9 == "F" && $10 == "F" && $7 == 1' /tmp/segs | wc -l)
	u=$(awk '$4 == 7102 && $6 > 0 && $9 == "U" && $10 == "U"' /tmp/segs | wc -l)
	um=$(awk '$4 == 7102 && $6 > 0 && $9 == "U" && $10 == "U" && $7 == 1' /tmp/segs | wc -l)
	mixed=$(awk '$4 == 7102 && $6 > 0 && $9 != $10' /tmp/segs | wc -l)
	[ "$f" -gt 0 ] && [ "$fm" -eq "$f" ] &&
		ok "one socket, flagged thread's bytes: all $f segments marked" ||
		not_ok "one socket, flagged thread's bytes: $fm of $f segments marked"
	[ "$u" -gt 0 ] && [ "$um" -eq 0 ] &&
		ok "one socket, unflagged thread's bytes: none of $u segments marked" ||
		not_ok "one socket, unflagged thread's bytes: $um of $u segments marked"
	[ "$mixed" -eq 0 ] && ok "no segment mixes the two threads' bytes" ||
		not_ok "no segment mixes the two threads' bytes ($mixed do)"
	check "flagged 1 MiB write: every segment marked" all_marked 7103
	check "unflagged 1 MiB write at the same time: none marked" none_marked 7104
	set -- $(count 7109)
	[ "$1" -ge 700 ] && ok "TSO off: the 1 MiB write left as $1 segments (software GSO)" ||
		not_ok "TSO off: the 1 MiB write left as $1 segments, expected at least 700"
	check "... every one of them marked" all_marked 7109
	# A resend that fills a hole arrives after later bytes: told apart
	# here. One that replaces a lost last segment arrives as if new (a
	# fresh clone's run had dt-b resend one segment, none told apart):
	# then every segment of the write, the next check, covers it, and
	# dt-b's own count says it resent something.
	set -- $(retransmitted 7105)
	[ "$1" -eq "$2" ] &&
		ok "under 10% loss: all $1 retransmitted segments told apart here marked" ||
		not_ok "under 10% loss: $2 of $1 retransmitted segments marked"
	check "... and every segment of that write marked" all_marked 7105
	check "probe 0: a flagged client's segments are not marked" none_marked 7106
	check "TX checksum offload off: every segment marked" all_marked 7110
	check "no TCP checksum errors on dt-a" test "$(nstat_of TcpInCsumErrors)" = 0
	check "TCP-MD5: a flagged client's signed segments left unmarked" none_marked 7112
	check "IPv6, flagged client: every data segment marked" all_marked 7107
	check "IPv6, unflagged client: none marked" none_marked 7108
	set -- $(requests 7111)
	[ "$1" -eq 2 ] && [ "$2" -eq 1 ] &&
		ok "max_sockets 1: of two flagged clients' requests, only the followed one is marked" ||
		not_ok "max_sockets 1: $2 of $1 requests marked, expected 1 of 2"
	n=$(awk '$8 == 1' /tmp/segs | wc -l)
	[ "$n" -eq 0 ] && ok "the AE/NS bit is never set" || not_ok "the AE/NS bit is set on $n segments"
	n=$(awk -v a="$DT_ADDR" -v b="$DT_ADDR6" '($1 == a || $1 == b) && $7 == 1' /tmp/segs | wc -l)
	[ "$n" -eq 0 ] && ok "dt-a (no dtracer) sent nothing marked" ||
		not_ok "dt-a (no dtracer) sent $n marked segments"
	;;
dt-b)
	check "modprobe dtracer" modprobe dtracer
	check "probe armed" sh -c "echo 1 > $sys/probe"
	check "dt-a is reachable" $tcp request -w $(slow 240) dt-a 7101 ping

	flagged $tcp request dt-a 7100 hello 20 > /tmp/f.out 2>&1 &
	f=$!
	$tcp request dt-a 7101 world 20 > /tmp/u.out 2>&1 &
	u=$!
	wait $f && ok "flagged client got its 20 answers" || not_ok "flagged client got its 20 answers"
	wait $u && ok "unflagged client got its 20 answers" || not_ok "unflagged client got its 20 answers"
	n=$(stat_of marks_sent)
	[ "$n" -ge 20 ] && ok "stats: marks_sent counts them ($n)" || not_ok "stats: marks_sent is $n, expected at least 20"

	mkfifo /tmp/duo.in
	$tcp duo dt-a 7102 12 1000 < /tmp/duo.in > /tmp/duo.tid 2> /tmp/duo.err &
	duo=$!
	exec 3> /tmp/duo.in
	check "duo: its second thread is up" wait_for 20 test -s /tmp/duo.tid
	tid=$(cat /tmp/duo.tid)
	check "flag the duo's second thread only" sh -c "echo $tid > $sys/add_pid"
	check "list_pid: that thread, of the duo's process" grep -qx "$tid $duo manual" $sys/list_pid
	echo go >&3
	exec 3>&-
	wait $duo && ok "duo: both threads wrote and got their echo" ||
		not_ok "duo: both threads wrote and got their echo ($(cat /tmp/duo.err))"

	flagged $tcp send dt-a 7103 1048576 > /tmp/big-f.out 2>&1 &
	f=$!
	$tcp send dt-a 7104 1048576 > /tmp/big-u.out 2>&1 &
	u=$!
	wait $f && ok "flagged 1 MiB write delivered" || not_ok "flagged 1 MiB write delivered"
	wait $u && ok "unflagged 1 MiB write delivered" || not_ok "unflagged 1 MiB write delivered"

	check "TSO off" ethtool -K eth0 tso off
	check "flagged 1 MiB write, software GSO, delivered" flagged $tcp send dt-a 7109 1048576
	check "TSO back on" ethtool -K eth0 tso on

	# Segments, not 64 KiB TSO packets, go through netem: with a few big
	# packets a run could see no loss at all.
	check "TSO and GSO off" ethtool -K eth0 tso off gso off
	# Some runs saw netem drop nothing at all: up to 3 tries, each a new
	# connection, until something is retransmitted.
	before=$(nstat_of TcpRetransSegs)
	after=$before try=0
	while [ "$after" -eq "$before" ] && [ $try -lt 3 ]; do
		try=$((try + 1))
		check "10% loss on dt-b's eth0 (try $try)" tc qdisc add dev eth0 root netem loss 10%
		check "flagged 256 KiB write delivered under loss" flagged $tcp send dt-a 7105 262144
		diag "$(tc -s qdisc show dev eth0 | head -n 3)"
		check "loss removed" tc qdisc del dev eth0 root
		after=$(nstat_of TcpRetransSegs)
	done
	check "TSO and GSO back on" ethtool -K eth0 tso on gso on
	[ "$after" -gt "$before" ] && ok "dt-b retransmitted ($((after - before)) segments)" ||
		not_ok "dt-b retransmitted nothing in $try tries (TcpRetransSegs $before -> $after)"

	check "probe 0" sh -c "echo 0 > $sys/probe"
	check "flagged client, probe 0, got its answers" flagged $tcp request dt-a 7106 quiet 5
	check "probe 1 again" sh -c "echo 1 > $sys/probe"

	check "TX checksum offload off" ethtool -K eth0 tx off
	check "flagged client, software checksums, got its answers" flagged $tcp request dt-a 7110 sum 5
	check "TX checksum offload back on" ethtool -K eth0 tx on tso on

	flagged $tcp request dt-a-6 7107 hello6 10 > /tmp/f6.out 2>&1 &
	f=$!
	$tcp request dt-a-6 7108 world6 10 > /tmp/u6.out 2>&1 &
	u=$!
	wait $f && ok "IPv6 flagged client got its answers" || not_ok "IPv6 flagged client got its answers ($(cat /tmp/f6.out))"
	wait $u && ok "IPv6 unflagged client got its answers" || not_ok "IPv6 unflagged client got its answers"

	# A mark set after the signature would make dt-a drop every segment:
	# without the rule, the request hangs.
	m0=$(stat_of marks_signed)
	check "a flagged client's TCP-MD5-signed requests are answered" \
		timeout $(slow 60) sh -c "echo \$\$ > $sys/add_pid && exec $tcp request -m dtracer-md5 dt-a 7112 signed 3"
	check "... their segments counted in marks_signed" \
		test $(($(stat_of marks_signed) - m0)) -ge 3

	check "no socket followed any more" wait_for 30 sh -c "[ \$(awk '\$1 == \"sockets\" { print \$2 }' $sys/stats) = 0 ]"
	check "max_sockets 1" sh -c "echo 1 > $sys/max_sockets"
	d0=$(stat_of drops_sockets)
	dropped() {
		[ "$(stat_of drops_sockets)" -gt "$d0" ]
	}
	mkfifo /tmp/m1.in
	flagged socat - TCP4:dt-a:7111 < /tmp/m1.in > /tmp/m1.out 2>&1 &
	m1=$!
	exec 4> /tmp/m1.in
	echo first >&4
	check "the first client's socket is followed" wait_for 60 sh -c "[ \$(awk '\$1 == \"sockets\" { print \$2 }' $sys/stats) = 1 ]"
	check "the first client got its answer" wait_for 60 grep -q "echo:first" /tmp/m1.out
	# Its connection still open: the second flagged client's socket
	# cannot be followed. (exec 4>&-: the first's stdin must end when
	# this shell closes it; a "4>&-" on the command would leave dash's
	# saved copy of fd 4 open in it.)
	(exec 4>&-; flagged $tcp request dt-a 7111 second) > /tmp/m2.out 2>&1 &
	m2=$!
	check "stats: a second flagged client's socket is refused and counted" \
		wait_for $(slow 120) dropped
	exec 4>&-
	wait $m1 && ok "the first client closed" || not_ok "the first client closed"
	wait $m2 && ok "the second client got its answer" ||
		not_ok "the second client got its answer: $(cat /tmp/m2.out)"
	check "max_sockets back to 4096" sh -c "echo 4096 > $sys/max_sockets"

	diag "$(cat $sys/stats)"
	n=$(stat_of drops_unwritable)
	[ "$n" -eq 0 ] && ok "stats: no segment left unmarked for lack of a writable header" ||
		not_ok "stats: drops_unwritable is $n"
	n=$(stat_of drops_ranges)
	[ "$n" -eq 0 ] && ok "stats: no marked range dropped" || not_ok "stats: drops_ranges is $n"
	check "told dt-a we are done" $tcp request dt-a 7199 done
	check "rmmod dtracer" rmmod dtracer
	;;
esac
dt_finish
