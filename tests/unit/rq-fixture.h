/*
 * Hand-made requests models for the output tests (export, view): built
 * field by field as dt_rq_model_free() expects (every string and array
 * malloc'd on its own). Times in ns.
 *
 * rq_fixture(n) makes n requests, each a chain of three hosts:
 *
 *   a client[100+k]  --req-->  b proxy[200+k]  --req-->  c server[300+k]
 *                    <--resp--                 <--resp--
 *
 * request k starts at k * 100000 ns; every other request (k odd) also
 * has a second child on c (a concurrent span on another thread), and
 * request n-1's server span is still open (no unflag). Requests are
 * numbered by start, spans depth-first from each root.
 */
#ifndef DT_TESTS_RQ_FIXTURE_H
#define DT_TESTS_RQ_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "requests.h"

static char *rqf_strdup(const char *s)
{
	char *d = malloc(strlen(s) + 1);

	if (!d)
		abort();
	return strcpy(d, s);
}

static void *rqf_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		abort();
	return p;
}

static void rqf_flow(struct dt_flow *f, int from, int to, int sport,
		     int dport)
{
	memset(f, 0, sizeof(*f));
	f->family = 2;
	f->saddr[0] = 192, f->saddr[2] = 2, f->saddr[3] = 11 + from;
	f->daddr[0] = 192, f->daddr[2] = 2, f->daddr[3] = 11 + to;
	f->sport = sport;
	f->dport = dport;
}

static void rqf_summary(struct dt_rq_summary *s, int64_t len)
{
	s->running_ns = len / 4;
	s->runnable_ns = len / 8;
	s->blocked_ns = len / 2;
	s->blocked_on[DT_RQ_BLOCK_NETWORK] = len / 2 - len / 8;
	s->blocked_on[DT_RQ_BLOCK_DISK] = len / 8;
	s->unknown_ns = len - s->running_ns - s->runnable_ns - s->blocked_ns;
	s->bytes_sent = 5;
	s->bytes_received = 10;
	s->events = 12;
	s->n_syscalls = 2;
	s->syscalls = rqf_calloc(2, sizeof(*s->syscalls));
	s->syscalls[0].name = rqf_strdup("recvfrom");
	s->syscalls[0].count = 3;
	s->syscalls[0].time_ns = len / 3;
	s->syscalls[1].name = rqf_strdup("write");
	s->syscalls[1].count = 1;
	s->syscalls[1].time_ns = len / 10;
	s->syscall_count = 4;
	s->syscall_ns = len / 3 + len / 10;
}

static int rqf_span(struct dt_rq_model *m, int req, int parent, int host,
		    int tid, const char *proc, int64_t start, int64_t end,
		    enum dt_rq_end_reason why)
{
	struct dt_rq_span *s = &m->spans[m->n_spans];

	s->id = m->n_spans++;
	s->request = req;
	s->parent = parent;
	s->host = host;
	s->tid = s->pid = tid;
	s->procname = rqf_strdup(proc);
	s->flag_reason = parent < 0 ? DT_RQ_FLAG_MANUAL : DT_RQ_FLAG_PROPAGATED;
	s->end_reason = why;
	s->start_ns = start;
	s->end_ns = end;
	s->duration_ns = why == DT_RQ_END_OPEN || why == DT_RQ_END_REQUEST ?
			 0 : (uint64_t)(end - start);
	s->depth = parent < 0 ? 0 : m->spans[parent].depth + 1;
	if (parent >= 0)
		rqf_flow(&s->flow, m->spans[parent].host, host,
			 40000 + s->id, 7400 + host);
	rqf_summary(&s->sum, end - start);
	return s->id;
}

