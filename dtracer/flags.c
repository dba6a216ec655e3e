// SPDX-License-Identifier: GPL-2.0
/*
 * The table of flagged threads: which kernel tasks serve a traced request,
 * and why. Keyed by task_struct; lookups are RCU, writers hold
 * dt_flags_lock (irqsave, see dtracer.h).
 *
 * A thread is in one context at a time (context.c): the request it works
 * for now. Reading a request moves it to that request's context; reading
 * the answer to a context's upstream request, or writing on a traced
 * request's socket, moves it back to that context (resumed); turning to
 * untraced work (reading unmarked bytes, answering an untraced request)
 * takes it out (switched, or response once it has written its
 * response). Clients (add_pid, and their children) have no context and
 * stay flagged whatever they read or write. A thread that answered and
 * then does nothing on TCP for response_idle_ms leaves too (a sweep,
 * counted in expired): the end of a keep-alive server thread's response.
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
 *
 * The files that change the table share its insides through flags-int.h:
 * manual.c keeps the threads root names (add_pid, remove_pid, list_pid).
 */
#include "flags-int.h"

#include <linux/export.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/moduleparam.h>
#include <linux/ratelimit.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/thread_info.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

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

unsigned int dt_response_idle_ms = 1000;
module_param_named(response_idle_ms, dt_response_idle_ms, uint, 0644);
MODULE_PARM_DESC(response_idle_ms,
		 "a thread that answered and then did nothing on TCP for this long leaves the request (0: never)");

static void dt_expire(struct work_struct *work);
static DECLARE_DELAYED_WORK(dt_expire_work, dt_expire);
static bool dt_expire_stopped;		/* under dt_flags_lock: module exit */

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

/* task's entry, or NULL. Under RCU, or dt_flags_lock. */
struct dt_flag *dt_flag_find(const struct task_struct *task)
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
	if (f->ctx)
		hash_add(dt_flags_by_sk, &f->by_sk, (unsigned long)f->ctx->sk);
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
	if (f->ctx)
		hash_del(&f->by_sk);
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
	if (old->ctx)
		hash_del(&old->by_sk);
	dt_ctx_put(old->ctx);
	dt_mem_free_rcu(DT_MEM_THREADS, old, rcu);
	dt_event_flag(f->task, f->reason, 0, NULL);
}

/*
 * Inserts f for a thread flagged by the kernel itself (inheritance):
 * dropped and counted when the table is full or the thread is exiting.
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

/*
 * Whether task's entry stays as it is: 1 if it is in c already, -1 if it
 * is a client's; else 0.
 */
static int dt_flags_staying(const struct task_struct *task,
			    const struct dt_ctx *c)
{
	struct dt_flag *f;
	int stay = 0;

	if (!atomic_read(&dt_trace_active))
		return 0;
	rcu_read_lock();
	f = dt_flag_find(task);
	if (f)
		stay = !f->ctx ? -1 : f->ctx == c;
	rcu_read_unlock();
	return stay;
}

/*
 * Under dt_flags_lock: may task, whose entry is old (or NULL), move to c?
 * Not if it stays (a client, or in c already), is exiting, c's socket is
 * gone, the table is full, or (a new request) max_propagations were
 * flagged this second; the last two are counted.
 */
static bool dt_flags_may_enter_locked(struct task_struct *task,
				      struct dt_flag *old, struct dt_ctx *c,
				      enum dt_reason reason)
{
	lockdep_assert_held(&dt_flags_lock);
	if (old && (!old->ctx || old->ctx == c))
		return false;
	if (READ_ONCE(task->flags) & PF_EXITING || READ_ONCE(c->dead))
		return false;
	if (!old && !dt_flags_room_locked(1)) {
		dt_stat_inc(DT_STAT_DROP_THREADS);
		return false;
	}
	if (reason == DT_REASON_PROPAGATED &&
	    !__ratelimit(&dt_propagation_rate)) {
		dt_stat_inc(DT_STAT_DROP_RATE);
		return false;
	}
	return true;
}

/*
 * task works for c from now on: propagated (it read c's request) or
 * resumed (it read the answer to c's upstream request, or writes c's
 * response). It leaves the context it was in. A client stays a client.
 * Returns whether task is in c now (not if it is a client, or if it was
 * refused: table full, rate, memory, c's socket gone). Any context.
 */
