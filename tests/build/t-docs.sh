#!/bin/sh
# The docs name only what exists. From README.md and docs/*.md, in code
# (backtick spans, indented and fenced blocks), every name of these kinds
# is checked against the code itself, never against a copy:
#   - sysfs files (/sys/distributed-tracer/NAME, and the README's control
#     table), against the attribute table of dtracer/control.c; and every
#     file of that table is documented;
#   - stats counters: every counter of dtracer/stats.c is documented;
#   - `dtracer COMMAND [--option]`, against `dtracer COMMAND --help`;
#   - module parameters (`modprobe dtracer NAME=`), against module_param;
#   - tests (t-NAME) and source paths (dtracer/, collector/, tests/,
#     scripts/, bench/, demo/, probes/, lttng-modules/, docs/), against
#     the source tree.
# DT_DOCS="FILE..." checks other files instead, its scratch files in
# DT_DOCS_OUT (how this test's own negative control feeds it wrong names).
. "$DT_SRCDIR/tests/vm/tap.sh"

src=$DT_SRCDIR
dtracer=$DT_BUILDDIR/collector/dtracer
out=${DT_DOCS_OUT:-$DT_BUILDDIR/tests/out/docs}
rm -rf "$out"
mkdir -p "$out" || exit 99
docs=${DT_DOCS:-"$src/README.md $(ls "$src"/docs/*.md)"}

# code DOC...: "FILE:LINE:TEXT" for each piece of code in the docs.
code() {
	awk '
	FNR == 1 { fence = 0 }
	/^```/ { fence = !fence; next }
	fence || /^(    |\t)/ { print FILENAME ":" FNR ":" $0; next }
	{
		s = $0
		while (match(s, /`[^`]+`/)) {
			print FILENAME ":" FNR ":" substr(s, RSTART + 1, RLENGTH - 2)
			s = substr(s, RSTART + RLENGTH)
		}
	}' "$@"
}
# shellcheck disable=SC2086
code $docs > "$out/code"

# The truth, from the code.
sed -n 's/.*__ATTR_\(RW\|RO\|WO\)(\([a-z_]*\)).*/\2/p' "$src"/dtracer/*.c |
	sort -u > "$out/sysfs"
sed -n 's/^[[:space:]]*\[DT_\(STAT\|MEM\)_[A-Z_]*\] = "\([a-z_]*\)",.*/\2/p' \
	"$src"/dtracer/stats.c | sort -u > "$out/stats"
