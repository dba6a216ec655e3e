// SPDX-License-Identifier: GPL-2.0
/*
 * Module-wide switches.
 *
 * probe: whether the packet hooks are armed. Arming registers, in order,
 * the socket table's destroy hook, ingress, egress, the hand-off's
 * wake-up hook, Go's uprobes, CPython's queues' uprobes, AF_UNIX hops
 * (never failing: unix.c); disarming undoes them
 * in reverse, then drops every socket entry and ends every request's
 * context (the threads in one are unflagged; clients stay). A failure on the way
 * undoes what was done: probe stays 0. Changes are serialised by
 * dt_probe_lock (process context only: registering hooks sleeps). The
 * gate follows the probe: with probe 0 LTTng records as stock (gate.c).
 * This file tells the gate each change (dt_gate_set_armed(), under
 * dt_probe_lock); the gate never asks.
 */
#include "dtracer.h"

#include <linux/mutex.h>

static DEFINE_MUTEX(dt_probe_lock);
static bool dt_armed;

bool dt_probe_armed(void)
{
	return READ_ONCE(dt_armed);
}

static int dt_arm(void)
{
	int ret;

	ret = dt_sockets_arm();
	if (ret)
		return ret;
	ret = dt_ingress_arm();
	if (ret)
		goto out_sockets;
	ret = dt_egress_arm();
	if (ret)
		goto out_ingress;
	ret = dt_handoff_arm();
	if (ret)
		goto out_egress;
	ret = dt_go_arm();
	if (ret)
		goto out_handoff;
	ret = dt_pyq_arm();
	if (ret)
		goto out_go;
	dt_unix_arm();
	return 0;

out_go:
	dt_go_disarm();
out_handoff:
	dt_handoff_disarm();
out_egress:
	dt_egress_disarm();
out_ingress:
	dt_ingress_disarm();
out_sockets:
	dt_sockets_disarm();
	return ret;
}

static void dt_disarm(void)
{
	dt_unix_disarm();
	dt_pyq_disarm();
	dt_go_disarm();
	dt_handoff_disarm();
	dt_egress_disarm();
	dt_ingress_disarm();
	dt_sockets_disarm();
	dt_loop_reset();
	dt_flags_end_contexts();
}

int dt_probe_set(bool arm)
{
	int ret = 0;

	mutex_lock(&dt_probe_lock);
	if (arm != dt_armed) {
		if (arm)
			ret = dt_arm();
		else
			dt_disarm();
		if (!ret) {
			WRITE_ONCE(dt_armed, arm);
			dt_gate_set_armed(arm);
			pr_info("probe %s\n", arm ? "armed" : "disarmed");
		}
	}
	mutex_unlock(&dt_probe_lock);
	return ret;
}
