#!/bin/sh
# seconds: 40 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# The commands that read traces (merge, sync, requests, view, export)
# given broken input: flipped bytes in a stream (a bad packet magic, an
# unknown event id, a packet size past 2^63, then random flips), streams
# cut mid-packet, metadata missing, empty, cut short or not CTF, an empty
# directory, a file, nothing. Each must exit 1 with a first line that
# starts with "dtracer" and names the file or the problem, within 60 s,
# with no sanitizer report, leaving its input as it was and no output.
# Random flips may also leave a readable trace: then exit 0 is fine.
# Runs on the host: the trace is tests/fuzz/dt-ctf-fixture's. DTRACER
# may name another dtracer binary (t-sanitize.sh runs it on its own).
. "$DT_SRCDIR/tests/vm/tap.sh"

dtracer=${DTRACER:-$DT_BUILDDIR/collector/dtracer}
fixture=$DT_BUILDDIR/tests/fuzz/dt-ctf-fixture
w=$DT_BUILDDIR/tests/out/corrupt
rm -rf "$w"
mkdir -p "$w"
"$fixture" "$w/good" > "$w/fixture.log" 2>&1
tap_result $? "the fixture trace is written (dt-a, dt-b)"

# The valid trace works with every command.
"$dtracer" merge -o "$w/merged" "$w/good" > "$w/merge.out" 2> "$w/merge.err"
tap_result $([ $? = 0 ] && grep -q '^merged .* of 2 hosts' "$w/merge.out" &&
	grep -q 'dt-b: accurate via dt-a' "$w/merge.out"; echo $?) \
	"the valid trace merges: 2 hosts, dt-b aligned on dt-a"
"$dtracer" requests "$w/merged" > "$w/requests.out" 2> "$w/requests.err"
tap_result $([ $? = 0 ] && grep -q '^# 3 requests, 6 spans' "$w/requests.out"; echo $?) \
	"requests of the valid trace: 3 requests, 6 spans"
# The hosts' own traces, not merged: each host read in a thread of its
# own, the clocks aligned from its marks and net events there.
"$dtracer" requests "$w/good" > "$w/hosts.out" 2> "$w/hosts.err"
st=$?
trees=0
for i in 0 1 2; do
	"$dtracer" requests --tree "$i" "$w/good" > "$w/tree-hosts" 2>&1
	"$dtracer" requests --tree "$i" "$w/merged" > "$w/tree-merged" 2>&1
	cmp -s "$w/tree-hosts" "$w/tree-merged" && trees=$((trees + 1))
done
tap_result $([ "$st" = 0 ] && cmp -s "$w/hosts.out" "$w/requests.out" &&
	[ "$trees" = 3 ]; echo $?) \
	"requests of the hosts' own traces (not merged): the merged trace's table and trees, byte for byte ($trees of 3 trees)"
tap_result $(cmp -s "$w/merged/requests.txt" "$w/requests.out"; echo $?) \
	"merge wrote the table too, in the same pass: its requests.txt is what requests prints of the merged trace"
"$dtracer" view -o "$w/view.html" "$w/merged" 2> "$w/view.err" &&
	"$dtracer" export --format perfetto -o "$w/p.json" "$w/merged" 2> "$w/p.err" &&
	"$dtracer" export --format otlp -o "$w/o.json" "$w/merged" 2> "$w/o.err"
tap_result $? "view and both exports of the valid trace"

# A state of a tree: every file's checksum.
state() {
	find "$1" -type f -exec cksum {} + 2> /dev/null | sort
}

# run DESC OK PATTERN -- COMMAND...: OK 1 if exit 0 is acceptable. The
# command runs in $w/run/ (its -o outputs go there: nothing may be left).
run() {
	_desc=$1 _ok0=$2 _pat=$3
	shift 4
	rm -rf "$w/run"
	mkdir "$w/run"
	_before=$(state "$w/case")
	(cd "$w/run" && exec timeout 60 "$@") > "$w/out" 2> "$w/err"
	_st=$?
	_why=
	# the first line but babeltrace2's own report of a failed assertion
	# (printed before dtracer's line, see graph.c)
	_first=$(grep -v -e '^ *$' -e 'Assertion .* failed' "$w/err" | head -n 1)
	if [ $_st = 124 ]; then
		_why="hung (killed after 60 s)"
	elif [ $_st -ge 126 ]; then
		_why="crashed (status $_st)"
	elif grep -qE '^==[0-9]+==ERROR|runtime error:' "$w/err"; then
		_why="sanitizer report"
	elif [ "$(state "$w/case")" != "$_before" ]; then
		_why="its input changed"
	elif [ $_st = 0 ] && [ "$_ok0" = 1 ]; then
		:
	elif [ -n "$(ls -A "$w/run")" ]; then
		_why="left output: $(ls -A "$w/run" | tr '\n' ' ')"
	elif [ $_st != 1 ]; then
		_why="exit $_st, want 1"
	elif ! printf '%s\n' "$_first" | grep -q '^dtracer'; then
		_why="first line does not start with dtracer"
	elif ! printf '%s\n' "$_first" | grep -qE -- "$_pat"; then
		_why="first line does not match /$_pat/"
	fi
	if [ -z "$_why" ]; then
		tap_result 0 "$_desc: exit $_st${_first:+: $_first}"
	else
		tap_result 1 "$_desc: $_why"
		head -n 8 "$w/err" | tap_diag_stdin
	fi
}

