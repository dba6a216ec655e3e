/*
 * Models of chosen requests: one request taken out of a model, and
 * models of requests put together into one (dtracer watch's page keeps
 * each request it printed, not the events they came from). The same
 * plain data as any model (requests.h), its ids renumbered; freed with
 * dt_rq_model_free().
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include "requests.h"

static int copy_summary(struct dt_rq_summary *to,
			const struct dt_rq_summary *from)
{
	*to = *from;
	to->syscalls = NULL;
	if (!from->n_syscalls)
		return 0;
	to->syscalls = calloc(from->n_syscalls, sizeof(*to->syscalls));
	if (!to->syscalls) {
		to->n_syscalls = 0;
		return -1;
	}
	for (size_t k = 0; k < from->n_syscalls; k++) {
		to->syscalls[k] = from->syscalls[k];
		to->syscalls[k].name = strdup(from->syscalls[k].name);
		if (!to->syscalls[k].name) {
			to->n_syscalls = k;
			return -1;
		}
	}
	return 0;
}

/* A span, its strings and arrays its own; ids shifted by base. */
static int copy_span(struct dt_rq_span *to, const struct dt_rq_span *from,
		     const int *span_of, int request)
{
	*to = *from;
	to->id = span_of[from->id];
	to->parent = from->parent >= 0 ? span_of[from->parent] : -1;
	to->request = request;
	to->procname = strdup(from->procname ? from->procname : "?");
	to->sum.syscalls = NULL;
	to->sum.n_syscalls = 0;
	if (!to->procname)
		return -1;
	return copy_summary(&to->sum, &from->sum);
}

static int copy_hosts(struct dt_rq_model *to, const struct dt_rq_model *from)
{
	to->hosts = calloc(from->n_hosts ? (size_t)from->n_hosts : 1,
			   sizeof(char *));
	if (!to->hosts)
		return -1;
	for (int i = 0; i < from->n_hosts; i++) {
		to->hosts[i] = strdup(from->hosts[i]);
		if (!to->hosts[i])
			return -1;
		to->n_hosts++;
	}
	return 0;
}

/*
 * Request r of from, appended to to (whose arrays have room): its spans
 * and messages renumbered after to's, span_of a scratch array of
 * from->n_spans.
 */
static int append(struct dt_rq_model *to, const struct dt_rq_model *from,
		  int r, int *span_of)
{
	const struct dt_rq_request *src = &from->requests[r];
	struct dt_rq_request *dst = &to->requests[to->n_requests];
	int req = to->n_requests, first_msg = to->n_messages;

	for (int k = 0; k < src->n_spans; k++)
		span_of[src->spans[k]] = to->n_spans + k;
	*dst = *src;
	dst->id = req;
	dst->root = span_of[src->root];
	dst->spans = calloc(src->n_spans ? (size_t)src->n_spans : 1,
			    sizeof(int));
	dst->messages = calloc(src->n_messages ? (size_t)src->n_messages : 1,
			       sizeof(int));
	to->n_requests++;
	if (!dst->spans || !dst->messages)
		return -1;
	for (int k = 0; k < src->n_spans; k++) {
		int id = src->spans[k];

		dst->spans[k] = span_of[id];
		if (copy_span(&to->spans[to->n_spans++], &from->spans[id],
			      span_of, req))
			return -1;
	}
	for (int k = 0; k < src->n_messages; k++) {
		const struct dt_rq_message *m = &from->messages[src->messages[k]];
		struct dt_rq_message *d = &to->messages[to->n_messages];

		*d = *m;
		d->id = to->n_messages++;
		d->request = req;
		d->from_span = span_of[m->from_span];
		d->to_span = m->to_span >= 0 ? span_of[m->to_span] : -1;
		dst->messages[k] = d->id;
	}
	dst->critical_span = src->critical_span >= 0 ?
			     span_of[src->critical_span] : -1;
	dst->critical_message = -1;
	for (int k = 0; k < src->n_messages; k++)
		if (src->messages[k] == src->critical_message)
			dst->critical_message = first_msg + k;
	return 0;
}

/* An empty model with room for the requests, spans and messages. */
static struct dt_rq_model *model_for(const struct dt_rq_model *hosts,
				     int requests, int spans, int messages)
{
	struct dt_rq_model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->requests = calloc(requests ? (size_t)requests : 1,
			     sizeof(*m->requests));
	m->spans = calloc(spans ? (size_t)spans : 1, sizeof(*m->spans));
	m->messages = calloc(messages ? (size_t)messages : 1,
			     sizeof(*m->messages));
	if (!m->requests || !m->spans || !m->messages ||
	    copy_hosts(m, hosts)) {
		dt_rq_model_free(m);
		return NULL;
	}
	return m;
}

struct dt_rq_model *dt_rq_model_extract(const struct dt_rq_model *m,
					int request)
{
	const struct dt_rq_request *r = &m->requests[request];
	struct dt_rq_model *x = model_for(m, 1, r->n_spans, r->n_messages);
	int *span_of = calloc(m->n_spans ? (size_t)m->n_spans : 1,
			      sizeof(int));

	if (!x || !span_of || append(x, m, request, span_of)) {
		free(span_of);
		dt_rq_model_free(x);
		return NULL;
	}
	free(span_of);
	return x;
}

struct dt_rq_model *dt_rq_model_join(struct dt_rq_model *const *parts,
				     int n)
{
	int requests = 0, spans = 0, messages = 0, most = 0, i, k;
	const struct dt_rq_model *hosts = NULL;
	struct dt_rq_model *j;
	int *span_of;

	for (i = 0; i < n; i++) {
		if (!parts[i])
			continue;
		requests += parts[i]->n_requests;
		spans += parts[i]->n_spans;
		messages += parts[i]->n_messages;
		if (parts[i]->n_spans > most)
			most = parts[i]->n_spans;
		/* the host lists only grow: the longest has them all */
		if (!hosts || parts[i]->n_hosts > hosts->n_hosts)
			hosts = parts[i];
	}
	if (!hosts)
		return calloc(1, sizeof(struct dt_rq_model));
	j = model_for(hosts, requests, spans, messages);
	span_of = calloc(most ? (size_t)most : 1, sizeof(int));
	if (!j || !span_of)
		goto fail;
	for (i = 0; i < n; i++)
		for (k = 0; parts[i] && k < parts[i]->n_requests; k++)
			if (append(j, parts[i], k, span_of))
				goto fail;
	free(span_of);
	return j;
fail:
	free(span_of);
	dt_rq_model_free(j);
	return NULL;
}
