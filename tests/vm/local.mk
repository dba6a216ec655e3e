# Included by Makefile.am (non-recursive): what the guests boot, and
# make check-debug.
# What the guests boot: an initramfs, and a module tree holding the
# kernel's modules plus ours with a modules.dep made here (depmod in a
# guest under TCG takes a minute).
VM_BUILD = %reldir%/build
vm_data = $(VM_BUILD)/initramfs.cpio.gz $(VM_BUILD)/modtree.stamp \
	$(VM_BUILD)/nginx.stamp $(VM_BUILD)/redis.stamp $(VM_BUILD)/gunicorn.stamp \
	$(VM_BUILD)/php.stamp $(VM_BUILD)/grpc.stamp $(VM_BUILD)/nghttpx.stamp \
	$(VM_BUILD)/dt-gomid $(VM_BUILD)/dt-grpcgo
check_DATA += %reldir%/config.sh
if VM_TESTS
check_DATA += $(vm_data)
endif

$(VM_BUILD)/initramfs.cpio.gz: $(srcdir)/tests/vm/mkinitramfs.sh \
		$(srcdir)/tests/vm/initramfs-init
	@$(MKDIR_P) $(VM_BUILD)
	$(AM_V_GEN)$(SHELL) $(srcdir)/tests/vm/mkinitramfs.sh $@ \
		'$(KERNEL_RELEASE)' '$(KERNEL_MODULES)' '$(BUSYBOX)' \
		$(srcdir)/tests/vm/initramfs-init

# t-fidelity's event-loop store: Debian's Redis unpacked for the guests
# (never installed here).
EXTRA_DIST += %reldir%/get-redis.sh %reldir%/debs-lib.sh
$(VM_BUILD)/redis.stamp: $(srcdir)/tests/vm/get-redis.sh \
		$(srcdir)/tests/vm/debs-lib.sh
	@$(MKDIR_P) $(VM_BUILD)
	$(AM_V_GEN)$(SHELL) $(srcdir)/tests/vm/get-redis.sh \
		$(abs_builddir)/$(VM_BUILD)/redis \
		$(abs_srcdir)/lttng-modules/apt-download.sh
	@touch $@

# t-fidelity's WSGI server behind nginx (over a UNIX socket and over
# TCP): Debian's gunicorn unpacked for the guests (never installed here).
EXTRA_DIST += %reldir%/get-gunicorn.sh
$(VM_BUILD)/gunicorn.stamp: $(srcdir)/tests/vm/get-gunicorn.sh \
		$(srcdir)/tests/vm/debs-lib.sh
	@$(MKDIR_P) $(VM_BUILD)
	$(AM_V_GEN)$(SHELL) $(srcdir)/tests/vm/get-gunicorn.sh \
		$(abs_builddir)/$(VM_BUILD)/gunicorn \
		$(abs_srcdir)/lttng-modules/apt-download.sh
	@touch $@

# ... and its FastCGI server: Debian's php-fpm unpacked for the guests.
EXTRA_DIST += %reldir%/get-php.sh
$(VM_BUILD)/php.stamp: $(srcdir)/tests/vm/get-php.sh \
		$(srcdir)/tests/vm/debs-lib.sh
	@$(MKDIR_P) $(VM_BUILD)
	$(AM_V_GEN)$(SHELL) $(srcdir)/tests/vm/get-php.sh \
		$(abs_builddir)/$(VM_BUILD)/php \
		$(abs_srcdir)/lttng-modules/apt-download.sh
	@touch $@

# ... and its gRPC server's runtime: Debian's python3-grpcio unpacked
# for the guests.
EXTRA_DIST += %reldir%/get-grpc.sh
$(VM_BUILD)/grpc.stamp: $(srcdir)/tests/vm/get-grpc.sh \
		$(srcdir)/tests/vm/debs-lib.sh
	@$(MKDIR_P) $(VM_BUILD)
	$(AM_V_GEN)$(SHELL) $(srcdir)/tests/vm/get-grpc.sh \
		$(abs_builddir)/$(VM_BUILD)/grpc \
		$(abs_srcdir)/lttng-modules/apt-download.sh
	@touch $@

