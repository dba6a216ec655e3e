#!/bin/sh
# seconds: 650 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that; tests/limit.sh allows three times)
# make check on the other Debian release, in three parts:
# 1. the kernel tests that matter most (DT_RELEASE_TESTS: the chain and
#    dtracer's events) on Debian 13's kernel and user space, as
#    tests/vm/check-kernel.sh runs them (make check-kernel runs them all);
# 2. Debian 13 as the build machine (DT_INSTALL_TESTS, below);
# 3. mixed runs (DT_MIXED_TESTS, "TEST:GUEST,..." each): TEST on this
#    build with the guests named booting Debian 13 (vm.sh's
#    DT_VM_GUEST_CONFIG) and the others Debian 12, one request crossing
#    both; each guest must have run the kernel it was given.
# make check built what the guests boot (tests/vm/build-SUITE/). Each
# test's points are told here as "[SUITE] t-NAME: ...", "[SUITE build]
# t-NAME: ..." or "[mixed] t-NAME: ...", with its diagnostics.
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_BUILDDIR/tests/vm/config.sh"

suite=${DT_SUITE:-trixie}
tree=$DT_BUILDDIR/tests/vm/build-$suite/tree
[ -f "$tree/tests/vm/config.sh" ] ||
	tap_skip_all "nothing built for $suite (make check builds it with VM tests on)"

# part LABEL SECONDS STATED RC: one part's time, for scripts/times.sh
# (tests/limit.sh's DT_TIMES).
part() {
	[ -n "${DT_TIMES:-}" ] || return 0
	printf 'part\ttests/vm/t-release.sh: %s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$DT_TIMES"
}

# stated TEST: the seconds TEST states ("# seconds: N"), "-" if none.
stated() {
	_s=$(sed -n '1,30s/^# seconds: *\([0-9][0-9]*\).*/\1/p' "$DT_SRCDIR/$1" | head -n 1)
	echo "${_s:--}"
}

# report LABEL NAME LOG RC: LOG's points as this test's.
report() {
	n=0 bad=0
	while IFS= read -r line; do
		case $line in
		'ok '*)
			n=$((n + 1))
			tap_result 0 "[$1] $2: ${line#ok * - }"
			;;
		'not ok '*)
			n=$((n + 1)) bad=1
			tap_result 1 "[$1] $2: ${line#not ok * - }"
			;;
		'#'*)
			printf '%s\n' "$line"
			;;
		esac
	done < "$3"
	[ "$n" -gt 0 ] || tap_result 1 "[$1] $2: ran no test point (exit $4; log: $3)"
	[ "$4" = 0 ] || [ "$n" -eq 0 ] || [ "$bad" = 1 ] ||
		tap_result 1 "[$1] $2: exited $4 (log: $3)"
}

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

# That release as the build machine (check-kernel.sh install): configure
# picks its lttng-modules by itself, everything builds with its compiler
# and libraries, and DT_INSTALL_TESTS pass there (t-install.sh: make
# install, DKMS for its kernel).
if [ -n "${DT_INSTALL_TESTS:-}" ]; then
	ilog=$DT_BUILDDIR/tests/vm/build-$suite/install.log
	isrc=$DT_BUILDDIR/tests/vm/build-$suite/install/src
	t0=$(date +%s)
	DT_SUITE=$suite sh "$DT_SRCDIR/tests/vm/check-kernel.sh" install \
		$DT_INSTALL_TESTS > "$ilog" 2>&1
	rc=$?
	part "build and install [$suite build]" $(($(date +%s) - t0)) - $rc
	tap_result $rc "[$suite build] configure, make and make check in the $suite root"
	[ $rc = 0 ] || tail -n 15 "$ilog" | tap_diag_stdin
	want=$(grep "^$suite " "$DT_SRCDIR/lttng-modules/releases" | cut -d' ' -f2)
	got=$(. "$isrc/tests/vm/config.sh" 2>/dev/null; echo "${DT_LTTNG_MODULES_VERSION:-}")
	tap_result "$([ -n "$want" ] && [ "$got" = "$want" ]; echo $?)" \
		"[$suite build] configure picked $suite's lttng-modules by itself (${got:-none}, want $want)"
	for test in $DT_INSTALL_TESTS; do
		name=$(basename "$test" .sh)
		trs=$isrc/${test%.sh}.trs
		rc=1
		grep -q '^:global-test-result: PASS' "$trs" 2>/dev/null && rc=0
		report "$suite build" "$name" "$isrc/${test%.sh}.log" $rc
	done
fi

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
