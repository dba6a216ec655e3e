# Reads dt-events.awk's lines of a merged timeline (TIME send|recv SADDR
# DADDR SPORT DPORT SEQ END ...) and pairs each receive with the earliest
# send of the same addresses and ports whose sequence range overlaps its
# own (modulo 2^32). Prints "MATCHED INVERSIONS UNMATCHED": an inversion
# is a receive at or before its send. Times compare as strings (fixed
# width "SECONDS.NANOSECONDS"), not as doubles that would round them.
function mod(x) { x = x % 4294967296; return x < 0 ? x + 4294967296 : x }
function overlap(s1, e1, s2, e2) {
	return mod(s2 - s1) < mod(e1 - s1) || mod(s1 - s2) < mod(e2 - s2)
}
$2 == "send" || $2 == "recv" {
	n++
	kind[n] = $2; t[n] = "t" $1; key[n] = $3 " " $4 " " $5 " " $6
	s[n] = $7; e[n] = $8
}
END {
	for (i = 1; i <= n; i++) {
		if (kind[i] != "recv" || s[i] == e[i])
			continue
		best = 0
		for (j = 1; j <= n; j++)
			if (kind[j] == "send" && key[j] == key[i] &&
			    overlap(s[i], e[i], s[j], e[j]) &&
			    (!best || t[j] < t[best]))
				best = j
		if (!best) { unmatched++; continue }
		matched++
		if (t[best] >= t[i]) {
			inversions++
			print "inversion:", substr(t[best], 2), "send >= recv", substr(t[i], 2), key[i], s[i] > "/dev/stderr"
		}
	}
	print matched + 0, inversions + 0, unmatched + 0
}
