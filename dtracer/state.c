// SPDX-License-Identifier: GPL-2.0
/*
 * Module-wide switches.
 *
 * dt_trace_active: non-zero while tracing is supposed to be active. It is
 * part of the original prototype's contract and exported for the
 * lttng-modules fork. It counts flagged threads; nothing flags threads
 * yet (the flag table comes with the marking work), so it stays 0.
 *
 * probe: whether dtracer's hooks are armed. Changes are serialised by
 * dt_probe_lock so that arming and disarming never interleave.
 */
#include "dtracer.h"

#include <linux/export.h>
#include <linux/mutex.h>

atomic_t dt_trace_active = ATOMIC_INIT(0);
EXPORT_SYMBOL_GPL(dt_trace_active);

static DEFINE_MUTEX(dt_probe_lock);
static bool dt_armed;

bool dt_probe_armed(void)
{
	return READ_ONCE(dt_armed);
}

/* Must be called in process context; takes dt_probe_lock. */
int dt_probe_set(bool arm)
{
	mutex_lock(&dt_probe_lock);
	if (arm != dt_armed) {
		WRITE_ONCE(dt_armed, arm);
		pr_info("probe %s\n", arm ? "armed" : "disarmed");
	}
	mutex_unlock(&dt_probe_lock);
	return 0;
}
