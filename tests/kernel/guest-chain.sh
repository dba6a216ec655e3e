# Guest side of t-chain.sh (sourced after tests/vm/guest-lib.sh).
#
#   dt-a client            dt-b middle                dt-c server
#   bash, flagged  --7200-->  socat (fork)  --7201-->  dt-tcp serve -d DELAY
#   (/dev/tcp)     <--------                <--------
#   7298/7299: "ready" servers on dt-b/dt-c; 7297: "done" from dt-a.
#
# Then a request that is never answered: dt-a's flagged socat sends one
# byte to dt-c's dt-tcp serve -n 7202 (reads, never answers) and keeps
# the connection open (step 1), then closes it (step 2; steps on 7210).
# The server's thread is flagged by what it read; when its socket is
# destroyed it is unflagged (reason "closed"), though it lives on.
#
# Last, dt-a's flagged dt-tcp sends 5 requests on one connection to
# dt-c's dt-tcp serve -k 7203, which writes an HTTP/2 PING frame after
# each answer (as gRPC's server does): connection frames written after
# the answer keep nothing, so each request is a context of its own.
#
# Then 5 more on one connection to dt-c's dt-tcp serve -X 7204, which
# makes each request's call to a dt-tcp userve on a UNIX socket in two
# writes, reading untraced bytes between them (as nginx reads another
# upstream's answer between a gRPC call's HEADERS and DATA), and one
# unflagged request: the server reads each flagged call whole in its
# request, the unflagged one in none. And 5 more to dt-tcp serve -Y
# 7205: the same, the call's first write read by the server before the
# second is written. Last, two flagged requests at once to dt-tcp serve
# -L 7206, a loop that calls the same server for both on one UNIX
# connection: the first request's call written, the second request
# read, the first call's answer read (the loop is back in the first
# request, answered upstream), then the second call written: that call
# is the second request's (moved_unix_calls), not the answered one's.
# Each call is two writes: "call:", then the request's line.
#
# Last, dt-a's flagged socat writes an HTTP/2 client's first bytes, three
# streams' HEADERS frames among them, in one write to a socat on dt-c
# (7207), and keeps the connection open (step 3) while dt-c looks at the
# reader, then closes it (step 4); then an unflagged socat the same. The
# marked read opens three streams, which the mark does not tell apart:
# the reader is in the request with reason streams (a guess), and two
# are counted as taken with the traced one (h2_streams_guessed); the
# unmarked read, none. The server answers a stream the read did not
# open (7), then one it did (1): the first write is another request's
# answer (h2_other_answers), unmarked; the second, the traced one's.
#
# Then a flagged client that multiplexes (steps 5 to 7, 7208): dt-a's
# flagged socat opens stream 1; dt-c's server answers its HEADERS; the
# client opens stream 3, a request of its own; the server writes stream
# 1's DATA (the earlier request's answer: marked, h2_earlier_answers), a
# DATA of stream 9 (nobody's: unmarked, h2_other_answers), then stream
# 3's HEADERS (marked), then stream 1's last DATA (END_STREAM: marked,
# the earlier request's streams all ended, h2_earlier_ended), then one
# more DATA of stream 1, which no request of the connection holds any
# more: unmarked (h2_other_answers).
#
# DELAY, the server's time to answer, is 3 s scaled by slow: dt-b and
# dt-c look at the flagged thread twice while it serves, and on the
# debug kernel one look took longer than 3 s.
tcp=$DT_BUILDDIR/tests/tools/dt-tcp
pcap=$DT_BUILDDIR/tests/tools/dt-pcap
sys=/sys/distributed-tracer
a=$(dt_addr dt-a) b=$(dt_addr dt-b) c=$(dt_addr dt-c)
delay=$(slow 3)

# propagated LOCAL REMOTE_ADDR: the tid flagged from that socket, if any.
propagated() {
	awk -v l="$1" -v r="$2:" '$3 == "propagated" && $4 == l && index($5, r) == 1 { print $1 }' $sys/list_pid
}

