/*
 * `dtracer view`: the requests model as one self-contained HTML page.
 * The page (view.html, embedded at build time as view-page.h) reads its
 * data from a <script type="application/json"> element: the model as
 * JSON, built with json-c. Times are integer ns relative to a base (the
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

#include <json-c/json.h>

#include "view-page.h"

static void put(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

static json_object *rel(int64_t ns, int64_t base)
{
	return json_object_new_int64(ns - base);
}

/* The model's strings should all be set; a NULL must not crash a page. */
static json_object *str(const char *s)
{
	return json_object_new_string(s ? s : "?");
}

static json_object *summary(const struct dt_rq_summary *u)
{
	json_object *o = json_object_new_object(), *on, *sc;
	size_t i;
	int k;

	put(o, "run", json_object_new_int64(u->running_ns));
	put(o, "wait", json_object_new_int64(u->runnable_ns));
	put(o, "blk", json_object_new_int64(u->blocked_ns));
	put(o, "unk", json_object_new_int64(u->unknown_ns));
	on = json_object_new_object();
	for (k = 0; k < DT_RQ_BLOCK_N; k++)
		put(on, dt_rq_block_name(k),
		    json_object_new_int64(u->blocked_on[k]));
	put(o, "on", on);
	put(o, "tx", json_object_new_int64((int64_t)u->bytes_sent));
	put(o, "rx", json_object_new_int64((int64_t)u->bytes_received));
	put(o, "ev", json_object_new_int64((int64_t)u->events));
	put(o, "scn", json_object_new_int64((int64_t)u->syscall_count));
	put(o, "scns", json_object_new_int64(u->syscall_ns));
	sc = json_object_new_array();
	for (i = 0; i < u->n_syscalls; i++) {
		json_object *c = json_object_new_array();

		json_object_array_add(c, str(u->syscalls[i].name));
		json_object_array_add(c, json_object_new_int64(
			(int64_t)u->syscalls[i].count));
		json_object_array_add(c, json_object_new_int64(
			u->syscalls[i].time_ns));
		json_object_array_add(sc, c);
	}
	put(o, "sc", sc);
	return o;
}

static json_object *span(const struct dt_rq_span *s, int64_t base)
{
	json_object *o = json_object_new_object();
	char a[DT_RQ_ADDR_LEN];

	put(o, "id", json_object_new_int(s->id));
	put(o, "r", json_object_new_int(s->request));
	put(o, "p", json_object_new_int(s->parent));
	put(o, "h", json_object_new_int(s->host));
	put(o, "tid", json_object_new_int(s->tid));
	put(o, "pid", json_object_new_int(s->pid));
	put(o, "name", str(s->procname));
	put(o, "fr", json_object_new_string(
		dt_rq_flag_reason_name(s->flag_reason)));
	put(o, "er", json_object_new_string(
		dt_rq_end_reason_name(s->end_reason)));
	put(o, "s", rel(s->start_ns, base));
	put(o, "e", rel(s->end_ns, base));
	put(o, "dur", json_object_new_int64((int64_t)s->duration_ns));
	put(o, "d", json_object_new_int(s->depth));
	if (s->flow.family)
		put(o, "flow", json_object_new_string(dt_rq_flow_src(&s->flow,
								     a)));
	put(o, "sum", summary(&s->sum));
	return o;
}

static json_object *message(const struct dt_rq_message *g, int64_t base)
{
	json_object *o = json_object_new_object();
	char a[DT_RQ_ADDR_LEN];

	put(o, "id", json_object_new_int(g->id));
	put(o, "r", json_object_new_int(g->request));
	put(o, "f", json_object_new_int(g->from_span));
	put(o, "t", json_object_new_int(g->to_span));
	put(o, "s", rel(g->send_ns, base));
	/* Not received by a traced thread: no receive time to show. */
	put(o, "rv", rel(g->to_span >= 0 ? g->recv_ns : g->send_ns, base));
	put(o, "ls", rel(g->last_send_ns, base));
	put(o, "lr", rel(g->to_span >= 0 ? g->last_recv_ns : g->last_send_ns,
			 base));
	put(o, "b", json_object_new_int64((int64_t)g->bytes));
	put(o, "n", json_object_new_int((int)g->segments));
	put(o, "resp", json_object_new_boolean(g->response));
	put(o, "src", json_object_new_string(dt_rq_flow_src(&g->flow, a)));
	put(o, "dst", json_object_new_string(dt_rq_flow_dst(&g->flow, a)));
	return o;
}

static json_object *request(const struct dt_rq_request *r, int64_t base)
{
	json_object *o = json_object_new_object(), *sp;
	int i;

	put(o, "id", json_object_new_int(r->id));
	put(o, "root", json_object_new_int(r->root));
	put(o, "s", rel(r->start_ns, base));
	put(o, "e", rel(r->end_ns, base));
	put(o, "nh", json_object_new_int(r->n_hosts));
	put(o, "ns", json_object_new_int(r->n_spans));
	put(o, "nm", json_object_new_int(r->n_messages));
	put(o, "cs", json_object_new_int(r->critical_span));
	put(o, "cm", json_object_new_int(r->critical_message));
	put(o, "cw", json_object_new_boolean(r->critical_wait));
	put(o, "cn", json_object_new_int64(r->critical_ns));
	put(o, "depth", json_object_new_int(r->depth));
	sp = json_object_new_array();
	for (i = 0; r->spans && i < r->n_spans; i++)
		json_object_array_add(sp, json_object_new_int(r->spans[i]));
	put(o, "sp", sp);
	return o;
}

static json_object *stats(const struct dt_rq_model *m)
{
	json_object *o = json_object_new_object();

	put(o, "events", json_object_new_int64((int64_t)m->events));
	put(o, "dtracer_events", json_object_new_int64(
		(int64_t)m->dtracer_events));
	put(o, "unmatched_sends", json_object_new_int64(
		(int64_t)m->unmatched_sends));
	put(o, "unmatched_recvs", json_object_new_int64(
		(int64_t)m->unmatched_recvs));
	put(o, "orphan_spans", json_object_new_int64((int64_t)m->orphan_spans));
	return o;
}

static json_object *data(const struct dt_rq_model *m, const char *title)
{
	json_object *d = json_object_new_object(), *a;
	int64_t base = m->n_requests ? m->requests[0].start_ns : 0;
	char b[24];
	int i;

	for (i = 0; i < m->n_spans; i++)
		if (m->spans[i].start_ns < base)
			base = m->spans[i].start_ns;
	snprintf(b, sizeof(b), "%lld", (long long)base);
	put(d, "title", str(title));
	put(d, "base", json_object_new_string(b));
	put(d, "stats", stats(m));
	put(d, "sync", m->sync_report ? str(m->sync_report) : NULL);
	a = json_object_new_array();
	for (i = 0; i < m->n_hosts; i++)
		json_object_array_add(a, str(m->hosts[i]));
	put(d, "hosts", a);
	a = json_object_new_array();
	for (i = 0; i < m->n_spans; i++)
		json_object_array_add(a, span(&m->spans[i], base));
	put(d, "spans", a);
	a = json_object_new_array();
	for (i = 0; i < m->n_messages; i++)
		json_object_array_add(a, message(&m->messages[i], base));
	put(d, "messages", a);
	a = json_object_new_array();
	for (i = 0; i < m->n_requests; i++)
		json_object_array_add(a, request(&m->requests[i], base));
	put(d, "requests", a);
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
	doc = data(m, title);
	json = doc ? json_object_to_json_string_ext(doc,
						    JSON_C_TO_STRING_PLAIN) :
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