# ... and its HTTP/2 proxy: Debian's nghttpx unpacked for the guests.
EXTRA_DIST += %reldir%/get-nghttpx.sh
$(VM_BUILD)/nghttpx.stamp: $(srcdir)/tests/vm/get-nghttpx.sh \
		$(srcdir)/tests/vm/debs-lib.sh
	@$(MKDIR_P) $(VM_BUILD)
	$(AM_V_GEN)$(SHELL) $(srcdir)/tests/vm/get-nghttpx.sh \
		$(abs_builddir)/$(VM_BUILD)/nghttpx \
		$(abs_srcdir)/lttng-modules/apt-download.sh
	@touch $@

# A Go program: bench/fidelity.sh's middle tier, and t-control's program
# under `dtracer go`'s uprobes; built with Debian's golang-go (no module:
# the standard library only; the build cache in the build tree).
$(VM_BUILD)/dt-gomid: $(srcdir)/tests/tools/dt-gomid.go
	@$(MKDIR_P) $(VM_BUILD)
	@command -v go > /dev/null || { echo "dt-gomid: no go command: apt-get install golang-go" >&2; exit 1; }
	$(AM_V_GEN)GOCACHE=$(abs_builddir)/$(VM_BUILD)/gocache GO111MODULE=off \
		GOFLAGS= go build -o $@ $(srcdir)/tests/tools/dt-gomid.go

# t-fidelity's gRPC server in Go: grpc-go from the unpacked -dev packages
# (a GOPATH, no module).
$(VM_BUILD)/dt-grpcgo: $(srcdir)/tests/tools/dt-grpcgo.go $(VM_BUILD)/grpc.stamp
	@command -v go > /dev/null || { echo "dt-grpcgo: no go command: apt-get install golang-go" >&2; exit 1; }
	$(AM_V_GEN)GOCACHE=$(abs_builddir)/$(VM_BUILD)/gocache GO111MODULE=off \
		GOPATH=$(abs_builddir)/$(VM_BUILD)/grpc/usr/share/gocode \
		GOFLAGS= go build -o $@ $(srcdir)/tests/tools/dt-grpcgo.go

$(VM_BUILD)/modtree.stamp: $(srcdir)/tests/vm/mkmodtree.sh \
		dtracer/dtracer.ko probes/lttng-probe-dtracer.ko \
		$(LM_WORK)/built.stamp
	@$(MKDIR_P) $(VM_BUILD)
	$(AM_V_GEN)$(SHELL) $(srcdir)/tests/vm/mkmodtree.sh \
		$(VM_BUILD)/modules '$(KERNEL_RELEASE)' '$(KERNEL_MODULES)' \
		dtracer/dtracer.ko probes/lttng-probe-dtracer.ko $(LM_WORK)/src
	@touch $@

# ----------------------------------------------------------------------
# make check-debug (not part of make check, nor of CI: the kernel takes
# about 25 minutes the first time, the tests about three hours): the
# kernel tests on a debug kernel, Debian's linux-source of the same
# version with KASAN, lockdep, kmemleak and
# DEBUG_ATOMIC_SLEEP (%reldir%/debug-kernel.config), built by
# scripts/debug-kernel.sh at nice 19 into DT_DEBUG_KERNEL_CACHE (default
# /var/cache/dtracer/debug-kernel, outside the clone, reused while the
# source version and the fragment stay the same). %reldir%/check-debug.sh
# builds dtracer.ko, the fork and lttng-probe-dtracer.ko against that
# tree into %reldir%/build-debug/ (the normal build and %reldir%/build/
# are left alone) and runs the tests there; any kernel report fails
# (vm.sh's vm_log_problems with DT_VM_DEBUG=1). The script skips
# t-view.sh, which boots no guest.
# ----------------------------------------------------------------------
EXTRA_DIST += %reldir%/debug-kernel.config \
	%reldir%/check-debug.sh
