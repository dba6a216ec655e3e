/*
 * Export: Perfetto (Chrome Trace Event JSON, for ui.perfetto.dev): a
 * process per host (pid = host index + 1, "process_name" = the host), a
 * thread per traced thread ("thread_name" = "proc[tid]"; tids may repeat on other
 * hosts, in other processes); each span a complete event ("X"), its
 * reasons and kernel summary in args; each received message a flow ("s"
 * on the sender's thread, "f" on the receiver's, id = message id + 1);
 * a message nobody received an instant ("i") on the sender's thread.
 * Times are microseconds from "metadata": {"time_base_ns": ...}, the
 * earliest time written, each written with its exact 3 decimals: a trace
 * time (~1.8e18 ns since 1970) in microseconds would lose the
 * nanoseconds in a double, the offset from the base keeps them.
 */
#define _GNU_SOURCE
#include "export-int.h"
#include "requests.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

#define PERFETTO_SYSCALLS 10	/* longest syscalls in a slice's args */


/* ns from the base in microseconds, written "12.345": exact. */
static json_object *us(int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	char buf[32];

	snprintf(buf, sizeof(buf), "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "",
		 a / 1000, (unsigned int)(a % 1000));
	return json_object_new_double_s((double)ns / 1e3, buf);
}

/*
 * Flow ends and instants are placed strictly inside a slice, never on
 * its edges: Perfetto reads microseconds as double * 1000 truncated, so
 * a timestamp, a slice's start and its duration can each come out 1 ns
 * short, and an event at the very start or end of a slice binds to it or
 * not depending on how events of one timestamp are ordered. At least
 * 2 ns after the start and 3 ns before the end, it lands inside.
 */
static int64_t inside(const struct dt_rq_span *s, int64_t t)
{
	if (s->end_ns - s->start_ns < 5)
		return s->start_ns + (s->end_ns - s->start_ns) / 2;
	if (t < s->start_ns + 2)
		return s->start_ns + 2;
	return t > s->end_ns - 3 ? s->end_ns - 3 : t;
}

/*
 * An "f" without "bp" binds to the next slice that starts on its thread:
 * put it at least 2 ns before the receiving span's slice and 2 ns after
 * the start of the thread's previous slice (as above, with Perfetto's
 * truncation the order holds).
 */
static int64_t before(const struct ex *x, const struct dt_rq_span *to,
		      int64_t t)
{
	int p = x->prev[to->id];

	if (p >= 0 && t < x->m->spans[p].start_ns + 2)
		t = x->m->spans[p].start_ns + 2;
	return t > to->start_ns - 2 ? to->start_ns - 2 : t;
}

/*
 * Where a message's flow ends. Bytes that arrived before the receiving
 * thread was flagged (a request: the thread is flagged when it reads
 * them) bind to the next slice of that thread, the span they flagged;
 * bytes that arrived while the receiver was open (a response to its
 * parent) bind to the enclosing slice ("bp": "e"). Deciding by time, not
 * by the response flag, keeps a request received by a thread that was
 * already serving (or seen a little late through the clock alignment)
 * on its own slice too.
 */
static bool enclosed(const struct dt_rq_span *to, int64_t recv_ns)
{
	return recv_ns >= to->start_ns;
}

static int64_t flow_end(const struct ex *x, const struct dt_rq_message *g)
{
	const struct dt_rq_span *to = &x->m->spans[g->to_span];

	return enclosed(to, g->recv_ns) ? inside(to, g->recv_ns) :
					  before(x, to, g->recv_ns);
}

static json_object *event(struct ex *x, const char *ph, const char *name,
			  const struct dt_rq_span *s, int64_t ts)
{
	json_object *e = json_object_new_object();

	put(x, e, "ph", str(ph));
	put(x, e, "name", str(name));
	put(x, e, "cat", str("dtracer"));
	put(x, e, "pid", json_object_new_int(s->host + 1));
	put(x, e, "tid", json_object_new_int(s->tid));
	put(x, e, "ts", us(ts - x->base));
	return e;
}

static json_object *meta_event(struct ex *x, const char *name, int pid,
			       int tid, const char *value)
{
	json_object *e = json_object_new_object();
	json_object *a = json_object_new_object();

	put(x, e, "ph", str("M"));
	put(x, e, "name", str(name));
	put(x, e, "pid", json_object_new_int(pid));
	put(x, e, "tid", json_object_new_int(tid));
	put(x, a, "name", str(value));
	put(x, e, "args", a);
	return e;
}

