#!/bin/sh
# seconds: 130 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# The view page in a real browser: Debian's Chromium, headless, on pages
# of hand-made models (tests/tools/dt-view-fixture, tests/unit/rq-fixture.h):
# a small one (3 requests) and a big one (1000 requests, 3500 spans), on
# a thread per request and on thread pools.
# Each must load with no script error and no console message, with the
# bars and arrows it says it drew in the DOM: all of them when they fit,
# only the lanes on screen when not; one request, or a time window,
# exactly its own; its handlers work (view-selftest.js). A page with a planted error (at run time, or a syntax
# error) must be caught: the check can fail. Screenshots, for a human:
# tests/out/view/page.png (all requests), span.png (a span's details).
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/collector/browser.sh"

out=$DT_BUILDDIR/tests/out/view
fixture=$DT_BUILDDIR/tests/tools/dt-view-fixture
rm -rf "$out"
mkdir -p "$out"

if ! dt_browser_have; then
	tap_result 1 "Chromium found ($DT_CHROMIUM; Debian package: chromium, which scripts/deps.sh installs)"
	tap_done
	exit
fi

shot() {
	dt_browser_shot "$1" "$2"
	_size=$(wc -c < "$2" 2> /dev/null || echo 0)
	tap_result $([ "$_size" -gt 20000 ]; echo $?) \
		"a screenshot: $2 ($_size bytes)"
}

# The fixture: request k has 3 spans and 4 messages, 4 and 6 when k is
# odd (a second server thread), minus the server's response in the last
# request (its server span is still open).
"$fixture" 3 "$out/small.html"
tap_result $? "the page of 3 requests is written"
dt_browser_page "3 requests" "$out/small.html" 10 13
dt_browser_request "3 requests, request 1" "$out/small.html" 1 4 6
# Request 0 alone lies in [0, 90 us] from the base; its first 50 us hold
# its three spans and its two request messages, nothing of request 1.
dt_browser_request "3 requests, the first 50 us" "$out/small.html" -1 3 2 0,50000
shot "$out/small.html" "$out/page.png"
shot "$out/small.html#req=1&span=5" "$out/span.png"

"$fixture" 1000 "$out/big.html"
tap_result $? "the page of 1000 requests is written"
dt_browser_page "1000 requests" "$out/big.html" 3500 4999
tap_diag "1000 requests: drew $(dt_browser_attr "$out/big.dom" lanes-drawn) of" \
	"$(dt_browser_attr "$out/big.dom" lanes) lanes in" \
	"$(dt_browser_attr "$out/big.dom" render-ms) ms"
dt_browser_request "1000 requests, request 500" "$out/big.html" 500 3 4
dt_browser_request "1000 requests, request 999 (open)" "$out/big.html" 999 4 5
# The same served by pools of 4 threads: few lanes, all of them busy.
"$fixture" 1000 "$out/pool.html" 4
tap_result $? "the page of 1000 requests on thread pools is written"
dt_browser_page "1000 requests on thread pools" "$out/pool.html" 3500 4999
tap_diag "thread pools: drew $(dt_browser_attr "$out/pool.dom" spans) bars and" \
	"$(dt_browser_attr "$out/pool.dom" arrows) arrows in" \
	"$(dt_browser_attr "$out/pool.dom" render-ms) ms"

# The page's handlers (zoom, pan, hover, click, keys, table), driven by
# tests/collector/view-selftest.js in a copy of the page.
interact() {
	awk -v js="$DT_SRCDIR/tests/collector/view-selftest.js" '
		/<\/body>/ { print "<script>"; while ((getline l < js) > 0) print l; print "</script>" }
		{ print }' "$out/$2.html" > "$out/$2-selftest.html"
	dt_browser_dom "$out/$2-selftest.html" "$out/$2-selftest.dom" "$out/$2-selftest.log"
	dt_browser_loads "$1, driven" "$out/$2-selftest.dom" "$out/$2-selftest.log"
	st=$(dt_browser_attr "$out/$2-selftest.dom" selftest)
	tap_result $([ "$st" = ok ]; echo $?) \
		"$1: wheel, drag, hover, clicks, keys, buttons, table, hash work (${st:-no result})"
}
interact "3 requests" small
interact "1000 requests" big
interact "1000 requests on thread pools" pool

# Negative controls: an error planted in the page's script at run time,
# then a syntax error (the main script never runs).
sed 's/body.dataset.ready = "1";/null.x; body.dataset.ready = "1";/' \
	"$out/small.html" > "$out/broken.html"
sed 's/^"use strict";$/"use strict"; )/' "$out/small.html" > "$out/syntax.html"
for b in broken syntax; do
	dt_browser_dom "$out/$b.html" "$out/$b.dom" "$out/$b.log"
	errs=$(dt_browser_attr "$out/$b.dom" errors)
	ready=$(dt_browser_attr "$out/$b.dom" ready)
	tap_result $([ -n "$errs" ] && [ -z "$ready" ] &&
		[ -n "$(dt_browser_console "$out/$b.log")" ]; echo $?) \
		"a planted $b error is seen, the page not ready (${errs:-not seen})"
done
rm -rf "$dt_browser_profile"
tap_done
