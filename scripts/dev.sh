#!/bin/sh
# The README's set-up commands, as root on Debian 12:
#
#   sh scripts/dev.sh check   install what is missing, build, run all tests
#                             (make check-lanes: the guest tests in two
#                             lanes, one of which ends with make distcheck:
#                             the tarball builds, installs and passes the
#                             unit, build and fuzz tests from a read-only
#                             source tree)
#   sh scripts/dev.sh demo    install what is missing, build, run the demo
#
# Both are idempotent: a second run rebuilds only what changed.
#
# check ends with where the time went (scripts/times.sh: each phase, the
# slowest tests, those over twice their stated time, the distance from
# the 40-minute budget), also when it fails, then the longest steps
# inside the guests (scripts/guest-steps.sh); the figures stay in
# tests/phases.tsv and tests/times.tsv; and each test run whose guests
# were booted again because one never reached its script (tests/vm/
# vm.sh's vm_run, tests/retries.log).
set -eu
cd "$(dirname "$0")/.."

case ${1:-} in
check | demo) ;;
*) echo "usage: sh scripts/dev.sh check|demo" >&2; exit 2 ;;
esac

# phase NAME: the seconds since the previous phase ended go to NAME,
# with the processor seconds its commands used (tests/times-lib.sh).
DT_PHASES=$PWD/tests/phases.tsv
DT_TIMES=$PWD/tests/times.tsv
export DT_PHASES DT_TIMES
. tests/times-lib.sh
phase_t=$(date +%s) phase_cpu=0
phase() {
	_now=$(date +%s)
	cpu_children tests/phases.cpu
	_cpu=$(cpu_seconds tests/phases.cpu)
	printf '%s\t%s\t\t%s\n' "$1" $((_now - phase_t)) $((_cpu - phase_cpu)) >> "$DT_PHASES"
	phase_t=$_now phase_cpu=$_cpu
	running=
}
# running: the phase under way; a failure there still counts its time.
running="packages"

# The kernel modules' compiles go through ccache (scripts/kbuild-cached.sh):
# distcheck's build and the DKMS builds of the tests compile nothing the
# main build did. Its folder stays in the clone: a run compiles each
# source once, whatever ran before.
DT_CCACHE=${DT_CCACHE:-$PWD/.ccache}
export DT_CCACHE
# And without debug information (KCFLAGS, Kbuild's extra compiler
# options, read by every Kbuild and DKMS build below): neither the tests
# nor the demo read DWARF, and making it was a quarter of the fork's
# compile (a cold build of the fork: 366 processor seconds with it, 269
# without) and most of what the link steps and ccache read and write.
# Debian 13's builds keep the kernel's -g (tests/vm/check-kernel.sh's
# in_root): its module BTF is made from DWARF. A KCFLAGS already set,
# even empty, is kept; make or DKMS run on their own keep -g.
KCFLAGS=${KCFLAGS--g0}
export KCFLAGS
if [ "$1" = check ]; then
	: > "$DT_PHASES"
	: > "$DT_TIMES"
	rm -f tests/retries.log tests/vm/build-trixie/tree/tests/retries.log
	trap '[ -z "$running" ] || phase "$running (failed)"
		sh scripts/times.sh "$DT_PHASES" "$DT_TIMES"
		cat tests/retries.log tests/vm/build-trixie/tree/tests/retries.log 2> /dev/null |
			sed "s/^/guests booted again (tests\/vm\/vm.sh): /" || true
		sh scripts/guest-steps.sh tests/out tests/vm/build-trixie/tree/tests/out || true
		CCACHE_DIR=$DT_CCACHE ccache -s 2> /dev/null |
			sed -n "s/^ *\(Hits\|Misses\): */ccache \1: /p" || true' EXIT
fi

sh scripts/deps.sh
phase packages
running=configure
[ "$1" != check ] || CCACHE_DIR=$DT_CCACHE ccache -z > /dev/null 2>&1 || true
[ -x configure ] || ./autogen.sh
# configure again when a package it probes for (clang for the fuzzers,
# dkms, ...) was installed or changed since it ran: a tree configured
# before would skip what it did not find for good. config.deps holds
# the packages' state that configure last saw.
# shellcheck disable=SC2046
pkgs=$(dpkg-query -W -f='${Package} ${Version} ${db:Status-Status}\n' \
	$(sh scripts/deps.sh --list) 2>/dev/null || true)
if [ ! -f Makefile ] || [ ! -f config.status ]; then
	./configure
elif [ "$pkgs" != "$(cat config.deps 2>/dev/null)" ]; then
	echo "dev: packages changed since configure ran: configure again (same options)"
	./config.status --recheck
	./config.status
fi
printf '%s\n' "$pkgs" > config.deps
phase configure
running=build
# Debian 13's root (downloads, unpacking) is made beside the build,
# once the Makefile is up to date (neither make remakes it then).
if [ "$1" = check ]; then
	make Makefile > /dev/null
	make check-suite-root > tests/suite-root.log 2>&1 &
	root_pid=$!
fi
make -j"$(nproc)"
phase build
if [ "$1" = check ]; then
	running=debian13-root
	if ! wait $root_pid; then
		tail -n 30 tests/suite-root.log
		echo "dev: Debian 13's root failed (log: tests/suite-root.log)" >&2
		exit 1
	fi
	phase debian13-root
fi
if [ "$1" = check ]; then
	# The tests in two lanes side by side (tests/lanes.sh): lane B
	# builds Debian 13's part first and ends with make distcheck (the
	# unit, build and fuzz tests run from its tarball build).
	running=check
	make check-lanes
	phase check
else
	make "$1"
fi
