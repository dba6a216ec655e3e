#!/bin/sh
# seconds: 5 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# The lttng-modules fork as built here (host side, no guest needed):
# the hrtimer_start probe was detected from the headers and compiled in,
# every probe that applies to this kernel was built (and everything the
# package's dkms.conf declares), for the guests' kernel release, and
# prepare.sh leaves nothing half-patched when a patch does not apply.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"

src=$DT_LTTNG_MODULES_SRC
[ -d "$src" ] || { echo "Bail out! $src missing: run make first"; exit 1; }

# 1. The header probe: the kernel's tracepoint and our build agree.
#    The timer probe's own dependency list names the header it used.
timer_cmd=$src/src/probes/.lttng-probe-timer.o.cmd
hdr=$(grep -o '[^ ]*/include/trace/events/timer.h' "$timer_cmd" | head -n 1)
[ -f "$hdr" ]
tap_result $? "the timer probe was compiled against the kernel's trace/events/timer.h"
if grep -q -F 'enum hrtimer_mode mode, bool was_armed' "$hdr"; then
	grep -q -- '-DLTTNG_HRTIMER_START_HAS_WAS_ARMED' "$timer_cmd"
	tap_result $? "kernel has hrtimer_start(..., was_armed): probe compiled with LTTNG_HRTIMER_START_HAS_WAS_ARMED"
else
	! grep -q -- '-DLTTNG_HRTIMER_START_HAS_WAS_ARMED' "$timer_cmd"
	tap_result $? "kernel has the two-argument hrtimer_start: probe compiled without the was_armed variant"
fi

# 2. Every probe is built. Kbuild says "Probe X is disabled" when it
#    leaves one out for lack of kernel-internal headers; none may say so.
if grep 'is disabled' "$DT_BUILDDIR/lttng-modules/build/build.log" > /dev/null; then
	tap_result 1 "the build left no probe out"
	grep 'is disabled' "$DT_BUILDDIR/lttng-modules/build/build.log" | tap_diag_stdin
else
	tap_result 0 "the build left no probe out"
fi

#    Every probe source has its module, but those whose kernel side does
#    not exist in this kernel; each such reason is checked here.
config=$DT_KERNEL_BUILD/.config
absent_from_kernel() {
	case $1 in
	ext3) ! grep -q '^CONFIG_EXT3_FS=' "$config" ;;     # removed in 4.3
	jbd) ! grep -q '^CONFIG_JBD=' "$config" ;;          # removed in 4.3
	lock) ! grep -q '^CONFIG_LOCKDEP=y' "$config" ;;    # lockdep tracepoints
	preemptirq) ! grep -q '^CONFIG_PREEMPTIRQ_EVENTS=y' "$config" ;;
	random) [ ! -f "$(dirname "$hdr")/random.h" ] ;;   # removed in 5.18
	user) grep -q 'probes/lttng-probe-user.o' "$src/src/Kbuild" ;; # part of lttng-tracer
	*) return 1 ;;
	esac
}
missing= excused=
for c in "$src"/src/probes/lttng-probe-*.c; do
	m=$(basename "$c" .c)
	case $m in *.mod) continue ;; esac
	[ -f "${c%.c}.ko" ] && continue
	if absent_from_kernel "${m#lttng-probe-}"; then
		excused="$excused ${m#lttng-probe-}"
	else
		missing="$missing $m"
	fi
done
[ -z "$missing" ]
tap_result $? "every probe source has its module (not applicable to this kernel:$excused)"
[ -z "$missing" ] || tap_diag "not built:$missing"

for p in timer kmem ext4 btrfs compaction regmap kvm-x86 kvm-x86-mmu rpm v4l2; do
	[ -f "$src/src/probes/lttng-probe-$p.ko" ]
	tap_result $? "lttng-probe-$p.ko is built"
done

#    And everything the package's own dkms.conf declares for this kernel.
declared=$(bash -c 'kernelver=$1; kernel_source_dir=$2; dkms_tree=/nonexistent
	. "$3/dkms.conf" >/dev/null 2>&1
	printf "%s\n" "${BUILT_MODULE_NAME[@]}"' sh "$DT_KERNEL_RELEASE" \
	"$DT_KERNEL_BUILD" "$src" | sort -u)
built=$(find "$src" -name '*.ko' | sed 's|.*/||; s|\.ko$||' | sort -u)
notbuilt=$(echo "$declared" | grep -vxF "$built")
[ -n "$declared" ] && [ -z "$notbuilt" ]
tap_result $? "all $(echo "$declared" | wc -l) modules the package's dkms.conf declares are built"
[ -z "$notbuilt" ] || echo "$notbuilt" | tap_diag_stdin
tap_diag "$(echo "$built" | wc -l) modules built in all"

# 3. Built for the guests' kernel.
vm=$(modinfo -F vermagic "$(find "$src" -name lttng-probe-timer.ko)" | cut -d' ' -f1)
[ "$vm" = "$DT_KERNEL_RELEASE" ]
tap_result $? "modules carry vermagic $DT_KERNEL_RELEASE (got $vm)"

# 4. A patch that does not apply leaves no tree behind.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/in/patches" "$tmp/work"
cp "$DT_SRCDIR/lttng-modules/SHA256SUMS" "$tmp/in/"
cp "$DT_BUILDDIR"/lttng-modules/build/*.deb "$tmp/work/"
printf -- '--- a/Makefile\n+++ b/Makefile\n@@ -1,1 +1,1 @@\n-no such line\n+x\n' \
	> "$tmp/in/patches/bad.patch"
cp "$DT_SRCDIR"/lttng-modules/patches/*.patch "$tmp/in/patches/"
{ cat "$DT_SRCDIR/lttng-modules/patches/series"; echo bad.patch; } > "$tmp/in/patches/series"
if sh "$DT_SRCDIR/lttng-modules/prepare.sh" "$tmp/in" "$tmp/work" \
	"$DT_LTTNG_MODULES_DEB_VERSION" "$DT_LTTNG_MODULES_VERSION" \
	> "$tmp/log" 2>&1; then
	tap_result 1 "prepare.sh fails when a patch does not apply"
else
	grep -q 'bad.patch does not apply' "$tmp/log"
	tap_result $? "prepare.sh fails when a patch does not apply, naming it"
fi
[ ! -e "$tmp/work/src" ] && [ ! -e "$tmp/work/src.tmp" ]
tap_result $? "... and leaves no half-patched tree"
tap_done
