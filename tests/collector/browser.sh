# Headless Chromium (Debian's `chromium`) on a dtracer view page, for the
# browser tests (sourced by t-view.sh and t-collect.sh).
#
#   dt_browser_dom PAGE DOM LOG   render PAGE, its DOM after the scripts
#                                 ran to DOM, Chromium's log to LOG
#   dt_browser_shot PAGE PNG      a screenshot of PAGE
#   dt_browser_attr DOM NAME      the value of the body's data-NAME
#   dt_browser_console LOG        the page's console lines (none is good)
#   dt_browser_count DOM CLASS    how many elements have class CLASS
#
# The page records uncaught errors in the body's data-errors and sets
# data-ready="1", data-spans and data-arrows once drawn (view.html).
DT_CHROMIUM=${DT_CHROMIUM:-chromium}
dt_browser_profile=$(mktemp -d "${TMPDIR:-/tmp}/dt-chromium.XXXXXX")

dt_browser_have() {
	command -v "$DT_CHROMIUM" > /dev/null 2>&1
}

# Root needs --no-sandbox; a fixed window; a profile of our own; virtual
# time lets the page's scripts and animation frame run before the dump.
dt_browser() {
	timeout 120 "$DT_CHROMIUM" --headless --no-sandbox --disable-gpu \
		--no-first-run --hide-scrollbars --window-size=1400,800 \
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
	grep -o "<body[^>]*>" "$1" | grep -o "data-$2=\"[^\"]*\"" |
		sed 's/^[^"]*"//; s/"$//'
}

dt_browser_console() {
	grep ':CONSOLE' "$1"
}

dt_browser_count() {
	grep -o "class=\"$2[ \"]" "$1" | wc -l
}

# dt_browser_page NAME PAGE SPANS ARROWS: the TAP points of one page: it
# loads, draws SPANS span bars and ARROWS arrows, no error.
dt_browser_page() {
	_n=$1 _p=$2 _dom=${2%.html}.dom _log=${2%.html}.log
	dt_browser_dom "$_p" "$_dom" "$_log"
	tap_result $? "$_n: Chromium loads the page"
	_ready=$(dt_browser_attr "$_dom" ready)
	_errs=$(dt_browser_attr "$_dom" errors)
	_cons=$(dt_browser_console "$_log")
	tap_result $([ "$_ready" = 1 ] && [ -z "$_errs" ] && [ -z "$_cons" ]; echo $?) \
		"$_n: drawn, no script error, no console message (${_errs:-none}; ${_cons:-none})"
	_s=$(dt_browser_count "$_dom" dt-span)
	_a=$(dt_browser_count "$_dom" dt-arrow)
	tap_result $([ "$_s" -eq "$3" ] && [ "$_a" -eq "$4" ] &&
		[ "$(dt_browser_attr "$_dom" spans)" = "$3" ]; echo $?) \
		"$_n: $_s span bars (of $3) and $_a arrows (of $4) in the DOM"
}
