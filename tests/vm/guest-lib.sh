# Helpers for guest scripts (sourced before the script, in the guest).
# Results go to $DT_RESULTS/tap as TAP lines without numbers; the host
# side numbers them and prefixes the guest's name.
#
#   check DESC CMD...     run CMD, "ok" if it exits 0
#   check_fails DESC CMD... "ok" if CMD exits non-zero
#   ok DESC / not_ok DESC   record a result directly
#   wait_for SECONDS CMD... poll CMD every 0.2 s until it succeeds
#   tcpdump_stop PID ERR    stop a capture once it wrote all it received
#   diag TEXT               a comment line in the TAP stream
#   dt_addr NAME            the LAN address of guest NAME (NAME-6: IPv6)
#   stat_of NAME            a counter of /sys/distributed-tracer/stats
#   flagged CMD...          run CMD in a thread flagged by add_pid (the
#                           shell flags itself, then becomes CMD)
#   lead N PORT [SECONDS]   steps between two guests: let the other guest
#   follow N PORT HOST CMD... run step N (PORT + N: its go, PORT + 10 + N:
#                           its done, N < 10) and wait for it (at most
#                           SECONDS, default 600); the follower waits for
#                           HOST's go, runs CMD (a check), says done
#   slow SECONDS            SECONDS scaled to this guest's time budget:
#                           times DT_VM_TIMEOUT / 600 when the harness
#                           gives guests more than its default 600 s
#                           (make check-debug: the debug kernel is slower).
#                           For waits on another guest, whose length
#                           follows how fast the kernel runs

DT_TAP=$DT_RESULTS/tap
# Written by guest-init.sh: "options dtracer trust=<the test LAN>".
DT_TRUST_CONF=/etc/modprobe.d/dtracer-test-lan.conf
dt_failures=0

diag() {
	printf '# %s\n' "$*" | sed '2,$s/^/# /' >> "$DT_TAP"
}

# printf, not echo: dash's echo would expand backslashes. Twice, not
# through tee: a process less per point under emulation. The script's
# log (results/script.log) has the guest's uptime after each point, in
# brackets (a built-in read: no process), to see where a test's guest
# time goes (scripts/guest-steps.sh); the TAP file has the point alone.
ok() {
	read -r _up _idle < /proc/uptime
	printf 'ok - %s [%s]\n' "$*" "$_up"
	printf 'ok - %s\n' "$*" >> "$DT_TAP"
}

not_ok() {
	read -r _up _idle < /proc/uptime
	printf 'not ok - %s [%s]\n' "$*" "$_up"
	printf 'not ok - %s\n' "$*" >> "$DT_TAP"
	dt_failures=$((dt_failures + 1))
}

check() {
	_desc=$1
	shift
	if _out=$("$@" 2>&1); then
		ok "$_desc"
	else
		not_ok "$_desc"
		diag "command: $*"
		diag "$_out"
	fi
}

check_fails() {
	_desc=$1
	shift
	if _out=$("$@" 2>&1); then
		not_ok "$_desc"
		diag "command unexpectedly succeeded: $*"
		diag "$_out"
	else
		ok "$_desc"
	fi
}

slow() {
	_budget=${DT_GUEST_TIMEOUT:-600}
	if [ "$_budget" -gt 600 ]; then
		echo $(($1 * _budget / 600))
	else
		echo "$1"
	fi
}

# wait_for SECONDS CMD...: until CMD succeeds; fails once it has slept
# twice SECONDS between attempts (the attempts' own time aside, as the
# fixed 0.2 s naps before counted only themselves: under emulation an
# attempt costs 0.2 to 1 s). The naps double from 0.1 s to 0.5 s (a
# state that lasts 3 s, such as t-chain's server serving, is still
# seen): every attempt starts processes, which under emulation take the
# guest's processor, and a test's guests share the host's two cores; a
# loop polling five times a second kept one busy as long as it waited.
# A hand-shake with another guest is dt-tcp request -w, which waits in
# one process.
wait_for() {
	_left=$(($1 * 20))
	_nap=1
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$_left" -gt 0 ] || return 1
		sleep "$((_nap / 10)).$((_nap % 10))"
		_left=$((_left - _nap))
		[ "$_nap" -ge 5 ] || _nap=$((_nap * 2))
		[ "$_nap" -le 5 ] || _nap=5
	done
}

dt_addr() {
	echo "$DT_HOSTS_LINES" | tr ',' '\n' | awk -v h="$1" '$2 == h { print $1 }'
}