static void summary_args(struct ex *x, json_object *a,
			 const struct dt_rq_summary *u)
{
	json_object *b = json_object_new_object();
	json_object *sc = json_object_new_object();
	size_t i;
	int k;

	put(x, a, "running_ns", i64(u->running_ns));
	put(x, a, "waiting_for_cpu_ns", i64(u->runnable_ns));
	put(x, a, "blocked_ns", i64(u->blocked_ns));
	for (k = 0; k < DT_RQ_BLOCK_N; k++)
		put(x, b, dt_rq_block_name(k), i64(u->blocked_on[k]));
	put(x, a, "blocked_on_ns", b);
	put(x, a, "unknown_ns", i64(u->unknown_ns));
	put(x, a, "bytes_sent", i64((int64_t)u->bytes_sent));
	put(x, a, "bytes_received", i64((int64_t)u->bytes_received));
	put(x, a, "events", i64((int64_t)u->events));
	put(x, a, "syscall_count", i64((int64_t)u->syscall_count));
	put(x, a, "syscall_ns", i64(u->syscall_ns));
	for (i = 0; i < u->n_syscalls && i < PERFETTO_SYSCALLS; i++) {
		json_object *c = json_object_new_object();

		put(x, c, "count", i64((int64_t)u->syscalls[i].count));
		put(x, c, "time_ns", i64(u->syscalls[i].time_ns));
		put(x, sc, u->syscalls[i].name ? u->syscalls[i].name : "?", c);
	}
	put(x, a, "syscalls", sc);
}

static json_object *span_args(struct ex *x, const struct dt_rq_span *s)
{
	json_object *a = json_object_new_object();
	char buf[DT_RQ_ADDR_LEN];

	put(x, a, "request", json_object_new_int(s->request));
	put(x, a, "span", json_object_new_int(s->id));
	put(x, a, "parent_span", json_object_new_int(s->parent));
	put(x, a, "host", str(host_name(x->m, s->host)));
	put(x, a, "flag_reason", str(dt_rq_flag_reason_name(s->flag_reason)));
	if (s->guess)
		put(x, a, "guess", json_object_new_boolean(1));
	put(x, a, "end_reason", str(dt_rq_end_reason_name(s->end_reason)));
	put(x, a, "duration_ns", i64((int64_t)s->duration_ns));
	if (s->flow.family) {
		put(x, a, "peer", str(dt_rq_flow_src(&s->flow, buf)));
		put(x, a, "local", str(dt_rq_flow_dst(&s->flow, buf)));
	}
	summary_args(x, a, &s->sum);
	return a;
}

static void perfetto_span(struct ex *x, json_object *evs,
			  const struct dt_rq_span *s)
{
	char name[160];
	json_object *e;

	snprintf(name, sizeof(name), "request %d: %s[%d]", s->request,
		 proc_name(s), s->tid);
	e = event(x, "X", name, s, s->start_ns);
	put(x, e, "dur", us(s->end_ns > s->start_ns ?
			    s->end_ns - s->start_ns : 0));
	put(x, e, "args", span_args(x, s));
	add(x, evs, e);
}

/* A message nobody received: an instant on the sender's thread. */
static void perfetto_lost(struct ex *x, json_object *evs,
			  const struct dt_rq_message *g)
{
	const struct dt_rq_span *from = &x->m->spans[g->from_span];
	json_object *e, *a = json_object_new_object();
	char buf[DT_RQ_ADDR_LEN];

	e = event(x, "i", "message not received", from,
		  inside(from, g->send_ns));
	put(x, e, "s", str("t"));
	put(x, a, "message", json_object_new_int(g->id));
	put(x, a, "src", str(dt_rq_flow_src(&g->flow, buf)));
	put(x, a, "dst", str(dt_rq_flow_dst(&g->flow, buf)));
	put(x, a, "bytes", i64((int64_t)g->bytes));
	put(x, a, "segments", i64(g->segments));
	put(x, e, "args", a);
	add(x, evs, e);
}

/*
 * A received message as a flow. The "s" binds to the slice enclosing it
 * on the sender's thread: the send is placed inside the sender's slice
 * (a response's segment can leave just after the unflag that its send
 * caused, a retransmission later still). The "f": see flow_end().
 */
