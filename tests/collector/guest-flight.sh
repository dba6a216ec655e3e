# Guest side of t-flight.sh: tests/collector/guest-collect.sh as a
# flight recorder. Every host records with `dtracer record --slower-than
# 1s` (snapshot session, triggers on a served request's dtracer_unflag
# and a client's dtracer_answer); dt-c's server answers one request in
# twenty (the 20th, the 40th) after 2 s, the others at once. The ring
# buffers: 8 sub-buffers of 512 KiB per CPU (LTTng's default: 4 x 1 MiB).
# Both times scale with the guests' budget (slow, t-flight.sh's vm_slow):
# on the debug kernel a fast request through socat's fork can take
# longer than a second.
DT_COLLECT_REQUESTS=40
DT_COLLECT_PLAIN=0
DT_COLLECT_RECORD="--slower-than $(slow 1)s --subbuf-size 512k --num-subbuf 8"
DT_COLLECT_SERVE="-d $(slow 2000) -e 20"
. "$DT_SRCDIR/tests/collector/guest-collect.sh"
