// SPDX-License-Identifier: GPL-2.0
/*
 * Manual flags: the threads root names in add_pid are clients (flagged for
 * no request of their own, whatever they read or write) until remove_pid
 * names them or they exit; list_pid prints the whole table. Thread ids
 * are the writer's (its pid namespace); a write flags or unflags all its
 * threads, or none and an errno.
 *
 * Locking: process context only (sysfs). The threads are found and
 * pinned (get_task_struct) and the entries allocated before
 * dt_flags_lock is taken; under it the table is checked and changed in
 * one go, through flags-int.h.
 */
#include "flags-int.h"

#include <linux/err.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>

static int dt_cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Sorts ids and drops repeated ones; returns the new count. */
static int dt_unique(int *ids, int n)
{
	int i, m = 0;

	sort(ids, n, sizeof(*ids), dt_cmp_int, NULL);
	for (i = 0; i < n; i++)
		if (!m || ids[m - 1] != ids[i])
			ids[m++] = ids[i];
	return m;
}

/* Takes a reference on the thread whose id (in the caller's namespace) is tid. */
static struct task_struct *dt_get_thread(int tid)
{
	struct task_struct *t;

	rcu_read_lock();
	t = pid_task(find_vpid(tid), PIDTYPE_PID);
	if (t)
		get_task_struct(t);
	rcu_read_unlock();
	return t;
}

static void dt_put_threads(struct task_struct **tasks, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (tasks[i])
			put_task_struct(tasks[i]);
	kfree(tasks);
}

/* References on every thread of ids, or -ESRCH if one names none. */
static struct task_struct **dt_get_threads(int *ids, int n)
{
	struct task_struct **tasks;
	int i;

	tasks = kcalloc(n, sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < n; i++) {
		tasks[i] = dt_get_thread(ids[i]);
		if (!tasks[i]) {
			dt_put_threads(tasks, n);
			return ERR_PTR(-ESRCH);
		}
	}
	return tasks;
}

/*
 * Under dt_flags_lock: may every one of tasks be flagged manually? All
 * alive, and room in the table for the new ones.
 */
static int dt_flags_add_check_locked(struct task_struct **tasks, int n)
{
	unsigned int need = 0;
	int i;

	lockdep_assert_held(&dt_flags_lock);
	for (i = 0; i < n; i++) {
		if (READ_ONCE(tasks[i]->flags) & PF_EXITING)
			return -ESRCH;
		if (!dt_flag_find(tasks[i]))
			need++;
	}
	if (!dt_flags_room_locked(need))
		return -ENOSPC;
	return 0;
}

/*
 * Flags the threads of ids (sorted and deduplicated in place) manually:
 * all of them, or none and an errno.
 */
int dt_flags_add(int *ids, int n)
{
	struct task_struct **tasks;
	struct dt_flag **fresh, *old;
	unsigned long irq;
	int i, ret;

	n = dt_unique(ids, n);
	tasks = dt_get_threads(ids, n);
	if (IS_ERR(tasks))
		return PTR_ERR(tasks);
	ret = -ENOMEM;
	fresh = kcalloc(n, sizeof(*fresh), GFP_KERNEL);
	if (!fresh)
		goto out_tasks;
	for (i = 0; i < n; i++) {
		fresh[i] = dt_mem_zalloc(DT_MEM_THREADS, sizeof(*fresh[i]),
					 GFP_KERNEL);
		if (!fresh[i])
			goto out_fresh;
		fresh[i]->task = tasks[i];
		fresh[i]->reason = DT_REASON_MANUAL;
	}

	spin_lock_irqsave(&dt_flags_lock, irq);
	ret = dt_flags_add_check_locked(tasks, n);
	for (i = 0; !ret && i < n; i++) {
		old = dt_flag_find(tasks[i]);
		if (old && old->reason == DT_REASON_MANUAL)
			continue;
		if (old)	/* now flagged by hand: only remove_pid ends it */
			dt_flag_replace_locked(old, fresh[i]);
		else
			dt_flag_insert_locked(fresh[i]);
		fresh[i] = NULL;
	}
	spin_unlock_irqrestore(&dt_flags_lock, irq);

out_fresh:
	for (i = 0; i < n; i++)
		dt_mem_free(DT_MEM_THREADS, fresh[i]);
	kfree(fresh);
out_tasks:
	dt_put_threads(tasks, n);
	return ret;
}

