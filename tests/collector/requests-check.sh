# The requests of the merged trace (sourced by t-collect.sh, after the
# merge): dt-a's client made N requests, each through dt-b's socat to
# dt-c's dt-tcp; `dtracer requests` must give N trees, each exactly
# that chain, in that order. Then the view and the exports of the same
# trace, and `dtracer requests/view/export`'s bad input.
n_req=${DT_COLLECT_REQUESTS:-20}
rq=$out/requests
rm -rf "$rq"
mkdir -p "$rq"

"$dtracer" requests "$merged" > "$rq/table.txt" 2> "$rq/table.err"
tap_result $? "dtracer requests on the merged trace"
tap_diag_stdin < "$rq/table.txt"
# Rows: ID START DURATION UNIT HOSTS SPANS HOST PROC[TID] CRITICAL HOP...
rows=$(awk '$1 ~ /^[0-9]+$/' "$rq/table.txt" | wc -l)
tap_result $([ "$rows" -eq "$n_req" ]; echo $?) \
	"one request per request the client made ($rows of $n_req)"
odd=$(awk '$1 ~ /^[0-9]+$/ && !($5 == 3 && $6 == 3 && $7 == "dt-a" && $8 ~ /^bash\[/)' \
	"$rq/table.txt" | wc -l)
tap_result $([ "$rows" -gt 0 ] && [ "$odd" -eq 0 ]; echo $?) \
	"each: 3 hosts, 3 spans, rooted at dt-a's client thread ($odd not)"

