#!/bin/sh
# make bench-pool-order: how far the order of a thread pool's system
# calls names the job each worker takes (docs/limitations.md, the
# hand-off; docs/benchmarks.md). No guest, no dtracer: on this machine,
# in a network namespace of its own (loopback only), dt-httpd -p 3 (one
# reader, 3 workers, a mutex and a condition variable) serves
# `ab -k -c 32` under `strace -f`; bench/pool-order.awk replays its
# system calls through the rule a kernel could apply at system call
# entry (the k-th take after an answer gets the k-th request read) and
# scores it against the connection each worker answered on.
# DT_POOL_RUNS runs (default 5) of DT_POOL_REQUESTS requests (2000).
# Needs root (the namespace), strace and ab (scripts/deps.sh --bench).
set -eu

runs=${DT_POOL_RUNS:-5}
n=${DT_POOL_REQUESTS:-2000}
out=${DT_BUILDDIR:-.}/bench/out/pool-order
httpd=${DT_BUILDDIR:-.}/tests/tools/dt-httpd
awk_rule=${DT_SRCDIR:-.}/bench/pool-order.awk
mkdir -p "$out"
for t in strace ab unshare ip; do
	command -v "$t" > /dev/null ||
		{ echo "pool-order: $t is missing (scripts/deps.sh --bench)" >&2; exit 2; }
done
[ -x "$httpd" ] || { echo "pool-order: $httpd is not built (make check_PROGRAMS)" >&2; exit 2; }

# One run, inside the namespace: $1 the trace file.
if [ "${1:-}" = --inside ]; then
	ip link set lo up
	strace -f -ttt -yy -s 40 -o "$2" "$httpd" -p 3 8080 "$2.log" &
	st=$!
	i=0
	until ab -q -n 1 http://127.0.0.1:8080/ > /dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 50 ] || { echo "pool-order: dt-httpd does not answer" >&2; exit 1; }
		sleep 0.1
	done
	ab -q -k -c 32 -n "$n" http://127.0.0.1:8080/b > "$2.ab" 2>&1 || true
	pkill -P "$st" dt-httpd || true	# strace ends with its tracee
	wait "$st" 2> /dev/null || true
	exit 0
fi

for r in $(seq "$runs"); do
	DT_POOL_REQUESTS=$n unshare -n sh "$0" --inside "$out/run$r.strace"
	awk -f "$awk_rule" "$out/run$r.strace" | tee "$out/run$r.txt"
done
# min / median / max of the shares: named right, takes after a wake-up,
# the baseline named right
for col in 1 2 3; do
	for r in $(seq "$runs"); do
		sed -n 's/.*given by the order rule (\([0-9.]*\)%); .* after a wake-up (\([0-9.]*\)%); baseline [0-9]* (\([0-9.]*\)%).*/\1 \2 \3/p' "$out/run$r.txt" |
			awk -v c=$col '{ print $c }'
	done | sort -n | awk -v c=$col '{ v[NR] = $1 }
		END { split("jobs the order rule names,takes after a wake-up,jobs the baseline names", w, ",")
			if (NR) printf "%s: min %.1f%%, median %.1f%%, max %.1f%% (%d runs)\n",
			w[c], v[1], v[int((NR + 1) / 2)], v[NR], NR }'
done
