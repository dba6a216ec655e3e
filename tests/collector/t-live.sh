#!/bin/sh
# seconds: 200 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# Live: three guests record live sessions (`dtracer record --live`) and
# `dtracer watch` on dt-a (which also runs the relayd and the flagged
# client) prints each request while they record. Two requests come
# while dt-c does not record (printed at the timeout, without dt-c);
# then dt-c starts recording (a host joining after the watcher); then
# dt-b stops its session and starts another (followed again); then 20
# requests through nginx beside two unflagged curl loops (each printed
# once, settled, its tree the merged trace's; the delays from end to
# line reported: docs/benchmarks.md); then the watcher's connection to the relayd drops for 3 s (followed again, the
# gap reported; the trees after it are reported, not asserted: see
# docs/limitations.md, "Live"); a second watcher on dt-b reaches the
# sessions through the LAN and is refused (one viewer per session). The
# watcher stops after the sessions. The arguments' errors come first, on this machine. Here, on
# the host, after the sessions stopped: every request's tree as printed
# live is the tree `dtracer requests --tree` prints from the merged
# trace (same spans, hosts and messages). How long after its end each
# request printed is reported (docs/benchmarks.md), not asserted. See
# guest-live.sh.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=${DT_TEST_OUT:-$DT_BUILDDIR/tests/out/live}
dtracer=$DT_BUILDDIR/collector/dtracer
# DT_LIVE_CYCLES: how many times the watcher's connection drops (1;
# `make soak-live`: 20), 2 requests after each.
cycles=${DT_LIVE_CYCLES:-1}
DT_VM_PASS="${DT_VM_PASS:-} DT_LIVE_CYCLES"
DT_LIVE_CYCLES=$cycles
export DT_VM_PASS DT_LIVE_CYCLES
n_req=$((28 + 2 * cycles))
# The load phase's requests: IDs 8 to 27 (the order of first printing).
load_first=8 load_n=20
# bad arguments: exit 2 and a message naming the fault
mkdir -p "$out"
bad() {
	want=$1
	shift
	"$dtracer" "$@" > /dev/null 2> "$out/bad.err"
	st=$?
	tap_result $([ "$st" = 2 ] && grep -q -- "$want" "$out/bad.err"; echo $?) \
		"dtracer $*: status 2 ($st), \"$want\""
}
bad "is not a duration" record --collector c --live=soon
bad "is not a duration" record --collector c --live=0s
bad "snapshots are not live" record --collector c --live --slower-than 1s
bad "which collector" watch
bad "one collector only" watch a b
bad "is not HOST or HOST:PORT" watch a:70000
bad "is not HOST or HOST:PORT" watch net://a
bad "is not a duration" watch --timeout x a
bad "unknown option" watch --no-such a
bad "is not a host name or IPv4 address" collect --live-address 'a b'

vm_run "$out" "$DT_SRCDIR/tests/collector/guest-live.sh" dt-a dt-b dt-c
vm_report "$out" dt-a dt-b dt-c

live=$out/dt-a/watch-live.txt
rows=$(grep -c '^ *[0-9][0-9]*  [0-9]' "$live" 2>/dev/null)
tap_result $([ "${rows:-0}" -eq "$n_req" ]; echo $?) \
	"the watcher printed the $n_req requests while the sessions ran (${rows:-0})"
sed -n '/^# /p' "$live" 2>/dev/null | head -n 20 | tap_diag_stdin

