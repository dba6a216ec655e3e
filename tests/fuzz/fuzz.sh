#!/bin/sh
# make fuzz: every libFuzzer target of tests/fuzz/ (DT_FUZZ_TARGETS) for
# FUZZ_SECONDS seconds each (default 300), starting from its corpus in
# the source tree (never written to). Per target: runs, runs/s,
# coverage, the new inputs that add coverage to the corpus (minimised
# with libFuzzer's -merge=1, under tests/out/fuzz/TARGET/add/; with
# FUZZ_SAVE=1 they are copied into tests/fuzz/corpus/TARGET/), and any
# crash with its input. Exit status 1 if a target crashed.
secs=${FUZZ_SECONDS:-300}
[ -n "$secs" ] || secs=300
out=$DT_BUILDDIR/tests/out/fuzz
status=0
for t in $DT_FUZZ_TARGETS; do
	bin=$DT_BUILDDIR/tests/fuzz/$t
	corpus=$DT_SRCDIR/tests/fuzz/corpus/$t
	w=$out/$t
	rm -rf "$w"
	mkdir -p "$w/new" "$w/add"
	[ -d "$corpus" ] && cp "$corpus"/* "$w/add/" 2> /dev/null
	echo "fuzz: $t for $secs s (corpus $corpus, log $w/fuzz.log)"
	"$bin" -max_total_time="$secs" -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$w/" "$w/new" "$w/add" > "$w/fuzz.log" 2>&1
	rc=$?
	sed -n 's/^stat::\(number_of_executed_units\|average_exec_per_sec\|peak_rss_mb\): */  \1: /p' \
		"$w/fuzz.log"
	sed -n 's/.*DONE *cov: \([0-9]*\) ft: \([0-9]*\) corp: \([^ ]*\).*/  coverage: \1 edges, \2 features, corpus \3 inputs\/bytes/p' \
		"$w/fuzz.log"
	if [ $rc -ne 0 ]; then
		status=1
		echo "  CRASH (exit $rc):"
		grep -E 'ERROR|SUMMARY|runtime error|check failed|Test unit written' \
			"$w/fuzz.log" | head -n 8 | sed 's/^/    /'
		continue
	fi
	# What the run found that the corpus did not cover, minimised.
	before=$(ls "$w/add" | wc -l)
	"$bin" -merge=1 "$w/add" "$w/new" > "$w/merge.log" 2>&1
	added=$(($(ls "$w/add" | wc -l) - before))
	echo "  new inputs adding coverage: $added (in $w/add/, beside the corpus' $before)"
	if [ "$added" -gt 0 ] && [ "${FUZZ_SAVE:-0}" = 1 ]; then
		mkdir -p "$DT_SRCDIR/tests/fuzz/corpus/$t"
		for f in "$w/add"/*; do
			[ -e "$corpus/$(basename "$f")" ] ||
				cp "$f" "$DT_SRCDIR/tests/fuzz/corpus/$t/"
		done
		echo "  saved into tests/fuzz/corpus/$t/"
	fi
done
[ $status -eq 0 ] && echo "fuzz: no crash" || echo "fuzz: CRASHES above"
exit $status
