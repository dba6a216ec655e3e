# The host's side of t-gate.sh (sourced after vm_report): the traces the
# guest kept (guest-gate.sh's keep: RES/traces/NAME, listed with the
# guest's clock before each workload in RES/traces.list, the workloads'
# pids in RES/gate.vars) read with babeltrace2 here, and the checks on
# what each session recorded. Each trace is kept as RES/NAME.ev too.
# RES: the guest's results folder.

grace=0.05	# s around a flag change: events already past the gate

# gate_ok DESC / gate_not_ok DESC / gate_diag TEXT: points and notes of
# the guest's trace.
gate_ok() {
	tap_result 0 "[dt-solo] $1"
}
gate_not_ok() {
	tap_result 1 "[dt-solo] $1"
}

# events NAME: the trace RES/traces/NAME as "SECONDS EVENT TID" lines in
# RES/NAME.ev; fails if babeltrace2 cannot read it. With a SINCE in
# traces.list the trace is read from two seconds before it, where
# babeltrace2's trimmer seeks through the index: what lttng start
# recorded before the workload (timers, RCU, scheduling) is neither
# decoded nor printed. Only for checks on the workload's own events; a
# check on a whole session reads it all.
events() {
	_since=$(awk -v n="$1" '$1 == n { print $2; exit }' "$RES/traces.list")
	_begin=
	[ -z "$_since" ] || _begin=--begin=$(awk -v s="$_since" 'BEGIN { printf "%.6f", s - 2 }')
	[ -d "$RES/traces/$1" ] || { echo "the guest kept no trace $1"; return 1; }
	# shellcheck disable=SC2086
	{
		babeltrace2 --clock-seconds --no-delta $_begin "$RES/traces/$1" \
			2> "$RES/$1.err"
		echo $? > "$RES/$1.rc"
	} | awk '{
		t = substr($1, 2, length($1) - 2); n = $3; sub(/:$/, "", n)
		tid = "-"
		if (match($0, /\{ tid = [0-9]+ \}/))
			tid = substr($0, RSTART + 8, RLENGTH - 10)
		print t, n, tid
	}' > "$RES/$1.ev"
	_rc=$(cat "$RES/$1.rc")
	rm -f "$RES/$1.rc"
	if [ "$_rc" != 0 ]; then
		echo "babeltrace2 exited $_rc; $(head -c 600 "$RES/$1.err")"
		echo "the trace: $(find "$RES/traces/$1" -type f -printf '%P %s, ' 2>&1 | head -c 600)"
		return 1
	fi
	rm -f "$RES/$1.err"
}

# reads_back NAME: events NAME as a point.
reads_back() {
	if _why=$(events "$1" 2>&1); then
		gate_ok "the $1 trace reads back"
	else
		gate_not_ok "the $1 trace reads back"
		tap_diag "$_why"
	fi
}

# at NAME EVENT: time of the first EVENT in the session's trace.
at() {
	awk -v e="$2" '$2 == e { print $1; exit }' "$RES/$1.ev"
}

# count NAME AWK-CONDITION: events of the session matching it; the
# fields are t (seconds), e (event name), tid.
count() {
	awk '{ t = $1; e = $2; tid = $3 } '"$2"' { n++ } END { print n + 0 }' "$RES/$1.ev"
}

# is N CMP M DESC: a numeric check with the figures in the description.
is() {
	if [ -n "$1" ] && [ "$1" "$2" "$3" ]; then
		gate_ok "$4 ($1 $2 $3)"
	else
		gate_not_ok "$4 (${1:-none} $2 $3)"
	fi
}

# per_name NAME TID: "EVENT COUNT" lines of tid's events, sorted.
per_name() {
	awk -v p="$2" '$3 == p { n[$2]++ } END { for (e in n) print e, n[e] }' "$RES/$1.ev" | sort
}

