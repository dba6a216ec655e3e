/*
 * The view page (collector/export/view.c) of hand-made models: written whole,
 * self-contained (nothing fetched from the network), its embedded JSON
 * parses and holds every span, message and request with exact times,
 * trace strings cannot break out of the script element, errors are
 * reported.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "rq-fixture.h"
#include "tap.h"
#include "view.h"

#define SVG_NS "http://www.w3.org/2000/svg"

static char *page(const struct dt_rq_model *m, const char *title, int *ret)
{
	char *buf = NULL;
	GError *err = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*ret = dt_view_write(m, title, f, &err);
	fclose(f);
	g_clear_error(&err);
	return buf;
}

/* The JSON between the data script's tags, parsed. */
static json_object *embedded(const char *p)
{
	const char *tag = "<script type=\"application/json\" id=\"dt-data\">";
	const char *a = strstr(p, tag), *b;
	json_object *o;
	char *s;

	if (!a)
		return NULL;
	a += strlen(tag);
	b = strstr(a, "</script>");
	if (!b)
		return NULL;
	s = strndup(a, (size_t)(b - a));
	o = json_tokener_parse(s);
	free(s);
	return o;
}

static json_object *get(json_object *o, const char *k)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, k, &v);
	return v;
}

static int64_t num(json_object *o, const char *k)
{
	return json_object_get_int64(get(o, k));
}

/* Every "http://"/"https://" is the SVG namespace name (never fetched). */
static int only_svg_urls(const char *p)
{
	const char *s;

	for (s = p; (s = strstr(s, "http")); s++)
		if ((!strncmp(s, "http://", 7) || !strncmp(s, "https://", 8)) &&
		    strncmp(s, SVG_NS, strlen(SVG_NS)))
			return 0;
	return 1;
}

/* Every url( is a reference inside the page: url(#id). */
static int only_local_urls(const char *p)
{
	const char *s;

	for (s = p; (s = strstr(s, "url(")); s++)
		if (s[4] != '#' && strncmp(s + 4, "\"#", 2))
			return 0;
	return 1;
}

static int check_spans(const struct dt_rq_model *m, json_object *d,
		       int64_t base)
{
	json_object *spans = get(d, "spans");
	int i, bad = 0;

	for (i = 0; i < m->n_spans; i++) {
		json_object *s = json_object_array_get_idx(spans, i);
		json_object *u = get(s, "sum"), *sc = get(u, "sc");
		const struct dt_rq_span *x = &m->spans[i];

		bad += num(s, "id") != x->id || num(s, "r") != x->request ||
		       base + num(s, "s") != x->start_ns ||
		       base + num(s, "e") != x->end_ns ||
		       num(s, "p") != x->parent || num(s, "h") != x->host ||
		       num(s, "tid") != x->tid || num(s, "pid") != x->pid ||
		       num(s, "d") != x->depth ||
		       num(s, "dur") != (int64_t)x->duration_ns ||
		       strcmp(json_object_get_string(get(s, "name")),
			      x->procname) ||
		       strcmp(json_object_get_string(get(s, "fr")),
			      dt_rq_flag_reason_name(x->flag_reason)) ||
		       strcmp(json_object_get_string(get(s, "er")),
			      dt_rq_end_reason_name(x->end_reason)) ||
		       num(u, "run") != x->sum.running_ns ||
		       num(u, "wait") != x->sum.runnable_ns ||
		       num(u, "blk") != x->sum.blocked_ns ||
		       num(u, "unk") != x->sum.unknown_ns ||
		       num(get(u, "on"), dt_rq_block_name(DT_RQ_BLOCK_DISK)) !=
		       x->sum.blocked_on[DT_RQ_BLOCK_DISK] ||
		       num(u, "tx") != (int64_t)x->sum.bytes_sent ||
		       num(u, "rx") != (int64_t)x->sum.bytes_received ||
		       num(u, "ev") != (int64_t)x->sum.events ||
		       (int)json_object_array_length(sc) !=
		       (int)x->sum.n_syscalls ||
		       strcmp(json_object_get_string(json_object_array_get_idx(
			       json_object_array_get_idx(sc, 0), 0)),
			      x->sum.syscalls[0].name);
	}
	return bad;
}