check-debug: %reldir%/config.sh $(check_PROGRAMS) $(bin_PROGRAMS) \
		$(bt2plugin_LTLIBRARIES) $(VM_BUILD)/nginx.stamp \
		$(VM_BUILD)/redis.stamp $(VM_BUILD)/gunicorn.stamp \
		$(VM_BUILD)/php.stamp $(VM_BUILD)/grpc.stamp \
		$(VM_BUILD)/nghttpx.stamp
	$(SHELL) $(srcdir)/scripts/debug-kernel.sh '$(KERNEL_HEADERS_PKG)'
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		BUSYBOX='$(BUSYBOX)' $(SHELL) $(srcdir)/tests/vm/check-debug.sh \
		build $(dtracer_sources) $(probes_sources)
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/tests/vm/check-debug.sh run \
		$(DEBUG_TESTS)
# make check-debug DEBUG_TESTS='tests/kernel/t-control.sh ...': a subset.
DEBUG_TESTS = $(kernel_tests)
# make check-debug-safety: the subset that shows a production host's
# safety (docs/architecture.md, "Debug kernel", has its runs): the tests
# of the wake-up path (t-fidelity's nginx, pool and mixed phases: the
# hand-offs; its UNIX socket phase: unix.c's kprobes; its TLS phase: interim.c, a server write's head copied in a kretprobe;
# its HTTP/2 phase: h2.c's kprobe and frame headers copied in a
# tracepoint, early.c), the marks, the chain and the hostile peers on the debug
# kernel (lockdep with PROVE_RAW_LOCK_NESTING, KASAN, kmemleak), then
# the fault-injection pass: t-chain and t-trust with dtracer's
# allocations that cannot sleep failing 10% of the time
# (DT_VM_FAIL_ALLOC; judged by the kernel's reports, not the tests'
# own checks).
DEBUG_SAFETY_TESTS = tests/kernel/t-fidelity.sh tests/kernel/t-chain.sh \
	tests/kernel/t-mark.sh tests/kernel/t-trust.sh
DEBUG_FAULT_TESTS = tests/kernel/t-chain.sh tests/kernel/t-trust.sh
check-debug-safety:
	DT_FIDELITY_PHASES='1 5 6 11 12 13' DT_VM_PASS='DT_FIDELITY_PHASES' \
		$(MAKE) $(AM_MAKEFLAGS) check-debug DEBUG_TESTS='$(DEBUG_SAFETY_TESTS)'
	DT_VM_FAIL_ALLOC=10 $(MAKE) $(AM_MAKEFLAGS) check-debug \
		DEBUG_TESTS='$(DEBUG_FAULT_TESTS)'
clean-check-debug:
	-rm -rf %reldir%/build-debug
.PHONY: check-debug check-debug-safety clean-check-debug

# ----------------------------------------------------------------------
# make check-kernel [DEBIAN_SUITE=trixie] [SUITE_TESTS='tests/kernel/t-mark.sh ...']:
# the kernel tests on another Debian release's kernel and user space
# (Debian 13 beside this machine's Debian 12). scripts/debian-root.sh
# makes that release's root file system once (debootstrap, its kernel
# unpacked beside it) in %reldir%/build/SUITE; %reldir%/check-kernel.sh
# builds the fork of that release's lttng-modules, dtracer.ko and
# lttng-probe-dtracer.ko inside it (its compiler, its kbuild) into
# %reldir%/build-SUITE/ and runs the tests with guests that boot that
# kernel on that root. The normal build and %reldir%/build/ are left alone.
# ----------------------------------------------------------------------
EXTRA_DIST += %reldir%/check-kernel.sh %reldir%/t-release.sh \
	%reldir%/t-release-build.sh %reldir%/release-lib.sh %reldir%/shadow-tree.sh
