# Guest side of t-control.sh (sourced after tests/vm/guest-lib.sh).
sys=/sys/distributed-tracer

# list_is LINE...: list_pid holds exactly these lines, in any order.
list_is() {
	want=$(for l in "$@"; do echo "$l"; done | sort)
	got=$(sort $sys/list_pid)
	[ "$got" = "$want" ] || { echo "list_pid: '$got', expected '$want'"; return 1; }
}

ends_with_newline() {
	[ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] ||
		{ echo "$1 does not end with a newline"; return 1; }
}

as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		sh -c ". '$DT_SRCDIR/tests/vm/guest-lib.sh'; $*"
}

# The defaults, without the test LAN's trust option.
rm -f "$DT_TRUST_CONF"
check "modprobe dtracer" modprobe dtracer
for f in add_pid:200 remove_pid:200 list_pid:444 stats:444 inherit:644 \
	max_threads:644 max_sockets:644 gate:644 trust:644 trust_netns:644 \
	max_propagations:644 probe:644 trace:444 go:644 python:644; do
	check "${f%:*} has mode ${f#*:}, owned by root" \
		test "$(stat -c '%a %U' $sys/${f%:*})" = "${f#*:} root"
done
n=$(ls $sys | wc -l)
check "no other file in $sys ($n files)" test "$n" = 15
check "trust: loopback only by default" reads_exactly $sys/trust "127.0.0.0/8 ::1/128"
check "max_propagations: 1000 by default" reads_exactly $sys/max_propagations 1000
check "list_pid is empty after load" list_is
check "stats: no thread, no socket" sh -c "[ $(stat_of threads) = 0 ] && [ $(stat_of sockets) = 0 ]"
check "inherit is 1 by default" reads_exactly $sys/inherit 1

sleep 600 & s1=$!
sleep 600 & s2=$!
sleep 600 & s3=$!

for bad in '\n' ' ' '\t\n' abc -1 +5 0 00 12a 1,2 0x10 1.5 \
	99999999999999999999 2147483648 "$s1 x" "$s1 -1" "$s1 0" "$s1\\0" \
	"$s1\\r\\n" "$s1;$s2" "$s1\\n\\n$s2 abc"; do
	check "add_pid refuses '$bad' with EINVAL" write_expect $sys/add_pid "$bad" "Invalid argument"
done
check "... and nothing was flagged" list_is
check "... trace still reads 0" reads_exactly $sys/trace 0
for bad in 999999 4194304 2147483647 "$s1 999999" "$s1 $s2 3999999"; do
	check "add_pid refuses '$bad' with ESRCH" write_expect $sys/add_pid "$bad" "No such process"
done
check "... and nothing was flagged" list_is
check "... trace still reads 0" reads_exactly $sys/trace 0

check "add_pid $s1" sh -c "echo $s1 > $sys/add_pid"
check "list_pid: '$s1 $s1 manual'" list_is "$s1 $s1 manual"
check "trace reads 1 at once" reads_exactly $sys/trace 1
check "stats: 1 thread" test "$(stat_of threads)" = 1
check "add_pid $s1 again is accepted" sh -c "echo $s1 > $sys/add_pid"
check "... and lists it once" list_is "$s1 $s1 manual"
check "add_pid '$s2\\n$s3 $s2 ' (newline, repeat, trailing space)" \
	sh -c "/usr/bin/printf '$s2\\n$s3 $s2 ' > $sys/add_pid"
check "list_pid: three threads" list_is "$s1 $s1 manual" "$s2 $s2 manual" "$s3 $s3 manual"
check "stats: 3 threads" test "$(stat_of threads)" = 3
check "list_pid ends with a newline" ends_with_newline $sys/list_pid

for bad in abc -1 0 "$s1 x"; do
	check "remove_pid refuses '$bad' with EINVAL" write_expect $sys/remove_pid "$bad" "Invalid argument"
