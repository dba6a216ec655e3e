// SPDX-License-Identifier: GPL-2.0
/*
 * Syscalls: which threads enter the system call tracepoints at all.
 *
 * A thread's system calls take the kernel's slow path, and call the
 * sys_enter and sys_exit tracepoints, while its SYSCALL_WORK_SYSCALL_TRACEPOINT
 * bit is set. The first probe registered on either tracepoint sets the
 * bit on every thread (the kernel's syscall_regfunc), the last one
 * removed clears it everywhere. So with a gated LTTng session recording
 * system calls, an unflagged thread's system call events are refused by
 * the gate, but only after the slow path and two tracepoint calls per
 * system call (docs/benchmarks.md).
 *
 * Narrowed: while the gate's mode is thread and it applies (probe armed,
 * the fork attached), and every probe on sys_enter and sys_exit is one of
 * the fork's gated system call probes (dt_gate_syscall_probes()), only
 * flagged threads keep the bit. Narrowing clears it on the others;
 * flags.c sets it on a thread when it is flagged and clears it when it is
 * unflagged. Nothing is lost: those probes would have refused the events
 * of every thread that loses the bit.
 *
 * Widened (as stock): otherwise. Every thread gets the bit back while
 * either tracepoint has a probe, or loses it when neither has (the state
 * the kernel would be in without dtracer). Any other probe (perf, ftrace,
 * BPF, LTTng's triggers) arriving on either tracepoint widens at once,
 * before it is added: a kretprobe on tracepoint_add_func, whose entry
 * handler sees the probe, and whose return handler, like the one on
 * tracepoint_probe_unregister, brings the bits in line with the probes as
 * they now are. The kretprobes are registered only while narrowing is
 * wanted; without them (a kernel where tracepoint_add_func is inlined)
 * nothing is narrowed.
 *
 * Threads created during a walk may miss it, as they may miss the
 * kernel's own walk in syscall_regfunc: a child copies its parent's bit.
 *
 * Locks: dt_syscalls_lock (a mutex: process context) serialises the
 * gate's calls, dt_syscalls_update() and dt_syscalls_set_probes(), and
 * guards the kretprobes' registration (dt_hooked). gate.c calls them
 * under its dt_gate_lock, which comes first; this file calls nothing of
 * gate.c's. dt_narrow_lock (a spinlock: the kretprobe handlers run with
 * preemption off) serialises the walks; it is taken under
 * dt_syscalls_lock, or alone by the handlers, and before dt_flags_lock.
 * dt_narrowed is written under both spinlocks, so that flags.c, which
 * reads it under dt_flags_lock, sets and clears bits consistently with
 * the walks.
 */
#include "dtracer.h"
#include "hooks.h"

#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/thread_info.h>
#include <linux/tracepoint.h>

static DEFINE_MUTEX(dt_syscalls_lock);
static DEFINE_SPINLOCK(dt_narrow_lock);
static struct tracepoint *dt_sys_enter, *dt_sys_exit;
/* Under dt_narrow_lock: */
static void *dt_gated[2];	/* the fork's probes (entry, exit) */
static bool dt_wanted;		/* by the gate, and the hooks are in */
static bool dt_touched;		/* bits changed from what stock would have */
static unsigned int dt_adding;	/* foreign probes being added */
/* Under dt_syscalls_lock: */
static bool dt_hooked;		/* the kretprobes are registered */

static bool dt_sys_tp(const struct tracepoint *tp)
{
	return tp && (tp == dt_sys_enter || tp == dt_sys_exit);
}

static bool dt_gated_probe(const void *fn)
{
	return fn && (fn == dt_gated[0] || fn == dt_gated[1]);
}

/* tp's probes: 0 none, 1 only gated ones, -1 some other. */
static int dt_tp_probes(struct tracepoint *tp)
{
	struct tracepoint_func *f;

	lockdep_assert_held(&dt_narrow_lock);
	f = rcu_dereference_sched(tp->funcs);
	if (!f)
		return 0;
	for (; f->func; f++)
		if (!dt_gated_probe(f->func))
			return -1;
	return 1;
}

/* Every thread's bit set (on) or cleared. */
static void dt_walk_all(bool on)
{
	struct task_struct *p, *t;

	rcu_read_lock();
	for_each_process_thread(p, t) {
		if (on)
			set_task_syscall_work(t, SYSCALL_TRACEPOINT);
		else
			clear_task_syscall_work(t, SYSCALL_TRACEPOINT);
	}
	rcu_read_unlock();
}

/*
 * Only flagged threads keep the bit. A thread flagged during the walk
 * gets it from flags.c (dt_narrowed is already set), or from the check
 * after the clear: the flag's insertion comes before its set_bit.
 */
static void dt_walk_narrow(void)
{
	struct task_struct *p, *t;

	rcu_read_lock();
	for_each_process_thread(p, t) {
		if (!dt_flagged(t)) {
			clear_task_syscall_work(t, SYSCALL_TRACEPOINT);
			/* The clear, then the second look (flags.c: insert, set). */
			smp_mb__after_atomic();
			if (!dt_flagged(t))
				continue;
		}
		set_task_syscall_work(t, SYSCALL_TRACEPOINT);
	}
	rcu_read_unlock();
}

