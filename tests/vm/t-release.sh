#!/bin/sh
# seconds: 380 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that; tests/limit.sh allows three times)
# make check on the other Debian release, the guests' part (Debian 13 as
# the build machine is t-release-build.sh's, which make check-lanes runs
# in the other lane):
# 1. the kernel tests that matter most (DT_RELEASE_TESTS: the chain and
#    dtracer's events) on Debian 13's kernel and user space, as
#    tests/vm/check-kernel.sh runs them (make check-kernel runs them all);
# 2. mixed runs (DT_MIXED_TESTS, "TEST:GUEST,..." each): TEST on this
#    build with the guests named booting Debian 13 (vm.sh's
#    DT_VM_GUEST_CONFIG) and the others Debian 12, one request crossing
#    both; each guest must have run the kernel it was given.
# make check built what the guests boot (tests/vm/build-SUITE/). Each
# test's points are told here as "[SUITE] t-NAME: ..." or
# "[mixed] t-NAME: ...", with its diagnostics.
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_BUILDDIR/tests/vm/config.sh"
release_test=tests/vm/t-release.sh
. "$DT_SRCDIR/tests/vm/release-lib.sh"

suite=${DT_SUITE:-trixie}
tree=$DT_BUILDDIR/tests/vm/build-$suite/tree
[ -f "$tree/tests/vm/config.sh" ] ||
	tap_skip_all "nothing built for $suite (make check builds it with VM tests on)"

for test in ${DT_RELEASE_TESTS:?}; do
	name=$(basename "$test" .sh)
	log=$tree/tests/out/$name.log
	mkdir -p "$tree/tests/out"
	t0=$(date +%s)
	DT_BUILDDIR=$tree sh "$DT_SRCDIR/$test" > "$log" 2>&1
	rc=$?
	part "$name [$suite]" $(($(date +%s) - t0)) "$(stated "$test")" $rc
	report "$suite" "$name" "$log" $rc
done

# The kernel each guest ran (guest-init.sh's "started").
suite_rel=$(. "$tree/tests/vm/config.sh"; echo "$DT_KERNEL_RELEASE")
for spec in ${DT_MIXED_TESTS:-}; do
	test=${spec%%:*}
	name=$(basename "$test" .sh)
	res=$DT_BUILDDIR/tests/out/mixed/$name
	conf=
	for g in $(echo "${spec#*:}" | tr ',' ' '); do
		conf="$conf${conf:+ }$g=$tree/tests/vm/config.sh"
	done
	rm -rf "$res"
	mkdir -p "$res"
	t0=$(date +%s)
	DT_TEST_OUT=$res DT_VM_GUEST_CONFIG=$conf sh "$DT_SRCDIR/$test" \
		> "$res.log" 2>&1
	rc=$?
	part "$name [mixed]" $(($(date +%s) - t0)) "$(stated "$test")" $rc
	report mixed "$name" "$res.log" $rc
	for g in $(echo "${spec#*:}" | tr ',' ' '); do
		[ -f "$res/$g/.guest.env" ] ||
			tap_result 1 "[mixed] $name: $g is one of its guests (no $res/$g)"
	done
	# Traces recorded on both releases (the demo's, on its collector):
	# one merge of both lttng-modules versions.
	metas=$(find "$res" -path '*/traces/*/kernel/metadata' 2>/dev/null)
	if [ -n "$metas" ]; then
		# shellcheck disable=SC2086
		vers=$(for m in $metas; do
			grep -a -o -E 'tracer_(major|minor|patchlevel) = [0-9]+' "$m" |
				awk '{ v = v (v == "" ? "" : ".") $3 } END { print v }'
		done | sort -u -V | tr '\n' ' ')
		tap_result "$([ "$(echo $vers | wc -w)" -ge 2 ] &&
			[ -d "$res/merged" ]; echo $?)" \
			"[mixed] $name: one merge of traces recorded by lttng-modules $vers"
	fi
	for d in "$res"/*/; do
		g=$(basename "$d")
		[ -f "$d/.guest.env" ] || continue
		want=$DT_KERNEL_RELEASE
		case ",${spec#*:}," in *",$g,"*) want=$suite_rel ;; esac
		got=$(cat "$d/started" 2>/dev/null)
		tap_result "$([ "$got" = "$want" ]; echo $?)" \
			"[mixed] $name: $g ran $want (${got:-no record})"
	done
done
tap_done
