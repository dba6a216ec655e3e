// SPDX-License-Identifier: GPL-2.0
/*
 * The table of flagged threads: which kernel tasks serve a traced request,
 * and why. Keyed by task_struct; lookups are RCU, writers hold
 * dt_flags_lock (irqsave, see dtracer.h).
 *
 * An entry never outlives its task: dt_flags_task_exit() (the
 * sched_process_exit tracepoint) removes it under dt_flags_lock, and every
 * insertion checks PF_EXITING under the same lock. PF_EXITING is set
 * before that tracepoint fires, so either the insertion sees it or the
 * exit hook sees the entry.
 *
 * dt_trace_active counts the entries. Every insertion and removal fires
 * dtracer_flag or dtracer_unflag (events.c) under dt_flags_lock, so the
 * events come in the order the table changed.
 *
 * Entries with a request's socket (propagated, inherited from such) are
 * also in dt_flags_by_sk, keyed by that socket, under the same lock: the
 * socket's destruction finds the threads still waiting to answer on it
 * in one bucket, not by a walk of the whole table (a walk with
 * interrupts off, at every close of a followed socket).
 *
 * Propagations are rate limited: at most max_propagations new flags per
 * second (a ratelimit_state, taken under dt_flags_lock, so that its
 * trylock never fails for contention). A flood of marked segments from a
 * trusted peer cannot keep this host tracing at will; the refused ones
 * are counted (drops_rate).
 */
#include "dtracer.h"

#include <linux/export.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/pid.h>
#include <linux/ratelimit.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/thread_info.h>
#include <linux/timekeeping.h>

struct dt_flag {
	struct hlist_node node;		/* in dt_flags, by task */
	struct hlist_node by_sk;	/* in dt_flags_by_sk if sk */
	struct task_struct *task;
	enum dt_reason reason;
	pid_t parent;			/* inherited: the parent's tid */
	const struct sock *sk;		/* the request's socket, or NULL */
	struct dt_tuple tuple;		/* ... and its addresses */
	u64 since;			/* flagged at (monotonic ns) */
	struct rcu_head rcu;
};

#define DT_FLAGS_BITS 12

static DEFINE_HASHTABLE(dt_flags, DT_FLAGS_BITS);
static DEFINE_HASHTABLE(dt_flags_by_sk, DT_FLAGS_BITS);
static DEFINE_SPINLOCK(dt_flags_lock);
static unsigned int dt_nflags;		/* under dt_flags_lock */

/* dtracer.h: the count of flagged threads, for the lttng-modules fork. */
atomic_t dt_trace_active = ATOMIC_INIT(0);
EXPORT_SYMBOL_GPL(dt_trace_active);
/*
 * syscalls.c narrowed the system call tracepoints to flagged threads:
 * a thread flagged gets SYSCALL_WORK_SYSCALL_TRACEPOINT, one unflagged
 * loses it. Written under dt_flags_lock and syscalls.c's dt_narrow_lock
 * (dt_flags_set_narrowed() takes the former; its only caller, syscalls.c's
 * dt_apply(), asserts the latter: asserted here, it would make flags.c
 * call back into syscalls.c).
 */
static bool dt_narrowed;

/*
 * The gate's hint (gate.c): bit hash_ptr(task, DT_HINT_BITS) is set while
 * some flagged task hashes there, so a clear bit says "not flagged"
 * without a lookup. Counts per bit under dt_flags_lock; the bits are read
 * locklessly by the fork.
 */
DECLARE_BITMAP(dt_flags_hint, 1 << DT_HINT_BITS);
static unsigned int dt_hint_users[1 << DT_HINT_BITS];

static void dt_hint_get(const struct task_struct *task)
{
	unsigned int b = hash_ptr(task, DT_HINT_BITS);

	lockdep_assert_held(&dt_flags_lock);
	if (!dt_hint_users[b]++)
		set_bit(b, dt_flags_hint);
}

static void dt_hint_put(const struct task_struct *task)
{
	unsigned int b = hash_ptr(task, DT_HINT_BITS);

	lockdep_assert_held(&dt_flags_lock);
	if (!--dt_hint_users[b])
		clear_bit(b, dt_flags_hint);
}

