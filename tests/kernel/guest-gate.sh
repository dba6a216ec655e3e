# Guest side of t-gate.sh (sourced after tests/vm/guest-lib.sh).
#
# One guest, our lttng-modules fork, dtracer.ko loaded halfway through.
# Every session records all kernel events and all syscalls with the tid
# context. Busy workloads are dd processes doing 1-byte reads and writes.
sys=/sys/distributed-tracer
grace=0.05	# s around a flag change: events already past the gate

# session NAME: create, enable every tracepoint and syscall (-k -a does
# both), add the tid context.
session() {
	lttng create "$1" --output="/tmp/$1" > /dev/null &&
		lttng enable-event -k -a > /dev/null &&
		lttng add-context -k -t tid > /dev/null
}

# events NAME [SINCE]: the session's trace as "SECONDS EVENT TID" lines
# in /tmp/NAME.ev (kept in the results); fails if babeltrace2 cannot read
# it. SINCE is the guest's clock (now) before the workload began: the
# trace is read from two seconds before it, where babeltrace2's trimmer
# seeks through the index. What lttng start recorded before the workload
# (timers, RCU, scheduling: 3 million events in four minutes on the debug
# kernel) is then neither decoded nor printed. Only for checks on the
# workload's own events; a check on a whole session reads it all.
events() {
	_begin=
	[ -z "$2" ] || _begin=--begin=$(awk -v s="$2" 'BEGIN { printf "%.6f", s - 2 }')
	babeltrace2 --clock-seconds --no-delta $_begin "/tmp/$1" > "/tmp/$1.txt" 2> "/tmp/$1.err" || {
		_rc=$?
		echo "babeltrace2 exited $_rc; $(head -c 600 "/tmp/$1.err")"
		echo "the trace: $(find "/tmp/$1" -type f -printf '%P %s, ' 2>&1 | head -c 600)"
		echo "/tmp: $(df -k /tmp | tail -n 1)"
		rm -f "/tmp/$1.txt"
		return 1
	}
	awk '{
		t = substr($1, 2, length($1) - 2); n = $3; sub(/:$/, "", n)
		tid = "-"
		if (match($0, /\{ tid = [0-9]+ \}/))
			tid = substr($0, RSTART + 8, RLENGTH - 10)
		print t, n, tid
	}' "/tmp/$1.txt" > "/tmp/$1.ev"
	# The text is ten times the .ev (more on a debug kernel): /tmp is a
	# tmpfs of half the guest's memory.
	rm -f "/tmp/$1.txt"
	cp "/tmp/$1.ev" "$DT_RESULTS/$1.ev"
}

# now: the guest's clock as the trace prints it (seconds since the epoch).
now() {
	date +%s.%N
}

# at NAME EVENT: time of the first EVENT in the session's trace.
at() {
	awk -v e="$2" '$2 == e { print $1; exit }' "/tmp/$1.ev"
}

# count NAME AWK-CONDITION: events of the session matching it; the
# fields are t (seconds), e (event name), tid.
count() {
	awk '{ t = $1; e = $2; tid = $3 } '"$2"' { n++ } END { print n + 0 }' "/tmp/$1.ev"
}

# is N CMP M DESC: a numeric check with the figures in the description.
is() {
	if [ "$1" "$2" "$3" ]; then ok "$4 ($1 $2 $3)"; else not_ok "$4 ($1 $2 $3)"; fi
}

busy() {
	dd if=/dev/zero of=/dev/null bs=1 2> /dev/null &
	echo $!
}

# per_name NAME TID: "EVENT COUNT" lines of tid's events, sorted.
per_name() {
	awk -v p="$2" '$3 == p { n[$2]++ } END { for (e in n) print e, n[e] }' "/tmp/$1.ev" | sort
}

check "lttng-sessiond starts, told to load dtracer's probes" \
	env LTTNG_EXTRA_KMOD_PROBES=dtracer lttng-sessiond -d
check "the fork's gate module is loaded" grep -q '^lttng_dtracer_gate ' /proc/modules
check "lttng list -k shows dtracer's five events" \
	sh -c '[ "$(lttng list -k | grep -cE "dtracer_(mark_send|mark_recv|flag|unflag|answer) ")" -eq 5 ]'

