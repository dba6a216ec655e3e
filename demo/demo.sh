#!/bin/sh
# The main job (`make demo`, `sh scripts/dev.sh demo`): four QEMU guests
# on a private LAN. dt-client's curl, the only thread anyone flags,
# sends requests through nginx on dt-proxy to python3's http.server on
# dt-backend; an unflagged loop on dt-client goes through the same nginx
# to the same python3 (on the same kept-alive upstream connections), and
# every host carries more unflagged background traffic. Each host says
# how many requests it served and how many of them it traced.
# dtracer follows each request across the three hosts, each records a
# kernel trace of just that request's work and streams it to
# dt-collector. Here, on this machine: merge the collector's traces on
# aligned clocks, print the requests and the clock sync, write the HTML
# view and a Perfetto trace. See demo/guest-demo.sh for the guests.
#
# Settings: DT_DEMO_OUT (folder, default BUILDDIR/demo-out),
# DT_DEMO_REQUESTS (default 20), DT_DEMO_SUITE (trixie: the guests boot
# that Debian release's kernel and root, tests/vm/build-SUITE/, as make
# check-kernel builds them) and DT_DEMO_SUITE_HOSTS (only these guests
# then; default all four).
set -u
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=${DT_DEMO_OUT:-$DT_BUILDDIR/demo-out}
dtracer=$DT_BUILDDIR/collector/dtracer
hosts="dt-collector dt-client dt-proxy dt-backend"
export DT_DEMO_REQUESTS=${DT_DEMO_REQUESTS:-20} DT_VM_PASS=DT_DEMO_REQUESTS
start=$(date +%s)

step() {
	printf '\n[%3d s] %s\n' "$(($(date +%s) - start))" "$*"
}

fail() {
	echo "demo: FAILED: $*" >&2
	exit 1
}

mkdir -p "$out" || fail "cannot create $out"
out=$(cd "$out" && pwd)
# Guests on another Debian release (vm.sh's DT_VM_GUEST_CONFIG).
kernels="Debian's kernel $DT_KERNEL_RELEASE"
if [ -n "${DT_DEMO_SUITE:-}" ]; then
	sconf=$DT_BUILDDIR/tests/vm/build-$DT_DEMO_SUITE/tree/tests/vm/config.sh
	[ -f "$sconf" ] ||
		fail "nothing built for $DT_DEMO_SUITE ($sconf): make demo DEMO_SUITE=trixie builds Debian 13's, the other release make knows"
	srel=$(. "$sconf"; echo "$DT_KERNEL_RELEASE")
	DT_VM_GUEST_CONFIG=
	for h in ${DT_DEMO_SUITE_HOSTS:-$hosts}; do
		case " $hosts " in
		*" $h "*) ;;
		*) fail "DT_DEMO_SUITE_HOSTS: no guest $h (the guests: $hosts)" ;;
		esac
		DT_VM_GUEST_CONFIG="$DT_VM_GUEST_CONFIG${DT_VM_GUEST_CONFIG:+ }$h=$sconf"
	done
	export DT_VM_GUEST_CONFIG
	if [ -z "${DT_DEMO_SUITE_HOSTS:-}" ]; then
		kernels="$DT_DEMO_SUITE's kernel $srel and root"
	else
		kernels="$DT_DEMO_SUITE's kernel $srel and root on $DT_DEMO_SUITE_HOSTS, $kernels on the others"
	fi
fi
step "booting 4 guests ($kernels under QEMU, TCG):"
echo "  dt-client (curl, flagged) -> dt-proxy (nginx) -> dt-backend (python3 http.server);"
echo "  dt-client's bg-curl (unflagged) through the same nginx and python3;"
echo "  dt-collector (lttng-relayd); more unflagged background traffic on every host"

# The guests run in the background; their progress lines come here.
for h in $hosts; do
	rm -rf "${out:?}/$h"
