// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's tracepoints dtracer hooks (lifecycle.c's fork and exit,
 * ingress.c's read, syscalls.c's system call tracepoints) are not all
 * exported as symbols: they are found by name among the kernel's.
 */
#include "dtracer.h"

#include <linux/string.h>
#include <linux/tracepoint.h>

struct dt_tp_search {
	const char *name;
	struct tracepoint *tp;
};

static void dt_tp_match(struct tracepoint *tp, void *priv)
{
	struct dt_tp_search *s = priv;

	if (!strcmp(tp->name, s->name))
		s->tp = tp;
}

/* The kernel's tracepoint called name, or NULL. Process context. */
struct tracepoint *dt_tracepoint_find(const char *name)
{
	struct dt_tp_search s = { .name = name };

	for_each_kernel_tracepoint(dt_tp_match, &s);
	return s.tp;
}