# --- 1. dtracer.ko not loaded, then gate off: the same events ---------
work=3000
workload() {
	dd if=/dev/zero of=/dev/null bs=1 count=$work 2> /dev/null &
	wpid=$!
	wait $wpid
}

# recorded NAME [all]: the workload (its pid in $wpid) under the session
# NAME, which is then stopped and its trace read back from just before
# the workload, or whole with "all". Not under check: that would run it
# in a subshell and lose $wpid.
recorded() {
	lttng start "$1" > /tmp/lttng.out 2>&1 || diag "lttng start $1: $(cat /tmp/lttng.out)"
	_since=$(now)
	[ "${2:-}" != all ] || _since=
	workload
	lttng stop "$1" > /tmp/lttng.out 2>&1 || diag "lttng stop $1: $(cat /tmp/lttng.out)"
	if events "$1" "$_since" > /tmp/events.err 2>&1; then
		ok "the $1 trace reads back"
	else
		not_ok "the $1 trace reads back"
		diag "$(cat /tmp/events.err)"
	fi
}

check "session 'absent' (dtracer.ko not loaded)" session absent
recorded absent
absent_pid=$wpid
check "modprobe dtracer" modprobe dtracer
check "gate is 'global' by default" reads_exactly $sys/gate global
for bad in bogus '\n' 'off off' Thread 'thread\n\n'; do
	check "gate refuses '$bad' with EINVAL" write_expect $sys/gate "$bad" "Invalid argument"
done
check "... and is still 'global'" reads_exactly $sys/gate global
check "nobody cannot change gate" setpriv --reuid=nobody --regid=nogroup --clear-groups \
	sh -c ". '$DT_SRCDIR/tests/vm/guest-lib.sh'; write_expect $sys/gate off 'Permission denied'"
check "nobody can read gate" setpriv --reuid=nobody --regid=nogroup --clear-groups cat $sys/gate

check "probe armed (the gate applies only then)" sh -c "echo 1 > $sys/probe"
check "gate off is accepted" sh -c "echo off > $sys/gate"
check "session 'off' (dtracer loaded, gate off)" session off
lttng start off > /dev/null
check "the fork attached to dtracer when the session started" \
	test "$(stat_of lttng_attached)" = 1
off_since=$(now)
workload
off_pid=$wpid
lttng stop off > /dev/null
check "... and detached when it stopped" test "$(stat_of lttng_attached)" = 0
check "the off trace reads back" events off "$off_since"

per_name absent $absent_pid > /tmp/absent.names
per_name off $off_pid > /tmp/off.names
n_absent=$(count absent "tid == $absent_pid")
n_off=$(count off "tid == $off_pid")
diag "workload events: $n_absent without dtracer.ko, $n_off with gate off"
is "$n_absent" -ge $((2 * work)) "without dtracer.ko the workload's reads and writes are all recorded"
# Syscalls are the deterministic part: the same kinds and counts. The
# rest varies with time, not with the gate: interrupts, timer ticks and
# RCU landing on the workload come per unit of time (on the debug kernel
# under load the first run had 40,662 events and the second 28,400,
# with the same syscalls). So of the rest, what the workload itself
# does: its exec and exit, and memory events (exec, mmap), in both.
sys_names() {
	grep '^syscall_' "$1"
}
if [ -n "$(sys_names /tmp/absent.names)" ] &&
	[ "$(sys_names /tmp/absent.names)" = "$(sys_names /tmp/off.names)" ]; then
	ok "gate off records the same syscalls, as many, as dtracer.ko absent ($(sys_names /tmp/off.names | wc -l) kinds)"
else
	not_ok "gate off records the same syscalls, as many, as dtracer.ko absent"
	diag "$(diff /tmp/absent.names /tmp/off.names)"
