/*
 * Unit tests of dtracer/ranges.c, the very file the module builds: the
 * sets of marked sequence ranges that decide which segments carry the
 * mark (egress) and which reads flag a thread (ingress).
 */
#include <string.h>

#include "ranges.h"
#include "tap.h"

static struct dt_ranges rs;

/* The set as "start-end,start-end". */
static const char *show(void)
{
	static char buf[256];
	size_t len = 0;
	unsigned int i;

	buf[0] = 0;
	for (i = 0; i < rs.n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u-%u",
					i ? "," : "", rs.r[i].start, rs.r[i].end);
	return buf;
}

static void is(const char *want, const char *what)
{
	ok(!strcmp(show(), want), "%s: [%s], want [%s]", what, show(), want);
}

int main(void)
{
	unsigned int i;
	u32 end = 0, last;

	memset(&rs, 0, sizeof(rs));
	ok(!dt_ranges_last_end(&rs, &end), "an empty set has no last end");
	ok(!dt_ranges_overlap(&rs, 0, 100), "an empty set overlaps nothing");
	ok(dt_ranges_add(&rs, 10, 10) == 0 && rs.n == 0,
	   "an empty range is accepted and ignored");

	dt_ranges_add(&rs, 100, 200);
	is("100-200", "one range");
	ok(dt_ranges_overlap(&rs, 150, 160), "a segment inside overlaps");
	ok(dt_ranges_overlap(&rs, 50, 101), "a segment ending on the first byte overlaps");
	ok(dt_ranges_overlap(&rs, 199, 300), "a segment starting on the last byte overlaps");
	ok(!dt_ranges_overlap(&rs, 50, 100), "a segment ending just before does not");
	ok(!dt_ranges_overlap(&rs, 200, 300), "a segment starting just after does not");
	ok(!dt_ranges_overlap(&rs, 150, 150), "an empty segment never overlaps");
	ok(dt_ranges_overlap(&rs, 50, 300), "a segment covering the range overlaps");

	dt_ranges_add(&rs, 200, 250);
	is("100-250", "an adjacent range merges");
	dt_ranges_add(&rs, 300, 400);
	is("100-250,300-400", "a separate range is kept apart");
	ok(dt_ranges_last_end(&rs, &end) && end == 400, "last end is 400");
	dt_ranges_add(&rs, 260, 280);
	is("100-250,260-280,300-400", "a range out of order is inserted in place");
	dt_ranges_add(&rs, 240, 310);
	is("100-400", "a range bridging three merges them");
	dt_ranges_add(&rs, 50, 100);
	is("50-400", "a range just before merges");

	dt_ranges_prune(&rs, 120);
	is("120-400", "pruning cuts the first range");
	dt_ranges_prune(&rs, 400);
	is("", "pruning at the end empties the set");

	for (i = 0; i < DT_RANGES_MAX; i++)
		ok(dt_ranges_add(&rs, i * 100, i * 100 + 10) == 0,
		   "range %u of %d fits", i + 1, DT_RANGES_MAX);
	last = (DT_RANGES_MAX - 1) * 100;
	ok(dt_ranges_add(&rs, 100000, 100010) == -ENOSPC, "one more is refused");
	ok(rs.n == DT_RANGES_MAX && rs.r[rs.n - 1].start == last,
	   "... and the set is unchanged");
	ok(dt_ranges_add(&rs, last + 5, last + 100) == 0,
	   "a range merging into the last still fits");
	ok(rs.r[rs.n - 1].end == last + 100, "... and extends it");
	dt_ranges_prune(&rs, 250);
	ok(rs.n == DT_RANGES_MAX - 3 && rs.r[0].start == 300,
	   "pruning frees the acknowledged slots");

	/* Sequence numbers wrap at 2^32. */
	memset(&rs, 0, sizeof(rs));
	dt_ranges_add(&rs, 0xfffffff0u, 0x10);
	ok(rs.n == 1, "a range across the wrap is one range");
	ok(dt_ranges_overlap(&rs, 0xfffffff8u, 0xfffffffcu), "... overlapping its part before the wrap");
	ok(dt_ranges_overlap(&rs, 0x4, 0x8), "... and its part after");
	ok(!dt_ranges_overlap(&rs, 0x10, 0x20), "... not what follows");
	dt_ranges_add(&rs, 0x10, 0x20);
	is("4294967280-32", "an adjacent range after the wrap merges");
	dt_ranges_prune(&rs, 0x8);
	is("8-32", "pruning past the wrap");
	ok(dt_seq_before(0xffffffffu, 0) && !dt_seq_before(0, 0xffffffffu),
	   "2^32 - 1 comes before 0");
	return tap_done();
}
