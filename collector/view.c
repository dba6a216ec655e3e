/*
 * `dtracer view`: the requests model as one self-contained HTML page.
 * The page (view.html, embedded at build time as view-page.h) reads its
 * data from a <script type="application/json"> element: the model as
 * JSON, times in ns relative to a base (the earliest start, given as a
 * string: it does not fit a double), so that JavaScript's numbers keep
 * them exact.
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

		json_object_array_add(c, json_object_new_string(
			u->syscalls[i].name));
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
	put(o, "name", json_object_new_string(s->procname));
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
	put(o, "rv", g->to_span >= 0 ? rel(g->recv_ns, base) :
					rel(g->send_ns, base));
	put(o, "b", json_object_new_int64((int64_t)g->bytes));
	put(o, "n", json_object_new_int((int)g->segments));
	put(o, "resp", json_object_new_boolean(g->response));
	put(o, "src", json_object_new_string(dt_rq_flow_src(&g->flow, a)));
	put(o, "dst", json_object_new_string(dt_rq_flow_dst(&g->flow, a)));
	return o;
}

static json_object *request(const struct dt_rq_request *r, int64_t base)
{
	json_object *o = json_object_new_object();

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
	put(d, "title", json_object_new_string(title));
	put(d, "base", json_object_new_string(b));
	a = json_object_new_array();
	for (i = 0; i < m->n_hosts; i++)
		json_object_array_add(a, json_object_new_string(m->hosts[i]));
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
 * JSON inside <script>: json-c writes "/" as "\/" (so no "</script>"),
 * and every "<" is written "\u003c" (only strings can hold one), so no
 * "<!--" or "<script" either.
 */
static void put_json(const char *s, FILE *f)
{
	for (; *s; s++)
		if (*s == '<')
			fputs("\\u003c", f);
		else
			fputc(*s, f);
}

static void put_html(const char *s, FILE *f)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

int dt_view_write(const struct dt_rq_model *m, const char *title, FILE *f,
		  char **err)
{
	const char *page = dt_view_page, *t, *d;
	json_object *doc;

	*err = NULL;
	if (!m->n_requests) {
		*err = strdup("no traced request in the trace (no dtracer_flag "
			      "event): was dtracer's probe module loaded and a "
			      "thread flagged?");
		return -1;
	}
	t = strstr(page, "@@DT_TITLE@@");
	d = strstr(page, "@@DT_DATA@@");
	if (!t || !d || d < t) {
		*err = strdup("the page template lacks its markers");
		return -1;
	}
	doc = data(m, title);
	errno = 0;
	fwrite(page, 1, (size_t)(t - page), f);
	put_html(title, f);
	t += strlen("@@DT_TITLE@@");
	fwrite(t, 1, (size_t)(d - t), f);
	put_json(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN),
		 f);
	d += strlen("@@DT_DATA@@");
	fputs(d, f);
	json_object_put(doc);
	if (fflush(f) == EOF || ferror(f)) {
		if (asprintf(err, "writing the page: %s",
			     strerror(errno ? errno : EIO)) < 0)
			*err = NULL;
		return -1;
	}
	return 0;
}
