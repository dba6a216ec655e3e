#!/bin/sh
# Benchmark: which requests are traced, per scenario, over several runs
# of t-fidelity's three guests (tests/kernel/guest-fidelity.sh: nginx
# with and without upstream keep-alive, 1 MiB answers, redis beside a
# pipelining benchmark, a thread pool, a mixed chain, a Node.js event
# loop, a Go tier, gRPC to Go's server and, here only
# (DT_FIDELITY_BENCH=1), a Python asyncio and a Java thread-pool middle
# tier under ab -k -c 32, io_uring, gRPC to Python's server). Not a
# pass/fail test:
# the runs' own checks may fail; the figures are read from the servers'
# own logs (ground truth: per request, whether the thread serving it
# was flagged when it read it) kept in each run's results.
#
#   DT_FIDELITY_RUNS   runs (default 5)
#   DT_FIDELITY_PHASES the phases to run, by number ("8": the Go tier
#                      only; default: all; guest-fidelity.sh's list)
#
# Prints, per scenario and hop, and over the whole chain (a flagged
# request traced at every hop that logs; a background request traced at
# the worst hop, as the load generator's paths repeat): recall and
# false, min / median / max over the runs, and the
# sums. Results in bench/out/fidelity/run-N/.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

runs=${DT_FIDELITY_RUNS:-5}
case $runs in
'' | *[!0-9]* | 0)
	echo "bench/fidelity.sh: DT_FIDELITY_RUNS must be a positive number, not '$runs'" >&2
	exit 2
	;;
esac
DT_FIDELITY_BENCH=1
DT_VM_PASS="${DT_VM_PASS:-} DT_FIDELITY_BENCH DT_FIDELITY_PHASES"
case ${DT_FIDELITY_PHASES:-} in
*[!0-9\ ]*)
	echo "bench/fidelity.sh: DT_FIDELITY_PHASES lists phase numbers (\"7 8\"), not '$DT_FIDELITY_PHASES'" >&2
	exit 2
	;;
esac
export DT_FIDELITY_BENCH DT_FIDELITY_PHASES DT_VM_PASS
out=$DT_BUILDDIR/bench/out/fidelity
rm -rf "$out"
mkdir -p "$out" || exit 1
i=1
while [ "$i" -le "$runs" ]; do
	echo "fidelity: run $i of $runs" >&2
	vm_run "$out/run-$i" "$DT_SRCDIR/tests/kernel/guest-fidelity.sh" \
		dt-a dt-b dt-c > "$out/run-$i.log" 2>&1 ||
		echo "fidelity: run $i: a guest failed (its figures still count)" >&2
	i=$((i + 1))
done

# Each log line: PATH traced|untraced TID. Scenario: the path's
# /f-NAME/ or /b-NAME/; the hops that log, per scenario: dt-c's
# dt-httpd (every scenario but redis), dt-b's event loop, Go, asyncio
# and Java tiers, the io_uring tier's three modes, the gRPC servers
# (Python's, Go's). The asyncio tier's
# two upstream calls (PATH/1, PATH/2) are one request of the chain
# (PATH).
for r in "$out"/run-*/; do
	for f in "$r"dt-c/httpd.log:backend "$r"dt-b/evloop.log:middle \
		"$r"dt-b/gomid.log:middle "$r"dt-b/aiomid.log:middle \
		"$r"dt-b/javamid.log:middle "$r"dt-b/uring.log:middle \
		"$r"dt-b/sqpoll.log:middle "$r"dt-b/iowq.log:middle \
		"$r"dt-b/grpc.log:middle "$r"dt-b/grpcgo.log:middle; do
		[ -f "${f%:*}" ] || continue
		awk -v run="$r" -v hop="${f##*:}" '
			match($1, /^\/[fb]-[a-z0-9]+\//) {
				sc = substr($1, 4, RLENGTH - 4); p = $1
				if (sc == "aio" && hop == "backend")
					sub(/\/[12]$/, "", p)
				print run, hop, substr($1, 2, 1), sc, p,
				    $2 == "traced"
			}' "${f%:*}"
	done
done > "$out/requests.txt"

printf '%-8s %-8s %-22s %-22s %s\n' scenario hop 'recall % min/med/max' \
	'false % min/med/max' sums | tee "$out/table.txt"
awk '
function med(s,   a, k, i, j, t) {
	k = split(s, a, " ")
	for (i = 2; i <= k; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return a[1] " / " a[int((k + 1) / 2)] " / " a[k]
}
function pct(a, b) { return b ? sprintf("%.1f", 100 * a / b) : "-" }
{
	run = $1; hop = $2; kind = $3; sc = $4
	n[run, sc, hop, kind]++; t[run, sc, hop, kind] += $6
	hops[sc, hop] = 1; runs[run] = 1; scs[sc] = 1
	# flagged paths are unique: traced at every hop that logs
	if (kind == "f") {
		k = run SUBSEP sc SUBSEP $5
		if (!(k in every)) { every[k] = 1; fl[run, sc]++ }
		if (!$6 && every[k]) { every[k] = 0 }
	}
}
END {
	for (k in every) {
		split(k, p, SUBSEP)
		ev[p[1], p[2]] += every[k]
	}
	for (sc in scs) {
		for (h = 1; h <= 3; h++) {
			hop = h == 1 ? "middle" : h == 2 ? "backend" : "chain"
			if (hop != "chain" && !((sc, hop) in hops))
				continue
			if (hop == "chain" && !((sc, "middle") in hops))
				continue
			rs = fs = ""; fa = fb = ba = bb = 0
			for (run in runs) {
				if (hop == "chain") {
					# background paths repeat (ab): the worst hop
					f = fl[run, sc]; ft = ev[run, sc]
					b = n[run, sc, "backend", "b"]
					bt = t[run, sc, "backend", "b"]
					if (t[run, sc, "middle", "b"] > bt) {
						bt = t[run, sc, "middle", "b"]
						b = n[run, sc, "middle", "b"]
					}
				} else {
					f = n[run, sc, hop, "f"]; ft = t[run, sc, hop, "f"]
					b = n[run, sc, hop, "b"]; bt = t[run, sc, hop, "b"]
				}
				if (!f && !b)
					continue
				rs = rs " " pct(ft, f); fs = fs " " pct(bt, b)
				fa += ft; fb += f; ba += bt; bb += b
			}
			if (rs == "")
				continue
			printf "%-8s %-8s %-22s %-22s flagged %d of %d traced, background %d of %d\n",
			    sc, hop, med(rs), med(fs), fa, fb, ba, bb
		}
	}
}' "$out/requests.txt" | sort -s -k1,1 | tee -a "$out/table.txt"