static void perfetto_flow(struct ex *x, json_object *evs,
			  const struct dt_rq_message *g)
{
	const struct dt_rq_span *from = &x->m->spans[g->from_span];
	const struct dt_rq_span *to = &x->m->spans[g->to_span];
	const char *name = g->response ? "response" : "request";
	json_object *s, *f;

	s = event(x, "s", name, from, inside(from, g->send_ns));
	put(x, s, "id", json_object_new_int(g->id + 1));
	add(x, evs, s);
	f = event(x, "f", name, to, flow_end(x, g));
	put(x, f, "id", json_object_new_int(g->id + 1));
	if (enclosed(to, g->recv_ns))
		put(x, f, "bp", str("e"));
	add(x, evs, f);
}

struct thread_key {
	int host;
	int32_t tid;
	int64_t start;
	int span;
};

static int thread_cmp(const void *pa, const void *pb)
{
	const struct thread_key *a = pa, *b = pb;

	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->span > b->span) - (a->span < b->span);
}

/* The exported spans by host, thread and start (NULL if none). */
static struct thread_key *by_thread(struct ex *x, int n)
{
	struct thread_key *t = calloc(n ? n : 1, sizeof(*t));
	int i;

	if (!t)
		return NULL;
	for (i = 0; i < n; i++) {
		const struct dt_rq_span *s = span_at(x, i);

		t[i] = (struct thread_key){ s->host, s->tid, s->start_ns,
					    s->id };
	}
	qsort(t, n, sizeof(*t), thread_cmp);
	return t;
}

/*
 * Process and thread names, and each span's previous span on its thread
 * (x->prev) for flow_end().
 */
static void perfetto_threads(struct ex *x, json_object *evs)
{
	int n = n_spans(x), i;
	struct thread_key *t = by_thread(x, n);
	char tn[160];

	x->prev = malloc((x->m->n_spans ? x->m->n_spans : 1) * sizeof(int));
	if (!t || !x->prev) {
		x->nomem = true;
		free(t);
		return;
	}
	for (i = 0; i < n; i++) {
		const struct dt_rq_span *s = &x->m->spans[t[i].span];
		bool host = !i || t[i - 1].host != t[i].host;

		if (host)
			add(x, evs, meta_event(x, "process_name", s->host + 1,
					       0, host_name(x->m, s->host)));
		if (!host && t[i - 1].tid == t[i].tid) {
			x->prev[s->id] = t[i - 1].span;
			continue;
		}
		x->prev[s->id] = -1;
		snprintf(tn, sizeof(tn), "%s[%d]", proc_name(s), s->tid);
		add(x, evs, meta_event(x, "thread_name", s->host + 1, s->tid,
				       tn));
	}
	free(t);
}

static bool has_flow(const struct ex *x, const struct dt_rq_message *g)
{
	return exported(x, g->from_span) && exported(x, g->to_span);
}

/* The earliest time written: a span's start or a flow's "f". */
static int64_t perfetto_base(const struct ex *x)
{
	int64_t base = INT64_MAX, t;
	int i;

	for (i = 0; i < n_spans(x); i++) {
		t = span_at(x, i)->start_ns;
		base = t < base ? t : base;
	}
	for (i = 0; i < n_messages(x); i++) {
		const struct dt_rq_message *g = message_at(x, i);

		if (!has_flow(x, g))
			continue;
		t = flow_end(x, g);
		base = t < base ? t : base;
	}
	return base == INT64_MAX ? 0 : base;
}

static void perfetto_messages(struct ex *x, json_object *evs)
{
	int i;

	for (i = 0; i < n_messages(x); i++) {
		const struct dt_rq_message *g = message_at(x, i);

		if (has_flow(x, g))
			perfetto_flow(x, evs, g);
		else if (exported(x, g->from_span) && g->to_span < 0)
			perfetto_lost(x, evs, g);
	}
}

json_object *dt_export_perfetto(struct ex *x)
{
	json_object *doc = json_object_new_object();
	json_object *evs = json_object_new_array();
	json_object *md = json_object_new_object();
	int i;

	perfetto_threads(x, evs);
	if (x->nomem) {
		json_object_put(evs);
		json_object_put(md);
		return doc;
	}
	x->base = perfetto_base(x);
	for (i = 0; i < n_spans(x); i++)
		perfetto_span(x, evs, span_at(x, i));
	perfetto_messages(x, evs);
	put(x, doc, "displayTimeUnit", str("ns"));
	put(x, doc, "traceEvents", evs);
	put(x, md, "producer", str("dtracer " PACKAGE_VERSION));
	put(x, md, "time_base_ns", i64(x->base));
	put(x, doc, "metadata", md);
	return doc;
}