unsigned int dt_max_threads = 4096;
bool dt_inherit = true;

#define DT_PROPAGATIONS_DEFAULT 1000	/* per second */
static struct ratelimit_state dt_propagation_rate =
	RATELIMIT_STATE_INIT_FLAGS(dt_propagation_rate, HZ,
				   DT_PROPAGATIONS_DEFAULT,
				   RATELIMIT_MSG_ON_RELEASE);

/* New propagated flags allowed per second; 0: no limit. */
unsigned int dt_flags_max_propagations(void)
{
	return READ_ONCE(dt_propagation_rate.interval) ?
	       READ_ONCE(dt_propagation_rate.burst) : 0;
}

void dt_flags_set_max_propagations(unsigned int per_second)
{
	unsigned long irq;

	spin_lock_irqsave(&dt_flags_lock, irq);
	WRITE_ONCE(dt_propagation_rate.burst, per_second);
	WRITE_ONCE(dt_propagation_rate.interval, per_second ? HZ : 0);
	spin_unlock_irqrestore(&dt_flags_lock, irq);
}

static struct dt_flag *dt_flag_find(const struct task_struct *task)
{
	struct dt_flag *f;

	hash_for_each_possible_rcu(dt_flags, f, node, (unsigned long)task)
		if (f->task == task)
			return f;
	return NULL;
}

/*
 * Whether task is flagged; if so and by is not NULL, by says who it is
 * and why. Any context.
 */
bool dt_flag_sender(const struct task_struct *task, struct dt_sender *by)
{
	struct dt_flag *f;
	bool found;

	if (!atomic_read(&dt_trace_active))
		return false;
	rcu_read_lock();
	f = dt_flag_find(task);
	found = f;
	if (f && by) {
		by->tid = task_pid_nr(f->task);
		by->pid = task_tgid_nr(f->task);
		by->reason = f->reason;
		by->client = !f->sk;
	}
	rcu_read_unlock();
	return found;
}

bool dt_flagged(const struct task_struct *task)
{
	return dt_flag_sender(task, NULL);
}

/*
 * syscalls.c narrows (on) or widens the system call tracepoints. Called
 * under dt_narrow_lock (syscalls.c's dt_apply() asserts it).
 */
void dt_flags_set_narrowed(bool on)
{
	unsigned long irq;

	spin_lock_irqsave(&dt_flags_lock, irq);
	dt_narrowed = on;
	spin_unlock_irqrestore(&dt_flags_lock, irq);
}

bool dt_flags_narrowed(void)
{
	return READ_ONCE(dt_narrowed);
}

unsigned int dt_flags_count(void)
{
	return READ_ONCE(dt_nflags);
}

static void dt_flag_insert_locked(struct dt_flag *f)
{
	lockdep_assert_held(&dt_flags_lock);
	f->since = ktime_get_ns();
	dt_hint_get(f->task);
	hash_add_rcu(dt_flags, &f->node, (unsigned long)f->task);
	if (f->sk)
		hash_add(dt_flags_by_sk, &f->by_sk, (unsigned long)f->sk);
	if (dt_narrowed) {
		/* After the insertion: see dt_walk_narrow(). */
		smp_mb__before_atomic();
		set_task_syscall_work(f->task, SYSCALL_TRACEPOINT);
	}
	dt_nflags++;
	atomic_inc(&dt_trace_active);
	dt_event_flag(f->task, f->reason, f->parent, &f->tuple);
}

