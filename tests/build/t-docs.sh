#!/bin/sh
# seconds: 20 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# The docs name only what exists. In README.md and docs/*.md every name
# of these kinds is checked against the code itself, never against a
# hand-written copy:
#   - sysfs files (/sys/distributed-tracer/NAME, "sysfs `NAME`",
#     "writing `X` to `NAME`", the rows of a "| file | mode |" table) and
#     their modes, against the attribute table of dtracer/control.c
#     (struct attribute *...[]); "N writable files", against the same;
#   - stats counters (`drops_*`, `marks_*`, `mem_*`: the prefixes that
#     counters share; "stat `NAME`", "counted in `NAME`"), against the
#     names dtracer/*.c prints in stats;
#   - module parameters (modprobe dtracer NAME=, `NAME=`), against
#     module_param;
#   - `dtracer COMMAND [OPTION]...` in code, and the rows of a
#     "| command | what it does |" table, against `dtracer --help` and
#     the synopsis of `dtracer COMMAND --help`;
#   - configure options (--with-*, --enable-*, ...), against
#     `configure --help`; `make TARGET`, against the generated Makefile;
#   - tests (t-NAME, test-NAME), source paths, names of the code (dt_*,
#     DT_*, dtracer_*, lttng_dtracer_*), the fields of dtracer's events
#     (a "| event | where | fields |" table, against
#     probes/events/dtracer.h) and the package version of
#     `dtracer/X.Y.Z`, against the source tree.
# And the other way, for the project's own docs: every sysfs file has a
# row in docs/reference.md; every counter, module parameter, event,
# command and test is named; every option of `dtracer COMMAND --help` is
# in its command's row of docs/reference.md and in its synopsis in the
# man page. A negative control feeds a page with wrong names of each
# kind, each of which must fail its check.
#
# To try an edit: DT_DOCS_ROOT=DIR checks DIR/README.md and DIR/docs/*.md
# (a copy) instead, both ways; DT_DOCS="FILE..." checks those files one
# way only (how the negative control runs). DT_DOCS_OUT: the scratch
# folder (default tests/out/docs).
. "$DT_SRCDIR/tests/vm/tap.sh"

src=$DT_SRCDIR
dtracer=$DT_BUILDDIR/collector/dtracer
root=${DT_DOCS_ROOT:-$src}
out=${DT_DOCS_OUT:-$DT_BUILDDIR/tests/out/docs}
rm -rf "$out"
mkdir -p "$out" || exit 99
if [ -n "${DT_DOCS:-}" ]; then
	docs=$DT_DOCS
else
	docs="$root/README.md $(ls "$root"/docs/*.md)"
fi

n() { wc -l < "$1" | tr -d ' '; }

# ----------------------------------------------------------------------
# The docs, as "FILE:LINE:TEXT" lines (FILE relative to the docs' root).
# text: every line. code: each piece of code: a line of a fenced or
# indented block, or an inline `span` (one that runs over a line end is
# put at the line where it starts).
# shellcheck disable=SC2086
awk -v strip="$root/" '
	FNR == 1 { f = FILENAME; if (index(f, strip) == 1) f = substr(f, length(strip) + 1) }
	{ print f ":" FNR ":" $0 }' $docs > "$out/text"
# shellcheck disable=SC2086
awk -v strip="$root/" '
	FNR == 1 {
		f = FILENAME; if (index(f, strip) == 1) f = substr(f, length(strip) + 1)
		fence = 0; open = 0
	}
	/^```/ { fence = !fence; open = 0; next }
	fence || (!open && /^(    |\t)/) { print f ":" FNR ":" $0; next }
	/^[ \t]*$/ { open = 0; next }
	{
		s = $0
		while ((i = index(s, "`")) > 0) {
			if (open)
				print f ":" at ":" buf substr(s, 1, i - 1)
			else
				at = FNR
			open = !open; buf = ""
			s = substr(s, i + 1)
		}
		if (open)
			buf = buf s " "
	}' $docs > "$out/code"

