#!/bin/sh
# Benchmark: `dtracer merge` and `dtracer requests` against plain
# babeltrace2 muxing the same traces into the same output, side by side
# in one run, rounds in alternating order. Traces: three guests
# streaming to a fourth (tests/collector/guest-collect.sh, every event
# recorded, a dd load on each host), at each size of
# DT_BENCH_MERGE_SIZES (default "1 4": 150,000 dd calls a host, then 4
# times that). Per size it prints per-round times and peak memory, and:
#   whole pass ratio: babeltrace2's mux to CTF time / `dtracer merge
#     --no-text`'s (the merged CTF, the clock sync and the requests'
#     table, each host read once in a thread of its own);
#   requests without merge ratio: the same / `dtracer requests TRACES`'s
#     (the requests and the sync straight from the hosts' traces);
#   the CTF-and-text pair as before (merge with its timeline against the
#     mux, then babeltrace2 of that to text).
# >= 1 means dtracer is as fast. Then, for the first size, the
# instructions each command executes (valgrind's callgrind, the same
# figure whatever else the machine does). Not a pass/fail test.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

base=$DT_BUILDDIR/bench/out/merge
dtracer=$DT_BUILDDIR/collector/dtracer
rounds=${DT_BENCH_ROUNDS:-7}

# now: seconds since the epoch, with nanoseconds
now() { date +%s.%N; }
# timed OUTFILE CMD...: run, print "SECONDS PEAK_KB" (GNU time's %M of
# the command, or 0 without /usr/bin/time)
timed() {
	_o=$1
	shift
	rm -rf "$_o"
	_t0=$(now)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M -o "$base/mem" "$@" > /dev/null 2>&1 ||
			{ echo "bench/merge.sh: failed: $*" >&2; exit 1; }
	else
		echo 0 > "$base/mem"
		"$@" > /dev/null 2>&1 || { echo "bench/merge.sh: failed: $*" >&2; exit 1; }
	fi
	_t1=$(now)
	awk -v a="$_t0" -v b="$_t1" -v m="$(tail -n 1 "$base/mem")" \
		'BEGIN { printf "%.3f %d\n", b - a, m }'
}
# babeltrace2's side as scripts (GNU time runs commands, not functions)
mkdir -p "$base"
cat > "$base/mux-ctf" <<'EOF2'
#!/bin/sh
exec babeltrace2 "$1" -c sink.ctf.fs -p "path=\"$2\",quiet=yes"
EOF2
cat > "$base/mux-text" <<'EOF2'
#!/bin/sh
babeltrace2 "$1" -c sink.ctf.fs -p "path=\"$2\",quiet=yes" &&
exec babeltrace2 --clock-seconds --no-delta "$2" > "$2.txt"
EOF2