# flagged_from LOCAL REMOTE_ADDR: some thread is flagged from that socket.
flagged_from() {
	[ -n "$(propagated "$1" "$2")" ]
}

# first_port SRC DST DPORT: the source port of the first data segment.
first_port() {
	awk -v s="$1" -v d="$2" -v dp="$3" '$1 == s && $3 == d && $4 == dp && $6 > 0 { print $2; exit }' /tmp/segs
}

# data SRC SPORT|* DST DPORT|*: "N M": data segments, how many marked.
data() {
	awk -v s="$1" -v sp="$2" -v d="$3" -v dp="$4" '
		$1 == s && (sp == "*" || $2 == sp) && $3 == d && (dp == "*" || $4 == dp) && $6 > 0 { n++; m += $7 }
		END { print n + 0, m + 0 }' /tmp/segs
}

all_marked() {
	set -- $(data "$@")
	[ "$1" -gt 0 ] && [ "$1" -eq "$2" ] || { echo "$2 of $1 data segments marked"; return 1; }
}

capture() {
	tcpdump -i eth0 -n -U -w /tmp/cap.pcap tcp 2> /tmp/tcpdump.err &
	tdpid=$!
	check "tcpdump is capturing" wait_for 30 grep -q listening /tmp/tcpdump.err
}

end_capture() {
	sleep 1
	tcpdump_stop $tdpid /tmp/tcpdump.err
	check "the capture reads back" sh -c "$pcap /tmp/cap.pcap > /tmp/segs"
	cp /tmp/segs "$DT_RESULTS/segs"
}

check "modprobe dtracer" modprobe dtracer
check "probe armed" sh -c "echo 1 > $sys/probe"
# dt-a, step 1: a flagged socat sends one byte to dt-c's server that
# never answers, and keeps the connection (its input, a fifo, stays open
# on fd 4 of this shell). Run by follow in this shell, not in a check's
# subshell, so that fd 4 outlives the step.
mute_open() {
	flagged socat -u OPEN:/tmp/mute.in TCP4:dt-c:7202 2> /tmp/mute.err &
	mute=$!
	exec 4> /tmp/mute.in
	printf x >&4
	check "a flagged client sent a byte to dt-c's server that never answers" \
		wait_for 30 sh -c "ss -Htn state established '( dport = :7202 )' | grep -q ."
}

# dt-a, step 2: end of input, socat closes the connection and exits.
mute_close() {
	exec 4>&-
	wait $mute && ok "... then closed the connection" ||
		not_ok "... then closed the connection (socat: $(cat /tmp/mute.err))"
}

# dt-a, step 3: a flagged socat writes an HTTP/2 client's first bytes,
# three streams' HEADERS among them, in one write (its input, a fifo,
# stays open on fd 5 of this shell, and the connection with it).
h2_open() {
	flagged socat -u OPEN:/tmp/h2.in TCP4:dt-c:7207,retry=300,interval=0.2 \
		2> /tmp/h2.err &
	h2s=$!
	exec 5> /tmp/h2.in
	cat /tmp/h2.bin >&5
	check "a flagged client wrote three HTTP/2 streams at once" \
		wait_for 30 sh -c "ss -Htn state established '( dport = :7207 )' | grep -q ."
}

# dt-a, step 4: end of input, socat closes the connection and exits.
h2_close() {
	exec 5>&-
	wait $h2s && ok "... then closed the connection" ||
		not_ok "... then closed the connection (socat: $(cat /tmp/h2.err))"
}

