/*
 * `dtracer view`: the requests model as one self-contained HTML page.
 * The page (view.html, embedded at build time as view-page.h) reads its
 * data from a <script type="application/json"> element: the model as
 * JSON, built with json-c through the exports' helpers (export-int.h: an
 * allocation failure noted, never half a page written). Times are integer ns relative to a base (the
 * earliest start): an absolute merged-clock time may not fit a double's
 * 53 bits, an offset within a trace does, so JavaScript keeps every ns;
 * the base itself goes as a string of digits (the page uses BigInt).
 * Short keys keep a page of thousands of spans small.
 */
#define _GNU_SOURCE
#include "view.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export-int.h"		/* the json-c helpers */
#include "view-page.h"

static json_object *rel(int64_t ns, int64_t base)
{
	return i64(ns - base);
}

static json_object *summary(struct ex *x, const struct dt_rq_summary *u)
{
	json_object *o = json_object_new_object(), *on, *sc;
	size_t i;
	int k;

	put(x, o, "run", i64(u->running_ns));
	put(x, o, "wait", i64(u->runnable_ns));
	put(x, o, "blk", i64(u->blocked_ns));
	put(x, o, "unk", i64(u->unknown_ns));
	on = json_object_new_object();
	for (k = 0; k < DT_RQ_BLOCK_N; k++)
		put(x, on, dt_rq_block_name(k), i64(u->blocked_on[k]));
	put(x, o, "on", on);
	put(x, o, "tx", i64((int64_t)u->bytes_sent));
	put(x, o, "rx", i64((int64_t)u->bytes_received));
	put(x, o, "ev", i64((int64_t)u->events));
	put(x, o, "scn", i64((int64_t)u->syscall_count));
	put(x, o, "scns", i64(u->syscall_ns));
	sc = json_object_new_array();
	for (i = 0; i < u->n_syscalls; i++) {
		json_object *c = json_object_new_array();

		add(x, c, str(u->syscalls[i].name));
		add(x, c, i64((int64_t)u->syscalls[i].count));
		add(x, c, i64(u->syscalls[i].time_ns));
		add(x, sc, c);
	}
	put(x, o, "sc", sc);
	return o;
}

static json_object *span(struct ex *x, const struct dt_rq_span *s,
			 int64_t base)
{
	json_object *o = json_object_new_object();
	char a[DT_RQ_ADDR_LEN];

	put(x, o, "id", i64(s->id));
	put(x, o, "r", i64(s->request));
	put(x, o, "p", i64(s->parent));
	put(x, o, "h", i64(s->host));
	put(x, o, "tid", i64(s->tid));
	put(x, o, "pid", i64(s->pid));
	put(x, o, "name", str(s->procname));
	put(x, o, "fr", str(dt_rq_flag_reason_name(s->flag_reason)));
	if (s->guess)
		put(x, o, "guess", json_object_new_boolean(1));
	put(x, o, "er", str(dt_rq_end_reason_name(s->end_reason)));
	put(x, o, "s", rel(s->start_ns, base));
	put(x, o, "e", rel(s->end_ns, base));
	put(x, o, "dur", i64((int64_t)s->duration_ns));
	put(x, o, "d", i64(s->depth));
	if (s->flow.family)
		put(x, o, "flow", str(dt_rq_flow_src(&s->flow, a)));
	put(x, o, "sum", summary(x, &s->sum));
	return o;
}

static json_object *message(struct ex *x, const struct dt_rq_message *g,
			    int64_t base)
{
	json_object *o = json_object_new_object();
	char a[DT_RQ_ADDR_LEN];

	put(x, o, "id", i64(g->id));
	put(x, o, "r", i64(g->request));
	put(x, o, "f", i64(g->from_span));
	put(x, o, "t", i64(g->to_span));
	put(x, o, "s", rel(g->send_ns, base));
	/* Not received by a traced thread: no receive time to show. */
	put(x, o, "rv", rel(g->to_span >= 0 ? g->recv_ns : g->send_ns, base));
	put(x, o, "ls", rel(g->last_send_ns, base));
	put(x, o, "lr", rel(g->to_span >= 0 ? g->last_recv_ns :
			    g->last_send_ns, base));
	put(x, o, "b", i64((int64_t)g->bytes));
	put(x, o, "n", i64(g->segments));
	put(x, o, "resp", json_object_new_boolean(g->response));
	put(x, o, "src", str(dt_rq_flow_src(&g->flow, a)));
	put(x, o, "dst", str(dt_rq_flow_dst(&g->flow, a)));
	return o;
}

static json_object *request(struct ex *x, const struct dt_rq_request *r,
			    int64_t base)
{
	json_object *o = json_object_new_object(), *sp;
	int i;

	put(x, o, "id", i64(r->id));
	put(x, o, "root", i64(r->root));
	put(x, o, "s", rel(r->start_ns, base));
	put(x, o, "e", rel(r->end_ns, base));
	put(x, o, "nh", i64(r->n_hosts));
	put(x, o, "ns", i64(r->n_spans));
	put(x, o, "nm", i64(r->n_messages));
	put(x, o, "cs", i64(r->critical_span));
	put(x, o, "cm", i64(r->critical_message));
	put(x, o, "cw", json_object_new_boolean(r->critical_wait));
	put(x, o, "cn", i64(r->critical_ns));
	put(x, o, "depth", i64(r->depth));
	sp = json_object_new_array();
	for (i = 0; r->spans && i < r->n_spans; i++)
		add(x, sp, i64(r->spans[i]));
	put(x, o, "sp", sp);
	return o;
}

