// SPDX-License-Identifier: GPL-2.0
/*
 * Runtimes' functions probed in user space (uprobes.h): the files a user
 * registered for a runtime, and their uprobes, on while dtracer's probe
 * is armed. A file's probes go on all or none.
 *
 * sysfs (one file per runtime, named by struct dt_uprobes' what):
 * "PATH OFFSET..." registers a file (one non-zero file offset per
 * function, in the runtime's order), "-PATH" removes it, "clear" all.
 * The probes go on at once if the probe is armed; nothing is
 * half-applied. Read: "PATH OFFSET... armed|off" per file.
 *
 * Locking: a runtime's mutex guards its files and arming; it comes after
 * state.c's dt_probe_lock (arming registers uprobes under it), and
 * registering sleeps. The handlers run in the probed thread's own
 * context, preemptible.
 */
#include "dtracer.h"
#include "uprobes.h"

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/string.h>

/* Under u's mutex: f's uprobes off (the first n of them). */
static void dt_uprobes_off(struct dt_uprobes *u, struct dt_uprobe_file *f,
			   unsigned int n)
{
	struct inode *inode = d_inode(f->path.dentry);
	unsigned int i;

	lockdep_assert_held(&u->mutex);
	for (i = 0; i < n; i++) {
#ifdef DT_HAVE_UPROBE_UNREGISTER_NOSYNC
		uprobe_unregister_nosync(f->up[i], &f->uc[i]);
#else
		uprobe_unregister(inode, f->off[i], &f->uc[i]);
#endif
	}
#ifdef DT_HAVE_UPROBE_UNREGISTER_NOSYNC
	if (n)
		uprobe_unregister_sync();
#endif
	(void)inode;
}

/* Under u's mutex: f's uprobes on, all or none. */
static int dt_uprobes_on(struct dt_uprobes *u, struct dt_uprobe_file *f)
{
	struct inode *inode = d_inode(f->path.dentry);
	unsigned int i;
	int ret = 0;

	lockdep_assert_held(&u->mutex);
	for (i = 0; i < u->nfns; i++) {
		memset(&f->uc[i], 0, sizeof(f->uc[i]));
		f->uc[i].handler = u->fns[i].handler;
		f->uc[i].ret_handler = u->fns[i].ret_handler;
#ifdef DT_HAVE_UPROBE_UNREGISTER_NOSYNC
		f->up[i] = uprobe_register(inode, f->off[i], 0, &f->uc[i]);
		ret = PTR_ERR_OR_ZERO(f->up[i]);
#else
		ret = uprobe_register(inode, f->off[i], &f->uc[i]);
#endif
		if (ret) {
			pr_warn("%s: uprobe on %s at %#llx: error %d\n",
				u->what, u->fns[i].name,
				(unsigned long long)f->off[i], ret);
			dt_uprobes_off(u, f, i);
			return ret;
		}
	}
	f->armed = true;
	return 0;
}

/* Under u's mutex: u->live says whether some file's probes are on. */
static void dt_uprobes_live_update(struct dt_uprobes *u)
{
	bool live = false;
	int i;

	lockdep_assert_held(&u->mutex);
	for (i = 0; i < DT_UPROBE_FILES; i++)
		live |= u->files[i].armed;
	WRITE_ONCE(u->live, live);
}

/* state.c: the uprobes follow the probe (armed: on, disarmed: off). */
int dt_uprobes_arm(struct dt_uprobes *u)
{
	int i, ret = 0;

	mutex_lock(&u->mutex);
	u->on = true;
	for (i = 0; i < DT_UPROBE_FILES && !ret; i++)
		if (u->files[i].used && !u->files[i].armed)
			ret = dt_uprobes_on(u, &u->files[i]);
	dt_uprobes_live_update(u);
	mutex_unlock(&u->mutex);
	if (ret)
		dt_uprobes_disarm(u);
	return ret;
}

void dt_uprobes_disarm(struct dt_uprobes *u)
{
	int i;

	mutex_lock(&u->mutex);
	u->on = false;
	for (i = 0; i < DT_UPROBE_FILES; i++)
		if (u->files[i].armed) {
			dt_uprobes_off(u, &u->files[i], u->nfns);
			u->files[i].armed = false;
		}
	dt_uprobes_live_update(u);
	u->forget();
	mutex_unlock(&u->mutex);
}