# dt-a, steps 5 to 7: a flagged socat opens HTTP/2 stream 1 on one
# connection (its input, a fifo, on fd 6 of this shell), then stream 3
# on the same connection, then closes it.
h2m_open() {
	flagged socat -u OPEN:/tmp/h2m.in TCP4:dt-c:7208,retry=300,interval=0.2 \
		2> /tmp/h2m.err &
	h2m=$!
	exec 6> /tmp/h2m.in
	cat /tmp/h2m-1.bin >&6
	check "a flagged client opened HTTP/2 stream 1" \
		wait_for 30 sh -c "ss -Htn state established '( dport = :7208 )' | grep -q ."
}

h2m_second() {
	cat /tmp/h2m-3.bin >&6
}

h2m_close() {
	exec 6>&-
	wait $h2m && ok "... then stream 3 on the same connection, then closed it" ||
		not_ok "... then stream 3 on the same connection, then closed it (socat: $(cat /tmp/h2m.err))"
}

capture

case $DT_HOST in
dt-a)
	check "dt-c is up" $tcp request -w $(slow 240) dt-c 7299 ping
	check "dt-b is up" $tcp request -w $(slow 240) dt-b 7298 ping
	# The client: bash itself, flagged, talking through /dev/tcp.
	answer_wait=$(slow 60) bash -c '
		echo $$ > /sys/distributed-tracer/add_pid || exit 1
		exec 3<>/dev/tcp/dt-b/7200 || exit 1
		printf hello >&3
		read -r -t $answer_wait -N 10 answer <&3
		echo "$answer" > /tmp/answer
		grep "^$$ " /sys/distributed-tracer/list_pid > /tmp/still
		exec 3>&-' > /tmp/client.err 2>&1
	check "the client got the server's answer through the middle" grep -qx echo:hello /tmp/answer
	check "the client is still flagged after the answer (manual)" \
		grep -q '^[0-9]* [0-9]* manual$' /tmp/still
	check "an unflagged request through the same chain" $tcp request dt-b 7200 plain
	check "told dt-b we are done" $tcp request -w $(slow 240) dt-b 7297 done
	check "told dt-c we are done" $tcp request -w $(slow 240) dt-c 7297 done
	mkfifo /tmp/mute.in
	follow 1 7210 dt-c mute_open
	follow 2 7210 dt-c mute_close
	check "5 flagged requests on one connection, a PING frame after each answer" \
		flagged $tcp request -w $(slow 240) -k dt-c 7203 keep 5
	check "5 flagged requests on one connection, each relayed over UNIX in two writes" \
		flagged $tcp request -w $(slow 240) dt-c 7204 split 5
	check "an unflagged request through the same relay" \
		$tcp request -w $(slow 240) dt-c 7204 plain
	check "5 flagged requests, each call's first write read before the second is written" \
		flagged $tcp request -w $(slow 240) dt-c 7205 read 5
	flagged $tcp request -w $(slow 240) dt-c 7206 one > /tmp/pair1.out 2>&1 &
	pair1=$!
	flagged $tcp request -w $(slow 240) dt-c 7206 two > /tmp/pair2.out 2>&1
	pair2=$?
	wait $pair1
	check "two flagged requests at once to a loop that calls over one UNIX connection" \
		test $? = 0 -a $pair2 = 0
	# The client preface, an empty SETTINGS, HEADERS on streams 1, 3
	# and 5 (a byte of HPACK each: GET).
	{
		printf 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\4\0\0\0\0\0'
		for s in 1 3 5; do
			printf '\0\0\1\1\4\0\0\0\'"$s"'\202'
		done
	} > /tmp/h2.bin
	mkfifo /tmp/h2.in
	follow 3 7210 dt-c h2_open
	follow 4 7210 dt-c h2_close
	check "... an unflagged one the same" \
		socat -u OPEN:/tmp/h2.bin TCP4:dt-c:7207,retry=300,interval=0.2
	{
		printf 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\4\0\0\0\0\0'
		printf '\0\0\1\1\4\0\0\0\1\202'
	} > /tmp/h2m-1.bin
	printf '\0\0\1\1\4\0\0\0\3\202' > /tmp/h2m-3.bin
	mkfifo /tmp/h2m.in
	follow 5 7210 dt-c h2m_open
	follow 6 7210 dt-c h2m_second
	follow 7 7210 dt-c h2m_close
	end_capture
	p=$(first_port "$a" "$b" 7200)
	check "the client's request left marked" all_marked "$a" "$p" "$b" 7200
	check "the middle's answer came back marked" all_marked "$b" 7200 "$a" "$p"
	;;
