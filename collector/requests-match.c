/*
 * Requests, stage 2: matching. Marked segments grouped by directed flow,
 * sequence numbers unwrapped, and each receive matched with the earliest
 * send of the same bytes on another host.
 */
#define _DEFAULT_SOURCE
#include <string.h>

#include <glib.h>

#include "requests-int.h"

guint rq_flow_hash(gconstpointer p)
{
	const struct dt_rq_flow *f = p;
	guint h = f->family * 31u + f->sport * 65599u + f->dport;
	int i;

	for (i = 0; i < 16; i++)
		h = h * 33u + f->saddr[i] * 7u + f->daddr[i];
	return h;
}

gboolean rq_flow_equal(gconstpointer a, gconstpointer b)
{
	const struct dt_rq_flow *x = a, *y = b;

	return x->family == y->family && x->sport == y->sport &&
	       x->dport == y->dport && !memcmp(x->saddr, y->saddr, 16) &&
	       !memcmp(x->daddr, y->daddr, 16);
}

struct dt_rq_flow rq_flow_reverse(const struct dt_rq_flow *f)
{
	struct dt_rq_flow r = *f;

	memcpy(r.saddr, f->daddr, 16);
	memcpy(r.daddr, f->saddr, 16);
	r.sport = f->dport;
	r.dport = f->sport;
	return r;
}

void rq_flowsegs_free(gpointer p)
{
	struct flowsegs *fs = p;

	g_array_free(fs->sends, TRUE);
	g_array_free(fs->recvs, TRUE);
	g_free(fs);
}

static struct flowsegs *flow_get(struct finish *F, const struct dt_rq_flow *f)
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
	if (!fs->based) {
		fs->based = true;
		fs->base = s->seq;
	}
	s->lo = (int32_t)(s->seq - fs->base);
	s->hi = s->lo + (uint32_t)(s->end_seq - s->seq);
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

static struct dt_rq_builder *sort_b;	/* g_array_sort has no data */

static gint by_lo(gconstpointer a, gconstpointer b)
{
	const struct seg *x = &g_array_index(sort_b->sends, struct seg,
					     *(const int *)a);
	const struct seg *y = &g_array_index(sort_b->sends, struct seg,
					     *(const int *)b);

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Longest stretch of sequence space one send event covers (GSO). */
#define DT_RQ_MAX_SEG (1 << 20)

/*
 * Each receive: the earliest send of the same bytes on another host.
 * Sends sorted by start: those starting before the receive's end, back
 * to one maximal segment before its start.
 */
void rq_match_flow(struct finish *F, struct flowsegs *fs)
{
	GArray *by = g_array_copy(fs->sends);
	guint i;

	sort_b = F->b;
	g_array_sort(by, by_lo);
	for (i = 0; i < fs->recvs->len; i++) {
		int ri = g_array_index(fs->recvs, int, i);
		struct seg *r = recv_at(F, ri);
		guint lo = 0, hi = by->len;

		while (lo < hi) {	/* first send with lo >= r->hi */
			guint mid = (lo + hi) / 2;

			if (send_at(F, g_array_index(by, int, mid))->lo < r->hi)
				lo = mid + 1;
			else
				hi = mid;
		}
		while (lo-- > 0) {
			int si = g_array_index(by, int, lo);
			struct seg *s = send_at(F, si);

			if (s->lo < r->lo - DT_RQ_MAX_SEG)
				break;
			if (s->host == r->host || r->lo >= s->hi)
				continue;
			if (r->match < 0 || s->ts < send_at(F, r->match)->ts)
				r->match = si;
		}
		if (r->match >= 0) {
			struct seg *s = send_at(F, r->match);

			if (s->match < 0 || r->ts < recv_at(F, s->match)->ts)
				s->match = ri;
		}
	}
	g_array_free(by, TRUE);
}
