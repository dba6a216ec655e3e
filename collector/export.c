/*
 * Exports of a requests model for other tools, built with json-c.
 *
 * Perfetto (Chrome Trace Event JSON, for ui.perfetto.dev): a process per
 * host (pid = host index + 1, "process_name" = the host), a thread per
 * traced thread ("thread_name" = "proc[tid]"; tids may repeat on other
 * hosts, in other processes); each span a complete event ("X"), its
 * reasons and kernel summary in args; each received message a flow ("s"
 * on the sender's thread, "f" on the receiver's, id = message id + 1);
 * a message nobody received an instant ("i") on the sender's thread.
 * Times are microseconds from "metadata": {"time_base_ns": ...}, the
 * earliest time written, each written with its exact 3 decimals: a trace
 * time (~1.8e18 ns since 1970) in microseconds would lose the
 * nanoseconds in a double, the offset from the base keeps them.
 *
 * OTLP/JSON (OpenTelemetry, for Jaeger and other backends): a
 * resourceSpans per host that served (service.name and host.name = the
 * host), scope "dtracer". Each span: traceId (one per request), spanId,
 * the parent's spanId (none for the root), name "proc[tid]", kind (root
 * CLIENT, propagated SERVER, inherited INTERNAL), start and end in Unix
 * ns, attributes (thread, process, reasons, peer and local address, the
 * kernel summary as dtracer.*). Messages are span events rather than
 * links: "send" on the sender's span at the first segment's send,
 * "receive" on the receiver's at its receive, with the message's
 * addresses, bytes and segments (a link would only say that two spans
 * are related, which parentSpanId already says). 64-bit integers are
 * decimal strings, as OTLP/JSON writes them.
 */
#define _GNU_SOURCE
#include "export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

#define PERFETTO_SYSCALLS 10	/* longest syscalls in a slice's args */
#define OTLP_SYSCALLS 5		/* and in a span's attributes */

/* One export under way. */
struct ex {
	const struct dt_rq_model *m;
	int request;		/* -1: all of them */
	int64_t base;		/* Perfetto: the ns of ts 0 */
	int *prev;		/* Perfetto: span id -> the previous exported
				 * span of its thread, -1 */
	bool nomem;		/* a json-c allocation failed */
};

int dt_export_format_parse(const char *name)
{
	if (name && !strcmp(name, "perfetto"))
		return DT_EXPORT_PERFETTO;
	if (name && !strcmp(name, "otlp"))
		return DT_EXPORT_OTLP;
	return -1;
}

/*
 * json-c returns NULL when out of memory. put() takes v into object o
 * under k (into array o if k is NULL), or frees it and notes the
 * failure: the document is then incomplete, never written.
 */
static void put(struct ex *x, json_object *o, const char *k, json_object *v)
{
	int r = -1;

	if (o && v)
		r = k ? json_object_object_add(o, k, v) :
			json_object_array_add(o, v);
	if (r) {
		x->nomem = true;
		json_object_put(v);
	}
}

static void add(struct ex *x, json_object *a, json_object *v)
{
	put(x, a, NULL, v);
}

static json_object *i64(int64_t v)
{
	return json_object_new_int64(v);
}

/* The model's strings should all be set; a NULL must not crash. */
static json_object *str(const char *s)
{
	return json_object_new_string(s ? s : "?");
}

static const char *host_name(const struct dt_rq_model *m, int h)
{
	return h >= 0 && h < m->n_hosts && m->hosts[h] ? m->hosts[h] : "?";
}

static const char *proc_name(const struct dt_rq_span *s)
{
	return s->procname ? s->procname : "?";
}

/* The exported spans and messages: all, or one request's. */
static int n_spans(const struct ex *x)
{
	return x->request < 0 ? x->m->n_spans :
				x->m->requests[x->request].n_spans;
}

static const struct dt_rq_span *span_at(const struct ex *x, int i)
{
	return &x->m->spans[x->request < 0 ? i :
			    x->m->requests[x->request].spans[i]];
}