gate_trace_checks() {
	RES=$1
	_failed_before=$tap_failed
	if [ ! -f "$RES/gate.vars" ]; then
		gate_not_ok "the guest noted its workloads for the trace checks (no $RES/gate.vars)"
		return
	fi
	# shellcheck disable=SC1091
	. "$RES/gate.vars"

	# --- 1. dtracer.ko not loaded, then gate off: the same events -----
	reads_back absent
	reads_back off
	per_name absent "$absent_pid" > "$RES/absent.names"
	per_name off "$off_pid" > "$RES/off.names"
	n_absent=$(count absent "tid == $absent_pid")
	n_off=$(count off "tid == $off_pid")
	tap_diag "workload events: $n_absent without dtracer.ko, $n_off with gate off"
	is "$n_absent" -ge $((2 * work)) "without dtracer.ko the workload's reads and writes are all recorded"
	# Syscalls are the deterministic part: the same kinds and counts.
	# The rest varies with time, not with the gate: interrupts, timer
	# ticks and RCU landing on the workload come per unit of time (on the
	# debug kernel under load the first run had 40,662 events and the
	# second 28,400, with the same syscalls). So of the rest, what the
	# workload itself does: its exec and exit, and memory events (exec,
	# mmap), in both.
	_sys_absent=$(grep '^syscall_' "$RES/absent.names")
	_sys_off=$(grep '^syscall_' "$RES/off.names")
	if [ -n "$_sys_absent" ] && [ "$_sys_absent" = "$_sys_off" ]; then
		gate_ok "gate off records the same syscalls, as many, as dtracer.ko absent ($(echo "$_sys_off" | wc -l) kinds)"
	else
		gate_not_ok "gate off records the same syscalls, as many, as dtracer.ko absent"
		diff "$RES/absent.names" "$RES/off.names" | tap_diag_stdin
	fi
	own_events() {
		grep -E '^(sched_process_exec|sched_process_exit) ' "$1"
		grep -c '^kmem_' "$1" | sed 's/^0$//; s/^[0-9][0-9]*$/kmem/'
	}
	if [ "$(own_events "$RES/absent.names")" = "$(printf '%s\n' 'sched_process_exec 1' 'sched_process_exit 1' kmem)" ] &&
		[ "$(own_events "$RES/off.names")" = "$(own_events "$RES/absent.names")" ]; then
		gate_ok "gate off records the workload's own exec, exit and memory events, as dtracer.ko absent"
	else
		gate_not_ok "gate off records the workload's own exec, exit and memory events, as dtracer.ko absent"
		paste "$RES/absent.names" "$RES/off.names" | tap_diag_stdin
	fi

	# --- 2. gate global -----------------------------------------------
	reads_back disarmed
	is "$(count disarmed "tid == $disarmed_pid")" -ge $((2 * work)) \
		"with probe 0 the gate stays open: the workload is recorded as by stock LTTng"
	reads_back idle
	is "$(count idle '1')" -eq 0 "gate global with no flagged thread records nothing at all"
	reads_back global
	d=$global_d
	f=$(at global dtracer_flag) u=$(at global dtracer_unflag)
	if [ -n "$f" ] && [ -n "$u" ]; then
		gate_ok "dtracer_flag and dtracer_unflag recorded ($f, $u)"
		is "$(count global "t < $f - $grace && e !~ /^dtracer_/")" -eq 0 \
			"nothing recorded before add_pid"
		is "$(count global "t > $u + $grace && e !~ /^dtracer_/")" -eq 0 \
			"nothing recorded after remove_pid"
		is "$(count global "t > $f && t < $u && tid == $d && e ~ /^syscall_/")" -gt 100 \
			"the flagged process's syscalls are recorded in between"
		is "$(count global "t > $f && t < $u && tid != $d && tid != \"-\" && e !~ /^dtracer_/")" -gt 0 \
			"other threads' events too (global records everything meanwhile)"
	else
		gate_not_ok "dtracer_flag and dtracer_unflag recorded"
	fi

	# --- 3. gate thread -----------------------------------------------
	reads_back thread
	d=$thread_d u=$thread_u
	f=$(at thread dtracer_flag) x=$(at thread dtracer_unflag)
	if [ -n "$f" ] && [ -n "$x" ]; then
		gate_ok "dtracer's own events pass the gate (written by an unflagged shell)"
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
		tap_diag "events with the unflagged process's tid: $(per_name thread "$u" | tr '\n' ' ')"
		is "$(count thread "t > $f && t < $x && (e ~ /^irq_/ || e ~ /^timer_.*expire/)")" -gt 0 \
			"interrupt and softirq events are recorded while a thread is flagged (those of the flagged thread, or of an idle CPU)"
		is "$(count thread "(t < $f - $grace || t > $x + $grace) && e !~ /^dtracer_/")" -eq 0 \
			"nothing is recorded while no thread is flagged"
	else
		gate_not_ok "dtracer's own events pass the gate (written by an unflagged shell)"
	fi

	# --- 3b. gate thread with a crowd: the fork's inline hint ----------
	reads_back crowd
	d=$crowd_d u=$crowd_u
	last=$(awk '$2 == "dtracer_unflag" { t = $1 } END { print t }' "$RES/crowd.ev")
	is "$(count crowd 'e == "dtracer_unflag"')" -eq 4000 "the crowd's 4000 unflags are in the trace"
	is "$(count crowd "tid == $d && t > ${last:-0} && e ~ /^syscall_/")" -gt 100 \
		"after the crowd's flags went, the flagged process's syscalls are recorded"
	is "$(count crowd "tid == $u")" -eq 0 \
		"no event in the unflagged busy process's context is ever recorded (interrupts included)"

	# --- 4. unloading dtracer.ko during a session -----------------------
	reads_back unload
	is "$(count unload "tid == $unload_pid")" -ge $((2 * work)) \
		"without dtracer.ko the same session records as stock LTTng"
	reads_back reload
	is "$(count reload 'e == "dtracer_flag"')" -ge 1 \
		"the reloaded module's events reach the same session"
	# The .ev files stay; the traces, the bulk of the results, only when
	# a check failed.
	[ "$tap_failed" -gt "$_failed_before" ] || rm -rf "$RES/traces"
}
