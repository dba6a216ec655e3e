/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dtracer: zero-instrumentation distributed kernel tracing.
 * Declarations shared by the module's files.
 */
#ifndef _DTRACER_H
#define _DTRACER_H

#ifdef pr_fmt
#undef pr_fmt
#endif
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/types.h>
#include <linux/atomic.h>

/* state.c: module-wide switches. */
extern atomic_t dt_trace_active;
bool dt_probe_armed(void);
int dt_probe_set(bool arm);

/* control.c: /sys/distributed-tracer/. */
int dt_control_init(void);
void dt_control_exit(void);

#endif /* _DTRACER_H */
