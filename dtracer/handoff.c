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
 * event's parent), once: a reader hands each request it read to the
 * first thread it wakes, and its later wake-ups, like those of a thread
 * that was handed its request, say nothing (they pass locks: CPython's
 * GIL); an untraced thread (or one that has answered) waking
 * a thread that has answered its request gives it its next job: that
 * thread leaves its context. It is a guess, and the reason says so: the
 * kernel does not see which job the worker takes. A wake-up by an
 * interrupt, of another process, of a kernel thread, says nothing; nor
 * does one in a process that hands its jobs through a followed Python
 * queue (pyqueue.c), which says exactly who takes them.
 *
 * Locking: the probe runs inside try_to_wake_up(), the wakee's pi_lock
 * (a raw spinlock) held and interrupts off (asserted). It takes no lock
 * and allocates nothing there: it reads the table under RCU, takes a
 * reference on the context it hands, and writes what it saw into its
 * CPU's ring (struct dt_handoff_ring: preallocated, touched with
 * interrupts off on that CPU only; a full ring is a counted drop,
 * drops_handoffs), then queues the ring's irq_work. That work, once
 * pi_lock is released (a hard interrupt on the same CPU, or on
 * PREEMPT_RT the CPU's irq_work thread), applies each entry: allocates
 * the wakee's entry (GFP_ATOMIC) and changes the thread table under
 * dt_flags_lock (flags-int.h). So neither the allocator's locks nor
 * dt_flags_lock (a spinlock_t: a sleeping lock on PREEMPT_RT) is ever
 * taken inside pi_lock. The wakee may run before its entry is applied
 * (microseconds: the work is raised when the waker's interrupts come
 * back on); what it does meanwhile is attributed as before the
 * wake-up. dt_pools is lockless (one atomic word a slot). Registered
 * only while the probe is armed; disarming waits for the rings' work
 * and drains what is left.
 */
#include "flags-int.h"
#include "hooks.h"

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/percpu.h>
#include <linux/pid.h>
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

/* current's process handed a request off: it is a pool from now. */
static void dt_pool_note(void)
{
	u32 tgid = task_tgid_nr(current);

	atomic64_set(dt_pool_slot(tgid), (u64)tgid << 32 | (u32)jiffies);
}

/*
 * egress.c: current writes c's response. If another thread read c's
 * request, current's process hands requests off: it is a pool.
 */
void dt_handoff_answered(const struct dt_ctx *c)
{
	if (c->reader != task_pid_nr(current))
		dt_pool_note();
}

/*
 * unix.c: current writes the response to a request that came over a
 * UNIX socket, read there by thread reader of process tgid (the
 * context's own reader is the thread that read it on TCP, in another
 * process). Another thread of current's process: a pool (gRPC's C core
 * reads every call in its poller and answers from the worker that ran
 * it).
 */
void dt_handoff_answered_by(pid_t reader, pid_t tgid)
{
	if (reader && reader != task_pid_nr(current) &&
	    tgid == task_tgid_nr(current))
		dt_pool_note();
}

/* Whether current's process handed a request off in the last while. */
bool dt_in_pool(void)
{
	u32 tgid = task_tgid_nr(current);
	u64 v = atomic64_read(dt_pool_slot(tgid));

	return v >> 32 == tgid && (u32)jiffies - (u32)v < DT_POOL_MEMORY;
}

/*
 * Under RCU: what current's wake-ups say. *c: the context it hands to
 * the threads it wakes, the one it works for, unless it has answered it
 * already (then a wake-up says "done", not "take this job"); NULL for
 * none (a client hands nothing); *f: current's entry, for *c. False:
 * nothing at all, for a thread that was handed its request, or has
 * handed it on already, and has not answered it: its other wake-ups are
 * its locks' (CPython's GIL, passed at each blocking call, woke the
 * workers busy with other calls in gRPC's pool, and each was handed the
 * traced call); and they are no "done" either.
 */
static bool dt_flags_handing(struct dt_ctx **c, struct dt_flag **f)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(), "hand-off without RCU");
	*c = NULL;
	if (!dt_flagged(current))
		return true;
	*f = dt_flag_find(current);
	if (!*f || !(*f)->ctx || READ_ONCE((*f)->wrote))
		return true;
	if (READ_ONCE((*f)->reason) == DT_REASON_HANDOFF ||
	    READ_ONCE((*f)->handed))
		return false;
	*c = (*f)->ctx;
	return true;
}

/* A wake-up seen, to apply after it (see Locking above). */
struct dt_handoff {
	struct task_struct *task;	/* the wakee: compared, never used */
	pid_t pid;			/* ... its id, to find it again */
	pid_t waker;			/* current's tid: the event's parent */
	struct dt_ctx *ctx;		/* a reference, or NULL: "done" */
};

#define DT_HANDOFF_RING 64

struct dt_handoff_ring {
	struct irq_work work;
	unsigned int head;		/* the next entry to apply */
	unsigned int tail;		/* the next entry to fill */
	struct dt_handoff e[DT_HANDOFF_RING];
};

static DEFINE_PER_CPU(struct dt_handoff_ring, dt_handoff_rings);

