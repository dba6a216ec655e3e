#!/bin/sh
# seconds: 140 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# The demo itself (demo/demo.sh, what `make demo` runs), in a reduced
# form: 6 requests. Asserts what it claims: each request's tree crosses
# the three hosts (curl on dt-client -> nginx on dt-proxy -> python3 on
# dt-backend); the background traffic every host carried (bg-curl,
# bg-httpd; dt-client's through the same nginx and python3) is in no
# tree and not in the trace at all; nginx and python3 traced exactly the
# flagged requests of the more they served, as the demo prints; the
# clocks of the linked hosts align accurately; the page and the Perfetto
# trace it names are there and hold every span. DT_TEST_OUT: the
# results folder (tests/vm/t-release.sh's mixed run), default
# DT_BUILDDIR/tests/out/demo.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=${DT_TEST_OUT:-$DT_BUILDDIR/tests/out/demo}
dtracer=$DT_BUILDDIR/collector/dtracer
n_req=6
rm -rf "$out"
mkdir -p "$out"
DT_DEMO_OUT=$out DT_DEMO_REQUESTS=$n_req sh "$DT_SRCDIR/demo/demo.sh" \
	> "$out/demo.log" 2>&1
tap_result $? "the demo ran to its end"
tail -n 8 "$out/demo.log" | tap_diag_stdin
vm_report "$out" dt-collector dt-client dt-proxy dt-backend
grep -q "Everything is in $out/" "$out/demo.log"
tap_result $? "it names the folder holding its results"

# Rows: ID START DURATION UNIT HOSTS SPANS HOST PROC[TID] CRITICAL HOP...
table=$out/requests.txt
rows=$(awk '$1 ~ /^[0-9]+$/' "$table" 2>/dev/null | wc -l)
tap_result $([ "$rows" -eq "$n_req" ]; echo $?) \
	"one request per request curl made ($rows of $n_req)"
odd=$(awk '$1 ~ /^[0-9]+$/ && !($5 == 3 && $7 == "dt-client" && $8 ~ /^curl\[/)' \
	"$table" 2>/dev/null | wc -l)
tap_result $([ "$rows" -gt 0 ] && [ "$odd" -eq 0 ]; echo $?) \
	"each crosses 3 hosts from dt-client's curl ($odd not)"

