// SPDX-License-Identifier: GPL-2.0
/*
 * Threads come and go: children of flagged threads are flagged
 * (sched_process_fork, when inherit is 1) and exiting threads lose their
 * flag and their goroutine slot (sched_process_exit). These hooks stay
 * registered while the module is loaded, whatever probe says: they only
 * touch the thread table and goroutines.c's slots.
 *
 * Tracepoint probes run with preemption disabled: no sleeping here.
 * Locking: none of its own; flags.c takes dt_flags_lock.
 */
#include "dtracer.h"
#include "hooks.h"

#include <linux/tracepoint.h>

static void dt_on_fork(void *data, struct task_struct *parent,
		       struct task_struct *child)
{
	dt_flags_fork(parent, child);
}

static void dt_on_exit(void *data, struct task_struct *task)
{
	dt_flags_task_exit(task);
	dt_go_task_exit(task);
}

static struct tracepoint *dt_tp_fork, *dt_tp_exit;

int dt_lifecycle_init(void)
{
	int ret;

	ret = dt_tracepoint_hook(&dt_tp_exit, "sched_process_exit",
				 dt_on_exit, "thread exits");
	if (ret)
		return ret;
	ret = dt_tracepoint_hook(&dt_tp_fork, "sched_process_fork",
				 dt_on_fork, "forks");
	if (ret)
		dt_tracepoint_unhook(dt_tp_exit, dt_on_exit);
	return ret;
}

void dt_lifecycle_exit(void)
{
	tracepoint_probe_unregister(dt_tp_fork, dt_on_fork, NULL);
	tracepoint_probe_unregister(dt_tp_exit, dt_on_exit, NULL);
	tracepoint_synchronize_unregister();
}