bool dt_flags_enter(struct task_struct *task, struct dt_ctx *c,
		    enum dt_reason reason)
{
	struct dt_flag *f, *old;
	unsigned long irq;
	bool in;
	int stay;

	stay = dt_flags_staying(task, c);
	if (stay)
		return stay > 0;
	f = dt_mem_zalloc(DT_MEM_THREADS, sizeof(*f), GFP_ATOMIC);
	if (!f) {
		dt_stat_inc(DT_STAT_DROP_NOMEM);
		return false;
	}
	spin_lock_irqsave(&dt_flags_lock, irq);
	old = dt_flag_find(task);
	in = old && old->ctx == c;
	if (dt_flags_may_enter_locked(task, old, c, reason) &&
	    dt_ctx_tryget(c)) {
		if (old)
			dt_flag_remove_locked(old, DT_UNFLAG_SWITCHED);
		f->task = task;
		f->reason = reason;
		f->ctx = c;
		dt_flag_insert_locked(f);
		dt_stat_inc(reason == DT_REASON_PROPAGATED ?
			    DT_STAT_PROPAGATIONS : DT_STAT_RESUMES);
		f = NULL;
		in = true;
	}
	spin_unlock_irqrestore(&dt_flags_lock, irq);
	dt_mem_free(DT_MEM_THREADS, f);
	return in;
}

/*
 * task turned to work for no traced request: it leaves its context
 * (switched, or response once it has answered). A client stays.
 */
void dt_flags_leave(struct task_struct *task)
{
	struct dt_flag *f;
	unsigned long irq;

	if (!dt_flagged(task))
		return;
	spin_lock_irqsave(&dt_flags_lock, irq);
	f = dt_flag_find(task);
	if (f && f->ctx)
		dt_flag_remove_locked(f, DT_UNFLAG_SWITCHED);
	spin_unlock_irqrestore(&dt_flags_lock, irq);
}

/*
 * Under RCU: the context current hands to the threads it wakes: the one
 * it works for, unless it has answered it already (then a wake-up says
 * "done", not "take this job"); NULL for none (a client hands nothing).
 */
static struct dt_ctx *dt_flags_handing(void)
{
	struct dt_flag *f;

	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(), "hand-off without RCU");
	if (!dt_flagged(current))
		return NULL;
	f = dt_flag_find(current);
	return f && f->ctx && !READ_ONCE(f->wrote) ? f->ctx : NULL;
}

/*
 * handoff.c: current wakes p, a thread of its own process. If current
 * works for a request it has not answered, p works for it too (handoff,
 * current's tid in the event's parent): a worker woken for the job its
 * reader read. Else, if p has answered its request, the wake-up gives it
 * its next job, untraced: p leaves (response). A client stays a client.
 *
 * Runs inside try_to_wake_up(), p->pi_lock held, interrupts off: so the
 * entry is allocated without any reclaim (not even waking kswapd, which
 * would take another pi_lock), and nothing under dt_flags_lock anywhere
 * wakes a task (the idle sweep's timer is armed with a delay, frees go
 * through kfree_rcu()).
 */
void dt_flags_handoff(struct task_struct *p)
{
	struct dt_flag *f = NULL, *old;
	struct dt_ctx *c;
	unsigned long irq;

	rcu_read_lock();
	c = dt_flags_handing();
	rcu_read_unlock();
	if (!c && !dt_flagged(p))
		return;
	if (c && dt_flags_staying(p, c))
		return;
	if (c) {
		f = dt_mem_zalloc(DT_MEM_THREADS, sizeof(*f), __GFP_NOWARN);
		if (!f) {
			dt_stat_inc(DT_STAT_DROP_NOMEM);
			return;
		}
	}
	spin_lock_irqsave(&dt_flags_lock, irq);
	c = dt_flags_handing();
	old = dt_flag_find(p);
	if (c && f && dt_flags_may_enter_locked(p, old, c, DT_REASON_HANDOFF) &&
	    dt_ctx_tryget(c)) {
		if (old)
			dt_flag_remove_locked(old, DT_UNFLAG_SWITCHED);
		f->task = p;
		f->reason = DT_REASON_HANDOFF;
		f->parent = task_pid_nr(current);
		f->ctx = c;
		dt_flag_insert_locked(f);
		dt_stat_inc(DT_STAT_HANDOFFS);
		f = NULL;
	} else if (!c && old && old->ctx && old->wrote) {
		dt_flag_remove_locked(old, DT_UNFLAG_RESPONSE);
	}
	spin_unlock_irqrestore(&dt_flags_lock, irq);
	dt_mem_free(DT_MEM_THREADS, f);
}