# Each tree's spans as "DEPTH:HOST:PROC": curl at the root (and curl's
# own helper threads under it), nginx under it, python3 under nginx.
i=0 bad=0 bg=0
while [ "$i" -lt "$rows" ]; do
	"$dtracer" requests --tree "$i" "$out/merged" > "$out/tree-$i.txt" 2>&1
	spans=$(awk 'match($0, /^ *dt-[a-z]+ [^ ]+\[[0-9]+\]  \+/) {
		match($0, /^ */); p = $2; sub(/\[.*/, "", p)
		printf "%d:%s:%s\n", RLENGTH / 2, $1, p }' "$out/tree-$i.txt")
	other=$(echo "$spans" | grep -v -x -e 0:dt-client:curl -e 1:dt-client:curl \
		-e 1:dt-proxy:nginx -e 2:dt-backend:python3)
	if [ -n "$other" ] ||
		[ "$(echo "$spans" | grep -c -x -e 0:dt-client:curl)" != 1 ] ||
		! echo "$spans" | grep -q -x 1:dt-proxy:nginx ||
		! echo "$spans" | grep -q -x 2:dt-backend:python3; then
		bad=$((bad + 1))
		tap_diag "request $i:" $spans
	fi
	grep -q ' bg-' "$out/tree-$i.txt" && bg=$((bg + 1))
	i=$((i + 1))
done
tap_result $([ "$rows" -gt 0 ] && [ "$bad" -eq 0 ]; echo $?) \
	"every tree: dt-client curl -> dt-proxy nginx -> dt-backend python3 ($bad not)"
tap_diag_stdin < "$out/tree-1.txt"
tap_result $([ "$rows" -gt 0 ] && [ "$bg" -eq 0 ]; echo $?) \
	"no background process in any tree ($bg trees have one)"

# The background traffic happened, beside the requests, and the gate
# kept it out of the trace: no system call of a bg-* process, no switch
# away from one (what a thread does itself, in its own context). Events
# of interrupts are recorded while a request is served, whatever task
# they interrupted (the request's packets, its wake-ups): their procname
# may be a bg-* one.
fetches=0
for h in dt-client dt-proxy dt-backend; do
	fetches=$((fetches + $(cat "$out/$h/background" 2>/dev/null || echo 0)))
done
tap_result $([ "$fetches" -ge 9 ]; echo $?) \
	"background fetches on the three hosts while they recorded and the requests ran: $fetches"
n=$(grep -E '\] [^ ]+ (syscall_|sched_switch)' "$out/merged/timeline.txt" 2>/dev/null |
	grep -c 'procname = "bg-')
all=$(grep -c -E '\] [^ ]+ (syscall_|sched_switch)' "$out/merged/timeline.txt" 2>/dev/null)
tap_result $([ "$all" -gt 0 ] && [ "$n" = 0 ]; echo $?) \
	"no system call or switch of a background process in the merged trace ($n of $all)"
tap_diag "events of interrupts that came while a bg-* process ran:" \
	"$(grep -c 'procname = "bg-' "$out/merged/timeline.txt")"
n=$(grep -c 'procname = "\(curl\|nginx\|python3\)"' "$out/merged/timeline.txt" 2>/dev/null)
tap_result $([ "$n" -gt 0 ]; echo $?) \
	"... while the request's processes are there ($n events)"

# Per host, as the demo prints it: nginx and python3 served the
# background requests too, and traced only the flagged ones.
for h in dt-proxy dt-backend; do
	read -r prog served traced 2>/dev/null < "$out/$h/served"
	tap_result $([ "${traced:-x}" = "$n_req" ] && [ "${served:-0}" -gt "$n_req" ]; echo $?) \
		"$h: $prog traced the $n_req flagged requests of the ${served:-?} it served (${traced:-?})"
done
grep -A3 'served and traced' "$out/demo.log" | tap_diag_stdin

# Every marked segment the requests sent has its send in the traces:
# none lost, none matched wrongly.
lost=$(sed -n 's/.* \([0-9][0-9]*\) marked received with no mark_send.*/\1/p' \
	"$out/merge.log" 2>/dev/null)
tap_result $([ "$lost" = 0 ]; echo $?) \
	"every marked receive has its mark_send (${lost:-no count} without)"
[ "$lost" = 0 ] || grep '^clock sync:' "$out/merge.log" | tap_diag_stdin

# The clocks of the hosts the requests linked.
for p in "dt-client dt-proxy" "dt-proxy dt-backend"; do
	q=$(awk -v a="${p% *}" -v b="${p#* }" '$1 == "pair" &&
		(($2 == a && $3 == b) || ($2 == b && $3 == a)) { print $4 }' \
		"$out/merged/sync.txt" 2>/dev/null)
	tap_result $([ "$q" = accurate ]; echo $?) \
		"clocks of ${p% *} and ${p#* }: accurate (${q:-none})"
done

# What it wrote: the page and the Perfetto trace hold every span.
spans=$(sed -n 's/^# [0-9]* requests, \([0-9]*\) spans.*/\1/p' "$table")
grep -q '<script type="application/json"' "$out/requests.html" 2>/dev/null
tap_result $? "the page requests.html is there, with its data"
got=$("$DT_BUILDDIR/tests/tools/dt-export-check" perfetto "$out/requests.perfetto.json" 2>&1)
tap_result $(case $got in "spans ${spans:-x} "*) echo 0 ;; *) echo 1 ;; esac) \
	"requests.perfetto.json holds every span (${spans:-?}): $got"
if command -v chromium > /dev/null; then
	tap_result $([ -s "$out/requests.png" ]; echo $?) \
		"a picture of the page (requests.png)"
fi
tap_done
