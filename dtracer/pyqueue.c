// SPDX-License-Identifier: GPL-2.0
/*
 * CPython's job queues: a Python pool (concurrent.futures'
 * ThreadPoolExecutor, which runs each call of gRPC's Python server)
 * hands each job to its workers through a queue.SimpleQueue, which
 * CPython implements in C, in its _queue module: the thread that
 * submits a job puts it (SimpleQueue.put(item)), a worker takes it
 * (SimpleQueue.get() returns it). The kernel sees neither, only the
 * wake-ups around them, and which worker a wake-up was for is a guess
 * (handoff.c). These functions say exactly which worker takes which
 * job. A user registers the _queue module's file (sysfs python: its
 * path and the file offsets of SimpleQueue's put, put_nowait, get and
 * get_nowait, which the dtracer command's python finds in the module's
 * method table); dtracer puts uprobes there while the probe is armed
 * (uprobes.c):
 *
 * - put(item) by a thread working for a request it has not answered:
 *   the item carries that request (a slot by hash of the process and
 *   the item's address keeps it, and the putter);
 * - get() returns an item: the thread that took it enters the request
 *   the item carries (reason handoff, the putter in the event's
 *   parent); an item that carries none takes it out of the context it
 *   was in (switched): its job is another request's;
 * - a process seen to use a registered queue in the last ten minutes
 *   hands its requests on through it only: the wake-up guess
 *   (handoff.c) says nothing there (dt_pyq_process()).
 *
 * Exact where the job is put by the thread serving the request. What
 * that thread serves stays the kernel's view (the request it last read,
 * egress.c, ingress.c, unix.c): a poller that reads two calls before it
 * submits them puts both under the last one read. The arguments are
 * CPython's (3.11 to 3.13, x86-64): put's are a vector (the item first,
 * a put with the item as a keyword only carries nothing), get returns
 * the item in AX. A job nobody takes keeps its request's reference
 * until its slot is reused, it is found older than DT_PYQ_AGE, or the
 * probes go; a traced job whose slot another traced job takes is lost
 * (drops_queue).
 *
 * Locking: dt_pyq_lock (spin_lock_irqsave) is a leaf, taken with no
 * other lock of dtracer's held; the thread table is changed after it is
 * released. Handlers run in the probed thread's own context,
 * preemptible (they read the put's vector from user memory).
 */
#include "dtracer.h"
#include "uprobes.h"

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#define DT_PYQ_BITS 8
#define DT_PYQ_AGE (30 * HZ)
#define DT_PYQ_PROC_BITS 8
#define DT_PYQ_MEMORY (600 * HZ)

/* A traced job, put and not taken yet. */
struct dt_pyq_job {
	pid_t tgid;
	pid_t putter;
	unsigned long item;
	struct dt_ctx *ctx;	/* a reference; NULL: a free slot */
	unsigned long at;	/* jiffies when put */
};

static struct dt_pyq_job dt_pyq_jobs[1 << DT_PYQ_BITS];
static DEFINE_SPINLOCK(dt_pyq_lock);
static unsigned int dt_pyq_count;	/* slots in use (dt_pyq_lock) */

/* Per slot: a process id (high 32 bits), when it last used a queue. */
static atomic64_t dt_pyq_procs[1 << DT_PYQ_PROC_BITS];

static struct dt_uprobes dt_pyq_uprobes;

static atomic64_t *dt_pyq_proc_slot(u32 tgid)
{
	return &dt_pyq_procs[hash_32(tgid, DT_PYQ_PROC_BITS)];
}

/* current's process put or took a job through a registered queue. */
static void dt_pyq_proc_note(void)
{
	u32 tgid = task_tgid_nr(current);
	atomic64_t *s = dt_pyq_proc_slot(tgid);
	u64 v = (u64)tgid << 32 | (u32)jiffies;

	/* Once a second is enough: a store per job would bounce the line. */
	if (atomic64_read(s) >> 32 != tgid ||
	    (u32)jiffies - (u32)atomic64_read(s) >= HZ)
		atomic64_set(s, v);
}

/*
 * handoff.c: whether current's process hands its jobs on through a
 * registered queue (then its wake-ups say nothing).
 */
bool dt_pyq_process(void)
{
	u32 tgid = task_tgid_nr(current);
	u64 v;

	if (!dt_uprobes_live(&dt_pyq_uprobes))
		return false;
	v = atomic64_read(dt_pyq_proc_slot(tgid));
	return v >> 32 == tgid && (u32)jiffies - (u32)v < DT_PYQ_MEMORY;
}

static struct dt_pyq_job *dt_pyq_slot(pid_t tgid, unsigned long item)
{
	return &dt_pyq_jobs[hash_long(item ^ tgid, DT_PYQ_BITS)];
}

/* Under dt_pyq_lock: j freed; returns its reference, for the caller. */
static struct dt_ctx *dt_pyq_free_locked(struct dt_pyq_job *j)
{
	struct dt_ctx *c = j->ctx;

	lockdep_assert_held(&dt_pyq_lock);
	if (c)
		WRITE_ONCE(dt_pyq_count, dt_pyq_count - 1);
	WRITE_ONCE(j->ctx, NULL);
	return c;
}

/* The request current works for and has not answered (a reference). */
static struct dt_ctx *dt_pyq_putter_ctx(void)
{
	struct dt_sender by;
	struct dt_ctx *c = NULL;

