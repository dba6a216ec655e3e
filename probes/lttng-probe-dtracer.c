// SPDX-License-Identifier: GPL-2.0
/*
 * lttng-probe-dtracer: dtracer's own events for LTTng (events/dtracer.h),
 * attached by name to dtracer.ko's tracepoints. It loads with or without
 * dtracer.ko (LTTng attaches when dtracer.ko comes and detaches when it
 * goes), and lttng-sessiond loads it like any probe provider when
 * LTTNG_EXTRA_KMOD_PROBES names "dtracer".
 */
#include <linux/module.h>
#include <lttng/tracer.h>

/* dtracer.ko's tracepoints: the probes below must match their prototypes. */
#include <trace/dtracer.h>

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE

/* dtracer's events link hosts: they pass dtracer's gate in every mode. */
#define LTTNG_DTRACER_UNGATED
#define LTTNG_PACKAGE_BUILD
#define CREATE_TRACE_POINTS
#define TRACE_INCLUDE_PATH events
#define TRACE_INCLUDE_FILE dtracer

#include "events/dtracer.h"

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The dtracer developers");
MODULE_DESCRIPTION("LTTng probes for dtracer's events");
MODULE_VERSION("0.3.0");
