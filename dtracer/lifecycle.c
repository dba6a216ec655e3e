// SPDX-License-Identifier: GPL-2.0
/*
 * Threads come and go: children of flagged threads are flagged
 * (sched_process_fork, when inherit is 1) and exiting threads lose their
 * flag (sched_process_exit). These hooks stay registered while the module
 * is loaded, whatever probe says: they only touch the thread table.
 *
 * Tracepoint probes run with preemption disabled: no sleeping here.
 */
#include "dtracer.h"

#include <linux/tracepoint.h>

static void dt_on_fork(void *data, struct task_struct *parent,
		       struct task_struct *child)
{
	dt_flags_fork(parent, child);
}

static void dt_on_exit(void *data, struct task_struct *task)
{
	dt_flags_task_exit(task);
}

static struct tracepoint *dt_tp_fork, *dt_tp_exit;

int dt_lifecycle_init(void)
{
	int ret;

	dt_tp_fork = dt_tracepoint_find("sched_process_fork");
	dt_tp_exit = dt_tracepoint_find("sched_process_exit");
	if (!dt_tp_fork || !dt_tp_exit) {
		pr_err("kernel has no sched_process_fork/exit tracepoint\n");
		return -ENOENT;
	}
	ret = tracepoint_probe_register(dt_tp_exit, dt_on_exit, NULL);
	if (ret)
		return ret;
	ret = tracepoint_probe_register(dt_tp_fork, dt_on_fork, NULL);
	if (ret) {
		tracepoint_probe_unregister(dt_tp_exit, dt_on_exit, NULL);
		tracepoint_synchronize_unregister();
	}
	return ret;
}

void dt_lifecycle_exit(void)
{
	tracepoint_probe_unregister(dt_tp_fork, dt_on_fork, NULL);
	tracepoint_probe_unregister(dt_tp_exit, dt_on_exit, NULL);
	tracepoint_synchronize_unregister();
}
