/*
 * Exports (collector/export/export.c) of hand-made models (rq-fixture.h),
 * parsed back with json-c and checked field by field.
 *
 * Perfetto: every span one "X" slice, to the ns with times of a real
 * trace (~1.8e18 ns since 1970, odd ns); process and thread names; each
 * received message one "s" and one "f" of one id; and each flow event
 * bound the way Perfetto binds it ("s" and "bp":"e" to the slice
 * enclosing it, a plain "f" to the next slice starting on its thread),
 * with the exact times and with Perfetto's own reading of them (us *
 * 1000, truncated), including sends after the sender's end, receives on
 * the receiver's start and a thread with several spans.
 *
 * OTLP: ids well formed, parents, exact times, kinds, events per
 * message, resources per host, the same ids in a one-request export.
 */
#define _GNU_SOURCE
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "export.h"
#include "rq-fixture.h"
#include "tap.h"

#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

/* ----- Helpers ---------------------------------------------------------- */

struct out {
	int rc;
	GError *err;
	char *text;
	size_t len;
};

/* Export m into memory; out->text is what was written. */
static void run(const struct dt_rq_model *m, int fmt, int req,
		struct out *o)
{
	FILE *f;

	memset(o, 0, sizeof(*o));
	f = open_memstream(&o->text, &o->len);
	if (!f)
		abort();
	o->rc = dt_export(m, fmt, req, f, &o->err);
	fclose(f);
}

static void out_free(struct out *o)
{
	g_clear_error(&o->err);
	free(o->text);
}

/* One JSON document, then only white space; NULL if not. */
static json_object *parse(const char *text, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *doc;
	size_t end;

	doc = json_tokener_parse_ex(tok, text, (int)len);
	end = json_tokener_get_parse_end(tok);
	if (json_tokener_get_error(tok) != json_tokener_success ||
	    strspn(text + end, " \n") != len - end) {
		json_object_put(doc);
		doc = NULL;
	}
	json_tokener_free(tok);
	return doc;
}

/* Export m and parse it back; NULL if either failed. */
static json_object *export(const struct dt_rq_model *m, int fmt, int req)
{
	struct out o;
	json_object *doc = NULL;

	run(m, fmt, req, &o);
	if (!o.rc && !o.err)
		doc = parse(o.text, o.len);
	out_free(&o);
	return doc;
}

static json_object *get(json_object *o, const char *k)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, k, &v);
	return v;
}

static const char *gets(json_object *o, const char *k)
{
	json_object *v = get(o, k);

	return v ? json_object_get_string(v) : "";
}

static int len(json_object *a)
{
	return json_object_is_type(a, json_type_array) ?
	       (int)json_object_array_length(a) : -1;
}

static json_object *at(json_object *a, int i)
{
	return json_object_array_get_idx(a, i);
}

/* ----- Fixtures --------------------------------------------------------- */

static const int64_t T0 = 1795333400000000000LL;	/* 2026-11 */

/* Fixture time -> a real trace's: since 1970, odd ns, order kept. */
static int64_t epoch(int64_t t)
{
	return T0 + t + t / 997;
}

static void to_epoch(struct dt_rq_model *m)
{
	int i;

	for (i = 0; i < m->n_spans; i++) {
		struct dt_rq_span *s = &m->spans[i];

		s->start_ns = epoch(s->start_ns);
		s->end_ns = epoch(s->end_ns);
		if (s->duration_ns)
			s->duration_ns = (uint64_t)(s->end_ns - s->start_ns);
	}
	for (i = 0; i < m->n_messages; i++) {
		struct dt_rq_message *g = &m->messages[i];

		g->send_ns = g->last_send_ns = epoch(g->send_ns);
		g->recv_ns = g->last_recv_ns = epoch(g->recv_ns);
	}
	for (i = 0; i < m->n_requests; i++) {
		m->requests[i].start_ns = epoch(m->requests[i].start_ns);
		m->requests[i].end_ns = epoch(m->requests[i].end_ns);
	}
}

/* Request k's span j (0 root, 1 proxy, 2 server, 3 worker). */
static struct dt_rq_span *sp(struct dt_rq_model *m, int k, int j)
{
	return &m->spans[m->requests[k].spans[j]];
}

/* The message from span a to span b. */
static struct dt_rq_message *msg(struct dt_rq_model *m,
				 const struct dt_rq_span *a,
				 const struct dt_rq_span *b)
{
	int i;

	for (i = 0; i < m->n_messages; i++)
		if (m->messages[i].from_span == a->id &&
		    m->messages[i].to_span == b->id)
			return &m->messages[i];
	abort();
}

/*
 * rq_fixture(6) with a real trace's times and the awkward cases: one
 * client thread for all requests; a server tid equal to the client's on
 * another host; proxy threads serving two requests each; a response
 * whose segment left 700 ns after its sender's unflag, one sent on the
 * unflag's ns; a request received 300 ns after its receiver's flag
 * (alignment), one on the flag's ns, one 1 ns before it, one before
 * its thread's previous span even started; a message nobody received.
 */
static struct dt_rq_model *real_fixture(void)
{
	struct dt_rq_model *m = rq_fixture(6);
	int k;

