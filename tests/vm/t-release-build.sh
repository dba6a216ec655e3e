#!/bin/sh
# seconds: 500 (expected on 2 cores under make check-lanes, beside the other lane's guests; scripts/times.sh flags twice that)
# make check on the other Debian release as the build machine (the
# guests' part is t-release.sh's): in its root (tests/vm/build-SUITE/,
# which make check made), a copy of this tree configured and built with
# that release's compiler and libraries (tests/vm/check-kernel.sh build
# did, for the guests' modules; install builds it again first if the
# source changed since), and DT_INSTALL_TESTS run there (check-kernel.sh
# install). Its points are told here as "[SUITE build] t-NAME: ...",
# with their diagnostics. Boots no guest.
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_BUILDDIR/tests/vm/config.sh"
release_test=tests/vm/t-release-build.sh
. "$DT_SRCDIR/tests/vm/release-lib.sh"

suite=${DT_SUITE:-trixie}
[ -f "$DT_BUILDDIR/tests/vm/build-$suite/tree/tests/vm/config.sh" ] ||
	tap_skip_all "nothing built for $suite (make check builds it with VM tests on)"
[ -n "${DT_INSTALL_TESTS:-}" ] || tap_skip_all "no install test listed (DT_INSTALL_TESTS)"

# That release as the build machine (check-kernel.sh install): configure
# picks its lttng-modules by itself, everything builds with its compiler
# and libraries, and DT_INSTALL_TESTS pass there (t-install.sh: make
# install, DKMS for its kernel).
ilog=$DT_BUILDDIR/tests/vm/build-$suite/install.log
isrc=$DT_BUILDDIR/tests/vm/build-$suite/install/src
t0=$(date +%s)
DT_SUITE=$suite sh "$DT_SRCDIR/tests/vm/check-kernel.sh" install \
	$DT_INSTALL_TESTS > "$ilog" 2>&1
rc=$?
# The part is all of this test: it states this test's seconds.
part "build and install [$suite build]" $(($(date +%s) - t0)) "$(stated "$release_test")" $rc
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
tap_done