fi
own_events() {
	grep -E '^(sched_process_exec|sched_process_exit) ' "$1"
	grep -c '^kmem_' "$1" | sed 's/^0$//; s/^[0-9][0-9]*$/kmem/'
}
if [ "$(own_events /tmp/absent.names)" = "$(printf '%s\n' 'sched_process_exec 1' 'sched_process_exit 1' kmem)" ] &&
	[ "$(own_events /tmp/off.names)" = "$(own_events /tmp/absent.names)" ]; then
	ok "gate off records the workload's own exec, exit and memory events, as dtracer.ko absent"
else
	not_ok "gate off records the workload's own exec, exit and memory events, as dtracer.ko absent"
	diag "$(paste /tmp/absent.names /tmp/off.names)"
fi

# --- 2. gate global --------------------------------------------------
check "gate global is accepted" sh -c "echo global > $sys/gate"
# With probe 0 dtracer is inactive: LTTng records as stock.
check "probe disarmed" sh -c "echo 0 > $sys/probe"
check "session 'disarmed' (gate global, probe 0, nothing flagged)" session disarmed
recorded disarmed
is "$(count disarmed "tid == $wpid")" -ge $((2 * work)) \
	"with probe 0 the gate stays open: the workload is recorded as by stock LTTng"
check "probe armed again" sh -c "echo 1 > $sys/probe"
check "session 'idle' (gate global, nothing flagged)" session idle
recorded idle all
is "$(count idle '1')" -eq 0 "gate global with no flagged thread records nothing at all"

check "session 'global'" session global
d=$(busy)
lttng start global > /dev/null
sleep 1
check "trace reads 0 while nothing is flagged" reads_exactly $sys/trace 0
check "add_pid of the busy process" sh -c "echo $d > $sys/add_pid"
check "trace reads 1" reads_exactly $sys/trace 1
sleep 0.5
check "remove_pid of the busy process" sh -c "echo $d > $sys/remove_pid"
check "trace reads 0 again" reads_exactly $sys/trace 0
sleep 1
lttng stop global > /dev/null
kill $d
check "the global trace reads back" events global
f=$(at global dtracer_flag) u=$(at global dtracer_unflag)
if [ -n "$f" ] && [ -n "$u" ]; then
	ok "dtracer_flag and dtracer_unflag recorded ($f, $u)"
	is "$(count global "t < $f - $grace && e !~ /^dtracer_/")" -eq 0 \
		"nothing recorded before add_pid"
	is "$(count global "t > $u + $grace && e !~ /^dtracer_/")" -eq 0 \
		"nothing recorded after remove_pid"
	is "$(count global "t > $f && t < $u && tid == $d && e ~ /^syscall_/")" -gt 100 \
		"the flagged process's syscalls are recorded in between"
	is "$(count global "t > $f && t < $u && tid != $d && tid != \"-\" && e !~ /^dtracer_/")" -gt 0 \
		"other threads' events too (global records everything meanwhile)"
else
	not_ok "dtracer_flag and dtracer_unflag recorded"
fi

# --- 3. gate thread ----------------------------------------------------
check "gate thread is accepted" sh -c "echo thread > $sys/gate"
check "session 'thread'" session thread
# A kprobe and a kretprobe event too: their handlers ask the gate as well.
check "kprobe event on ksys_read" lttng enable-event -k --probe=ksys_read dt_kp
check "kretprobe event on ksys_write" lttng enable-event -k --function=ksys_write dt_kr
d=$(busy)
u=$(busy)
lttng start thread > /dev/null
# Section 3c: only flagged threads enter the system call tracepoints now.
check "system call tracepoints narrowed to flagged threads" \
	test "$(stat_of syscalls_narrowed)" = 1