	to_epoch(m);
	for (k = 0; k < 6; k++)
		sp(m, k, 0)->tid = sp(m, k, 0)->pid = 100;
	sp(m, 0, 2)->tid = 100;
	sp(m, 2, 1)->tid = sp(m, 1, 1)->tid;
	sp(m, 4, 1)->tid = sp(m, 3, 1)->tid;
	msg(m, sp(m, 0, 2), sp(m, 0, 1))->send_ns = sp(m, 0, 2)->end_ns + 700;
	msg(m, sp(m, 2, 2), sp(m, 2, 1))->send_ns = sp(m, 2, 2)->end_ns;
	msg(m, sp(m, 0, 0), sp(m, 0, 1))->recv_ns = sp(m, 0, 1)->start_ns + 300;
	msg(m, sp(m, 2, 1), sp(m, 2, 2))->recv_ns = sp(m, 2, 2)->start_ns;
	msg(m, sp(m, 4, 0), sp(m, 4, 1))->recv_ns =
		sp(m, 3, 1)->start_ns - 1000;
	msg(m, sp(m, 5, 1), sp(m, 5, 2))->recv_ns = sp(m, 5, 2)->start_ns - 1;
	msg(m, sp(m, 1, 3), sp(m, 1, 1))->to_span = -1;
	return m;
}

/* ----- Perfetto --------------------------------------------------------- */

struct pev {
	json_object *o, *args;
	char ph;
	const char *name, *bp;
	int pid, tid, id, span;
	int64_t ts, dur;	/* ns from the base, exact */
	int64_t pts, pdur;	/* as Perfetto reads them (truncated) */
};

static void pev_read(json_object *e, struct pev *p)
{
	double ts = json_object_get_double(get(e, "ts"));
	double dur = json_object_get_double(get(e, "dur"));

	p->o = e;
	p->args = get(e, "args");
	p->ph = *gets(e, "ph");
	p->name = gets(e, "name");
	p->bp = get(e, "bp") ? gets(e, "bp") : NULL;
	p->pid = json_object_get_int(get(e, "pid"));
	p->tid = json_object_get_int(get(e, "tid"));
	p->id = json_object_get_int(get(e, "id"));
	p->span = p->ph == 'X' ? json_object_get_int(get(p->args, "span")) :
				 -1;
	p->ts = llround(ts * 1e3);
	p->dur = llround(dur * 1e3);
	p->pts = (int64_t)(ts * 1000.0);
	p->pdur = (int64_t)(dur * 1000.0);
}

struct pdoc {
	json_object *doc;
	int64_t base;
	struct pev *ev;
	int n;
};

static bool pdoc_read(struct pdoc *d, const struct dt_rq_model *m, int req)
{
	json_object *evs;
	int i;

	memset(d, 0, sizeof(*d));
	d->doc = export(m, DT_EXPORT_PERFETTO, req);
	evs = get(d->doc, "traceEvents");
	d->n = len(evs);
	if (!d->doc || d->n < 0) {
		d->n = 0;
		return false;
	}
	d->base = json_object_get_int64(get(get(d->doc, "metadata"),
					    "time_base_ns"));
	d->ev = rqf_calloc((size_t)d->n, sizeof(*d->ev));
	for (i = 0; i < d->n; i++)
		pev_read(at(evs, i), &d->ev[i]);
	return true;
}

static void pdoc_free(struct pdoc *d)
{
	json_object_put(d->doc);
	free(d->ev);
}

/*
 * The span whose slice a flow event binds to, as Perfetto binds it: "s"
 * and "f" with "bp":"e" to the slice enclosing it on its thread (here
 * strictly: on an edge, the order of events of one timestamp decides),
 * a plain "f" to the next slice starting on its thread. -1 if none.
 */
static int bound(const struct pdoc *d, const struct pev *f, bool perfetto)
{
	int64_t t = perfetto ? f->pts : f->ts, best_ts = INT64_MAX;
	bool next = f->ph == 'f' && !f->bp;
	int i, span = -1;

	for (i = 0; i < d->n; i++) {
		const struct pev *x = &d->ev[i];
		int64_t s = perfetto ? x->pts : x->ts;
		int64_t e = s + (perfetto ? x->pdur : x->dur);

		if (x->ph != 'X' || x->pid != f->pid || x->tid != f->tid)
			continue;
		if (next && s > t && s < best_ts)
			best_ts = s, span = x->span;
		else if (!next && s < t && t < e)
			span = x->span;
	}
	return span;
}

