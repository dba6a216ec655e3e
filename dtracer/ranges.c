// SPDX-License-Identifier: GPL-2.0
/*
 * Sets of TCP sequence ranges (see ranges.h).
 */
#include "ranges.h"

/* Merges range i with the ranges after it that it touches or overlaps. */
static void dt_ranges_coalesce(struct dt_ranges *rs, unsigned int i)
{
	unsigned int j;

	while (i + 1 < rs->n && !dt_seq_before(rs->r[i].end, rs->r[i + 1].start)) {
		if (dt_seq_before(rs->r[i].end, rs->r[i + 1].end))
			rs->r[i].end = rs->r[i + 1].end;
		for (j = i + 1; j + 1 < rs->n; j++)
			rs->r[j] = rs->r[j + 1];
		rs->n--;
	}
}

int dt_ranges_add(struct dt_ranges *rs, u32 start, u32 end)
{
	unsigned int i, j;

	if (!dt_seq_before(start, end))
		return 0;
	/* i: the first range that ends at or after start. */
	for (i = 0; i < rs->n && dt_seq_before(rs->r[i].end, start); i++)
		;
	if (i < rs->n && !dt_seq_before(end, rs->r[i].start)) {
		if (dt_seq_before(start, rs->r[i].start))
			rs->r[i].start = start;
		if (dt_seq_before(rs->r[i].end, end))
			rs->r[i].end = end;
		dt_ranges_coalesce(rs, i);
		return 0;
	}
	if (rs->n == DT_RANGES_MAX)
		return -ENOSPC;
	for (j = rs->n; j > i; j--)
		rs->r[j] = rs->r[j - 1];
	rs->r[i].start = start;
	rs->r[i].end = end;
	rs->n++;
	return 0;
}

bool dt_ranges_overlap(const struct dt_ranges *rs, u32 start, u32 end)
{
	unsigned int i;

	if (!dt_seq_before(start, end))
		return false;
	for (i = 0; i < rs->n; i++)
		if (dt_seq_before(start, rs->r[i].end) &&
		    dt_seq_before(rs->r[i].start, end))
			return true;
	return false;
}

void dt_ranges_prune(struct dt_ranges *rs, u32 seq)
{
	unsigned int i, keep = 0;

	for (i = 0; i < rs->n; i++) {
		if (!dt_seq_before(seq, rs->r[i].end))
			continue;
		rs->r[keep] = rs->r[i];
		if (dt_seq_before(rs->r[keep].start, seq))
			rs->r[keep].start = seq;
		keep++;
	}
	rs->n = keep;
}

bool dt_ranges_last_end(const struct dt_ranges *rs, u32 *end)
{
	if (!rs->n)
		return false;
	*end = rs->r[rs->n - 1].end;
	return true;
}