static int n_messages(const struct ex *x)
{
	return x->request < 0 ? x->m->n_messages :
				x->m->requests[x->request].n_messages;
}

static const struct dt_rq_message *message_at(const struct ex *x, int i)
{
	return &x->m->messages[x->request < 0 ? i :
			       x->m->requests[x->request].messages[i]];
}

static bool exported(const struct ex *x, int span)
{
	return span >= 0 && span < x->m->n_spans &&
	       (x->request < 0 || x->m->spans[span].request == x->request);
}

/* ----- Perfetto -------------------------------------------------------- */

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

static json_object *perfetto(struct ex *x)
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

/* ----- OTLP ------------------------------------------------------------ */

static uint64_t mix(uint64_t x)	/* splitmix64's finalizer */
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/*
 * Ids from what identifies a request (its root's host, thread and start,
 * and its number): the same trace exports the same ids, whether all
 * requests are exported or one. Never zero (an invalid id in OTLP).
 */
static void trace_id(const struct dt_rq_model *m, int request, char *out)
{
	int root = m->requests[request].root;
	const struct dt_rq_span *r = root >= 0 && root < m->n_spans ?
				     &m->spans[root] : NULL;
	uint64_t a = (uint64_t)request, b;

	if (r)
		a ^= mix(fnv1a(host_name(m, r->host)) ^ mix((uint64_t)r->tid) ^
			 mix((uint64_t)r->start_ns));
	a = mix(a);
	b = mix(a ^ 0x5bd1e995ULL);
	snprintf(out, 33, "%016" PRIx64 "%016" PRIx64, a, b ? b : 1);
}

static void span_id(const char *trace, int span, char *out)
{
	uint64_t h = mix(fnv1a(trace) ^ mix((uint64_t)span + 1));

	snprintf(out, 17, "%016" PRIx64, h ? h : 1);
}

static json_object *attr(struct ex *x, const char *k, const char *type,
			 json_object *v)
{
	json_object *a = json_object_new_object();
	json_object *w = json_object_new_object();

	put(x, a, "key", str(k));
	put(x, w, type, v);
	put(x, a, "value", w);
	return a;
}

/* OTLP/JSON writes 64-bit integers as decimal strings. */
static json_object *i64s(int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	return str(buf);
}

static void attr_s(struct ex *x, json_object *a, const char *k,
		   const char *v)
{
	add(x, a, attr(x, k, "stringValue", str(v)));
}

static void attr_i(struct ex *x, json_object *a, const char *k, int64_t v)
{
	add(x, a, attr(x, k, "intValue", i64s(v)));
}

static void attr_b(struct ex *x, json_object *a, const char *k, bool v)
{
	add(x, a, attr(x, k, "boolValue", json_object_new_boolean(v)));
}

static void otlp_summary(struct ex *x, json_object *a,
			 const struct dt_rq_summary *u)
{
	char key[96];
	size_t i;
	int k;

	attr_i(x, a, "dtracer.running_ns", u->running_ns);
	attr_i(x, a, "dtracer.waiting_for_cpu_ns", u->runnable_ns);
	attr_i(x, a, "dtracer.blocked_ns", u->blocked_ns);
	for (k = 0; k < DT_RQ_BLOCK_N; k++) {
		snprintf(key, sizeof(key), "dtracer.blocked_on.%s_ns",
			 dt_rq_block_name(k));
		attr_i(x, a, key, u->blocked_on[k]);
	}
	attr_i(x, a, "dtracer.unknown_ns", u->unknown_ns);
	attr_i(x, a, "dtracer.events", (int64_t)u->events);
	attr_i(x, a, "dtracer.syscalls", (int64_t)u->syscall_count);
	attr_i(x, a, "dtracer.syscall_ns", u->syscall_ns);
	for (i = 0; i < u->n_syscalls && i < OTLP_SYSCALLS; i++) {
		const struct dt_rq_syscall *c = &u->syscalls[i];

		snprintf(key, sizeof(key), "dtracer.syscall.%.48s.count",
			 c->name ? c->name : "?");
		attr_i(x, a, key, (int64_t)c->count);
		snprintf(key, sizeof(key), "dtracer.syscall.%.48s.time_ns",
			 c->name ? c->name : "?");
		attr_i(x, a, key, c->time_ns);
	}
	attr_i(x, a, "dtracer.bytes_sent", (int64_t)u->bytes_sent);
	attr_i(x, a, "dtracer.bytes_received", (int64_t)u->bytes_received);
}

