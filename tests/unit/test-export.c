/*
 * Exports (collector/export.c) of hand-made models (rq-fixture.h),
 * parsed back with json-c and checked field by field: Perfetto's slices,
 * thread names and paired flows; OTLP's ids, parents and times.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "export.h"
#include "rq-fixture.h"
#include "tap.h"

/* Export m and parse it back; NULL if either failed. */
static json_object *export(const struct dt_rq_model *m, int fmt, int req)
{
	char *buf = NULL, *err = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_object *doc = NULL;
	int r;

	r = dt_export(m, fmt, req, f, &err);
	fclose(f);
	if (!r)
		doc = json_tokener_parse(buf);
	free(buf);
	free(err);
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

static int64_t ns_of(json_object *o, const char *k, int64_t base)
{
	return base + (int64_t)llround(json_object_get_double(get(o, k)) * 1e3);
}

static void perfetto(void)
{
	struct dt_rq_model *m = rq_fixture(5);
	json_object *doc = export(m, DT_EXPORT_PERFETTO, -1), *evs;
	int64_t base;
	int n, i, slices = 0, pnames = 0, tnames = 0, bad_time = 0;
	int *s_of = calloc(m->n_messages + 1, sizeof(int));
	int *f_of = calloc(m->n_messages + 1, sizeof(int));
	int *seen = calloc(m->n_spans, sizeof(int));
	int flows = 0, unpaired = 0, outside = 0, bp_wrong = 0;

	ok(doc != NULL, "perfetto: the export parses as JSON");
	if (!doc)
		return;
	ok(!strcmp(gets(doc, "displayTimeUnit"), "ns"), "displayTimeUnit ns");
	base = json_object_get_int64(get(get(doc, "metadata"), "time_base_ns"));
	ok(base == m->spans[0].start_ns, "time base: the earliest start");
	evs = get(doc, "traceEvents");
	n = (int)json_object_array_length(evs);
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(evs, i);
		const char *ph = gets(e, "ph");

		if (!strcmp(ph, "X")) {
			json_object *a = get(e, "args");
			int id = json_object_get_int(get(a, "span"));
			const struct dt_rq_span *s = &m->spans[id];
			int64_t end = ns_of(e, "ts", base) +
				(int64_t)llround(json_object_get_double(
					get(e, "dur")) * 1e3);

			slices++;
			seen[id]++;
			bad_time += ns_of(e, "ts", base) != s->start_ns ||
				    end != s->end_ns ||
				    json_object_get_int(get(e, "pid")) !=
				    s->host + 1 ||
				    json_object_get_int(get(e, "tid")) != s->tid ||
				    json_object_get_int(get(a, "parent_span")) !=
				    s->parent ||
				    json_object_get_int64(get(a, "running_ns")) !=
				    s->sum.running_ns;
		} else if (!strcmp(ph, "M")) {
			pnames += !strcmp(gets(e, "name"), "process_name");
			tnames += !strcmp(gets(e, "name"), "thread_name");
		} else if (!strcmp(ph, "s") || !strcmp(ph, "f")) {
			int id = json_object_get_int(get(e, "id")) - 1;
			const struct dt_rq_message *g = &m->messages[id];
			const struct dt_rq_span *sp =
				&m->spans[*ph == 's' ? g->from_span : g->to_span];
			int64_t t = ns_of(e, "ts", base);

			(*ph == 's' ? s_of : f_of)[id]++;
			if (*ph == 's' || g->response)
				outside += t < sp->start_ns || t > sp->end_ns;
			if (*ph == 'f')
				bp_wrong += g->response !=
					    !strcmp(gets(e, "bp"), "e");
			outside += json_object_get_int(get(e, "tid")) != sp->tid;
		}
	}
	for (i = 0; i < m->n_messages; i++) {
		bool rx = m->messages[i].to_span >= 0;

		flows += rx;
		unpaired += s_of[i] != rx || f_of[i] != rx;
	}
	ok(slices == m->n_spans, "one slice per span (%d of %d)", slices,
	   m->n_spans);
	for (i = 0; i < m->n_spans && seen[i] == 1; i++)
		;
	ok(i == m->n_spans, "every span exactly once");
	ok(!bad_time, "slices: start, end to the ns, pid per host, tid, "
	   "parent, summary (%d wrong)", bad_time);
	ok(pnames == m->n_hosts && tnames == m->n_spans,
	   "process names per host (%d), thread names per thread (%d)",
	   pnames, tnames);
	ok(flows > 0 && !unpaired, "each received message: one s and one f "
	   "with its id (%d flows, %d unpaired)", flows, unpaired);
	ok(!outside, "s inside the sender's slice, a response's f inside "
	   "the receiver's, on their threads (%d not)", outside);
	ok(!bp_wrong, "bp:e only on responses");
	json_object_put(doc);
	free(s_of);
	free(f_of);
	free(seen);
	dt_rq_model_free(m);
}

static bool hex(const char *s, size_t len)
{
	size_t i;
	bool nonzero = false;

	if (strlen(s) != len)
		return false;
	for (i = 0; i < len; i++) {
		if (!strchr("0123456789abcdef", s[i]))
			return false;
		nonzero |= s[i] != '0';
	}
	return nonzero;
}

struct ospan {
	const char *trace, *id, *parent;
	int64_t start, end;
	int span;
};