done
check "remove_pid refuses '$s1 999999' with ESRCH" write_expect $sys/remove_pid "$s1 999999" "No such process"
check "... and all three stay flagged" list_is "$s1 $s1 manual" "$s2 $s2 manual" "$s3 $s3 manual"
u0=$(stat_of unflags)
check "remove_pid '$s1 $s2'" sh -c "echo '$s1 $s2' > $sys/remove_pid"
check "list_pid: $s3 only" list_is "$s3 $s3 manual"
check "remove_pid of a thread that is not flagged is accepted" sh -c "echo $s1 > $sys/remove_pid"
check "... and changes nothing" list_is "$s3 $s3 manual"
kill $s3
wait $s3 2>/dev/null
check "a flagged thread that exits leaves list_pid" list_is
check "trace reads 0 again" reads_exactly $sys/trace 0
u1=$(stat_of unflags)
check "stats: 3 unflags ($u0 -> $u1), 0 threads" \
	sh -c "[ $((u1 - u0)) -eq 3 ] && [ $(stat_of threads) = 0 ]"

# A flagged shell's child is flagged (inherited from the shell), and not
# with inherit 0.
sh -c "echo \$\$ > $sys/add_pid; echo \$\$ > /tmp/p1; sleep 600 & echo \$! > /tmp/c1; wait" &
sh1=$!
check "a flagged shell started a child" wait_for 20 test -s /tmp/c1
p1=$(cat /tmp/p1) c1=$(cat /tmp/c1)
check "list_pid: the shell manual, its child inherited from it" \
	list_is "$p1 $p1 manual" "$c1 $c1 inherited $p1"
check "stats: inherits counted" test "$(stat_of inherits)" -ge 1
check "inherit refuses '2' with EINVAL" write_expect $sys/inherit 2 "Invalid argument"
check "inherit 0" sh -c "echo 0 > $sys/inherit"
check "inherit reads 0" reads_exactly $sys/inherit 0
sh -c "echo \$\$ > $sys/add_pid; echo \$\$ > /tmp/p2; sleep 600 & echo \$! > /tmp/c2; wait" &
sh2=$!
check "a second flagged shell started a child" wait_for 20 test -s /tmp/c2
p2=$(cat /tmp/p2) c2=$(cat /tmp/c2)
check "with inherit 0 the child is not flagged" \
	list_is "$p1 $p1 manual" "$c1 $c1 inherited $p1" "$p2 $p2 manual"
check "inherit 1" sh -c "echo 1 > $sys/inherit"
kill $c1 $c2
wait $sh1 $sh2 2>/dev/null
check "the shells and children exited: list_pid empty" wait_for 10 list_is

# Limits: a write that would pass max_threads is refused whole.
sleep 600 & s3=$!
for bad in 0 -1 abc 65537 '2 ' '\n'; do
	check "max_threads refuses '$bad' with EINVAL" write_expect $sys/max_threads "$bad" "Invalid argument"
done
check "max_threads still reads 4096" reads_exactly $sys/max_threads 4096
check "max_threads 2" sh -c "echo 2 > $sys/max_threads"
check "add_pid of 3 threads over a limit of 2: ENOSPC" \
	write_expect $sys/add_pid "$s1 $s2 $s3" "No space left on device"
check "... and nothing was flagged" list_is
check "add_pid of 2 threads" sh -c "echo '$s1 $s2' > $sys/add_pid"
check "a third one: ENOSPC" write_expect $sys/add_pid "$s3" "No space left on device"
check "... the two stay" list_is "$s1 $s1 manual" "$s2 $s2 manual"
check "max_threads back to 4096" sh -c "echo 4096 > $sys/max_threads"
for bad in 0 -1 abc 65537; do
	check "max_sockets refuses '$bad' with EINVAL" write_expect $sys/max_sockets "$bad" "Invalid argument"
done
check "max_sockets still reads 4096" reads_exactly $sys/max_sockets 4096
check "max_sockets 100 reads back" sh -c "echo 100 > $sys/max_sockets && [ \$(cat $sys/max_sockets) = 100 ]"