done
vm_run "$out" "$DT_SRCDIR/demo/guest-demo.sh" $hosts &
guests=$!
trap 'kill $guests 2>/dev/null; wait $guests; exit 130' INT TERM HUP
seen=
while kill -0 $guests 2>/dev/null; do
	for h in $hosts; do
		p=$(cat "$out/$h/progress" 2>/dev/null) || continue
		case $seen in *"|$h:$p|"*) continue ;; esac
		seen="$seen|$h:$p|"
		printf '[%3d s]   %-12s %s\n' "$(($(date +%s) - start))" "$h" "$p"
	done
	sleep 1
done
wait $guests
rc=$?
trap - INT TERM HUP
if [ $rc -ne 0 ]; then
	for h in $hosts; do
		grep -h '^not ok' "$out/$h/tap" 2>/dev/null | sed "s/^/  $h: /"
	done
	fail "a guest failed (above); its files: $out/GUEST/ (script.log, console.log)"
fi
step "requests served and traced, per host (the server's log; dtracer's propagations):"
for h in dt-client dt-proxy dt-backend; do
	read -r prog served traced < "$out/$h/served" ||
		fail "$h did not count its requests ($out/$h/served)"
	if [ "$h" = dt-client ]; then
		printf '  %-12s %s made %s requests, all flagged; bg-curl made %s through the same nginx, none flagged\n' \
			"$h" "$prog" "$served" "$(cat "$out/$h/background")"
	else
		printf '  %-12s %s served %s requests, traced %s\n' \
			"$h" "$prog" "$served" "$traced"
	fi
done

step "merging the collector's traces (clocks aligned from the marked segments):"
rm -rf "$out/merged"
"$dtracer" merge --reference dt-client -o "$out/merged" "$out/dt-collector/traces" \
	> "$out/merge.log" 2>&1 || { cat "$out/merge.log"; fail "dtracer merge"; }
sed 's/^/  /' "$out/merge.log"

step "the requests (dtracer requests):"
"$dtracer" requests "$out/merged" > "$out/requests.txt" 2>&1 ||
	{ cat "$out/requests.txt"; fail "dtracer requests"; }
sed 's/^/  /' "$out/requests.txt"

step "request 1, span by span (dtracer requests --tree 1):"
"$dtracer" requests --tree 1 "$out/merged" > "$out/request-1.txt" 2>&1 ||
	{ cat "$out/request-1.txt"; fail "dtracer requests --tree 1"; }
sed 's/^/  /' "$out/request-1.txt"

step "the view and a Perfetto trace:"
"$dtracer" view --title "dtracer demo: curl -> nginx -> python3" \
	-o "$out/requests.html" "$out/merged" || fail "dtracer view"
"$dtracer" export --format perfetto -o "$out/requests.perfetto.json" \
	"$out/merged" || fail "dtracer export"
echo "  requests.html: $(wc -c < "$out/requests.html") bytes, requests.perfetto.json: $(wc -c < "$out/requests.perfetto.json") bytes"
# A picture of the page, where a browser is at hand (the tests' Chromium).
if command -v chromium > /dev/null; then
	rm -rf "$out/.chromium"
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--user-data-dir="$out/.chromium" --window-size=1400,620 \
		--virtual-time-budget=5000 --hide-scrollbars \
		--screenshot="$out/requests.png" "file://$out/requests.html#req=1" \
		> /dev/null 2>&1 && echo "  requests.png: the page, as a browser shows it"
	rm -rf "$out/.chromium"
fi

step "done in $(($(date +%s) - start)) s. Everything is in $out/:"
cat <<EOT
  requests.html             the view: open it in a browser (one file, works offline)
  requests.perfetto.json    open it in https://ui.perfetto.dev
  requests.txt, request-1.txt   the table and one request's tree, as printed above
  merged/                   ctf/ (aligned traces), timeline.txt, sync.txt
  dt-collector/traces/      what the collector received, per host
  GUEST/                    each guest's log (script.log, console.log, dmesg)
EOT
