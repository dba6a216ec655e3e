#!/bin/sh
# Where the time of a test run went: the table that ends
# `sh scripts/dev.sh check` (and so CI's run).
#
#   sh scripts/times.sh PHASES TESTS [BUDGET]
#
# PHASES: one line a phase, "NAME<TAB>SECONDS" (scripts/dev.sh writes
# it: packages, configure, build, debian13-root, check), or a part of one,
# "NAME<TAB>SECONDS<TAB>PHASE" (tests/lanes.sh: the steps of each lane of
# the check phase, lane B's make distcheck among them), listed under its
# phase and not counted again.
# TESTS: one line a test, "PHASE<TAB>PATH<TAB>SECONDS<TAB>STATED<TAB>
# STATUS" (tests/limit.sh writes it; STATED is the test's own "# seconds:
# N", "-" if it states none; PHASE "part": a part of a test, such as
# t-release.sh's runs, listed among the tests but counted in its own). BUDGET: the seconds the whole run should
# stay under (default 2400: CI's 90 minutes less what the next issues
# add). Prints the total per phase (make check's split into unit, host,
# guest and Debian 13 tests), the 10 slowest tests, every test that took
# more than twice its stated time, the guest tests that state none, and
# how far the run is from BUDGET. Reports only: times are noisy, nothing
# here fails a run.
set -eu

[ $# -ge 2 ] || { echo "usage: sh scripts/times.sh PHASES TESTS [BUDGET]" >&2; exit 2; }
phases=$1 tests=$2 budget=${3:-2400}
[ -f "$phases" ] || : > "${phases:=/dev/null}"
[ -f "$tests" ] || tests=/dev/null

awk -F '\t' -v budget="$budget" -v tests="$tests" '
function kind(phase, path) {
	if (phase == "distcheck")
		return "distcheck"
	if (path ~ /^tests\/unit\//)
		return "unit"
	if (path ~ /^tests\/vm\/t-release(-build)?\.sh$/)
		return "debian13"
	if (path ~ /^tests\/(build|fuzz)\// || path == "tests/collector/t-corrupt.sh")
		return "host"
	return "guest"
}
function mmss(s) {
	return sprintf("%d:%02d", int(s / 60), s % 60)
}
function row(label, s, note) {
	printf "  %-34s %6d s  %7s%s\n", label, s, mmss(s), note == "" ? "" : "  " note
}
FNR == NR {
	if (NF >= 3 && $3 != "") {
		nsub[$3]++; subname[$3, nsub[$3]] = $1; subsecs[$3, nsub[$3]] = $2
	} else if (NF >= 2) {
		ph[$1] += $2; order[++np] = $1; total += $2
	}
	next
}
NF >= 5 {
	# A part of a test (the runs of t-release): listed, counted in its test.
	if ($1 != "part") {
		k = kind($1, $2)
		kt[k] += $3; kn[k]++
	}
	n++
	name[n] = $2 ($1 == "distcheck" ? " (distcheck)" : "")
	secs[n] = $3; stated[n] = $4; st[n] = $5
	if (k == "guest" && $4 == "-")
		unstated = unstated " " $2
}
END {
	print ""
	print "Where the time went"
	seen["check"] = 0
	for (i = 1; i <= np; i++) {
		p = order[i]
		if (p in done) continue
		done[p] = 1
		if (p ~ /^check( \(failed\))?$/) {
			row("make check-lanes" substr(p, 6), ph[p], nsub["check"] ? "two lanes side by side:" : "")
			# The steps of the lanes by name, lane A first.
			for (k = 2; k <= nsub["check"]; k++)
				for (m = k; m > 1 && subname["check", m - 1] > subname["check", m]; m--) {
					tn = subname["check", m]; subname["check", m] = subname["check", m - 1]; subname["check", m - 1] = tn
					ts = subsecs["check", m]; subsecs["check", m] = subsecs["check", m - 1]; subsecs["check", m - 1] = ts
				}
			for (k = 1; k <= nsub["check"]; k++)
				row("  " subname["check", k], subsecs["check", k], \
					subname["check", k] ~ /distcheck/ ? "its tests " kt["distcheck"] + 0 " s (" kn["distcheck"] + 0 ")" : "")
			if (kn["unit"])
				row("  unit tests (" kn["unit"] + 0 ")", kt["unit"])
			if (kn["host"])
				row("  host tests (" kn["host"] + 0 ": build, fuzz, sanitizers)", kt["host"])
			row("  guest tests (" kn["guest"] + 0 ", Debian 12)", kt["guest"])
			row("  Debian 13 tests (" kn["debian13"] + 0 ")", kt["debian13"])
		} else if (p ~ /^distcheck/) {
			row("make distcheck", ph[p], "its tests " kt["distcheck"] + 0 " s (" kn["distcheck"] + 0 ")")
		} else if (p == "build") {
			row("build", ph[p], "the root of Debian 13 made meanwhile")
		} else if (p == "debian13-root") {
			row("Debian 13 root, after the build", ph[p])
		} else if (p == "debian13-build") {
			row("Debian 13 build", ph[p])
		} else {
			row(p, ph[p])
		}
	}
	row("total", total)
	if (nsub["check"] && kt["unit"] + kt["host"] + kt["guest"] + kt["debian13"] > 0)
		print "  (make check-lanes runs two lanes at a time: its rows add up to more than its time)"
	if (total <= budget)
		printf "  %d s under the budget of %d s (%s)\n", budget - total, budget, mmss(budget)
	else
		printf "  OVER the budget of %d s (%s) by %d s\n", budget, mmss(budget), total - budget

	# The 10 slowest (a selection sort: n is small).
	print ""
	print "The 10 slowest tests (seconds; stated)"
	for (j = 1; j <= 10 && j <= n; j++) {
		best = 0
		for (i = 1; i <= n; i++)
			if (!(i in used) && (best == 0 || secs[i] + 0 > secs[best] + 0))
				best = i
		used[best] = 1
		printf "  %2d. %-44s %5d s  %s%s\n", j, name[best], secs[best],
			stated[best] == "-" ? "states none" : "states " stated[best],
			st[best] == 0 ? "" : "  (exit " st[best] ")"
	}
	over = ""
	for (i = 1; i <= n; i++)
		if (stated[i] != "-" && secs[i] + 0 > 2 * stated[i])
			over = over sprintf("\n  %s: %d s, states %d", name[i], secs[i], stated[i])
	print ""
	print "Over twice their stated time:" (over == "" ? " none" : over)
	if (unstated != "")
		print "Guest tests stating no time:" unstated
}' "$phases" "$tests"
