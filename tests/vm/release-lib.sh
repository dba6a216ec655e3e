# Sourced by tests/vm/t-release.sh and t-release-build.sh (make check's
# part on the other Debian release): how they report the runs they make.
# release_test (set before sourcing) names the test in DT_TIMES's part
# lines.
. "$DT_SRCDIR/tests/times-lib.sh"

# part LABEL SECONDS STATED RC: one part's time, for scripts/times.sh
# (tests/limit.sh's DT_TIMES).
part() {
	[ -n "${DT_TIMES:-}" ] || return 0
	printf 'part\t%s: %s\t%s\t%s\t%s\n' "$release_test" "$1" "$2" "$3" "$4" >> "$DT_TIMES"
}

# stated TEST: the seconds TEST states ("# seconds: N"), "-" if none.
stated() {
	_s=$(stated_seconds "$DT_SRCDIR/$1")
	echo "${_s:--}"
}

# report LABEL NAME LOG RC: LOG's points as this test's.
report() {
	n=0 bad=0
	while IFS= read -r line; do
		case $line in
		'ok '*)
			n=$((n + 1))
			tap_result 0 "[$1] $2: ${line#ok * - }"
			;;
		'not ok '*)
			n=$((n + 1)) bad=1
			tap_result 1 "[$1] $2: ${line#not ok * - }"
			;;
		'#'*)
			printf '%s\n' "$line"
			;;
		esac
	done < "$3"
	[ "$n" -gt 0 ] || tap_result 1 "[$1] $2: ran no test point (exit $4; log: $3)"
	[ "$4" = 0 ] || [ "$n" -eq 0 ] || [ "$bad" = 1 ] ||
		tap_result 1 "[$1] $2: exited $4 (log: $3)"
}

