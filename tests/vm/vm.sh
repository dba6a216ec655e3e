# The VM harness, host side (sourced by tests and the demo).
#
# Boots one QEMU guest per name, all on one virtual LAN that only they
# can reach: a network namespace made for the run, holding a bridge and
# one tap per guest, with QEMU itself started inside it. Each guest boots
# Debian's kernel (the release our modules are built for), shares the
# host's root read-only over 9p, gets its own writable results folder
# and runs a guest script: one shared by all guests (which tell each
# other apart by $DT_HOST) or its own. Everything the harness makes
# (processes, taps, namespace) is removed when the run ends, fails or is
# interrupted.
#
#    netns dtvm-PID
#   +------------------------------------------------+
#   |              br0 (no address)                  |
#   |     tap0            tap1            tap2       |
#   +------|---------------|---------------|---------+
#     guest NAME1     guest NAME2     guest NAME3
#     192.0.2.11      192.0.2.12      192.0.2.13
#     2001:db8::11    2001:db8::12    2001:db8::13   (host names NAME-6)
#
#   vm_run OUTDIR SCRIPT NAME[=OWN_SCRIPT]...
#                                  boot the guests, wait, return 0 if all
#                                  guests ran their script (SCRIPT, or
#                                  OWN_SCRIPT where given) to status 0.
#                                  Each guest's files: OUTDIR/NAME/.
#                                  Booted all again, once, if a guest
#                                  never reached its script (see there)
#   vm_report OUTDIR NAME...       print each guest's results as TAP;
#                                  a guest that vm_run did not start
#                                  (it failed first: not root, no
#                                  kernel, bad DT_VM_ACCEL, no network)
#                                  is one failure naming the reason,
#                                  never an earlier run's results
#   vm_slow SECONDS                SECONDS scaled to the guests' time
#                                  budget, as guest-lib.sh's slow does
#                                  in the guests (times DT_VM_TIMEOUT /
#                                  600 above 600 s): for figures both
#                                  sides must agree on
#
# Settings (environment): DT_VM_TIMEOUT (seconds per guest, default
# 600), DT_VM_MEM (MiB, default 1536), DT_VM_SMP (default 2),
# DT_VM_ACCEL (tcg by default; kvm as an opt-in: nested KVM hangs on
# some hosts), DT_VM_KEEP=1 to keep the namespace for debugging,
# DT_VM_APPEND="loglevel=7 ..." for more kernel command line,
# DT_VM_PASS="NAME..." to hand these variables of the caller's
# environment to the guest scripts (values without single quotes),
# DT_VM_DEBUG=1 for the debug kernel's stricter log checks (see
# vm_log_problems; make check-debug's config.sh sets it, with the
# debug kernel, its module tree, DT_VM_MEM 2048 and DT_VM_TIMEOUT 1800),
# DT_VM_FAIL_ALLOC=PERCENT (make check-debug's fault-injection pass:
# guest-init.sh has dtracer's allocations that cannot sleep fail that
# often, through fail_function), DT_VM_TCG_THREAD (single by default: one host thread runs all of a
# guest's vCPUs; multi-threaded TCG let a vCPU run stale translated code
# after the kernel patched its text for a kprobe, which crashed or hung
# guests that armed dtracer under traffic), DT_VM_PLUGIN=PATH to load
# that QEMU plugin (bench/insn/dt-insn.so: it writes the guest's
# instruction counts to OUTDIR/NAME/insn.log; one vCPU), and with
# DT_VM_PROFILE=1 its kernel profiles to OUTDIR/NAME/profile.N.
# DT_VM_GUEST_CONFIG="NAME=CONFIG ..." boots each guest so named on
# another kernel and root: the kernel image, initramfs, module tree and
# root (DT_VM_ROOT) that CONFIG names, a config.sh such as
# tests/vm/check-kernel.sh's (tests/vm/build-SUITE/tree/tests/vm/
# config.sh): a Debian 13 guest in a chain of Debian 12 guests. The
# other guests boot what the sourced config.sh names.
#
# Needs: tests/vm/config.sh sourced first (paths made by configure).

vm_ns=
vm_pids=