static json_object *stats(struct ex *x, const struct dt_rq_model *m)
{
	json_object *o = json_object_new_object();

	put(x, o, "events", i64((int64_t)m->events));
	put(x, o, "dtracer_events", i64((int64_t)m->dtracer_events));
	put(x, o, "unmatched_sends", i64((int64_t)m->unmatched_sends));
	put(x, o, "unmatched_recvs", i64((int64_t)m->unmatched_recvs));
	put(x, o, "orphan_spans", i64((int64_t)m->orphan_spans));
	return o;
}

/* The page's data; NULL or x->nomem when memory ran out. */
static json_object *data(struct ex *x, const char *title)
{
	const struct dt_rq_model *m = x->m;
	json_object *d = json_object_new_object(), *a;
	int64_t base = m->n_requests ? m->requests[0].start_ns : 0;
	char b[24];
	int i;

	for (i = 0; i < m->n_spans; i++)
		if (m->spans[i].start_ns < base)
			base = m->spans[i].start_ns;
	snprintf(b, sizeof(b), "%lld", (long long)base);
	put(x, d, "title", str(title));
	put(x, d, "base", str(b));
	put(x, d, "stats", stats(x, m));
	if (m->sync_report)
		put(x, d, "sync", str(m->sync_report));
	else if (!d || json_object_object_add(d, "sync", NULL))	/* null */
		x->nomem = true;
	a = json_object_new_array();
	for (i = 0; i < m->n_hosts; i++)
		add(x, a, str(m->hosts[i]));
	put(x, d, "hosts", a);
	a = json_object_new_array();
	for (i = 0; i < m->n_spans; i++)
		add(x, a, span(x, &m->spans[i], base));
	put(x, d, "spans", a);
	a = json_object_new_array();
	for (i = 0; i < m->n_messages; i++)
		add(x, a, message(x, &m->messages[i], base));
	put(x, d, "messages", a);
	a = json_object_new_array();
	for (i = 0; i < m->n_requests; i++)
		add(x, a, request(x, &m->requests[i], base));
	put(x, d, "requests", a);
	return d;
}

/*
 * JSON inside <script>: the HTML parser ends the element at the first
 * "</script" whatever the JSON means, and "<!--" can change how it looks
 * for that end. json-c escapes "/" as "\/" by default (we must never
 * pass JSON_C_TO_STRING_NOSLASHESCAPE), so "</script>" cannot appear;
 * on top of that every "<" (only a string can hold one) is written
 * "\u003c", so neither can "<!--" nor "<script". A trace's procname or
 * host name stays data.
 */
static void put_json(const char *s, FILE *f)
{
	size_t n;

	while (*s) {
		n = strcspn(s, "<");
		fwrite(s, 1, n, f);
		s += n;
		if (*s == '<') {
			fputs("\\u003c", f);
			s++;
		}
	}
}

static void put_html(const char *s, FILE *f)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* Why there is nothing to show, in terms the user can act on. */
static int no_request(const struct dt_rq_model *m, GError **error)
{
	if (!m->dtracer_events)
		g_set_error(error, DT_ERROR, DT_ERROR_INPUT,
			    "no traced request in the trace (no "
			    "dtracer_flag/dtracer_mark events): was dtracer's "
			    "probe module loaded and a thread flagged?");
	else
		g_set_error(error, DT_ERROR, DT_ERROR_INPUT,
			    "no traced request in the trace: %llu dtracer "
			    "events, but no flag that a request could start "
			    "from", (unsigned long long)m->dtracer_events);
	return -1;
}

int dt_view_write(const struct dt_rq_model *m, const char *title, FILE *f,
		  GError **error)
{
	const char *page = dt_view_page, *t, *d, *json;
	const char *tmark = "@@DT_TITLE@@", *dmark = "@@DT_DATA@@";
	struct ex x = { .m = m, .request = -1 };
	json_object *doc;

	if (!m->n_requests)
		return no_request(m, error);
	/* The markers sit in the template's <title> and data script only. */
	t = strstr(page, tmark);
	d = strstr(page, dmark);
	if (!t || !d || d < t) {
		g_set_error(error, DT_ERROR, DT_ERROR_FAILED,
			    "the page template lacks its markers");
		return -1;
	}
	if (!title)
		title = "dtracer";
	doc = data(&x, title);
	json = doc && !x.nomem ?
	       json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN) :
	       NULL;
	if (!json) {
		json_object_put(doc);
		dt_error_errno(error, ENOMEM, "building the page's data");
		return -1;
	}
	errno = 0;
	fwrite(page, 1, (size_t)(t - page), f);
	put_html(title, f);
	t += strlen(tmark);
	fwrite(t, 1, (size_t)(d - t), f);
	put_json(json, f);
	fputs(d + strlen(dmark), f);
	json_object_put(doc);
	/* stdio keeps the first error: one check after the last write. */
	if (fflush(f) == EOF || ferror(f)) {
		dt_error_errno(error, errno ? errno : EIO, "writing the page");
		return -1;
	}
	return 0;
}
