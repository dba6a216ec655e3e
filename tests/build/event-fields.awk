# dtracer's events and their fields, from probes/events/dtracer.h (the
# kernel's declaration of them), for tests/build/t-docs.sh and
# t-names.sh: "EVENT.FIELD" for each field (a field macro such as
# dtracer_ctf_addrs expanded, an enum field as its values), and each
# event's name into the file evfile.
#   awk -v evfile=FILE -f event-fields.awk probes/events/dtracer.h
function parse(s, key,   m, a) {
	while (match(s, /ctf_[a-z_]+\([^()]*/)) {
		m = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
		split(m, a, /[(,][ \t]*/)
		if (a[1] == "ctf_enum")
			f[key] = f[key] " " a[4] " @" a[2]
		else if (a[1] != "ctf_enum_value")
			f[key] = f[key] " " a[3]
	}
}
/^#define [a-z_]+\(/ { mac = $2; sub(/\(.*/, "", mac); macs[mac]; cont = /\\$/; next }
cont { parse($0, "%" mac); cont = /\\$/; next }
/LTTNG_TRACEPOINT_ENUM\(/ { en = $0; sub(/.*\(/, "", en); sub(/,.*/, "", en) }
/ctf_enum_value\("/ { v = $0; sub(/.*\("/, "", v); sub(/".*/, "", v); vals[en] = vals[en] " " v }
/LTTNG_TRACEPOINT_EVENT\(/ {
	ev = $0; sub(/.*\(/, "", ev); sub(/,.*/, "", ev); print ev > evfile; f[ev] = ""; next
}
ev != "" {
	parse($0, ev)
	for (mm in macs) if (index($0, mm "(")) f[ev] = f[ev] " %" mm
}
/^\)/ { ev = "" }
END {
	for (e in f) {
		if (e ~ /^%/) continue
		k = split(f[e], w, " "); s = ""
		for (i = 1; i <= k; i++) s = s " " (w[i] ~ /^%/ ? f[w[i]] : w[i])
		k = split(s, w, " ")
		for (i = 1; i <= k; i++)
			if (w[i] !~ /^@/) print e "." w[i]
			else for (j = split(vals[substr(w[i], 2)], v2, " "); j > 0; j--) print e "." v2[j]
	}
}
