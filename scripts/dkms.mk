# dtracer's DKMS build, run by DKMS from /usr/src/dtracer-VERSION/
# (dkms.conf: MAKE[0]): the fork of lttng-modules, dtracer.ko and
# lttng-probe-dtracer.ko for kernel KVER whose build directory is KDIR.
#
# The fork's kmem, kvm, btrfs, compaction, ext4 and regmap probes need a
# few kernel-internal headers: kernel-private/KVER/, shipped for the
# release `make install` built for, and for another release extracted
# by kernel-private.sh from Debian's linux-source of the headers'
# version (downloaded with apt-get, never installed).
# DKMS runs `make KERNELRELEASE=...`; to lttng-modules' Makefile a set
# KERNELRELEASE means "read by Kbuild", so it is not handed down.
MAKEOVERRIDES := $(filter-out KERNELRELEASE=%,$(MAKEOVERRIDES))
unexport KERNELRELEASE

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
PRIV := $(CURDIR)/kernel-private/$(KVER)

all: $(PRIV)/.version
	$(MAKE) -C $(CURDIR)/lttng-modules KERNELDIR=$(KDIR) \
		LTTNG_KERNEL_PRIVATE_DIR=$(PRIV) modules
	$(MAKE) -C $(KDIR) M=$(CURDIR)/dtracer modules
	$(MAKE) -C $(KDIR) M=$(CURDIR)/probes \
		LTTNG_SRC=$(CURDIR)/lttng-modules modules

$(PRIV)/.version:
	sh $(CURDIR)/kernel-private.sh $(PRIV) linux-headers-$(KVER)

clean:
	-$(MAKE) -C $(CURDIR)/lttng-modules KERNELDIR=$(KDIR) clean
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/dtracer clean
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/probes clean

.PHONY: all clean
