# Helpers shared by bench/net.sh, volume.sh and scale.sh and their guest
# sides (sourced). Result files hold one line per run: "ROUND VALUE...".
#
#   bench_order ROUND WORD...   the words rotated left by ROUND (each
#                               round starts from a different set-up)
#   bench_col FILE N            column N of FILE, one value a line
#   bench_ratios BASE FILE N    per round: FILE's column N over BASE's
#                               column N in the same round
#   bench_stats                 "median q1 q3" of the numbers on stdin
#   ctl CMD / ctl_ok CMD        (guest-net.sh, guest-insn.sh) one command
#                               to dt-a's control port: its answer /
#                               whether it is "ok"

bench_order() {
	_r=$1
	shift
	echo "$@" | awk -v r="$_r" '{ for (i = 0; i < NF; i++) printf "%s ", $((i + r) % NF + 1) }'
}

bench_col() {
	awk -v c="$2" '{ print $c }' "$1"
}

bench_ratios() {
	awk -v c="$3" 'NR == FNR { base[$1] = $c; next }
		{ if (base[$1] > 0) printf "%.4f\n", $c / base[$1] }' "$1" "$2"
}

bench_stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "0 0 0"; exit }
		printf "%s %s %s\n", v[int((NR + 1) / 2)], v[int((NR + 3) / 4)], v[int((3 * NR + 1) / 4)] }'
}

ctl() {
	echo "$1" | socat -t 300 -T 300 - TCP4:dt-a:7100 2> /dev/null
}

ctl_ok() {
	[ "$(ctl "$1")" = ok ]
}
