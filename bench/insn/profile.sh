#!/bin/sh
# profile.sh KALLSYMS PROFILE... : the kernel instructions of dt-insn's
# profile files (bench/insn/dt-insn.c, profile=), added up by the kernel
# function each block starts in (the nearest symbol of KALLSYMS, a
# guest's /proc/kallsyms, at or below the block's address): "INSNS
# SHARE FUNCTION [MODULE]", the largest first.
set -eu
[ $# -ge 2 ] || {
	echo "usage: profile.sh KALLSYMS PROFILE..." >&2
	exit 2
}
syms=$1
shift
for f in "$syms" "$@"; do
	[ -r "$f" ] || { echo "profile.sh: cannot read $f" >&2; exit 1; }
done
# Addresses are 16 hex digits in both: sorting them as text sorts them
# as numbers. Symbols ("S") sort before blocks ("T") at one address.
{
	awk '{ print $1, "S", $3, $4 }' "$syms"
	cat "$@" | awk '{ print $1, "T", $2 * $3 }'
} | LC_ALL=C sort -k1,1 -k2,2 | awk '
	$2 == "S" { fn = $3 ($4 == "" ? "" : " " $4); next }
	{ n[fn == "" ? "?" : fn] += $3; total += $3 }
	END {
		for (f in n)
			printf "%d %.4f %s\n", n[f], n[f] / total, f
	}' | sort -k1,1nr
