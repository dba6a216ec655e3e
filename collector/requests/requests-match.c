/*
 * Requests, stage 2: matching. Marked segments grouped by directed flow,
 * sequence numbers unwrapped, and each receive matched with the earliest
 * send of the same bytes on another host: by segments.c, the match the
 * clock sync makes too.
 */
#define _DEFAULT_SOURCE
#include <string.h>

#include <glib.h>

#include "requests-int.h"

void rq_flowsegs_free(gpointer p)
{
	struct flowsegs *fs = p;

	g_array_free(fs->sends, TRUE);
	g_array_free(fs->recvs, TRUE);
	g_free(fs);
}

static struct flowsegs *flow_get(struct finish *F, const struct dt_flow *f)
{
	struct flowsegs *fs = g_hash_table_lookup(F->flows, f);

	if (!fs) {
		fs = g_new0(struct flowsegs, 1);
		fs->sends = g_array_new(FALSE, FALSE, sizeof(int));
		fs->recvs = g_array_new(FALSE, FALSE, sizeof(int));
		g_hash_table_insert(F->flows, (gpointer)f, fs);
	}
	return fs;
}

static void unwrap(struct flowsegs *fs, struct seg *s)
{
	dt_seq_unwrap(&fs->base, s->seq, s->end_seq, &s->lo, &s->hi);
}

void rq_index_flows(struct finish *F)
{
	guint i;

	for (i = 0; i < F->b->sends->len; i++) {
		struct seg *s = send_at(F, i);
		struct flowsegs *fs = flow_get(F, &s->flow);
		int v = (int)i;

		unwrap(fs, s);
		g_array_append_val(fs->sends, v);
	}
	for (i = 0; i < F->b->recvs->len; i++) {
		struct seg *r = recv_at(F, i);
		struct flowsegs *fs = flow_get(F, &r->flow);
		int v = (int)i;

		unwrap(fs, r);
		g_array_append_val(fs->recvs, v);
	}
}

/*
 * Each receive of the flow with its send, each send with its first
 * receive (segments.c: the earliest send of the same bytes on another
 * host). 0 or -1 (out of memory).
 */
int rq_match_flow(struct finish *F, struct flowsegs *fs)
{
	guint ns = fs->sends->len, nr = fs->recvs->len, i;
	struct dt_seg *snd = g_new(struct dt_seg, ns ? ns : 1);
	struct dt_seg *rcv = g_new(struct dt_seg, nr ? nr : 1);
	struct dt_seg_match *match = g_new(struct dt_seg_match, nr ? nr : 1);
	int *first = g_new(int, ns ? ns : 1), ret = -1;

	for (i = 0; i < ns; i++) {
		const struct seg *s = send_at(F, g_array_index(fs->sends, int, i));

		snd[i] = (struct dt_seg){ s->lo, s->hi, s->ts, s->host, false };
	}
	for (i = 0; i < nr; i++) {
		const struct seg *r = recv_at(F, g_array_index(fs->recvs, int, i));

		rcv[i] = (struct dt_seg){ r->lo, r->hi, r->ts, r->host, false };
	}
	if (dt_segs_match(snd, ns, rcv, nr, match, first))
		goto out;
	for (i = 0; i < nr; i++)
		if (match[i].send >= 0)
			recv_at(F, g_array_index(fs->recvs, int, i))->match =
				g_array_index(fs->sends, int, match[i].send);
	for (i = 0; i < ns; i++)
		if (first[i] >= 0)
			send_at(F, g_array_index(fs->sends, int, i))->match =
				g_array_index(fs->recvs, int, first[i]);
	ret = 0;
out:
	g_free(snd);
	g_free(rcv);
	g_free(match);
	g_free(first);
	return ret;
}
