/*
 * Requests, stage 7: summaries. Per span, where its thread's time went
 * and its system calls; per request, its spans, messages, hosts,
 * extent, and the critical hop.
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "requests-int.h"

static void summarize_pieces(struct dt_rq_summary *s, const struct raw *r,
			     int64_t a, int64_t b)
{
	guint i;

	for (i = 0; i < r->pieces->len; i++) {
		const struct piece *p = &g_array_index(r->pieces, struct piece,
						       i);
		int64_t x = p->a > a ? p->a : a, y = p->b < b ? p->b : b;

		if (y <= x)
			continue;
		if (p->state == ST_RUNNING)
			s->running_ns += y - x;
		else if (p->state == ST_RUNNABLE)
			s->runnable_ns += y - x;
		else if (p->state == ST_BLOCKED)
			s->blocked_on[p->block] += y - x;
	}
	for (i = 0; i < DT_RQ_BLOCK_N; i++)
		s->blocked_ns += s->blocked_on[i];
	s->unknown_ns = (b - a) - s->running_ns - s->runnable_ns -
			s->blocked_ns;
	if (s->unknown_ns < 0)
		s->unknown_ns = 0;
	for (i = 0; i < r->evts->len; i++) {
		int64_t t = g_array_index(r->evts, int64_t, i);

		s->events += t >= a && t <= b;
	}
}

static gint by_time_desc(gconstpointer x, gconstpointer y)
{
	const struct dt_rq_syscall *p = x, *q = y;

	if (p->time_ns != q->time_ns)
		return p->time_ns > q->time_ns ? -1 : 1;
	return strcmp(p->name, q->name);
}

static int summarize_syscalls(struct dt_rq_summary *s, const struct raw *r,
			      int64_t a, int64_t b)
{
	GHashTable *by = g_hash_table_new(g_str_hash, g_str_equal);
	GArray *out = g_array_new(FALSE, TRUE, sizeof(struct dt_rq_syscall));
	GHashTableIter it;
	gpointer v;
	guint i;
	int ret = 0;

	for (i = 0; i < r->sys->len; i++) {
		const struct sysrec *c = &g_array_index(r->sys, struct sysrec,
							i);
		int64_t x = c->entry > a ? c->entry : a;
		int64_t y = c->exit < b ? c->exit : b;
		struct dt_rq_syscall *d;

		if (c->exit < a || c->entry > b)
			continue;
		d = g_hash_table_lookup(by, c->name);
		if (!d) {
			d = g_new0(struct dt_rq_syscall, 1);
			d->name = (char *)c->name;
			g_hash_table_insert(by, (gpointer)c->name, d);
		}
		d->count++;
		d->time_ns += y > x ? y - x : 0;
	}
	g_hash_table_iter_init(&it, by);
	while (g_hash_table_iter_next(&it, NULL, &v)) {
		struct dt_rq_syscall d = *(struct dt_rq_syscall *)v;

		g_free(v);
		s->syscall_count += d.count;
		s->syscall_ns += d.time_ns;
		if (ret || !(d.name = strdup(d.name)))
			ret = -1;
		else
			g_array_append_val(out, d);
	}
	g_hash_table_destroy(by);
	g_array_sort(out, by_time_desc);
	s->n_syscalls = out->len;
	s->syscalls = out->len ? malloc(out->len * sizeof(*s->syscalls)) : NULL;
	if (out->len && !s->syscalls)
		ret = -1;
	else if (out->len)
		memcpy(s->syscalls, out->data, out->len * sizeof(*s->syscalls));
	if (ret)
		for (i = 0; i < out->len; i++)
			free(g_array_index(out, struct dt_rq_syscall, i).name);
	if (ret) {
		free(s->syscalls);
		s->syscalls = NULL;
		s->n_syscalls = 0;
	}
	g_array_free(out, TRUE);
	return ret;
}

/* Each numbered node's span: where its time went, its system calls. */
int rq_summarize_spans(struct finish *F)
{
	guint i;

	for (i = 0; i < F->nodes->len; i++) {
		const struct node *n = node_at(F, (int)i);
		const struct raw *r = raw_at(F->b, n->raw);
		struct dt_rq_summary *s;

		if (n->id < 0)
			continue;
		s = &F->m->spans[n->id].sum;
		summarize_pieces(s, r, n->start, n->end);
		if (summarize_syscalls(s, r, n->start, n->end))
			return -1;
	}
	return 0;
}

struct hop {
	int64_t ns;
	int span, message;
	bool wait;
};

static void hop_max(struct hop *best, int64_t ns, int span, int message,
		    bool wait)
{
	if (ns > best->ns) {
		best->ns = ns;
		best->span = span;
		best->message = message;
		best->wait = wait;
	}
}

