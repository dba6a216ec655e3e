#!/bin/sh
# seconds: 15 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# dtracer.ko and its LTTng probe follow the kernel's coding style: the
# kernel's own scripts/checkpatch.pl (--strict) on every C file and header
# of both. The tracepoint declarations (dtracer/trace/, probes/events/)
# follow the layout of the kernel's own include/trace/events/, which
# checkpatch does not parse, as in the kernel itself.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"

cp=$DT_KERNEL_PRIVATE/scripts/checkpatch.pl
[ -f "$cp" ] || { echo "Bail out! no $cp (run make)"; exit 1; }

for f in "$DT_SRCDIR"/dtracer/*.c "$DT_SRCDIR"/dtracer/*.h \
	"$DT_SRCDIR"/probes/*.c; do
	case $f in *.mod.c) continue ;; esac
	out=$(perl "$cp" --no-tree --strict --quiet --no-summary -f "$f" 2>&1)
	if [ $? -eq 0 ] && [ -z "$out" ]; then
		tap_result 0 "checkpatch --strict: ${f#"$DT_SRCDIR"/}"
	else
		tap_result 1 "checkpatch --strict: ${f#"$DT_SRCDIR"/}"
		echo "$out" | tap_diag_stdin
	fi
done
tap_done