/* The slices: each span once, exact times, fields and args. */
static void perfetto_slices(const struct dt_rq_model *m,
			    const struct pdoc *d, const char *what)
{
	int *seen = rqf_calloc(m->n_spans, sizeof(int));
	int i, slices = 0, bad_time = 0, bad_field = 0, bad_args = 0;
	int64_t first = INT64_MAX;

	for (i = 0; i < d->n; i++) {
		const struct pev *e = &d->ev[i];
		const struct dt_rq_span *s;
		json_object *a = e->args;
		char name[64];

		if (e->ph != 'X')
			continue;
		slices++;
		if (e->span < 0 || e->span >= m->n_spans) {
			bad_field++;
			continue;
		}
		s = &m->spans[e->span];
		seen[s->id]++;
		first = s->start_ns < first ? s->start_ns : first;
		bad_time += d->base + e->ts != s->start_ns ||
			    d->base + e->ts + e->dur != s->end_ns;
		snprintf(name, sizeof(name), "%s[%d]", s->procname, s->tid);
		bad_field += e->pid != s->host + 1 || e->tid != s->tid ||
			     !strstr(e->name, name) ||
			     strcmp(gets(e->o, "cat"), "dtracer");
		bad_args += json_object_get_int(get(a, "request")) !=
			    s->request ||
			    json_object_get_int(get(a, "parent_span")) !=
			    s->parent ||
			    strcmp(gets(a, "flag_reason"),
				   dt_rq_flag_reason_name(s->flag_reason)) ||
			    strcmp(gets(a, "end_reason"),
				   dt_rq_end_reason_name(s->end_reason)) ||
			    json_object_get_int64(get(a, "duration_ns")) !=
			    (int64_t)s->duration_ns ||
			    json_object_get_int64(get(a, "running_ns")) !=
			    s->sum.running_ns ||
			    json_object_get_int64(get(a,
				"waiting_for_cpu_ns")) != s->sum.runnable_ns ||
			    json_object_get_int64(get(a, "blocked_ns")) !=
			    s->sum.blocked_ns ||
			    json_object_get_int64(get(get(a, "blocked_on_ns"),
						      "network")) !=
			    s->sum.blocked_on[DT_RQ_BLOCK_NETWORK] ||
			    json_object_get_int64(get(a, "bytes_sent")) !=
			    (int64_t)s->sum.bytes_sent ||
			    json_object_get_int64(get(get(get(a, "syscalls"),
				"recvfrom"), "count")) !=
			    (int64_t)s->sum.syscalls[0].count;
	}
	for (i = 0; i < m->n_spans && seen[i] <= 1; i++)
		;
	ok(i == m->n_spans, "%s: no span twice (%d slices)", what, slices);
	ok(!bad_time, "%s: slices start and end to the ns, base + us "
	   "(%d wrong)", what, bad_time);
	ok(!bad_field && !bad_args, "%s: pid host + 1, tid, name proc[tid], "
	   "cat, args: request, parent, reasons, summary (%d, %d wrong)",
	   what, bad_field, bad_args);
	ok(d->base <= first, "%s: the time base (%lld) is at or before the "
	   "first start", what, (long long)d->base);
	free(seen);
}

/* Names: a process per host, a thread per (host, tid) with spans. */
static void perfetto_names(const struct dt_rq_model *m, int req,
			   const struct pdoc *d, const char *what)
{
	int i, j, threads = 0, pn = 0, tn = 0, bad = 0, hosts = 0;
	bool *host = rqf_calloc(m->n_hosts, sizeof(bool));

	for (i = 0; i < m->n_spans; i++) {
		const struct dt_rq_span *s = &m->spans[i];

		if (req >= 0 && s->request != req)
			continue;
		hosts += !host[s->host];
		host[s->host] = true;
		for (j = 0; j < i; j++)
			if (m->spans[j].host == s->host &&
			    m->spans[j].tid == s->tid &&
			    (req < 0 || m->spans[j].request == req))
				break;
		threads += j == i;
	}
	for (i = 0; i < d->n; i++) {
		const struct pev *e = &d->ev[i];
		const char *v = gets(e->args, "name");
		char want[64];

		if (e->ph != 'M')
			continue;
		if (!strcmp(e->name, "process_name")) {
			pn++;
			bad += e->pid < 1 || e->pid > m->n_hosts ||
			       strcmp(v, m->hosts[e->pid - 1]);
			continue;
		}
		tn += !strcmp(e->name, "thread_name");
		for (j = 0; j < m->n_spans; j++)
			if (m->spans[j].host + 1 == e->pid &&
			    m->spans[j].tid == e->tid &&
			    (req < 0 || m->spans[j].request == req))
				break;
		snprintf(want, sizeof(want), "%s[%d]",
			 j < m->n_spans ? m->spans[j].procname : "", e->tid);
		bad += strcmp(v, want) != 0;
	}
	ok(pn == hosts && tn == threads && !bad, "%s: process_name per host "
	   "(%d of %d), thread_name \"proc[tid]\" per thread (%d of %d), "
	   "%d wrong", what, pn, hosts, tn, threads, bad);
	free(host);
}

struct flows {
	int *s, *f, *i;		/* per message: "s", "f", instants */
	int flows, unpaired, instants, lost, bad_thread, bad_bp;
	int bad_bind, bad_pbind, neg;
};

