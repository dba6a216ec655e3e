# Sourced by tests/vm/get-*.sh: Debian packages downloaded (never
# installed) and unpacked into a build-tree folder that the guests run
# them from. The caller sets out (the folder), download (the path of
# lttng-modules/apt-download.sh) and me (its name, for messages).

die() {
	echo "$me: $*" >&2
	exit 1
}

# debs_unpack WHAT PKG...: the packages unpacked into $out.tmp, which
# is the current folder after (with an empty bin/ for the wrappers).
debs_unpack() {
	echo "  GET      $1 (Debian's packages, unpacked for the guests)"
	shift
	rm -rf "$out.tmp"
	mkdir -p "$out.tmp/deb" "$out.tmp/bin"
	cd "$out.tmp/deb"
	for p in "$@"; do
		err=$(sh "$download" "$p") ||
			die "cannot download Debian's $p package ($err)"
	done
	for deb in *.deb; do
		dpkg-deb -x "$deb" ..
	done
	cd ..
	rm -rf deb
}

# debs_wrap NAME ENV PROGRAM [ARGS]: bin/NAME runs PROGRAM (ARGS before
# the caller's) with ENV (a VAR=VALUE assignment) set.
debs_wrap() {
	printf '#!/bin/sh\n%s exec %s "$@"\n' "$2" "$3" > "bin/$1"
	chmod +x "bin/$1"
}

# debs_done CMD [HINT]: $out.tmp becomes $out, kept only if CMD (a
# wrapper asked for its version) runs.
debs_done() {
	cd ..
	rm -rf "$out"
	mv "$out.tmp" "$out"
	v=$(sh -c "$1" 2>&1) || {
		rm -rf "$out"
		die "$(basename "${1%% *}") does not run ($(echo "$v" | tail -n 1)${2:+; $2})"
	}
}
