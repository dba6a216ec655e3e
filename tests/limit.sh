#!/bin/sh
# tests/limit.sh CMD...: run one test of make check (CMD prints TAP: a
# test script with its shell, or a unit test binary) with a time limit,
# so that a hang anywhere in it (a guest, `dtracer merge`, babeltrace2,
# a unit test) becomes a failure of that test and the run goes on to
# its end. tests/local.mk's LOG_COMPILERs put every test under it.
#
# The test runs in a session of its own. Its output passes through as
# it comes. When DT_TEST_LIMIT seconds (default 1500; scaled like the
# guests' waits, times DT_VM_TIMEOUT / 600 above 600 s; at least three
# times the seconds a test states as "# seconds: N") have passed:
# what it was running (each process of its session, with its age) is
# noted, the session is sent SIGTERM (vm_run's trap stops its guests),
# SIGKILL 10 s later; then a "not ok" names the test and what was
# running, and the plan is printed if the test had not printed it, so
# that automake's tap-driver counts a failure, not a broken stream.
# Exit status: the test's, or 124 after a hang.
#
# Its time goes to DT_TIMES (default DT_BUILDDIR/tests/times.tsv; unset
# and no DT_BUILDDIR: nowhere), one line a test: PHASE (DT_TIMES_PHASE,
# default check), the test's path from tests/, its seconds, the seconds
# the test states ("# seconds: N" in a script's header, "-" if none), its
# exit status and the processor seconds it used (user and system, of
# every process of it that was waited for: its guests' QEMUs among them;
# on a 2-core machine, the figure that adds up). scripts/times.sh prints
# the table from it.
. "$(dirname "$0")/times-lib.sh"
limit=${DT_TEST_LIMIT:-1500}
t0=$(date +%s)
vm=${DT_VM_TIMEOUT:-600}
[ "$vm" -gt 600 ] && limit=$((limit * vm / 600))
for name; do :; done
path=$name
name=${name##*/}
# A test that states more than a third of the limit (t-release.sh's
# runs) gets three times what it states.
expect=-
[ -f "$path" ] && expect=$(stated_seconds "$path")
[ -n "$expect" ] && [ "$expect" != - ] && [ $((expect * 3)) -gt "$limit" ] &&
	limit=$((expect * 3))

tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
mkfifo "$tmp/out" || exit 99

# A background job of a non-interactive shell is no group leader, so
# setsid makes its session without forking: $! is the session's id.
setsid "$@" > "$tmp/out" &
pid=$!
# Its own session does not get the terminal's Ctrl-C: pass it on.
trap 'pkill -TERM -s $pid' INT TERM HUP

# The watchdog: while the test runs or anything of it holds its output.
(
	i=0
	while [ $i -lt "$limit" ] &&
		{ [ ! -e "$tmp/done" ] || kill -0 $pid 2> /dev/null; }; do
		sleep 1
		i=$((i + 1))
	done
	{ [ ! -e "$tmp/done" ] || kill -0 $pid 2> /dev/null; } || exit 0
	ps -o pid=,etime=,args= -s $pid > "$tmp/hung" 2>&1
	pkill -TERM -s $pid
	i=0
	while [ $i -lt 10 ] && pgrep -s $pid > /dev/null; do
		sleep 1
		i=$((i + 1))
	done
	pkill -KILL -s $pid
) &
dog=$!

awk '
	{ print; fflush() }
	/^(not )?ok([ \t]|$)/ { n++ }
	/^1\.\.[0-9]+/ { plan = 1 }
	END { print n + 0, plan + 0 > "'"$tmp/count"'" }
' < "$tmp/out"
: > "$tmp/done"
wait $pid
rc=$?
wait $dog
cpu_children "$tmp/times"
cpu=$(cpu_seconds "$tmp/times")

times=${DT_TIMES:-${DT_BUILDDIR:+$DT_BUILDDIR/tests/times.tsv}}
if [ -n "$times" ]; then
	case $path in */tests/*) path=tests/${path#*/tests/} ;; ./*) path=${path#./} ;; esac
	[ -f "$tmp/hung" ] && rc=124
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "${DT_TIMES_PHASE:-check}" "$path" \
		$(($(date +%s) - t0)) "${expect:--}" "$rc" "${cpu:--}" >> "$times"
fi

if [ -f "$tmp/hung" ]; then
	read -r n plan < "$tmp/count"
	printf 'not ok - %s hung: stopped after %s s; it was running:\n' \
		"$name" "$limit"
	sed 's/^/#   /' "$tmp/hung"
	[ "$plan" = 1 ] || echo "1..$((n + 1))"
	exit 124
fi
exit $rc