sleep 0.5
check "add_pid of one busy process" sh -c "echo $d > $sys/add_pid"
sleep 0.5
check "remove_pid" sh -c "echo $d > $sys/remove_pid"
sleep 0.5
lttng stop thread > /dev/null
kill $d $u
check "the thread trace reads back" events thread
f=$(at thread dtracer_flag) x=$(at thread dtracer_unflag)
if [ -n "$f" ] && [ -n "$x" ]; then
	ok "dtracer's own events pass the gate (written by an unflagged shell)"
	is "$(count thread "tid == $d && e ~ /^syscall_/")" -gt 100 \
		"the flagged process's syscalls are recorded"
	is "$(count thread "tid != $d && e ~ /^syscall_/")" -eq 0 \
		"no other thread's syscall is recorded"
	is "$(count thread "tid != $d && e == \"sched_switch\"")" -eq 0 \
		"no other thread's sched_switch is recorded"
	is "$(count thread "tid == $d && e ~ /^dt_kp/")" -gt 100 \
		"the flagged process's kprobe events are recorded"
	is "$(count thread "tid == $d && e ~ /^dt_kr/")" -gt 100 \
		"the flagged process's kretprobe events are recorded"
	is "$(count thread "tid != $d && e ~ /^dt_k[pr]/")" -eq 0 \
		"no other thread's kprobe or kretprobe event is recorded"
	is "$(count thread "tid == $u && (e ~ /^syscall_/ || e == \"sched_switch\")")" -eq 0 \
		"the unflagged busy process's syscalls and switches are not recorded"
	is "$(count thread "tid == $u")" -eq 0 \
		"nor any event in its context: interrupts of an unflagged busy thread are not recorded"
	diag "events with the unflagged process's tid: $(per_name thread $u | tr '\n' ' ')"
	is "$(count thread "t > $f && t < $x && (e ~ /^irq_/ || e ~ /^timer_.*expire/)")" -gt 0 \
		"interrupt and softirq events are recorded while a thread is flagged (those of the flagged thread, or of an idle CPU)"
	is "$(count thread "(t < $f - $grace || t > $x + $grace) && e !~ /^dtracer_/")" -eq 0 \
		"nothing is recorded while no thread is flagged"
else
	not_ok "dtracer's own events pass the gate (written by an unflagged shell)"
fi

# --- 3b. gate thread with a crowd: the fork's inline hint ---------------
# The fork drops an unflagged thread's event without a call when that
# thread's bit in dtracer's hint (a bitmap of 1024 hashes of flagged
# threads) is clear, and asks dtracer when it is set. 4000 flagged
# threads set most bits, many shared with others; once they are
# unflagged, a bit must stay set while any flagged thread still hashes
# there: the busy process flagged throughout keeps its events after the
# crowd went, the unflagged one has none at any time.
rm -f /tmp/crowd.stop
python3 -c '
import os, threading, time
stop = threading.Event()
def idle():
    print(threading.get_native_id(), flush=True)
    stop.wait()
for _ in range(4000):
    threading.Thread(target=idle).start()
while not os.path.exists("/tmp/crowd.stop"):
    time.sleep(0.2)
stop.set()' > /tmp/crowd.tids 2> /tmp/crowd.err &
crowd=$!
check "a crowd of 4000 threads" wait_for 60 sh -c '[ "$(grep -c . /tmp/crowd.tids)" -eq 4000 ]'
check "session 'crowd'" session crowd
d=$(busy)
u=$(busy)
lttng start crowd > /dev/null
check "add_pid of the crowd and one busy process" sh -c \
	"xargs -n 300 sh -c 'echo \"\$*\" > $sys/add_pid' _ < /tmp/crowd.tids && echo $d > $sys/add_pid"
is "$(stat_of threads)" -eq 4001 "4001 threads flagged"
sleep 0.5
check "remove_pid of the crowd" sh -c \
	"xargs -n 300 sh -c 'echo \"\$*\" > $sys/remove_pid' _ < /tmp/crowd.tids"
is "$(stat_of threads)" -eq 1 "one thread flagged (the busy one)"
sleep 1
lttng stop crowd > /dev/null
touch /tmp/crowd.stop
kill $d $u
wait $crowd
check "the crowd trace reads back" events crowd
last=$(awk '$2 == "dtracer_unflag" { t = $1 } END { print t }' /tmp/crowd.ev)
is "$(count crowd 'e == "dtracer_unflag"')" -eq 4000 "the crowd's 4000 unflags are in the trace"
is "$(count crowd "tid == $d && t > ${last:-0} && e ~ /^syscall_/")" -gt 100 \
	"after the crowd's flags went, the flagged process's syscalls are recorded"
is "$(count crowd "tid == $u")" -eq 0 \
	"no event in the unflagged busy process's context is ever recorded (interrupts included)"