static int dt_uprobes_add(struct dt_uprobes *u, const char *path,
			  const u64 *off)
{
	struct dt_uprobe_file *f = NULL;
	struct path p;
	unsigned int k;
	int i, ret;

	ret = kern_path(path, LOOKUP_FOLLOW, &p);
	if (ret)
		return ret;
	if (!d_is_reg(p.dentry)) {
		path_put(&p);
		return -EINVAL;
	}
	mutex_lock(&u->mutex);
	for (i = 0; i < DT_UPROBE_FILES; i++) {
		if (u->files[i].used &&
		    d_inode(u->files[i].path.dentry) == d_inode(p.dentry)) {
			ret = -EEXIST;
			goto out;
		}
		if (!f && !u->files[i].used)
			f = &u->files[i];
	}
	if (!f) {
		ret = -ENOSPC;
		goto out;
	}
	f->path = p;
	for (k = 0; k < u->nfns; k++)
		f->off[k] = off[k];
	f->armed = false;
	ret = u->on ? dt_uprobes_on(u, f) : 0;
	if (!ret) {
		f->used = true;
		p.dentry = NULL;
	}
	dt_uprobes_live_update(u);
out:
	mutex_unlock(&u->mutex);
	if (p.dentry)
		path_put(&p);
	return ret;
}

static void dt_uprobes_drop(struct dt_uprobes *u, struct dt_uprobe_file *f)
{
	lockdep_assert_held(&u->mutex);
	if (f->armed)
		dt_uprobes_off(u, f, u->nfns);
	path_put(&f->path);
	memset(f, 0, sizeof(*f));
}

static int dt_uprobes_remove(struct dt_uprobes *u, const char *path)
{
	struct path p;
	int i, ret, left;

	ret = kern_path(path, LOOKUP_FOLLOW, &p);
	if (ret)
		return ret;
	ret = -ENOENT;
	left = 0;
	mutex_lock(&u->mutex);
	for (i = 0; i < DT_UPROBE_FILES; i++) {
		if (u->files[i].used &&
		    d_inode(u->files[i].path.dentry) == d_inode(p.dentry)) {
			dt_uprobes_drop(u, &u->files[i]);
			ret = 0;
		}
		left += u->files[i].used;
	}
	dt_uprobes_live_update(u);
	/* The last one gone: no probe runs, what they kept is dropped. */
	if (!ret && !left)
		u->forget();
	mutex_unlock(&u->mutex);
	path_put(&p);
	return ret;
}

void dt_uprobes_clear(struct dt_uprobes *u)
{
	int i;

	mutex_lock(&u->mutex);
	for (i = 0; i < DT_UPROBE_FILES; i++)
		if (u->files[i].used)
			dt_uprobes_drop(u, &u->files[i]);
	dt_uprobes_live_update(u);
	u->forget();
	mutex_unlock(&u->mutex);
}

int dt_uprobes_set(struct dt_uprobes *u, const char *buf, size_t len)
{
	u64 off[DT_UPROBE_FNS];
	char *s, *path, *tok, *rest;
	unsigned int i;
	int ret;

	s = kstrndup(buf, len, GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	rest = strim(s);
	ret = -EINVAL;
	if (!strcmp(rest, "clear")) {
		dt_uprobes_clear(u);
		ret = 0;
	} else if (rest[0] == '-' && rest[1] == '/' && !strpbrk(rest, " \t\n")) {
		ret = dt_uprobes_remove(u, rest + 1);
	} else if (rest[0] == '/') {
		path = strsep(&rest, " \t");
		for (i = 0; i < u->nfns; i++) {
			do {
				tok = strsep(&rest, " \t");
			} while (tok && !*tok);
			if (!tok || kstrtou64(tok, 0, &off[i]) || !off[i])
				goto out;
		}
		if (rest && *skip_spaces(rest))
			goto out;
		ret = dt_uprobes_add(u, path, off);
	}
out:
	kfree(s);
	return ret;
}

ssize_t dt_uprobes_show(struct dt_uprobes *u, char *buf)
{
	ssize_t n = 0;
	char *tmp, *name;
	unsigned int k;
	int i;

	tmp = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!tmp)
		return -ENOMEM;
	mutex_lock(&u->mutex);
	for (i = 0; i < DT_UPROBE_FILES; i++) {
		struct dt_uprobe_file *f = &u->files[i];

		if (!f->used)
			continue;
		name = d_path(&f->path, tmp, PATH_MAX);
		if (IS_ERR(name))
			name = "?";
		n += scnprintf(buf + n, PAGE_SIZE - n, "%s", name);
		for (k = 0; k < u->nfns; k++)
			n += scnprintf(buf + n, PAGE_SIZE - n, " %#llx",
				       (unsigned long long)f->off[k]);
		n += scnprintf(buf + n, PAGE_SIZE - n, " %s\n",
			       f->armed ? "armed" : "off");
	}
	mutex_unlock(&u->mutex);
	kfree(tmp);
	return n;
}