# trees FILE [MAX_ID [MIN_ID [IDS]]]: each tree's last version,
# normalized: the header's start (the reference host's own clock: the
# same live and merged), then its spans (depth, host, thread, how it
# began and ended) and messages (to whom, bytes, segments), without
# times. One line per tree (those whose ID is MIN_ID to MAX_ID), sorted;
# IDS: each line begins with its ID.
trees() {
	awk -v max="${2:-999999}" -v min="${3:-0}" -v ids="${4:-}" '
	/^request [0-9]+: / {
		if (key != "") t[key] = body
		id = $2; sub(/:/, "", id)
		key = $0; sub(/.*, start /, "", key); sub(/,.*/, "", key)
		if (id + 0 > max + 0 || id + 0 < min + 0) key = ""
		else if (ids != "") key = id " " key
		body = ""; next
	}
	key == "" { next }
	/^$/ { t[key] = body; key = ""; next }
	/^ *[^ ]+ [^ ]+\[[0-9]+\]  \+/ {
		l = $0
		sub(/  \+(-|[0-9.]+ [a-z]+)  (-|[0-9.]+ [a-z]+)  /, " ", l)
		sub(/  \+(-|[0-9.]+ [a-z]+)  (-|[0-9.]+ [a-z]+)  /, " ", l)
		body = body "|" l; next
	}
	/^ *-> / {
		l = $0
		sub(/  \+(-|[0-9.]+ [a-z]+)  /, " ", l)
		sub(/, transit (-|[0-9.]+ [a-z]+)/, "", l)
		body = body "|" l; next
	}
	END {
		if (key != "") t[key] = body
		for (k in t) print k " " t[k]
	}' "$1" | sort
}

final=$out/dt-a/watch.txt
rm -rf "$out/merged"
"$dtracer" merge --reference dt-a -o "$out/merged" "$out/dt-a/traces" \
	> "$out/merge.log" 2>&1
tap_result $? "dtracer merge of the live sessions' traces (dt-b's two)"
"$dtracer" requests "$out/merged" > "$out/requests.txt" 2>&1
tap_result $? "dtracer requests"
n=$(awk '$1 ~ /^[0-9]+$/' "$out/requests.txt" | wc -l)
tap_result $([ "$n" -eq "$n_req" ]; echo $?) \
	"the merged trace has the $n_req requests ($n)"
: > "$out/after.txt"
i=0
while [ "$i" -lt "$n" ]; do
	"$dtracer" requests --tree "$i" "$out/merged" >> "$out/after.txt" 2>&1
	echo >> "$out/after.txt"
	i=$((i + 1))
done
# Before the watcher's connection dropped (requests 0-27), every tree;
# after it, each tree is the merged one, or the watcher said which
# host's events it may lack (lttng-live, attached again, skips what
# reached the relayd meanwhile: docs/limitations.md).
before=$((load_first + load_n))
trees "$final" $((before - 1)) > "$out/trees-live.txt"
trees "$out/after.txt" > "$out/trees-after.txt"
same=$(grep -c -F -x -f "$out/trees-live.txt" "$out/trees-after.txt")
tap_result $([ "$(wc -l < "$out/trees-live.txt")" -eq "$before" ] &&
	[ "$same" -eq "$before" ]; echo $?) \
	"every tree the watcher printed before its connection dropped (its last version) is the tree printed after the sessions stopped ($same of $before)"
grep -v -F -x -f "$out/trees-after.txt" "$out/trees-live.txt" | head -n 5 | tap_diag_stdin
trees "$final" 999999 "$before" ids > "$out/trees-live-drop.txt"
same=0 said=0 wrong=0
while read -r id tree; do
	if grep -q -F -x -e "$tree" "$out/trees-after.txt"; then
		same=$((same + 1))
	elif grep -q "^# request $id may lack events of " "$final"; then
		said=$((said + 1))
	else
		wrong=$((wrong + 1))
		tap_diag "request $id after the drop: $tree"
	fi
done < "$out/trees-live-drop.txt"
tap_result $([ $((same + said)) -eq $((n_req - before)) ] && [ "$wrong" = 0 ]; echo $?) \
	"after the drop, each tree printed is the merged trace's ($same) or says which host's events it may lack ($said), none other ($wrong)"

# The watcher's two models on these sessions' events, replayed here
# (tests/tools/dt-watch-replay: 10 schedules of each host's 1 s flushes,
# lags and stalls): the one that drops what printed requests leave behind
# (the default, the watcher above) prints what the one that keeps every
# event (--keep-all) prints, byte for byte.
"$DT_BUILDDIR/tests/tools/dt-watch-replay" -s 10 "$out/dt-a/traces" \
	> "$out/replay.txt" 2>&1
