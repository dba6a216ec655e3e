// SPDX-License-Identifier: GPL-2.0
/*
 * dtracer: module init and exit, nothing else. Each concern lives in its
 * own file (see docs/architecture.md): flags.c (flagged threads),
 * manual.c (add_pid, remove_pid, list_pid), ctx.c (the requests
 * served), context.c (threads moving between them), handoff.c (hand-offs),
 * goroutines.c (Go's goroutines, through uprobes), deferred.c (event
 * loops' deferred calls), scope.c (the gate's scope on event loops),
 * lifecycle.c (fork/exit), hooks.c (hooking the kernel: tracepoints by
 * name, netfilter, kretprobes), sockets.c (marked ranges per socket),
 * tuple.c (a socket's addresses), egress.c (marking), ingress.c
 * (detection, propagation), trust.c (whose marks are honoured), state.c
 * (switches), gate.c (what LTTng records), syscalls.c (which threads
 * enter the system call tracepoints), events.c (dtracer's tracepoints),
 * control.c (sysfs), stats.c, parse.c, ranges.c.
 */
#include "dtracer.h"

#include <linux/module.h>
#include <linux/rcupdate.h>

static int __init dt_init(void)
{
	int ret;

	ret = dt_trust_init();
	if (ret)
		return ret;
	dt_syscalls_init();
	ret = dt_lifecycle_init();
	if (ret)
		goto out_trust;
	ret = dt_control_init();
	if (ret)
		goto out_lifecycle;
	pr_info("loaded\n");
	return 0;

out_lifecycle:
	dt_lifecycle_exit();
out_trust:
	dt_trust_exit();
	rcu_barrier();
	return ret;
}

/*
 * Control first (no new writes), then the packet hooks, then fork/exit,
 * then the flags. The tables' entries go by kfree_rcu() (no module code
 * runs when they are freed); rcu_barrier() waits for any other RCU
 * callback queued meanwhile.
 */
static void __exit dt_exit(void)
{
	dt_control_exit();
	dt_probe_set(false);
	dt_go_clear();
	dt_pyq_clear();
	dt_lifecycle_exit();
	dt_flags_exit();
	dt_trust_exit();
	rcu_barrier();
	pr_info("unloaded\n");
}

module_init(dt_init);
module_exit(dt_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Zero-instrumentation distributed kernel tracing");
MODULE_AUTHOR("The dtracer developers");
MODULE_VERSION("0.7.1");