# words FILE ERE [SKIP]: "FILE:LINE:MATCH" for each match of ERE in the
# text of each line of FILE, less what SKIP (an ERE) matches at its start.
words() {
	awk -v re="$2" -v skip="${3:-}" '{
		t = $0; sub(/^[^:]*:[0-9]*:/, "", t); at = substr($0, 1, length($0) - length(t))
		while (match(t, re)) {
			m = substr(t, RSTART, RLENGTH); t = substr(t, RSTART + RLENGTH)
			if (skip != "")
				sub("^" skip, "", m)
			print at m
			if (RLENGTH == 0 || t == "")
				break
		}
	}' "$1"
}

# rows HEAD1 HEAD2: "FILE:LINE:CELL1<tab>CELL2<tab>CELL3" for each row of
# the tables whose header starts "| HEAD1 | HEAD2 |" (\| kept as \|).
rows() {
	awk -v h1="$1" -v h2="$2" '{
		t = $0; sub(/^[^:]*:[0-9]*:/, "", t); at = substr($0, 1, length($0) - length(t))
		if (t !~ /^\|/) { state = 0; next }
		gsub(/\\\|/, "\001", t)
		k = split(t, c, "|")
		for (i = 2; i <= k; i++) { gsub(/^ +| +$/, "", c[i]); gsub(/\001/, "\\|", c[i]) }
		if (state == 0) { state = 1; take = c[2] == h1 && c[3] == h2; next }
		if (state == 1) { state = 2; next }	# | --- |
		if (take) print at c[2] "\t" c[3] "\t" c[4]
	}' "$out/text"
}
rows file mode > "$out/rows.sysfs"
rows command "what it does" > "$out/rows.command"
rows event where > "$out/rows.event"

# ----------------------------------------------------------------------
# The truth, from the code.

# sysfs: each attribute table (struct attribute *NAME[] = { &VAR.attr,
# ... }) and each VAR's __ATTR_RO/WO/RW(NAME): "NAME MODE" (r, w, rw).
awk '
	/struct kobj_attribute [a-z_0-9]+ *=/ {
		v = $0; sub(/.*struct kobj_attribute */, "", v); sub(/[ =].*/, "", v)
	}
	v != "" && /__ATTR_(RO|WO|RW)\(/ {
		m = $0; sub(/.*__ATTR_/, "", m)
		a = m; sub(/^..\(/, "", a); sub(/\).*/, "", a)
		m = substr(m, 1, 2)
		attr[v] = a " " (m == "RO" ? "r" : m == "WO" ? "w" : "rw")
		v = ""
	}
	/struct attribute \*[a-z_0-9]+\[\] *=/ { table = 1; next }
	table && /}/ { table = 0 }
	table && /&[a-z_0-9]+\.attr/ {
		v2 = $0; sub(/.*&/, "", v2); sub(/\.attr.*/, "", v2)
		print (v2 in attr) ? attr[v2] : "?" v2 " ?"
	}' "$src"/dtracer/*.c > "$out/sysfs-modes"
cut -d' ' -f1 "$out/sysfs-modes" | sort -u > "$out/sysfs"
tr ' ' '=' < "$out/sysfs-modes" | sort -u > "$out/sysfs-mode"
grep -c ' r\{0,1\}w$' "$out/sysfs-modes" > "$out/writable"