tap_result $? "replayed 10 ways here, the watcher that drops what printed requests leave behind prints what one that keeps every event prints: $(grep -c ': same:' "$out/replay.txt") of 10 the same"
grep -v ': same:' "$out/replay.txt" | head -n 12 | tap_diag_stdin
# ... and each, whatever the schedule, printed every request once (a
# client's start before its first send, curl loading on a loaded host,
# or a request printed in two pieces at its timeout would add one),
# also with a timeout of 3 s, shorter than the replay's stalls (up to
# 4 s), which more requests reach. There the two models may print a
# request differently before it is whole (a kept-alive connection's
# span: the model that keeps every event sees it in the request before,
# the one that drops prints it at its timeout, then updated), so only
# their counts are compared.
"$DT_BUILDDIR/tests/tools/dt-watch-replay" -s 10 -t 3000 "$out/dt-a/traces" \
	> "$out/replay-3s.txt" 2>&1
n=$(grep -c "^seed [0-9]*: same: printed $n_req and $n_req " "$out/replay.txt")
n3=$(grep -c "^seed [0-9]*: [A-Za-z]*: printed $n_req and $n_req " "$out/replay-3s.txt")
tap_result $([ "$n" -eq 10 ] && [ "$n3" -eq 10 ]; echo $?) \
	"replayed, each model printed the $n_req requests: $n of 10 schedules (the same bytes), $n3 of 10 with a 3 s timeout"
{ grep '^seed' "$out/replay.txt" | grep -v ": same: printed $n_req and $n_req "
grep '^seed' "$out/replay-3s.txt" | grep -v ": printed $n_req and $n_req "
} | head -n 6 | tap_diag_stdin

# The phases, by host count in each request's last tree (by ID: the
# order of first printing).
hosts=$(awk '/^request [0-9]+: / {
		n = $0; sub(/ hosts?, [0-9]+ spans?, .*/, "", n); sub(/.*, /, "", n)
		id = $2; sub(/:/, "", id); h[id] = n; if (id + 0 > max) max = id + 0
	}
	END { for (i = 0; i <= max; i++) printf "%s", h[i] }' "$final")