static void flow_event(const struct dt_rq_model *m, const struct pdoc *d,
		       const struct pev *e, struct flows *fl)
{
	const struct dt_rq_message *g;
	const struct dt_rq_span *s;
	int id = e->ph == 'i' ? json_object_get_int(get(e->args, "message")) :
				e->id - 1;

	if (id < 0 || id >= m->n_messages) {
		fl->bad_thread++;
		return;
	}
	g = &m->messages[id];
	if (e->ph == 'i') {
		fl->i[id]++;
		s = &m->spans[g->from_span];
		fl->bad_thread += e->pid != s->host + 1 || e->tid != s->tid;
		fl->bad_bind += bound(d, e, false) != s->id;
		fl->bad_pbind += bound(d, e, true) != s->id;
		return;
	}
	s = &m->spans[e->ph == 's' ? g->from_span : g->to_span];
	(e->ph == 's' ? fl->s : fl->f)[id]++;
	fl->bad_thread += e->pid != s->host + 1 || e->tid != s->tid ||
			  strcmp(e->name, g->response ? "response" : "request");
	if (e->ph == 'f')
		fl->bad_bp += !!e->bp != (g->recv_ns >= s->start_ns) ||
			      (e->bp && strcmp(e->bp, "e"));
	fl->bad_bind += bound(d, e, false) != s->id;
	fl->bad_pbind += bound(d, e, true) != s->id;
}

static void perfetto_flows(const struct dt_rq_model *m, int req,
			   const struct pdoc *d, const char *what)
{
	struct flows fl = { 0 };
	int i;

	fl.s = rqf_calloc(m->n_messages, sizeof(int));
	fl.f = rqf_calloc(m->n_messages, sizeof(int));
	fl.i = rqf_calloc(m->n_messages, sizeof(int));
	for (i = 0; i < d->n; i++) {
		const struct pev *e = &d->ev[i];

		fl.neg += e->ph != 'M' && e->ts < 0;
		if (e->ph == 's' || e->ph == 'f' || e->ph == 'i')
			flow_event(m, d, e, &fl);
	}
	for (i = 0; i < m->n_messages; i++) {
		const struct dt_rq_message *g = &m->messages[i];
		bool here = req < 0 || g->request == req;
		bool rx = here && g->to_span >= 0;

		fl.flows += rx;
		fl.lost += here && !rx;
		fl.instants += fl.i[i];
		fl.unpaired += fl.s[i] != rx || fl.f[i] != rx ||
			       fl.i[i] != (here && !rx);
	}
	ok(fl.flows > 0 && !fl.unpaired, "%s: each received message one s "
	   "and one f of its id, each lost one an instant, no other (%d "
	   "flows, %d lost, %d wrong)", what, fl.flows, fl.lost,
	   fl.unpaired);
	ok(!fl.bad_thread && !fl.bad_bp, "%s: on the sender's and receiver's "
	   "threads, named request/response, bp:e iff received while the "
	   "receiver was open (%d, %d wrong)", what, fl.bad_thread,
	   fl.bad_bp);
	ok(!fl.bad_bind, "%s: s and instants bind inside the sender's slice, "
	   "f to the receiver's (%d not)", what, fl.bad_bind);
	ok(!fl.bad_pbind, "%s: and still with Perfetto's truncated reading "
	   "of the times (%d not)", what, fl.bad_pbind);
	ok(!fl.neg, "%s: no time before the base (%d)", what, fl.neg);
	free(fl.s);
	free(fl.f);
	free(fl.i);
}

static void perfetto_check(const struct dt_rq_model *m, int req,
			   const char *what)
{
	struct pdoc d;
	int x = 0, i;

	ok(pdoc_read(&d, m, req), "%s: the export parses as one JSON "
	   "document with traceEvents", what);
	if (!d.doc)
		return;
	ok(!strcmp(gets(d.doc, "displayTimeUnit"), "ns"),
	   "%s: displayTimeUnit ns", what);
	for (i = 0; i < d.n; i++)
		x += d.ev[i].ph == 'X';
	ok(x == (req < 0 ? m->n_spans : m->requests[req].n_spans),
	   "%s: a slice per span (%d)", what, x);
	perfetto_slices(m, &d, what);
	perfetto_names(m, req, &d, what);
	perfetto_flows(m, req, &d, what);
	pdoc_free(&d);
}

/*
 * Flow events near slice edges, over many time scales: whatever ns
 * Perfetto's truncation drops, every flow event still binds right.
 */
static void perfetto_edges(void)
{
	int d, i, wrong = 0, events = 0, want = 0;

	for (d = 1; d <= 300; d++) {
		struct dt_rq_model *m = rq_fixture(2);
		struct pdoc p;

		for (i = 0; i < m->n_spans; i++) {
			m->spans[i].start_ns += m->spans[i].start_ns * d / 1009;
			m->spans[i].end_ns += m->spans[i].end_ns * d / 1009;
		}
		for (i = 0; i < m->n_messages; i++) {
			struct dt_rq_message *g = &m->messages[i];

			g->send_ns += g->send_ns * d / 1009;
			g->recv_ns += g->recv_ns * d / 1009;
			if (g->response)
				g->send_ns = m->spans[g->from_span].end_ns +
					     d % 3;
			else
				g->recv_ns = m->spans[g->to_span].start_ns -
					     d % 3;
			want += 2;
		}
		pdoc_read(&p, m, -1);
		for (i = 0; i < p.n; i++) {
			const struct pev *e = &p.ev[i];
			const struct dt_rq_message *g = &m->messages[e->id - 1];

			if (e->ph != 's' && e->ph != 'f')
				continue;
			events++;
			wrong += bound(&p, e, true) !=
				 (e->ph == 's' ? g->from_span : g->to_span);
		}
		pdoc_free(&p);
		dt_rq_model_free(m);
	}
	ok(events == want && !wrong, "perfetto: sends on and just after "
	   "the sender's end, receives on and just before the receiver's "
	   "start, 300 time scales: all bind right as Perfetto reads them "
	   "(%d of %d wrong)", wrong, events);
}

