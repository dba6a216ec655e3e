/*
 * Requests, stage 6: the model. Nodes (stage 5) numbered depth-first
 * into spans, one request per root; messages with their final span ids;
 * bytes. The summaries are stage 7's.
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "requests-int.h"

static int fill_span(struct finish *F, int v, int req, int parent_id,
		     int depth)
{
	struct node *n = node_at(F, v);
	struct raw *r = raw_at(F->b, n->raw);
	struct dt_rq_span *s = &F->m->spans[F->m->n_spans];

	n->id = s->id = F->m->n_spans++;
	s->request = req;
	s->parent = parent_id;
	s->host = r->host;
	s->tid = r->tid;
	s->pid = r->pid;
	s->procname = strdup(r->procname ? r->procname : "?");
	s->flag_reason = r->flag;
	s->guess = r->guess;
	s->end_reason = n->end_reason;
	s->flagged = r->end == DT_RQ_END_OPEN;
	s->start_ns = n->start;
	s->end_ns = n->end;
	s->duration_ns = n->duration;
	s->flow = r->flow;
	s->depth = depth;
	return s->procname ? s->id : -1;
}

/* Depth-first from a root: ids in that order. */
static int number_tree(struct finish *F, int v, int req, int parent_id,
		       int depth)
{
	int id = fill_span(F, v, req, parent_id, depth), c;

	if (id < 0)
		return -1;
	for (c = node_at(F, v)->first_child; c >= 0;
	     c = node_at(F, c)->next_sib)
		if (number_tree(F, c, req, id, depth + 1))
			return -1;
	return 0;
}

static int by_send(const void *x, const void *y)
{
	const struct dt_rq_message *p = x, *q = y;

	if (p->send_ns != q->send_ns)
		return p->send_ns < q->send_ns ? -1 : 1;
	return p->from_span - q->from_span;
}

static int final_messages(struct finish *F, GArray *msgs)
{
	struct dt_rq_model *m = F->m;
	guint i;

	m->messages = calloc(msgs->len ? msgs->len : 1, sizeof(*m->messages));
	if (!m->messages)
		return -1;
	for (i = 0; i < msgs->len; i++) {
		struct msg *g = &g_array_index(msgs, struct msg, i);
		struct dt_rq_message *d = &m->messages[m->n_messages++];
		int to = g->to >= 0 ? rq_node_of(F, g->to, g->recv) : -1;

		d->from_span = node_at(F, rq_node_of(F, g->from, g->send))->id;
		d->to_span = to >= 0 ? node_at(F, to)->id : -1;
		d->request = m->spans[d->from_span].request;
		d->flow = g->flow;
		d->send_ns = g->send;
		d->last_send_ns = g->last_send;
		d->recv_ns = g->recv;
		d->last_recv_ns = g->last_recv;
		d->bytes = g->bytes;
		d->segments = g->segments;
		d->response = g->response;
		if (d->to_span >= 0)
			m->spans[d->to_span].sum.bytes_received += d->bytes;
	}
	qsort(m->messages, m->n_messages, sizeof(*m->messages), by_send);
	for (i = 0; i < (guint)m->n_messages; i++)
		m->messages[i].id = (int)i;
	return 0;
}

static void bytes_sent(struct finish *F)
{
	guint i;

	for (i = 0; i < F->b->sends->len; i++) {
		struct seg *s = send_at(F, (int)i);

		if (s->span >= 0 && s->msg >= 0)
			F->m->spans[node_at(F, rq_node_of(F, s->span,
							  s->ts))->id]
				.sum.bytes_sent += s->fresh;
	}
}

/* The roots (stage 5's rq_node_children) in start order. */
int rq_assemble(struct finish *F, GArray *roots, GArray *msgs)
{
	struct dt_rq_model *m = F->m;
	guint i;

	m->spans = calloc(F->nodes->len ? F->nodes->len : 1,
			  sizeof(*m->spans));
	m->requests = calloc(roots->len ? roots->len : 1,
			     sizeof(*m->requests));
	if (!m->spans || !m->requests)
		return -1;
	for (i = 0; i < roots->len; i++) {
		int v = g_array_index(roots, int, i);
		struct dt_rq_request *r = &m->requests[m->n_requests++];
		struct raw *raw = raw_at(F->b, node_at(F, v)->raw);

		r->id = (int)i;
		r->start_ns = r->end_ns = node_at(F, v)->start;
		if (raw->flag != DT_RQ_FLAG_MANUAL)
			m->orphan_spans++;
		if (number_tree(F, v, (int)i, -1, 0))
			return -1;
		r->root = node_at(F, v)->id;
	}
	if (final_messages(F, msgs))
		return -1;
	bytes_sent(F);
	return 0;
}
