# Included by Makefile.am (non-recursive): the tests of make check.
# ----------------------------------------------------------------------
# Tests
# ----------------------------------------------------------------------
# %reldir%/driver.sh: automake's TAP driver, and a copy of each test's
# .log and .trs under DT_KEEP_RESULTS when set (make distcheck's tests
# under make check-lanes).
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/tests/driver.sh \
	$(top_srcdir)/build-aux/tap-driver.sh
TEST_LOG_DRIVER = $(LOG_DRIVER)
SH_LOG_DRIVER = $(LOG_DRIVER)
# Every test runs under %reldir%/limit.sh: a hang (DT_TEST_LIMIT, default
# 1500 s) is a "not ok" naming the test and what it was running, and the
# run goes on.
SH_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/limit.sh $(SHELL)
LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/limit.sh
TEST_EXTENSIONS = .sh
AM_TESTS_ENVIRONMENT = \
	DT_SRCDIR='$(abs_top_srcdir)'; DT_BUILDDIR='$(abs_top_builddir)'; \
	export DT_SRCDIR DT_BUILDDIR;

unit_tests = %reldir%/unit/test-parse %reldir%/unit/test-ranges \
	%reldir%/unit/test-interim %reldir%/unit/test-frames %reldir%/unit/test-order \
	%reldir%/unit/test-hull %reldir%/unit/test-sync %reldir%/unit/test-retime \
	%reldir%/unit/test-requests %reldir%/unit/test-export %reldir%/unit/test-view \
	%reldir%/unit/test-watch %reldir%/unit/test-go-elf \
	%reldir%/unit/test-pyqueue-elf
check_PROGRAMS = $(unit_tests) %reldir%/tools/dt-tcp %reldir%/tools/dt-pcap \
	%reldir%/tools/dt-retime %reldir%/tools/dt-view-fixture \
	%reldir%/tools/dt-export-check %reldir%/tools/dt-crowd %reldir%/tools/dt-inject \
	%reldir%/tools/dt-httpd %reldir%/tools/dt-sample \
	%reldir%/tools/dt-watch-replay
if HAVE_LIBURING
check_PROGRAMS += %reldir%/tools/dt-uring
endif
# The collector's code comes from its library (COLLECTOR_LIB, built once).
tests_unit_test_hull_SOURCES = %reldir%/unit/test-hull.c %reldir%/unit/tap.h
tests_unit_test_hull_CPPFLAGS = $(COLLECTOR_CPPFLAGS) -I$(srcdir)/tests/unit
tests_unit_test_hull_LDADD = $(COLLECTOR_LIB) -lm
tests_unit_test_sync_SOURCES = %reldir%/unit/test-sync.c %reldir%/unit/tap.h
tests_unit_test_sync_CPPFLAGS = $(COLLECTOR_CPPFLAGS) -I$(srcdir)/tests/unit
tests_unit_test_sync_CFLAGS = $(COLLECTOR_CFLAGS)
tests_unit_test_sync_LDADD = $(COLLECTOR_LIB) $(GLIB_LIBS) -lm
tests_unit_test_retime_SOURCES = %reldir%/unit/test-retime.c %reldir%/unit/tap.h
tests_unit_test_retime_CPPFLAGS = $(COLLECTOR_CPPFLAGS) -I$(srcdir)/tests/unit
tests_unit_test_retime_CFLAGS = $(COLLECTOR_CFLAGS)
tests_unit_test_retime_LDADD = $(COLLECTOR_LIB) $(GLIB_LIBS) -lm
tests_unit_test_requests_SOURCES = %reldir%/unit/test-requests.c \
	%reldir%/unit/tap.h
tests_unit_test_requests_CPPFLAGS = $(COLLECTOR_CPPFLAGS) -I$(srcdir)/tests/unit
tests_unit_test_requests_CFLAGS = $(COLLECTOR_CFLAGS)
tests_unit_test_requests_LDADD = $(COLLECTOR_LIB) $(GLIB_LIBS) -lm
tests_unit_test_watch_SOURCES = %reldir%/unit/test-watch.c \
	%reldir%/unit/tap.h