# stats: the counters' name tables (dtracer/stats.c) and the names
# printed directly; the prefixes two counters or more share (drops_,
# marks_, mem_)
{
	sed -n 's/^[[:space:]]*\[DT_[A-Z_]*\] = "\([a-z_]*\)",.*/\1/p' "$src/dtracer/stats.c"
	sed -n 's/.*sysfs_emit_at(buf, len, "\([a-z_]*\) %.*/\1/p' "$src"/dtracer/*.c
} | sort -u > "$out/stats"
sed -n 's/^\([a-z]*\)_.*/\1/p' "$out/stats" | sort | uniq -d > "$out/stat-prefixes"

sed -n 's/^module_param\(_named\)\{0,1\}(\([a-z_]*\),.*/\2/p' "$src"/dtracer/*.c |
	sort -u > "$out/params"

# dtracer's events, and each one's fields and enum values: "EVENT.NAME"
# (a field macro such as dtracer_ctf_addrs expanded, an enum's values
# with the field).
awk -v evfile="$out/events" -f "$src/tests/build/event-fields.awk" \
	"$src/probes/events/dtracer.h" | sort -u > "$out/event-fields"
sort -u -o "$out/events" "$out/events"

# names of the code: dt_*, DT_*, dtracer_*, lttng_dtracer_*, in the
# sources (the docs and the build's products aside)
find "$src/dtracer" "$src/collector" "$src/probes" "$src/tests" \
	"$src/scripts" "$src/bench" "$src/demo" "$src/lttng-modules" \
	"$src/configure.ac" "$src/Makefile.am" \
	\( -path "$src/lttng-modules/build" -o -path "$src/tests/out" \
	-o -path "$src/tests/vm/build" -o -path "$src/tests/vm/build-*" \) -prune \
	-o -type f \( -name '*.[ch]' -o -name '*.sh' -o -name '*.mk' \
	-o -name '*.am' -o -name '*.ac' -o -name '*.in' -o -name '*.patch' \
	-o -name '*.awk' -o -name '*.js' -o -name '*.html' -o -name '*.config' \
	-o -name Kbuild \) ! -name '*.mod.c' ! -name t-docs.sh \
	-exec grep -ohE '\b(dt|DT|dtracer|lttng_dtracer|LTTNG_DTRACER)_[A-Za-z0-9_]*[A-Za-z0-9]' {} + |
	sort -u > "$out/idents"

# tests: t-NAME (the scripts under tests/), test-NAME (unit tests)
(cd "$src" && ls tests/*/t-*.sh tests/unit/test-*.c) |
	sed 's|.*/||; s|\.[a-z]*$||' | sort -u > "$out/tests"

sed -n 's/^AC_INIT(\[[^]]*\], *\[\([^]]*\)\].*/\1/p' "$src/configure.ac" > "$out/version"

# configure's options, make's targets
"$src/configure" --help 2>&1 |
	grep -oE -- '--(with|without|enable|disable)-[a-z0-9-]+|--prefix' |
	sort -u > "$out/configure"
sed -n 's/^\([a-z][a-z0-9_.-]*\):.*/\1/p' "$DT_BUILDDIR/Makefile" |
	sort -u > "$out/targets"

# dtracer's commands (`dtracer --help`: "  COMMAND ...") and the options
# of each one's synopsis (`dtracer COMMAND --help`: its usage line and
# the indented lines that continue it): "COMMAND --option", "COMMAND -o".
"$dtracer" --help > "$out/help" 2>&1
sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' "$out/help" | sort -u > "$out/commands"
: > "$out/options"
while read -r c; do
	"$dtracer" "$c" --help > "$out/help-$c" 2>&1
	awk 'BEGIN { go = 1 } NR == 1 || (go && /^   /) { print; next } { go = 0 }' \
		"$out/help-$c" |
		grep -oE -- '(^|[^a-zA-Z0-9-])(--[a-z][a-z-]*[a-z]|-[a-zA-Z])\b' |
		sed "s/^[^-]*/$c /" >> "$out/options"
done < "$out/commands"
sort -u -o "$out/options" "$out/options"

tap_result $([ "$(n "$out/sysfs")" -ge 10 ] && [ "$(n "$out/stats")" -ge 10 ] &&
	[ "$(n "$out/params")" -ge 1 ] && [ "$(n "$out/events")" -ge 5 ] &&
	[ "$(n "$out/event-fields")" -ge 20 ] && [ "$(n "$out/commands")" -ge 5 ] &&
	[ "$(n "$out/options")" -ge 10 ] && [ "$(n "$out/configure")" -ge 5 ] &&
	[ "$(n "$out/targets")" -ge 10 ] && [ "$(n "$out/tests")" -ge 10 ] &&
	[ "$(n "$out/idents")" -ge 100 ] && [ -s "$out/version" ] &&
	! grep -q '?' "$out/sysfs-modes"; echo $?) \
	"the code's lists read: $(n "$out/sysfs") sysfs files ($(cat "$out/writable") writable), $(n "$out/stats") counters, $(n "$out/params") module parameters, $(n "$out/events") events ($(n "$out/event-fields") fields and values), $(n "$out/commands") commands ($(n "$out/options") options), $(n "$out/configure") configure options, $(n "$out/targets") make targets, $(n "$out/tests") tests, $(n "$out/idents") names, version $(cat "$out/version")"