static void perfetto(void)
{
	struct dt_rq_model *m = rq_fixture(5);
	struct pdoc d;
	int i, bp_resp = 0;

	perfetto_check(m, -1, "perfetto");
	pdoc_read(&d, m, -1);
	ok(d.base == m->spans[0].start_ns, "perfetto: time base: the "
	   "earliest start");
	for (i = 0; i < d.n; i++)
		if (d.ev[i].ph == 'f')
			bp_resp += !!d.ev[i].bp !=
				   m->messages[d.ev[i].id - 1].response;
	ok(!bp_resp, "perfetto: bp:e exactly on responses (%d not)", bp_resp);
	pdoc_free(&d);
	dt_rq_model_free(m);

	m = real_fixture();
	perfetto_check(m, -1, "perfetto, real times");
	perfetto_check(m, 2, "perfetto, request 2");
	perfetto_edges();
	pdoc_read(&d, m, 2);
	ok(d.base <= m->spans[m->requests[2].root].start_ns &&
	   d.base > m->spans[m->requests[1].root].start_ns,
	   "perfetto, request 2: the base is its own");
	pdoc_free(&d);
	dt_rq_model_free(m);
}

/* ----- OTLP ------------------------------------------------------------- */

static json_object *attr(json_object *s, const char *key)
{
	json_object *a = get(s, "attributes");
	int i;

	for (i = 0; i < len(a); i++)
		if (!strcmp(gets(at(a, i), "key"), key))
			return get(at(a, i), "value");
	return NULL;
}

/* An intValue, which OTLP/JSON writes as a decimal string; -999 if not. */
static int64_t attr_int(json_object *s, const char *key)
{
	json_object *v = get(attr(s, key), "intValue");

	if (!json_object_is_type(v, json_type_string))
		return -999;
	return strtoll(json_object_get_string(v), NULL, 10);
}

static const char *attr_str(json_object *s, const char *key)
{
	return gets(attr(s, key), "stringValue");
}