# --- 3c. system call tracepoints only for flagged threads ---------------
# With gate thread, dtracer lets only flagged threads enter sys_enter and
# sys_exit (the kernel's per-thread SYSCALL_WORK_SYSCALL_TRACEPOINT) while
# the fork's gated system call probes are the only probes there: section
# 3 ran so, and its flagged process's system calls were recorded, the
# others' not. Any other probe widens at once (ftrace's raw_syscalls
# event here), and everything is as stock once the session stops: ftrace
# then sees every thread.
tr=/sys/kernel/tracing
mountpoint -q $tr || mount -t tracefs nodev $tr
narrowed() {
	test "$(stat_of syscalls_narrowed)" = "$1"
}
# ftrace_sees PID: ftrace's raw_syscalls sys_enter, on while PID's dd
# runs a moment, recorded a system call of PID.
ftrace_sees() {
	echo > $tr/trace
	echo 1 > $tr/events/raw_syscalls/sys_enter/enable || return 1
	sleep 0.3
	echo 0 > $tr/events/raw_syscalls/sys_enter/enable
	grep -q -- "-$1 .*sys_enter" $tr/trace ||
		{ echo "no sys_enter of $1 in $(grep -c sys_enter $tr/trace) lines"; return 1; }
}
check "session 'narrow'" session narrow
check "a foreign probe on sys_enter first (ftrace's raw_syscalls)" \
	sh -c "echo 1 > $tr/events/raw_syscalls/sys_enter/enable"
lttng start narrow > /dev/null
check "... so the session starts widened" narrowed 0
check "the foreign probe gone" sh -c "echo 0 > $tr/events/raw_syscalls/sys_enter/enable"
check "narrowed while a session of gate thread records system calls" narrowed 1
d=$(busy)
u=$(busy)
echo > $tr/trace
check "a foreign probe arriving (ftrace's raw_syscalls again)" \
	sh -c "echo 1 > $tr/events/raw_syscalls/sys_enter/enable"
check "... widens at once" narrowed 0
sleep 0.3
check "... and ftrace sees the unflagged process's system calls" \
	grep -q -- "-$u .*sys_enter" $tr/trace
check "the foreign probe gone again" sh -c "echo 0 > $tr/events/raw_syscalls/sys_enter/enable"
check "... narrowed again" narrowed 1
check "gate global" sh -c "echo global > $sys/gate"
check "... widened (global records every thread while one is flagged)" narrowed 0
check "gate thread" sh -c "echo thread > $sys/gate"
check "... narrowed" narrowed 1
check "probe disarmed" sh -c "echo 0 > $sys/probe"
check "... widened (stock LTTng)" narrowed 0
check "probe armed" sh -c "echo 1 > $sys/probe"
check "... narrowed" narrowed 1
lttng stop narrow > /dev/null
check "session stopped: widened" narrowed 0
lttng destroy narrow > /dev/null
check "after the session, ftrace sees an unflagged process's system calls" \
	ftrace_sees $u
check "... and another's (stock: every thread)" ftrace_sees $d
kill $d $u

# --- 4. unloading dtracer.ko during a session ---------------------------
check "session 'unload'" session unload
lttng start unload > /dev/null
check_fails "rmmod dtracer is refused while a session is active" rmmod dtracer
check "dtracer.ko is still there and answers" reads_exactly $sys/gate thread
lttng stop unload > /dev/null
check "rmmod dtracer once the session is stopped (its events still enabled)" rmmod dtracer
recorded unload
is "$(count unload "tid == $wpid")" -ge $((2 * work)) \
	"without dtracer.ko the same session records as stock LTTng"
check "modprobe dtracer again" modprobe dtracer
check "probe armed, gate thread" sh -c "echo 1 > $sys/probe && echo thread > $sys/gate"
reload_since=$(now)
lttng start unload > /dev/null
check "flag this shell's child" flagged true
lttng stop unload > /dev/null
events unload "$reload_since"
is "$(count unload 'e == "dtracer_flag"')" -ge 1 \
	"the reloaded module's events reach the same session"
check "rmmod dtracer" rmmod dtracer
lttng destroy -a > /dev/null
dt_finish