/*
 * Unflags the threads of ids (sorted and deduplicated in place): -ESRCH
 * and nothing changed if one names no thread. Threads that are not
 * flagged are left alone.
 */
int dt_flags_remove(int *ids, int n)
{
	struct task_struct **tasks;
	struct dt_flag *f;
	unsigned long irq;
	int i;

	n = dt_unique(ids, n);
	tasks = dt_get_threads(ids, n);
	if (IS_ERR(tasks))
		return PTR_ERR(tasks);
	spin_lock_irqsave(&dt_flags_lock, irq);
	for (i = 0; i < n; i++) {
		f = dt_flag_find(tasks[i]);
		if (f)
			dt_flag_remove_locked(f, DT_UNFLAG_REMOVED);
	}
	spin_unlock_irqrestore(&dt_flags_lock, irq);
	dt_put_threads(tasks, n);
	return 0;
}

static const char *const dt_reason_names[] = {
	[DT_REASON_MANUAL] = "manual",
	[DT_REASON_PROPAGATED] = "propagated",
	[DT_REASON_INHERITED] = "inherited",
	[DT_REASON_RESUMED] = "resumed",
	[DT_REASON_HANDOFF] = "handoff",
	[DT_REASON_DEFERRED] = "deferred",
	[DT_REASON_LOCAL] = "local",
	[DT_REASON_STREAMS] = "streams",
};

static const char *dt_reason_name(enum dt_reason r)
{
	return (unsigned int)r < ARRAY_SIZE(dt_reason_names) &&
	       dt_reason_names[r] ? dt_reason_names[r] : "unknown";
}

/* One line of list_pid; returns its length, or 0 if it does not fit. */
static size_t dt_flag_print(char *buf, size_t size, const struct dt_flag *f)
{
	/* Its response written: it makes no marked call any more. */
	const char *done = f->ctx && READ_ONCE(f->wrote) ? " answered" : "";
	char tuple[112] = "";
	int len;

	if (f->ctx) {
		tuple[0] = ' ';
		dt_tuple_print(tuple + 1, sizeof(tuple) - 1, &f->ctx->tuple);
	}
	if (f->reason == DT_REASON_INHERITED)
		len = snprintf(buf, size, "%d %d inherited %d%s%s\n",
			       task_pid_vnr(f->task), task_tgid_vnr(f->task),
			       f->parent, tuple, done);
	else
		len = snprintf(buf, size, "%d %d %s%s%s\n",
			       task_pid_vnr(f->task), task_tgid_vnr(f->task),
			       dt_reason_name(f->reason), tuple, done);
	return len > 0 && (size_t)len < size ? len : 0;
}

/*
 * list_pid: "TID PID REASON [DETAIL]" per flagged thread. What does not
 * fit in size is summed up in a last line "+N more". Any user may read
 * it: the walk is under RCU, not dt_flags_lock, so reading it never
 * holds off the wake-ups and reads that change the table (nor keeps
 * interrupts off); an entry and its context stay valid until a grace
 * period after their removal. A thread moving meanwhile may be listed
 * in its old context or its new one.
 */
ssize_t dt_flags_list(char *buf, size_t size)
{
	const size_t reserve = 24;
	unsigned int more = 0;
	struct dt_flag *f;
	size_t len = 0, n;
	int bkt;

	rcu_read_lock();
	hash_for_each_rcu(dt_flags, bkt, f, node) {
		n = more ? 0 : dt_flag_print(buf + len, size - reserve - len, f);
		if (n)
			len += n;
		else
			more++;
	}
	rcu_read_unlock();
	if (more)
		len += snprintf(buf + len, size - len, "+%u more\n", more);
	return len;
}
