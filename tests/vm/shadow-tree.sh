#!/bin/sh
# A shadow build folder: what the tests take as DT_BUILDDIR to run the
# harness on another kernel (tests/vm/check-kernel.sh: another Debian
# release; tests/vm/check-debug.sh: the debug kernel), the normal build
# left alone.
#
#   shadow-tree.sh TREE LTTNG_SRC WHAT < SETTINGS
#
# TREE/tests/vm/config.sh is DT_BUILDDIR's config.sh with SETTINGS
# (shell lines: NAME=VALUE and comments) in place of every variable they
# set, under a first line "# Made by WHAT". The host-built tools, the
# collector and the fuzzers, and the guests' nginx and Redis are linked
# from DT_BUILDDIR; TREE/lttng-modules/build/src is LTTNG_SRC (the fork
# built for that kernel); TREE/tests/out/ is where the tests' results go.
set -eu

[ $# -eq 3 ] || { echo "usage: shadow-tree.sh TREE LTTNG_SRC WHAT < SETTINGS" >&2; exit 2; }
t=$1 lm=$2 what=$3
: "${DT_BUILDDIR:?}"
settings=$(cat)

mkdir -p "$t/tests/vm/build" "$t/tests/out" "$t/lttng-modules/build"
for d in tests/tools collector tests/fuzz; do
	ln -sfn "$DT_BUILDDIR/$d" "$t/$d"
done
for d in nginx redis; do
	ln -sfn "$DT_BUILDDIR/tests/vm/build/$d" "$t/tests/vm/build/$d"
done
ln -sfn "$lm" "$t/lttng-modules/build/src"

# The variables SETTINGS set; the build's lines setting them are left
# out, with the two-line default of a "download" value.
names=" $(printf '%s\n' "$settings" | sed -n 's/^\([A-Z_][A-Z0-9_]*\)=.*/\1/p' | tr '\n' ' ')"
{
	echo "# Made by $what"
	awk -v names="$names" '
		skip { skip = 0; next }
		match($0, /^[A-Z_][A-Z0-9_]*=/) {
			if (index(names, " " substr($0, 1, RLENGTH - 1) " "))
				next
		}
		/^\[ "\$[A-Z_][A-Z0-9_]*" = download \] &&$/ {
			n = substr($0, 5)
			sub(/".*/, "", n)
			if (index(names, " " n " ")) {
				skip = 1
				next
			}
		}
		{ print }' "$DT_BUILDDIR/tests/vm/config.sh"
	printf '%s\n' "$settings"
} > "$t/tests/vm/config.sh.tmp"
mv "$t/tests/vm/config.sh.tmp" "$t/tests/vm/config.sh"
