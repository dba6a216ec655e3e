// SPDX-License-Identifier: GPL-2.0
/*
 * Hand-off: a request read by one thread and served by another. A server
 * that reads requests in one thread and serves them in others (a worker
 * pool fed by a queue) wakes the worker when it hands it a job: through
 * a futex (a condition variable, a semaphore), an eventfd, a pipe, an
 * epoll wake-up. Whatever the channel, the scheduler wakes the worker:
 * the tracepoint sched_waking, with the waker as current.
 *
 * But threads wake each other for other reasons too: a mutex released,
 * CPython's GIL passed on each blocking call (the demo's python3 woke
 * its accepting thread on every request). So only processes seen to
 * hand off requests do: a process one of whose threads wrote the
 * response to a traced request another of its threads read is a pool,
 * for ten minutes since it last did so (dt_pools: a slot per hash of
 * the process id, the id and the time in one atomic word, no
 * allocation). Its first traced request is followed from its answer
 * only (egress.c: the writer joins the request); the next ones from the
 * wake-up. A server whose reading thread answers (a thread per
 * connection, an event loop, python3's http.server) hands nothing.
 *
 * The rule in a pool (dt_flags_handoff()): a thread that works
 * for a request it has not answered yet, waking another thread of its
 * own process, hands it that request (reason handoff, the waker in the
 * event's parent); an untraced thread (or one that has answered) waking
 * a thread that has answered its request gives it its next job: that
 * thread leaves its context. It is a guess, and the reason says so: the
 * kernel does not see which job the worker takes. A wake-up by an
 * interrupt, of another process, of a kernel thread, says nothing.
 *
 * Locking: the probe runs inside try_to_wake_up(), the wakee's pi_lock
 * held and interrupts off (asserted): nothing under it sleeps or wakes
 * anyone (see dt_flags_handoff()). The rule changes the thread table
 * under dt_flags_lock, taken inside pi_lock (flags-int.h; the order is in
 * dtracer.h). dt_pools is lockless (one atomic word a slot). Registered
 * only while the probe is armed.
 */
#include "flags-int.h"
#include "hooks.h"

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>

static struct tracepoint *dt_tp_waking;

#define DT_POOLS_BITS 8
#define DT_POOL_MEMORY (600 * HZ)

/* Per slot: a process id (high 32 bits), when it last handed off (low). */
static atomic64_t dt_pools[1 << DT_POOLS_BITS];

static atomic64_t *dt_pool_slot(u32 tgid)
{
	return &dt_pools[hash_32(tgid, DT_POOLS_BITS)];
}

/*
 * egress.c: current writes c's response. If another thread read c's
 * request, current's process hands requests off: it is a pool.
 */
void dt_handoff_answered(const struct dt_ctx *c)
{
	u32 tgid = task_tgid_nr(current);

	if (c->reader != task_pid_nr(current))
		atomic64_set(dt_pool_slot(tgid),
			     (u64)tgid << 32 | (u32)jiffies);
}

/* Whether current's process handed a request off in the last while. */
bool dt_in_pool(void)
{
	u32 tgid = task_tgid_nr(current);
	u64 v = atomic64_read(dt_pool_slot(tgid));

	return v >> 32 == tgid && (u32)jiffies - (u32)v < DT_POOL_MEMORY;
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
 * current wakes p, a thread of its own process. If current works for a
 * request it has not answered, p works for it too (handoff, current's
 * tid in the event's parent): a worker woken for the job its reader
 * read. Else, if p has answered its request, the wake-up gives it its
 * next job, untraced: p leaves (response). A client stays a client.
 *
 * Runs inside try_to_wake_up(), p->pi_lock held, interrupts off: so the
 * entry is allocated without any reclaim (not even waking kswapd, which
 * would take another pi_lock), and nothing under dt_flags_lock anywhere
 * wakes a task (the idle sweep's timer is armed with a delay, frees go
 * through kfree_rcu()).
 */
static void dt_flags_handoff(struct task_struct *p)
{
	struct dt_flag *f = NULL, *old;
	struct dt_ctx *c;
	unsigned long irq;

	lockdep_assert_held(&p->pi_lock);
	lockdep_assert_irqs_disabled();
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
		dt_flag_move_locked(f, old, p, c, DT_REASON_HANDOFF,
				    task_pid_nr(current));
		dt_stat_inc(DT_STAT_HANDOFFS);
		f = NULL;
	} else if (!c && old && old->ctx && old->wrote) {
		dt_flag_remove_locked(old, DT_UNFLAG_RESPONSE);
	}
	spin_unlock_irqrestore(&dt_flags_lock, irq);
	dt_mem_free(DT_MEM_THREADS, f);
}

static void dt_on_waking(void *data, struct task_struct *p)
{
	if (!atomic_read(&dt_trace_active) || !in_task() || p == current ||
	    (p->flags & PF_KTHREAD) || !same_thread_group(current, p) ||
	    !dt_in_pool() || dt_go_thread())
		return;
	dt_flags_handoff(p);
}

int dt_handoff_arm(void)
{
	return dt_tracepoint_hook(&dt_tp_waking, "sched_waking", dt_on_waking,
				  "wake-ups");
}

void dt_handoff_disarm(void)
{
	dt_tracepoint_unhook(dt_tp_waking, dt_on_waking);
}