static int rqf_msg(struct dt_rq_model *m, int req, int from, int to,
		   int64_t send, int64_t recv, bool response)
{
	struct dt_rq_message *g = &m->messages[m->n_messages];
	const struct dt_rq_span *child = &m->spans[response ? from : to];

	g->id = m->n_messages++;
	g->request = req;
	g->from_span = from;
	g->to_span = to;
	g->flow = child->flow;
	if (response) {	/* the reverse of the child's request flow */
		memcpy(g->flow.saddr, child->flow.daddr, 16);
		memcpy(g->flow.daddr, child->flow.saddr, 16);
		g->flow.sport = child->flow.dport;
		g->flow.dport = child->flow.sport;
	}
	g->send_ns = g->last_send_ns = send;
	g->recv_ns = g->last_recv_ns = recv;
	g->bytes = response ? 10 : 5;
	g->segments = 1;
	g->response = response;
	return g->id;
}

static struct dt_rq_model *rq_fixture(int n)
{
	struct dt_rq_model *m = rqf_calloc(1, sizeof(*m));
	int k;

	m->n_hosts = 3;
	m->hosts = rqf_calloc(3, sizeof(*m->hosts));
	m->hosts[0] = rqf_strdup("a");
	m->hosts[1] = rqf_strdup("b");
	m->hosts[2] = rqf_strdup("c");
	m->spans = rqf_calloc(4 * n, sizeof(*m->spans));
	m->messages = rqf_calloc(6 * n, sizeof(*m->messages));
	m->requests = rqf_calloc(n, sizeof(*m->requests));
	for (k = 0; k < n; k++) {
		struct dt_rq_request *r = &m->requests[m->n_requests];
		int64_t t = 1000000000 + (int64_t)k * 100000;
		bool open = k == n - 1, two = k % 2;
		int root, mid, srv, srv2 = -1, i, first_span = m->n_spans;
		int first_msg = m->n_messages;

		r->id = m->n_requests++;
		root = rqf_span(m, k, -1, 0, 100 + k, "client", t, t + 90000,
				DT_RQ_END_REQUEST);
		mid = rqf_span(m, k, root, 1, 200 + k, "proxy", t + 10000,
			       t + 80000, DT_RQ_END_RESPONSE);
		srv = rqf_span(m, k, mid, 2, 300 + k, "server", t + 20000,
			       open ? t + 95000 : t + 60000,
			       open ? DT_RQ_END_OPEN : DT_RQ_END_RESPONSE);
		if (two)
			srv2 = rqf_span(m, k, mid, 2, 400 + k, "worker",
					t + 25000, t + 50000,
					DT_RQ_END_RESPONSE);
		rqf_msg(m, k, root, mid, t + 2000, t + 8000, false);
		rqf_msg(m, k, mid, srv, t + 12000, t + 18000, false);
		if (two) {
			rqf_msg(m, k, mid, srv2, t + 14000, t + 23000, false);
			rqf_msg(m, k, srv2, mid, t + 49000, t + 55000, true);
		}
		if (!open)
			rqf_msg(m, k, srv, mid, t + 59000, t + 65000, true);
		rqf_msg(m, k, mid, root, t + 79000, t + 85000, true);
		r->root = root;
		r->start_ns = t;
		r->end_ns = open ? t + 95000 : t + 90000;
		r->n_spans = m->n_spans - first_span;
		r->n_hosts = 3;
		r->n_messages = m->n_messages - first_msg;
		r->depth = 3;
		r->critical_span = srv;
		r->critical_message = -1;
		r->critical_ns = 40000;
		r->spans = rqf_calloc(r->n_spans, sizeof(int));
		for (i = 0; i < r->n_spans; i++)
			r->spans[i] = first_span + i;
		r->messages = rqf_calloc(r->n_messages, sizeof(int));
		for (i = 0; i < r->n_messages; i++)
			r->messages[i] = first_msg + i;
		(void)srv2;
	}
	m->dtracer_events = (uint64_t)m->n_spans * 2 + m->n_messages * 2;
	m->events = m->dtracer_events * 10;
	return m;
}

#endif
