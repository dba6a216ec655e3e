#!/bin/sh
# seconds: 60 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# The names kernel and collector share agree. The kernel declares
# dtracer's events, their fields and their reason codes
# (probes/events/dtracer.h, the codes' values in dtracer/trace/dtracer.h);
# the collector names them again in its own code. Each side is read
# from its sources and the two compared:
#   - events: every dtracer_* event the collector names (the event
#     kinds of requests-decode.c, the marks flt-sync.c matches, the
#     triggers and the event glob of record.c) is one of the kernel's;
#   - fields: each field the collector reads is one of the event's
#     (requests-decode.c's read_payload per group of cases, marks-read.c's
#     dt_read_flow and dt_read_mark for the events that call them,
#     record.c's trigger filters per event);
#   - reasons: each of dtracer_flag's and dtracer_unflag's reasons has
#     the kernel's value in the collector's enums (requests-types.h:
#     DT_RQ_FLAG_NAME, DT_RQ_END_NAME or DT_RQ_UNFLAG_NAME) and the
#     kernel's name at that value in requests.c's name tables, and the
#     collector has no flag reason the kernel lacks.
# A negative control breaks a copy of the sources in each of these ways,
# and each must fail. DT_NAMES_OUT: the scratch folder (default
# tests/out/names).
. "$DT_SRCDIR/tests/vm/tap.sh"

src=$DT_SRCDIR
out=${DT_NAMES_OUT:-$DT_BUILDDIR/tests/out/names}
rm -rf "$out"
mkdir -p "$out" || exit 99

# The files both sides are read from, relative to the source tree.
files="probes/events/dtracer.h dtracer/trace/dtracer.h
collector/requests/requests-decode.c collector/plugin/flt-sync.c
collector/cmd/record.c collector/sync/marks-read.c
collector/requests/requests.c collector/requests/requests-types.h"