static bool hex(const char *s, size_t n)
{
	size_t i;

	if (!s || strlen(s) != n || strspn(s, "0") == n)
		return false;
	for (i = 0; i < n; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return false;
	return true;
}

static int64_t nano(json_object *o, const char *k)
{
	json_object *v = get(o, k);

	return json_object_is_type(v, json_type_string) ?
	       strtoll(json_object_get_string(v), NULL, 10) : -999;
}

struct ospan {
	json_object *o;
	const char *trace, *id, *parent, *host;
	int span;		/* model span id, from dtracer.span */
};

struct odoc {
	json_object *doc;
	struct ospan *s;
	int n, resources, bad_resource;
};

static void odoc_resource(struct odoc *d, json_object *rs)
{
	json_object *ss = get(rs, "scopeSpans");
	const char *host = attr_str(get(rs, "resource"), "host.name");
	int j, k;

	d->bad_resource += strcmp(attr_str(get(rs, "resource"),
					   "service.name"), host) ||
			   len(ss) != 1 ||
			   strcmp(gets(get(at(ss, 0), "scope"), "name"),
				  "dtracer") ||
			   !*gets(get(at(ss, 0), "scope"), "version");
	for (j = 0; j < len(ss); j++) {
		json_object *sp = get(at(ss, j), "spans");

		for (k = 0; k < len(sp); k++) {
			struct ospan *o = &d->s[d->n++];

			o->o = at(sp, k);
			o->trace = gets(o->o, "traceId");
			o->id = gets(o->o, "spanId");
			o->parent = get(o->o, "parentSpanId") ?
				    gets(o->o, "parentSpanId") : NULL;
			o->host = host;
			o->span = (int)attr_int(o->o, "dtracer.span");
			d->bad_resource += strcmp(attr_str(o->o, "host.name"),
						  host) != 0;
		}
	}
}

static bool odoc_read(struct odoc *d, const struct dt_rq_model *m, int req)
{
	json_object *rss;
	int i;

	memset(d, 0, sizeof(*d));
	d->doc = export(m, DT_EXPORT_OTLP, req);
	rss = get(d->doc, "resourceSpans");
	if (!d->doc || len(rss) < 0)
		return false;
	d->s = rqf_calloc(m->n_spans + 1, sizeof(*d->s));
	d->resources = len(rss);
	for (i = 0; i < d->resources && d->n <= m->n_spans; i++)
		odoc_resource(d, at(rss, i));
	return d->n <= m->n_spans;
}

static void odoc_free(struct odoc *d)
{
	json_object_put(d->doc);
	free(d->s);
}

/* The exported span of model span id; NULL if none. */
static const struct ospan *ofind(const struct odoc *d, int span)
{
	int i;

	for (i = 0; i < d->n; i++)
		if (d->s[i].span == span)
			return &d->s[i];
	return NULL;
}

static void otlp_ids(const struct dt_rq_model *m, const struct odoc *d,
		     const char *what)
{
	int i, j, badid = 0, badparent = 0, same = 0, distinct = 0, dup = 0;

	for (i = 0; i < d->n; i++) {
		const struct ospan *o = &d->s[i];
		const struct dt_rq_span *s = &m->spans[o->span];
		const struct ospan *p = ofind(d, s->parent);

		badid += !hex(o->trace, 32) || !hex(o->id, 16) ||
			 (o->parent && !hex(o->parent, 16));
		badparent += s->parent < 0 ? o->parent != NULL :
			     !p || !o->parent || strcmp(p->id, o->parent) ||
			     strcmp(p->trace, o->trace);
		for (j = 0; j < d->n; j++) {
			bool sr = s->request == m->spans[d->s[j].span].request;
			bool st = !strcmp(o->trace, d->s[j].trace);

			same += sr && !st;
			distinct += !sr && st;
			dup += i != j && !strcmp(o->id, d->s[j].id);
		}
	}
	ok(!badid, "%s: traceId 32 lowercase hex digits, spanId and "
	   "parentSpanId 16, none zero (%d wrong)", what, badid);
	ok(!badparent, "%s: parentSpanId the parent's spanId in the same "
	   "trace, none on roots (%d wrong)", what, badparent);
	ok(!same && !distinct, "%s: one traceId per request, distinct across "
	   "(%d, %d wrong)", what, same, distinct);
	ok(!dup, "%s: spanIds unique", what);
}

static int span_times(const struct dt_rq_model *m, const struct ospan *o)
{
	const struct dt_rq_span *s = &m->spans[o->span];
	const struct dt_rq_span *p = s->parent >= 0 ? &m->spans[s->parent] :
				     NULL;
	int64_t start = nano(o->o, "startTimeUnixNano");
	int64_t end = nano(o->o, "endTimeUnixNano");

	return start != s->start_ns || end != s->end_ns || end < start ||
	       (p && start < p->start_ns) ||
	       (p && s->end_reason != DT_RQ_END_OPEN && end > p->end_ns);
}

static int span_fields(const struct dt_rq_model *m, const struct ospan *o)
{
	const struct dt_rq_span *s = &m->spans[o->span];
	char name[64], buf[DT_RQ_ADDR_LEN];
	int kind = s->parent < 0 ? 3 :
		   s->flag_reason == DT_RQ_FLAG_PROPAGATED ? 2 : 1;

	snprintf(name, sizeof(name), "%s[%d]", s->procname, s->tid);
	return strcmp(gets(o->o, "name"), name) ||
	       json_object_get_int(get(o->o, "kind")) != kind ||
	       strcmp(o->host, m->hosts[s->host]) ||
	       attr_int(o->o, "thread.id") != s->tid ||
	       attr_int(o->o, "process.pid") != s->pid ||
	       attr_int(o->o, "dtracer.request") != s->request ||
	       strcmp(attr_str(o->o, "process.executable.name"),
		      s->procname) ||
	       strcmp(attr_str(o->o, "dtracer.flag_reason"),
		      dt_rq_flag_reason_name(s->flag_reason)) ||
	       strcmp(attr_str(o->o, "dtracer.end_reason"),
		      dt_rq_end_reason_name(s->end_reason)) ||
	       attr_int(o->o, "dtracer.duration_ns") !=
	       (int64_t)s->duration_ns ||
	       attr_int(o->o, "dtracer.running_ns") != s->sum.running_ns ||
	       attr_int(o->o, "dtracer.blocked_on.disk_ns") !=
	       s->sum.blocked_on[DT_RQ_BLOCK_DISK] ||
	       attr_int(o->o, "dtracer.syscall.recvfrom.count") !=
	       (int64_t)s->sum.syscalls[0].count ||
	       attr_int(o->o, "dtracer.bytes_received") !=
	       (int64_t)s->sum.bytes_received ||
	       (s->parent >= 0 && strcmp(attr_str(o->o, "dtracer.peer"),
					 dt_rq_flow_src(&s->flow, buf)));
}

/* Span o's events: one per message it sent or received, at its time. */
static int span_events(const struct dt_rq_model *m, const struct ospan *o)
{
	json_object *evs = get(o->o, "events");
	int i, j, want = 0, bad = 0;

	for (i = 0; i < m->n_messages; i++) {
		const struct dt_rq_message *g = &m->messages[i];
		bool tx = g->from_span == o->span, rx = g->to_span == o->span;
		int found = 0;

		want += tx + rx;
		for (j = 0; j < len(evs); j++) {
			json_object *e = at(evs, j);
			bool send = !strcmp(gets(e, "name"), "send");

			if (attr_int(e, "dtracer.message") != g->id)
				continue;
			found++;
			bad += send ? !tx || nano(e, "timeUnixNano") !=
				      g->send_ns :
				      !rx || nano(e, "timeUnixNano") !=
				      g->recv_ns;
		}
		bad += found != tx + rx;
	}
	return bad + (len(evs) != want);
}

static void otlp_check(const struct dt_rq_model *m, int req,
		       const char *what)
{
	struct odoc d;
	int i, want = 0, badtime = 0, badfield = 0, badev = 0, missing = 0;

	ok(odoc_read(&d, m, req), "%s: the export parses as one JSON "
	   "document with resourceSpans", what);
	if (!d.doc)
		return;
	for (i = 0; i < m->n_spans; i++) {
		if (req >= 0 && m->spans[i].request != req)
			continue;
		want++;
		missing += !ofind(&d, i);
	}
	for (i = 0; i < d.n; i++)
		missing += d.s[i].span < 0 || d.s[i].span >= m->n_spans;
	ok(d.n == want && !missing, "%s: every span once (%d of %d)", what,
	   d.n, want);
	if (missing) {
		odoc_free(&d);
		return;
	}
	ok(!d.bad_resource && d.resources == (req < 0 ? m->n_hosts : 3),
	   "%s: a resource per host, service.name and host.name, scope "
	   "dtracer (%d resources)", what, d.resources);
	otlp_ids(m, &d, what);
	for (i = 0; i < d.n; i++) {
		badtime += span_times(m, &d.s[i]);
		badfield += span_fields(m, &d.s[i]);
		badev += span_events(m, &d.s[i]);
	}
	ok(!badtime, "%s: start and end the model's ns (strings), children "
	   "start in their parents and end in them unless open (%d wrong)",
	   what, badtime);
	ok(!badfield, "%s: name, kind, thread, process, reasons, peer, "
	   "summary attributes, intValue as strings (%d wrong)", what,
	   badfield);
	ok(!badev, "%s: a send event per message sent, a receive per message "
	   "received, at their times (%d wrong)", what, badev);
	odoc_free(&d);
}

static void otlp(void)
{
	struct dt_rq_model *m = rq_fixture(4);
	struct odoc all, one;
	json_object *a, *b;
	int i, same = 0;

	otlp_check(m, -1, "otlp");
	a = export(m, DT_EXPORT_OTLP, -1);
	b = export(m, DT_EXPORT_OTLP, -1);
	ok(a && b && !strcmp(json_object_to_json_string(a),
			     json_object_to_json_string(b)),
	   "otlp: a second export of the same model is the same, ids "
	   "included");
	json_object_put(a);
	json_object_put(b);
	dt_rq_model_free(m);

	m = real_fixture();
	otlp_check(m, -1, "otlp, real times");
	otlp_check(m, 3, "otlp, request 3");
	odoc_read(&all, m, -1);
	odoc_read(&one, m, 3);
	for (i = 0; i < one.n; i++) {
		const struct ospan *o = ofind(&all, one.s[i].span);

		same += o && !strcmp(o->id, one.s[i].id) &&
			!strcmp(o->trace, one.s[i].trace);
	}
	ok(one.n == m->requests[3].n_spans && same == one.n,
	   "otlp, request 3: the same ids as in the whole export (%d of %d)",
	   same, one.n);
	odoc_free(&all);
	odoc_free(&one);
	dt_rq_model_free(m);
}

/* ----- Errors and corner cases ------------------------------------------ */

static void formats(void)
{
	ok(dt_export_format_parse("perfetto") == DT_EXPORT_PERFETTO &&
	   dt_export_format_parse("otlp") == DT_EXPORT_OTLP,
	   "format names: perfetto, otlp");
	ok(dt_export_format_parse("svg") == -1 &&
	   dt_export_format_parse("") == -1 &&
	   dt_export_format_parse("OTLP") == -1 &&
	   dt_export_format_parse(NULL) == -1,
	   "unknown, empty, upper-case or no format name: -1");
}

static void bad_request(const struct dt_rq_model *m, int req)
{
	struct out o;

	run(m, DT_EXPORT_OTLP, req, &o);
	ok(o.rc == -1 && o.err && o.err->code == DT_ERROR_NOTFOUND &&
	   strstr(o.err->message, "no request") && !o.len,
	   "request %d of %d: -1, nothing written (%s)", req, m->n_requests,
	   o.err ? o.err->message : "no message");
	out_free(&o);
}

static void bad_format(const struct dt_rq_model *m)
{
	struct out o;

	run(m, 7, -1, &o);
	ok(o.rc == -1 && o.err && o.err->domain == DT_ERROR && !o.len,
	   "format 7: -1, nothing written (%s)",
	   o.err ? o.err->message : "no message");
	out_free(&o);
}

/* A FILE whose writes fail: -1 and a message, for both formats. */
static void write_error(const struct dt_rq_model *m, const char *path,
			const char *mode)
{
	int fmt;

	for (fmt = DT_EXPORT_PERFETTO; fmt <= DT_EXPORT_OTLP; fmt++) {
		FILE *f = fopen(path, mode);
		GError *err = NULL;
		int r = f ? dt_export(m, fmt, -1, f, &err) : 0;

		ok(r == -1 && err && err->code == DT_ERROR_IO &&
		   strstr(err->message, "writing"),
		   "%s on %s opened \"%s\": -1 (%s)",
		   fmt == DT_EXPORT_OTLP ? "otlp" : "perfetto", path, mode,
		   err ? err->message : "no message");
		g_clear_error(&err);
		if (f)
			fclose(f);
	}
}

static void empty(void)
{
	struct dt_rq_model *e = rqf_calloc(1, sizeof(*e));
	json_object *doc;

	doc = export(e, DT_EXPORT_OTLP, -1);
	ok(doc && len(get(doc, "resourceSpans")) == 0,
	   "an empty model: a valid, empty OTLP document");
	json_object_put(doc);
	doc = export(e, DT_EXPORT_PERFETTO, -1);
	ok(doc && len(get(doc, "traceEvents")) == 0 &&
	   !strcmp(gets(doc, "displayTimeUnit"), "ns") &&
	   get(get(doc, "metadata"), "time_base_ns"),
	   "and an empty Perfetto one");
	json_object_put(doc);
	bad_request(e, 0);
	dt_rq_model_free(e);
}

static const char *plain(json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
}

/* Names the model should have but lacks: "?", no crash. */
static void missing_names(void)
{
	struct dt_rq_model *m = rq_fixture(2);
	json_object *p, *o;

	free(m->spans[1].procname);
	m->spans[1].procname = NULL;
	free(m->hosts[2]);
	m->hosts[2] = NULL;
	p = export(m, DT_EXPORT_PERFETTO, -1);
	o = export(m, DT_EXPORT_OTLP, -1);
	ok(p && o && strstr(plain(p), "\"?[200]\"") &&
	   strstr(plain(o), "\"stringValue\":\"?\""),
	   "a missing process or host name: written \"?\"");
	json_object_put(p);
	json_object_put(o);
	dt_rq_model_free(m);
}

/* The process's address space now, in bytes (0 if unknown). */
static size_t vm_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long pages = 0;

	if (f && fscanf(f, "%lu", &pages) != 1)
		pages = 0;
	if (f)
		fclose(f);
	return pages * (size_t)sysconf(_SC_PAGESIZE);
}

