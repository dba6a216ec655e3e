# Guest side of bench/flight.sh: bench/guest-gate.sh's workload and
# rounds, with the flight recorder's set-ups and flagged requests beside.
DT_BENCH_SETUPS="none snapshot armed"
DT_BENCH_FLAGGED=1
DT_BENCH_TABLE=flight.txt
. "$DT_SRCDIR/bench/guest-gate.sh"