/*
 * Walk the critical path from the root: at each span, the child whose
 * branch (request sent .. subtree and answer back) ends last is what the
 * span waited for; the span's own time is its length minus that branch.
 */
static void critical(const struct dt_rq_model *m, struct dt_rq_request *r,
		     const int64_t *sub_end)
{
	struct hop best = { -1, -1, -1, false };
	int s = r->root;

	while (s >= 0) {
		const struct dt_rq_span *sp = &m->spans[s];
		int64_t bend = INT64_MIN, bstart = 0;
		int child = -1, req = -1, resp = -1, i;

		for (i = 0; i < r->n_spans; i++) {
			const struct dt_rq_span *c = &m->spans[r->spans[i]];

			if (c->parent == s && sub_end[c->id] > bend) {
				bend = sub_end[c->id];
				child = c->id;
			}
		}
		for (i = 0; child >= 0 && i < r->n_messages; i++) {
			const struct dt_rq_message *g =
				&m->messages[r->messages[i]];

			if (g->from_span == s && g->to_span == child &&
			    !g->response && req < 0)
				req = g->id;
			if (g->from_span == child && g->to_span == s &&
			    g->response)
				resp = g->id;
		}
		if (child >= 0) {
			bstart = req >= 0 ? m->messages[req].send_ns :
				 m->spans[child].start_ns;
			hop_max(&best, (sp->end_ns - sp->start_ns) -
				(bend - bstart), s, -1, false);
		} else {
			hop_max(&best, sp->end_ns - sp->start_ns, s, -1, false);
		}
		if (req >= 0) {
			const struct dt_rq_message *g = &m->messages[req];

			hop_max(&best, g->recv_ns - g->send_ns, -1, req, false);
			hop_max(&best, m->spans[child].start_ns - g->last_recv_ns,
				child, -1, true);
		}
		if (resp >= 0)
			hop_max(&best, m->messages[resp].recv_ns -
				m->messages[resp].send_ns, -1, resp, false);
		s = child;
	}
	r->critical_span = best.span;
	r->critical_message = best.message;
	r->critical_wait = best.wait;
	r->critical_ns = best.ns < 0 ? 0 : best.ns;
}

int rq_fill_requests(struct dt_rq_model *m)
{
	int64_t *sub_end = calloc(m->n_spans ? m->n_spans : 1,
				  sizeof(*sub_end));
	int *nspan = calloc(m->n_requests ? m->n_requests : 1, sizeof(int));
	int *nmsg = calloc(m->n_requests ? m->n_requests : 1, sizeof(int));
	int i, ret = -1;

	if (!sub_end || !nspan || !nmsg)
		goto out;
	for (i = 0; i < m->n_spans; i++) {
		sub_end[i] = m->spans[i].end_ns;
		nspan[m->spans[i].request]++;
	}
	for (i = 0; i < m->n_messages; i++) {
		const struct dt_rq_message *g = &m->messages[i];

		nmsg[g->request]++;
		if (g->response && g->to_span >= 0 &&
		    m->spans[g->from_span].parent == g->to_span &&
		    g->last_recv_ns > sub_end[g->from_span])
			sub_end[g->from_span] = g->last_recv_ns;
	}
	/* Depth-first ids: children come after their parent. */
	for (i = m->n_spans; i-- > 0;) {
		int p = m->spans[i].parent;

		if (p >= 0 && sub_end[i] > sub_end[p])
			sub_end[p] = sub_end[i];
	}
	for (i = 0; i < m->n_requests; i++) {
		struct dt_rq_request *r = &m->requests[i];

		r->spans = malloc((nspan[i] ? nspan[i] : 1) * sizeof(int));
		r->messages = malloc((nmsg[i] ? nmsg[i] : 1) * sizeof(int));
		if (!r->spans || !r->messages)
			goto out;
	}
	for (i = 0; i < m->n_spans; i++) {
		struct dt_rq_request *r = &m->requests[m->spans[i].request];
		const struct dt_rq_span *s = &m->spans[i];
		int k;

		for (k = 0; k < r->n_spans; k++)
			if (m->spans[r->spans[k]].host == s->host)
				break;
		r->n_hosts += k == r->n_spans;
		r->spans[r->n_spans++] = i;
		if (s->depth + 1 > r->depth)
			r->depth = s->depth + 1;
		if (s->end_ns > r->end_ns)
			r->end_ns = s->end_ns;
	}
	for (i = 0; i < m->n_messages; i++) {
		struct dt_rq_request *r = &m->requests[m->messages[i].request];

		r->messages[r->n_messages++] = i;
		if (m->messages[i].last_recv_ns > r->end_ns)
			r->end_ns = m->messages[i].last_recv_ns;
	}
	for (i = 0; i < m->n_requests; i++)
		critical(m, &m->requests[i], sub_end);
	ret = 0;
out:
	free(sub_end);
	free(nspan);
	free(nmsg);
	return ret;
}
