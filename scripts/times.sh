#!/bin/sh
# Where the time of a test run went: the table that ends
# `sh scripts/dev.sh check` (and so CI's run).
#
#   sh scripts/times.sh PHASES TESTS [BUDGET]
#
# PHASES: one line a phase, "NAME<TAB>SECONDS<TAB><TAB>CPU" (scripts/
# dev.sh writes it: packages, configure, build, debian13-root, check), or
# a part of one, "NAME<TAB>SECONDS<TAB>PHASE<TAB>CPU" (tests/lanes.sh: the
# steps of each lane of the check phase, lane B's make distcheck among
# them), listed under its phase and not counted again. CPU: processor
# seconds (user and system, tests/times-lib.sh), optional.
# TESTS: one line a test, "PHASE<TAB>PATH<TAB>SECONDS<TAB>STATED<TAB>
# STATUS<TAB>CPU" (tests/limit.sh writes it; STATED is the test's own "#
# seconds: N", "-" if it states none; CPU optional; PHASE "part": a part
# of a test, such as t-release.sh's runs, listed among the tests but
# counted in its own). BUDGET: the seconds the whole run should
# stay under (default 2400: CI's 90 minutes less what the next issues
# add). Prints the total per phase (make check's split into unit, host,
# guest and Debian 13 tests) in seconds and processor seconds (on a
# machine whose cores are all busy, the figure that adds up), the 10
# slowest tests, the 10 that used the most processor time, every test
# that took more than twice its stated time, the guest tests that state none, and
# how far the run is from BUDGET. Reports only: times are noisy, nothing
# here fails a run.
set -eu

[ $# -ge 2 ] || { echo "usage: sh scripts/times.sh PHASES TESTS [BUDGET]" >&2; exit 2; }
phases=$1 tests=$2 budget=${3:-2400}
[ -f "$phases" ] || : > "${phases:=/dev/null}"
[ -f "$tests" ] || tests=/dev/null

cores=$(nproc 2> /dev/null || echo 2)

awk -F '\t' -v budget="$budget" -v tests="$tests" -v cores="$cores" '
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
function phc(p) {
	return p in phcpu ? phcpu[p] : ""
}
function kcpu(k) {
	return k in kc ? kc[k] : ""
}
function cpucol(c) {
	return c == "" ? sprintf("%12s", "") : sprintf("  cpu %5d s", c)
}
function row(label, s, c, note) {
	printf "  %-34s %6d s  %7s%s%s\n", label, s, mmss(s),
		c == "" && note == "" ? "" : cpucol(c), note == "" ? "" : "  " note
}
FNR == NR {
	c = NF >= 4 && $4 ~ /^[0-9]+$/ ? $4 : ""
	if (NF >= 3 && $3 != "") {
		nsub[$3]++; subname[$3, nsub[$3]] = $1; subsecs[$3, nsub[$3]] = $2
		subcpu[$3, nsub[$3]] = c
	} else if (NF >= 2) {
		ph[$1] += $2; order[++np] = $1; total += $2
		if (c != "") { phcpu[$1] += c; totalcpu += c; hascpu = 1 }
	}
	next
}
NF >= 5 {
	# A part of a test (the runs of t-release): listed, counted in its test.
	c = NF >= 6 && $6 ~ /^[0-9]+$/ ? $6 : ""
	if ($1 != "part") {
		k = kind($1, $2)
		kt[k] += $3; kn[k]++
		if (c != "") kc[k] += c
	}
	if (c != "") hascputests = 1
	n++
	name[n] = $2 ($1 == "distcheck" ? " (distcheck)" : "")
	secs[n] = $3; stated[n] = $4; st[n] = $5; cpu[n] = c
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
			row("make check-lanes" substr(p, 6), ph[p], phc(p), nsub["check"] ? "two lanes side by side:" : "")
			# The steps of the lanes by name, lane A first.
			for (k = 2; k <= nsub["check"]; k++)
				for (m = k; m > 1 && subname["check", m - 1] > subname["check", m]; m--) {
					tn = subname["check", m]; subname["check", m] = subname["check", m - 1]; subname["check", m - 1] = tn
					ts = subsecs["check", m]; subsecs["check", m] = subsecs["check", m - 1]; subsecs["check", m - 1] = ts
					tc = subcpu["check", m]; subcpu["check", m] = subcpu["check", m - 1]; subcpu["check", m - 1] = tc
				}
			for (k = 1; k <= nsub["check"]; k++)
				row("  " subname["check", k], subsecs["check", k], subcpu["check", k], \
					subname["check", k] ~ /distcheck/ ? "its tests " kt["distcheck"] + 0 " s (" kn["distcheck"] + 0 ")" : "")
			if (kn["unit"])
				row("  unit tests (" kn["unit"] + 0 ")", kt["unit"], kcpu("unit"))
			if (kn["host"])
				row("  host tests (" kn["host"] + 0 ": build, fuzz, sanitizers)", kt["host"], kcpu("host"))
			row("  guest tests (" kn["guest"] + 0 ", Debian 12)", kt["guest"], kcpu("guest"))
			row("  Debian 13 tests (" kn["debian13"] + 0 ")", kt["debian13"], kcpu("debian13"))
		} else if (p ~ /^distcheck/) {
			row("make distcheck", ph[p], phc(p), "its tests " kt["distcheck"] + 0 " s (" kn["distcheck"] + 0 ")")
		} else if (p == "build") {
			row("build", ph[p], phc(p), "the root of Debian 13 made meanwhile")
		} else if (p == "debian13-root") {
			row("Debian 13 root, after the build", ph[p], phc(p))
		} else if (p == "debian13-build") {
			row("Debian 13 build", ph[p], phc(p))
		} else {
			row(p, ph[p], phc(p))
		}
	}
	row("total", total, hascpu ? totalcpu : "", \
		hascpu && total > 0 ? sprintf("%d%% of %d cores", 100 * totalcpu / (cores * total), cores) : "")
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
		printf "  %2d. %-44s %5d s  %s%s%s\n", j, name[best], secs[best],
			stated[best] == "-" ? "states none" : "states " stated[best],
			cpu[best] == "" ? "" : ", cpu " cpu[best] " s",
			st[best] == 0 ? "" : "  (exit " st[best] ")"
	}
	if (hascputests) {
		print ""
		print "The 10 that used the most processor time (processor seconds; seconds)"
		for (j = 1; j <= 10 && j <= n; j++) {
			best = 0
			for (i = 1; i <= n; i++)
				if (!(i in cused) && cpu[i] != "" && (best == 0 || cpu[i] + 0 > cpu[best] + 0))
					best = i
			if (best == 0)
				break
			cused[best] = 1
			printf "  %2d. %-44s %5d s  %d s\n", j, name[best], cpu[best], secs[best]
		}
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