sed -n 's/^module_param(\([a-z_]*\),.*/\1/p' "$src"/dtracer/*.c |
	sort -u > "$out/params"
tap_result $([ "$(wc -l < "$out/sysfs")" -ge 10 ] &&
	[ "$(wc -l < "$out/stats")" -ge 10 ]; echo $?) \
	"the code's lists read: $(wc -l < "$out/sysfs") sysfs files, $(wc -l < "$out/stats") counters, $(wc -l < "$out/params") module parameters"

# check KIND LISTFILE: each "FILE:LINE:NAME" of stdin not in LISTFILE is
# one line of $out/bad.KIND; a result for the kind.
check() {
	: > "$out/bad.$1"
	_n=0
	while IFS= read -r _l; do
		_n=$((_n + 1))
		grep -qx -- "${_l##*:}" "$2" || echo "$_l" >> "$out/bad.$1"
	done
	_b=$(wc -l < "$out/bad.$1")
	tap_result $([ "$_b" -eq 0 ]; echo $?) \
		"every documented $1 exists ($_n named, $_b not)"
	sed 's/^/  /' "$out/bad.$1" | tap_diag_stdin
}

# sysfs files: a path under /sys/distributed-tracer/, or the first cell
# of a README table row about one (| `name` | r, rw or w |).
{
	sed -n 's|^\([^:]*:[0-9]*\):.*/sys/distributed-tracer/\([a-z_]*\).*|\1:\2|p' "$out/code"
	# shellcheck disable=SC2086
	awk '/^\| `[a-z_]+` \| (r|rw|w)[ ,]/ {
		n = $2; gsub(/`/, "", n); print FILENAME ":" FNR ":" n }' $docs
} | grep -v ':$' > "$out/doc-sysfs"
check "sysfs file" "$out/sysfs" < "$out/doc-sysfs"

# module parameters: modprobe dtracer NAME=...
grep -o '^[^:]*:[0-9]*:.*modprobe dtracer [a-z_]*=' "$out/code" |
	sed 's|^\([^:]*:[0-9]*\):.*modprobe dtracer \([a-z_]*\)=$|\1:\2|' > "$out/doc-params"
check "module parameter" "$out/params" < "$out/doc-params"

# dtracer COMMAND, and its --options up to the end of the command.
"$dtracer" --help > "$out/help" 2>&1
sed -n 's/^  \([a-z]*\) .*/\1/p' "$out/help" | sort -u > "$out/commands"
tap_result $([ "$(wc -l < "$out/commands")" -ge 5 ]; echo $?) \
	"dtracer --help lists $(wc -l < "$out/commands") commands"
# A command is a piece of code that starts with it: `dtracer merge ...`,
# a walkthrough's line (a shell comment after it left out).
awk '{
	t = $0; sub(/^[^:]*:[0-9]*:/, "", t); at = substr($0, 1, length($0) - length(t))
	sub(/^[ \t]*(\$ )?/, "", t); sub(/[ \t]#.*/, "", t)
	if (t !~ /^dtracer [a-z]+/)
		next
	c = t; sub(/^dtracer /, "", c); sub(/[^a-z].*/, "", c)
	rest = substr(t, 9 + length(c))
	if (match(rest, /[|;&>]/))
		rest = substr(rest, 1, RSTART - 1)
	print at c "\t" rest
}' "$out/code" > "$out/doc-commands"
cut -f1 "$out/doc-commands" > "$out/doc-commands1"
check "dtracer command" "$out/commands" < "$out/doc-commands1"
: > "$out/bad.option"
n=0
while IFS="	" read -r at args; do
	c=${at##*:}
	grep -qx "$c" "$out/commands" || continue
	[ -f "$out/help-$c" ] || "$dtracer" "$c" --help > "$out/help-$c" 2>&1
	for o in $(echo "$args" | grep -o -- '--[a-z][a-z-]*'); do
		n=$((n + 1))
		grep -q -- "$o\b" "$out/help-$c" ||
			echo "${at%:*}: dtracer $c $o" >> "$out/bad.option"
	done
done < "$out/doc-commands"
b=$(wc -l < "$out/bad.option")
tap_result $([ "$b" -eq 0 ]; echo $?) \
	"every documented option of a dtracer command exists ($n named, $b not)"
sed 's/^/  /' "$out/bad.option" | tap_diag_stdin

# tests and source paths
sed -n 's/^\([^:]*:[0-9]*\):.*\bt-\([a-z][a-z-]*[a-z]\)\b.*/\1:t-\2/p' "$out/code" |
	sort -u > "$out/doc-tests"
(cd "$src" && ls tests/*/t-*.sh) | sed 's|.*/||; s|\.sh$||' | sort -u > "$out/tests"
check "test" "$out/tests" < "$out/doc-tests"
# Paths: a token starting with one of the source folders; those with a
# wildcard or a placeholder (NAME, TEST, ...), a version (DKMS's
# dtracer/0.1.0) or in build output (out/, build/, build-debug/, built
# programs) are not checked; scripts/checkpatch.pl is the kernel's.
awk '{
	t = $0; sub(/^[^:]*:[0-9]*:/, "", t); at = substr($0, 1, length($0) - length(t))
	t = " " t
	while (match(t, /[ (=`"](dtracer|collector|tests|scripts|bench|demo|probes|lttng-modules|docs)\/[A-Za-z0-9_.\/*-]*/)) {
		p = substr(t, RSTART, RLENGTH); sub(/^[ (=`"]/, "", p); sub(/[.\/-]+$/, "", p)
		if (p !~ /\*|\/[A-Z][A-Z_]*(\/|\.|$)|[0-9]+\.[0-9]+\.[0-9]+/ &&
		    p !~ /\/(out|build|build-debug)(\/|$)|\.(ko|so|o|log|a)$/ &&
		    p !~ /^(collector\/dtracer|tests\/unit\/test-[a-z]+|tests\/tools\/dt-[a-z-]+|tests\/fuzz\/fuzz-[a-z-]+|tests\/fuzz\/dt-ctf-fixture|scripts\/checkpatch\.pl)$/)
			print at p
		t = substr(t, RSTART + RLENGTH)
	}
}' "$out/code" > "$out/doc-paths"
: > "$out/bad.path"
while IFS= read -r l; do
	p=${l##*:}
	[ -e "$src/$p" ] || [ -e "$DT_BUILDDIR/$p" ] || echo "$l" >> "$out/bad.path"
done < "$out/doc-paths"
b=$(wc -l < "$out/bad.path")
tap_result $([ "$b" -eq 0 ]; echo $?) \
	"every documented source path exists ($(wc -l < "$out/doc-paths") named, $b not)"
sed 's/^/  /' "$out/bad.path" | tap_diag_stdin

# The other way: everything of the control table and every counter is
# documented (only for the project's own docs). Then the negative
# control: a page with one wrong name of each kind fails each check.
if [ -z "${DT_DOCS:-}" ]; then
	cat > "$out/wrong.md" <<'EOF'
Write `echo 1 > /sys/distributed-tracer/no_such_file` first.

| `no_such_attr` | rw, root | a control file that is not there |

    modprobe dtracer no_such_param=1
    dtracer no-such-command -o x
    dtracer merge --no-such-option -o x DIR

See `t-no-such-test` and `collector/no-such-file.c`.
EOF
	DT_DOCS=$out/wrong.md DT_DOCS_OUT=$out/wrong \
		sh "$DT_SRCDIR/tests/build/t-docs.sh" > "$out/wrong.tap" 2>&1
	rc=$?
	for w in "sysfs file exists (2 named, 2 not)" \
		"module parameter exists (1 named, 1 not)" \
		"dtracer command exists (2 named, 1 not)" \
		"option of a dtracer command exists (1 named, 1 not)" \
		"test exists (1 named, 1 not)" "source path exists (1 named, 1 not)"; do
		grep -qF "$w" "$out/wrong.tap" &&
			grep "^not ok" "$out/wrong.tap" | grep -qF "$w" || {
			rc=0
			tap_diag "no failure: $w"
		}
	done
	tap_result $([ $rc -ne 0 ]; echo $?) \
		"a page with one wrong name of each kind fails each check"
	[ $rc -ne 0 ] || tap_diag_stdin < "$out/wrong.tap"
	for kind in sysfs stats; do
		: > "$out/undoc.$kind"
		while IFS= read -r name; do
			grep -q "\b$name\b" "$out/code" || echo "$name" >> "$out/undoc.$kind"
		done < "$out/$kind"
		b=$(wc -l < "$out/undoc.$kind")
		tap_result $([ "$b" -eq 0 ]; echo $?) \
			"every $kind name of the code is documented ($b not: $(tr '\n' ' ' < "$out/undoc.$kind"))"
	done
fi
tap_done
