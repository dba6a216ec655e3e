#!/bin/sh
# make check-lanes (scripts/dev.sh check, and so CI): the whole run's
# tests in two lanes side by side on a 2-core machine, each test still
# its own TAP test with its own .trs, result and time limit.
#
#   lane A: the tests that boot two guests or more (LANE_A), one after
#           another (each keeps both cores busy while its guests run),
#           then LANE_A_AFTER (t-release.sh: Debian 13's guests) once
#           lane B has built what those boot;
#   lane B: Debian 13's build (make check-suite-build), LANE_B
#           (t-release-build.sh: that release as the build machine), then
#           make distcheck, whose tarball build runs the unit, build and
#           fuzz tests (LANE_HOST, which are not run a second time here)
#           from a read-only source tree;
#   then either lane: LANE_POOL (the tests that boot one guest or none,
#           at most one core each), each taken by the first lane done
#           with the rest (mkdir under tests/lanes-pool claims it), so
#           that both lanes end about together.
#
# distcheck removes its build folder once it passes: its tests' .log and
# .trs are kept under tests/distcheck/ (tests/driver.sh's
# DT_KEEP_RESULTS) and counted by .ci/run with the others. Each lane's
# summaries are tests/lane-a*.log, tests/lane-b.log and, per test of the
# pool, tests/lane-pool-TEST.log. With DT_PHASES set (dev.sh), each
# step's seconds are written there as "lane X: STEP<TAB>SECONDS<TAB>
# check<TAB>PROCESSOR SECONDS": parts of dev.sh's check phase
# (scripts/times.sh).
#
# Run by make (the top build folder, MAKE set); exits 0 when both lanes
# passed.
set -u
: "${MAKE:=make}" "${LANE_A:=}" "${LANE_A_AFTER:=}" "${LANE_B:=}" \
	"${LANE_POOL:=}"
. "${LANES_SRCDIR:-.}/tests/times-lib.sh"
jobs=$(nproc 2> /dev/null || echo 2)
keep=$PWD/tests/distcheck
pool=tests/lanes-pool
# The pool's longest first (as each states, "# seconds: N"), so that
# what is left at the end is short: the lanes end about together.
LANE_POOL=$(for _t in $LANE_POOL; do
	_s=$(stated_seconds "${LANES_SRCDIR:-.}/$_t")
	echo "${_s:-0} $_t"
done | sort -k1,1nr | cut -d' ' -f2 | tr '\n' ' ')
rm -rf "$keep" "$pool" tests/lane-b.built tests/lane-pool-*.log
mkdir -p "$pool" || exit 1
echo "check-lanes: lane A:$(echo " $LANE_A $LANE_A_AFTER" | sed 's| [^ ]*/| |g')"
echo "check-lanes: lane B: check-suite-build$(echo " $LANE_B" | sed 's| [^ ]*/| |g') distcheck"
echo "check-lanes: then either:$(echo " $LANE_POOL" | sed 's| [^ ]*/| |g')"

# step LANE NAME COMMAND...: COMMAND, its seconds and processor seconds
# (tests/times-lib.sh) to DT_PHASES. Its own variables (the lanes'
# statuses are _rc, _prc and sa).
step() {
	_lane=$1 _name=$2
	shift 2
	_t0=$(date +%s)
	cpu_children "tests/lane-$_lane.cpu"
	_c0=$(cpu_seconds "tests/lane-$_lane.cpu")
	"$@"
	_step_rc=$?
	cpu_children "tests/lane-$_lane.cpu"
	_c1=$(cpu_seconds "tests/lane-$_lane.cpu")
	_st=
	[ $_step_rc = 0 ] || _st=" (failed)"
	[ -z "${DT_PHASES:-}" ] ||
		printf 'lane %s: %s%s\t%s\tcheck\t%s\n' "$_lane" "$_name" "$_st" \
			$(($(date +%s) - _t0)) $((_c1 - _c0)) >> "$DT_PHASES"
	return $_step_rc
}

# tests LOG TEST...: make check's TESTS, without making check_DATA (made
# before the lanes; Debian 13's part by lane B).
tests() {
	_log=$1
	shift
	[ $# -gt 0 ] || return 0
	$MAKE check-TESTS TESTS="$*" TEST_SUITE_LOG="$_log" check_DATA=
}

# pool LANE: the tests of LANE_POOL no lane has taken yet, one at a time;
# non-zero if one failed.
pool() {
	_prc=0
	for _t in $LANE_POOL; do
		_n=$(basename "$_t" .sh)
		mkdir "$pool/$_n" 2> /dev/null || continue
		step "$1" "$_n" tests "tests/lane-pool-$_n.log" "$_t" || _prc=1
	done
	return $_prc
}

lane_b() {
	_rc=0
	# Debian 13's builds ahead of lane A's guests (check-kernel.sh's
	# default, nice 19, would wait on them; at 0 the build got 0.55 of a
	# core beside lane A's guests, 1,157 s for 632 processor seconds, and
	# lane B, with distcheck after it, ended last by minutes). The cores
	# stay as busy: what the build takes, the guests wait for.
	DT_BUILD_NICE=-5
	export DT_BUILD_NICE
	step B "Debian 13 build" $MAKE check-suite-build || _rc=1
	echo $_rc > tests/lane-b.built
	# shellcheck disable=SC2086
	step B tests tests tests/lane-b.log $LANE_B || _rc=1
	step B distcheck env DT_TIMES_PHASE=distcheck DT_KEEP_RESULTS="$keep" \
		$MAKE -j"$jobs" distcheck || _rc=1
	pool B || _rc=1
	return $_rc
}

lane_b &
lane_b_pid=$!

lane_a() {
	sa=0
	# shellcheck disable=SC2086
	step A tests tests tests/lane-a.log $LANE_A || sa=1
	if [ -n "$LANE_A_AFTER" ]; then
		# Debian 13's guests boot what lane B builds first.
		while [ ! -f tests/lane-b.built ] && kill -0 $lane_b_pid 2> /dev/null; do
			sleep 5
		done
		# shellcheck disable=SC2086
		step A "Debian 13 tests" tests tests/lane-a-after.log $LANE_A_AFTER || sa=1
	fi
	pool A || sa=1
	return $sa
}

# Lane A in a subshell of its own too: a shell's `times` counts every
# child it has reaped, and this one would reap lane B's whole subshell
# in the middle of one of lane A's steps.
lane_a &
lane_a_pid=$!
wait $lane_a_pid
sa=$?
wait $lane_b_pid
sb=$?
rm -rf tests/lane-b.built tests/lane-?.cpu "$pool"
echo "check-lanes: lane A exit $sa, lane B exit $sb"
[ "$sa" = 0 ] && [ "$sb" = 0 ]