# trust: a whole list or nothing.
for bad in 10.0.0.1/8 10.0.0.0/33 10.0.0.0/ 1.2.3 01.2.3.4 256.0.0.0 \
	'::1::' '1:2:3:4:5:6:7:8:9' 2001:db8::1/64 ::/129 'fe80::1%%1' localhost \
	'10.0.0.0/8;::1' '10.0.0.0/8 x' '10.0.0.0/8\0' '10.0.0.0/-1'; do
	check "trust refuses '$bad' with EINVAL" write_expect $sys/trust "$bad" "Invalid argument"
done
many=$(for i in $(seq 1 33); do printf '10.%d.0.0/16 ' "$i"; done)
check "trust refuses 33 prefixes with E2BIG" write_expect $sys/trust "$many" "Argument list too long"
check "... and is still the default" reads_exactly $sys/trust "127.0.0.0/8 ::1/128"
check "trust ' 10.0.0.0/8,2001:DB8::/32\\n' (spaces, commas, capitals)" \
	sh -c "printf ' 10.0.0.0/8,2001:DB8::/32\\n' > $sys/trust"
check "... reads back '10.0.0.0/8 2001:db8::/32'" reads_exactly $sys/trust "10.0.0.0/8 2001:db8::/32"
check "trust: a bare address is a /32" sh -c "echo 192.0.2.7 > $sys/trust"
check "... reads '192.0.2.7/32'" reads_exactly $sys/trust 192.0.2.7/32
check "trust: an IPv4-mapped prefix" sh -c "echo ::ffff:192.0.2.0/120 > $sys/trust"
check "... reads back" reads_exactly $sys/trust ::ffff:192.0.2.0/120
many=$(for i in $(seq 1 32); do printf '10.%d.0.0/16 ' "$i"; done)
check "trust takes 32 prefixes" sh -c "echo '$many' > $sys/trust"
check "... and lists them" test "$(wc -w < $sys/trust)" = 32
check "trust: a lone newline trusts nobody" sh -c "echo > $sys/trust"
check "... reads an empty line" reads_exactly $sys/trust ""
check "trust back to loopback" sh -c "echo '127.0.0.0/8 ::1/128' > $sys/trust"

# trust_netns: other network namespaces' lists, "INODE PREFIX..." each.
reads_exactly_empty() {
	[ -z "$(od -An -c "$1" | tr -d ' \n')" ] ||
		{ echo "$1 holds '$(od -An -c "$1")', expected nothing"; return 1; }
}
check "trust_netns: no namespace has a list" reads_exactly_empty $sys/trust_netns
init_ino=$(stat -L -c %i /proc/1/ns/net)
for bad in abc "-1 10.0.0.0/8" "12x 10.0.0.0/8" " " "12345678901 10.0.0.0/8" "99999999999999999999 10.0.0.0/8"; do
	check "trust_netns refuses '$bad' with EINVAL" write_expect $sys/trust_netns "$bad" "Invalid argument"
done
check "trust_netns refuses the initial namespace (that is trust's) with EINVAL" \
	write_expect $sys/trust_netns "$init_ino 10.0.0.0/8" "Invalid argument"
check "trust_netns refuses a namespace that does not exist with ENOENT" \
	write_expect $sys/trust_netns "1 10.0.0.0/8" "No such file or directory"
unshare -n sleep 300 &
nsp=$!
check "a second network namespace (unshare -n)" wait_for 10 sh -c \
	"[ \$(stat -L -c %i /proc/$nsp/ns/net) != $init_ino ]"
ino=$(stat -L -c %i /proc/$nsp/ns/net)
check "trust_netns refuses a bad list for it with EINVAL" \
	write_expect $sys/trust_netns "$ino 10.0.0.0/33" "Invalid argument"
check "... nothing changed" reads_exactly_empty $sys/trust_netns
check "trust_netns gives it two prefixes" sh -c "echo '$ino 10.0.0.0/8,2001:DB8::/32' > $sys/trust_netns"
check "... reads back '$ino 10.0.0.0/8 2001:db8::/32'" \
	reads_exactly $sys/trust_netns "$ino 10.0.0.0/8 2001:db8::/32"
