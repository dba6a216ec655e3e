// SPDX-License-Identifier: GPL-2.0
/*
 * The table of flagged threads: which kernel tasks serve a traced request,
 * and why. Keyed by task_struct; lookups are RCU, writers hold
 * dt_flags_lock (irqsave, see dtracer.h). The files that change the
 * table share its insides through flags-int.h: this one keeps the table,
 * its lock, its lookups, insertion and removal, the gate's hint and the
 * kernel's own changes (fork, exit); manual.c the threads root names
 * (add_pid, remove_pid, list_pid); context.c the moves between request
 * contexts and the idle sweep; handoff.c the hand-off rule.
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
 * Locking: the table, its count, the hint's counts and dt_narrowed change
 * under dt_flags_lock only; nothing done under it sleeps or wakes a task.
 * It is never taken inside the scheduler's locks (handoff.c applies its
 * wake-ups from an irq_work, after them).
 */
#include "flags-int.h"

#include <linux/export.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/moduleparam.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/thread_info.h>
#include <linux/timekeeping.h>

DEFINE_HASHTABLE(dt_flags, DT_FLAGS_BITS);
DEFINE_HASHTABLE(dt_flags_by_sk, DT_FLAGS_BITS);
DEFINE_SPINLOCK(dt_flags_lock);
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

static unsigned int dt_request_threads = 64;
module_param_named(max_threads_per_request, dt_request_threads, uint, 0644);
MODULE_PARM_DESC(max_threads_per_request,
		 "threads one request's context may hold at once (0: no limit)");

/*
 * task's entry, or NULL. Under RCU, or dt_flags_lock (taken irqsave: an
 * RCU read-side section too).
 */
