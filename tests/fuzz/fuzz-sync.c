/*
 * The clock sync (collector/sync/sync.c, collector/sync/hull.c) fed with marked
 * segments as flt.dtracer.sync reads them from the traces: up to four
 * hosts, each with its own clock offset, sending and receiving segments
 * of four flows. Then solve, the report and the summary's numbers.
 * Checked: exactly one reference host when solved, maps finite where a
 * host is aligned, a host aligned through a host that exists.
 */
#include <math.h>

#include "sync.h"

#include "fuzz.h"

static const uint8_t addr[4][4] = {
	{ 192, 0, 2, 1 }, { 192, 0, 2, 2 }, { 192, 0, 2, 3 }, { 192, 0, 2, 4 },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "h0", "h1", "h2", "h3" };
	struct fuzz_in in = { data, size };
	struct dt_sync *s = dt_sync_new();
	int64_t clock[4], t[4];
	int ref = (int)fuzz_take(&in, 1) % 6;
	int r, refs = 0;

	FUZZ_CHECK(s);
	for (int h = 0; h < 4; h++) {
		clock[h] = (int64_t)(int32_t)fuzz_take(&in, 4) * 1024;
		t[h] = 1700000000000000000LL + clock[h];
	}
	while (in.n) {
		unsigned op = (unsigned)fuzz_take(&in, 1);
		int h = op & 3, peer = (op >> 2) & 3, send = (op >> 4) & 1;
		struct dt_mark m = { .family = 2, .alen = 4 };
		int src = send ? h : peer, dst = send ? peer : h;
		uint32_t seq = (uint32_t)fuzz_take(&in, 2) << 8;

		memcpy(m.saddr, addr[src], 4);
		memcpy(m.daddr, addr[dst], 4);
		m.sport = (uint16_t)(40000 + src);
		m.dport = (uint16_t)(80 + dst);
		m.seq = seq;
		m.end_seq = seq + (uint32_t)fuzz_take(&in, 1) + 1;
		/* time moves on per host, now and then backwards a little */
		t[h] += (int16_t)fuzz_take(&in, 2) * 100;
		if ((op >> 5) & 1)
			r = dt_sync_add_segment(s, dt_sync_host_index(s,
						names[h]), send, &m, t[h],
						(op >> 6) & 1);
		else
			r = dt_sync_add_mark(s, dt_sync_host_index(s,
					     names[h]), send, &m, t[h]);
		FUZZ_CHECK(r == 0);
	}
	r = dt_sync_solve(s, ref < 4 ? names[ref] : ref == 4 ? NULL : "nope");
	FUZZ_CHECK(r == 0 || r == -ENOENT);
	FUZZ_CHECK(r == 0 || ref != 4);	/* no reference asked: one found */
	if (!r) {
		for (int i = 0; i < dt_sync_n_hosts(s); i++) {
			const struct dt_sync_host *h = dt_sync_host(s, i);

			refs += h->is_reference;
			FUZZ_CHECK(h->via >= -1 && h->via < dt_sync_n_hosts(s));
			if (h->via >= 0 || h->is_reference)
				FUZZ_CHECK(isfinite(h->map.offset) &&
					   isfinite(h->map.drift));
		}
		FUZZ_CHECK(refs == (dt_sync_n_hosts(s) > 0));
		dt_sync_report(s, fuzz_null());
	}
	FUZZ_CHECK(dt_sync_matched_net(s) <= dt_sync_matched(s));
	dt_sync_free(s);
	return 0;
}
