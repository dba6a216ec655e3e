#!/bin/sh
# seconds: 95 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# The harness itself: it reports each guest's own exit status, enforces
# the per-guest timeout, and leaves no QEMU process, tap or namespace
# behind, whether the guests pass, fail, hang or the run is killed; and a
# run that cannot start its guests fails instead of reporting an old one.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/tests/out/harness
script=$DT_SRCDIR/tests/kernel/guest-harness.sh

leftovers() {
	ip netns list | grep -w "$1"
	pgrep -af "qemu-system.*$2" | grep -v pgrep
}

# 1. Three guests: one passes, one fails with status 3, one runs a script
#    of its own.
own=$DT_SRCDIR/tests/kernel/guest-harness-own.sh
vm_run "$out" "$script" h-ok h-fail "h-own=$own"
rc=$?
[ $rc -ne 0 ]
tap_result $? "vm_run fails when a guest fails"
[ "$(cat "$out/h-ok/status" 2>/dev/null)" = 0 ]
tap_result $? "the passing guest's status is 0"
[ "$(cat "$out/h-fail/status" 2>/dev/null)" = 3 ]
tap_result $? "the failing guest's own exit status (3) is reported"
grep -qx 'ok - h-ok ran its script' "$out/h-ok/tap"
tap_result $? "the guest's results folder holds its TAP lines"
[ "$(cat "$out/h-own/status" 2>/dev/null)" = 0 ] &&
	grep -qx 'ok - h-own ran its own script, peers: h-ok h-fail h-own' "$out/h-own/tap"
tap_result $? "a guest given its own script runs that one, and knows its peers"
vm_out=$out
[ -z "$(vm_log_problems h-ok)" ]
tap_result $? "a clean guest's kernel log passes the log check"
probs=$(leftovers "dtvm-$$" "$out/")
[ -z "$probs" ]
tap_result $? "no namespace or QEMU process left after the run"
[ -z "$probs" ] || echo "$probs" | tap_diag_stdin

# 1b. A run that cannot start its guests fails and never reports an
#    earlier run's results as its own: h-ok passed just above, and its
#    folder still holds that pass. First as a user who may not run
#    guests (nobody: vm_run cannot even clear root's folder), then as
#    root with no kernel image. The scripts are copied where nobody can
#    read them whatever the checkout's permissions.
# stale_ok FILE: vm_report's output in FILE fails h-ok (the harness did
# not start it) and passes nothing.
stale_ok() {
	[ "$(grep -c '^ok' "$1")" -eq 0 ] && grep -q '^not ok.*\[h-ok\] the harness started the guest' "$1"
}
lib=$(mktemp -d)
cp "$DT_BUILDDIR/tests/vm/config.sh" "$DT_SRCDIR/tests/vm/tap.sh" \
	"$DT_SRCDIR/tests/vm/vm.sh" "$lib/" && chmod -R a+rX "$lib"
setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "
	DT_BUILDDIR='$DT_BUILDDIR' DT_SRCDIR='$DT_SRCDIR'
	. '$lib/config.sh'; . '$lib/tap.sh'; . '$lib/vm.sh'
	vm_run '$out' '$script' h-ok && echo 'vm_run succeeded'
	vm_report '$out' h-ok" > "$out.nobody" 2>&1
stale_ok "$out.nobody" && ! grep -q 'vm_run succeeded' "$out.nobody"
tap_result $? "as nobody: vm_run fails and vm_report fails the guest instead of re-reporting its last pass"
sed 's/^/  /' "$out.nobody" | tap_diag_stdin
(
	DT_KERNEL_IMAGE=/nonexistent/vmlinuz
	vm_run "$out" "$script" h-ok && echo 'vm_run succeeded'
	tap_count=0
	vm_report "$out" h-ok
) > "$out.nokernel" 2>&1
stale_ok "$out.nokernel" && ! grep -q 'vm_run succeeded' "$out.nokernel" &&
	grep -q '^# .*no kernel image /nonexistent/vmlinuz' "$out.nokernel" &&
	[ ! -e "$out/h-ok/tap" ]
tap_result $? "with no kernel image: vm_run fails, the old results are gone, vm_report fails the guest naming why"
sed 's/^/  /' "$out.nokernel" | tap_diag_stdin
(
	DT_VM_GUEST_CONFIG="h-ok=/nonexistent/config.sh"
	vm_run "$out" "$script" h-ok && echo 'vm_run succeeded'
	tap_count=0
	vm_report "$out" h-ok
) > "$out.noconfig" 2>&1
stale_ok "$out.noconfig" && ! grep -q 'vm_run succeeded' "$out.noconfig" &&
	grep -q '^# .*h-ok: no /nonexistent/config.sh (DT_VM_GUEST_CONFIG of h-ok)' "$out.noconfig"
