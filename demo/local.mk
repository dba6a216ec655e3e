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
demo: all tests/vm/config.sh $(vm_data) tests/tools/dt-tcp
	DT_SRCDIR='$(abs_top_srcdir)' DT_BUILDDIR='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/demo/demo.sh
