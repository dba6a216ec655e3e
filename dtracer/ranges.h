/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sets of TCP sequence ranges: the marked bytes of one direction of one
 * socket. Plain C with no kernel dependency (the userspace unit tests
 * build this very file). Fixed size: a set never grows; an add that does
 * not fit is refused and counted by the caller.
 *
 * Ranges are half-open [start, end) in sequence space and compared modulo
 * 2^32, like the kernel's before()/after().
 */
#ifndef _DTRACER_RANGES_H
#define _DTRACER_RANGES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#else
#include "kernel-types.h"	/* tests/unit/: u8, u32, bool, errno */
#endif

#define DT_RANGES_MAX 16

struct dt_range {
	u32 start;
	u32 end;
};

/* Ranges kept in sequence order, disjoint and not adjacent. */
struct dt_ranges {
	u8 n;
	struct dt_range r[DT_RANGES_MAX];
};

/* Whether a comes before b in sequence space. */
static inline bool dt_seq_before(u32 a, u32 b)
{
	return (int)(a - b) < 0;
}

/*
 * Adds [start, end), merging it with the ranges it touches or overlaps.
 * Empty ranges are accepted and ignored. Returns 0, or -ENOSPC when it
 * needs a new slot and the set is full (the set is then unchanged).
 */
int dt_ranges_add(struct dt_ranges *rs, u32 start, u32 end);

/* Whether any byte of [start, end) is in the set. */
bool dt_ranges_overlap(const struct dt_ranges *rs, u32 start, u32 end);

/* Drops the bytes before seq (acknowledged or read): they never come back. */
void dt_ranges_prune(struct dt_ranges *rs, u32 seq);

/* The end of the last range, or false if the set is empty. */
bool dt_ranges_last_end(const struct dt_ranges *rs, u32 *end);

#endif /* _DTRACER_RANGES_H */