# kernel ROOT DIR: the kernel's side into DIR: events, fields
# ("EVENT.FIELD"), reasons ("flag NAME VALUE", "unflag NAME VALUE").
kernel() {
	awk -v evfile="$2/events" -f "$src/tests/build/event-fields.awk" \
		"$1/probes/events/dtracer.h" | sort -u > "$2/fields"
	sort -u -o "$2/events" "$2/events"
	awk 'NR == FNR {
		if ($1 == "#define" && $2 ~ /^DTRACER_(UN)?FLAG_/) val[$2] = $3
		next
	}
	/LTTNG_TRACEPOINT_ENUM\(dtracer_flag_reason/ { kind = "flag" }
	/LTTNG_TRACEPOINT_ENUM\(dtracer_unflag_reason/ { kind = "unflag" }
	/^\)/ { kind = "" }
	kind != "" && /ctf_enum_value\("/ {
		n = $0; sub(/.*\("/, "", n); sub(/".*/, "", n)
		c = $0; sub(/.*", */, "", c); sub(/\).*/, "", c)
		print kind, n, (c in val) ? val[c] : "?" c
	}' "$1/dtracer/trace/dtracer.h" "$1/probes/events/dtracer.h" \
		> "$2/reasons"
}

# events ROOT: the collector's dtracer_* event names, one a line.
events() {
	{
		grep -ohE '\{ "dtracer_[a-z_]+", DT_RQ_EV_' \
			"$1/collector/requests/requests-decode.c"
		grep -ohE 'strcmp\(name, "dtracer_[a-z_]+"\)' \
			"$1/collector/plugin/flt-sync.c"
		grep -ohE '\{ "[^"]*", "dtracer_[a-z_]+", "' \
			"$1/collector/cmd/record.c"
	} | grep -oE '"dtracer_[a-z_]+"' | tr -d '"' | sort -u
}

# reads ROOT: the fields the collector reads, as "EVENTS FIELD" (EVENTS:
# the events one of which must have it, comma-separated).
reads() {
	# marks-read.c: each reader's fields ("flow" or "mark": FIELD)
	awk '/^int dt_read_[a-z]+\(/ { fn = $2; sub(/\(.*/, "", fn); sub(/dt_read_/, "", fn) }
	/^}/ { fn = "" }
	fn != "" {
		s = $0
		while (match(s, /dt_field_[a-z]+\(payload, "[a-z_]+"/)) {
			m = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
			sub(/.*, "/, "", m); sub(/"/, "", m); print fn, m
		}
		if (fn == "mark" && /dt_read_flow\(/) print "mark", "@flow"
	}' "$1/collector/sync/marks-read.c" > "$out/readers"
	# requests-decode.c: kinds to events; read_payload's groups of cases
	awk -v readers="$out/readers" '
	BEGIN {
		while ((getline l < readers) > 0) {
			split(l, w, " "); rf[w[1]] = rf[w[1]] " " w[2]
		}
	}
	function fields(fn, evs,   k, i, w) {
		k = split(rf[fn], w, " ")
		for (i = 1; i <= k; i++)
			if (w[i] ~ /^@/) fields(substr(w[i], 2), evs)
			else print evs, w[i]
	}
	match($0, /\{ "dtracer_[a-z_]+", DT_RQ_EV_[A-Z_]+ \}/) {
		m = substr($0, RSTART, RLENGTH); gsub(/[{}",]/, "", m)
		split(m, w, " "); ev[w[2]] = w[1]
	}
	/^static int read_payload\(/ { on = 1 }
	on && /^}/ { on = 0 }
	on && /case DT_RQ_EV_[A-Z_]+:/ {
		k = $0; sub(/.*case /, "", k); sub(/:.*/, "", k)
		if (!incase) group = ""
		if (k in ev) group = group (group == "" ? "" : ",") ev[k]
		incase = 1; next
	}
	on { incase = 0 }
	on && group != "" {
		s = $0
		while (match(s, /dt_field_[a-z]+\(p, "[a-z_]+"/)) {
			m = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
			sub(/.*, "/, "", m); sub(/"/, "", m); print group, m
		}
		if (/dt_read_flow\(/) fields("flow", group)
		if (/dt_read_mark\(/) fields("mark", group)
	}' "$1/collector/requests/requests-decode.c"
	# flt-sync.c: the marks it matches are read with dt_read_mark
	for e in $(grep -ohE 'strcmp\(name, "dtracer_[a-z_]+"\)' \
			"$1/collector/plugin/flt-sync.c" | grep -oE 'dtracer_[a-z_]+'); do
		grep -q 'dt_read_mark(' "$1/collector/plugin/flt-sync.c" &&
			awk -v e="$e" '$1 == "mark" && $2 !~ /^@/ { print e, $2 }
				$1 == "flow" { print e, $2 }' "$out/readers"
	done
	# record.c: each trigger's filter, the identifiers in it
	grep -oE '\{ "[^"]*", "dtracer_[a-z_]+", "[^"]*" \}' \
		"$1/collector/cmd/record.c" |
		awk -F'"' '{
			s = $6; gsub(/%[a-z]+/, "", s)
			while (match(s, /[a-z_][a-z_0-9]*/)) {
				print $4, substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
			}
		}'
}

# collector_reasons ROOT: "flag NAME VALUE" / "unflag NAME VALUE" as
# the collector has them (its enum's value, and the name its table
# prints at that value: "-" if none), and "flagenum NAME" for each of
# its flag reasons.
collector_reasons() {
	awk 'NR == FNR {
		if (match($0, /DT_RQ_(FLAG|END|UNFLAG)_[A-Z_]+ *=? *[0-9]+/)) {
			m = substr($0, RSTART, RLENGTH); gsub(/[=]/, " ", m)
			split(m, w, " "); val[w[1]] = w[2]
			if (w[1] ~ /^DT_RQ_FLAG_/) print "flagenum", tolower(substr(w[1], 12))
		}
		next
	}
	/dt_rq_flag_reason_name\(/ { t = "flag"; n = 0 }
	/dt_rq_end_reason_name\(/ { t = "end"; n = 0 }
	t != "" {
		s = $0
		while (match(s, /"[a-z_]+"/)) {
			names[t, n++] = substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH)
		}
		if (/\};/) t = ""
	}
	END {
		for (k in val) {
			if (k ~ /^DT_RQ_FLAG_/)
				print "flag", tolower(substr(k, 12)), val[k], \
					((("flag", val[k]) in names) ? names["flag", val[k]] : "-")
			else if (k ~ /^DT_RQ_UNFLAG_/) {
				e = "DT_RQ_END_" substr(k, 14)
				print "unflag", tolower(substr(k, 14)), val[k], \
					((e in val && ("end", val[e]) in names) ? names["end", val[e]] : "-")
			} else if (!(("DT_RQ_UNFLAG_" substr(k, 11)) in val))
				print "unflag", tolower(substr(k, 11)), val[k], \
					((("end", val[k]) in names) ? names["end", val[k]] : "-")
		}
	}' "$1/collector/requests/requests-types.h" \
		"$1/collector/requests/requests.c"
}

# check ROOT DIR: the mismatches of ROOT's sources, one file per kind
# in DIR (events.bad, fields.bad, reasons.bad; empty if none).
check() {
	mkdir -p "$2"
	kernel "$1" "$2"
	events "$1" > "$2/c-events"
	grep -q '"dtracer_\*"' "$1/collector/cmd/record.c" &&
		! grep -q '^dtracer_' "$2/events" &&
		echo "record.c's dtracer_* matches no event" > "$2/events.bad"
	comm -23 "$2/c-events" "$2/events" |
		sed 's/$/: not an event of probes\/events\/dtracer.h/' >> "$2/events.bad"
	reads "$1" | sort -u > "$2/c-reads"
	while read -r evs f; do
		ok=
		for e in $(echo "$evs" | tr , ' '); do
			grep -qxF "$e.$f" "$2/fields" && ok=1
		done
		[ -n "$ok" ] || echo "$f: not a field of $evs"
	done < "$2/c-reads" > "$2/fields.bad"
	collector_reasons "$1" > "$2/c-reasons"
	{
		while read -r rk rn rv; do
			got=$(awk -v k="$rk" -v n="$rn" \
				'$1 == k && $2 == n { print $3, $4 }' "$2/c-reasons")
			[ "$got" = "$rv $rn" ] ||
				echo "$rk reason $rn: the kernel's value $rv; the collector's (value, name there): ${got:-none}"
		done < "$2/reasons"
		awk '$1 == "flagenum" { print $2 }' "$2/c-reasons" | while read -r name; do
			grep -q "^flag $name " "$2/reasons" ||
				echo "flag reason $name: the collector's, not the kernel's"
		done
	} > "$2/reasons.bad"
	: >> "$2/events.bad"
}

check "$src" "$out/src"
n_ev=$(wc -l < "$out/src/c-events" | tr -d ' ')
n_rd=$(wc -l < "$out/src/c-reads" | tr -d ' ')
n_rs=$(wc -l < "$out/src/reasons" | tr -d ' ')
[ "$n_ev" -gt 0 ] && [ "$n_rd" -gt 0 ] && [ "$n_rs" -gt 0 ] &&
	[ "$(wc -l < "$out/src/events" | tr -d ' ')" -gt 0 ]
tap_result $? "both sides read: the kernel's $(wc -l < "$out/src/events" | tr -d ' ') events and $n_rs reasons; the collector's $n_ev events, $n_rd field reads"
for k in events fields reasons; do
	tap_diag_stdin < "$out/src/$k.bad"
	[ ! -s "$out/src/$k.bad" ]
	tap_result $? "the collector's $k are the kernel's ($(wc -l < "$out/src/$k.bad" | tr -d ' ') not)"
done

# Negative control: a copy broken in one way at a time must fail the
# check of that kind. "KIND FILE SED-SCRIPT".
while read -r kind file script; do
	rm -rf "$out/neg"
	for f in $files; do
		mkdir -p "$out/neg/$(dirname "$f")" && cp "$src/$f" "$out/neg/$f"
	done
	sed -i "$script" "$out/neg/$file"
	cmp -s "$src/$file" "$out/neg/$file"
	changed=$?
	check "$out/neg" "$out/neg/out"
	[ "$changed" -ne 0 ] && [ -s "$out/neg/out/$kind.bad" ]
	tap_result $? "negative control: $file broken ($script) fails the $kind check: $(head -n 1 "$out/neg/out/$kind.bad")"
done <<'EOF'
events collector/requests/requests-decode.c s/"dtracer_unflag"/"dtracer_unflagged"/
events collector/plugin/flt-sync.c s/"dtracer_mark_recv"/"dtracer_mark_rcv"/
events collector/cmd/record.c s/"dtracer_answer"/"dtracer_answered"/
events probes/events/dtracer.h s/dtracer_mark_send,/dtracer_mark_sent,/
fields collector/requests/requests-decode.c s/"idle_ns"/"idle"/
fields collector/requests/requests-decode.c s/"parent"/"parent_tid"/
fields collector/sync/marks-read.c s/"end_seq"/"endseq"/
fields collector/cmd/record.c s/request == 1/requested == 1/
fields probes/events/dtracer.h s/ctf_integer_network(u16, dport/ctf_integer_network(u16, dst_port/
reasons collector/requests/requests-types.h s/DT_RQ_FLAG_HANDOFF = 4/DT_RQ_FLAG_HANDOFF = 5/
reasons collector/requests/requests-types.h s/DT_RQ_UNFLAG_SWITCHED 5/DT_RQ_UNFLAG_SWITCHED 6/
reasons collector/requests/requests.c s/"resumed",/"resumd",/
reasons collector/requests/requests.c s/"exited", "response"/"response", "exited"/
reasons dtracer/trace/dtracer.h s/DTRACER_UNFLAG_CLOSED\t3/DTRACER_UNFLAG_CLOSED\t7/
reasons probes/events/dtracer.h /"switched"/a\\t\tctf_enum_value("stolen", DTRACER_UNFLAG_SWITCHED)
EOF
tap_done