# ----------------------------------------------------------------------
# check KIND LISTFILE WHERE: each "FILE:LINE:NAME" line of stdin whose
# NAME is not a line of LISTFILE fails, named with its place.
check() {
	_f=$(printf %s "$1" | tr -c 'a-z0-9' '-')
	awk -v list="$2" -v count="$out/count.$_f" '
		BEGIN { while ((getline l < list) > 0) ok[l] }
		{ k++; name = $0; sub(/^[^:]*:[0-9]*:/, "", name); if (!(name in ok)) print }
		END { print k + 0 > count }' > "$out/bad.$_f"
	_b=$(n "$out/bad.$_f")
	tap_result $([ "$_b" -eq 0 ]; echo $?) \
		"every documented $1 exists ($(cat "$out/count.$_f") named, $_b not; the truth: $3)"
	sed 's/^\([^:]*:[0-9]*\):/  \1: /' "$out/bad.$_f" | tap_diag_stdin
}

# sysfs files
{
	words "$out/text" '/sys/distributed-tracer/[a-z_]+' '/sys/distributed-tracer/'
	words "$out/text" 'sysfs (files? )?`[a-z_]+`(, `[a-z_]+`)*' 'sysfs (files? )?' |
		awk -F: -v OFS=: '{ k = split($3, w, /`(, `)?/); for (i = 2; i < k; i++) print $1, $2, w[i] }'
	words "$out/text" 'writ(e|es|ing) `[^`]*` to `[a-z_]+`' 'writ(e|es|ing) `[^`]*` to ' | tr -d '`'
	sed -n 's/^\([^:]*:[0-9]*:\)`\([^`]*\)`\t.*/\1\2/p' "$out/rows.sysfs"
} > "$out/doc-sysfs"
check "sysfs file" "$out/sysfs" "the attribute table in dtracer/control.c" < "$out/doc-sysfs"
sed -n 's/^\([^:]*:[0-9]*:\)`\([^`]*\)`\t\(rw\|r\|w\)\b.*/\1\2=\3/p' "$out/rows.sysfs" > "$out/doc-sysfs-mode"
check "sysfs mode" "$out/sysfs-mode" "__ATTR_RO/WO/RW in dtracer/control.c" < "$out/doc-sysfs-mode"
words "$out/text" '[0-9]+ writable files' | sed 's/ writable files$//' > "$out/doc-writable"
check "count of writable files" "$out/writable" "__ATTR_WO and __ATTR_RW in the attribute table" < "$out/doc-writable"

# stats counters
{
	words "$out/code" "^($(paste -sd'|' "$out/stat-prefixes"))_[a-z_]+\$"
	words "$out/text" '(stat|counter|counted in) `[a-z_]+`' '(stat|counter|counted in) ' |
		tr -d '`' | grep -v ':stats$'
} > "$out/doc-stats"
check "stats counter" "$out/stats" "the names dtracer/*.c prints in stats" < "$out/doc-stats"

# module parameters
{
	words "$out/code" '(modprobe|options) dtracer [a-z_]+=' '(modprobe|options) dtracer '
	words "$out/code" '^[a-z_]+=$'
} | sed 's/=$//' > "$out/doc-params"
check "module parameter" "$out/params" "module_param in dtracer/*.c" < "$out/doc-params"

