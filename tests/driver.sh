#!/bin/sh
# make check's test driver: automake's TAP driver (build-aux/tap-driver.sh,
# the first argument), then, with DT_KEEP_RESULTS set, a copy of the
# test's .log and .trs under that folder, at the test's own path.
# make check-lanes sets it for make distcheck's tests, whose build folder
# distcheck removes once it passes: .ci/run counts their points with the
# others'.
driver=$1
shift
sh "$driver" "$@"
rc=$?
[ -n "${DT_KEEP_RESULTS:-}" ] || exit $rc
log= trs=
while [ $# -gt 0 ]; do
	case $1 in
	--log-file) log=$2; shift ;;
	--trs-file) trs=$2; shift ;;
	--) break ;;
	esac
	shift
done
for f in "$log" "$trs"; do
	[ -n "$f" ] && [ -f "$f" ] || continue
	mkdir -p "$DT_KEEP_RESULTS/$(dirname "$f")" &&
		cp "$f" "$DT_KEEP_RESULTS/$f" || {
		echo "driver.sh: cannot keep $f in $DT_KEEP_RESULTS" >&2
		rc=1
	}
done
exit $rc
