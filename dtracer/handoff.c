// SPDX-License-Identifier: GPL-2.0
/*
 * Hand-off: a request read by one thread and served by another. A server
 * that reads requests in one thread and serves them in others (a worker
 * pool fed by a queue) wakes the worker when it hands it a job: through
 * a futex (a condition variable, a semaphore), an eventfd, a pipe, an
 * epoll wake-up. Whatever the channel, the scheduler wakes the worker:
 * the tracepoint sched_waking, with the waker as current.
 *
 * The rule (flags.c's dt_flags_handoff()): a thread that works for a
 * request it has not answered yet, waking another thread of its own
 * process, hands it that request (reason handoff, the waker in the
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

#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/tracepoint.h>

static struct tracepoint *dt_tp_waking;

static void dt_on_waking(void *data, struct task_struct *p)
{
	if (!atomic_read(&dt_trace_active) || !in_task() || p == current ||
	    (p->flags & PF_KTHREAD) || !same_thread_group(current, p))
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