tests_unit_test_watch_CPPFLAGS = $(COLLECTOR_CPPFLAGS) -I$(srcdir)/tests/unit
tests_unit_test_watch_CFLAGS = $(COLLECTOR_CFLAGS)
tests_unit_test_watch_LDADD = $(COLLECTOR_LIB) $(GLIB_LIBS) -lm
tests_unit_test_export_SOURCES = %reldir%/unit/test-export.c \
	%reldir%/unit/tap.h %reldir%/unit/rq-fixture.h
tests_unit_test_export_CPPFLAGS = $(COLLECTOR_CPPFLAGS) -I$(srcdir)/tests/unit
tests_unit_test_export_CFLAGS = $(COLLECTOR_CFLAGS)
tests_unit_test_export_LDADD = $(COLLECTOR_LIB) $(GLIB_LIBS) $(JSONC_LIBS) -lm
tests_unit_test_view_SOURCES = %reldir%/unit/test-view.c \
	%reldir%/unit/tap.h %reldir%/unit/rq-fixture.h
tests_unit_test_view_CPPFLAGS = $(COLLECTOR_CPPFLAGS) -I$(srcdir)/tests/unit
tests_unit_test_view_CFLAGS = $(COLLECTOR_CFLAGS)
tests_unit_test_view_LDADD = $(COLLECTOR_LIB) $(GLIB_LIBS) $(JSONC_LIBS) -lm
tests_tools_dt_view_fixture_SOURCES = %reldir%/tools/dt-view-fixture.c \
	%reldir%/unit/rq-fixture.h
tests_tools_dt_view_fixture_CPPFLAGS = $(COLLECTOR_CPPFLAGS) \
	-I$(srcdir)/tests/unit
tests_tools_dt_view_fixture_CFLAGS = $(COLLECTOR_CFLAGS)
tests_tools_dt_view_fixture_LDADD = $(COLLECTOR_LIB) $(GLIB_LIBS) $(JSONC_LIBS) -lm
tests_unit_test_go_elf_SOURCES = %reldir%/unit/test-go-elf.c %reldir%/unit/tap.h
tests_unit_test_go_elf_CPPFLAGS = $(COLLECTOR_CPPFLAGS) -I$(srcdir)/tests/unit
tests_unit_test_go_elf_LDADD = $(COLLECTOR_LIB)
tests_unit_test_pyqueue_elf_SOURCES = %reldir%/unit/test-pyqueue-elf.c %reldir%/unit/tap.h
tests_unit_test_pyqueue_elf_CPPFLAGS = $(COLLECTOR_CPPFLAGS) -I$(srcdir)/tests/unit
tests_unit_test_pyqueue_elf_LDADD = $(COLLECTOR_LIB)
tests_tools_dt_export_check_SOURCES = %reldir%/tools/dt-export-check.c
tests_tools_dt_export_check_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
tests_tools_dt_export_check_LDADD = $(JSONC_LIBS)
# The watcher's two models on a recorded session (t-live): babeltrace2
# reads the traces, as `dtracer requests` does.
tests_tools_dt_watch_replay_SOURCES = %reldir%/tools/dt-watch-replay.c \
	collector/plugin/graph.c collector/requests/requests-read.c \
	collector/requests/requests-hosts.c collector/plugin/flt-tap.c \
	collector/requests/requests-decode.c \
	collector/sync/marks-read.c \
	collector/plugin/flt-sync.c collector/plugin/flt-dedup.c \
	collector/plugin/flt-pass.c $(collector_bterr_sources)
tests_tools_dt_watch_replay_CPPFLAGS = $(COLLECTOR_CPPFLAGS)
tests_tools_dt_watch_replay_CFLAGS = $(COLLECTOR_CFLAGS)
tests_tools_dt_watch_replay_LDADD = $(COLLECTOR_LIB) $(BABELTRACE2_LIBS) \
	$(GLIB_LIBS) $(JSONC_LIBS) -lm