check "... the initial namespace's trust unchanged" reads_exactly $sys/trust "127.0.0.0/8 ::1/128"
check "trust_netns: the namespace alone takes its list away" sh -c "echo $ino > $sys/trust_netns"
check "... reads as nothing" reads_exactly_empty $sys/trust_netns
check "trust_netns gives it one again" sh -c "echo '$ino 127.0.0.1' > $sys/trust_netns"
kill $nsp
check "... the namespace gone, its list goes with it" \
	wait_for 30 reads_exactly_empty $sys/trust_netns

for bad in -1 abc 1000001 '5 ' '\n' 0x10; do
	check "max_propagations refuses '$bad' with EINVAL" \
		write_expect $sys/max_propagations "$bad" "Invalid argument"
done
check "... still 1000" reads_exactly $sys/max_propagations 1000
check "max_propagations 0 (no limit) reads back" \
	sh -c "echo 0 > $sys/max_propagations && [ \$(cat $sys/max_propagations) = 0 ]"
check "max_propagations 1000000 reads back" \
	sh -c "echo 1000000 > $sys/max_propagations && [ \$(cat $sys/max_propagations) = 1000000 ]"
check "max_propagations back to 1000" sh -c "echo 1000 > $sys/max_propagations"

# Root only; reads for everyone, each ending with a newline.
check "nobody cannot add_pid" as_nobody "write_expect $sys/add_pid $s3 'Permission denied'"
check "nobody cannot remove_pid" as_nobody "write_expect $sys/remove_pid $s1 'Permission denied'"
check "nobody cannot change inherit" as_nobody "write_expect $sys/inherit 0 'Permission denied'"
check "nobody cannot change probe" as_nobody "write_expect $sys/probe 1 'Permission denied'"
check "nobody cannot change gate" as_nobody "write_expect $sys/gate off 'Permission denied'"
check "nobody cannot change max_threads" as_nobody "write_expect $sys/max_threads 1 'Permission denied'"
check "nobody cannot change max_sockets" as_nobody "write_expect $sys/max_sockets 1 'Permission denied'"
check "nobody cannot change trust" as_nobody "write_expect $sys/trust 0.0.0.0/0 'Permission denied'"
check "nobody cannot change trust_netns" as_nobody "write_expect $sys/trust_netns '1 0.0.0.0/0' 'Permission denied'"
check "nobody cannot change max_propagations" \
	as_nobody "write_expect $sys/max_propagations 0 'Permission denied'"
