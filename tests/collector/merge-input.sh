# Bad input for `dtracer merge`/`sync` and for flt.dtracer.sync's
# parameters, on copies of the traces t-collect.sh collected (sourced by
# it: $traces, $dtracer, $out). Each case: the exit status, a message
# naming what is wrong, and nothing left behind (no OUT, no partial
# directory).
bad=$out/bad
rm -rf "$bad"
mkdir -p "$bad/empty"
cp -r "$traces" "$bad/meta"
cp -r "$traces" "$bad/trunc"
cp -r "$traces" "$bad/nometa"
: > "$bad/file"
md=$(ls "$bad"/meta/dt-b/*/kernel/metadata)
head -c 5000 "$md" > "$md.cut" && mv "$md.cut" "$md"
ch=$(ls "$bad"/trunc/dt-b/*/kernel/channel0_0)
truncate -s 5000 "$ch"
rm "$bad"/nometa/dt-c/*/kernel/metadata
mkdir "$bad/exists"
echo keep > "$bad/exists/mine"

# case STATUS PATTERN DESC -- COMMAND...: exit status, stderr matches
# PATTERN (grep -E; "quiet": stderr empty), and no OUT ($bad/o) or
# partial directory is left.
case_() {
	_st=$1 _pat=$2 _desc=$3
	shift 4
	rm -rf "$bad/o"
	"$@" > "$bad/stdout" 2> "$bad/stderr"
	_got=$?
	_left=$(ls -a "$bad" | grep -c '\.partial-')
	if [ "$_pat" = quiet ]; then
		[ -s "$bad/stderr" ] && _pat='^$' || _pat=.
	fi
	if [ "$_got" = "$_st" ] && { [ "$_pat" = . ] || grep -Eq -- "$_pat" "$bad/stderr"; } &&
	   [ ! -e "$bad/o" ] && [ "$_left" = 0 ]; then
		tap_result 0 "bad input: $_desc (exit $_got: $(head -n 1 "$bad/stderr"))"
	else
		tap_result 1 "bad input: $_desc (exit $_got, want $_st; OUT left: $([ -e "$bad/o" ] && echo yes || echo no), partial: $_left)"
		tap_diag_stdin < "$bad/stderr"
	fi
}

case_ 2 'usage: dtracer COMMAND' "no command" -- "$dtracer"
case_ 2 "unknown command .frobnicate." "unknown command" -- "$dtracer" frobnicate
case_ 2 "no trace directory given" "merge without a directory" -- "$dtracer" merge -o "$bad/o"
case_ 2 "-o OUT is required" "merge without -o" -- "$dtracer" merge "$traces"
case_ 2 "unknown option or missing argument: --bogus" "unknown option" -- "$dtracer" merge --bogus -o "$bad/o" "$traces"
case_ 2 "unknown option or missing argument: -o" "-o without its argument" -- "$dtracer" merge "$traces" -o
case_ 2 "empty host name" "empty --reference" -- "$dtracer" merge --reference= -o "$bad/o" "$traces"
case_ 1 "$bad/none: No such file or directory" "missing directory" -- "$dtracer" merge -o "$bad/o" "$bad/none"
case_ 1 "$bad/file: not a directory" "a file, not a directory" -- "$dtracer" merge -o "$bad/o" "$bad/file"
case_ 1 "$bad/empty: no CTF trace there" "directory with no trace" -- "$dtracer" merge -o "$bad/o" "$bad/empty"
case_ 1 "dt-b/.*/kernel/metadata: truncated metadata packet at byte" "metadata cut short (babeltrace2 alone loops on it)" -- "$dtracer" merge -o "$bad/o" "$bad/meta"
case_ 1 "cannot read .*dt-b/.*kernel.*|channel0_0" "stream file cut mid-packet: the file is named" -- "$dtracer" merge -o "$bad/o" "$bad/trunc"
case_ 1 "reference host .dt-z. is not in the traces" "unknown --reference" -- "$dtracer" merge --reference dt-z -o "$bad/o" "$traces"
case_ 1 "$bad/nope: no such directory" "OUT's parent missing" -- "$dtracer" merge -o "$bad/nope/o" "$traces"
case_ 2 "writes nothing" "sync given -o" -- "$dtracer" sync -o "$bad/o" "$traces"
rm -rf "$bad/o"
"$dtracer" merge -o "$bad/exists" "$traces" > /dev/null 2> "$bad/stderr"
tap_result $([ $? = 1 ] && grep -q 'already exists' "$bad/stderr" &&
	[ "$(ls "$bad/exists")" = mine ] && [ "$(cat "$bad/exists/mine")" = keep ]; echo $?) \
	"bad input: OUT exists: refused, its content untouched ($(head -n 1 "$bad/stderr"))"
# A host whose metadata is gone has no trace: the others still merge?
# No: a directory given must hold what it claims; dt-c's directory is
# just not a trace any more, and the two left merge.
"$dtracer" merge -o "$bad/o" "$bad/nometa" > "$bad/stdout" 2> "$bad/stderr"
tap_result $([ $? = 0 ] && grep -q 'of 2 hosts' "$bad/stdout"; echo $?) \
	"a host's trace without metadata is not a trace: the other two merge ($(tail -n 1 "$bad/stdout"))"
rm -rf "$bad/o"

# The plugin's parameters, through babeltrace2's own command line.
plugin() {
	babeltrace2 --plugin-path="$DT_BUILDDIR/collector/.libs" "$traces" \
		-c flt.dtracer.sync "$@" -c sink.utils.dummy
}
case_ 0 quiet "plugin: a good run writes its report to path" -- plugin -p "path=\"$bad/report\",reference=\"dt-b\""
tap_result $(grep -q '^host dt-b reference' "$bad/report" && grep -q '^pair ' "$bad/report"; echo $?) \
	"plugin: the report names dt-b the reference and lists the pairs"
case_ 1 "unknown parameter .bogus." "plugin: unknown parameter" -- plugin -p "bogus=1"
case_ 1 "parameter .path.: expecting a string" "plugin: path not a string" -- plugin -p "path=3"
case_ 1 "cannot write the report to ./nonexistent/r" "plugin: report path unwritable" -- plugin -p 'path="/nonexistent/r"'
case_ 1 "reference host .dt-z. is not in the traces" "plugin: unknown reference" -- plugin -p 'reference="dt-z"'

# On a terminal (script(1) gives it one), merge shows its progress.
rm -rf "$bad/o"
script -qec "'$dtracer' merge -o '$bad/o' '$traces'" /dev/null > "$bad/tty" 2>&1
tap_result $(grep -q 'reading 3 traces' "$bad/tty" && grep -q '\] *[0-9]*%' "$bad/tty" &&
	[ -d "$bad/o/ctf" ]; echo $?) "on a terminal: a progress bar, then the result"
rm -rf "$bad/o"
