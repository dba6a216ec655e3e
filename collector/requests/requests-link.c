/*
 * Requests, stage 3: linking. Which raw span sent each segment, and
 * which span each flag came from: the sender of the marked bytes a
 * propagated flag's thread read, the parent thread of an inherited one.
 */
#define _DEFAULT_SOURCE

#include <glib.h>

#include "requests-int.h"

static gint64 *tid_key(int host, int32_t tid)
{
	gint64 *k = g_new(gint64, 1);

	*k = ((gint64)host << 32) | (uint32_t)tid;
	return k;
}

void rq_index_tids(struct finish *F)
{
	guint i;

	for (i = 0; i < F->b->raws->len; i++) {
		struct raw *r = raw_at(F->b, (int)i);
		gint64 *k = tid_key(r->host, r->tid);
		GArray *a = g_hash_table_lookup(F->by_tid, k);
		int v = (int)i;

		if (!a) {
			a = g_array_new(FALSE, FALSE, sizeof(int));
			g_hash_table_insert(F->by_tid, k, a);
		} else {
			g_free(k);
		}
		g_array_append_val(a, v);	/* raws are in start order */
	}
}

/* The latest span of (host, tid) that started at or before ts, or -1. */
static int span_at(struct finish *F, int host, int32_t tid, int64_t ts)
{
	gint64 k = ((gint64)host << 32) | (uint32_t)tid;
	GArray *a = g_hash_table_lookup(F->by_tid, &k);
	guint lo = 0, hi = a ? a->len : 0;

	while (lo < hi) {	/* first span starting after ts */
		guint mid = (lo + hi) / 2;

		if (raw_at(F->b, g_array_index(a, int, mid))->start > ts)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo ? g_array_index(a, int, lo - 1) : -1;
}

void rq_sends_to_spans(struct finish *F)
{
	guint i;

	for (i = 0; i < F->b->sends->len; i++) {
		struct seg *s = send_at(F, (int)i);

		s->span = span_at(F, s->host, s->tid, s->ts);
	}
}

/* The latest segment of idx (sends or recvs) on host at or before ts. */
int rq_latest(struct finish *F, GArray *idx, bool sends, int host,
	      bool other_host, int64_t ts)
{
	int found = -1;
	guint i;

	for (i = 0; idx && i < idx->len; i++) {
		int si = g_array_index(idx, int, i);
		struct seg *s = sends ? send_at(F, si) : recv_at(F, si);

		if ((s->host == host) == other_host || s->ts > ts)
			continue;
		if (found < 0 || s->ts >= (sends ? send_at(F, found)->ts :
					   recv_at(F, found)->ts))
			found = si;
	}
	return found;
}

/*
 * A propagated span's parent: the span that sent the marked bytes its
 * thread read. The receive on its own host (same clock) says which
 * bytes; the matched send says who sent them. Without a receive, the
 * latest send of the flow from another host before the flag.
 */
static void link_propagated(struct finish *F, struct raw *r)
{
	struct flowsegs *fs = g_hash_table_lookup(F->flows, &r->flow);
	int ri, si = -1;

	if (!fs)
		return;
	ri = rq_latest(F, fs->recvs, false, r->host, false, r->start);
	if (ri >= 0)
		si = recv_at(F, ri)->match;
	if (si < 0)
		si = rq_latest(F, fs->sends, true, r->host, true, r->start);
	if (si < 0)
		return;
	r->link_send = si;
	r->parent = send_at(F, si)->span;
}

/*
 * A thread handed the request by a wake-up, or that read it over a UNIX
 * socket: a child of the waker's (the writer's) span, else of the one
 * that began it.
 */
static int handed_by(struct finish *F, const struct raw *r)
{
	int p = span_at(F, r->host, r->parent_tid, r->start);

	return p >= 0 ? p : r->origin;
}

void rq_link_raws(struct finish *F)
{
	guint i;

	for (i = 0; i < F->b->raws->len; i++) {
		struct raw *r = raw_at(F->b, (int)i);

		if (dt_rq_flag_read(r->flag))
			link_propagated(F, r);
		else if (r->flag == DT_RQ_FLAG_INHERITED)
			r->parent = span_at(F, r->host, r->parent_tid,
					    r->start);
		else if (r->flag == DT_RQ_FLAG_RESUMED ||
			 r->flag == DT_RQ_FLAG_DEFERRED)
			r->parent = r->origin;
		else if (r->flag == DT_RQ_FLAG_HANDOFF ||
			 r->flag == DT_RQ_FLAG_LOCAL)
			r->parent = handed_by(F, r);
		if (r->parent == (int)i)
			r->parent = -1;
	}
}

/* Cut parent links that make a cycle (contradictory traces). */
void rq_break_cycles(struct finish *F)
{
	guint n = F->b->raws->len, i, steps;

	for (i = 0; i < n; i++) {
		int p = raw_at(F->b, (int)i)->parent;

		for (steps = 0; p >= 0 && steps <= n; steps++) {
			if (p == (int)i) {
				raw_at(F->b, (int)i)->parent = -1;
				break;
			}
			p = raw_at(F->b, p)->parent;
		}
	}
}