	rcu_read_lock();
	if (dt_flag_sender(current, &by) && !by.client && !by.answered &&
	    by.ctx && !READ_ONCE(by.ctx->answered) && dt_ctx_tryget(by.ctx))
		c = by.ctx;
	rcu_read_unlock();
	return c;
}

/* put(self, args, nargs, kwnames): args[0], the item, carries c. */
static int dt_pyq_on_put(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	const unsigned long __user *args = (const void __user *)regs->si;
	pid_t tgid = task_tgid_nr(current);
	struct dt_ctx *c, *old = NULL;
	struct dt_pyq_job *j;
	unsigned long item, irq;

	dt_pyq_proc_note();
	if (!atomic_read(&dt_trace_active) && !READ_ONCE(dt_pyq_count))
		return 0;
	if ((long)regs->dx < 1 || get_user(item, args) || !item)
		return 0;
	c = dt_pyq_putter_ctx();
	j = dt_pyq_slot(tgid, item);
	/* An untraced job: only a stale entry of its address to clear. */
	if (!c && !READ_ONCE(j->ctx))
		return 0;
	spin_lock_irqsave(&dt_pyq_lock, irq);
	if (j->ctx && (c || (j->tgid == tgid && j->item == item))) {
		old = dt_pyq_free_locked(j);
		/* Another traced job, not taken yet, loses its slot. */
		if (j->tgid != tgid || j->item != item)
			dt_stat_inc(DT_STAT_DROP_QUEUE);
	}
	if (c) {
		j->tgid = tgid;
		j->putter = task_pid_nr(current);
		j->item = item;
		j->at = jiffies;
		WRITE_ONCE(j->ctx, c);
		WRITE_ONCE(dt_pyq_count, dt_pyq_count + 1);
	}
	spin_unlock_irqrestore(&dt_pyq_lock, irq);
	dt_ctx_put(old);
	return 0;
}

/* get(...) returned the item in AX: current takes its request, or none. */
static int dt_pyq_on_get(struct uprobe_consumer *uc, unsigned long func,
			 struct pt_regs *regs)
{
	unsigned long item = regs->ax, irq;
	pid_t tgid = task_tgid_nr(current);
	struct dt_ctx *c = NULL;
	struct dt_pyq_job *j;
	pid_t putter = 0;
	bool fresh = false;

	dt_pyq_proc_note();
	if (!item || (!atomic_read(&dt_trace_active) &&
		      !READ_ONCE(dt_pyq_count)))
		return 0;
	j = dt_pyq_slot(tgid, item);
	spin_lock_irqsave(&dt_pyq_lock, irq);
	if (j->ctx && j->tgid == tgid && j->item == item) {
		putter = j->putter;
		fresh = time_before(jiffies, j->at + DT_PYQ_AGE);
		c = dt_pyq_free_locked(j);
	}
	spin_unlock_irqrestore(&dt_pyq_lock, irq);
	if (c && !fresh) {
		dt_ctx_put(c);
		c = NULL;
	}
	if (c) {
		if (dt_flags_enter_from(current, c, DT_REASON_HANDOFF, putter))
			dt_stat_inc(DT_STAT_QUEUE_HANDOFFS);
		dt_ctx_put(c);
	} else if (dt_flag_sender(current, NULL)) {
		dt_flags_leave(current);
	}
	return 0;
}

/* The jobs forgotten (disarmed, or the last file gone). */
static void dt_pyq_forget(void)
{
	unsigned long irq;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dt_pyq_jobs); i++) {
		struct dt_ctx *c;

		spin_lock_irqsave(&dt_pyq_lock, irq);
		c = dt_pyq_free_locked(&dt_pyq_jobs[i]);
		spin_unlock_irqrestore(&dt_pyq_lock, irq);
		dt_ctx_put(c);
	}
}

static const struct dt_uprobe_fn dt_pyq_fns[] = {
	{ "SimpleQueue.put", dt_pyq_on_put },
	{ "SimpleQueue.put_nowait", dt_pyq_on_put },
	{ "SimpleQueue.get", NULL, dt_pyq_on_get },
	{ "SimpleQueue.get_nowait", NULL, dt_pyq_on_get },
};

/*
 * sysfs python: "PATH PUT PUT_NOWAIT GET GET_NOWAIT" (file offsets of
 * the functions in CPython's _queue module, as the dtracer command's
 * python finds them); see uprobes.c.
 */
static struct dt_uprobes dt_pyq_uprobes = {
	.what = "python",
	.fns = dt_pyq_fns,
	.nfns = ARRAY_SIZE(dt_pyq_fns),
	.forget = dt_pyq_forget,
	.mutex = __MUTEX_INITIALIZER(dt_pyq_uprobes.mutex),
};

/* state.c: the uprobes follow the probe (armed: on, disarmed: off). */
int dt_pyq_arm(void)
{
	return dt_uprobes_arm(&dt_pyq_uprobes);
}

void dt_pyq_disarm(void)
{
	dt_uprobes_disarm(&dt_pyq_uprobes);
}

void dt_pyq_clear(void)
{
	dt_uprobes_clear(&dt_pyq_uprobes);
}

int dt_pyq_set(const char *buf, size_t len)
{
	return dt_uprobes_set(&dt_pyq_uprobes, buf, len);
}

ssize_t dt_pyq_show(char *buf)
{
	return dt_uprobes_show(&dt_pyq_uprobes, buf);
}