# dtracer COMMAND ARGS: a piece of code that starts with it (a shell
# comment after it left out, up to a pipe or redirection), or the first
# cell of a command table's row.
{
	awk '{
		t = $0; sub(/^[^:]*:[0-9]*:/, "", t); at = substr($0, 1, length($0) - length(t))
		sub(/^[ \t]*(\$ )?/, "", t); sub(/[ \t]#.*/, "", t)
		if (t ~ /^dtracer [a-z]/) {
			t = substr(t, 9)
			if (match(t, /[|;&>]/))
				t = substr(t, 1, RSTART - 1)
			print at t
		}
	}' "$out/code"
	sed -n 's/^\([^:]*:[0-9]*:\)`\([^`]*\)`\t.*/\1\2/p' "$out/rows.command"
} | awk '{
	t = $0; sub(/^[^:]*:[0-9]*:/, "", t); at = substr($0, 1, length($0) - length(t))
	c = t; sub(/[^a-z-].*/, "", c)
	print at c "\t" substr(t, length(c) + 1)
}' > "$out/doc-commands"
cut -f1 "$out/doc-commands" > "$out/doc-commands1"
check "dtracer command" "$out/commands" "dtracer --help" < "$out/doc-commands1"
# the options of the known commands (an unknown one failed above)
awk -F'\t' -v list="$out/commands" '
	BEGIN { while ((getline l < list) > 0) known[l] }
	{
		at = $1; sub(/[^:]*$/, "", at); c = $1; sub(/.*:/, "", c)
		if (!(c in known)) next
		t = " " $2
		while (match(t, /[ [(](--[a-z][a-z-]*[a-z]|-[a-zA-Z])([] =)\\]|$)/)) {
			o = substr(t, RSTART + 1, RLENGTH - 1); sub(/[] =)\\]$/, "", o)
			print at c " " o
			t = substr(t, RSTART + RLENGTH - 1)
		}
	}' "$out/doc-commands" > "$out/doc-options"
check "dtracer option" "$out/options" "the synopsis of dtracer COMMAND --help" < "$out/doc-options"

# configure's options; make's targets (make where a command starts,
# after any VAR=value; not make -C DIR, another Makefile)
words "$out/text" '--(with|without|enable|disable)-[a-z0-9-]*[a-z0-9]' > "$out/doc-configure"
check "configure option" "$out/configure" "configure --help" < "$out/doc-configure"
awk '{
	t = $0; sub(/^[^:]*:[0-9]*:/, "", t); at = substr($0, 1, length($0) - length(t))
	k = split(t, w, /[ \t]+/)
	for (i = 1; i <= k; i++) {
		if (w[i] != "make" || (i > 1 && w[i - 1] !~ /^(&&|;|\|\||\(|[A-Z_]+=.*|)$/))
			continue
		for (j = i + 1; j <= k && (w[j] ~ /^-/ || w[j] ~ /^[A-Z_]+=/); j++)
			if (w[j] ~ /^-C/)
				j = k + 1
		if (j <= k && w[j] ~ /^[a-z][a-z0-9-]*$/)
			print at w[j]
	}
}' "$out/code" > "$out/doc-targets"
check "make target" "$out/targets" "the rules of the generated Makefile" < "$out/doc-targets"

# tests: t-NAME, test-NAME, not within a longer name or a path
words "$out/text" '(^|[^A-Za-z0-9_./-])(t|test)-[a-z][a-z-]*[a-z]' '[^a-z]' > "$out/doc-tests"
check "test" "$out/tests" "tests/*/t-*.sh, tests/unit/test-*.c" < "$out/doc-tests"

