/*
 * The view page (collector/view.c) of hand-made models: written whole,
 * self-contained (nothing fetched from the network), its embedded JSON
 * parses and holds every span and message, trace strings cannot break
 * out of the script element, errors are reported.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "rq-fixture.h"
#include "tap.h"
#include "view.h"

static char *page(const struct dt_rq_model *m, const char *title, int *ret)
{
	char *buf = NULL, *err = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*ret = dt_view_write(m, title, f, &err);
	fclose(f);
	free(err);
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

int main(void)
{
	struct dt_rq_model *m = rq_fixture(3), *e;
	json_object *d, *spans, *msgs;
	char *p, *err = NULL;
	int r, i, bad = 0;
	int64_t base;
	FILE *f;

	p = page(m, "run <1> & \"two\"", &r);
	ok(r == 0 && p && strstr(p, "</html>"), "the page is written whole");
	/* The only address is the SVG namespace name (never fetched). */
	ok(!strstr(p, "src=\"http") && !strstr(p, "href=\"http") &&
	   !strstr(p, "url(http") && !strstr(p, "url('http") &&
	   !strstr(p, "url(\"http") && !strstr(p, "url(//") &&
	   !strstr(p, "fetch(") && !strstr(p, "XMLHttpRequest") &&
	   !strstr(p, "WebSocket"), "nothing fetched from the network");
	ok(!strstr(p, "<script src") && !strstr(p, "<link") &&
	   !strstr(p, "@import") && !strstr(p, "@font-face") &&
	   !strstr(p, "<img") && !strstr(p, "<iframe"),
	   "no external script, stylesheet, font or image");
	ok(strstr(p, "<title>run &lt;1&gt; &amp; &quot;two&quot; - dtracer") != NULL,
	   "the title is HTML-escaped");
	d = embedded(p);
	ok(d != NULL, "the embedded data parses as JSON");
	spans = get(d, "spans");
	msgs = get(d, "messages");
	ok(spans && (int)json_object_array_length(spans) == m->n_spans &&
	   msgs && (int)json_object_array_length(msgs) == m->n_messages &&
	   (int)json_object_array_length(get(d, "requests")) == m->n_requests &&
	   (int)json_object_array_length(get(d, "hosts")) == m->n_hosts,
	   "every span, message, request and host");
	base = strtoll(json_object_get_string(get(d, "base")), NULL, 10);
	for (i = 0; spans && i < m->n_spans; i++) {
		json_object *s = json_object_array_get_idx(spans, i);
		const struct dt_rq_span *x = &m->spans[i];

		bad += base + json_object_get_int64(get(s, "s")) != x->start_ns ||
		       base + json_object_get_int64(get(s, "e")) != x->end_ns ||
		       json_object_get_int(get(s, "p")) != x->parent ||
		       json_object_get_int(get(s, "h")) != x->host ||
		       json_object_get_int(get(s, "tid")) != x->tid ||
		       strcmp(json_object_get_string(get(s, "name")),
			      x->procname) ||
		       json_object_get_int64(get(get(s, "sum"), "run")) !=
		       x->sum.running_ns;
	}
	for (i = 0; msgs && i < m->n_messages; i++) {
		json_object *g = json_object_array_get_idx(msgs, i);
		const struct dt_rq_message *x = &m->messages[i];

		bad += json_object_get_int(get(g, "f")) != x->from_span ||
		       json_object_get_int(get(g, "t")) != x->to_span ||
		       base + json_object_get_int64(get(g, "s")) != x->send_ns ||
		       json_object_get_boolean(get(g, "resp")) != x->response;
	}
	ok(!bad && base == m->spans[0].start_ns,
	   "spans and messages field by field, exact ns from the base (%d "
	   "wrong)", bad);
	json_object_put(d);
	free(p);

	free(m->spans[1].procname);
	m->spans[1].procname = strdup("x</script><b>\"<!--");
	p = page(m, "t", &r);
	ok(r == 0 && !strstr(p, "</script><b>") && !strstr(p, "<!--\"") &&
	   !strstr(p, "<b>"), "a procname with </script> stays inside the data");
	d = embedded(p);
	ok(d && !strcmp(json_object_get_string(get(json_object_array_get_idx(
		get(d, "spans"), 1), "name")), "x</script><b>\"<!--"),
	   "and reads back intact");
	json_object_put(d);
	free(p);

	e = rqf_calloc(1, sizeof(*e));
	f = fopen("/dev/null", "w");
	r = dt_view_write(e, "t", f, &err);
	ok(r == -1 && err && strstr(err, "no traced request"),
	   "an empty model: no page, a message (%s)", err ? err : "none");
	fclose(f);
	free(err);
	err = NULL;
	f = fopen("/dev/full", "w");
	ok(f && dt_view_write(m, "t", f, &err) == -1 && err,
	   "a write error (/dev/full): -1 (%s)", err ? err : "no message");
	if (f)
		fclose(f);
	free(err);
	dt_rq_model_free(e);
	dt_rq_model_free(m);
	return tap_done();
}
