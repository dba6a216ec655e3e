/*
 * Export: OTLP/JSON (OpenTelemetry, for Jaeger and other backends): a
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
#include "export-int.h"
#include "requests.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

#define OTLP_SYSCALLS 5		/* longest syscalls in a span's attributes */


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
	if (s->guess)	/* the kernel guessed a hop into it */
		attr_s(x, a, "dtracer.guess", "true");
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
	return dt_rq_flag_read(s->flag_reason) ? 2 : 1;
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

json_object *dt_export_otlp(struct ex *x)
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

