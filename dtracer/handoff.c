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
 * The rule in a pool (flags.c's dt_flags_handoff()): a thread that works
 * for a request it has not answered yet, waking another thread of its
 * own process, hands it that request (reason handoff, the waker in the
 * event's parent); an untraced thread (or one that has answered) waking
 * a thread that has answered its request gives it its next job: that
 * thread leaves its context. It is a guess, and the reason says so: the
 * kernel does not see which job the worker takes. A wake-up by an
 * interrupt, of another process, of a kernel thread, says nothing.
 *
 * The probe runs inside try_to_wake_up(), the wakee's pi_lock held and
 * interrupts off: nothing under it sleeps or wakes anyone (see
 * dt_flags_handoff()). Registered only while the probe is armed.
 */
#include "dtracer.h"

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
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
static bool dt_in_pool(void)
{
	u32 tgid = task_tgid_nr(current);
	u64 v = atomic64_read(dt_pool_slot(tgid));

	return v >> 32 == tgid && (u32)jiffies - (u32)v < DT_POOL_MEMORY;
}

static void dt_on_waking(void *data, struct task_struct *p)
{
	if (!atomic_read(&dt_trace_active) || !in_task() || p == current ||
	    (p->flags & PF_KTHREAD) || !same_thread_group(current, p) ||
	    !dt_in_pool())
		return;
	dt_flags_handoff(p);
}

int dt_handoff_arm(void)
{
	int ret;

	dt_tp_waking = dt_tracepoint_find("sched_waking");
	if (!dt_tp_waking) {
		pr_err("kernel has no sched_waking tracepoint\n");
		return -ENOENT;
	}
	ret = tracepoint_probe_register(dt_tp_waking, dt_on_waking, NULL);
	if (ret)
		pr_err("cannot hook wake-ups: %d\n", ret);
	return ret;
}

void dt_handoff_disarm(void)
{
	tracepoint_probe_unregister(dt_tp_waking, dt_on_waking, NULL);
	tracepoint_synchronize_unregister();
}
