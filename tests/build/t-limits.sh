#!/bin/sh
# seconds: 20 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# What a run reports when a test does not finish or skips: under
# tests/limit.sh (every test of make check runs under it), a test that
# hangs becomes a "not ok" naming it and what it was running, its
# processes are stopped, automake's tap-driver counts a failure and
# goes on; a test that ends passes through unchanged. Under CI=true a
# skip (tap_skip_all, tap_skip) is a failure.
. "$DT_SRCDIR/tests/vm/tap.sh"

limit=$DT_SRCDIR/tests/limit.sh
out=$DT_BUILDDIR/tests/out/limits
rm -rf "$out"
mkdir -p "$out" || exit 99

# A test that prints one result, then waits forever in a child process
# (a distinctive sleep, to be found afterwards), as a hung guest or
# merge would.
# Each run's time goes to a file of this test's (tests/limit.sh's
# DT_TIMES), not the run's table.
DT_TIMES=$out/times.tsv DT_TIMES_PHASE=limits
export DT_TIMES DT_TIMES_PHASE
cat > "$out/hangs.sh" <<'EOF'
# seconds: 0
echo "ok 1 - first step"
sleep 3171
echo "ok 2 - never reached"
echo "1..2"
EOF
cat > "$out/ends.sh" <<'EOF'
echo "ok 1 - one"
echo "not ok 2 - two"
echo "1..2"
exit 1
EOF

start=$(date +%s)
DT_TEST_LIMIT=2 DT_VM_TIMEOUT=600 sh "$limit" sh "$out/hangs.sh" > "$out/hangs.tap"
rc=$?
took=$(($(date +%s) - start))
tap_diag_stdin < "$out/hangs.tap"
[ $rc -eq 124 ] && [ "$took" -lt 20 ]
tap_result $? "a hanging test is stopped at its limit (exit $rc after $took s, limit 2 s)"
grep -q '^not ok - hangs.sh hung: stopped after 2 s' "$out/hangs.tap" &&
	grep -q '^#.*sleep 3171' "$out/hangs.tap"
tap_result $? "... its 'not ok' names the test and what it was running (sleep 3171)"
[ "$(sed -n 1p "$out/hangs.tap")" = "ok 1 - first step" ] &&
	[ "$(tail -n 1 "$out/hangs.tap")" = "1..2" ]
tap_result $? "... its results so far pass through, and the plan counts the failure"
sleep 1
! pgrep -f 'sleep 3171' > /dev/null
tap_result $? "... nothing of it is left running"
line=$(sed -n 1p "$out/times.tsv" 2>/dev/null)
echo "$line" | awk -F '\t' -v t="$took" '$1 == "limits" && $2 ~ /hangs\.sh$/ &&
	$3 >= 2 && $3 <= t && $4 == 0 && $5 == 124 { ok = 1 } END { exit !ok }'
tap_result $? "... its time, stated seconds and status 124 are recorded for the run's table ($line)"

# A test that states its seconds gets at least three times them.
cat > "$out/states.sh" <<'EOF'
# seconds: 2
sleep 3
echo "ok 1 - done after 3 s"
echo "1..1"
EOF
DT_TEST_LIMIT=1 sh "$limit" sh "$out/states.sh" > "$out/states.tap"
rc=$?
[ $rc -eq 0 ] && grep -qx 'ok 1 - done after 3 s' "$out/states.tap"
tap_result $? "a test stating 2 s runs 3 s under a limit of 1 s (three times what it states; exit $rc)"

# The same through automake's tap-driver, as make check runs it: the
# hang is one failure, and the driver ends normally.
AM_TAP_AWK=${AWK:-awk} DT_TEST_LIMIT=2 sh "$DT_SRCDIR/build-aux/tap-driver.sh" \
	--test-name hangs.sh --log-file "$out/hangs.log" \
	--trs-file "$out/hangs.result" --color-tests no --enable-hard-errors yes \
	--expect-failure no -- sh "$limit" sh "$out/hangs.sh" > "$out/driver.out" 2>&1