tests_tools_dt_retime_SOURCES = %reldir%/tools/dt-retime.c
tests_tools_dt_retime_CPPFLAGS = $(COLLECTOR_CPPFLAGS)
tests_tools_dt_retime_CFLAGS = $(COLLECTOR_CFLAGS)
tests_tools_dt_retime_LDADD = $(COLLECTOR_LIB) $(GLIB_LIBS) -lm
tests_unit_test_parse_SOURCES = %reldir%/unit/test-parse.c %reldir%/unit/tap.h \
	dtracer/parse.c dtracer/parse.h
tests_unit_test_parse_CPPFLAGS = -I$(srcdir)/dtracer
tests_unit_test_ranges_SOURCES = %reldir%/unit/test-ranges.c %reldir%/unit/tap.h \
	%reldir%/unit/kernel-types.h dtracer/ranges.c dtracer/ranges.h
tests_unit_test_ranges_CPPFLAGS = -I$(srcdir)/dtracer -I$(srcdir)/tests/unit
tests_unit_test_interim_SOURCES = %reldir%/unit/test-interim.c %reldir%/unit/tap.h \
	%reldir%/unit/kernel-types.h dtracer/interim.c dtracer/interim.h \
	dtracer/frames.h
tests_unit_test_interim_CPPFLAGS = -I$(srcdir)/dtracer -I$(srcdir)/tests/unit
tests_unit_test_frames_SOURCES = %reldir%/unit/test-frames.c %reldir%/unit/tap.h \
	%reldir%/unit/kernel-types.h dtracer/frames.c dtracer/frames.h
tests_unit_test_frames_CPPFLAGS = -I$(srcdir)/dtracer -I$(srcdir)/tests/unit
tests_unit_test_order_SOURCES = %reldir%/unit/test-order.c %reldir%/unit/tap.h \
	%reldir%/unit/kernel-types.h dtracer/order.c dtracer/order.h \
	dtracer/interim.h
tests_unit_test_order_CPPFLAGS = -I$(srcdir)/dtracer -I$(srcdir)/tests/unit
tests_tools_dt_tcp_SOURCES = %reldir%/tools/dt-tcp.c
tests_tools_dt_tcp_CPPFLAGS = -D_DEFAULT_SOURCE
tests_tools_dt_tcp_LDADD = -lpthread
tests_tools_dt_sample_SOURCES = %reldir%/tools/dt-sample.c
tests_tools_dt_sample_CPPFLAGS = -D_DEFAULT_SOURCE
tests_tools_dt_httpd_SOURCES = %reldir%/tools/dt-httpd.c
tests_tools_dt_httpd_CPPFLAGS = -D_GNU_SOURCE
tests_tools_dt_httpd_LDADD = -lpthread
tests_tools_dt_uring_SOURCES = %reldir%/tools/dt-uring.c
tests_tools_dt_uring_CPPFLAGS = -D_GNU_SOURCE
tests_tools_dt_uring_CFLAGS = $(AM_CFLAGS) $(LIBURING_CFLAGS)
tests_tools_dt_uring_LDADD = $(LIBURING_LIBS)
tests_tools_dt_crowd_SOURCES = %reldir%/tools/dt-crowd.c
tests_tools_dt_crowd_CPPFLAGS = -D_DEFAULT_SOURCE
tests_tools_dt_crowd_LDADD = -lpthread
tests_tools_dt_inject_SOURCES = %reldir%/tools/dt-inject.c
tests_tools_dt_inject_CPPFLAGS = -D_DEFAULT_SOURCE
tests_tools_dt_pcap_SOURCES = %reldir%/tools/dt-pcap.c
tests_tools_dt_pcap_CPPFLAGS = -D_DEFAULT_SOURCE
tests_tools_dt_pcap_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
tests_tools_dt_pcap_LDADD = $(PCAP_LIBS)

