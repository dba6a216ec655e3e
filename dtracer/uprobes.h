/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runtimes' functions probed in user space (uprobes.c): a set of
 * functions a runtime's file has (Go's scheduler in a Go binary,
 * CPython's SimpleQueue in its _queue module), registered per file by
 * a user as its path and the functions' file offsets (the dtracer
 * command finds them), probed while dtracer's probe is armed. One
 * struct dt_uprobes per runtime (goroutines.c, pyqueue.c), which keeps
 * the files registered and their probes; the runtime's file only says
 * what its handlers do.
 */
#ifndef DT_UPROBES_H
#define DT_UPROBES_H

#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/path.h>
#include <linux/uprobes.h>

#define DT_UPROBE_FILES 4	/* files registered per runtime */
#define DT_UPROBE_FNS 9		/* functions probed per file, at most */

struct dt_uprobe_fn {
	const char *name;	/* for messages */
	int (*handler)(struct uprobe_consumer *uc, struct pt_regs *regs);
	/* Or, on the function's return: */
	int (*ret_handler)(struct uprobe_consumer *uc, unsigned long func,
			   struct pt_regs *regs);
};

struct dt_uprobe_file {
	bool used;
	bool armed;
	struct path path;
	loff_t off[DT_UPROBE_FNS];
	struct uprobe_consumer uc[DT_UPROBE_FNS];
#ifdef DT_HAVE_UPROBE_UNREGISTER_NOSYNC
	struct uprobe *up[DT_UPROBE_FNS];
#endif
};

struct dt_uprobes {
	const char *what;		/* the sysfs file's name */
	const struct dt_uprobe_fn *fns;
	unsigned int nfns;
	/* Under mutex: what the probes kept is dropped (none runs now). */
	void (*forget)(void);
	struct mutex mutex;		/* the files, arming */
	bool on;			/* armed (under mutex) */
	/* Some file's probes are on (written under mutex, read anywhere). */
	bool live;
	struct dt_uprobe_file files[DT_UPROBE_FILES];
};

int dt_uprobes_arm(struct dt_uprobes *u);
void dt_uprobes_disarm(struct dt_uprobes *u);
void dt_uprobes_clear(struct dt_uprobes *u);
int dt_uprobes_set(struct dt_uprobes *u, const char *buf, size_t len);
ssize_t dt_uprobes_show(struct dt_uprobes *u, char *buf);

static inline bool dt_uprobes_live(const struct dt_uprobes *u)
{
	return READ_ONCE(u->live);
}

#endif /* DT_UPROBES_H */
