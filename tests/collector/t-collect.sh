#!/bin/sh
# seconds: 110 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# Three hosts stream their traces to a collector (four guests; dt-c's
# clock is stepped 7 s ahead). Here, on the host: `dtracer merge` aligns
# and merges them; every marked receive comes after its send in the
# merged timeline (in the raw, unaligned mux some do not), the samples
# include LTTng's net events' TCP headers; each pair's
# quality and uncertainty are printed. Ground truth: dt-b's aligned
# trace is shifted by a known +7.3 s and +50 ppm, and `dtracer sync`
# recovers that shift within the bounds it reports. Then the requests,
# their view and exports (requests-check.sh), and the bad-input table
# (merge-input.sh) on copies of these traces. See guest-collect.sh.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/tests/out/collect
dtracer=$DT_BUILDDIR/collector/dtracer
vm_run "$out" "$DT_SRCDIR/tests/collector/guest-collect.sh" dt-a dt-b dt-c dt-d
vm_report "$out" dt-a dt-b dt-c dt-d

traces=$out/dt-d/traces
merged=$out/merged
rm -rf "$merged" "$out/shifted" "$out/raw.txt"
"$dtracer" merge --reference dt-a -o "$merged" "$traces" > "$out/merge.log" 2>&1
tap_result $? "dtracer merge of the collected traces"
tap_diag_stdin < "$out/merge.log"

# marked_lost LOG: the summary's "N marked received with no mark_send"
# (empty if the line is not there)
marked_lost() {
	sed -n 's/.* \([0-9][0-9]*\) marked received with no mark_send.*/\1/p' "$1"
}
lost=$(marked_lost "$out/merge.log")
tap_result $([ "$lost" = 0 ]; echo $?) \
	"every marked receive has its mark_send (${lost:-no count} without)"
[ "$lost" = 0 ] || grep '^clock sync:' "$out/merge.log" | tap_diag_stdin

n=$(sed -n 's/.*matched (\([0-9]*\) with LTTng.s net events.*/\1/p' "$out/merge.log")
tap_result $([ "${n:-0}" -gt 0 ]; echo $?) \
	"LTTng's net_dev_queue/net_if_receive_skb TCP headers give samples too (${n:-0})"

# quality PAIR-A PAIR-B: the pair's quality in sync.txt (either order)
quality() {
	awk -v a="$1" -v b="$2" '$1 == "pair" && (($2 == a && $3 == b) || ($2 == b && $3 == a)) { print $4 }' \
		"$merged/sync.txt" 2>/dev/null
}
for p in "dt-a dt-b" "dt-b dt-c"; do
	q=$(quality $p)
	tap_result $([ "$q" = accurate ]; echo $?) "pair ${p% *}/${p#* }: accurate (${q:-none})"
done
q=$(awk '$1 == "host" && $2 == "dt-c" { print $3 " via " $5 ", +/- " $13 " ns" }' "$merged/sync.txt" 2>/dev/null)
tap_result $(case $q in accurate*) echo 0 ;; *) echo 1 ;; esac) "dt-c aligned through dt-b: $q"

# causality FILE: "MATCHED INVERSIONS UNMATCHED" of a babeltrace2 text
causality() {
	awk -f "$DT_SRCDIR/tests/kernel/dt-events.awk" "$1" |
		awk -f "$DT_SRCDIR/tests/collector/causality.awk" 2> "$1.inversions"
}
set -- $(causality "$merged/timeline.txt")
tap_result $([ "${1:-0}" -ge 60 ] && [ "$2" = 0 ]; echo $?) \
	"merged timeline: every matched receive after its send (${1:-0} matched, ${2:-?} inversions, ${3:-?} unmatched)"
babeltrace2 --clock-seconds --no-delta "$traces" > "$out/raw.txt" 2>/dev/null
set -- $(causality "$out/raw.txt")
tap_result $([ "${2:-0}" -gt 0 ]; echo $?) \
	"unaligned mux of the same traces has inversions (${2:-0} of ${1:-0}): the test can tell"

# Ground truth: shift dt-b's aligned clock by +7.3 s and +50 ppm around
# K, then sync again. The aligned traces satisfy every pair's samples
# with no correction, so the shift's inverse must lie in dt-a/dt-b's
# reported bounds.
cp -r "$merged/ctf" "$out/shifted"
K=$(awk '$1 == "host" && $2 == "dt-b" { print $7 }' "$merged/sync.txt")
md=$(ls "$out"/shifted/dt-b/*/kernel/metadata 2>/dev/null | head -n 1)
"$DT_BUILDDIR/tests/tools/dt-retime" "$md" 7300000000 50 "$K"
tap_result $? "dt-b's aligned trace shifted by +7.3 s, +50 ppm (anchor $K)"
"$dtracer" sync --reference dt-a "$out/shifted" > "$out/shifted.sync" 2> "$out/shifted.err"
tap_result $? "dtracer sync of the shifted traces"
tap_diag_stdin < "$out/shifted.sync"
# pair line: pair X Y Q samples n m anchor_ns T offset_ns O [LO HI]
# drift_ppm D [LO HI] ... (t_X = t_Y + O + D (t_Y - T)).
awk -v K="$K" '
$1 == "pair" && (($2 == "dt-a" && $3 == "dt-b") || ($2 == "dt-b" && $3 == "dt-a")) {
	gsub(/\[|\]/, "")
	r = 50e-6; T = $9; d = T - K
	O = $11; olo = $12; ohi = $13; D = $15 / 1e6; dlo = $16 / 1e6; dhi = $17 / 1e6
	if ($2 == "dt-a") {	# t_a = Tinv(t_b)
		oexp = -7.3e9 / (1 + r) + d * (1 / (1 + r) - 1)
		dexp = 1 / (1 + r) - 1
	} else {		# t_b = T(t_a)
		oexp = 7.3e9 + r * d
		dexp = r
	}
	slack = 50	# ns: rounding of the retimed clocks
	printf "%s/%s: offset %.1f in [%.1f, %.1f], injected %.1f; drift %.4f ppm in [%.4f, %.4f], injected %.4f\n", \
		$2, $3, O, olo, ohi, oexp, D * 1e6, dlo * 1e6, dhi * 1e6, dexp * 1e6
	ok = $4 == "accurate" && oexp >= olo - slack && oexp <= ohi + slack && \
	     dexp >= dlo - 1e-9 && dexp <= dhi + 1e-9
	exit !ok
}
END { if (!NR) exit 1 }' "$out/shifted.sync" > "$out/truth.txt"
tap_result $? "injected offset and drift recovered within the reported bounds: $(cat "$out/truth.txt")"

. "$DT_SRCDIR/tests/collector/requests-check.sh"
. "$DT_SRCDIR/tests/collector/merge-input.sh"
tap_done