# Source paths: a token of code starting with a source folder. One with
# a wildcard or a placeholder (NAME, TEST, ...), a version (DKMS's
# dtracer/0.1.0) or in build output (out/, build/, build-debug/,
# build-trixie/, distcheck/: make check-lanes's copy of distcheck's
# results, .ko, .o, .so, .log, .a, .tsv) is not checked; a built program
# is there as its .c;
# scripts/checkpatch.pl is the kernel's, collector/dtracer the command.
awk '{
	t = $0; sub(/^[^:]*:[0-9]*:/, "", t); at = substr($0, 1, length($0) - length(t))
	t = " " t
	while (match(t, /[ (=`"](dtracer|collector|tests|scripts|bench|demo|probes|lttng-modules|docs)\/[A-Za-z0-9_.\/*-]*/)) {
		p = substr(t, RSTART, RLENGTH); sub(/^[ (=`"]/, "", p); sub(/[.\/-]+$/, "", p)
		if (p !~ /\*|\/[A-Z][A-Z_]*(\/|\.|$)|[0-9]+\.[0-9]+\.[0-9]+/ &&
		    p !~ /\/(out|build|build-[a-z]+|distcheck)(\/|$)|\.(ko|so|o|log|a|tsv)$/ &&
		    p !~ /^(collector\/dtracer|scripts\/checkpatch\.pl)$/)
			print at p
		t = substr(t, RSTART + RLENGTH)
	}
}' "$out/code" > "$out/doc-paths"
: > "$out/bad.path"
while IFS= read -r l; do
	p=${l##*:}
	[ -e "$src/$p" ] || [ -e "$src/$p.c" ] || [ -e "$DT_BUILDDIR/$p" ] ||
		echo "$l" >> "$out/bad.path"
done < "$out/doc-paths"
b=$(n "$out/bad.path")
tap_result $([ "$b" -eq 0 ]; echo $?) \
	"every documented source path exists ($(n "$out/doc-paths") named, $b not; the truth: the source tree)"
sed 's/^\([^:]*:[0-9]*\):/  \1: /' "$out/bad.path" | tap_diag_stdin

# names of the code (not a wildcard: dtracer_*, dt_gate_*)
words "$out/code" '(^|[^A-Za-z0-9_])(dt|DT|dtracer|lttng_dtracer|LTTNG_DTRACER)_[A-Za-z0-9_]*[A-Za-z0-9_*]' '[^A-Za-z]' |
	grep -v '[_*]$' > "$out/doc-idents"
check "name of the code" "$out/idents" "dt_*, DT_*, dtracer_* in the sources" < "$out/doc-idents"

# dtracer's events: each `name` of an events table's fields cell is a
# field of that event, or a value of one of its enums
awk -F'\t' '{
	at = $1; sub(/[^:]*$/, "", at); ev = $1; sub(/.*:/, "", ev); gsub(/`/, "", ev)
	t = $3
	while (match(t, /`[a-z_0-9]+`/)) {
		print at ev "." substr(t, RSTART + 1, RLENGTH - 2); t = substr(t, RSTART + RLENGTH)
	}
}' "$out/rows.event" > "$out/doc-event-fields"
check "event field" "$out/event-fields" "probes/events/dtracer.h" < "$out/doc-event-fields"

words "$out/code" 'dtracer/[0-9]+\.[0-9]+\.[0-9]+' 'dtracer/' > "$out/doc-version"
check "package version" "$out/version" "AC_INIT in configure.ac" < "$out/doc-version"

# ----------------------------------------------------------------------
# The other way (the docs as a whole: not with DT_DOCS), then the
# negative control.
if [ -z "${DT_DOCS:-}" ]; then
	# documented KIND LISTFILE WHERE: each line of LISTFILE is one of
	# the names in $out/names (made just before).
	documented() {
		_f=$(printf %s "$1" | tr -c 'a-z0-9' '-')
		sort -u "$out/names" > "$out/doc.$_f"
		comm -23 "$2" "$out/doc.$_f" > "$out/undoc.$_f"
		_b=$(n "$out/undoc.$_f")
		tap_result $([ "$_b" -eq 0 ]; echo $?) \
			"every $1 of the code is documented in $3 ($_b not$(tr '\n' ' ' < "$out/undoc.$_f" | sed 's/^./: &/; s/ $//'))"
	}
	sed -n 's/^docs\/reference.md:[0-9]*:`\([^`]*\)`.*/\1/p' "$out/rows.sysfs" > "$out/names"
	documented "sysfs file" "$out/sysfs" "docs/reference.md's table"
	for kind in stats params; do
		while IFS= read -r name; do
			grep -qE "(^|[^a-z_])$name([^a-z_]|$)" "$out/code" && echo "$name"
		done < "$out/$kind" > "$out/names"
		documented "$kind name" "$out/$kind" "the docs' code"
	done
	sed -n 's/^[^:]*:[0-9]*:`\([^`]*\)`.*/\1/p' "$out/rows.event" > "$out/names"
	documented "dtracer event" "$out/events" "an events table"
	# tests: named, or in a path
	words "$out/text" '(^|[^A-Za-z0-9_.-])(t|test)-[a-z][a-z-]*[a-z]' '[^a-z]' |
		sed 's/^[^:]*:[0-9]*://' > "$out/names"
	documented "test" "$out/tests" "the docs"
	sed -n 's/^docs\/reference.md:[0-9]*:\([a-z]*\)\t.*/\1/p' "$out/doc-commands" > "$out/names"
	documented "dtracer command" "$out/commands" "docs/reference.md's table"
	sed -n 's/^docs\/reference.md:[0-9]*://p' "$out/doc-options" > "$out/names"
	documented "dtracer option" "$out/options" "docs/reference.md's table"
	# the man page's SYNOPSIS, one `.B dtracer COMMAND` after another
	# (\- read as -, font escapes left out)
	sed 's/\\-/-/g; s/\\f[BIRP]//g' "$src/doc/dtracer.1" | awk '
		/^\.SH/ { syn = $2 == "SYNOPSIS"; c = ""; next }
		syn && /^\.B dtracer [a-z]/ { c = $3 }
		syn && c != "" {
			t = " " $0
			while (match(t, /[^a-zA-Z0-9-](--[a-z][a-z-]*[a-z]|-[a-zA-Z])([^a-zA-Z0-9-]|$)/)) {
				o = substr(t, RSTART + 1, RLENGTH - 1); sub(/[^a-zA-Z0-9]$/, "", o)
				print c " " o
				t = substr(t, RSTART + RLENGTH - 1)
			}
		}' > "$out/names"
	documented "dtracer option (man)" "$out/options" "doc/dtracer.1's synopsis"

	cat > "$out/wrong.md" <<'EOF'
Write `echo 1 > /sys/distributed-tracer/no_such_file` first.

| file | mode | meaning |
| --- | --- | --- |
| `no_such_attr` | rw, root | a control file that is not there |
| `trace` | rw, root writes | a read-only file said writable |

As `nobody`, each of the 99 writable files refuses a write.
The stat `no_such_stat` and `drops_no_such` stay 0.

    modprobe dtracer no_such_param=1
    dtracer no-such-command -o x
    dtracer merge --no-such-option -o x DIR
    ./configure --with-no-such-thing
    make no-such-target
    dkms add dtracer/9.9.9

| command | what it does |
| --- | --- |
| `requests [-z]` | an option that is not there |

| event | where | fields |
| --- | --- | --- |
| `dtracer_flag` | flags.c | `tid`, `no_such_field` |

See `t-no-such-test`, test-no-such-unit, `collector/no-such-file.c`
and `dt_no_such_function()`.
EOF
	DT_DOCS=$out/wrong.md DT_DOCS_OUT=$out/wrong \
		sh "$DT_SRCDIR/tests/build/t-docs.sh" > "$out/wrong.tap" 2>&1
	rc=$?
	# KIND:BAD: that check fails, with BAD names not found
	for w in "sysfs file:2" "sysfs mode:2" "count of writable files:1" \
		"stats counter:2" "module parameter:1" "dtracer command:1" \
		"dtracer option:2" "configure option:1" "make target:1" \
		"test:2" "source path:1" "name of the code:1" "event field:1" \
		"package version:1"; do
		grep -q "^not ok [0-9]* - every documented ${w%:*} exists ([0-9]* named, ${w##*:} not;" \
			"$out/wrong.tap" || {
			rc=0
			tap_diag "no failure with ${w##*:} not found for: ${w%:*}"
		}
	done
	tap_result $([ $rc -ne 0 ]; echo $?) \
		"a page with wrong names of each kind fails each check, with each one named"
	[ $rc -ne 0 ] || tap_diag_stdin < "$out/wrong.tap"
fi
tap_done
