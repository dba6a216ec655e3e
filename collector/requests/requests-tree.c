/*
 * Requests, stage 5: the tree. Raw spans under their parents, each
 * subtree's end; a manual flag (a client thread) split into one node per
 * request it made; nodes linked to their parents and ordered.
 */
#define _DEFAULT_SOURCE

#include <glib.h>

#include "requests-int.h"

static int64_t branch_end(struct finish *F, int i, bool *done)
{
	struct raw *r = raw_at(F->b, i);
	int c;

	if (done[i])
		return r->branch_end;
	done[i] = true;
	if (r->end_ts > r->branch_end)
		r->branch_end = r->end_ts;
	for (c = F->first_child[i]; c >= 0; c = F->next_sib[c]) {
		int64_t e = branch_end(F, c, done);

		if (e > r->branch_end)
			r->branch_end = e;
	}
	return r->branch_end;
}

/* Each raw's subtree end, answers to its parent included. */
void rq_raw_tree(struct finish *F, GArray *msgs)
{
	guint n = F->b->raws->len, i;
	bool *done = g_new0(bool, n ? n : 1);

	F->first_child = g_new(int, n ? n : 1);
	F->next_sib = g_new(int, n ? n : 1);
	for (i = 0; i < n; i++)
		F->first_child[i] = F->next_sib[i] = -1;
	for (i = n; i-- > 0;) {
		int p = raw_at(F->b, (int)i)->parent;

		raw_at(F->b, (int)i)->branch_end = INT64_MIN;
		if (p >= 0) {
			F->next_sib[i] = F->first_child[p];
			F->first_child[p] = (int)i;
		}
	}
	for (i = 0; i < msgs->len; i++) {
		struct msg *g = &g_array_index(msgs, struct msg, i);
		struct raw *from = raw_at(F->b, g->from);

		if (g->response && g->to >= 0 && g->to == from->parent &&
		    g->last_recv > from->branch_end)
			from->branch_end = g->last_recv;
	}
	for (i = 0; i < n; i++)
		branch_end(F, (int)i, done);
	g_free(done);
}

static gint by_a(gconstpointer x, gconstpointer y)
{
	const struct range *p = x, *q = y;

	return p->a < q->a ? -1 : p->a > q->a;
}

/* Did raw span c send anything that left a message? */
static bool sent_any(GArray *msgs, int c)
{
	guint k;

	for (k = 0; k < msgs->len; k++)
		if (g_array_index(msgs, struct msg, k).from == c)
			return true;
	return false;
}

/* Sorted ranges merged where they overlap. */
static void merge_overlaps(GArray *cl)
{
	guint k, n = 0;

	for (k = 0; k < cl->len; k++) {
		struct range x = g_array_index(cl, struct range, k);
		struct range *last = n ? &g_array_index(cl, struct range, n - 1)
				       : NULL;

		if (last && x.a <= last->b) {
			if (x.b > last->b)
				last->b = x.b;
		} else {
			g_array_index(cl, struct range, n++) = x;
		}
	}
	g_array_set_size(cl, n);
}

/*
 * Helpers: threads the manual thread started that neither sent nor have
 * children (curl's resolver thread, say) belong to the request they
 * prepared, the first one not over when they started (or the last one).
 */
static void attach_helpers(GArray *cl, GArray *helpers)
{
	guint k, j;

	for (k = 0; k < helpers->len; k++) {
		struct range h = g_array_index(helpers, struct range, k);
		struct range *x = &g_array_index(cl, struct range, cl->len - 1);

		for (j = 0; j < cl->len; j++)
			if (g_array_index(cl, struct range, j).b >= h.a) {
				x = &g_array_index(cl, struct range, j);
				break;
			}
		if (h.a < x->a)
			x->a = h.a;
		if (h.b > x->b)
			x->b = h.b;
	}
	merge_overlaps(cl);
}

/*
 * Where raw span i next sent a request on the flow of its send s, once an
 * answer had come back there: the request s made was over by then, on
 * i's own clock (a client that waits for each answer, on a kept-alive
 * connection). The time its send call was entered, where that request's
 * branch starts. INT64_MAX if it sent none.
 */
static int64_t next_request(struct finish *F, int i, GArray *msgs,
			    const struct seg *s)
{
	struct dt_flow rev = dt_flow_reverse(&s->flow);
	int64_t next = INT64_MAX;
	guint k;

	for (k = 0; k < msgs->len; k++) {
		struct msg *g = &g_array_index(msgs, struct msg, k);
		int64_t entry;

		if (g->from != i || !dt_flow_equal(&g->flow, &s->flow) ||
		    g->send <= s->ts ||
		    !rq_answered(F, &rev, s->host, s->ts, g->send))
			continue;
		entry = send_at(F, g->first_send)->sys_entry;
		if (entry < next)
			next = entry;
	}
	return next;
}

/*
 * A manual flag's requests: what it sent (to each child span, until the
 * child's subtree and answers end, or the next request sent on the same
 * connection after an answer there, whichever comes first: the child's
 * end on another host's clock may be off by the clock sync's margin;
 * elsewhere, until received), clustered where these overlap. Each
 * cluster is one request; helper threads join one (attach_helpers).
 */
