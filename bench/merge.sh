#!/bin/sh
# Benchmark: `dtracer merge` against plain babeltrace2 muxing the same
# traces into the same output, side by side in one run, rounds in
# alternating order. Traces: three guests streaming to a fourth
# (tests/collector/guest-collect.sh, every event recorded, a dd load on
# each host). Prints per-round times, the median throughput ratio
# (babeltrace2's time / dtracer's: >= 1 means dtracer is as fast) and
# events per second; then the instructions each command executes, counted
# by valgrind's callgrind (the same figure whatever else the machine
# does), and their ratio. Not a pass/fail test.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/bench/out/merge
dtracer=$DT_BUILDDIR/collector/dtracer
rounds=${DT_BENCH_ROUNDS:-7}
traces=$out/dt-d/traces
if [ -z "${DT_BENCH_REUSE:-}" ] || [ ! -d "$traces" ]; then
	g=$DT_SRCDIR/bench/guest-merge.sh
	vm_run "$out" "$g" dt-a dt-b dt-c dt-d || {
		echo "bench/merge.sh: a guest failed; see $out" >&2
		exit 1
	}
fi

# now: seconds since the epoch, with nanoseconds
now() { date +%s.%N; }
# timed OUTFILE CMD...: run, print the elapsed seconds
timed() {
	_o=$1
	shift
	rm -rf "$_o"
	_t0=$(now)
	"$@" > /dev/null 2>&1 || { echo "bench/merge.sh: failed: $*" >&2; exit 1; }
	_t1=$(now)
	awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%.3f\n", b - a }'
}
mux_ctf() { babeltrace2 "$traces" -c sink.ctf.fs -p "path=\"$1\",quiet=yes"; }
mux_text() {
	babeltrace2 "$traces" -c sink.ctf.fs -p "path=\"$1\",quiet=yes" &&
	babeltrace2 --clock-seconds --no-delta "$1" > "$1.txt"
}

size=$(du -sh "$traces" | cut -f1)
rm -rf "$out/m" "$out/b"
events=$("$dtracer" merge -o "$out/m" "$traces" | sed -n 's/^merged \([0-9]*\) events.*/\1/p')
echo "dtracer merge vs babeltrace2, $rounds rounds, traces $size, $events events"
echo "round  dtracer(ctf)  bt2(ctf)  ratio  | dtracer(ctf+text)  bt2(ctf, then text)  ratio"
i=1
: > "$out/ratios"
while [ $i -le "$rounds" ]; do
	if [ $((i % 2)) = 1 ]; then
		d=$(timed "$out/m" "$dtracer" merge --no-text -o "$out/m" "$traces")
		b=$(timed "$out/b" mux_ctf "$out/b")
		dt=$(timed "$out/m" "$dtracer" merge -o "$out/m" "$traces")
		bt=$(timed "$out/b" mux_text "$out/b")
	else
		b=$(timed "$out/b" mux_ctf "$out/b")
		d=$(timed "$out/m" "$dtracer" merge --no-text -o "$out/m" "$traces")
		bt=$(timed "$out/b" mux_text "$out/b")
		dt=$(timed "$out/m" "$dtracer" merge -o "$out/m" "$traces")
	fi
	r=$(awk -v a="$b" -v b="$d" 'BEGIN { printf "%.3f", a / b }')
	rt=$(awk -v a="$bt" -v b="$dt" 'BEGIN { printf "%.3f", a / b }')
	echo "$r $rt $d" >> "$out/ratios"
	printf "%5d  %12.3f  %8.3f  %5.2f  | %17.3f  %19.3f  %5.2f\n" "$i" "$d" "$b" "$r" "$dt" "$bt" "$rt"
	i=$((i + 1))
done
awk -v ev="$events" '
	{ a[NR] = $1; b[NR] = $2; d[NR] = $3 }
	function median(x, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
		return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
	}
	END {
		n = NR
		lo = a[1]; hi = a[1]; for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
		md = median(d, n)
		printf "median ratio (bt2 time / dtracer time), CTF output: %.2f (range %.2f-%.2f; target >= 0.8)\n", median(a, n), lo, hi
		printf "median ratio, CTF and text output: %.2f\n", median(b, n)
		printf "dtracer merge --no-text: %.0f events/s (median %.3f s)\n", ev / md, md
	}' "$out/ratios"

# Instructions (callgrind): CTF output of both, one run each (about a
# minute per million events). DT_BENCH_CALLGRIND=0 skips it.
if [ "${DT_BENCH_CALLGRIND:-1}" != 0 ] && command -v valgrind > /dev/null; then
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