/* Under dt_flags_lock: the idle sweep runs soon, unless it is off. */
static void dt_expire_schedule_locked(void)
{
	unsigned int ms = READ_ONCE(dt_response_idle_ms);

	lockdep_assert_held(&dt_flags_lock);
	if (ms && !dt_expire_stopped)
		schedule_delayed_work(&dt_expire_work,
				      msecs_to_jiffies(ms / 4) + 1);
}

/*
 * task, flagged, wrote on sk: if sk is its request's socket, that is its
 * response (the first write counts one in responses), which goes on at
 * least until task turns to other work or response_idle_ms pass.
 */
void dt_flags_wrote(struct task_struct *task, const struct sock *sk)
{
	struct dt_flag *f;
	unsigned long irq;
	bool again;

	/*
	 * After the first write the sweep is scheduled (and goes on while
	 * the thread is in the table): the time alone, without the lock.
	 * The sweep may read the time of the write before; so it could
	 * under the lock too, had it run first.
	 */
	rcu_read_lock();
	f = dt_flag_find(task);
	again = f && f->ctx && f->ctx->sk == sk && READ_ONCE(f->wrote);
	if (again)
		WRITE_ONCE(f->wrote, ktime_get_ns());
	rcu_read_unlock();
	if (again)
		return;
	spin_lock_irqsave(&dt_flags_lock, irq);
	f = dt_flag_find(task);
	if (f && f->ctx && f->ctx->sk == sk) {
		if (!f->wrote)
			dt_stat_inc(DT_STAT_RESPONSES);
		f->wrote = ktime_get_ns();
		dt_expire_schedule_locked();
	}
	spin_unlock_irqrestore(&dt_flags_lock, irq);
}

/*
 * The sweep: threads that answered and then did nothing on TCP for
 * response_idle_ms leave their context (response, counted in expired).
 * It walks the table under dt_flags_lock, and runs again while such
 * threads remain.
 */
static void dt_expire(struct work_struct *work)
{
	u64 idle = (u64)READ_ONCE(dt_response_idle_ms) * NSEC_PER_MSEC;
	u64 now = ktime_get_ns();
	struct hlist_node *tmp;
	struct dt_flag *f;
	unsigned long irq;
	bool more = false;
	int bkt;

	spin_lock_irqsave(&dt_flags_lock, irq);
	hash_for_each_safe(dt_flags, bkt, tmp, f, node) {
		if (!f->ctx || !f->wrote || !idle)
			continue;
		if (now - f->wrote >= idle) {
			dt_flag_remove_locked(f, DT_UNFLAG_RESPONSE);
			dt_stat_inc(DT_STAT_EXPIRED);
		} else {
			more = true;
		}
	}
	if (more)
		dt_expire_schedule_locked();
	spin_unlock_irqrestore(&dt_flags_lock, irq);
}

/* sk is being destroyed: threads serving its request leave it. */
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
		if (f->ctx->sk == sk)
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

/* Module exit: the hooks are gone; drop every flag. */
void dt_flags_exit(void)
{
	struct dt_flag *f;
	struct hlist_node *tmp;
	unsigned long irq;
	int bkt;

	spin_lock_irqsave(&dt_flags_lock, irq);
	dt_expire_stopped = true;
	spin_unlock_irqrestore(&dt_flags_lock, irq);
	cancel_delayed_work_sync(&dt_expire_work);
	spin_lock_irqsave(&dt_flags_lock, irq);
	hash_for_each_safe(dt_flags, bkt, tmp, f, node)
		dt_flag_remove_locked(f, DT_UNFLAG_UNLOADED);
	spin_unlock_irqrestore(&dt_flags_lock, irq);
}