static void dt_flag_remove_locked(struct dt_flag *f, enum dt_unflag why)
{
	lockdep_assert_held(&dt_flags_lock);
	hash_del_rcu(&f->node);
	if (f->sk)
		hash_del(&f->by_sk);
	if (dt_narrowed)
		clear_task_syscall_work(f->task, SYSCALL_TRACEPOINT);
	dt_hint_put(f->task);
	dt_nflags--;
	atomic_dec(&dt_trace_active);
	dt_stat_inc(DT_STAT_UNFLAGS);
	dt_event_unflag(f->task, why, ktime_get_ns() - f->since, f->sk);
	dt_mem_free_rcu(DT_MEM_THREADS, f, rcu);
}

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
	if (dt_nflags + need > READ_ONCE(dt_max_threads))
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
		if (old) {
			/* Now flagged by hand: only remove_pid ends it. */
			fresh[i]->since = old->since;
			hlist_replace_rcu(&old->node, &fresh[i]->node);
			dt_mem_free_rcu(DT_MEM_THREADS, old, rcu);
			dt_event_flag(tasks[i], DT_REASON_MANUAL, 0,
				      &fresh[i]->tuple);
		} else {
			dt_flag_insert_locked(fresh[i]);
		}
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

/*
 * Inserts f for a thread flagged by the kernel itself (propagation,
 * inheritance): dropped and counted when the table is full or the thread
 * is exiting. Any context.
 */
static bool dt_flag_insert(struct dt_flag *f)
{
	unsigned long irq;
	bool done = false;

	spin_lock_irqsave(&dt_flags_lock, irq);
	if (READ_ONCE(f->task->flags) & PF_EXITING || dt_flag_find(f->task)) {
		/* Exiting, or flagged meanwhile: nothing to do. */
	} else if (dt_nflags >= READ_ONCE(dt_max_threads)) {
		dt_stat_inc(DT_STAT_DROP_THREADS);
	} else if (f->reason == DT_REASON_PROPAGATED &&
		   !__ratelimit(&dt_propagation_rate)) {
		dt_stat_inc(DT_STAT_DROP_RATE);
	} else {
		dt_flag_insert_locked(f);
		done = true;
	}
	spin_unlock_irqrestore(&dt_flags_lock, irq);
	if (!done)
		dt_mem_free(DT_MEM_THREADS, f);
	return done;
}

/*
 * task read marked bytes from sk: flag it, unless it already is (or the
 * table is full, or max_propagations were flagged this second).
 */
void dt_flags_propagate(struct task_struct *task, const struct sock *sk)
{
	struct dt_flag *f;

	if (dt_flagged(task))
		return;
	f = dt_mem_zalloc(DT_MEM_THREADS, sizeof(*f), GFP_ATOMIC);
	if (!f) {
		dt_stat_inc(DT_STAT_DROP_NOMEM);
		return;
	}
	f->task = task;
	f->reason = DT_REASON_PROPAGATED;
	f->sk = sk;
	dt_tuple_from_sock(&f->tuple, sk);
	if (dt_flag_insert(f))
		dt_stat_inc(DT_STAT_PROPAGATIONS);
}

/* Removes task's flag if its reason is sk (and not add_pid). */
static bool dt_flags_drop_for(struct task_struct *task, const struct sock *sk)
{
	struct dt_flag *f;
	unsigned long irq;
	bool done = false;

	spin_lock_irqsave(&dt_flags_lock, irq);
	f = dt_flag_find(task);
	if (f && f->sk == sk && f->reason != DT_REASON_MANUAL) {
		dt_flag_remove_locked(f, DT_UNFLAG_RESPONSE);
		done = true;
	}
	spin_unlock_irqrestore(&dt_flags_lock, irq);
	return done;
}

/*
 * task sent on sk: if that answers the request it was flagged for, unflag.
 * Called after the writes of flagged threads only (egress.c), so no
 * lockless look first: one lookup, under the lock.
 */
void dt_flags_response(struct task_struct *task, const struct sock *sk)
{
	if (dt_flags_drop_for(task, sk))
		dt_stat_inc(DT_STAT_RESPONSES);
}

/* sk is being destroyed: threads waiting to answer on it never will. */
void dt_flags_socket_gone(const struct sock *sk)
{
	struct dt_flag *f;
	struct hlist_node *tmp;
	unsigned long irq;

	if (!atomic_read(&dt_trace_active))
		return;
	spin_lock_irqsave(&dt_flags_lock, irq);
	hash_for_each_possible_safe(dt_flags_by_sk, f, tmp, by_sk,
				    (unsigned long)sk)
		if (f->sk == sk && f->reason != DT_REASON_MANUAL)
			dt_flag_remove_locked(f, DT_UNFLAG_CLOSED);
	spin_unlock_irqrestore(&dt_flags_lock, irq);
}