check "nobody cannot write to trace" as_nobody "write_expect $sys/trace 1 'Permission denied'"
check "nobody cannot change go" as_nobody "write_expect $sys/go clear 'Permission denied'"
check "nobody cannot change python" as_nobody "write_expect $sys/python clear 'Permission denied'"
check "... nothing changed" list_is "$s1 $s1 manual" "$s2 $s2 manual"
check "... trust, probe, gate, limits as they were" sh -c "
	[ \"\$(cat $sys/trust)\" = '127.0.0.0/8 ::1/128' ] && [ \$(cat $sys/probe) = 0 ] &&
	[ \$(cat $sys/max_threads) = 4096 ] && [ \$(cat $sys/max_sockets) = 100 ] &&
	[ \$(cat $sys/max_propagations) = 1000 ] && [ \$(cat $sys/gate) = global ]"
check "no file in $sys is writable by group or others" test -z "$(find $sys/ -perm /022)"
check "nobody can read list_pid, stats, trust" as_nobody "cat $sys/list_pid $sys/stats $sys/trust"
for f in list_pid stats trace probe inherit max_threads max_sockets gate trust max_propagations; do
	check "$f ends with a newline" ends_with_newline $sys/$f
done
n=$(awk 'NF != 2 || $2 !~ /^[0-9]+$/' $sys/stats | wc -l)
[ "$n" -eq 0 ] && ok "stats: every line is 'name number'" || not_ok "stats: $n lines are not 'name number'"

# go: Go binaries whose goroutines are followed (uprobes while probe is
# 1). dt-gomid from the guest's tmpfs (the shared 9p root gives uprobes
# no pages: EIO), five copies to pass the limit of four.
dtracer=$DT_BUILDDIR/collector/dtracer
check "go reads empty" test -z "$(cat $sys/go)"
for bad in bogus '/tmp 1 2 3' '/tmp 1 2 3 4 5 6 7 8 9 10' '/tmp 0 1 2 3 4 5 6 7 8' '/tmp x 1 2 3 4 5 6 7 8' '-' 'tmp 1 2 3 4 5 6 7 8 9'; do
	check "go refuses '$bad' with EINVAL" write_expect $sys/go "$bad" "Invalid argument"
done
check "go refuses a directory with EINVAL" write_expect $sys/go "/tmp 1 2 3 4 5 6 7 8 9" "Invalid argument"
check "go refuses a missing file with ENOENT" write_expect $sys/go "/nonexistent 1 2 3 4 5 6 7 8 9" "No such file"
check "go refuses to remove what it does not follow with ENOENT" \
	write_expect $sys/go "-/bin/sh" "No such file"
check "dtracer go refuses a program that is not Go, saying why" sh -c \
	"! $dtracer go /bin/sh > /tmp/go.err 2>&1 && grep -q 'no symbol table\|no runtime.execute' /tmp/go.err"
check "... and go stays empty" test -z "$(cat $sys/go)"
for i in 1 2 3 4 5; do cp "$DT_BUILDDIR/tests/vm/build/dt-gomid" /tmp/gomid-$i; done
check "dtracer go: four Go binaries, probe 0" $dtracer go /tmp/gomid-1 /tmp/gomid-2 /tmp/gomid-3 /tmp/gomid-4
check "... listed, off" sh -c "[ \$(grep -c ' off\$' $sys/go) -eq 4 ]"
check "a fifth is refused with ENOSPC" write_expect $sys/go \
	"$($dtracer go --print /tmp/gomid-5)" "No space left"
check "the same one twice is refused with EEXIST" write_expect $sys/go \
	"$($dtracer go --print /tmp/gomid-1)" "File exists"
check "probe 1: their uprobes on" sh -c "echo 1 > $sys/probe && [ \$(grep -c ' armed\$' $sys/go) -eq 4 ]"
/tmp/gomid-1 8091 127.0.0.1:9 /tmp/gomid.log 2> /tmp/gomid.err &
gpid=$!
check "a Go program runs under them" wait_for 60 sh -c "ss -Hltn | grep -q ':8091 '"
check "probe 0: off again, the program still runs" sh -c \
	"echo 0 > $sys/probe && [ \$(grep -c ' off\$' $sys/go) -eq 4 ] && kill -0 $gpid"
check "dtracer go --remove one" $dtracer go --remove /tmp/gomid-4
check "... three left" sh -c "[ \$(grep -c . $sys/go) -eq 3 ]"
check "probe 1 again, with the Go program running" sh -c "echo 1 > $sys/probe && kill -0 $gpid"
check "go clear" sh -c "echo clear > $sys/go && test -z \"\$(cat $sys/go)\""
check "the Go program still runs" kill -0 $gpid
# python: CPython's _queue modules whose SimpleQueue is followed (the
# same registry, uprobes.c: its limits are go's, checked above). A copy
# of this machine's module in the tmpfs, as go's binaries.
check "python reads empty" test -z "$(cat $sys/python)"
for bad in bogus '/tmp 1 2 3' '/tmp 1 2 3 4 5' '/tmp 0 1 2 3' '-'; do
	check "python refuses '$bad' with EINVAL" write_expect $sys/python "$bad" "Invalid argument"
done
check "dtracer python refuses a file that is not CPython's _queue, saying why" sh -c \
	"! $dtracer python /bin/sh > /tmp/pyq.err 2>&1 && grep -q 'no method SimpleQueue.put' /tmp/pyq.err"
cp "$(python3 -c 'import _queue; print(_queue.__file__)')" /tmp/dt-queue.so
check "dtracer python: a _queue module, probe 1: armed" sh -c \
	"$dtracer python /tmp/dt-queue.so && grep -q '^/tmp/dt-queue.so 0x[0-9a-f]* 0x[0-9a-f]* 0x[0-9a-f]* 0x[0-9a-f]* armed\$' $sys/python"
check "... the same one twice is refused with EEXIST" write_expect $sys/python \
	"$($dtracer python --print /tmp/dt-queue.so)" "File exists"
check "... probe 0: off" sh -c "echo 0 > $sys/probe && grep -q ' off\$' $sys/python && echo 1 > $sys/probe"
check "two followed again, armed, for rmmod" $dtracer go /tmp/gomid-1 /tmp/gomid-2
check "mem_goroutines back to 0 with nothing traced" sh -c "grep -qx 'mem_goroutines 0' $sys/stats"
check "rmmod with two threads flagged" rmmod dtracer
check "the Go program outlives dtracer" kill -0 $gpid
kill $gpid
# The module parameter: the initial list, or a refused load.
check_fails "modprobe dtracer trust=bogus fails" modprobe dtracer trust=bogus
check "... and loads nothing" test ! -e $sys
check "... the kernel log says why" sh -c 'dmesg | grep -q "dtracer: trust=\"bogus\": not a list of address prefixes"'
check "modprobe dtracer trust=192.0.2.0/24,2001:db8::/64" \
	modprobe dtracer trust=192.0.2.0/24,2001:db8::/64
check "... trust lists both" reads_exactly $sys/trust "192.0.2.0/24 2001:db8::/64"
check "rmmod" rmmod dtracer
check "modprobe again" modprobe dtracer
check "list_pid starts empty" list_is
check "trace starts at 0" reads_exactly $sys/trace 0

# A long-lived stream on loopback: a flagged subscriber (socat) asks a
# dt-tcp server for a push every 200 ms. While it is flagged each push
# is its request's response (marked; the server's thread in the
# request). remove_pid ends it on both ends at once: the ACK of the next
# push says the request is over (stops_sent), the server's thread
# leaves (requests_stopped), and the pushes that follow, the stream
# going on, are neither marked nor traced.
tcp=$DT_BUILDDIR/tests/tools/dt-tcp
check "probe 1 (loopback trusted)" sh -c "echo 1 > $sys/probe"
$tcp serve -4 -p 200 7720 1 > /tmp/push.log 2>&1 &
pushd=$!
check "a stream server on 7720 (dt-tcp serve -p 200)" \
	wait_for 30 sh -c "ss -Hltn | grep -q ':7720 '"
mkfifo /tmp/sub.in
# shellcheck disable=SC2016
sh -c 'echo $$ > /tmp/sub.pid && echo $$ > '$sys'/add_pid &&
	exec socat - TCP4:127.0.0.1:7720' < /tmp/sub.in > /tmp/sub.out 2>&1 &
exec 8> /tmp/sub.in
check "a flagged subscriber (socat)" wait_for 30 test -s /tmp/sub.pid
sub=$(cat /tmp/sub.pid)
# Marks sent from before the subscription, when no push is on its way.
m0=$(stat_of marks_sent)
echo subscribe >&8
pushes() {
	grep -c '^push:' /tmp/sub.out
}
check "the flagged subscriber gets pushes" wait_for 30 sh -c "[ \$(grep -c '^push:' /tmp/sub.out) -ge 3 ]"
check "... the stream's thread serves its request" \
	grep -q "^$pushd $pushd \(propagated\|resumed\) " $sys/list_pid
# Pushes counted as read, marks as sent: counted from before the
# subscription, a push is marked before it is read, whatever the
# reader's delays (counted over a second, a reader held up on a loaded
# host read 8 pushes for 6 marks: those sent before the second began).
# One push in two segments or two in one are allowed for.
sleep 1
m1=$(stat_of marks_sent) n1=$(pushes)
check "... each push marked ($((m1 - m0)) marks, the subscription's included, for $n1 pushes)" \
	test "$n1" -ge 4 -a $((m1 - m0)) -ge $((n1 - 1))
s0=$(stat_of stops_sent) r0=$(stat_of requests_stopped)
tcpdump -i lo -n -U -w /tmp/stop.pcap 'tcp port 7720' 2> /tmp/stop.err &
tdpid=$!
check "tcpdump on lo, port 7720" wait_for 30 grep -q listening /tmp/stop.err
check "remove_pid the subscriber, mid-stream" sh -c "echo $sub > $sys/remove_pid"
check "... the stream's thread leaves its request within a push" \
	wait_for 10 sh -c "! grep -q '^$pushd ' $sys/list_pid"
check "... said by the subscriber's side, heard by the server's ($(($(stat_of stops_sent) - s0)) stops sent, $(($(stat_of requests_stopped) - r0)) request stopped)" \
	test $(($(stat_of stops_sent) - s0)) -ge 1 -a $(($(stat_of requests_stopped) - r0)) = 1
tcpdump_stop $tdpid /tmp/stop.err
# To the server: the second bit alone (byte 12's 0x0c bits are 0x04).
n=$(tcpdump -r /tmp/stop.pcap -n 'dst port 7720 and tcp[12] & 0x0c = 4' 2> /dev/null | wc -l)
check "... on the wire: $n segment(s) to the server with the stop bit alone" test "$n" -ge 1
sleep 0.5
m2=$(stat_of marks_sent) n2=$(pushes)
sleep 1
m3=$(stat_of marks_sent) n3=$(pushes)
check "... the stream goes on unmarked ($((n3 - n2)) pushes, $((m3 - m2)) marks in 1 s)" \
	test $((n3 - n2)) -ge 2 -a $m3 = $m2
check "... nothing flagged" list_is
exec 8>&-
kill $sub 2> /dev/null
wait $pushd

# UDP leaves a context as it is: a server reading a flagged request
# makes a UDP exchange (a DNS lookup's shape) before it answers. Its
# thread stays in the request through its UDP read (it neither leaves
# it, switches, nor comes back to it, resumes: its answer's write finds
# it there), and nothing else is flagged (one propagation: its own).
$tcp udpecho 7731 /tmp/udp.seen 1 2> /tmp/udpecho.err &
udpd=$!
$tcp serve -4 -U 7731 -d 500 7732 1 > /tmp/udp-serve.log 2>&1 &
udps=$!
check "a server that asks over UDP before it answers, on 7732" \
	wait_for 30 sh -c "ss -Hltn | grep -q ':7732 '"
p0=$(stat_of propagations) w0=$(stat_of switches) e0=$(stat_of resumes)
r0=$(stat_of responses) i0=$(stat_of inherits)
flagged $tcp request 127.0.0.1 7732 lookup > /tmp/udp-req.out 2>&1 &&
	grep -q echo:lookup /tmp/udp-req.out &&
	ok "... the flagged client got its answer" ||
	not_ok "... the flagged client got its answer: $(cat /tmp/udp-req.out /tmp/udp-serve.log)"
check "... the UDP peer got the lookup" grep -q lookup /tmp/udp.seen
check "... the server's thread stayed in the request through its UDP read ($(($(stat_of switches) - w0)) switches, $(($(stat_of resumes) - e0)) resumes, $(($(stat_of responses) - r0)) response)" \
	test $(($(stat_of switches) - w0)) = 0 -a $(($(stat_of resumes) - e0)) = 0 -a \
		$(($(stat_of responses) - r0)) = 1
check "... nobody else flagged ($(($(stat_of propagations) - p0)) propagation, $(($(stat_of inherits) - i0)) inherits)" \
	test $(($(stat_of propagations) - p0)) = 1 -a $(($(stat_of inherits) - i0)) = 0
wait $udps
kill $udpd 2> /dev/null
check "final rmmod" rmmod dtracer
kill $s1 $s2 $s3
dt_finish