drc=$?
pass=$(grep -c '^:test-result: PASS' "$out/hangs.result" 2>/dev/null)
fail=$(grep -c '^:test-result: \(FAIL\|ERROR\)' "$out/hangs.result" 2>/dev/null)
[ $drc -eq 0 ] && [ "${pass:-0}" -eq 1 ] && [ "${fail:-0}" -ge 1 ]
tap_result $? "tap-driver counts the hang as a failure and finishes (driver exit $drc; $pass passed, $fail failed)"
tap_diag_stdin < "$out/driver.out"

DT_TEST_LIMIT=5 sh "$limit" sh "$out/ends.sh" > "$out/ends.tap"
rc=$?
cmp -s "$out/ends.tap" - <<'EOF'
ok 1 - one
not ok 2 - two
1..2
EOF
[ $? -eq 0 ] && [ $rc -eq 1 ]
tap_result $? "a test that ends passes through unchanged, with its exit status ($rc)"

# Processor seconds: a test whose child computes until it has used 1.5
# processor seconds (its own, from /proc: a busy machine gives a loop of
# 3 s of wall time well under one, and the test failed beside four
# guests) has them recorded, and the run's table shows them, with the
# total's share of the cores.
cat > "$out/burns.sh" <<'EOF'
sh -c 'n=$(($(getconf CLK_TCK) * 3 / 2))
	while read -r l < /proc/$$/stat; do
		set -- $l
		[ $((${14} + ${15})) -lt $n ] || break
	done' burn
echo "ok 1 - burned"
echo "1..1"
EOF
: > "$out/times.tsv"
sh "$limit" sh "$out/burns.sh" > "$out/burns.tap"
line=$(sed -n 1p "$out/times.tsv")
echo "$line" | awk -F '\t' '$2 ~ /burns\.sh$/ && $6 ~ /^[0-9]+$/ && $6 >= 1 && $6 <= $3 + 1 { ok = 1 } END { exit !ok }'
tap_result $? "a test's processor seconds are recorded beside its seconds ($line)"
printf 'build\t10\t\t17\nlane B: y\t20\tcheck\t13\nlane A: x\t25\tcheck\t31\ncheck\t30\t\t44\n' > "$out/phases.tsv"
sh "$DT_SRCDIR/scripts/times.sh" "$out/phases.tsv" "$out/times.tsv" > "$out/table.txt" 2>&1
cpu=$(echo "$line" | cut -f6)
grep -q "burns\.sh .*cpu $cpu s" "$out/table.txt" &&
	grep -Eq "^  build +10 s .*cpu +17 s" "$out/table.txt" &&
	grep -Eq "^    lane A: x +25 s .*cpu +31 s" "$out/table.txt" &&
	grep -Eq "^    lane B: y +20 s .*cpu +13 s" "$out/table.txt" &&
	grep -Eq "^  total +40 s .*cpu +61 s  [0-9]+% of [0-9]+ cores" "$out/table.txt"
tap_result $? "scripts/times.sh shows them per test, per phase and lane step (in lane order), and in all"
tap_diag_stdin < "$out/table.txt"

# Skips: reported as skips, except under CI=true.
skips() {
	sh -c ". '$DT_SRCDIR/tests/vm/tap.sh'; $1" > "$out/skip.tap" 2>&1
}
CI= skips 'tap_skip_all "no tool"'
rc=$?
[ $rc -eq 0 ] && grep -qx '1..0 # SKIP no tool' "$out/skip.tap"
tap_result $? "tap_skip_all skips the script outside CI"
CI=true skips 'tap_skip_all "no tool"'
rc=$?
[ $rc -ne 0 ] && grep -q '^not ok 1 - skipped under CI=true.*no tool' "$out/skip.tap" &&
	grep -qx '1..1' "$out/skip.tap"
tap_result $? "under CI=true, tap_skip_all is a failure"
CI= skips 'tap_skip "a step" "no tool"; tap_done'
[ $? -eq 0 ] && grep -qx 'ok 1 - a step # SKIP no tool' "$out/skip.tap"
tap_result $? "tap_skip skips one point outside CI"
CI=true skips 'tap_skip "a step" "no tool"; tap_done'
[ $? -ne 0 ] && grep -q '^not ok 1 - a step: skipped under CI=true' "$out/skip.tap"
tap_result $? "under CI=true, tap_skip is a failure"
tap_done
