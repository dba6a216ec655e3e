#!/bin/sh
# Where the guests' time went, inside the tests: each guest's script log
# (OUT/TEST/GUEST/script.log) has the guest's uptime after each point
# (tests/vm/guest-lib.sh's ok and not_ok, "[SECONDS]"); a step is what
# ran between a point and the one before it (the first: from the
# guest's boot). Prints the N longest steps of all the tests under the
# OUT folders (default 15), then each test's guest seconds (its longest
# guest: they run side by side). `sh scripts/dev.sh check` prints it
# after scripts/times.sh's table. Reports only.
#
#   sh scripts/guest-steps.sh [-n N] OUT...
set -eu

n=15
if [ "${1:-}" = -n ]; then
	n=$2
	shift 2
fi
[ $# -gt 0 ] || { echo "usage: sh scripts/guest-steps.sh [-n N] OUT..." >&2; exit 2; }

logs=
for out in "$@"; do
	[ -d "$out" ] || continue
	for f in "$out"/*/*/script.log; do
		[ -f "$f" ] && logs="$logs $f"
	done
done
[ -n "$logs" ] || { echo "No guest script logs with times under: $*"; exit 0; }

# shellcheck disable=SC2086
awk -v n="$n" '
FNR == 1 {
	k = split(FILENAME, p, "/")
	test = p[k - 2]; guest = p[k - 1]; prev = 0
}
/^(not )?ok - .*\[[0-9]+\.[0-9]+\]$/ {
	t = $NF; gsub(/[][]/, "", t); t += 0
	d = t - prev; prev = t
	desc = $0; sub(/ \[[0-9.]+\]$/, "", desc); sub(/^(not )?ok - /, "", desc)
	m++; dur[m] = d; what[m] = test "/" guest ": " desc
	if (t > total[test]) total[test] = t
}
END {
	if (m == 0) { print "No guest steps with times (guest-lib.sh older than the logs?)"; exit }
	print ""
	printf "The %d longest guest steps (guest seconds: since the point before, or the boot)\n", n
	for (j = 1; j <= n && j <= m; j++) {
		best = 0
		for (i = 1; i <= m; i++)
			if (!used[i] && (best == 0 || dur[i] > dur[best]))
				best = i
		used[best] = 1
		line = what[best]
		if (length(line) > 96) line = substr(line, 1, 93) "..."
		printf "  %2d. %6.1f s  %s\n", j, dur[best], line
	}
	print ""
	print "Guest seconds per test (its longest guest)"
	for (t in total) printf "  %-24s %6.1f s\n", t, total[t] | "sort -k2,2nr"
}' $logs