tap_result $? "a guest given another kernel's config (DT_VM_GUEST_CONFIG) that is missing: vm_run fails naming it"
sed 's/^/  /' "$out.noconfig" | tap_diag_stdin
rm -rf "$lib" "$out.nobody" "$out.nokernel" "$out.noconfig"

# 2. A guest that hangs is stopped by the per-guest timeout: 60 s, scaled
# like the guests' own waits (on the debug kernel, under load, a guest
# took more than 60 s to boot).
hang=$(vm_slow 60)
start=$(date +%s)
DT_VM_TIMEOUT=$hang vm_run "$out" "$script" h-hang
rc=$?
took=$(($(date +%s) - start))
[ $rc -ne 0 ] && [ ! -e "$out/h-hang/status" ] && [ "$took" -lt $((hang * 2)) ]
tap_result $? "a hanging guest is stopped by the timeout ($took s, limit $hang s) and fails the run"
[ -e "$out/h-hang/started" ]
tap_result $? "... after it had booted and started its script"
probs=$(leftovers "dtvm-$$" "$out/")
[ -z "$probs" ]
tap_result $? "no namespace or QEMU process left after the timeout"

# 3. A run killed (SIGTERM, as from Ctrl-C's INT in a terminal) while its
#    guest boots still cleans up.
out2=$DT_BUILDDIR/tests/out/harness-killed
rm -rf "$out2"
sh -c ". '$DT_BUILDDIR/tests/vm/config.sh'; . '$DT_SRCDIR/tests/vm/tap.sh'
	. '$DT_SRCDIR/tests/vm/vm.sh'; vm_run '$out2' '$script' h-hang" &
child=$!
i=0
while [ $i -lt 300 ] && [ ! -s "$out2/h-hang/qemu.pid" ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -s "$out2/h-hang/qemu.pid" ] && ip netns list | grep -qw "dtvm-$child"
tap_result $? "a second run started its guest in namespace dtvm-$child"
sleep 2
kill -TERM $child
wait $child
rc=$?
[ $rc -ne 0 ]
tap_result $? "the killed run exits non-zero ($rc)"
probs=$(leftovers "dtvm-$child" "$out2/")
[ -z "$probs" ]
tap_result $? "no namespace or QEMU process left after the kill"
[ -z "$probs" ] || echo "$probs" | tap_diag_stdin

# 4. The guests' waiting tools, which wait in one process (under
#    emulation a shell loop that starts processes while it waits takes a
#    processor): dt-tcp request -w tries again until a server answers or
#    its seconds have passed; dt-sample reads a file again and again.
tcp=$DT_BUILDDIR/tests/tools/dt-tcp
(sleep 1 && exec "$tcp" serve -4 7391 1 > /dev/null 2>&1) &
late=$!
answer=$("$tcp" request -w 30 127.0.0.1 7391 hello 2> "$out/wait.err")
rc=$?
wait $late
[ $rc = 0 ] && [ "$answer" = echo:hello ] && [ ! -s "$out/wait.err" ]
tap_result $? "dt-tcp request -w waits for a server started 1 s later ($answer, exit $rc)"
t0=$(date +%s)
"$tcp" request -w 2 127.0.0.1 7392 hello > /dev/null 2> "$out/wait.err"
rc=$? took=$(($(date +%s) - t0))
[ $rc = 1 ] && [ "$took" -ge 2 ] && [ "$(grep -c . "$out/wait.err")" = 1 ] &&
	grep -q 'cannot connect to 127.0.0.1 port 7392' "$out/wait.err"
tap_result $? "... and gives up when nobody listens for its 2 s, with one error (exit $rc after $took s)"
echo sampled > "$out/sampled"
"$DT_BUILDDIR/tests/tools/dt-sample" 50 "$out/sampled" > "$out/samples" &
sampler=$!
sleep 1
kill $sampler
wait $sampler 2> /dev/null
n=$(grep -cx sampled "$out/samples")
[ "$n" -ge 3 ] && [ "$(grep -cvx sampled "$out/samples")" = 0 ]
tap_result $? "dt-sample writes the file's contents again and again ($n times in 1 s, every 50 ms)"
tap_done
