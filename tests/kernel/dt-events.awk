# Turns babeltrace2 text (--clock-seconds --no-delta) of dtracer's events
# into one line per event, fields separated by spaces ("none" for an
# empty address):
#   TIME send|recv SADDR DADDR SPORT DPORT SEQ END_SEQ TID REASON RESPONSE
#   TIME flag TID PID REASON PARENT SADDR DADDR SPORT DPORT CONTEXT
#   TIME unflag TID PID REASON DURATION_NS REQUEST CONTEXT IDLE_NS
#   TIME answer TID PID SADDR DADDR SPORT DPORT DURATION_NS
# Addresses are dotted bytes (IPv6 too: 16 numbers). Other events are
# skipped.

# The payload: the last { ... } group of the line.
function payload(line,   i) {
	i = 0
	while (match(substr(line, i + 1), /\}, \{ /))
		i += RSTART + RLENGTH - 1
	return " " substr(line, i + 1)
}

function num(p, name,   r) {
	if (!match(p, " " name " = -?[0-9]+"))
		return "-"
	r = substr(p, RSTART, RLENGTH)
	sub(/.* = /, "", r)
	return r
}

function enumval(p, name,   r) {
	if (!match(p, " " name " = \\( \"[a-z0-9_]+\""))
		return "-"
	r = substr(p, RSTART, RLENGTH)
	sub(/.*\( "/, "", r)
	sub(/"$/, "", r)
	return r
}

function addr(p, name,   r) {
	if (!match(p, " " name " = \\[( \\[[0-9]+\\] = [0-9]+,?)* \\]"))
		return "-"
	r = substr(p, RSTART, RLENGTH)
	gsub(/\[[0-9]+\] = /, "", r)
	sub(/^ [a-z]+ = \[ ?/, "", r)
	sub(/ ?\]$/, "", r)
	gsub(/, /, ".", r)
	return r == "" ? "none" : r
}

function ports(p) {
	return addr(p, "saddr") " " addr(p, "daddr") " " num(p, "sport") " " num(p, "dport")
}

{
	t = substr($1, 2, length($1) - 2)
	e = $3
	sub(/:$/, "", e)
	p = payload($0)
}
e == "dtracer_mark_send" {
	print t, "send", ports(p), num(p, "seq"), num(p, "end_seq"), num(p, "tid"), enumval(p, "reason"), num(p, "response")
}
e == "dtracer_mark_recv" {
	print t, "recv", ports(p), num(p, "seq"), num(p, "end_seq"), "-", "-", num(p, "response")
}
e == "dtracer_flag" {
	print t, "flag", num(p, "tid"), num(p, "pid"), enumval(p, "reason"), num(p, "parent"), ports(p), num(p, "context")
}
e == "dtracer_unflag" {
	print t, "unflag", num(p, "tid"), num(p, "pid"), enumval(p, "reason"), num(p, "duration_ns"), num(p, "request"), num(p, "context"), num(p, "idle_ns")
}
e == "dtracer_answer" {
	print t, "answer", num(p, "tid"), num(p, "pid"), ports(p), num(p, "duration_ns")
}