tap_result $(case $hosts in 2233333333333333333333333333*) [ ${#hosts} -eq "$n_req" ]; echo $? ;; *) echo 1 ;; esac) \
	"2 requests on 2 hosts (dt-c not recording), then 6 on 3 (dt-c joined, dt-b restarted), 20 on 3 under load, then $((2 * cycles)) after the drops: $hosts"
# The load phase: each request printed once, settled (no update, not
# incomplete, no second row), and no request printed besides them (the
# rows' count above: a span printed as its own request would add one).
n=$(awk -v a="$load_first" -v b="$((load_first + load_n - 1))" '
	/^# request [0-9]+ (updated|incomplete|printed after)/ {
		if ($3 + 0 >= a && $3 + 0 <= b) bad++
	}
	/^ *[0-9]+  [0-9]/ { if ($1 + 0 >= a && $1 + 0 <= b) row[$1]++ }
	END { for (k in row) if (row[k] != 1) bad++; print bad + 0 }' "$final")
tap_result $([ "$n" -eq 0 ]; echo $?) \
	"under load, each of the $load_n requests printed once, settled ($n updated, incomplete, without a host or printed twice)"
grep -E "^# request ([0-9]+) (updated|incomplete|printed after)" "$final" | head -n 10 | tap_diag_stdin
truth=$(awk '/^\/f-live\// { f++; ft += $2 == "traced" }
	/^\/b-live\// { b++; bt += $2 == "traced" }
	END { printf "%d of %d flagged and %d of %d unflagged requests traced", ft, f, bt, b }' \
	"$out/dt-c/httpd.log" 2>/dev/null)
tap_diag "the backend's log, under load: $truth"
n=$(grep -c '^# request [01] incomplete after' "$final")
tap_result $([ "$n" -eq 2 ]; echo $?) \
	"the 2 requests dt-c did not record printed at the timeout, incomplete ($n)"
tap_diag "printed incomplete first, then updated when their events came:" \
	"$(grep -c '^# request [0-9]* incomplete after' "$final") incomplete," \
	"$(grep -c '^# request [0-9]* updated' "$final") updates"
late=$(awk '/^request [0-9]+: /{ k++ } k > 2 && /dt-c /{ print; exit }' "$final")
tap_result $([ -n "$late" ]; echo $?) "dt-c's spans are in the later trees: $late"
grep -q '^# dt-b: session dtracer ended' "$final"
tap_result $? "the watcher saw dt-b's first session end"
grep -q "^# stopped: $n_req requests printed" "$final"
tap_result $? "it says what it printed when stopped: $(grep '^# stopped' "$final")"
grep -q "^# lost: 0 events discarded .*; $((3 * cycles)) sessions lost and followed again, " "$final"
tap_result $? "... and what it lost: $(grep '^# lost' "$final")"
n=$(grep -c '^# clocks: dt-[bc] aligned to dt-[ab], accurate' "$final")
tap_result $([ "$n" -ge 2 ]; echo $?) \
	"it says when dt-b's and dt-c's clocks are aligned, and how well ($n lines)"
grep '^# clocks' "$final" | tap_diag_stdin
grep '^# dt-a: session dtracer cannot be attached to' -A4 "$out/dt-b/remote.out" 2>/dev/null | tap_diag_stdin

n=$(grep -o '"root"' "$out/dt-a/live.html" 2>/dev/null | wc -l)
tap_result $([ "$n" -eq "$n_req" ]; echo $?) \
	"--html wrote the page, with every request printed ($n for $n_req)"

# How long after its end each complete request printed (dt-a's clock:
# dt-a is the reference host and runs the watcher).
delays=$(awk '/^# request [0-9]+ incomplete/ { bad[$3] = 1 }
	/^# request [0-9]+ printed / { d[$3] = $5 }
	END { for (k in d) if (!(k in bad)) print d[k] }' "$final" | sort -n)
med=$(echo "$delays" | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
tap_diag "delay from a request's end to its line, complete requests (s):" $delays
tap_diag "median: ${med:-none} s (live timer 1 s, TCG)"
# The same, under load (the collector issue's target: 95th percentile
# 2 s or less, median 1.2 s or less; reported, not asserted).
delays=$(awk -v a="$load_first" -v b="$((load_first + load_n - 1))" '
	/^# request [0-9]+ printed [0-9.]+ s after/ {
		if ($3 + 0 >= a && $3 + 0 <= b) print $5
	}' "$final" | sort -n)
set -- $(echo "$delays" | awk '{ v[NR] = $1 }
	END { if (NR) print v[int((NR + 1) / 2)], v[int((95 * NR + 99) / 100)], NR }')
tap_diag "under load, delay from end to line: median ${1:-none} s, 95th percentile ${2:-none} s (${3:-0} requests)"
# ... of which: until the watcher saw it whole (its events came), and
# the rest waiting for every host's stream to pass its end (medians).
awk -v a="$load_first" -v b="$((load_first + load_n - 1))" '
	/^# request [0-9]+ printed [0-9.]+ s after .*seen whole after/ {
		if ($3 + 0 >= a && $3 + 0 <= b) {
			w = $0; sub(/.*seen whole after /, "", w); sub(/ s\)$/, "", w)
			print w, $5 - w
		}
	}' "$final" > "$out/delay-parts.txt"
median() {
	awk -v c="$1" '{ print $c }' "$out/delay-parts.txt" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) printf "%.3f", v[int((NR + 1) / 2)] }'
}
tap_diag "under load, of that: seen whole after $(median 1) s, then $(median 2) s waiting for the hosts' positions (medians)"
tap_done
