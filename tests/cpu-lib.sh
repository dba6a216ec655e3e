# Sourced by tests/limit.sh, tests/lanes.sh and scripts/dev.sh: the
# processor seconds a shell's children used, for the run's table
# (scripts/times.sh). On a 2-core machine whose guests and builds keep
# both cores busy, these add up where wall-clock seconds overlap.
#
#   cpu_children FILE   (in the shell itself, not in $(...) or a pipe,
#                       where times would report a subshell's children)
#                       writes what times says to FILE
#   cpu_seconds FILE    prints the user plus system seconds, rounded, of
#                       every child of that shell that had been waited
#                       for (and of theirs), from FILE's second line
#                       ("XmY.Zs XmY.Zs")
cpu_children() {
	times > "$1"
}

cpu_seconds() {
	awk 'NR == 2 {
		for (i = 1; i <= 2; i++) {
			split($i, p, "m")
			sub(/s$/, "", p[2])
			c += p[1] * 60 + p[2]
		}
		printf "%d\n", c + 0.5
	}' "$1"
}
