# Included by Makefile.am (non-recursive): fuzzing and sanitizers.
# ----------------------------------------------------------------------
# Fuzzing and sanitizers (%reldir%/README). A libFuzzer target is
# %reldir%/NAME.c plus NAME in FUZZ_TARGETS (its seeds, if any, in
# %reldir%/corpus/NAME/). Targets link an archive of the code under
# test built with clang, coverage, ASan and UBSan: dtracer/parse.c itself
# and the collector's readers (the linker takes only what a target uses).
#   make check    t-fuzz: each target replays its corpus, then fuzzes
#                 briefly; t-corrupt: the commands on broken traces;
#                 t-sanitize: a gcc ASan/UBSan build of the userspace
#                 code, its unit tests and t-corrupt
#   make fuzz     every target for FUZZ_SECONDS (default 300)
# ----------------------------------------------------------------------
FUZZ_TARGETS = \
	fuzz-parse-switch \
	fuzz-parse-uint \
	fuzz-parse-tids \
	fuzz-parse-prefixes \
	fuzz-duration \
	fuzz-ctf-check \
	fuzz-retime \
	fuzz-sync \
	fuzz-requests \
	fuzz-interim \
	fuzz-frames
fuzz_lib_sources = dtracer/parse.c dtracer/interim.c dtracer/frames.c collector/cmd/options.c \
	collector/error.c collector/plugin/ctf-check.c \
	collector/sync/retime.c collector/sync/hull.c \
	collector/sync/segments.c collector/sync/sync.c $(collector_rq_c) \
	collector/export/view.c $(collector_export_c)
fuzz_bins = $(FUZZ_TARGETS:%=%reldir%/%)
FUZZ_SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = -std=c11 -Wall -Wextra -Werror -g -O1 -fno-omit-frame-pointer \
	$(FUZZ_SANITIZE) -I$(srcdir)/dtracer $(COLLECTOR_CPPFLAGS) \
	-I$(srcdir)/tests/fuzz -I$(srcdir)/tests/unit $(GLIB_CFLAGS) $(JSONC_CFLAGS)
FUZZ_LIBS = $(GLIB_LIBS) $(JSONC_LIBS) -lm
FUZZ_LIB = %reldir%/libfuzzed.a

$(FUZZ_LIB): $(fuzz_lib_sources:%=$(srcdir)/%) collector/export/view-page.h \
		$(wildcard $(srcdir)/collector/*.h $(srcdir)/collector/*/*.h) \
		$(srcdir)/dtracer/parse.h $(srcdir)/dtracer/interim.h \
		$(srcdir)/dtracer/frames.h
	@rm -rf %reldir%/obj && $(MKDIR_P) %reldir%/obj
	$(AM_V_GEN)for f in $(fuzz_lib_sources); do \
		$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c \
			-o %reldir%/obj/$$(echo "$$f" | tr / -).o \
			$(srcdir)/$$f || exit 1; \
	done; rm -f $@ && $(AR) rcs $@ %reldir%/obj/*.o
$(fuzz_bins): $(FUZZ_LIB) $(srcdir)/tests/fuzz/fuzz.h \
		$(FUZZ_TARGETS:%=$(srcdir)/tests/fuzz/%.c)
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ \
		$(srcdir)/$@.c $(FUZZ_LIB) $(FUZZ_LIBS)
CLEANFILES += $(fuzz_bins) $(FUZZ_LIB) %reldir%/obj/*.o
if FUZZ
check_DATA += $(fuzz_bins)
endif
fuzz: $(fuzz_bins)
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		DT_FUZZ_TARGETS='$(FUZZ_TARGETS)' \
		FUZZ_SECONDS='$(FUZZ_SECONDS)' \
		$(SHELL) $(srcdir)/tests/fuzz/fuzz.sh
.PHONY: fuzz

# The fixture trace the corrupt-trace tests break (%reldir%/ctf-fixture.c).
check_PROGRAMS += %reldir%/dt-ctf-fixture
tests_fuzz_dt_ctf_fixture_SOURCES = %reldir%/dt-ctf-fixture.c

fuzz_tests = %reldir%/t-fuzz.sh tests/collector/t-corrupt.sh \
	tests/build/t-sanitize.sh
TESTS += $(fuzz_tests)
AM_TESTS_ENVIRONMENT += DT_FUZZ_TARGETS='$(FUZZ_TARGETS)' \
	DT_FUZZ_MISSING='$(FUZZ_MISSING)'; \
	export DT_FUZZ_TARGETS DT_FUZZ_MISSING;
EXTRA_DIST += $(fuzz_tests) %reldir%/README %reldir%/fuzz.h \
	%reldir%/fuzz.sh %reldir%/corpus \
	$(FUZZ_TARGETS:%=%reldir%/%.c)