dt-b)
	socat TCP4-LISTEN:7200,fork,reuseaddr TCP4:dt-c:7201 2> /tmp/socat.err &
	socat=$!
	check "socat listens on 7200" wait_for 30 sh -c "ss -Hltn | grep -q ':7200 '"
	$tcp serve -4 7298 0 > /dev/null 2>&1 &
	ready=$!
	check "socat's child is flagged while it serves (propagated, client socket)" \
		wait_for $(slow 120) flagged_from "$b:7200" "$a"
	tid=$(propagated "$b:7200" "$a")
	diag "list_pid: $(cat $sys/list_pid)"
	check "... and it is a socat process" grep -qx socat /proc/$tid/comm
	check "the middle is unflagged once it has answered" \
		wait_for $((60 + delay)) sh -c "! grep -q '^$tid ' $sys/list_pid"
	check "dt-a says it is done" timeout $(slow 300) $tcp serve -4 7297 1
	check "the unflagged request flagged nobody: list_pid empty" test -z "$(cat $sys/list_pid)"
	diag "$(cat $sys/stats)"
	check "stats: 1 propagation, 1 response" \
		sh -c "[ $(stat_of propagations) = 1 ] && [ $(stat_of responses) = 1 ]"
	kill $socat $ready
	end_capture
	p=$(first_port "$b" "$c" 7201)
	check "the middle's request to the server left marked" all_marked "$b" "$p" "$c" 7201
	;;
