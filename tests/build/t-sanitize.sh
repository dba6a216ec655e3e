#!/bin/sh
# seconds: 150 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# The userspace code built with gcc's AddressSanitizer and UBSan
# (-fsanitize=address,undefined -fno-sanitize-recover=all) in a build
# folder of its own, from the release's sources (`make distdir`: works
# from an in-tree build and from distcheck's read-only tree alike): the
# dtracer command, the unit tests and the fixture tool, nothing of the
# kernel. Then the unit tests and t-corrupt.sh run against it: any
# sanitizer report fails them. Leak checking is off for the dtracer
# command (babeltrace2 and its plugins, not built with ASan, keep
# allocations to exit; the fuzz targets check the collector's own
# code for leaks).
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"

out=$DT_BUILDDIR/tests/out/sanitize
rm -rf "$out"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2> /dev/null; rm -rf "$tmp"' EXIT
src=$tmp/dtracer-$DT_VERSION
b=$tmp/build

make -C "$DT_BUILDDIR" distdir distdir="$src" > "$out/distdir.log" 2>&1
st=$?
tap_result $st "the release's sources (make distdir)"
if [ $st != 0 ]; then
	tail -n 5 "$out/distdir.log" | tap_diag_stdin
	tap_done
	exit 1
fi

san="-fsanitize=address,undefined -fno-sanitize-recover=all"
mkdir -p "$b"
(cd "$b" && "$src/configure" -q --disable-vm-tests \
	--with-kernel="$DT_KERNEL_BUILD" \
	CFLAGS="-g -O1 -fno-omit-frame-pointer $san" LDFLAGS="$san" \
	FUZZ_CC=/nonexistent) > "$out/configure.log" 2>&1
tap_result $? "configure in a build folder of its own, with $san"

unit=$(cd "$DT_BUILDDIR" && ls tests/unit/test-*.c 2>/dev/null)
[ -n "$unit" ] || unit=$(cd "$src" && ls tests/unit/test-*.c)
progs=
for f in $unit; do
	progs="$progs ${f%.c}"
done
# the generated header first (BUILT_SOURCES: only `make all` builds it)
make -C "$b" collector/export/view-page.h > "$out/build.log" 2>&1 &&
	make -C "$b" -j2 collector/dtracer tests/fuzz/dt-ctf-fixture $progs \
	>> "$out/build.log" 2>&1
tap_result $? "build: collector/dtracer, tests/fuzz/dt-ctf-fixture,$progs"
tail -n 5 "$out/build.log" | tap_diag_stdin
nm "$b/collector/dtracer" 2> /dev/null | grep -q __asan_init
tap_result $? "the dtracer command is built with ASan"

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for p in $progs; do
	ASAN_OPTIONS=detect_leaks=1 timeout 300 "$b/$p" > "$out/$(basename "$p").log" 2>&1
	st=$?
	bad=$(grep -c '^not ok' "$out/$(basename "$p").log")
	rep=$(grep -cE '^==[0-9]+==ERROR|runtime error:' "$out/$(basename "$p").log")
	tap_result $([ $st = 0 ] && [ "$bad" = 0 ] && [ "$rep" = 0 ]; echo $?) \
		"$p under ASan/UBSan: exit $st, $bad failed, $rep sanitizer reports"
	[ "$rep" = 0 ] || grep -E -A5 '^==[0-9]+==ERROR|runtime error:' \
		"$out/$(basename "$p").log" | head -n 12 | tap_diag_stdin
done

# t-corrupt against the sanitized command (its own results folder).
ASAN_OPTIONS=detect_leaks=0 DT_BUILDDIR="$b" DT_SRCDIR="$src" \
	sh "$src/tests/collector/t-corrupt.sh" > "$out/t-corrupt.log" 2>&1
st=$?
tap_result $([ $st = 0 ] && ! grep -q '^not ok' "$out/t-corrupt.log"; echo $?) \
	"t-corrupt.sh under ASan/UBSan: $(grep -c '^ok' "$out/t-corrupt.log") passed, $(grep -c '^not ok' "$out/t-corrupt.log") failed"
grep -A3 '^not ok' "$out/t-corrupt.log" | head -n 20 | tap_diag_stdin
tap_done
