# Guest side of t-flight.sh: tests/collector/guest-collect.sh as a
# flight recorder. Every host records with `dtracer record --slower-than
# 1s` (snapshot session, trigger on dtracer_unflag's duration); dt-c's
# server answers every 7th request after 2 s, the others at once.
DT_COLLECT_REQUESTS=14
DT_COLLECT_RECORD="--slower-than 1s"
DT_COLLECT_SERVE="-d 2000 -e 7"
. "$DT_SRCDIR/tests/collector/guest-collect.sh"
