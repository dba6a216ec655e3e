#!/bin/sh
# make check on the other Debian release: the kernel tests that matter
# most (DT_RELEASE_TESTS: the chain, the gate, dtracer's events, the
# demo) on Debian 13's kernel and user space, as tests/vm/check-kernel.sh
# runs them (make check-kernel runs the whole list). make check built
# what they boot (tests/vm/build-SUITE/). Each test's points are told
# here as "[SUITE] t-NAME: ...", with its diagnostics.
. "$DT_SRCDIR/tests/vm/tap.sh"

suite=${DT_SUITE:-trixie}
tree=$DT_BUILDDIR/tests/vm/build-$suite/tree
[ -f "$tree/tests/vm/config.sh" ] ||
	tap_skip_all "nothing built for $suite (make check builds it with VM tests on)"

for test in ${DT_RELEASE_TESTS:?}; do
	name=$(basename "$test" .sh)
	log=$tree/tests/out/$name.log
	mkdir -p "$tree/tests/out"
	DT_BUILDDIR=$tree sh "$DT_SRCDIR/$test" > "$log" 2>&1
	rc=$?
	n=0 bad=0
	while IFS= read -r line; do
		case $line in
		'ok '*)
			n=$((n + 1))
			tap_result 0 "[$suite] $name: ${line#ok * - }"
			;;
		'not ok '*)
			n=$((n + 1)) bad=1
			tap_result 1 "[$suite] $name: ${line#not ok * - }"
			;;
		'#'*)
			printf '%s\n' "$line"
			;;
		esac
	done < "$log"
	[ "$n" -gt 0 ] || tap_result 1 "[$suite] $name: ran no test point (exit $rc; log: $log)"
	[ "$rc" = 0 ] || [ "$n" -eq 0 ] || [ "$bad" = 1 ] ||
		tap_result 1 "[$suite] $name: exited $rc (log: $log)"
done
tap_done