static int check_messages(const struct dt_rq_model *m, json_object *d,
			  int64_t base)
{
	json_object *msgs = get(d, "messages");
	int i, bad = 0;

	for (i = 0; i < m->n_messages; i++) {
		json_object *g = json_object_array_get_idx(msgs, i);
		const struct dt_rq_message *x = &m->messages[i];
		char a[DT_RQ_ADDR_LEN];

		bad += num(g, "id") != x->id || num(g, "r") != x->request ||
		       num(g, "f") != x->from_span ||
		       num(g, "t") != x->to_span ||
		       base + num(g, "s") != x->send_ns ||
		       base + num(g, "rv") != x->recv_ns ||
		       base + num(g, "lr") != x->last_recv_ns ||
		       num(g, "b") != (int64_t)x->bytes ||
		       num(g, "n") != x->segments ||
		       json_object_get_boolean(get(g, "resp")) != x->response ||
		       strcmp(json_object_get_string(get(g, "src")),
			      dt_rq_flow_src(&x->flow, a)) ||
		       strcmp(json_object_get_string(get(g, "dst")),
			      dt_rq_flow_dst(&x->flow, a));
	}
	return bad;
}

static int check_requests(const struct dt_rq_model *m, json_object *d,
			  int64_t base)
{
	json_object *rqs = get(d, "requests");
	int i, k, bad = 0;

	for (i = 0; i < m->n_requests; i++) {
		json_object *r = json_object_array_get_idx(rqs, i);
		json_object *sp = get(r, "sp");
		const struct dt_rq_request *x = &m->requests[i];

		bad += num(r, "root") != x->root ||
		       base + num(r, "s") != x->start_ns ||
		       base + num(r, "e") != x->end_ns ||
		       num(r, "ns") != x->n_spans ||
		       num(r, "nh") != x->n_hosts ||
		       num(r, "cs") != x->critical_span ||
		       num(r, "cm") != x->critical_message ||
		       num(r, "cn") != x->critical_ns ||
		       (int)json_object_array_length(sp) != x->n_spans;
		for (k = 0; k < x->n_spans && k < (int)json_object_array_length(sp); k++)
			bad += json_object_get_int(json_object_array_get_idx(
				sp, k)) != x->spans[k];
	}
	return bad;
}

/* Field by field, times exact from the base; the number of mismatches. */
static int check_data(const struct dt_rq_model *m, json_object *d,
		      int64_t *base)
{
	if (!d || (int)json_object_array_length(get(d, "spans")) !=
		  m->n_spans ||
	    (int)json_object_array_length(get(d, "messages")) !=
	    m->n_messages ||
	    (int)json_object_array_length(get(d, "requests")) !=
	    m->n_requests ||
	    (int)json_object_array_length(get(d, "hosts")) != m->n_hosts)
		return -1;
	*base = strtoll(json_object_get_string(get(d, "base")), NULL, 10);
	return check_spans(m, d, *base) + check_messages(m, d, *base) +
	       check_requests(m, d, *base) +
	       (num(get(d, "stats"), "events") != (int64_t)m->events);
}

/* Move a model in time (a merged clock of epoch ns, beyond 2^53). */
static void shift(struct dt_rq_model *m, int64_t by)
{
	int i;

	for (i = 0; i < m->n_spans; i++)
		m->spans[i].start_ns += by, m->spans[i].end_ns += by;
	for (i = 0; i < m->n_messages; i++) {
		m->messages[i].send_ns += by, m->messages[i].recv_ns += by;
		m->messages[i].last_send_ns += by;
		m->messages[i].last_recv_ns += by;
	}
	for (i = 0; i < m->n_requests; i++)
		m->requests[i].start_ns += by, m->requests[i].end_ns += by;
}