# size F: make (or reuse, DT_BENCH_REUSE) the traces of F times the load,
# then the rounds
size() {
	out=$base/x$1
	traces=$out/dt-d/traces
	mkdir -p "$out"
	if [ -z "${DT_BENCH_REUSE:-}" ] || [ ! -d "$traces" ]; then
		DT_BENCH_MERGE_DD=$((150000 * $1)) DT_VM_PASS=DT_BENCH_MERGE_DD \
		vm_run "$out" "$DT_SRCDIR/bench/guest-merge.sh" \
			dt-a dt-b dt-c dt-d || {
			echo "bench/merge.sh: a guest failed; see $out" >&2
			exit 1
		}
	fi
	sz=$(du -sh "$traces" | cut -f1)
	rm -rf "$out/m" "$out/b"
	events=$("$dtracer" merge -o "$out/m" "$traces" | sed -n 's/^merged \([0-9]*\) events.*/\1/p')
	echo "size x$1: traces $sz, $events events, $rounds rounds (seconds, peak MB)"
	echo "round  merge(whole pass)  requests(no merge)  bt2 mux(ctf)  | merge(ctf+text)  bt2(ctf, then text)"
	i=1
	: > "$out/rounds"
	while [ $i -le "$rounds" ]; do
		if [ $((i % 2)) = 1 ]; then
			d=$(timed "$out/m" "$dtracer" merge --no-text -o "$out/m" "$traces")
			q=$(timed "$out/q" "$dtracer" requests "$traces")
			b=$(timed "$out/b" sh "$base/mux-ctf" "$traces" "$out/b")
			dt=$(timed "$out/m" "$dtracer" merge -o "$out/m" "$traces")
			bt=$(timed "$out/b" sh "$base/mux-text" "$traces" "$out/b")
		else
			b=$(timed "$out/b" sh "$base/mux-ctf" "$traces" "$out/b")
			q=$(timed "$out/q" "$dtracer" requests "$traces")
			d=$(timed "$out/m" "$dtracer" merge --no-text -o "$out/m" "$traces")
			bt=$(timed "$out/b" sh "$base/mux-text" "$traces" "$out/b")
			dt=$(timed "$out/m" "$dtracer" merge -o "$out/m" "$traces")
		fi
		echo "$d $q $b $dt $bt" >> "$out/rounds"
		echo "$i $d $q $b $dt $bt" | awk '{ printf "%5d  %8.3f %6.1f  %8.3f %6.1f  %8.3f %6.1f  | %8.3f  %8.3f\n",
			$1, $2, $3 / 1024, $4, $5 / 1024, $6, $7 / 1024, $8, $10 }'
		i=$((i + 1))
	done
	awk -v ev="$events" -v x="$1" '
		{ d[NR] = $1; dm[NR] = $2; q[NR] = $3; qm[NR] = $4; b[NR] = $5; bm[NR] = $6
		  w[NR] = $5 / $1; r[NR] = $5 / $3; t[NR] = $9 / $7 }
		function median(v, n,   i, j, t, c) {
			for (i = 1; i <= n; i++) c[i] = v[i]
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
				if (c[j] < c[i]) { t = c[i]; c[i] = c[j]; c[j] = t }
			return n % 2 ? c[(n + 1) / 2] : (c[n / 2] + c[n / 2 + 1]) / 2
		}
		function max(v, n,   i, m) { m = v[1]; for (i = 2; i <= n; i++) if (v[i] > m) m = v[i]; return m }
		END {
			n = NR
			printf "x%s whole pass ratio (bt2 mux / dtracer merge --no-text, median): %.2f (target >= 1.0)\n", x, median(w, n)
			printf "x%s requests without merge ratio (bt2 mux / dtracer requests TRACES, median): %.2f (target >= 1.8)\n", x, median(r, n)
			printf "x%s ctf+text ratio (median): %.2f\n", x, median(t, n)
			printf "x%s peak memory (max over rounds): merge %.1f MB, requests %.1f MB, bt2 mux %.1f MB\n", x, max(dm, n) / 1024, max(qm, n) / 1024, max(bm, n) / 1024
			printf "x%s dtracer merge --no-text: %.0f events/s (median %.3f s)\n", x, ev / median(d, n), median(d, n)
		}' "$out/rounds"
}

for f in ${DT_BENCH_MERGE_SIZES:-1 4}; do
	size "$f"
done

# Instructions (callgrind): CTF output of both, one run each, on the
# first size (about a minute per million events). DT_BENCH_CALLGRIND=0
# skips it. Instructions of all threads together: not the wall clock.
f=$(echo "${DT_BENCH_MERGE_SIZES:-1 4}" | cut -d' ' -f1)
out=$base/x$f
traces=$out/dt-d/traces
if [ "${DT_BENCH_CALLGRIND:-1}" != 0 ] && command -v valgrind > /dev/null; then
	events=$("$dtracer" merge -o "$out/m" "$traces" | sed -n 's/^merged \([0-9]*\) events.*/\1/p')
	# irs OUTDIR CMD...: the instructions CMD executed ("Collected : N")
	irs() {
		_o=$1
		shift
		rm -rf "$_o"
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" \
			> /dev/null 2> "$out/callgrind.err" ||
			{ echo "bench/merge.sh: failed under callgrind: $*" >&2; exit 1; }
		sed -n 's/^==[0-9]*== Collected : \([0-9]*\).*/\1/p' "$out/callgrind.err"
	}
	di=$(irs "$out/m" "$dtracer" merge --no-text -o "$out/m" "$traces")
	bi=$(irs "$out/b" babeltrace2 "$traces" -c sink.ctf.fs -p "path=\"$out/b\",quiet=yes")
	awk -v d="$di" -v b="$bi" -v ev="$events" 'BEGIN {
		printf "instructions (callgrind), CTF output: dtracer merge %.0f (%.0f per event), babeltrace2 %.0f (%.0f per event); ratio (bt2 / dtracer) %.3f\n",
			d, d / ev, b, b / ev, b / d }'
fi