DEBIAN_SUITE = trixie
SUITE_TESTS = $(kernel_tests)
$(VM_BUILD)/$(DEBIAN_SUITE)/stamp: $(srcdir)/scripts/debian-root.sh
	@$(MKDIR_P) $(VM_BUILD)
	$(AM_V_GEN)$(SHELL) $(srcdir)/scripts/debian-root.sh $(DEBIAN_SUITE) \
		$(abs_builddir)/$(VM_BUILD)/$(DEBIAN_SUITE)
# What the other release's guests boot: this source built in its root
# (the fork, dtracer.ko, the probe module: tests/vm/check-kernel.sh),
# their module tree and initramfs, the shadow build folder. Made again
# when the kernel's side changes; t-release-build.sh's make check builds
# the tree again first if anything else did.
SUITE_BUILD = %reldir%/build-$(DEBIAN_SUITE)
$(SUITE_BUILD)/built.stamp: $(VM_BUILD)/$(DEBIAN_SUITE)/stamp \
		$(srcdir)/tests/vm/check-kernel.sh $(srcdir)/tests/vm/shadow-tree.sh \
		$(srcdir)/tests/vm/mkmodtree.sh \
		$(srcdir)/tests/vm/mkinitramfs.sh $(srcdir)/tests/vm/initramfs-init \
		$(dtracer_sources:%=$(srcdir)/%) $(probes_sources:%=$(srcdir)/%) \
		$(srcdir)/lttng-modules/releases $(srcdir)/lttng-modules/SHA256SUMS \
		$(srcdir)/lttng-modules/prepare.sh $(srcdir)/lttng-modules/patches/series \
		$(lttng_patches:%=$(srcdir)/lttng-modules/patches/%) \
		$(lttng_version_patches:%=$(srcdir)/lttng-modules/patches/%) \
		%reldir%/config.sh
	$(AM_V_GEN)DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		DT_SUITE='$(DEBIAN_SUITE)' BUSYBOX='$(BUSYBOX)' \
		$(SHELL) $(srcdir)/tests/vm/check-kernel.sh build
	@touch $@
if VM_TESTS
check_DATA += $(SUITE_BUILD)/built.stamp
TESTS += %reldir%/t-release.sh %reldir%/t-release-build.sh
# scripts/dev.sh check makes the root while the main build runs (the
# root is mostly downloads and unpacking), then times the rest of this
# part on its own (make check would build it anyway).
check-suite-root: $(VM_BUILD)/$(DEBIAN_SUITE)/stamp
check-suite-build: $(SUITE_BUILD)/built.stamp
else
check-suite-root:
check-suite-build:
endif
.PHONY: check-suite-root check-suite-build
# make check's part on that release (tests/vm/t-release.sh): the tests
# that matter most (make check-kernel runs them all), then the mixed
# runs: TEST:GUEST,... with those guests on that release, the others on
# this build's (a Debian 12 and a Debian 13 host in one request). The
# demo runs mixed only (nginx and the collector on Debian 13): curl's
# and python3's roles are t-chain's client and server there, and make
# check-kernel runs the demo all on Debian 13. The gate's test is make
# check-kernel's only; the gate benchmark (bench/gate.sh) measures it on
# both kernels. Debian 13 as the build machine (INSTALL_TESTS) is
# t-release-build.sh's, which boots no guest.
RELEASE_TESTS = tests/kernel/t-chain.sh tests/kernel/t-events.sh
MIXED_TESTS = tests/kernel/t-chain.sh:dt-b \
	tests/demo/t-demo.sh:dt-proxy,dt-collector
# ... and that release as the build machine: these tests run by make
# check in a tree configured and built inside its root.
INSTALL_TESTS = tests/build/t-install.sh
AM_TESTS_ENVIRONMENT += DT_SUITE='$(DEBIAN_SUITE)' \
	DT_RELEASE_TESTS='$(RELEASE_TESTS)' DT_MIXED_TESTS='$(MIXED_TESTS)' \
	DT_INSTALL_TESTS='$(INSTALL_TESTS)'; \
	export DT_SUITE DT_RELEASE_TESTS DT_MIXED_TESTS DT_INSTALL_TESTS;