stat_of() {
	awk -v k="$1" '$1 == k { print $2 }' /sys/distributed-tracer/stats
}

# pyqueue_follow: CPython's _queue module followed (dtracer python,
# dtracer/pyqueue.c), from a copy on the guest's tmpfs (uprobes do not
# read 9p's pages) bound over the file python3 imports; its path in
# $pyq (umount "$pyq" undoes it).
pyqueue_follow() {
	pyq=$(python3 -c 'import _queue; print(_queue.__file__)')
	cp "$pyq" /tmp/dt-queue.so
	check "CPython's _queue module from a tmpfs ($pyq)" \
		mount --bind /tmp/dt-queue.so "$pyq"
	check "dtracer python: its SimpleQueue's put and get followed" \
		"$DT_BUILDDIR/collector/dtracer" python "$pyq"
}

flagged() {
	sh -c 'echo $$ > /sys/distributed-tracer/add_pid && exec "$@"' flagged "$@"
}

lead() {
	$DT_BUILDDIR/tests/tools/dt-tcp serve -4 $(($2 + $1)) 1 > /dev/null 2>&1 &
	check "step $1: the other guest ran it" \
		timeout "$(slow "${3:-600}")" $DT_BUILDDIR/tests/tools/dt-tcp serve -4 $(($2 + 10 + $1)) 1
}

follow() {
	_n=$1 _port=$2 _host=$3
	shift 3
	check "step $_n: $_host is ready" \
		$DT_BUILDDIR/tests/tools/dt-tcp request -w "$(slow 1200)" $_host $((_port + _n)) go
	"$@"
	check "step $_n: told $_host it is done" \
		$DT_BUILDDIR/tests/tools/dt-tcp request -w 120 $_host $((_port + 10 + _n)) done
}

# tcpdump_stop PID ERR: stop the tcpdump PID (its standard error in ERR)
# once it has written every packet the kernel gave it: its counts, asked
# with SIGUSR1 ("N packets captured, M packets received by filter, K
# packets dropped by kernel"), agree (N + K reaches M), or N has stopped
# growing for 4 askings in a row (about 2 s: the traffic is over, and a
# tcpdump that had packets left would have written some; a middle host
# of t-chain on Debian 13 kept M above N + K, and the loop waited its
# whole 30 s or more), or N + K reaches the first asking's M (traffic
# that goes on, a stream's pushes, keeps M ahead of N + K and N
# growing: what the kernel had when asked is written; t-control's
# stream waited its whole 30 s or more before); at most 30 s (slow). A tcpdump starved of CPU
# under emulation lags behind the kernel, which hands packets over in
# blocks: killed after a fixed second, it lost the last ones (31 of 296
# once).
tcpdump_stop() {
	_tries=$(($(slow 30) * 5))
	_last=-1 _same=0 _rec0=
	while [ "$_tries" -gt 0 ] && kill -USR1 "$1" 2> /dev/null; do
		sleep 0.2
		_v=$(tail -n 1 "$2" | awk '$4 ~ /^captured/ && $7 == "received" {
			printf "_cap=%d _rec=%d _drop=%d", $2, $5, $10 }')
		if [ -n "$_v" ]; then
			eval "$_v"
			[ -n "$_rec0" ] || _rec0=$_rec
			[ $((_cap + _drop)) -lt "$_rec0" ] || break
			if [ "$_cap" = "$_last" ]; then
				_same=$((_same + 1))
				[ "$_same" -lt 4 ] || break
			else
				_same=0
			fi
			_last=$_cap
		fi
		_tries=$((_tries - 1))
	done
	kill "$1"
	wait "$1"
}

# The guest script's exit status: non-zero if any check failed.
dt_finish() {
	[ "$dt_failures" -eq 0 ]
}

# write_expect FILE DATA ERRNO_TEXT: a write of DATA (printf %b escapes)
# to FILE fails with the given strerror text, e.g. "Invalid argument".
write_expect() {
	_err=$( (/usr/bin/printf "$2" > "$1") 2>&1 >/dev/null)
	case $_err in
	*"$3"*) return 0 ;;
	*) echo "write of '$2' to $1: expected '$3', got '${_err:-success}'"; return 1 ;;
	esac
}

# reads_exactly FILE TEXT: FILE's whole content is TEXT plus one newline.
reads_exactly() {
	[ "$(od -An -c "$1" | tr -d ' \n')" = "$(printf '%s\n' "$2" | od -An -c | tr -d ' \n')" ] ||
		{ echo "$1 holds '$(od -An -c "$1")', expected '$2\\n'"; return 1; }
}
