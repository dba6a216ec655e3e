/*
 * Exports of a requests model, built with json-c.
 *
 * Perfetto (Chrome Trace Event JSON): one process per host (pid = host
 * index + 1), one thread per traced thread; each span a complete event
 * ("X") with its kernel summary in args; each received message a flow
 * ("s" on the sender's thread at the send, "f" on the receiver's at the
 * receive). Times are microseconds from the earliest span's start (kept
 * in "metadata": time_base_ns), so that doubles keep nanoseconds.
 *
 * OTLP/JSON: one resourceSpans per host (service.name = host); per span
 * a traceId shared by its request, a spanId, the parent's spanId, start
 * and end in Unix ns (strings, as OTLP/JSON writes 64-bit integers), the
 * thread and kernel summary as attributes; messages as span events
 * ("send" on the sender, "receive" on the receiver).
 */
#define _GNU_SOURCE
#include "export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

int dt_export_format_parse(const char *name)
{
	if (!strcmp(name, "perfetto"))
		return DT_EXPORT_PERFETTO;
	if (!strcmp(name, "otlp"))
		return DT_EXPORT_OTLP;
	return -1;
}

/* json-c: object_add takes the new value's reference, even on error. */
static void put(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

static json_object *i64(int64_t v)
{
	return json_object_new_int64(v);
}

static json_object *str(const char *s)
{
	return json_object_new_string(s);
}

static bool wanted(const struct dt_rq_model *m, int request, int span)
{
	return request < 0 || m->spans[span].request == request;
}

/* ----- Perfetto -------------------------------------------------------- */

/* ns -> us from the base, exact to the ns for any trace under 104 days. */
static json_object *us(int64_t ns, int64_t base)
{
	return json_object_new_double((double)(ns - base) / 1e3);
}

static json_object *summary_args(const struct dt_rq_span *s)
{
	const struct dt_rq_summary *u = &s->sum;
	json_object *a = json_object_new_object(), *b, *sc;
	size_t i;
	int k;

	put(a, "running_ns", i64(u->running_ns));
	put(a, "waiting_for_cpu_ns", i64(u->runnable_ns));
	put(a, "blocked_ns", i64(u->blocked_ns));
	b = json_object_new_object();
	for (k = 0; k < DT_RQ_BLOCK_N; k++)
		put(b, dt_rq_block_name(k), i64(u->blocked_on[k]));
	put(a, "blocked_on_ns", b);
	put(a, "unknown_ns", i64(u->unknown_ns));
	put(a, "bytes_sent", i64((int64_t)u->bytes_sent));
	put(a, "bytes_received", i64((int64_t)u->bytes_received));
	put(a, "events", i64((int64_t)u->events));
	put(a, "syscall_count", i64((int64_t)u->syscall_count));
	put(a, "syscall_ns", i64(u->syscall_ns));
	sc = json_object_new_object();
	for (i = 0; i < u->n_syscalls && i < 10; i++) {
		json_object *c = json_object_new_object();

		put(c, "count", i64((int64_t)u->syscalls[i].count));
		put(c, "time_ns", i64(u->syscalls[i].time_ns));
		put(sc, u->syscalls[i].name, c);
	}
	put(a, "syscalls", sc);
	return a;
}

static json_object *trace_event(const char *ph, const char *name, int pid,
				int tid, int64_t ts, int64_t base)
{
	json_object *e = json_object_new_object();

	put(e, "ph", str(ph));
	put(e, "name", str(name));
	put(e, "cat", str("dtracer"));
	put(e, "pid", json_object_new_int(pid));
	put(e, "tid", json_object_new_int(tid));
	put(e, "ts", us(ts, base));
	return e;
}

static json_object *meta_event(const char *name, int pid, int tid,
			       const char *value)
{
	json_object *e = json_object_new_object(), *a = json_object_new_object();

	put(e, "ph", str("M"));
	put(e, "name", str(name));
	put(e, "pid", json_object_new_int(pid));
	put(e, "tid", json_object_new_int(tid));
	put(a, "name", str(value));
	put(e, "args", a);
	return e;
}

static void perfetto_span(json_object *evs, const struct dt_rq_model *m,
			  const struct dt_rq_span *s, int64_t base)
{
	char name[160];
	json_object *e, *a;

	snprintf(name, sizeof(name), "request %d: %s[%d]", s->request,
		 s->procname, s->tid);
	e = trace_event("X", name, s->host + 1, s->tid, s->start_ns, base);
	put(e, "dur", json_object_new_double((double)(s->end_ns -
						      s->start_ns) / 1e3));
	a = summary_args(s);
	put(a, "request", json_object_new_int(s->request));
	put(a, "span", json_object_new_int(s->id));
	put(a, "parent_span", json_object_new_int(s->parent));
	put(a, "host", str(m->hosts[s->host]));
	put(a, "flag_reason", str(dt_rq_flag_reason_name(s->flag_reason)));
	put(a, "end_reason", str(dt_rq_end_reason_name(s->end_reason)));
	put(a, "duration_ns", i64((int64_t)s->duration_ns));
	put(e, "args", a);
	json_object_array_add(evs, e);
}

/* Clamp t into [a, b]: a flow end must fall inside its slice. */
static int64_t clamp(int64_t t, int64_t a, int64_t b)
{
	return t < a ? a : t > b ? b : t;
}

/*
 * A message as a flow. "s" binds to the slice enclosing it on the
 * sender's thread: the send happened while the sender was flagged, but a
 * segment can leave just after the unflag, so it is clamped into the
 * slice. A request's receive comes before the receiving thread is
 * flagged: its "f" has no "bp" and binds to the next slice starting on
 * that thread (the span it flagged); a response arrives while the
 * receiving span is open: "bp":"e", the enclosing slice.
 */
static void perfetto_flow(json_object *evs, const struct dt_rq_model *m,
			  const struct dt_rq_message *g, int64_t base)
{
	const struct dt_rq_span *from = &m->spans[g->from_span];
	const struct dt_rq_span *to = &m->spans[g->to_span];
	json_object *s, *f;
	int64_t ft;

	s = trace_event("s", "message", from->host + 1, from->tid,
			clamp(g->send_ns, from->start_ns, from->end_ns), base);
	put(s, "id", json_object_new_int(g->id + 1));
	json_object_array_add(evs, s);
	if (g->response) {
		ft = clamp(g->recv_ns, to->start_ns, to->end_ns);
	} else {
		ft = g->recv_ns < to->start_ns ? g->recv_ns : to->start_ns;
	}
	f = trace_event("f", "message", to->host + 1, to->tid, ft, base);
	put(f, "id", json_object_new_int(g->id + 1));
	if (g->response)
		put(f, "bp", str("e"));
	json_object_array_add(evs, f);
}

static json_object *perfetto(const struct dt_rq_model *m, int request)
{
	json_object *doc = json_object_new_object();
	json_object *evs = json_object_new_array(), *md;
	bool *host_seen = calloc(m->n_hosts ? m->n_hosts : 1, 1);
	int64_t base = INT64_MAX;
	int i;

	for (i = 0; i < m->n_spans; i++)
		if (wanted(m, request, i) && m->spans[i].start_ns < base)
			base = m->spans[i].start_ns;
	if (base == INT64_MAX)
		base = 0;
	for (i = 0; i < m->n_spans; i++) {
		const struct dt_rq_span *s = &m->spans[i];
		char tn[160];
		int k;

		if (!wanted(m, request, i))
			continue;
		if (host_seen && !host_seen[s->host]) {
			host_seen[s->host] = true;
			json_object_array_add(evs, meta_event("process_name",
				s->host + 1, 0, m->hosts[s->host]));
		}
		for (k = 0; k < i; k++)	/* first span of this thread? */
			if (wanted(m, request, k) && m->spans[k].host == s->host &&
			    m->spans[k].tid == s->tid)
				break;
		if (k == i) {
			snprintf(tn, sizeof(tn), "%s[%d]", s->procname, s->tid);
			json_object_array_add(evs, meta_event("thread_name",
				s->host + 1, s->tid, tn));
		}
		perfetto_span(evs, m, s, base);
	}
	for (i = 0; i < m->n_messages; i++)
		if (m->messages[i].to_span >= 0 &&
		    wanted(m, request, m->messages[i].from_span))
			perfetto_flow(evs, m, &m->messages[i], base);
	free(host_seen);
	put(doc, "displayTimeUnit", str("ns"));
	put(doc, "traceEvents", evs);
	md = json_object_new_object();
	put(md, "producer", str("dtracer"));
	put(md, "time_base_ns", i64(base));
	put(doc, "metadata", md);
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

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;	/* FNV-1a */
	return h;
}

/*
 * Ids from what identifies a request (its root's host, thread, start,
 * and its number): the same trace gives the same ids; never zero.
 */
static void trace_id(const struct dt_rq_model *m, int request, char *out)
{
	const struct dt_rq_span *r = &m->spans[m->requests[request].root];
	uint64_t h = hash_str(0xcbf29ce484222325ULL, m->hosts[r->host]);
	uint64_t a = mix(h ^ mix((uint64_t)r->tid) ^
			 mix((uint64_t)r->start_ns) ^ (uint64_t)request);
	uint64_t b = mix(a ^ 0x5bd1e995ULL);

	snprintf(out, 33, "%016" PRIx64 "%016" PRIx64, a, b ? b : 1);
}

static void span_id(const char *trace, int span, char *out)
{
	uint64_t x = mix(hash_str(0xcbf29ce484222325ULL, trace) ^
			 mix((uint64_t)span + 1));

	snprintf(out, 17, "%016" PRIx64, x ? x : 1);
}

static json_object *attr(const char *k, json_object *v, const char *type)
{
	json_object *a = json_object_new_object(), *w = json_object_new_object();

	put(a, "key", str(k));
	put(w, type, v);
	put(a, "value", w);
	return a;
}

static json_object *attr_s(const char *k, const char *v)
{
	return attr(k, str(v), "stringValue");
}

/* OTLP/JSON writes 64-bit integers as decimal strings. */
static json_object *i64s(int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	return str(buf);
}

static json_object *attr_i(const char *k, int64_t v)
{
	return attr(k, i64s(v), "intValue");
}

static void otlp_attrs(json_object *sp, const struct dt_rq_model *m,
		       const struct dt_rq_span *s)
{
	const struct dt_rq_summary *u = &s->sum;
	json_object *a = json_object_new_array();
	char buf[DT_RQ_ADDR_LEN], key[64];
	int k;

	json_object_array_add(a, attr_s("host.name", m->hosts[s->host]));
	json_object_array_add(a, attr_i("thread.id", s->tid));
	json_object_array_add(a, attr_i("process.pid", s->pid));
	json_object_array_add(a, attr_s("process.executable.name",
					s->procname));
	json_object_array_add(a, attr_i("dtracer.request", s->request));
	json_object_array_add(a, attr_s("dtracer.flag_reason",
		dt_rq_flag_reason_name(s->flag_reason)));
	json_object_array_add(a, attr_s("dtracer.end_reason",
		dt_rq_end_reason_name(s->end_reason)));
	json_object_array_add(a, attr_i("dtracer.duration_ns",
					(int64_t)s->duration_ns));
	if (s->flow.family) {
		json_object_array_add(a, attr_s("dtracer.peer",
			dt_rq_flow_src(&s->flow, buf)));
		json_object_array_add(a, attr_s("dtracer.local",
			dt_rq_flow_dst(&s->flow, buf)));
	}
	json_object_array_add(a, attr_i("dtracer.running_ns", u->running_ns));
	json_object_array_add(a, attr_i("dtracer.waiting_for_cpu_ns",
					u->runnable_ns));
	json_object_array_add(a, attr_i("dtracer.blocked_ns", u->blocked_ns));
	for (k = 0; k < DT_RQ_BLOCK_N; k++) {
		snprintf(key, sizeof(key), "dtracer.blocked_on.%s_ns",
			 dt_rq_block_name(k));
		json_object_array_add(a, attr_i(key, u->blocked_on[k]));
	}
	json_object_array_add(a, attr_i("dtracer.unknown_ns", u->unknown_ns));
	json_object_array_add(a, attr_i("dtracer.syscalls", (int64_t)u->syscall_count));
	json_object_array_add(a, attr_i("dtracer.syscall_ns", u->syscall_ns));
	json_object_array_add(a, attr_i("dtracer.bytes_sent",
					(int64_t)u->bytes_sent));
	json_object_array_add(a, attr_i("dtracer.bytes_received",
					(int64_t)u->bytes_received));
	put(sp, "attributes", a);
}

static json_object *otlp_event(const char *name, int64_t t,
			       const struct dt_rq_message *g)
{
	json_object *e = json_object_new_object(), *a = json_object_new_array();
	char buf[DT_RQ_ADDR_LEN];

	put(e, "name", str(name));
	put(e, "timeUnixNano", i64s(t));
	json_object_array_add(a, attr_i("dtracer.message", g->id));
	json_object_array_add(a, attr_s("net.src", dt_rq_flow_src(&g->flow,
								  buf)));
	json_object_array_add(a, attr_s("net.dst", dt_rq_flow_dst(&g->flow,
								  buf)));
	json_object_array_add(a, attr_i("dtracer.bytes", (int64_t)g->bytes));
	json_object_array_add(a, attr_i("dtracer.segments", g->segments));
	put(e, "attributes", a);
	return e;
}

static json_object *otlp_span(const struct dt_rq_model *m,
			      const struct dt_rq_span *s)
{
	json_object *sp = json_object_new_object(), *evs;
	char tid[33], sid[17], pid[17], name[160];
	int i;

	trace_id(m, s->request, tid);
	span_id(tid, s->id, sid);
	put(sp, "traceId", str(tid));
	put(sp, "spanId", str(sid));
	if (s->parent >= 0) {
		span_id(tid, s->parent, pid);
		put(sp, "parentSpanId", str(pid));
	}
	snprintf(name, sizeof(name), "%s[%d]", s->procname, s->tid);
	put(sp, "name", str(name));
	/* SPAN_KIND_CLIENT 3 (root), SERVER 2 (propagated), INTERNAL 1 */
	put(sp, "kind", json_object_new_int(s->parent < 0 ? 3 :
		s->flag_reason == DT_RQ_FLAG_PROPAGATED ? 2 : 1));
	put(sp, "startTimeUnixNano", i64s(s->start_ns));
	put(sp, "endTimeUnixNano", i64s(s->end_ns));
	otlp_attrs(sp, m, s);
	evs = json_object_new_array();
	for (i = 0; i < m->n_messages; i++) {
		const struct dt_rq_message *g = &m->messages[i];

		if (g->from_span == s->id)
			json_object_array_add(evs, otlp_event("send",
							      g->send_ns, g));
		if (g->to_span == s->id)
			json_object_array_add(evs, otlp_event("receive",
							      g->recv_ns, g));
	}
	put(sp, "events", evs);
	return sp;
}

static json_object *otlp(const struct dt_rq_model *m, int request)
{
	json_object *doc = json_object_new_object();
	json_object *rss = json_object_new_array();
	int h, i;

	for (h = 0; h < m->n_hosts; h++) {
		json_object *rs = NULL, *spans = json_object_new_array();

		for (i = 0; i < m->n_spans; i++)
			if (m->spans[i].host == h && wanted(m, request, i))
				json_object_array_add(spans,
						      otlp_span(m, &m->spans[i]));
		if (!json_object_array_length(spans)) {
			json_object_put(spans);
			continue;
		}
		rs = json_object_new_object();
		{
			json_object *res = json_object_new_object();
			json_object *at = json_object_new_array();
			json_object *ss = json_object_new_array();
			json_object *sc = json_object_new_object();
			json_object *scope = json_object_new_object();

			json_object_array_add(at, attr_s("service.name",
							 m->hosts[h]));
			json_object_array_add(at, attr_s("host.name",
							 m->hosts[h]));
			put(res, "attributes", at);
			put(rs, "resource", res);
			put(scope, "name", str("dtracer"));
			put(scope, "version", str(PACKAGE_VERSION));
			put(sc, "scope", scope);
			put(sc, "spans", spans);
			json_object_array_add(ss, sc);
			put(rs, "scopeSpans", ss);
		}
		json_object_array_add(rss, rs);
	}
	put(doc, "resourceSpans", rss);
	return doc;
}

int dt_export(const struct dt_rq_model *m, enum dt_export_format fmt,
	      int request, FILE *f, char **err)
{
	json_object *doc;
	const char *text;
	int ret = 0;

	*err = NULL;
	if (request >= m->n_requests) {
		if (asprintf(err, "no request %d (%d requests)", request,
			     m->n_requests) < 0)
			*err = NULL;
		return -1;
	}
	doc = fmt == DT_EXPORT_OTLP ? otlp(m, request) : perfetto(m, request);
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN);
	if (!text || fputs(text, f) == EOF || fputc('\n', f) == EOF ||
	    fflush(f) == EOF || ferror(f)) {
		if (asprintf(err, "writing the export: %s",
			     strerror(errno ? errno : EIO)) < 0)
			*err = NULL;
		ret = -1;
	}
	json_object_put(doc);
	return ret;
}