dt-c)
	$tcp serve -4 -d $((delay * 1000)) 7201 2 > /tmp/serve.log 2>&1 &
	srv=$!
	$tcp serve -4 7299 0 > /dev/null 2>&1 &
	ready=$!
	check "the server is flagged while it serves (propagated, socket from the middle)" \
		wait_for $(slow 120) flagged_from "$c:7201" "$b"
	check "... and it is the server's thread" test "$(propagated "$c:7201" "$b")" = "$srv"
	diag "list_pid: $(cat $sys/list_pid)"
	check "the server is unflagged once it has answered" \
		wait_for $((60 + delay)) sh -c "! grep -q '^$srv ' $sys/list_pid"
	check "dt-a says it is done" timeout $(slow 300) $tcp serve -4 7297 1
	check "the unflagged request flagged nobody: list_pid empty" test -z "$(cat $sys/list_pid)"
	diag "$(cat $sys/stats)"
	check "stats: 1 propagation, 1 response" \
		sh -c "[ $(stat_of propagations) = 1 ] && [ $(stat_of responses) = 1 ]"
	wait $srv
	kill $ready
	$tcp serve -4 -n 7202 2 > /tmp/mute.log 2>&1 &
	mute=$!
	r0=$(stat_of responses) u0=$(stat_of unflags)
	lead 1 7210
	check "a server that never answers is flagged by the request it read" \
		wait_for $(slow 120) flagged_from "$c:7202" "$a"
	check "... and it is the server's thread" test "$(propagated "$c:7202" "$a")" = "$mute"
	lead 2 7210
	check "the client closed, the server closed its end: unflagged with the socket" \
		wait_for 60 sh -c "! grep -q '^$mute ' $sys/list_pid"
	check "... while the thread lives on (waiting for a next connection)" kill -0 $mute
	check "... and not as an answer: no response counted, one unflag" \
		sh -c "[ $(stat_of responses) = $r0 ] && [ $(stat_of unflags) = $((u0 + 1)) ]"
	kill $mute
	p0=$(stat_of propagations) i0=$(stat_of interim_answers)
	check "dt-a's 5 requests on one connection served" \
		timeout $(slow 300) $tcp serve -4 -k 7203 1
	p=$(($(stat_of propagations) - p0)) i=$(($(stat_of interim_answers) - i0))
	check "a PING written after each answer is an interim answer ($i, at least 4)" \
		test "$i" -ge 4
	check "... and keeps nothing: 5 requests, $p contexts" test "$p" = 5
	$tcp userve -d 300 /tmp/split.sock /tmp/split.log 4 2> /tmp/userve.err &
	userve=$!
	check "dt-tcp userve listens on /tmp/split.sock" wait_for 30 test -S /tmp/split.sock
	h0=$(stat_of unix_hops) q0=$(stat_of split_unix_calls) m0=$(stat_of moved_unix_calls)
	check "dt-a's requests relayed over UNIX, each call in two writes" \
		timeout $(slow 300) $tcp serve -4 -X /tmp/split.sock 7204 2
	check "... and over UNIX, each call's first write read before the second" \
		timeout $(slow 300) $tcp serve -4 -Y /tmp/split.sock 7205 1
	check "... and the loop's pair, both calls over one UNIX connection" \
		timeout $(slow 300) $tcp serve -4 -L /tmp/split.sock 7206 1
	# Each call was answered, so logged, before its relay returned; a
	# relay that failed before connecting leaves userve waiting.
	kill $userve 2> /dev/null
	wait $userve
	diag "$(cat /tmp/split.log /tmp/userve.err)"
	h=$(($(stat_of unix_hops) - h0)) q=$(($(stat_of split_unix_calls) - q0))
	n=$(grep -c '^traced call:split |' /tmp/split.log)
	check "the UNIX server read each flagged call in its request ($n of 5)" test "$n" = 5
	check "... and the unflagged one in none" grep -q '^untraced call:plain |' /tmp/split.log
	n=$(grep -c '^traced call:read |' /tmp/split.log)
	check "... and each one whose first write it read before the second came ($n of 5)" test "$n" = 5
	check "... a call's second write was more of it (split_unix_calls $q)" test "$q" = 10
	m=$(($(stat_of moved_unix_calls) - m0))
	n=$(grep -c '^traced call:\(one\|two\) | local ' /tmp/split.log)
	r=$(sed -n 's/^traced call:\(one\|two\) | //p' /tmp/split.log | sort -u | wc -l)
	check "the loop's two calls were read each in a request ($n of 2), two requests ($r)" \
		test "$n" = 2 -a "$r" = 2
	# Each call is two writes ("call:", then the line): the second
	# call's first goes to the oldest request no call took, its second
	# to the call the loop began on that connection.
	check "... the second call's two writes, made back in the first, answered, request, moved to the second (moved_unix_calls $m)" \
		test "$m" = 2
	check "a context came over the UNIX socket for each call (unix_hops $h)" test "$h" = 12
	g0=$(stat_of h2_streams_guessed) o0=$(stat_of h2_other_answers)
	# The server answers once told (/tmp/h2.go): a DATA frame of a
	# stream the traced read did not open (7, 11 bytes), then HEADERS of
	# one it did (1, 10 bytes), in two writes.
	printf '\0\0\2\0\1\0\0\0\7hi' > /tmp/h2-other.bin
	printf '\0\0\1\1\4\0\0\0\1\210' > /tmp/h2-mine.bin
	rm -f /tmp/h2.go /tmp/h2.done
	cat > /tmp/h2-serve.sh <<-'EOF'
	exec 3<&0
	cat <&3 > /tmp/h2.out &
	while ! test -e /tmp/h2.go; do sleep 0.1; done
	cat /tmp/h2-other.bin
	sleep 0.5
	cat /tmp/h2-mine.bin
	touch /tmp/h2.done
	wait
	EOF
	timeout $(slow 600) socat TCP4-LISTEN:7207,reuseaddr SYSTEM:'sh /tmp/h2-serve.sh' &
	h2r=$!
	lead 3 7210
	check "the reader of dt-a's flagged HTTP/2 streams is in the request, labelled a guess (streams)" \
		wait_for $(slow 60) sh -c "awk '\$3 == \"streams\" && \$4 == \"$c:7207\"' $sys/list_pid | grep -q ."
	tid=$(awk -v l="$c:7207" '$3 == "streams" && $4 == l { print $1 }' $sys/list_pid)
	check "... and it is socat's thread ($tid)" grep -qx socat "/proc/$tid/comm"
	touch /tmp/h2.go
	check "the server answered another stream, then the traced one" \
		wait_for $(slow 30) test -e /tmp/h2.done
	# socat has written what it read from its child by then.
	sleep 1
	o=$(($(stat_of h2_other_answers) - o0))
	check "... the other stream's answer was not the traced request's (h2_other_answers $o)" \
		test "$o" = 1
	lead 4 7210
	wait $h2r
	check "dt-a's flagged HTTP/2 streams read" test $? = 0
	g=$(($(stat_of h2_streams_guessed) - g0))
	check "... 3 streams in one marked read: 2 taken with the traced one (h2_streams_guessed $g)" \
		test "$g" = 2 -a "$(wc -c < /tmp/h2.out)" = 63
	g0=$(stat_of h2_streams_guessed)
	check "dt-a's unflagged HTTP/2 streams read" \
		timeout $(slow 120) socat -u TCP4-LISTEN:7207,reuseaddr CREATE:/tmp/h2.out
	g=$(($(stat_of h2_streams_guessed) - g0))
	check "... unmarked: none taken (h2_streams_guessed $g)" \
		test "$g" = 0 -a "$(wc -c < /tmp/h2.out)" = 63
	# A flagged client that multiplexes (7208): the server answers
	# once told, in writes of 10 (HEADERS, stream 1), 14 (DATA, 1), 12
	# (DATA, 9), 11 (HEADERS, 3), 13 (DATA, 1, END_STREAM) and 15 bytes
	# (DATA, 1).
	printf '\0\0\1\1\4\0\0\0\1\210' > /tmp/h2m-a1.bin
	printf '\0\0\5\0\0\0\0\0\1hello' > /tmp/h2m-a2.bin
	printf '\0\0\3\0\1\0\0\0\11abc' > /tmp/h2m-a3.bin
	printf '\0\0\2\1\5\0\0\0\3\210\210' > /tmp/h2m-a4.bin
	printf '\0\0\4\0\1\0\0\0\1done' > /tmp/h2m-a5.bin
	printf '\0\0\6\0\0\0\0\0\1after!' > /tmp/h2m-a6.bin
	cat > /tmp/h2m-serve.sh <<-'EOF'
	exec 3<&0
	cat <&3 > /tmp/h2m.out &
	while ! test -e /tmp/h2m.go1; do sleep 0.1; done
	cat /tmp/h2m-a1.bin
	touch /tmp/h2m.done1
	while ! test -e /tmp/h2m.go2; do sleep 0.1; done
	cat /tmp/h2m-a2.bin
	sleep 0.5
	cat /tmp/h2m-a3.bin
	sleep 0.5
	cat /tmp/h2m-a4.bin
	sleep 0.5
	cat /tmp/h2m-a5.bin
	sleep 0.5
	cat /tmp/h2m-a6.bin
	touch /tmp/h2m.done2
	wait
	EOF
	timeout $(slow 600) socat TCP4-LISTEN:7208,reuseaddr SYSTEM:'sh /tmp/h2m-serve.sh' &
	h2r=$!
	e0=$(stat_of h2_earlier_answers) o0=$(stat_of h2_other_answers)
	d0=$(stat_of h2_earlier_ended)
	lead 5 7210
	check "the reader of dt-a's flagged stream 1 is in its request" \
		wait_for $(slow 60) sh -c "awk '\$3 == \"propagated\" && \$4 == \"$c:7208\"' $sys/list_pid | grep -q ."
	touch /tmp/h2m.go1
	check "the server answered stream 1's HEADERS" \
		wait_for $(slow 30) test -e /tmp/h2m.done1
	sleep 1
	p0=$(stat_of propagations)
	lead 6 7210
	check "dt-a's flagged stream 3, on the same connection, read as a request of its own" \
		wait_for $(slow 60) sh -c "[ \$(awk '\$1 == \"propagations\" { print \$2 }' $sys/stats) -gt $p0 ]"
	touch /tmp/h2m.go2
	check "the server answered stream 1's DATA, stream 9's, stream 3's HEADERS, then stream 1's last DATA and one after it" \
		wait_for $(slow 30) test -e /tmp/h2m.done2
	sleep 1
	e=$(($(stat_of h2_earlier_answers) - e0)) o=$(($(stat_of h2_other_answers) - o0))
	d=$(($(stat_of h2_earlier_ended) - d0))
	check "... stream 1's DATA answered the earlier request twice (h2_earlier_answers $e), stream 9's and the one after stream 1 ended nobody's (h2_other_answers $o), the earlier request let go at its stream's end (h2_earlier_ended $d)" \
		test "$e" = 2 -a "$o" = 2 -a "$d" = 1
	lead 7 7210
	wait $h2r
	check "dt-a's flagged streams 1 and 3 read" \
		test $? = 0 -a "$(wc -c < /tmp/h2m.out)" = 53
	end_capture
	set -- $(awk -v c="$c" '
		$1 == c && $2 == 7208 && $6 > 0 { n[$6]++; m[$6] += $7 && $11; u[$6] += $7 }
		END { print n[10] + 0, m[10] + 0, n[14] + 0, m[14] + 0,
			n[12] + 0, u[12] + 0, n[11] + 0, m[11] + 0,
			n[13] + 0, m[13] + 0, n[15] + 0, u[15] + 0 }' /tmp/segs)
	check "on the wire: stream 1's HEADERS ($2 of $1) and DATA ($4 of $3) with both marks, stream 9's unmarked ($6 of $5 marked), stream 3's with both ($8 of $7), stream 1's last DATA with both (${10} of $9), the DATA after it unmarked (${12} of ${11} marked)" \
		test "$*" = "1 1 1 1 1 0 1 1 1 1 1 0"
	set -- $(awk -v c="$c" '
		$1 == c && $2 == 7207 && $6 == 11 { n++; m += $7 }
		$1 == c && $2 == 7207 && $6 == 10 { k++; r += $7 && $11 }
		END { print n + 0, m + 0, k + 0, r + 0 }' /tmp/segs)
	check "on the wire: the other stream's answer left unmarked ($2 of $1 marked), the traced stream's with both marks ($4 of $3)" \
		test "$1" = 1 -a "$2" = 0 -a "$3" = 1 -a "$4" = 1
	first=$(first_port "$b" "$c" 7201)
	check "the flagged request arrived marked" all_marked "$b" "$first" "$c" 7201
	check "the server's answer left marked" all_marked "$c" 7201 "$b" "$first"
	set -- $(awk -v c="$c" -v f="$first" '$3 == c && $4 == 7201 && $2 != f && $6 > 0 { n++; m += $7 } END { print n + 0, m + 0 }' /tmp/segs)
	[ "$1" -gt 0 ] && [ "$2" -eq 0 ] && ok "the unflagged request arrived unmarked ($1 segments)" ||
		not_ok "the unflagged request arrived unmarked ($2 of $1 segments marked)"
	;;
esac
check "rmmod dtracer" rmmod dtracer
dt_finish
