// SPDX-License-Identifier: GPL-2.0
/*
 * The gate: what the lttng-modules fork asks before recording an event.
 *
 * Modes (sysfs "gate"):
 *   off     the fork records as stock LTTng;
 *   global  every event while some thread is flagged (dt_trace_active
 *           non-zero), none otherwise: the original prototype's contract;
 *   thread  events of flagged threads, but those of a thread in a
 *           request's context during a read or write system call on
 *           another TCP connection (scope.c); in interrupt and softirq
 *           context, the interrupts of a flagged thread and of an idle
 *           CPU (where a request's packets arrive while its threads
 *           wait), none of an unflagged busy thread.
 * dtracer's own events (probes/) bypass the gate in every mode. The gate
 * applies only while the probe is armed: with probe 0 dtracer is inactive
 * and the fork records as stock LTTng, whatever the mode.
 *
 * The fork finds these functions, and dt_trace_active, by name when a
 * session starts (symbol_get, which pins this module while a session is
 * active). It reads dt_trace_active itself before calling
 * dt_gate_record(): zero (no thread flagged) must close the gate in every
 * mode that applies, as it does in global and thread. The fork also
 * gives a callback that switches its static key: dtracer calls it with
 * "on" (mode global or thread, probe armed) or "off" at attach and on
 * every change of either, so that when the gate does not apply the
 * fork's check is a patched-out branch.
 *
 * The fork also reads the hint without a call: while a thread is flagged,
 * an event in task context whose thread's bit, hash_ptr(current,
 * dt_gate_hint_bits), is clear in the bitmap *dt_gate_hint does not
 * pass. In mode thread that bitmap is flags.c's (a bit set while a
 * flagged thread hashes there), so unflagged threads' events stop in the
 * fork's inline check; in mode global every bit is set (every event is
 * asked about). A set bit means "ask": dt_gate_record() decides.
 *
 * In mode thread, the fork also names its system call probes
 * (dt_gate_syscall_probes()), and syscalls.c narrows the system call
 * tracepoints to flagged threads while they are the only probes there:
 * unflagged threads then skip the tracepoints (and the kernel's system
 * call slow path) altogether. Widened before the key may go off, narrowed
 * after it is on.
 *
 * Locking: dt_gate_lock (a mutex, process context) serialises the mode
 * and the client; the client's callback is called under it and takes no
 * lock of dtracer's. state.c tells the gate whether the probe is armed
 * (dt_gate_set_armed(), under dt_probe_lock: so dt_probe_lock, then
 * dt_gate_lock); the gate never calls back into state.c. The gate calls
 * syscalls.c under dt_gate_lock, and syscalls.c takes its own locks
 * after it, never calling back. dt_gate_record() reads the mode
 * locklessly.
 */
#include "dtracer.h"

#include <linux/export.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched.h>

static DEFINE_MUTEX(dt_gate_lock);
static enum dt_gate_mode dt_gate_mode = DT_GATE_GLOBAL;
static void (*dt_gate_client)(bool on);	/* under dt_gate_lock */
static bool dt_gate_armed;			/* under dt_gate_lock */

static unsigned long dt_gate_all[BITS_TO_LONGS(1 << DT_HINT_BITS)] = {
	[0 ... BITS_TO_LONGS(1 << DT_HINT_BITS) - 1] = ~0UL
};

/* The hint the fork reads (see above): dt_gate_all or dt_flags_hint. */
unsigned long *dt_gate_hint = dt_gate_all;
EXPORT_SYMBOL_GPL(dt_gate_hint);
const unsigned int dt_gate_hint_bits = DT_HINT_BITS;
EXPORT_SYMBOL_GPL(dt_gate_hint_bits);

const char *const dt_gate_names[DT_GATE_COUNT] = {
	[DT_GATE_OFF] = "off",
	[DT_GATE_GLOBAL] = "global",
	[DT_GATE_THREAD] = "thread",
};

enum dt_gate_mode dt_gate_get(void)
{
	return READ_ONCE(dt_gate_mode);
}

/* Whether the fork must ask: a mode that filters, and the probe armed. */
static bool dt_gate_applies(void)
{
	lockdep_assert_held(&dt_gate_lock);
	return dt_gate_mode != DT_GATE_OFF && dt_gate_armed;
}