/* Brings every thread's bit in line with the gate and the probes. */
static void dt_apply(void)
{
	int enter, exit;
	bool narrow;

	lockdep_assert_held(&dt_narrow_lock);
	enter = dt_tp_probes(dt_sys_enter);
	exit = dt_tp_probes(dt_sys_exit);
	narrow = dt_wanted && dt_gated[0] && dt_gated[1] && !dt_adding &&
		 enter >= 0 && exit >= 0 && (enter || exit);
	dt_flags_set_narrowed(narrow);
	if (narrow) {
		dt_walk_narrow();
		dt_touched = true;
	} else if (dt_touched) {
		dt_walk_all(enter || exit);
		dt_touched = false;
	}
}

struct dt_tp_call {
	struct tracepoint *tp;
	bool foreign;
};

/* tracepoint_add_func(tp, func, prio, warn): a probe is being added. */
static int dt_add_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct dt_tp_call *c = (void *)ri->data;
	struct tracepoint_func *func;
	unsigned long irq;

	c->tp = (void *)regs_get_kernel_argument(regs, 0);
	func = (void *)regs_get_kernel_argument(regs, 1);
	if (!dt_sys_tp(c->tp))
		return 1;	/* no return handler */
	spin_lock_irqsave(&dt_narrow_lock, irq);
	c->foreign = !dt_gated_probe(func->func);
	if (c->foreign) {
		/* Widened before the probe is in, until it has been added. */
		dt_adding++;
		dt_apply();
	}
	spin_unlock_irqrestore(&dt_narrow_lock, irq);
	return 0;
}

static int dt_add_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct dt_tp_call *c = (void *)ri->data;
	unsigned long irq;

	spin_lock_irqsave(&dt_narrow_lock, irq);
	if (c->foreign)
		dt_adding--;
	dt_apply();
	spin_unlock_irqrestore(&dt_narrow_lock, irq);
	return 0;
}

/* tracepoint_probe_unregister(tp, probe, data): a probe was removed. */
static int dt_del_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct dt_tp_call *c = (void *)ri->data;

	c->tp = (void *)regs_get_kernel_argument(regs, 0);
	return dt_sys_tp(c->tp) ? 0 : 1;
}

static int dt_del_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned long irq;

	spin_lock_irqsave(&dt_narrow_lock, irq);
	dt_apply();
	spin_unlock_irqrestore(&dt_narrow_lock, irq);
	return 0;
}

/* Registrations are serialised by the kernel's tracepoints_mutex. */
#define DT_TP_MAXACTIVE 4

static struct kretprobe dt_krp_add, dt_krp_del;
static struct kretprobe *dt_tp_probes_krp[] = { &dt_krp_add, &dt_krp_del };

/* Under dt_syscalls_lock: the kretprobes in; 0 or an errno (logged once). */
static int dt_hook(void)
{
	int ret;

	lockdep_assert_held(&dt_syscalls_lock);
	dt_kretprobe_init(&dt_krp_add, "tracepoint_add_func", dt_add_entry,
			  dt_add_return, sizeof(struct dt_tp_call),
			  DT_TP_MAXACTIVE);
	dt_kretprobe_init(&dt_krp_del, "tracepoint_probe_unregister",
			  dt_del_entry, dt_del_return, sizeof(struct dt_tp_call),
			  DT_TP_MAXACTIVE);
	ret = register_kretprobes(dt_tp_probes_krp,
				  ARRAY_SIZE(dt_tp_probes_krp));
	if (ret)
		pr_warn_once("system calls of unflagged threads stay traced: cannot hook tracepoint registration (%d)\n",
			     ret);
	return ret;
}

/* Under dt_syscalls_lock: the kretprobes out. */
static void dt_unhook(void)
{
	lockdep_assert_held(&dt_syscalls_lock);
	unregister_kretprobes(dt_tp_probes_krp, ARRAY_SIZE(dt_tp_probes_krp));
}

/*
 * The gate's state changed: narrow when want, the fork's probes known
 * and the hooks in place; otherwise widen. Process context.
 */
void dt_syscalls_update(bool want)
{
	unsigned long irq;

	mutex_lock(&dt_syscalls_lock);
	if (!dt_sys_enter || !dt_sys_exit)
		want = false;
	if (want && !dt_hooked)
		dt_hooked = !dt_hook();
	spin_lock_irqsave(&dt_narrow_lock, irq);
	dt_wanted = want && dt_hooked;
	dt_apply();
	spin_unlock_irqrestore(&dt_narrow_lock, irq);
	if (!want && dt_hooked) {
		dt_unhook();
		dt_hooked = false;
	}
	mutex_unlock(&dt_syscalls_lock);
}

/*
 * The fork's gated system call probes (NULL, NULL: none). Process
 * context.
 */
void dt_syscalls_set_probes(void *entry, void *exit)
{
	unsigned long irq;

	mutex_lock(&dt_syscalls_lock);
	spin_lock_irqsave(&dt_narrow_lock, irq);
	dt_gated[0] = entry;
	dt_gated[1] = exit;
	dt_apply();
	spin_unlock_irqrestore(&dt_narrow_lock, irq);
	mutex_unlock(&dt_syscalls_lock);
}

void dt_syscalls_init(void)
{
	dt_sys_enter = dt_tracepoint_find("sys_enter");
	dt_sys_exit = dt_tracepoint_find("sys_exit");
}