# every_command CASE PATTERN DIR [OK]: the five commands on DIR
every_command() {
	run "$1: merge" "${4:-0}" "$2" -- "$dtracer" merge -o out "$3"
	run "$1: sync" "${4:-0}" "$2" -- "$dtracer" sync "$3"
	run "$1: requests" "${4:-0}" "$2" -- "$dtracer" requests "$3"
	run "$1: view" "${4:-0}" "$2" -- "$dtracer" view -o page.html "$3"
	run "$1: export" "${4:-0}" "$2" -- "$dtracer" export --format otlp -o o.json "$3"
}

# flip FILE OFFSET VALUE: write byte VALUE (decimal) at OFFSET
flip() {
	# shellcheck disable=SC2059
	printf "\\$(printf %o "$2")" |
		dd of="$1" bs=1 seek="$3" conv=notrunc 2> /dev/null
}
flip_at() {	# FILE OFFSET VALUE
	flip "$1" "$3" "$2"
}

# fresh: $w/case is a new copy of the good trace
fresh() {
	rm -rf "$w/case"
	cp -R "$w/good" "$w/case"
}
b=$w/case/dt-b/kernel

fresh
flip_at "$b/channel0_0" 0 255
every_command "bad packet magic" "dt-b/kernel" "$w/case"
fresh
flip_at "$b/channel0_0" 76 63
every_command "unknown event id in a stream" "dt-b/kernel" "$w/case"
fresh
flip_at "$b/channel0_0" 47 255
every_command "packet size past 2^63 (babeltrace2 asserts)" "dt-b/kernel" "$w/case"
fresh
truncate -s 1000 "$b/channel0_0"
every_command "stream cut mid-packet" "dt-b/kernel" "$w/case"
fresh
head -c 1500 "$w/good/dt-b/kernel/metadata" > "$b/metadata"
every_command "metadata cut short" "dt-b/kernel" "$w/case"
fresh
: > "$b/metadata"
every_command "empty metadata" "dt-b/kernel/metadata: empty metadata file" "$w/case"
fresh
printf 'not a trace\n' > "$b/metadata"
every_command "metadata not CTF" "dt-b/kernel/metadata: not CTF 1.8 metadata" "$w/case"
fresh
rm "$b/metadata"
every_command "a host's directory without metadata" "dt-b: no CTF trace there" "$w/case/dt-b"
fresh
sed 's/offset_s = 1700000000;/offset_s = 9223372036854775807;/' \
	"$w/good/dt-b/kernel/metadata" > "$b/metadata"
every_command "clock offset out of range" "dt-b/kernel" "$w/case"
rm -rf "$w/case"
mkdir -p "$w/case/empty"
every_command "an empty directory" "empty: no CTF trace there" "$w/case/empty"
rm -rf "$w/case"
mkdir -p "$w/case"
echo data > "$w/case/file"
every_command "a file, not a directory" "file: not a directory" "$w/case/file"
every_command "a missing directory" "none: No such file or directory" "$w/case/none"

# Random flips (a fixed sequence): exit 0 (still readable) or 1, the
# rest as above. A time going backwards is caught by babeltrace2's muxer,
# which does not say which trace: "the traces" then.
n=${DT_CORRUPT_FLIPS:-12}
size=$(wc -c < "$w/good/dt-b/kernel/channel0_0")
awk -v n="$n" -v size="$size" 'BEGIN { srand(42); for (i = 0; i < n; i++)
	printf "%d %d %d\n", int(rand() * size), int(rand() * 4), 1 + int(rand() * 255) }' |
while read -r off count val; do
	fresh
	for k in $(seq 0 "$count"); do
		flip_at "$b/channel0_0" $(((off + k * 97) % size)) "$val"
	done
	run "random flips at byte $off: merge" 1 "dt-b|the traces" -- "$dtracer" merge -o out "$w/case"
	run "random flips at byte $off: requests" 1 "dt-b|the traces" -- "$dtracer" requests "$w/case"
done > "$w/random.tap"
cat "$w/random.tap"
# the subshell's results, counted here
tap_count=$((tap_count + $(grep -c '^\(not \)\?ok' "$w/random.tap")))
tap_failed=$((tap_failed + $(grep -c '^not ok' "$w/random.tap")))
tap_done
