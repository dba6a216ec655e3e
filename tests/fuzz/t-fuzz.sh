#!/bin/sh
# seconds: 40 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# The libFuzzer targets of tests/fuzz/ (DT_FUZZ_TARGETS, from the
# Makefile's FUZZ_TARGETS), briefly: each replays its corpus
# (tests/fuzz/corpus/TARGET/, read-only: new inputs go to a scratch
# directory), then fuzzes for FUZZ_CHECK_RUNS runs or FUZZ_CHECK_SECONDS
# seconds, whichever comes first. A crash, a sanitizer report, a failed
# check, a leak or a hang (an input running longer than 10 s) fails the
# target; its input is kept in tests/out/fuzz/ with the log.
. "$DT_SRCDIR/tests/vm/tap.sh"

[ -n "$DT_FUZZ_MISSING" ] &&
	tap_skip_all "fuzz targets not built: $DT_FUZZ_MISSING"
[ -n "$DT_FUZZ_TARGETS" ] || tap_skip_all "no fuzz target listed (FUZZ_TARGETS)"
runs=${FUZZ_CHECK_RUNS:-50000}
secs=${FUZZ_CHECK_SECONDS:-5}
out=$DT_BUILDDIR/tests/out/fuzz
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# stat NAME LOG: a number of libFuzzer's final statistics
stat() {
	sed -n "s/^stat::$1: *\([0-9]*\).*/\1/p" "$2" | tail -n 1
}

# failed DESC LOG: the report and where the input was kept
failed() {
	tap_result 1 "$1"
	grep -E 'ERROR|SUMMARY|runtime error|check failed|Test unit written|^==' "$2" |
		head -n 12 | tap_diag_stdin
	tap_diag "log: $2"
}

for t in $DT_FUZZ_TARGETS; do
	bin=$DT_BUILDDIR/tests/fuzz/$t
	corpus=$DT_SRCDIR/tests/fuzz/corpus/$t
	log=$out/$t.log
	if [ ! -x "$bin" ]; then
		tap_result 1 "$t: built ($bin missing)"
		continue
	fi
	n=0
	[ -d "$corpus" ] && n=$(find "$corpus" -type f | wc -l)
	mkdir -p "$tmp/$t"
	# libFuzzer takes no missing directory: an empty one stands in
	[ -d "$corpus" ] || corpus=$tmp/$t
	if "$bin" -runs=0 -timeout=10 -artifact_prefix="$out/$t-" \
		"$corpus" > "$log" 2>&1; then
		tap_result 0 "$t: replays its corpus ($n inputs) cleanly"
	else
		failed "$t: replays its corpus ($n inputs) cleanly" "$log"
		continue
	fi
	start=$(date +%s)
	if "$bin" -runs="$runs" -max_total_time="$secs" -timeout=10 \
		-print_final_stats=1 -artifact_prefix="$out/$t-" \
		"$tmp/$t" "$corpus" > "$log" 2>&1; then
		rate=$(stat average_exec_per_sec "$log")
		[ "${rate:-0}" = 0 ] && rate="over $runs"	# done within 1 s
		tap_result 0 "$t: $(stat number_of_executed_units "$log") new runs in $(($(date +%s) - start)) s, no crash ($rate runs/s, coverage $(sed -n 's/.*DONE *cov: \([0-9]*\).*/\1/p' "$log" | tail -n 1) edges)"
	else
		failed "$t: fuzzed for ${secs} s or $runs runs without a crash" "$log"
	fi
done
tap_done
