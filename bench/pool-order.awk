# pool-order.awk: replays a thread pool's system calls (strace -f -ttt
# -yy of dt-httpd -p N, one reader and N workers) through the order
# rule a kernel could apply, and scores it against what each worker
# served (bench/pool-order.sh; docs/limitations.md, the hand-off).
#
# The reader reads requests on accepted connections: the k-th one read
# is job k. A worker "takes" a job at its first system call after its
# last answer that is none of: a futex call (a lock, a condition
# variable: waiting, not working), a call on the connection it answered
# (the rest of its answer, its close), a write on a pipe (telling a
# sibling). The rule gives the k-th take job t. A worker's answer says
# which job it served (the request read on the connection it answers
# on): the rule is right for that job if its take was given it.
# Also counted: the takes after a wake-up (the worker slept in a futex
# wait since its answer), the only ones the wake-up rule (handoff.c)
# sees; and, as a baseline, the same order rule taking at the very
# first system call after an answer (its close, a lock: no exclusion).
#
# Input: the strace output; the first line's thread is the reader.
# Prints one line: jobs, right, takes after a wake-up, the baseline.

# The call's name and its first descriptor's target ("TCP:[a->b]",
# "pipe:[n]", a path), from the text after the time stamp.
function call_name(s) {
	sub(/\(.*/, "", s)
	return s
}

function target(s,    t) {
	if (!match(s, /^[a-z0-9_]+\([0-9]+</))
		return ""
	t = substr(s, RLENGTH + 1)
	if (t ~ /^TCP:\[/) {
		sub(/\]>.*/, "]", t)
		return t
	}
	sub(/>.*/, "", t)
	return t
}

# A system call entered by thread tid: s is its text.
function entered(tid, s,    n, t) {
	n = call_name(s)
	t = target(s)
	if (tid == reader)
		return
	if ((n == "write" || n == "writev" || n == "sendto") &&
	    t ~ /^TCP:/ && s ~ /"HTTP\/1\.1 /) {
		answered(tid, t)
		return
	}
	if (tid in waiting0) {
		given0[tid] = takes0++
		delete waiting0[tid]
	}
	if (!(tid in waiting))
		return
	if (n == "futex") {
		if (s ~ /FUTEX_WAIT/)
			slept[tid] = 1
		return
	}
	if (t != "" && t == last_answer[tid])
		return
	if (n == "write" && t ~ /^pipe:/)
		return
	given[tid] = takes++
	woken += slept[tid] ? 1 : 0
	delete waiting[tid]
	delete slept[tid]
}

function answered(tid, t) {
	if (!(t in job))
		return
	if (tid in given) {
		jobs++
		right += given[tid] == job[t] ? 1 : 0
		right0 += given0[tid] == job[t] ? 1 : 0
		delete given[tid]
	}
	delete given0[tid]
	waiting0[tid] = 1
	delete job[t]
	last_answer[tid] = t
	waiting[tid] = 1
}

# A read returned in the reader: a request if it starts with GET.
function read_done(t, s) {
	if (t ~ /^TCP:/ && s ~ /"GET /)
		job[t] = reads++
}

BEGIN {
	reader = -1
}

{
	tid = $1
	if (reader < 0)
		reader = tid
	if (tid != reader && !(tid in seen)) {
		seen[tid] = 1	# a new worker: its first call takes
		waiting[tid] = 1
		waiting0[tid] = 1
	}
	s = $0
	sub(/^[0-9]+ +[0-9.]+ /, "", s)
	if (s ~ /^<\.\.\. [a-z0-9_]+ resumed>/) {
		if (tid == reader && open_call[tid] ~ /^read\(/)
			read_done(target(open_call[tid]), s)
		delete open_call[tid]
		next
	}
	if (s ~ /<unfinished \.\.\.>$/) {
		open_call[tid] = s
		entered(tid, s)
		next
	}
	entered(tid, s)
	if (tid == reader && call_name(s) == "read")
		read_done(target(s), s)
}

END {
	printf "%d jobs served, %d given by the order rule (%.1f%%); " \
	       "%d takes, %d after a wake-up (%.1f%%); baseline %d (%.1f%%)\n",
	       jobs, right, jobs ? 100 * right / jobs : 0, takes, woken,
	       takes ? 100 * woken / takes : 0, right0,
	       jobs ? 100 * right0 / jobs : 0
}