# Each tree, as "DEPTH:HOST:PROC" in depth-first order.
i=0 bad=0
while [ "$i" -lt "$rows" ]; do
	"$dtracer" requests --tree "$i" "$merged" > "$rq/tree-$i.txt" 2>&1
	chain=$(awk 'match($0, /^ *dt-[a-z]+ [^ ]+\[[0-9]+\]  \+/) {
		match($0, /^ */); p = $2; sub(/\[.*/, "", p)
		printf "%s%d:%s:%s", sep, RLENGTH / 2, $1, p; sep = " " }' \
		"$rq/tree-$i.txt")
	if [ "$chain" != "0:dt-a:bash 1:dt-b:socat 2:dt-c:dt-tcp" ]; then
		bad=$((bad + 1))
		tap_diag "request $i: $chain"
	fi
	i=$((i + 1))
done
tap_result $([ "$rows" -gt 0 ] && [ "$bad" -eq 0 ]; echo $?) \
	"every tree is the chain the test drove: dt-a bash -> dt-b socat -> dt-c dt-tcp ($bad not)"
tap_diag_stdin < "$rq/tree-1.txt"
# The middle's socat got each request by accept and fork: the answer
# crossed back as a marked response, on both hops.
resp=$(grep -c -- '-> dt-[ab] .*(response)' "$rq"/tree-*.txt | awk -F: '$2 == 2' | wc -l)
tap_result $([ "$resp" -eq "$rows" ]; echo $?) \
	"every tree has both answers marked as responses ($resp of $rows)"

# ---- the hosts' own traces, not merged (each host read in a thread of
# its own, aligned there from its marks): the same requests, each with
# the same hosts, spans, root and critical hop's place (times may differ
# by the reference's choice and the merged clocks' rounding), and
# merge's requests.txt is the merged trace's table.
"$dtracer" requests "$traces" > "$rq/hosts.txt" 2> "$rq/hosts.err"
st=$?
shape() {	# the rows without their times
	awk '$1 ~ /^[0-9]+$/ { printf "%s %s %s %s %s %s\n", $1, $5, $6, $7, $8, $9 }' "$1"
}
tap_result $([ "$st" = 0 ] && [ "$rows" -gt 0 ] &&
	[ "$(shape "$rq/hosts.txt")" = "$(shape "$rq/table.txt")" ]; echo $?) \
	"requests of the hosts' own traces, not merged: the merged trace's $rows rows (hosts, spans, root, critical hop)"
tap_result $([ "$(shape "$merged/requests.txt")" = "$(shape "$rq/table.txt")" ]; echo $?) \
	"merge's requests.txt, written in its one pass: the same rows"

# ---- a host's trace twice (what overlapping snapshots amount to): the
# merge leaves out each repeated event, and the requests stay the same.
twice=$out/twice
rm -rf "$twice" "$out/twice-merged"
cp -r "$traces" "$twice"
src=$(ls -d "$twice"/dt-a/*/ | head -n 1)
cp -r "$src" "${src%/}-copy"
"$dtracer" merge --reference dt-a -o "$out/twice-merged" "$twice" > "$rq/twice.log" 2>&1
got=$(sed -n 's/^merged \([0-9]*\) events.*/\1/p' "$rq/twice.log")
left=$(sed -n 's/^left out \([0-9]*\) repeated.*/\1/p' "$rq/twice.log")
want=$(sed -n 's/^merged \([0-9]*\) events.*/\1/p' "$out/merge.log")
dta=$(babeltrace2 "$src" 2> /dev/null | wc -l)
tap_result $([ "${got:-0}" -eq "${want:-1}" ] && [ "${left:-0}" -eq "$dta" ]; echo $?) \
	"dt-a's trace given twice: merged ${got:-0} events (once: ${want:-?}), left out ${left:-0} (dt-a's: $dta)"
"$dtracer" requests "$out/twice-merged" > "$rq/twice.txt" 2>&1
cmp -s "$rq/twice.txt" "$rq/table.txt"
tap_result $? "... and the same requests"

# ---- bad input: exit status, a message naming the problem, no output.
# bad_input DESC STATUS PATTERN OUTFILE CMD...: CMD exits STATUS, its
# stderr matches PATTERN, OUTFILE (or a partial of it) is not there.
bad_input() {
	_d=$1 _st=$2 _pat=$3 _f=$4
	shift 4
	"$@" > "$rq/bad.out" 2> "$rq/bad.err"
	_got=$?
	_left=$(ls -d "$_f" "$_f".partial-* 2> /dev/null | head -n 1)
	if [ "$_got" = "$_st" ] && grep -q -- "$_pat" "$rq/bad.err" && [ -z "$_left" ]; then
		tap_result 0 "$_d"
	else
		tap_result 1 "$_d (exit $_got, left: ${_left:-nothing})"
		tap_diag_stdin < "$rq/bad.err"
	fi
}
plain=$out/dt-d/plain
bad_input "requests: a trace without dtracer events is named as such" 1 \
	"no dtracer event in the trace" "$rq/none" "$dtracer" requests "$plain"
bad_input "view: no page from a trace without dtracer events" 1 \
	"no dtracer event in the trace" "$rq/plain.html" \
	"$dtracer" view -o "$rq/plain.html" "$plain"
bad_input "requests --tree: an ID out of range" 1 "no request 999" \
	"$rq/none" "$dtracer" requests --tree 999 "$merged"
bad_input "requests --tree: not a number" 2 "bad value" "$rq/none" \
	"$dtracer" requests --tree x1 "$merged"
bad_input "requests: no directory" 2 "give one MERGED directory" "$rq/none" \
	"$dtracer" requests
bad_input "requests: a missing directory" 1 "$rq/missing" "$rq/none" \
	"$dtracer" requests "$rq/missing"
bad_input "view: -o is required" 2 "-o PAGE.html is required" "$rq/none" \
	"$dtracer" view "$merged"
bad_input "view: a page in a missing directory" 1 "$rq/missing/p.html" \
	"$rq/missing/p.html" "$dtracer" view -o "$rq/missing/p.html" "$merged"
bad_input "export: an unknown format" 2 "--format: bad value" "$rq/none" \
	"$dtracer" export --format svg "$merged"
bad_input "export: --format is required" 2 "--format perfetto|otlp is required" \
	"$rq/none" "$dtracer" export "$merged"
bad_input "export: a request out of range" 1 "no request 999" \
	"$rq/x.json" "$dtracer" export --format otlp --request 999 -o "$rq/x.json" "$merged"
bad_input "export: an unknown option" 2 "unknown option" "$rq/none" \
	"$dtracer" export --format otlp --frobnicate "$merged"

# ---- the page and the exports of the real trace.
. "$DT_SRCDIR/tests/collector/browser.sh"
"$dtracer" view -o "$rq/requests.html" "$merged" 2> "$rq/view.err"
tap_result $? "dtracer view writes the page"
n_spans=$(awk '$1 ~ /^[0-9]+$/ { n += $6 } END { print n + 0 }' "$rq/table.txt")
# Every message of these requests reached a traced thread: 4 per request.
dt_browser_page "the merged trace's page" "$rq/requests.html" "$n_spans" $((4 * rows))
dt_browser_shot "$rq/requests.html" "$rq/requests.png"
tap_result $? "a screenshot of it: $rq/requests.png"
rm -rf "$dt_browser_profile"
for fmt in perfetto otlp; do
	"$dtracer" export --format $fmt -o "$rq/$fmt.json" "$merged" 2> "$rq/$fmt.err"
	tap_result $? "dtracer export --format $fmt"
	got=$("$DT_BUILDDIR/tests/tools/dt-export-check" $fmt "$rq/$fmt.json" 2>&1)
	st=$?
	set -- $got
	case $fmt in
	perfetto) want="spans $n_spans flows $((4 * rows))" have="$1 $2 $3 $4" ;;
	otlp) want="spans $n_spans roots $rows" have="$1 $2 $5 $6" ;;
	esac
	tap_result $([ "$st" = 0 ] && [ "$have" = "$want" ]; echo $?) \
		"$fmt: well formed, $want ($got)"
done
"$dtracer" export --format otlp --request 1 "$merged" > "$rq/one.json" 2> "$rq/one.err"
got=$("$DT_BUILDDIR/tests/tools/dt-export-check" otlp "$rq/one.json" 2>&1)
tap_result $([ "$got" = "spans 3 flows 0 roots 1" ]; echo $?) \
	"export --request 1 to standard output: that request's 3 spans ($got)"