/*
 * Tells the fork whether the gate applies, and syscalls.c whether to
 * narrow: only in mode thread with the gate applying, and never while
 * the fork's key might be off (widened first, narrowed last).
 */
static void dt_gate_notify(void)
{
	bool on, narrow;

	lockdep_assert_held(&dt_gate_lock);
	on = dt_gate_client && dt_gate_applies();
	narrow = on && dt_gate_mode == DT_GATE_THREAD;
	if (!narrow)
		dt_syscalls_update(false);
	if (dt_gate_client)
		dt_gate_client(on);
	if (narrow)
		dt_syscalls_update(true);
}

void dt_gate_set(enum dt_gate_mode mode)
{
	mutex_lock(&dt_gate_lock);
	/* Never a moment with the thread hint in another mode. */
	dt_syscalls_update(false);
	WRITE_ONCE(dt_gate_hint, dt_gate_all);
	WRITE_ONCE(dt_gate_mode, mode);
	if (mode == DT_GATE_THREAD)
		WRITE_ONCE(dt_gate_hint, dt_flags_hint);
	dt_gate_notify();
	mutex_unlock(&dt_gate_lock);
}

/* The probe was armed or disarmed (state.c): tell the fork. */
void dt_gate_set_armed(bool armed)
{
	mutex_lock(&dt_gate_lock);
	dt_gate_armed = armed;
	dt_gate_notify();
	mutex_unlock(&dt_gate_lock);
}

/* Whether the fork is attached (a session is active). */
bool dt_gate_attached(void)
{
	bool ret;

	mutex_lock(&dt_gate_lock);
	ret = dt_gate_client;
	mutex_unlock(&dt_gate_lock);
	return ret;
}

int dt_gate_attach(void (*changed)(bool on))
{
	int ret = 0;

	mutex_lock(&dt_gate_lock);
	if (dt_gate_client) {
		ret = -EBUSY;
	} else {
		dt_gate_client = changed;
		dt_gate_notify();
	}
	mutex_unlock(&dt_gate_lock);
	if (!ret)
		pr_info("lttng attached to the gate (mode %s)\n",
			dt_gate_names[dt_gate_get()]);
	return ret;
}
EXPORT_SYMBOL_GPL(dt_gate_attach);

void dt_gate_detach(void)
{
	mutex_lock(&dt_gate_lock);
	dt_syscalls_set_probes(NULL, NULL);
	dt_syscalls_update(false);
	dt_gate_client = NULL;
	mutex_unlock(&dt_gate_lock);
	pr_info("lttng detached from the gate\n");
}
EXPORT_SYMBOL_GPL(dt_gate_detach);

/*
 * The fork's probes on sys_enter and sys_exit, which ask the gate before
 * anything else: while they are the only probes there, syscalls.c may
 * narrow. Called by the fork after dt_gate_attach(); detaching forgets
 * them.
 */
int dt_gate_syscall_probes(void *entry, void *exit)
{
	int ret = -ENOENT;

	mutex_lock(&dt_gate_lock);
	if (dt_gate_client) {
		dt_syscalls_set_probes(entry, exit);
		ret = 0;
	}
	mutex_unlock(&dt_gate_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(dt_gate_syscall_probes);

/*
 * Mode thread, an event of current (a task's, or an interrupt of a busy
 * thread): whether current is flagged, and in task context, not working
 * on another connection than its request's (scope.c).
 */
static bool dt_gate_thread(void)
{
	struct dt_sender by;
	bool pass;

	rcu_read_lock();
	pass = dt_flag_sender(current, &by) &&
	       (!in_task() || by.client || !dt_scope_foreign(by.ctx));
	rcu_read_unlock();
	return pass;
}

/*
 * Whether the event happening now may be recorded. Any context; called
 * by the fork with preemption disabled.
 */
bool dt_gate_record(void)
{
	switch (READ_ONCE(dt_gate_mode)) {
	case DT_GATE_THREAD:
		if (in_task() || !is_idle_task(current))
			return dt_gate_thread();
		fallthrough;
	case DT_GATE_GLOBAL:
		return atomic_read(&dt_trace_active) != 0;
	default:
		return true;
	}
}
EXPORT_SYMBOL_GPL(dt_gate_record);
