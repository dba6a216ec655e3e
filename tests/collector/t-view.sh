#!/bin/sh
# The view page in a real browser: Debian's Chromium, headless, on pages
# of hand-made models (tests/tools/dt-view-fixture): a small one (3
# requests) and a big one (1000 requests, 3500 spans). Each must load
# with no script error and no console message, with every span and
# arrow in the DOM; a page with a planted error must be caught (the
# check can fail). Screenshot: tests/out/view/small.png.
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/collector/browser.sh"

out=$DT_BUILDDIR/tests/out/view
fixture=$DT_BUILDDIR/tests/tools/dt-view-fixture
rm -rf "$out"
mkdir -p "$out"

if ! dt_browser_have; then
	tap_result 1 "Chromium found (Debian package: chromium; scripts/deps.sh installs it)"
	tap_done
	exit
fi

"$fixture" 3 "$out/small.html"
tap_result $? "the page of 3 requests is written"
# 3 requests: 3 + 4 + 3 spans; 4 + 6 + 3 received messages (the last
# request's server never answered).
dt_browser_page "3 requests" "$out/small.html" 10 13
dt_browser_shot "$out/small.html" "$out/small.png"
size=$(wc -c < "$out/small.png" 2> /dev/null || echo 0)
tap_result $([ "$size" -gt 20000 ]; echo $?) \
	"a screenshot of it: $out/small.png ($size bytes)"

"$fixture" 1000 "$out/big.html"
tap_result $? "the page of 1000 requests is written"
dt_browser_page "1000 requests" "$out/big.html" 3500 4999

# Negative control: the same page with an error planted in its script.
sed 's/body.dataset.ready = "1";/null.x; body.dataset.ready = "1";/' \
	"$out/small.html" > "$out/broken.html"
dt_browser_dom "$out/broken.html" "$out/broken.dom" "$out/broken.log"
errs=$(dt_browser_attr "$out/broken.dom" errors)
tap_result $([ -n "$errs" ] && [ -n "$(dt_browser_console "$out/broken.log")" ]; echo $?) \
	"a planted script error is seen (${errs:-not seen})"
rm -rf "$dt_browser_profile"
tap_done