/* Every span of an OTLP document, flattened. */
static int otlp_spans(json_object *doc, struct ospan *out, int max,
		      int *hosts)
{
	json_object *rss = get(doc, "resourceSpans");
	int n = 0, i, j, k;

	*hosts = (int)json_object_array_length(rss);
	for (i = 0; i < *hosts; i++) {
		json_object *ss = get(json_object_array_get_idx(rss, i),
				      "scopeSpans");

		for (j = 0; j < (int)json_object_array_length(ss); j++) {
			json_object *sp = get(json_object_array_get_idx(ss, j),
					      "spans");

			for (k = 0; k < (int)json_object_array_length(sp) &&
			     n < max; k++) {
				json_object *s = json_object_array_get_idx(sp, k);
				json_object *at = get(s, "attributes");
				int a;

				out[n].trace = gets(s, "traceId");
				out[n].id = gets(s, "spanId");
				out[n].parent = get(s, "parentSpanId") ?
						gets(s, "parentSpanId") : NULL;
				out[n].start = strtoll(gets(s,
					"startTimeUnixNano"), NULL, 10);
				out[n].end = strtoll(gets(s, "endTimeUnixNano"),
						     NULL, 10);
				out[n].span = -1;
				for (a = 0; a < (int)json_object_array_length(at);
				     a++) {
					json_object *x =
						json_object_array_get_idx(at, a);

					if (!strcmp(gets(x, "key"),
						    "dtracer.request"))
						out[n].span = atoi(gets(get(x,
							"value"), "intValue"));
				}
				n++;
			}
		}
	}
	return n;
}

static void otlp(void)
{
	struct dt_rq_model *m = rq_fixture(4);
	json_object *doc = export(m, DT_EXPORT_OTLP, -1), *one;
	struct ospan s[64];
	int n, i, j, hosts, badid = 0, orphan = 0, roots = 0, nest = 0;
	int same = 0, distinct = 0, badtime = 0;

	ok(doc != NULL, "otlp: the export parses as JSON");
	if (!doc)
		return;
	n = otlp_spans(doc, s, 64, &hosts);
	ok(n == m->n_spans && hosts == m->n_hosts,
	   "every span, one resource per host (%d spans, %d hosts)", n, hosts);
	for (i = 0; i < n; i++) {
		int found = -1;

		badid += !hex(s[i].trace, 32) || !hex(s[i].id, 16) ||
			 (s[i].parent && !hex(s[i].parent, 16));
		badtime += s[i].end < s[i].start;
		if (!s[i].parent) {
			roots++;
			continue;
		}
		for (j = 0; j < n; j++)
			if (!strcmp(s[j].id, s[i].parent) &&
			    !strcmp(s[j].trace, s[i].trace))
				found = j;
		orphan += found < 0;
		nest += found >= 0 && s[i].start < s[found].start;
	}
	ok(!badid, "trace ids: 32 hex digits, span ids 16, non-zero");
	ok(!orphan && roots == m->n_requests,
	   "every parentSpanId names a span of the same trace; one root per "
	   "request (%d orphans, %d roots)", orphan, roots);
	ok(!nest && !badtime, "children start within their parents, ends "
	   "after starts");
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			bool sr = s[i].span == s[j].span;
			bool st = !strcmp(s[i].trace, s[j].trace);

			same += sr && !st;
			distinct += !sr && st;
			badid += i != j && !strcmp(s[i].id, s[j].id);
		}
	ok(!same && !distinct, "one trace id per request, distinct across");
	ok(!badid, "span ids unique");
	one = export(m, DT_EXPORT_OTLP, -1);
	ok(one && !strcmp(json_object_to_json_string(doc),
			  json_object_to_json_string(one)),
	   "a second export of the same model is the same, ids included");
	json_object_put(one);
	json_object_put(doc);
	doc = export(m, DT_EXPORT_OTLP, 2);
	n = doc ? otlp_spans(doc, s, 64, &hosts) : 0;
	for (i = 0, j = 0; i < n; i++)
		j += s[i].span != 2;
	ok(n == m->requests[2].n_spans && !j,
	   "--request 2: its %d spans only (%d)", m->requests[2].n_spans, n);
	json_object_put(doc);
	dt_rq_model_free(m);
}

static void errors(void)
{
	struct dt_rq_model *m = rq_fixture(2), *e;
	char *err = NULL;
	FILE *f = fopen("/dev/full", "w");
	json_object *doc;

	ok(dt_export_format_parse("perfetto") == DT_EXPORT_PERFETTO &&
	   dt_export_format_parse("otlp") == DT_EXPORT_OTLP &&
	   dt_export_format_parse("svg") == -1, "format names");
	ok(dt_export(m, DT_EXPORT_OTLP, 7, stdout, &err) == -1 && err &&
	   strstr(err, "no request 7"), "a request out of range: -1, named");
	free(err);
	err = NULL;
	ok(f && dt_export(m, DT_EXPORT_PERFETTO, -1, f, &err) == -1 && err,
	   "a write error (/dev/full): -1 (%s)", err ? err : "no message");
	free(err);
	if (f)
		fclose(f);
	e = rqf_calloc(1, sizeof(*e));
	doc = export(e, DT_EXPORT_OTLP, -1);
	ok(doc && json_object_array_length(get(doc, "resourceSpans")) == 0,
	   "an empty model: a valid, empty OTLP document");
	json_object_put(doc);
	doc = export(e, DT_EXPORT_PERFETTO, -1);
	ok(doc && json_object_array_length(get(doc, "traceEvents")) == 0,
	   "and an empty Perfetto one");
	json_object_put(doc);
	dt_rq_model_free(e);
	dt_rq_model_free(m);
}

int main(void)
{
	perfetto();
	otlp();
	errors();
	return tap_done();
}
