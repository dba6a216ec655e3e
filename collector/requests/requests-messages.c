/*
 * Requests, stage 4: messages. Runs of segments one span sent on one
 * flow, cut where an answer came back, and who received each.
 */
#define _DEFAULT_SOURCE

#include <glib.h>

#include "requests-int.h"

static void msg_add_seg(struct finish *F, struct msg *g, struct seg *s,
			int64_t *max_hi)
{
	if (s->hi > *max_hi) {
		s->fresh = (uint64_t)(s->hi - (s->lo > *max_hi ? s->lo :
					       *max_hi));
		g->bytes += s->fresh;
		*max_hi = s->hi;
	}
	g->segments++;
	g->last_send = s->ts;
	if (s->match >= 0) {
		struct seg *r = recv_at(F, s->match);

		if (g->recv_host < 0) {
			g->recv_host = r->host;
			g->recv = r->ts;
		}
		if (r->ts < g->recv)
			g->recv = r->ts;
		if (r->ts > g->last_recv)
			g->last_recv = r->ts;
	}
}

/* Did host receive anything on flow rev in (a, b]? (an answer came back) */
bool rq_answered(struct finish *F, const struct dt_flow *rev, int host,
		 int64_t a, int64_t b)
{
	struct flowsegs *fs = g_hash_table_lookup(F->flows, rev);
	guint i;

	for (i = 0; fs && i < fs->recvs->len; i++) {
		struct seg *r = recv_at(F, g_array_index(fs->recvs, int, i));

		if (r->host == host && r->ts > a && r->ts <= b)
			return true;
	}
	return false;
}

static void flow_messages(struct finish *F, struct flowsegs *fs,
			  GArray *msgs)
{
	struct dt_flow rev;
	struct msg *g = NULL;
	int64_t max_hi = INT64_MIN;
	guint i;

	for (i = 0; i < fs->sends->len; i++) {
		struct seg *s = send_at(F, g_array_index(fs->sends, int, i));

		if (s->span < 0) {
			s->msg = -1;
			continue;
		}
		rev = dt_flow_reverse(&s->flow);
		if (!g || g->from != s->span ||
		    rq_answered(F, &rev, s->host, g->last_send, s->ts)) {
			struct msg n = { .from = s->span, .to = -1,
					 .first_send = g_array_index(fs->sends,
								     int, i),
					 .recv_host = -1, .flow = s->flow,
					 .send = s->ts, .last_send = s->ts,
					 .recv = 0, .last_recv = 0 };

			g_array_append_val(msgs, n);
			g = &g_array_index(msgs, struct msg, msgs->len - 1);
		}
		s->msg = (int)msgs->len - 1;
		msg_add_seg(F, g, s, &max_hi);
	}
}

/*
 * Who received a message: the span its bytes flagged (request, set by
 * build_messages); else a span of the receiving host already serving
 * this flow; else the span that sent the latest request on the reverse
 * flow (a response).
 */
static void msg_target(struct finish *F, struct msg *g)
{
	struct dt_flow rev = dt_flow_reverse(&g->flow);
	struct flowsegs *fs;
	int si;
	guint i;

	if (g->to >= 0 || g->recv_host < 0)
		return;
	for (i = 0; i < F->b->raws->len; i++) {
		struct raw *r = raw_at(F->b, (int)i);

		if (r->host == g->recv_host && dt_rq_flag_read(r->flag) &&
		    dt_flow_equal(&r->flow, &g->flow) && r->start <= g->recv &&
		    g->recv <= r->end_ts) {
			g->to = (int)i;
			return;
		}
	}
	fs = g_hash_table_lookup(F->flows, &rev);
	if (!fs)
		return;
	si = rq_latest(F, fs->sends, true, g->recv_host, false, g->recv);
	if (si >= 0 && send_at(F, si)->span >= 0) {
		g->to = send_at(F, si)->span;
		g->response = true;
	}
}

GArray *rq_build_messages(struct finish *F)
{
	GArray *msgs = g_array_new(FALSE, TRUE, sizeof(struct msg));
	GHashTableIter it;
	gpointer v;
	guint i;

	g_hash_table_iter_init(&it, F->flows);
	while (g_hash_table_iter_next(&it, NULL, &v))
		flow_messages(F, v, msgs);
	for (i = 0; i < F->b->raws->len; i++) {
		struct raw *r = raw_at(F->b, (int)i);

		if (r->link_send >= 0 && send_at(F, r->link_send)->msg >= 0)
			g_array_index(msgs, struct msg,
				      send_at(F, r->link_send)->msg).to = (int)i;
	}
	for (i = 0; i < msgs->len; i++)
		msg_target(F, &g_array_index(msgs, struct msg, i));
	return msgs;
}
