# Guest side of t-gate.sh (sourced after tests/vm/guest-lib.sh).
#
# One guest, our lttng-modules fork, dtracer.ko loaded halfway through.
# Every session records all kernel events and all syscalls with the tid
# context. Busy workloads are dd processes doing 1-byte reads and writes.
# The guest runs the sessions and checks what it can see itself (sysfs,
# dtracer's counters, ftrace, rmmod); the traces are read on the host
# (gate-trace.sh, sourced by t-gate.sh): each is kept in the results with
# what its checks need (the workloads' pids, the clock before them), as
# decoding millions of events under emulation took minutes.
sys=/sys/distributed-tracer

# session NAME: create, enable every tracepoint and syscall (-k -a does
# both), add the tid context.
session() {
	lttng create "$1" --output="/tmp/$1" > /dev/null &&
		lttng enable-event -k -a > /dev/null &&
		lttng add-context -k -t tid > /dev/null
}

# keep NAME [SINCE [AS]]: the session's trace, stopped, copied to the
# results as traces/AS (default NAME) for the host's checks, SINCE (the
# guest's clock before the workload began; none: the whole trace) in
# traces.list beside it.
keep() {
	mkdir -p "$DT_RESULTS/traces" &&
		rm -rf "$DT_RESULTS/traces/${3:-$1}" &&
		cp -r "/tmp/$1" "$DT_RESULTS/traces/${3:-$1}" &&
		echo "${3:-$1} ${2:-}" >> "$DT_RESULTS/traces.list"
}

# note NAME VALUE: a value the host's checks need (gate.vars).
note() {
	echo "$1=$2" >> "$DT_RESULTS/gate.vars"
}

# now: the guest's clock as the trace prints it (seconds since the epoch).
now() {
	date +%s.%N
}

# is N CMP M DESC: a numeric check with the figures in the description.
is() {
	if [ "$1" "$2" "$3" ]; then ok "$4 ($1 $2 $3)"; else not_ok "$4 ($1 $2 $3)"; fi
}

busy() {
	dd if=/dev/zero of=/dev/null bs=1 2> /dev/null &
	echo $!
}

check "lttng-sessiond starts, told to load dtracer's probes" \
	env LTTNG_EXTRA_KMOD_PROBES=dtracer lttng-sessiond -d
check "the fork's gate module is loaded" grep -q '^lttng_dtracer_gate ' /proc/modules
check "lttng list -k shows dtracer's five events" \
	sh -c '[ "$(lttng list -k | grep -cE "dtracer_(mark_send|mark_recv|flag|unflag|answer) ")" -eq 5 ]'

# --- 1. dtracer.ko not loaded, then gate off: the same events ---------
work=3000
note work $work
workload() {
	dd if=/dev/zero of=/dev/null bs=1 count=$work 2> /dev/null &
	wpid=$!
	wait $wpid
}

# recorded NAME [all]: the workload (its pid in $wpid, and NAME_pid in
# gate.vars) under the session NAME, which is then stopped and its trace
# kept, to be read from just before the workload, or whole with "all".
# Not under check: that would run it in a subshell and lose $wpid.
recorded() {
	lttng start "$1" > /tmp/lttng.out 2>&1 || diag "lttng start $1: $(cat /tmp/lttng.out)"
	_since=$(now)
	[ "${2:-}" != all ] || _since=
	workload
	lttng stop "$1" > /tmp/lttng.out 2>&1 || diag "lttng stop $1: $(cat /tmp/lttng.out)"
	note "${1}_pid" "$wpid"
	check "the $1 trace kept for the host" keep "$1" "$_since"
}

check "session 'absent' (dtracer.ko not loaded)" session absent
recorded absent
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
note off_pid "$wpid"
lttng stop off > /dev/null
check "... and detached when it stopped" test "$(stat_of lttng_attached)" = 0
check "the off trace kept for the host" keep off "$off_since"

# (gate-trace.sh: the workload recorded alike, absent and off.)

# --- 2. gate global --------------------------------------------------
check "gate global is accepted" sh -c "echo global > $sys/gate"
# With probe 0 dtracer is inactive: LTTng records as stock.
check "probe disarmed" sh -c "echo 0 > $sys/probe"
check "session 'disarmed' (gate global, probe 0, nothing flagged)" session disarmed
recorded disarmed
check "probe armed again" sh -c "echo 1 > $sys/probe"
check "session 'idle' (gate global, nothing flagged)" session idle
recorded idle all

