# Headless Chromium (Debian's `chromium`) on a dtracer view page, for the
# browser tests (sourced by t-view.sh and t-collect.sh; TAP helpers from
# tests/vm/tap.sh must be sourced first).
#
#   dt_browser_have               Chromium is there
#   dt_browser_dom URL DOM LOG    render URL (a file, maybe with #req=N),
#                                 its DOM after the scripts ran to DOM,
#                                 Chromium's log to LOG
#   dt_browser_shot URL PNG       a screenshot of URL
#   dt_browser_attr DOM NAME      the value of the body's data-NAME
#   dt_browser_console LOG        the page's console lines (none is good)
#   dt_browser_count DOM CLASS    how many elements have class CLASS
#   dt_browser_page NAME PAGE SPANS ARROWS
#   dt_browser_request NAME PAGE REQ SPANS ARROWS
#                                 TAP points (see below)
#
# The page (collector/export/view.html) records uncaught errors in the body's
# data-errors (from a first script, so even a syntax error of the main
# one) and sets data-ready="1" once drawn, with data-spans/data-arrows
# (bars and arrows in the DOM), data-spans-total/data-arrows-total (in
# the view: all requests, or #req=N's), data-lanes and data-lanes-drawn
# (lanes are drawn only around the visible ones).
#
# Console errors: Chromium, with --enable-logging=stderr, logs every
# console message and every uncaught exception of the page as a line
# with ":CONSOLE" in it; a page that tried the network would log its
# failed load there too (every host name resolves to nothing here).
DT_CHROMIUM=${DT_CHROMIUM:-chromium}
dt_browser_profile=$(mktemp -d "${TMPDIR:-/tmp}/dt-chromium.XXXXXX")

dt_browser_have() {
	command -v "$DT_CHROMIUM" > /dev/null 2>&1
}

# Root needs --no-sandbox; a fixed window; a profile of our own; virtual
# time lets the page's scripts and animation frames run before the dump.
dt_browser() {
	timeout 120 "$DT_CHROMIUM" --headless --no-sandbox --disable-gpu \
		--no-first-run --hide-scrollbars --window-size=1400,800 \
		--disable-background-networking --disable-extensions \
		--host-resolver-rules='MAP * ~NOTFOUND' \
		--user-data-dir="$dt_browser_profile" --virtual-time-budget=5000 "$@"
}

dt_browser_dom() {
	dt_browser --enable-logging=stderr --v=0 --dump-dom "file://$1" \
		> "$2" 2> "$3"
}

dt_browser_shot() {
	rm -f "$2"
	dt_browser --screenshot="$2" "file://$1" > /dev/null 2>&1 && [ -s "$2" ]
}

dt_browser_attr() {
	grep -o "<body[^>]*>" "$1" | grep -o " data-$2=\"[^\"]*\"" |
		sed 's/^[^"]*"//; s/"$//'
}

dt_browser_console() {
	grep ':CONSOLE' "$1"
}

dt_browser_count() {
	grep -o "class=\"$2[ \"]" "$1" | wc -l
}

# dt_browser_loads NAME DOM LOG: TAP point: drawn, no error, no console.
dt_browser_loads() {
	_ready=$(dt_browser_attr "$2" ready)
	_errs=$(dt_browser_attr "$2" errors)
	_cons=$(dt_browser_console "$3")
	tap_result $([ "$_ready" = 1 ] && [ -z "$_errs" ] && [ -z "$_cons" ]; echo $?) \
		"$1: drawn, no script error, no console message (${_errs:-none}; ${_cons:-none})"
}

# dt_browser_page NAME PAGE SPANS ARROWS: the TAP points of one page, all
# requests shown: it loads, with no error; its view holds SPANS span bars
# and ARROWS arrows; the DOM holds the bars and arrows the page says it
# drew: all of them if every lane fits the window, else those of the
# lanes on screen (some, not all).
dt_browser_page() {
	_n=$1 _p=$2 _dom=${2%.html}.dom _log=${2%.html}.log
	dt_browser_dom "$_p" "$_dom" "$_log"
	tap_result $? "$_n: Chromium loads the page"
	dt_browser_loads "$_n" "$_dom" "$_log"
	_s=$(dt_browser_count "$_dom" dt-span)
	_a=$(dt_browser_count "$_dom" dt-arrow)
	_ds=$(dt_browser_attr "$_dom" spans)
	_da=$(dt_browser_attr "$_dom" arrows)
	_ts=$(dt_browser_attr "$_dom" spans-total)
	_ta=$(dt_browser_attr "$_dom" arrows-total)
	_l=$(dt_browser_attr "$_dom" lanes)
	_ld=$(dt_browser_attr "$_dom" lanes-drawn)
	if [ "${_l:-x}" = "${_ld:-y}" ]; then
		_want="all of them"
		[ "$_s" -eq "$3" ] && [ "$_a" -eq "$4" ]
	else
		_want="those of $_ld lanes of $_l"
		[ "$_s" -gt 0 ] && [ "$_s" -lt "$3" ] && [ "$_a" -gt 0 ] &&
			[ "$_a" -le "$4" ]
	fi
	tap_result $([ $? -eq 0 ] && [ "$_s" = "$_ds" ] && [ "$_a" = "$_da" ] &&
		[ "$_ts" = "$3" ] && [ "$_ta" = "$4" ]; echo $?) \
		"$_n: $_ts span bars (of $3) and $_ta arrows (of $4) shown; in the DOM: $_s and $_a, $_want"
}

# dt_browser_request NAME PAGE REQ SPANS ARROWS [WINDOW]: PAGE#req=REQ
# (and &t=WINDOW, "A,B" in ns from the data's base; REQ -1: all) loads
# with no error and draws exactly SPANS bars and ARROWS arrows.
dt_browser_request() {
	_n=$1 _base=${2%.html}-r$3 _url="$2#req=$3${6:+&t=$6}"
	dt_browser_dom "$_url" "$_base.dom" "$_base.log"
	dt_browser_loads "$_n" "$_base.dom" "$_base.log"
	_s=$(dt_browser_count "$_base.dom" dt-span)
	_a=$(dt_browser_count "$_base.dom" dt-arrow)
	tap_result $([ "$_s" -eq "$4" ] && [ "$_a" -eq "$5" ] &&
		[ "$(dt_browser_attr "$_base.dom" spans)" = "$4" ] &&
		[ "$(dt_browser_attr "$_base.dom" arrows)" = "$5" ]; echo $?) \
		"$_n: $_s span bars (of $4) and $_a arrows (of $5) in the DOM"
}
