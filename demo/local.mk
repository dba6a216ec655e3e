# Included by Makefile.am (non-recursive): the main job, make demo.
# ----------------------------------------------------------------------
# The main job
# ----------------------------------------------------------------------
EXTRA_DIST += %reldir%/demo.sh %reldir%/guest-demo.sh %reldir%/nginx.conf %reldir%/get-nginx.sh
# The demo's reverse proxy: Debian's nginx unpacked for the guests (never
# installed here).
$(VM_BUILD)/nginx.stamp: $(srcdir)/demo/get-nginx.sh
	@$(MKDIR_P) $(VM_BUILD)
	$(AM_V_GEN)$(SHELL) $(srcdir)/demo/get-nginx.sh $(abs_builddir)/$(VM_BUILD)/nginx \
		$(abs_srcdir)/lttng-modules/apt-download.sh
	@touch $@
# make demo DEMO_SUITE=trixie: the guests boot Debian 13's kernel and
# root (what make check-kernel builds, tests/vm/build-trixie/, first);
# DEMO_SUITE_HOSTS='dt-proxy ...' only those, the others Debian 12's.
DEMO_SUITE =
DEMO_SUITE_HOSTS =
demo: all tests/vm/config.sh $(vm_data) tests/tools/dt-tcp \
		$(DEMO_SUITE:%=tests/vm/build-%/built.stamp)
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		DT_DEMO_SUITE='$(DEMO_SUITE)' DT_DEMO_SUITE_HOSTS='$(DEMO_SUITE_HOSTS)' \
		$(SHELL) $(srcdir)/demo/demo.sh