struct dt_flag *dt_flag_find(const struct task_struct *task)
{
	struct dt_flag *f;

	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(),
			 "thread lookup outside an RCU read-side section");
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

	/* The gate's hint: a clear bit says "not flagged" without a lookup. */
	if (!atomic_read(&dt_trace_active) ||
	    !test_bit(hash_ptr(task, DT_HINT_BITS), dt_flags_hint))
		return false;
	rcu_read_lock();
	f = dt_flag_find(task);
	found = f;
	if (f && by) {
		by->tid = task_pid_nr(f->task);
		by->pid = task_tgid_nr(f->task);
		by->reason = f->reason;
		by->client = !f->ctx;
		by->ctx = f->ctx;
		by->answered = READ_ONCE(f->wrote) != 0;
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

/* Under dt_flags_lock: whether c may hold one more thread. */
bool dt_ctx_room_locked(const struct dt_ctx *c)
{
	unsigned int max = READ_ONCE(dt_request_threads);

	lockdep_assert_held(&dt_flags_lock);
	return !max || c->threads < max;
}

/* Under dt_flags_lock: whether need more entries fit in max_threads. */
bool dt_flags_room_locked(unsigned int need)
{
	lockdep_assert_held(&dt_flags_lock);
	return dt_nflags + need <= READ_ONCE(dt_max_threads);
}

void dt_flag_insert_locked(struct dt_flag *f)
{
	lockdep_assert_held(&dt_flags_lock);
	f->since = ktime_get_ns();
	dt_hint_get(f->task);
	hash_add_rcu(dt_flags, &f->node, (unsigned long)f->task);
	if (f->ctx) {
		hash_add(dt_flags_by_sk, &f->by_sk, (unsigned long)f->ctx->sk);
		f->ctx->threads++;
	}
	if (dt_narrowed) {
		/* After the insertion: see dt_walk_narrow(). */
		smp_mb__before_atomic();
		set_task_syscall_work(f->task, SYSCALL_TRACEPOINT);
	}
	dt_nflags++;
	atomic_inc(&dt_trace_active);
	dt_event_flag(f->task, f->reason, f->parent, f->ctx);
}

/*
 * Removes f: why, unless a thread that wrote its response leaves its
 * context for other work, with the socket or by exiting (then
 * "response", and the event says how long ago the last write was).
 */
void dt_flag_remove_locked(struct dt_flag *f, enum dt_unflag why)
{
	u64 now = ktime_get_ns(), idle = 0;

	lockdep_assert_held(&dt_flags_lock);
	if (f->wrote && (why == DT_UNFLAG_SWITCHED ||
			 why == DT_UNFLAG_CLOSED || why == DT_UNFLAG_EXITED))
		why = DT_UNFLAG_RESPONSE;
	if (why == DT_UNFLAG_RESPONSE && f->wrote)
		idle = now - f->wrote;
	else if (why == DT_UNFLAG_SWITCHED)
		dt_stat_inc(DT_STAT_SWITCHES);
	hash_del_rcu(&f->node);
	if (f->ctx) {
		hash_del(&f->by_sk);
		f->ctx->threads--;
	}
	if (dt_narrowed)
		clear_task_syscall_work(f->task, SYSCALL_TRACEPOINT);
	dt_hint_put(f->task);
	dt_nflags--;
	atomic_dec(&dt_trace_active);
	dt_stat_inc(DT_STAT_UNFLAGS);
	dt_event_unflag(f->task, why, now - f->since, f->ctx, idle);
	dt_ctx_put(f->ctx);
	dt_mem_free_rcu(DT_MEM_THREADS, f, rcu);
}

/*
 * f, a client's entry (no context) for old's task, takes old's place and
 * its time: the thread stays flagged throughout, and the event says the
 * reason is f's now. old's context is left.
 */
void dt_flag_replace_locked(struct dt_flag *old, struct dt_flag *f)
{
	lockdep_assert_held(&dt_flags_lock);
	f->since = old->since;
	hlist_replace_rcu(&old->node, &f->node);
	if (old->ctx) {
		hash_del(&old->by_sk);
		old->ctx->threads--;
	}
	dt_ctx_put(old->ctx);
	dt_mem_free_rcu(DT_MEM_THREADS, old, rcu);
	dt_event_flag(f->task, f->reason, 0, NULL);
}

/*
 * task's entry goes (why), if it has one: a client's too if clients, else
 * only one in a context. Any context.
 */
void dt_flag_remove_task(struct task_struct *task, enum dt_unflag why,
			 bool clients)
{
	struct dt_flag *f;
	unsigned long irq;

	if (!dt_flagged(task))
		return;
	spin_lock_irqsave(&dt_flags_lock, irq);
	f = dt_flag_find(task);
	if (f && (clients || f->ctx))
		dt_flag_remove_locked(f, why);
	spin_unlock_irqrestore(&dt_flags_lock, irq);
}

/*
 * Inserts f for a thread flagged by the kernel itself (inheritance):
 * dropped and counted when the table is full, f's request has
 * max_threads_per_request threads already, or the thread is exiting.
 * Any context.
 */
static bool dt_flag_insert(struct dt_flag *f)
{
	unsigned long irq;
	bool done = false;

	spin_lock_irqsave(&dt_flags_lock, irq);
	if (READ_ONCE(f->task->flags) & PF_EXITING || dt_flag_find(f->task)) {
		/* Exiting, or flagged meanwhile: nothing to do. */
	} else if (!dt_flags_room_locked(1)) {
		dt_stat_inc(DT_STAT_DROP_THREADS);
	} else if (f->ctx && !dt_ctx_room_locked(f->ctx)) {
		dt_stat_inc(DT_STAT_DROP_REQUEST);
	} else {
		dt_flag_insert_locked(f);
		done = true;
	}
	spin_unlock_irqrestore(&dt_flags_lock, irq);
	if (!done) {
		dt_ctx_put(f->ctx);
		dt_mem_free(DT_MEM_THREADS, f);
	}
	return done;
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
	if (pf && pf->ctx && !dt_ctx_tryget(pf->ctx))
		pf = NULL;	/* its context is going away */
	else if (pf)
		f->ctx = pf->ctx;
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
	dt_flag_remove_task(task, DT_UNFLAG_EXITED, true);
}
