# Sourced by tests/limit.sh, tests/lanes.sh, tests/vm/release-lib.sh and
# scripts/dev.sh: what the run's table (scripts/times.sh) is made of.
#
#   stated_seconds FILE the seconds a test states in its header,
#                       "# seconds: N" in its first 30 lines; nothing if
#                       it states none
#   cpu_children FILE   (in the shell itself, not in $(...) or a pipe,
#                       where times would report a subshell's children)
#                       writes what times says to FILE
#   cpu_seconds FILE    prints the user plus system seconds, rounded, of
#                       every child of that shell that had been waited
#                       for (and of theirs), from FILE's second line
#                       ("XmY.Zs XmY.Zs")
#
# Processor seconds: on a 2-core machine whose guests and builds keep
# both cores busy, these add up where wall-clock seconds overlap.
stated_seconds() {
	sed -n '1,30s/^# seconds: *\([0-9][0-9]*\).*/\1/p' "$1" 2> /dev/null | head -n 1
}

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