/* sched_process_fork: a flagged thread's child is flagged too. */
void dt_flags_fork(struct task_struct *parent, struct task_struct *child)
{
	struct dt_flag *f, *pf;

	if (!READ_ONCE(dt_inherit) || !atomic_read(&dt_trace_active))
		return;
	f = dt_mem_zalloc(DT_MEM_THREADS, sizeof(*f), GFP_ATOMIC);
	if (!f) {
		dt_stat_inc(DT_STAT_DROP_NOMEM);
		return;
	}
	rcu_read_lock();
	pf = dt_flag_find(parent);
	if (pf) {
		f->sk = pf->sk;
		f->tuple = pf->tuple;
	}
	rcu_read_unlock();
	if (!pf) {
		dt_mem_free(DT_MEM_THREADS, f);
		return;
	}
	f->task = child;
	f->reason = DT_REASON_INHERITED;
	f->parent = task_pid_nr(parent);
	if (dt_flag_insert(f))
		dt_stat_inc(DT_STAT_INHERITS);
}

/* sched_process_exit: the thread's flag goes with it. */
void dt_flags_task_exit(struct task_struct *task)
{
	struct dt_flag *f;
	unsigned long irq;

	if (!dt_flagged(task))
		return;
	spin_lock_irqsave(&dt_flags_lock, irq);
	f = dt_flag_find(task);
	if (f)
		dt_flag_remove_locked(f, DT_UNFLAG_EXITED);
	spin_unlock_irqrestore(&dt_flags_lock, irq);
}

static const char *const dt_reason_names[] = {
	[DT_REASON_MANUAL] = "manual",
	[DT_REASON_PROPAGATED] = "propagated",
	[DT_REASON_INHERITED] = "inherited",
};

/* One line of list_pid; returns its length, or 0 if it does not fit. */
static size_t dt_flag_print(char *buf, size_t size, const struct dt_flag *f)
{
	char tuple[112] = "";
	int len;

	if (f->sk) {
		tuple[0] = ' ';
		dt_tuple_print(tuple + 1, sizeof(tuple) - 1, &f->tuple);
	}
	if (f->reason == DT_REASON_INHERITED)
		len = snprintf(buf, size, "%d %d inherited %d%s\n",
			       task_pid_vnr(f->task), task_tgid_vnr(f->task),
			       f->parent, tuple);
	else
		len = snprintf(buf, size, "%d %d %s%s\n",
			       task_pid_vnr(f->task), task_tgid_vnr(f->task),
			       dt_reason_names[f->reason], tuple);
	return len > 0 && (size_t)len < size ? len : 0;
}

/*
 * list_pid: "TID PID REASON [DETAIL]" per flagged thread. What does not
 * fit in size is summed up in a last line "+N more".
 */
ssize_t dt_flags_list(char *buf, size_t size)
{
	const size_t reserve = 24;
	unsigned int more = 0;
	struct dt_flag *f;
	size_t len = 0, n;
	unsigned long irq;
	int bkt;

	spin_lock_irqsave(&dt_flags_lock, irq);
	hash_for_each(dt_flags, bkt, f, node) {
		n = more ? 0 : dt_flag_print(buf + len, size - reserve - len, f);
		if (n)
			len += n;
		else
			more++;
	}
	spin_unlock_irqrestore(&dt_flags_lock, irq);
	if (more)
		len += snprintf(buf + len, size - len, "+%u more\n", more);
	return len;
}

/* Module exit: the hooks are gone; drop every flag. */
void dt_flags_exit(void)
{
	struct dt_flag *f;
	struct hlist_node *tmp;
	unsigned long irq;
	int bkt;

	spin_lock_irqsave(&dt_flags_lock, irq);
	hash_for_each_safe(dt_flags, bkt, tmp, f, node)
		dt_flag_remove_locked(f, DT_UNFLAG_UNLOADED);
	spin_unlock_irqrestore(&dt_flags_lock, irq);
}