check-kernel: %reldir%/config.sh $(check_PROGRAMS) $(bin_PROGRAMS) \
		$(bt2plugin_LTLIBRARIES) $(VM_BUILD)/nginx.stamp \
		$(VM_BUILD)/redis.stamp $(VM_BUILD)/gunicorn.stamp \
		$(VM_BUILD)/php.stamp $(VM_BUILD)/grpc.stamp \
		$(VM_BUILD)/nghttpx.stamp $(SUITE_BUILD)/built.stamp
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		DT_SUITE='$(DEBIAN_SUITE)' $(SHELL) $(srcdir)/tests/vm/check-kernel.sh \
		run $(SUITE_TESTS)
clean-check-kernel:
	-rm -rf $(SUITE_BUILD)
.PHONY: check-kernel clean-check-kernel

# ----------------------------------------------------------------------
# make check-lanes (scripts/dev.sh check, and so CI): the run's tests in
# two lanes side by side (tests/lanes.sh says how), each test still its
# own TAP test with its own result and time limit. The tests that boot
# two guests or more keep both cores busy: they run one after another
# (LANE_A; LANE_A_AFTER, Debian 13's guests, once lane B built what they
# boot). Beside them: Debian 13's build, LANE_B (t-release-build.sh),
# then make distcheck, whose tarball build runs the unit, build and fuzz
# tests (LANE_HOST) from a read-only source tree: they run there only.
# The others (one guest or none: at most one core each) are taken by
# whichever lane is done first. make check itself runs every test of
# this tree in one lane.
# ----------------------------------------------------------------------
LANE_A = tests/kernel/t-mark.sh tests/kernel/t-trust.sh \
	tests/kernel/t-chain.sh tests/kernel/t-fidelity.sh \
	tests/kernel/t-events.sh tests/kernel/t-churn.sh \
	tests/kernel/t-stress.sh tests/collector/t-collect.sh \
	tests/collector/t-flight.sh tests/collector/t-live.sh \
	tests/demo/t-demo.sh tests/kernel/t-lan.sh tests/kernel/t-harness.sh
LANE_A_AFTER = %reldir%/t-release.sh
LANE_B = %reldir%/t-release-build.sh
LANE_HOST = $(unit_tests) $(build_tests) $(fuzz_tests)
# What the lanes' tests use, made first on both cores: the test tools
# and check_DATA, less Debian 13's part (lane B's first step) and the
# unit tests and fuzz targets, which only distcheck's build runs
# (LANE_HOST) and so builds.
check-lanes: all-am
	@set -- ; for f in $(check_DATA); do \
		case " $(SUITE_BUILD)/built.stamp $(fuzz_bins) " in \
		*" $$f "*) ;; *) set -- "$$@" "$$f" ;; esac; \
	done; for p in $(check_PROGRAMS); do \
		case $$p in tests/tools/*) set -- "$$@" "$$p" ;; esac; \
	done; $(MAKE) $(AM_MAKEFLAGS) -j$$(nproc 2> /dev/null || echo 2) "$$@"
	@a= after= b= pool=; for t in $(TESTS); do \
		case " $(LANE_A) " in *" $$t "*) a="$$a $$t"; continue ;; esac; \
		case " $(LANE_A_AFTER) " in *" $$t "*) after="$$after $$t"; continue ;; esac; \
		case " $(LANE_B) " in *" $$t "*) b="$$b $$t"; continue ;; esac; \
		case " $(LANE_HOST) " in *" $$t "*) continue ;; esac; \
		pool="$$pool $$t"; \
	done; \
	MAKE='$(MAKE) $(AM_MAKEFLAGS)' LANE_A="$$a" LANE_A_AFTER="$$after" \
		LANE_B="$$b" LANE_POOL="$$pool" LANES_SRCDIR='$(srcdir)' \
		$(SHELL) $(srcdir)/tests/lanes.sh
.PHONY: check-lanes
CLEANFILES += tests/lane-a.log tests/lane-b.log tests/lane-a-after.log \
	tests/lane-pool-*.log