vm_cleanup() {
	for _p in $vm_pids; do
		kill "$_p" 2>/dev/null
	done
	for _f in "$vm_out"/*/qemu.pid; do
		[ -f "$_f" ] && kill -9 "$(cat "$_f" 2>/dev/null)" 2>/dev/null
	done
	for _p in $vm_pids; do
		wait "$_p" 2>/dev/null
	done
	vm_pids=
	if [ -n "$vm_ns" ] && [ "${DT_VM_KEEP:-0}" != 1 ]; then
		ip netns del "$vm_ns" 2>/dev/null
	fi
	vm_ns=
}

# vm_fail REASON: this run cannot start its guests. Says why, on stderr
# and in each guest's results folder (.vm-run, which vm_report turns
# into a failure naming it), and removes what was made.
vm_fail() {
	echo "vm: $*" >&2
	for _n in $vm_names; do
		[ -d "$vm_out/$_n" ] && echo "vm_run failed: $*" > "$vm_out/$_n/.vm-run"
	done
	vm_cleanup
	return 1
}

# vm_clear: empty each guest's results folder before anything can fail,
# so that nothing of an earlier run is ever reported as this one's.
vm_clear() {
	for _n in $vm_names; do
		if ! rm -rf "${vm_out:?}/$_n" || ! mkdir -p "$vm_out/$_n"; then
			echo "vm: cannot clear $vm_out/$_n (an earlier run's results)" >&2
			return 1
		fi
	done
}

vm_addr() {
	echo "192.0.2.$((11 + $1))"
}

vm_addr6() {
	echo "2001:db8::$((11 + $1))"
}

vm_net_up() {
	vm_ns=dtvm-$$
	ip netns add "$vm_ns" || return 1
	ip -n "$vm_ns" link set lo up &&
		ip -n "$vm_ns" link add br0 type bridge &&
		ip -n "$vm_ns" link set br0 up
}

vm_tap_add() {
	ip -n "$vm_ns" tuntap add "tap$1" mode tap &&
		ip -n "$vm_ns" link set "tap$1" master br0 &&
		ip -n "$vm_ns" link set "tap$1" up
}

vm_accel_args() {
	case ${DT_VM_ACCEL:-tcg} in
	tcg) echo "-accel tcg,thread=${DT_VM_TCG_THREAD:-single} -cpu max" ;;
	kvm) echo "-accel kvm -cpu host" ;;
	*) echo "vm: DT_VM_ACCEL must be tcg or kvm" >&2; return 1 ;;
	esac
}

vm_slow() {
	if [ "${DT_VM_TIMEOUT:-600}" -gt 600 ]; then
		echo $(($1 * DT_VM_TIMEOUT / 600))
	else
		echo "$1"
	fi
}

# vm_guest_env INDEX NAME SCRIPT HOSTLINES: the guest's configuration.
vm_guest_env() {
	cat <<ENV
DT_INDEX=$1
DT_HOST=$2
DT_ADDR=$(vm_addr "$1")
DT_ADDR6=$(vm_addr6 "$1")
DT_SCRIPT='$3'
DT_HOSTS='$vm_names'
DT_HOSTS_LINES='$4'
DT_MODTREE='$vm_g_modtree'
DT_SRCDIR='$DT_SRCDIR'
DT_BUILDDIR='$DT_BUILDDIR'
DT_GUEST_TIMEOUT=${DT_VM_TIMEOUT:-600}
DT_FAIL_ALLOC='${DT_VM_FAIL_ALLOC:-}'
ENV
	for _v in ${DT_VM_PASS:-}; do
		eval "_val=\${$_v:-}"
		printf "export %s='%s'\n" "$_v" "$_val"
	done
}

# vm_guest_boot NAME: what the guest boots, in vm_g_kernel, vm_g_initrd,
# vm_g_modtree and vm_g_root (empty: this machine's): the sourced
# config.sh's, or the one DT_VM_GUEST_CONFIG names for it. Fails, saying
# why, if one is missing.
vm_guest_boot() {
	vm_g_kernel=$DT_KERNEL_IMAGE vm_g_initrd=$DT_VM_INITRAMFS
	vm_g_modtree=$DT_VM_MODTREE vm_g_root=${DT_VM_ROOT:-}
	_cf=
	for _gc in ${DT_VM_GUEST_CONFIG:-}; do
		[ "${_gc%%=*}" = "$1" ] && _cf=${_gc#*=}
	done
	if [ -n "$_cf" ]; then
		[ -r "$_cf" ] || { echo "no $_cf (DT_VM_GUEST_CONFIG of $1)"; return 1; }
		# shellcheck disable=SC1090
		_vals=$(DT_VM_ROOT= ; . "$_cf"; printf '%s\n' "$DT_KERNEL_IMAGE" \
			"$DT_VM_INITRAMFS" "$DT_VM_MODTREE" "${DT_VM_ROOT:-}") ||
			{ echo "cannot read $_cf (DT_VM_GUEST_CONFIG of $1)"; return 1; }
		vm_g_kernel=$(echo "$_vals" | sed -n 1p)
		vm_g_initrd=$(echo "$_vals" | sed -n 2p)
		vm_g_modtree=$(echo "$_vals" | sed -n 3p)
		vm_g_root=$(echo "$_vals" | sed -n 4p)
	fi
	[ -r "$vm_g_kernel" ] || { echo "no kernel image $vm_g_kernel (Debian package: linux-image-amd64)"; return 1; }
	[ -f "$vm_g_initrd" ] || { echo "$vm_g_initrd missing: run make check"; return 1; }
	[ -d "$vm_g_modtree" ] || { echo "$vm_g_modtree missing: run make check"; return 1; }
}

# vm_pvh_elf FILE: FILE is an ELF kernel that QEMU can enter directly,
# through the PVH entry point its Xen note 0x12 names (CONFIG_PVH).
vm_pvh_elf() {
	[ "$(head -c 4 "$1" 2> /dev/null | od -An -c | tr -d ' ')" = '177ELF' ] &&
		readelf -n "$1" 2> /dev/null | grep -q '^ *Xen .*(0x00000012)'
}

# vm_unpacked IMAGE: the kernel that the bzImage IMAGE carries,
# uncompressed, to boot instead of IMAGE: the same kernel (its own bytes,
# entered at the PVH entry point it declares) without the decompression
# that, under TCG, took 4.4 of the 7.9 s a Debian 12 guest needed to
# reach its root (xz; Debian 13's is zstd). Made once per image (name,
# size, time) under tests/vm/build/kernels/; IMAGE itself where that
# cannot be done (a compression not tried here, no PVH entry point):
# slower, the same kernel.
vm_unpacked() {
	_img=$1
	_key=$(stat -L -c '%s-%Y' "$_img" 2> /dev/null) || { echo "$_img"; return 0; }
	_dir=$DT_BUILDDIR/tests/vm/build/kernels
	_elf=$_dir/$(basename "$_img")-$_key
	if [ ! -f "$_elf" ] && mkdir -p "$_dir" 2> /dev/null; then
		for _z in 'xz:\xfd7zXZ\x00' 'zstd:\x28\xb5\x2f\xfd' 'gzip:\x1f\x8b\x08'; do
			command -v "${_z%%:*}" > /dev/null || continue
			_off=$(LC_ALL=C grep -obUaP "${_z#*:}" "$_img" | head -n 1 | cut -d: -f1)
			[ -n "$_off" ] || continue
			# The compressed kernel is followed by more of the image:
			# the tools complain of it, and have written the kernel.
			tail -c +$((_off + 1)) "$_img" | "${_z%%:*}" -dcq > "$_elf.$$" 2> /dev/null
			vm_pvh_elf "$_elf.$$" && mv -f "$_elf.$$" "$_elf" && break
		done
		rm -f "$_elf.$$"
	fi
	if [ -f "$_elf" ]; then echo "$_elf"; else echo "$_img"; fi
}

# vm_start INDEX NAME: boot one guest in the background (vm_guest_boot
# first). A q35 machine: its PCI Express interrupts need none of the ACPI
# link devices whose set-up took 0.8 s of a pc machine's boot under TCG.
# A soft lockup is reported after 110 s (watchdog_thresh=55), an RCU
# stall after 100 s, as syzkaller's guests do: a TCG vCPU that the host
# does not run for 20 s (both lanes' guests and a build on 2 cores) has
# its watchdog timer fire before the watchdog thread, a soft lockup by
# the default's count, and softlockup_panic ends the guest. (A CI run
# lost t-chain's middle guest before its script's first step, its
# kernel log not clean; what the log said was cut from CI's output:
# most likely this.)
vm_start() {
	_res=$vm_out/$2
	_mac=$(printf '52:54:00:d7:00:%02x' "$(($1 + 1))")
	_plugin=
	# Another release's root (check-kernel.sh's DT_VM_ROOT) is the
	# guest's root; this machine's stays reachable as "host".
	_host=
	[ -z "$vm_g_root" ] ||
		_host="local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap"
	[ -z "${DT_VM_PLUGIN:-}" ] ||
		_plugin="file=$DT_VM_PLUGIN,out=$_res/insn.log${DT_VM_PROFILE:+,profile=$_res/profile}"
	# shellcheck disable=SC2046
	ip netns exec "$vm_ns" timeout -k 10 "${DT_VM_TIMEOUT:-600}" \
		"$DT_QEMU" -machine q35 $(vm_accel_args) -m "${DT_VM_MEM:-1536}" \
		-smp "${DT_VM_SMP:-2}" -nodefaults -display none -monitor none \
		-no-reboot -pidfile "$_res/qemu.pid" \
		-serial "file:$_res/console.log" \
		-kernel "$(vm_unpacked "$vm_g_kernel")" -initrd "$vm_g_initrd" \
		-append "console=ttyS0 panic=-1 panic_on_warn=1 oops=panic softlockup_panic=1 watchdog_thresh=55 rcupdate.rcu_cpu_stall_timeout=100 quiet ${DT_VM_APPEND:-}" \
		-virtfs "local,path=${vm_g_root:-/},mount_tag=root,security_model=none,readonly=on,multidevs=remap" \
		${_host:+-virtfs "$_host"} \
		-virtfs "local,path=$_res,mount_tag=results,security_model=none" \
		-netdev "tap,id=n0,ifname=tap$1,script=no,downscript=no" \
		-device "virtio-net-pci,netdev=n0,mac=$_mac" \
		-device virtio-rng-pci \
		${_plugin:+-plugin "$_plugin"} \
		> "$_res/qemu.log" 2>&1 &
	vm_pids="$vm_pids $!"
}

# vm_run: vm_run_once, and once more if a guest it booted never reached
# its script (no OUTDIR/NAME/started: the guest's boot, not the test,
# failed; two CI runs lost a guest so, early in the run, beside Debian
# 13's build). What the first try left is kept in OUTDIR/.try1/, named
# in OUTDIR/.retried (vm_report prints it as diagnostics) and in
# DT_BUILDDIR/tests/retries.log (scripts/dev.sh prints that after the
# times). A guest that reached its script is never retried for.
vm_run() {
	rm -rf "${1:?}/.try1" "$1/.retried"
	vm_run_once "$@"
	_vr_rc=$?
	_vr_lost=
	for _n in $vm_names; do
		[ "$(cat "$vm_out/$_n/.vm-run" 2>/dev/null)" = started ] &&
			[ ! -e "$vm_out/$_n/started" ] && _vr_lost="$_vr_lost $_n"
	done
	[ -n "$_vr_lost" ] || return $_vr_rc
	mkdir -p "$vm_out/.try1"
	{
		echo "retried: guest(s)$_vr_lost never reached the script in the first try (kept in $vm_out/.try1)"
		for _n in $_vr_lost; do
			echo "[$_n] first try's qemu.log:"
			tail -n 5 "$vm_out/$_n/qemu.log" 2>/dev/null
			echo "[$_n] first try's console ($(wc -l 2>/dev/null < "$vm_out/$_n/console.log" || echo no) lines) ends:"
			tail -n 30 "$vm_out/$_n/console.log" 2>/dev/null
		done
	} > "$vm_out/.try1/why"
	for _n in $vm_names; do
		cp -R "$vm_out/$_n" "$vm_out/.try1/$_n" 2>/dev/null
	done
	echo "$(date -u +%FT%TZ) $vm_out:$_vr_lost never reached the script; retried" \
		>> "$DT_BUILDDIR/tests/retries.log"
	vm_run_once "$@"
	_vr_rc=$?
	cp "$vm_out/.try1/why" "$vm_out/.retried"
	return $_vr_rc
}

vm_run_once() {
	vm_out=$1
	_script=$2
	shift 2
	vm_specs=$*
	vm_names=
	for _s in $vm_specs; do
		vm_names="$vm_names${vm_names:+ }${_s%%=*}"
	done
	vm_clear || return 1
	[ "$(id -u)" = 0 ] || { vm_fail "must run as root"; return 1; }
	for _n in $vm_names; do
		_why=$(vm_guest_boot "$_n") || { vm_fail "$_n: $_why"; return 1; }
	done
	vm_accel_args > /dev/null || { vm_fail "DT_VM_ACCEL must be tcg or kvm, not ${DT_VM_ACCEL:-}"; return 1; }

	trap 'vm_cleanup; exit 130' INT TERM HUP
	vm_net_up || { vm_fail "cannot create the test network namespace"; return 1; }

	_lines= _i=0
	for _n in $vm_names; do
		_lines="$_lines${_lines:+,}$(vm_addr $_i) $_n,$(vm_addr6 $_i) $_n-6"
		_i=$((_i + 1))
	done
	_i=0
	for _s in $vm_specs; do
		_n=${_s%%=*}
		_own=$_script
		case $_s in *=*) _own=${_s#*=} ;; esac
		vm_guest_boot "$_n" > /dev/null || { vm_fail "$_n: cannot boot"; return 1; }
		vm_guest_env "$_i" "$_n" "$_own" "$_lines" > "$vm_out/$_n/.guest.env"
		cp "$DT_SRCDIR/tests/vm/guest-init.sh" "$vm_out/$_n/.guest-init"
		vm_tap_add "$_i" || { vm_fail "cannot create tap$_i"; return 1; }
		vm_start "$_i" "$_n"
		echo started > "$vm_out/$_n/.vm-run"
		_i=$((_i + 1))
	done
	for _p in $vm_pids; do
		wait "$_p"
	done
	vm_pids=
	vm_cleanup
	trap - INT TERM HUP

	_rc=0
	for _n in $vm_names; do
		[ "$(cat "$vm_out/$_n/status" 2>/dev/null)" = 0 ] || _rc=1
	done
	return $_rc
}

# vm_log_problems NAME: kernel log lines that fail a run. Taint bits
# other than O (out-of-tree module, 4096) and E (unsigned module, 8192)
# count too: those two are what loading our own modules always sets.
# KASAN ("BUG: KASAN"), lockdep ("WARNING: possible circular locking",
# "... recursive locking", "inconsistent lock state", "suspicious RCU
# usage"), "BUG: sleeping function called from invalid context" and
# "BUG: scheduling while atomic" are among these already. With
# DT_VM_DEBUG=1 (the debug kernel's config.sh, make check-debug) also:
# what turns a checker off (lockdep, kmemleak), hung tasks, RCU stalls,
# and the objects of the guest's kmemleak report (guest-init.sh,
# /results/kmemleak) that our modules allocated: an entry whose
# backtrace names dtracer or an lttng module, or a raw address, which
# is code of a module unloaded since (nothing else is loaded).
vm_log_problems() {
	_res=$vm_out/$1
	_pat='BUG:|WARNING:|Oops|Kernel panic|general protection|Call Trace'
	[ "${DT_VM_DEBUG:-0}" = 1 ] &&
		_pat="$_pat|turning off the locking correctness validator|Disabling lock debugging|memory leak detector disabled|kmemleak: Cannot|kmemleak: Memory pool empty|blocked for more than|detected stalls|ODEBUG:"
	cat "$_res/console.log" "$_res/dmesg" 2>/dev/null |
		grep -E "$_pat" |
		sort -u
	[ "${DT_VM_DEBUG:-0}" = 1 ] && [ -f "$_res/kmemleak" ] &&
		vm_kmemleak_ours < "$_res/kmemleak"
	_t=$(cat "$_res/tainted" 2>/dev/null || echo 0)
	if [ $((_t & ~(4096 | 8192))) -ne 0 ]; then
		echo "kernel tainted: $_t"
	fi
}

# vm_kmemleak_ours < KMEMLEAK_REPORT: one line per unreferenced object
# allocated by our modules (see vm_log_problems), with its first frames.
vm_kmemleak_ours() {
	awk '
	function flush() {
		if (head != "" && ours)
			print "kmemleak: " head ", " comm ": " frames
		head = ""; ours = 0; frames = ""; nf = 0
	}
	/^unreferenced object/ {
		flush()
		head = $0; sub(/:$/, "", head); next
	}
	/^  comm / { comm = $0; sub(/^  /, "", comm); next }
	/^    \[<[^>]*>\] / {
		f = $0; sub(/^    \[<[^>]*>\] /, "", f)
		if (f ~ /\[(dtracer|lttng_[a-z0-9_]*)\]$/ || f ~ /^0x/)
			ours = 1
		if (nf++ < 6)
			frames = frames (frames == "" ? "" : " < ") f
	}
	END { flush() }'
}

# vm_report_started NAME: whether this run started the guest. If not
# (vm_run failed before it booted, or the folder holds results this
# user cannot have made: not writable), one failure naming the reason
# stands for the guest, and nothing in its folder is reported.
vm_report_started() {
	_res=$vm_out/$1
	_why=$(cat "$_res/.vm-run" 2>/dev/null)
	if [ -d "$_res" ] && [ ! -w "$_res" ]; then
		_why="$_res is not writable here: its results are not this run's"
	elif [ -z "$_why" ]; then
		_why="no record of vm_run starting it ($_res/.vm-run)"
	fi
	[ "$_why" = started ] && return 0
	tap_result 1 "[$1] the harness started the guest"
	tap_diag "$_why"
	return 1
}

vm_report() {
	vm_out=$1
	shift
	[ -f "$vm_out/.retried" ] && tap_diag_stdin < "$vm_out/.retried"
	for _n in "$@"; do
		_res=$vm_out/$_n
		vm_report_started "$_n" || continue
		[ -f "$_res/tap" ] && while IFS= read -r _line; do
			case $_line in
			"ok - "*) tap_result 0 "[$_n] ${_line#ok - }" ;;
			"not ok - "*) tap_result 1 "[$_n] ${_line#not ok - }" ;;
			*) echo "$_line" ;;
			esac
		done < "$_res/tap"
		_st=$(cat "$_res/status" 2>/dev/null)
		if [ "$_st" = 0 ]; then
			tap_result 0 "[$_n] guest script ran to its end and exited 0"
		elif [ -n "$_st" ]; then
			tap_result 1 "[$_n] guest script ran to its end and exited 0"
			tap_diag "exit status $_st; the script's output ends with:"
			tail -n 20 "$_res/script.log" 2>/dev/null | tap_diag_stdin
		else
			tap_result 1 "[$_n] guest script ran to its end and exited 0"
			if [ -e "$_res/started" ]; then
				tap_diag "no status: the guest crashed, hung or timed out in its script; console:"
			else
				tap_diag "no status: the guest never reached its script; console:"
			fi
			tail -n 30 "$_res/console.log" 2>/dev/null | tap_diag_stdin
			if [ -s "$_res/qemu.log" ]; then
				tap_diag "QEMU said:"
				tail -n 10 "$_res/qemu.log" | tap_diag_stdin
			fi
			# Slow or stuck: the last checks' times (seconds
			# since the guest booted) against the time limit.
			if [ -s "$_res/script.log" ]; then
				tap_diag "time limit ${DT_VM_TIMEOUT:-600} s; the script's last lines (seconds since boot):"
				tail -n 3 "$_res/script.log" | tap_diag_stdin
			fi
		fi
		if [ -e "$_res/console.log" ]; then
			_probs=$(vm_log_problems "$_n")
		else
			_probs="no kernel log: the guest never ran"
		fi
		if [ -z "$_probs" ]; then
			tap_result 0 "[$_n] kernel log clean, no taint from our code"
		else
			tap_result 1 "[$_n] kernel log clean, no taint from our code"
			echo "$_probs" | tap_diag_stdin
		fi
	done
}