/*
 * Export with the address space limited to what it is plus extra: the
 * child exits 0 if the export succeeded, 1 if it returned -1.
 */
static int oom_run(const struct dt_rq_model *m, int fmt, FILE *f,
		   size_t extra)
{
	struct rlimit rl;
	GError *err = NULL;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		rl.rlim_cur = rl.rlim_max = vm_bytes() + extra;
		if (setrlimit(RLIMIT_AS, &rl))
			_exit(9);
		_exit(dt_export(m, fmt, -1, f, &err) ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* f's content is want, exactly; or empty if want is NULL. */
static bool same_file(FILE *f, const char *want)
{
	size_t n = want ? strlen(want) : 0, got;
	char *buf = rqf_calloc(n + 2, 1);

	rewind(f);
	got = fread(buf, 1, n + 1, f);
	got = got == n && (!n || !memcmp(buf, want, n));
	free(buf);
	return got;
}

/*
 * Out of memory at many points of an export (json-c returns NULL): no
 * crash, and either the whole document or -1 with nothing written.
 */
static void out_of_memory(void)
{
	struct dt_rq_model *m = rq_fixture(40);
	const char *vg = getenv("LD_PRELOAD");
	int fmt, k, done = 0, failed = 0, bad = 0;
	struct out ref;

	if (vg && strstr(vg, "vgpreload")) {
		printf("ok %d - out of memory # SKIP under valgrind\n",
		       ++tap_n);
		dt_rq_model_free(m);
		return;
	}
#ifdef __SANITIZE_ADDRESS__
	/* ASan's shadow memory cannot be mapped under RLIMIT_AS */
	printf("ok %d - out of memory # SKIP under AddressSanitizer\n",
	       ++tap_n);
	dt_rq_model_free(m);
	return;
#endif
	for (fmt = DT_EXPORT_PERFETTO; fmt <= DT_EXPORT_OTLP; fmt++) {
		run(m, fmt, -1, &ref);
		for (k = 0; k < 64; k++) {
			FILE *f = tmpfile();
			int r = f ? oom_run(m, fmt, f, (size_t)k << 15) : -1;

			done += r == 0;
			failed += r == 1;
			bad += r < 0 || r > 1 ||
			       !same_file(f, r ? NULL : ref.text);
			if (f)
				fclose(f);
		}
		out_free(&ref);
	}
	ok(!bad && done && failed, "out of memory at %d points: -1 and "
	   "nothing written, or the whole document (%d); %d wrong", failed,
	   done, bad);
	dt_rq_model_free(m);
}

static void errors(void)
{
	struct dt_rq_model *m = rq_fixture(2);

	formats();
	bad_request(m, 2);
	bad_request(m, 7);
	bad_request(m, -2);
	bad_format(m);
	write_error(m, "/dev/full", "w");
	write_error(m, "/dev/null", "r");
	empty();
	missing_names();
	out_of_memory();
	dt_rq_model_free(m);
}

int main(void)
{
	perfetto();
	otlp();
	errors();
	return tap_done();
}
