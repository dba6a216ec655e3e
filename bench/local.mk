# Included by Makefile.am (non-recursive): the benchmarks, make bench.
# ----------------------------------------------------------------------
# Benchmarks: ratios measured side by side in one guest run (not tests)
# ----------------------------------------------------------------------
EXTRA_DIST += %reldir%/gate.sh %reldir%/guest-gate.sh %reldir%/merge.sh \
	%reldir%/guest-merge.sh %reldir%/flight.sh %reldir%/guest-flight.sh \
	%reldir%/net.sh %reldir%/guest-net.sh %reldir%/volume.sh %reldir%/guest-volume.sh \
	%reldir%/scale.sh %reldir%/guest-scale.sh %reldir%/stats.sh \
	%reldir%/insn.sh %reldir%/guest-insn.sh %reldir%/insn/dt-insn.c \
	%reldir%/insn/dt-insn-mark.c %reldir%/insn/qemu-plugin-h.sh %reldir%/insn/profile.sh \
	%reldir%/fidelity.sh %reldir%/nginx.sh %reldir%/guest-nginx.sh \
	%reldir%/pool-order.sh %reldir%/pool-order.awk
# Instruction counts (%reldir%/insn.sh): a QEMU TCG plugin, built against
# the plugin header of Debian's QEMU source (downloaded, checksum-pinned,
# by %reldir%/insn/qemu-plugin-h.sh), and the guests' marker program. Built
# by make bench only.
INSN_CFLAGS = -std=c11 -Wall -Wextra -Werror -O2
%reldir%/insn/include/qemu-plugin.h: $(srcdir)/bench/insn/qemu-plugin-h.sh
	$(AM_V_GEN)$(SHELL) $(srcdir)/bench/insn/qemu-plugin-h.sh %reldir%/insn/include
%reldir%/insn/dt-insn.so: $(srcdir)/bench/insn/dt-insn.c %reldir%/insn/include/qemu-plugin.h
	@$(MKDIR_P) %reldir%/insn
	$(AM_V_CC)$(CC) $(INSN_CFLAGS) -fPIC -shared -Ibench/insn/include \
		-o $@ $(srcdir)/bench/insn/dt-insn.c
%reldir%/insn/dt-insn-mark: $(srcdir)/bench/insn/dt-insn-mark.c
	@$(MKDIR_P) %reldir%/insn
	$(AM_V_CC)$(CC) $(INSN_CFLAGS) -o $@ $(srcdir)/bench/insn/dt-insn-mark.c
bench-insn: all tests/vm/config.sh $(vm_data) $(check_PROGRAMS) \
		%reldir%/insn/dt-insn.so %reldir%/insn/dt-insn-mark
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/insn.sh
# What dtracer costs nginx serving a tiny file to ab -k -c 32 (DeepFlow's
# worst case), in instruction counts: docs/benchmarks.md.
bench-nginx: all tests/vm/config.sh $(vm_data) $(check_PROGRAMS) \
		%reldir%/insn/dt-insn.so %reldir%/insn/dt-insn-mark
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/nginx.sh
# Which requests are traced, per scenario, over DT_FIDELITY_RUNS runs
# (default 5) of t-fidelity's guests: docs/benchmarks.md's fidelity table.
bench-fidelity: all tests/vm/config.sh $(vm_data) $(check_PROGRAMS) \
		tests/vm/build/dt-gomid
	$(SHELL) $(srcdir)/scripts/deps.sh --bench
	$(MAKE) $(AM_MAKEFLAGS) tests/vm/build/java/DtJavamid.class
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/fidelity.sh
# How far the order of a pool's system calls names each worker's job
# (no guest: dt-httpd under strace in a network namespace of its own):
# docs/benchmarks.md, "Fidelity".
bench-pool-order: tests/tools/dt-httpd
	$(SHELL) $(srcdir)/scripts/deps.sh --bench
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/pool-order.sh
# The Java tier (compiled once javac is there: scripts/deps.sh --bench).
tests/vm/build/java/DtJavamid.class: $(srcdir)/tests/tools/dt-javamid.java
	@$(MKDIR_P) tests/vm/build/java
	$(AM_V_GEN)javac -d tests/vm/build/java $(srcdir)/tests/tools/dt-javamid.java
# The stress test at the reliability issue's scale: 10,000 flagged
# threads, 100,000 short connections (t-stress.sh in `make check` runs
# 2,000 of each).
stress: all tests/vm/config.sh $(vm_data) $(check_PROGRAMS)
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
	DT_STRESS_THREADS=10000 DT_STRESS_CONNS=100000 \
		$(SHELL) $(srcdir)/tests/kernel/t-stress.sh

# t-live with the watcher's connection dropped 20 times (2 requests
# after each): every tree after a drop is the merged trace's or says
# which host's events it may lack (docs/limitations.md, "Live").
soak-live: all tests/vm/config.sh $(vm_data) $(check_PROGRAMS)
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
	DT_LIVE_CYCLES=20 DT_VM_TIMEOUT=2400 \
		$(SHELL) $(srcdir)/tests/collector/t-live.sh

# lttng-live's loss on attaching again, without dtracer (one guest):
# docs/limitations.md, "Live".
repro-reattach: all tests/vm/config.sh $(vm_data)
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/tests/collector/reattach-repro.sh

# What dtracer watch's model costs per refresh as requests go by, and
# its peak memory (no guest: %reldir%/watch-replay.c makes the events):
# docs/benchmarks.md, "Watching for a day".
EXTRA_PROGRAMS = %reldir%/watch-replay
%canon_reldir%_watch_replay_SOURCES = %reldir%/watch-replay.c
%canon_reldir%_watch_replay_CPPFLAGS = $(COLLECTOR_CPPFLAGS)
%canon_reldir%_watch_replay_CFLAGS = $(COLLECTOR_CFLAGS)
%canon_reldir%_watch_replay_LDADD = $(COLLECTOR_LIB) $(GLIB_LIBS) -lm
CLEANFILES += %reldir%/watch-replay
bench-watch: %reldir%/watch-replay
	%reldir%/watch-replay $(WATCH_REPLAY_ARGS)

bench: all tests/vm/config.sh $(vm_data) $(check_PROGRAMS) \
		%reldir%/insn/dt-insn.so %reldir%/insn/dt-insn-mark
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/insn.sh
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/nginx.sh
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/gate.sh
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/merge.sh
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/flight.sh
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/net.sh
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/volume.sh
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/scale.sh