/*
 * h applied: the wakee, if it is still the task that was woken, enters
 * h->ctx (handoff, the waker in the event's parent), or, for h->ctx
 * NULL, leaves a context it has answered. Puts h's reference. Any
 * context but inside the scheduler's locks (the rings' irq_work).
 */
static void dt_handoff_apply(struct dt_handoff *h)
{
	struct dt_flag *f = NULL, *old;
	struct task_struct *p;
	unsigned long irq;

	rcu_read_lock();
	p = pid_task(find_pid_ns(h->pid, &init_pid_ns), PIDTYPE_PID);
	if (p != h->task || !atomic_read(&dt_trace_active))
		goto out;
	if (h->ctx) {
		f = dt_mem_zalloc(DT_MEM_THREADS, sizeof(*f),
				  GFP_ATOMIC | __GFP_NOWARN);
		if (!f) {
			dt_stat_inc(DT_STAT_DROP_NOMEM);
			goto out;
		}
	}
	spin_lock_irqsave(&dt_flags_lock, irq);
	old = dt_flag_find(p);
	if (h->ctx &&
	    dt_flags_may_enter_locked(p, old, h->ctx, DT_REASON_HANDOFF)) {
		/* h's reference becomes the entry's. */
		dt_flag_move_locked(f, old, p, h->ctx, DT_REASON_HANDOFF,
				    h->waker);
		dt_stat_inc(DT_STAT_HANDOFFS);
		h->ctx = NULL;
		f = NULL;
	} else if (!h->ctx && old && old->ctx && old->wrote) {
		dt_flag_remove_locked(old, DT_UNFLAG_RESPONSE);
	}
	spin_unlock_irqrestore(&dt_flags_lock, irq);
out:
	rcu_read_unlock();
	dt_mem_free(DT_MEM_THREADS, f);
	dt_ctx_put(h->ctx);
}

/* The ring's entries applied, oldest first, until it is empty. */
static void dt_handoff_drain(struct dt_handoff_ring *r)
{
	struct dt_handoff h;
	unsigned long irq;

	for (;;) {
		local_irq_save(irq);
		if (r->head == r->tail) {
			local_irq_restore(irq);
			return;
		}
		h = r->e[r->head % DT_HANDOFF_RING];
		r->head++;
		local_irq_restore(irq);
		dt_handoff_apply(&h);
	}
}

static void dt_handoff_work(struct irq_work *w)
{
	dt_handoff_drain(container_of(w, struct dt_handoff_ring, work));
}

/*
 * current wakes p, a thread of its own process. If current works for a
 * request it has not answered, p works for it too (handoff, current's
 * tid in the event's parent): a worker woken for the job its reader
 * read. Else, if p has answered its request, the wake-up gives it its
 * next job, untraced: p leaves (response). A client stays a client.
 *
 * Runs inside try_to_wake_up(), p->pi_lock held, interrupts off: it only
 * decides and writes the decision into this CPU's ring, applied by the
 * ring's irq_work (see Locking above).
 */
static void dt_flags_handoff(struct task_struct *p)
{
	struct dt_handoff_ring *r;
	struct dt_flag *f = NULL;
	struct dt_handoff *h;
	struct dt_ctx *c;

	lockdep_assert_held(&p->pi_lock);
	lockdep_assert_irqs_disabled();
	rcu_read_lock();
	if (!dt_flags_handing(&c, &f) || (!c && !dt_flagged(p)) ||
	    (c && dt_flags_staying(p, c)))
		goto out;
	r = this_cpu_ptr(&dt_handoff_rings);
	if (r->tail - r->head >= DT_HANDOFF_RING) {
		dt_stat_inc(DT_STAT_DROP_HANDOFFS);
		goto out;
	}
	if (c && !dt_ctx_tryget(c))
		goto out;
	h = &r->e[r->tail % DT_HANDOFF_RING];
	h->task = p;
	h->pid = task_pid_nr(p);
	h->waker = task_pid_nr(current);
	h->ctx = c;
	r->tail++;
	irq_work_queue(&r->work);
	/* One job per request read: the first wake-up after it hands it. */
	if (c)
		WRITE_ONCE(f->handed, true);
out:
	rcu_read_unlock();
}

static void dt_on_waking(void *data, struct task_struct *p)
{
	if (!atomic_read(&dt_trace_active) || !in_task() || p == current ||
	    (p->flags & PF_KTHREAD) || !same_thread_group(current, p) ||
	    !dt_in_pool() || dt_go_thread() || dt_pyq_process())
		return;
	dt_flags_handoff(p);
}

int dt_handoff_arm(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		init_irq_work(&per_cpu(dt_handoff_rings, cpu).work,
			      dt_handoff_work);
	return dt_tracepoint_hook(&dt_tp_waking, "sched_waking", dt_on_waking,
				  "wake-ups");
}

/*
 * After the hook is gone (no ring is written any more): each ring's work
 * finished, and what it left (an offline CPU's ring) applied here, so
 * every reference the rings held is put.
 */
void dt_handoff_disarm(void)
{
	int cpu;

	dt_tracepoint_unhook(dt_tp_waking, dt_on_waking);
	for_each_possible_cpu(cpu) {
		irq_work_sync(&per_cpu(dt_handoff_rings, cpu).work);
		dt_handoff_drain(per_cpu_ptr(&dt_handoff_rings, cpu));
	}
}