static GArray *manual_clusters(struct finish *F, int i, GArray *msgs)
{
	GArray *br = g_array_new(FALSE, FALSE, sizeof(struct range));
	GArray *helpers = g_array_new(FALSE, FALSE, sizeof(struct range));
	GArray *cl = br;
	guint k;
	int c;

	for (c = F->first_child[i]; c >= 0; c = F->next_sib[c]) {
		struct raw *r = raw_at(F->b, c);
		struct range x = { r->start, r->branch_end };

		if (r->link_send >= 0) {
			struct seg *s = send_at(F, r->link_send);
			int64_t next = next_request(F, i, msgs, s);

			x.a = s->sys_entry;
			if (next != INT64_MAX && x.b >= next)
				x.b = next - 1;
		} else if (F->first_child[c] < 0 && !sent_any(msgs, c)) {
			g_array_append_val(helpers, x);
			continue;
		}
		g_array_append_val(br, x);
	}
	for (k = 0; k < msgs->len; k++) {
		struct msg *g = &g_array_index(msgs, struct msg, k);
		struct range x;

		if (g->from != i ||
		    (g->to >= 0 && raw_at(F->b, g->to)->parent == i))
			continue;
		x.a = send_at(F, g->first_send)->sys_entry;
		x.b = g->last_recv > g->last_send ? g->last_recv : g->last_send;
		g_array_append_val(br, x);
	}
	/* Only helpers: they are the requests. */
	if (!br->len) {
		g_array_append_vals(br, helpers->data, helpers->len);
		g_array_set_size(helpers, 0);
	}
	g_array_sort(cl, by_a);
	merge_overlaps(cl);
	if (cl->len && helpers->len) {
		g_array_sort(helpers, by_a);
		attach_helpers(cl, helpers);
	}
	g_array_free(helpers, TRUE);
	return cl;
}

static void add_node(struct finish *F, int raw, int64_t a, int64_t b,
		     enum dt_rq_end_reason why, uint64_t duration)
{
	struct node n = { .raw = raw, .start = a, .end = b < a ? a : b,
			  .end_reason = why, .duration = duration,
			  .parent = -1, .first_child = -1, .next_sib = -1,
			  .id = -1 };

	g_array_append_val(F->nodes, n);
}

void rq_make_nodes(struct finish *F, GArray *msgs)
{
	guint i, k;

	for (i = 0; i < F->b->raws->len; i++) {
		struct raw *r = raw_at(F->b, (int)i);
		GArray *cl = NULL;

		r->first_final = (int)F->nodes->len;
		r->n_final = 1;
		if (r->flag != DT_RQ_FLAG_MANUAL ||
		    !(cl = manual_clusters(F, (int)i, msgs))->len) {
			if (r->flag == DT_RQ_FLAG_MANUAL)
				g_array_free(cl, TRUE);
			/* What is left of a client whose requests were
			 * dropped (a cut's) is the time between them. */
			if (r->trimmed) {
				r->n_final = 0;
				continue;
			}
			add_node(F, (int)i, r->start, r->end_ts, r->end,
				 r->duration);
			continue;
		}
		r->n_final = (int)cl->len;
		for (k = 0; k < cl->len; k++) {
			struct range x = g_array_index(cl, struct range, k);
			int64_t a = x.a > r->start ? x.a : r->start;

			bool last = r->end_ts <= x.b || k + 1 == cl->len;

			add_node(F, (int)i, a, last && r->end_ts < x.b ?
				 r->end_ts : x.b,
				 last && r->end_ts <= x.b ? r->end :
				 DT_RQ_END_REQUEST,
				 last && r->end_ts <= x.b ? r->duration : 0);
		}
		g_array_free(cl, TRUE);
	}
}

/*
 * The node of raw span i at time t (a manual flag has one per request);
 * -1 for a client's flag trimmed to nothing (requests-window.c).
 */
int rq_node_of(struct finish *F, int i, int64_t t)
{
	struct raw *r = raw_at(F->b, i);
	int k, best = r->n_final ? r->first_final : -1;

	for (k = 0; k < r->n_final; k++) {
		struct node *n = node_at(F, r->first_final + k);

		if (n->start > t)
			break;
		best = r->first_final + k;
		if (t <= n->end)
			break;
	}
	return best;
}

void rq_node_parents(struct finish *F)
{
	guint i;

	for (i = 0; i < F->nodes->len; i++) {
		struct node *n = node_at(F, (int)i);
		struct raw *r = raw_at(F->b, n->raw);
		int64_t t = r->link_send >= 0 ?
			    send_at(F, r->link_send)->ts : r->start;

		if (r->parent >= 0)
			n->parent = rq_node_of(F, r->parent, t);	/* or -1 */
	}
}

static GArray *sort_nodes;	/* g_array_sort has no data */

static gint node_by_start(gconstpointer x, gconstpointer y)
{
	const struct node *p = &g_array_index(sort_nodes, struct node,
					      *(const int *)x);
	const struct node *q = &g_array_index(sort_nodes, struct node,
					      *(const int *)y);

	if (p->start != q->start)
		return p->start < q->start ? -1 : 1;
	return *(const int *)x - *(const int *)y;
}

/* Children lists by start time; the roots in start order. */
GArray *rq_node_children(struct finish *F)
{
	GArray *order = g_array_new(FALSE, FALSE, sizeof(int));
	GArray *roots = g_array_new(FALSE, FALSE, sizeof(int));
	guint i;

	for (i = 0; i < F->nodes->len; i++) {
		int v = (int)i;

		g_array_append_val(order, v);
	}
	sort_nodes = F->nodes;
	g_array_sort(order, node_by_start);
	for (i = order->len; i-- > 0;) {
		int v = g_array_index(order, int, i);
		struct node *n = node_at(F, v);

		if (n->parent >= 0) {
			n->next_sib = node_at(F, n->parent)->first_child;
			node_at(F, n->parent)->first_child = v;
		}
	}
	for (i = 0; i < order->len; i++) {
		int v = g_array_index(order, int, i);

		if (node_at(F, v)->parent < 0)
			g_array_append_val(roots, v);
	}
	g_array_free(order, TRUE);
	return roots;
}