static json_object *otlp_attrs(struct ex *x, const struct dt_rq_span *s)
{
	json_object *a = json_object_new_array();
	char buf[DT_RQ_ADDR_LEN];

	attr_s(x, a, "host.name", host_name(x->m, s->host));
	attr_i(x, a, "thread.id", s->tid);
	attr_i(x, a, "process.pid", s->pid);
	attr_s(x, a, "process.executable.name", proc_name(s));
	attr_i(x, a, "dtracer.request", s->request);
	attr_i(x, a, "dtracer.span", s->id);
	attr_s(x, a, "dtracer.flag_reason",
	       dt_rq_flag_reason_name(s->flag_reason));
	attr_s(x, a, "dtracer.end_reason",
	       dt_rq_end_reason_name(s->end_reason));
	attr_i(x, a, "dtracer.duration_ns", (int64_t)s->duration_ns);
	if (s->flow.family) {	/* the request flow that flagged it */
		attr_s(x, a, "dtracer.peer", dt_rq_flow_src(&s->flow, buf));
		attr_s(x, a, "dtracer.local", dt_rq_flow_dst(&s->flow, buf));
	}
	otlp_summary(x, a, &s->sum);
	return a;
}

static json_object *otlp_event(struct ex *x, const char *name, int64_t t,
			       const struct dt_rq_message *g)
{
	json_object *e = json_object_new_object();
	json_object *a = json_object_new_array();
	char buf[DT_RQ_ADDR_LEN];

	put(x, e, "name", str(name));
	put(x, e, "timeUnixNano", i64s(t));
	attr_i(x, a, "dtracer.message", g->id);
	attr_b(x, a, "dtracer.response", g->response);
	attr_s(x, a, "dtracer.src", dt_rq_flow_src(&g->flow, buf));
	attr_s(x, a, "dtracer.dst", dt_rq_flow_dst(&g->flow, buf));
	attr_i(x, a, "dtracer.bytes", (int64_t)g->bytes);
	attr_i(x, a, "dtracer.segments", g->segments);
	put(x, e, "attributes", a);
	return e;
}

/* The span's messages (its request's), sent and received, by send. */
static json_object *otlp_events(struct ex *x, const struct dt_rq_span *s)
{
	const struct dt_rq_request *r = &x->m->requests[s->request];
	json_object *evs = json_object_new_array();
	int i;

	for (i = 0; i < r->n_messages; i++) {
		const struct dt_rq_message *g = &x->m->messages[r->messages[i]];

		if (g->from_span == s->id)
			add(x, evs, otlp_event(x, "send", g->send_ns, g));
		if (g->to_span == s->id)
			add(x, evs, otlp_event(x, "receive", g->recv_ns, g));
	}
	return evs;
}

/* SPAN_KIND_CLIENT 3 (root), SERVER 2 (propagated), INTERNAL 1. */
static int otlp_kind(const struct dt_rq_span *s)
{
	if (s->parent < 0)
		return 3;
	return s->flag_reason == DT_RQ_FLAG_PROPAGATED ? 2 : 1;
}