static void basics(void)
{
	struct dt_rq_model *m = rq_fixture(3);
	json_object *d;
	int64_t base = 0;
	char *p;
	int r, bad;

	p = page(m, "run <1> & \"two\"", &r);
	ok(r == 0 && p && strstr(p, "</html>"), "the page is written whole");
	ok(only_svg_urls(p) && !strstr(p, "src=") && only_local_urls(p) &&
	   !strstr(p, "fetch(") && !strstr(p, "XMLHttpRequest") &&
	   !strstr(p, "WebSocket") && !strstr(p, "EventSource") &&
	   !strstr(p, "sendBeacon"), "nothing fetched from the network");
	ok(!strstr(p, "<script src") && !strstr(p, "<link") &&
	   !strstr(p, "@import") && !strstr(p, "@font-face") &&
	   !strstr(p, "<img") && !strstr(p, "<iframe") &&
	   !strstr(p, "<object") && !strstr(p, "<embed"),
	   "no external script, stylesheet, font or image");
	ok(strstr(p, "<title>run &lt;1&gt; &amp; &quot;two&quot; ") != NULL,
	   "the title is HTML-escaped");
	ok(!strstr(p, "@@DT_"), "both markers filled");
	d = embedded(p);
	ok(d != NULL, "the embedded data parses as JSON");
	bad = check_data(m, d, &base);
	ok(bad == 0 && base == m->spans[0].start_ns,
	   "every span, message and request field by field, exact ns from "
	   "the base (%d wrong)", bad);
	ok(d && !strcmp(json_object_get_string(get(d, "title")),
			"run <1> & \"two\""), "the title in the data");
	json_object_put(d);
	free(p);
	dt_rq_model_free(m);

	/* Epoch ns (1.7e18) do not fit a double; offsets from the base do. */
	m = rq_fixture(1000);
	shift(m, 1700000000123456789LL - m->spans[0].start_ns);
	p = page(m, "big", &r);
	d = embedded(p);
	bad = check_data(m, d, &base);
	ok(r == 0 && bad == 0 && base == 1700000000123456789LL &&
	   !strcmp(json_object_get_string(get(d, "base")),
		   "1700000000123456789"),
	   "1000 requests on an epoch clock: %d spans, exact (%d wrong)",
	   m->n_spans, bad);
	json_object_put(d);
	free(p);
	dt_rq_model_free(m);
}

/* Trace strings that look like markup stay data. */
static void hostile(void)
{
	struct dt_rq_model *m = rq_fixture(3);
	const char *evil = "x</script><b>\"<!--";
	json_object *d;
	char *p;
	int r;

	free(m->spans[1].procname);
	m->spans[1].procname = strdup(evil);
	free(m->hosts[2]);
	m->hosts[2] = strdup("</SCRIPT><script>alert(1)</script>");
	p = page(m, "</script><b>", &r);
	ok(r == 0 && !strstr(p, "</script><b>") && !strstr(p, "<!--\"") &&
	   !strstr(p, "<b>") && !strcasestr(p, "</script><script>alert"),
	   "a procname, host or title with </script> stays inside the data");
	d = embedded(p);
	ok(d && !strcmp(json_object_get_string(get(json_object_array_get_idx(
		get(d, "spans"), 1), "name")), evil) &&
	   !strcmp(json_object_get_string(json_object_array_get_idx(
		get(d, "hosts"), 2)), "</SCRIPT><script>alert(1)</script>"),
	   "and reads back intact");
	json_object_put(d);
	free(p);

	free(m->spans[2].procname);
	m->spans[2].procname = NULL;
	p = page(m, NULL, &r);
	d = embedded(p);
	ok(r == 0 && d && !strcmp(json_object_get_string(get(
		json_object_array_get_idx(get(d, "spans"), 2), "name")), "?"),
	   "a missing procname or title does not crash the page");
	json_object_put(d);
	free(p);
	dt_rq_model_free(m);
}

static void errors(void)
{
	struct dt_rq_model *m = rq_fixture(3), *e = rqf_calloc(1, sizeof(*e));
	GError *err = NULL;
	FILE *f;
	int r;

	f = fopen("/dev/null", "w");
	r = dt_view_write(e, "t", f, &err);
	ok(r == -1 && err && err->code == DT_ERROR_INPUT &&
	   strstr(err->message, "no traced request") &&
	   strstr(err->message, "dtracer_flag"),
	   "an empty model: no page, a message (%s)",
	   err ? err->message : "none");
	g_clear_error(&err);
	e->dtracer_events = 4;
	r = dt_view_write(e, "t", f, &err);
	ok(r == -1 && err && strstr(err->message, "4 dtracer events"),
	   "dtracer events but no request: said so (%s)",
	   err ? err->message : "none");
	fclose(f);
	g_clear_error(&err);
	f = fopen("/dev/full", "w");
	ok(f && dt_view_write(m, "t", f, &err) == -1 && err &&
	   err->code == DT_ERROR_IO &&
	   strstr(err->message, "writing the page"),
	   "a write error (/dev/full): -1 (%s)",
	   err ? err->message : "no message");
	if (f)
		fclose(f);
	g_clear_error(&err);
	dt_rq_model_free(e);
	dt_rq_model_free(m);
}

int main(void)
{
	basics();
	hostile();
	errors();
	return tap_done();
}