check "session 'global'" session global
# The busy processes run once the session has started and end before it
# stops (beside them, lttng start and stop took 15 to 20 s of the
# guest's time): busy and unflagged a while on either side of the flag.
lttng start global > /dev/null
d=$(busy)
sleep 1
check "trace reads 0 while nothing is flagged" reads_exactly $sys/trace 0
check "add_pid of the busy process" sh -c "echo $d > $sys/add_pid"
check "trace reads 1" reads_exactly $sys/trace 1
sleep 0.5
check "remove_pid of the busy process" sh -c "echo $d > $sys/remove_pid"
check "trace reads 0 again" reads_exactly $sys/trace 0
sleep 1
kill $d
lttng stop global > /dev/null
note global_d "$d"
check "the global trace kept for the host" keep global

# --- 3. gate thread ----------------------------------------------------
check "gate thread is accepted" sh -c "echo thread > $sys/gate"
check "session 'thread'" session thread
# A kprobe and a kretprobe event too: their handlers ask the gate as well.
check "kprobe event on ksys_read" lttng enable-event -k --probe=ksys_read dt_kp
check "kretprobe event on ksys_write" lttng enable-event -k --function=ksys_write dt_kr
lttng start thread > /dev/null
# Section 3c: only flagged threads enter the system call tracepoints now.
check "system call tracepoints narrowed to flagged threads" \
	test "$(stat_of syscalls_narrowed)" = 1
d=$(busy)
u=$(busy)
sleep 0.5
check "add_pid of one busy process" sh -c "echo $d > $sys/add_pid"
sleep 0.5
check "remove_pid" sh -c "echo $d > $sys/remove_pid"
sleep 0.5
kill $d $u
lttng stop thread > /dev/null
note thread_d "$d"
note thread_u "$u"
check "the thread trace kept for the host" keep thread

# --- 3b. gate thread with a crowd: the fork's inline hint ---------------
# The fork drops an unflagged thread's event without a call when that
# thread's bit in dtracer's hint (a bitmap of 1024 hashes of flagged
# threads) is clear, and asks dtracer when it is set. 4000 flagged
# threads set most bits, many shared with others; once they are
# unflagged, a bit must stay set while any flagged thread still hashes
# there: the busy process flagged throughout keeps its events after the
# crowd went, the unflagged one has none at any time.
# The crowd is dt-crowd's (C threads that sleep; 4000 Python threads took
# 33 s to start under emulation); it writes its ids to add_pid and
# remove_pid itself, a page at most per write. The busy processes start
# once the session has: the trace holds the part the checks read.
# crowd COMMAND: one command to dt-crowd, and its answer was "ok".
crowd() {
	_n=$(grep -c '^ok\|^error' /tmp/crowd.out)
	echo "$1" >&3
	wait_for 60 sh -c "[ \$(grep -c '^ok\|^error' /tmp/crowd.out) -gt $_n ]" &&
		tail -n 1 /tmp/crowd.out | grep -q '^ok'
}
# crowd_add: the busy process, then the crowd, flagged.
crowd_add() {
	echo "$d" > $sys/add_pid && crowd "ids 4000 $sys/add_pid"
}
rm -f /tmp/crowd.in
mkfifo /tmp/crowd.in
"$DT_BUILDDIR/tests/tools/dt-crowd" 4000 0 < /tmp/crowd.in > /tmp/crowd.out 2> /tmp/crowd.err &
crowd=$!
exec 3> /tmp/crowd.in
check "a crowd of 4000 threads" wait_for 60 grep -q "^ready 4000 0" /tmp/crowd.out
check "session 'crowd'" session crowd
lttng start crowd > /dev/null
d=$(busy)
u=$(busy)
check "add_pid of the crowd and one busy process" crowd_add
is "$(stat_of threads)" -eq 4001 "4001 threads flagged"
sleep 0.5
check "remove_pid of the crowd" crowd "ids 4000 $sys/remove_pid"
is "$(stat_of threads)" -eq 1 "one thread flagged (the busy one)"
sleep 1
# (d stays flagged until the session stops: its exit would unflag it)
lttng stop crowd > /dev/null
kill $d $u
exec 3>&-
wait $crowd
note crowd_d "$d"
note crowd_u "$u"
check "the crowd trace kept for the host" keep crowd

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
# (not busy while the probe is off below: stock LTTng would record them)
kill $d $u
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
d=$(busy)
u=$(busy)
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
check "modprobe dtracer again" modprobe dtracer
check "probe armed, gate thread" sh -c "echo 1 > $sys/probe && echo thread > $sys/gate"
reload_since=$(now)
lttng start unload > /dev/null
check "flag this shell's child" flagged true
lttng stop unload > /dev/null
check "the unload trace, recorded again, kept for the host" \
	keep unload "$reload_since" reload
check "rmmod dtracer" rmmod dtracer
lttng destroy -a > /dev/null
dt_finish