static json_object *otlp_span(struct ex *x, const struct dt_rq_span *s)
{
	json_object *sp = json_object_new_object();
	char tid[33], sid[17], pid[17], name[160];

	trace_id(x->m, s->request, tid);
	span_id(tid, s->id, sid);
	put(x, sp, "traceId", str(tid));
	put(x, sp, "spanId", str(sid));
	if (s->parent >= 0) {
		span_id(tid, s->parent, pid);
		put(x, sp, "parentSpanId", str(pid));
	}
	snprintf(name, sizeof(name), "%s[%d]", proc_name(s), s->tid);
	put(x, sp, "name", str(name));
	put(x, sp, "kind", json_object_new_int(otlp_kind(s)));
	put(x, sp, "startTimeUnixNano", i64s(s->start_ns));
	put(x, sp, "endTimeUnixNano", i64s(s->end_ns));
	put(x, sp, "attributes", otlp_attrs(x, s));
	put(x, sp, "events", otlp_events(x, s));
	return sp;
}

static json_object *otlp_resource(struct ex *x, int h, json_object *spans)
{
	json_object *rs = json_object_new_object();
	json_object *res = json_object_new_object();
	json_object *at = json_object_new_array();
	json_object *ss = json_object_new_array();
	json_object *sc = json_object_new_object();
	json_object *scope = json_object_new_object();

	attr_s(x, at, "service.name", host_name(x->m, h));
	attr_s(x, at, "host.name", host_name(x->m, h));
	put(x, res, "attributes", at);
	put(x, rs, "resource", res);
	put(x, scope, "name", str("dtracer"));
	put(x, scope, "version", str(PACKAGE_VERSION));
	put(x, sc, "scope", scope);
	put(x, sc, "spans", spans);
	add(x, ss, sc);
	put(x, rs, "scopeSpans", ss);
	return rs;
}

static json_object *otlp(struct ex *x)
{
	json_object *doc = json_object_new_object();
	json_object *rss = json_object_new_array();
	int h, i;

	for (h = 0; h < x->m->n_hosts; h++) {
		json_object *spans = json_object_new_array();

		for (i = 0; i < n_spans(x); i++) {
			const struct dt_rq_span *s = span_at(x, i);

			if (s->host == h)
				add(x, spans, otlp_span(x, s));
		}
		if (spans && !json_object_array_length(spans))
			json_object_put(spans);
		else
			add(x, rss, otlp_resource(x, h, spans));
	}
	put(x, doc, "resourceSpans", rss);
	return doc;
}

/* ----- Writing ---------------------------------------------------------- */

static int fail(char **err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(err, fmt, ap) < 0)
		*err = NULL;
	va_end(ap);
	return -1;
}

static int write_doc(json_object *doc, FILE *f, char **err)
{
	const char *text;
	size_t n = 0;

	text = json_object_to_json_string_length(doc, JSON_C_TO_STRING_PLAIN |
						 JSON_C_TO_STRING_NOSLASHESCAPE,
						 &n);
	if (!text)
		return fail(err, "writing the export: %s", strerror(ENOMEM));
	errno = 0;
	if (fwrite(text, 1, n, f) != n || fputc('\n', f) == EOF ||
	    fflush(f) == EOF || ferror(f))
		return fail(err, "writing the export: %s",
			    strerror(errno ? errno : EIO));
	return 0;
}

int dt_export(const struct dt_rq_model *m, enum dt_export_format fmt,
	      int request, FILE *f, char **err)
{
	struct ex x = { .m = m, .request = request };
	json_object *doc;
	int r;

	*err = NULL;
	if (request < -1 || request >= m->n_requests) {
		if (!m->n_requests)
			return fail(err, "no request %d (there are none)",
				    request);
		return fail(err, "no request %d (requests are 0 to %d)",
			    request, m->n_requests - 1);
	}
	if (fmt != DT_EXPORT_PERFETTO && fmt != DT_EXPORT_OTLP)
		return fail(err, "unknown export format %d", (int)fmt);
	doc = fmt == DT_EXPORT_OTLP ? otlp(&x) : perfetto(&x);
	if (!doc || x.nomem)
		r = fail(err, "building the export: %s", strerror(ENOMEM));
	else
		r = write_doc(doc, f, err);
	json_object_put(doc);
	free(x.prev);
	return r;
}