# Build tests run on this machine; the others boot QEMU guests
# (configure --disable-vm-tests leaves them out).
build_tests = \
	%reldir%/build/t-fork-build.sh \
	%reldir%/build/t-checkpatch.sh \
	%reldir%/build/t-configure.sh \
	%reldir%/build/t-install.sh \
	%reldir%/build/t-limits.sh \
	%reldir%/build/t-docs.sh \
	%reldir%/build/t-names.sh
kernel_tests = \
	%reldir%/kernel/t-lttng-fork.sh \
	%reldir%/kernel/t-dtracer-skeleton.sh \
	%reldir%/kernel/t-control.sh \
	%reldir%/kernel/t-mark.sh \
	%reldir%/kernel/t-trust.sh \
	%reldir%/kernel/t-chain.sh \
	%reldir%/kernel/t-fidelity.sh \
	%reldir%/kernel/t-gate.sh \
	%reldir%/kernel/t-events.sh \
	%reldir%/kernel/t-churn.sh \
	%reldir%/kernel/t-stress.sh \
	%reldir%/collector/t-view.sh \
	%reldir%/collector/t-collect.sh \
	%reldir%/collector/t-flight.sh \
	%reldir%/collector/t-live.sh \
	%reldir%/demo/t-demo.sh \
	%reldir%/kernel/t-lan.sh \
	%reldir%/kernel/t-harness.sh

TESTS = $(unit_tests) $(build_tests)
if VM_TESTS
TESTS += $(kernel_tests)
endif
EXTRA_DIST += $(build_tests) $(kernel_tests) \
	%reldir%/kernel/guest-lttng-fork.sh \
	%reldir%/kernel/guest-dtracer-skeleton.sh \
	%reldir%/kernel/guest-control.sh \
	%reldir%/kernel/guest-mark.sh \
	%reldir%/kernel/guest-trust.sh \
	%reldir%/kernel/guest-chain.sh \
	%reldir%/kernel/guest-fidelity.sh \
	%reldir%/kernel/guest-churn.sh \
	%reldir%/kernel/guest-stress.sh \
	%reldir%/kernel/guest-gate.sh %reldir%/kernel/gate-trace.sh \
	%reldir%/kernel/guest-events.sh \
	%reldir%/kernel/dt-events.awk \
	%reldir%/collector/guest-collect.sh %reldir%/collector/causality.awk \
	%reldir%/collector/merge-input.sh %reldir%/collector/requests-check.sh \
	%reldir%/collector/browser.sh %reldir%/collector/guest-flight.sh \
	%reldir%/collector/guest-live.sh \
	%reldir%/collector/guest-reattach.sh %reldir%/collector/reattach-repro.sh \
	%reldir%/kernel/guest-lan.sh \
	%reldir%/kernel/guest-harness.sh \
	%reldir%/kernel/guest-harness-own.sh \
	%reldir%/limit.sh %reldir%/times-lib.sh %reldir%/driver.sh %reldir%/lanes.sh \
	%reldir%/vm/vm.sh %reldir%/vm/tap.sh %reldir%/vm/guest-lib.sh \
	%reldir%/vm/guest-init.sh %reldir%/vm/initramfs-init \
	%reldir%/vm/mkinitramfs.sh %reldir%/vm/mkmodtree.sh \
	%reldir%/vm/config.sh.in
# Appended by t-view.sh to a copy of a view page: drives its handlers.
EXTRA_DIST += %reldir%/collector/view-selftest.js %reldir%/tools/dt-evloop.js %reldir%/tools/dt-aiomid.py %reldir%/tools/dt-pymid.py %reldir%/tools/dt-wsgi.py %reldir%/tools/dt-fpm.php %reldir%/tools/dt-grpc.py \
	%reldir%/tools/dt-gomid.go %reldir%/tools/dt-grpcgo.go %reldir%/tools/dt-javamid.java
# The events' fields as probes/events/dtracer.h declares them (t-docs,
# t-names).
EXTRA_DIST += %reldir%/build/event-fields.awk
