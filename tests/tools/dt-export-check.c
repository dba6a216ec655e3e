/*
 * dt-export-check perfetto|otlp FILE: check an export of `dtracer
 * export` on a real trace: it parses; Perfetto: every flow's "s" has one
 * "f" with its id; OTLP: ids well formed, every parentSpanId names a span
 * of the same trace. Prints "spans N flows N roots N"; exit 1 on a fault.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

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

static int hex(const char *s, size_t n)
{
	size_t i;

	if (strlen(s) != n || strspn(s, "0") == n)
		return 0;
	for (i = 0; i < n; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return 0;
	return 1;
}

static int perfetto(json_object *doc)
{
	json_object *evs = get(doc, "traceEvents");
	int n = evs ? (int)json_object_array_length(evs) : -1, i, x = 0;
	int max = 0, bad = 0, flows = 0;
	int *s, *f;

	if (n < 0)
		return fprintf(stderr, "no traceEvents\n"), 1;
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(evs, i);
		int id = json_object_get_int(get(e, "id"));

		x += !strcmp(gets(e, "ph"), "X");
		if (id > max)
			max = id;
	}
	s = calloc(max + 1, sizeof(int));
	f = calloc(max + 1, sizeof(int));
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(evs, i);
		const char *ph = gets(e, "ph");

		if (!strcmp(ph, "s"))
			s[json_object_get_int(get(e, "id"))]++;
		if (!strcmp(ph, "f"))
			f[json_object_get_int(get(e, "id"))]++;
	}
	for (i = 1; i <= max; i++) {
		flows += s[i] == 1 && f[i] == 1;
		bad += s[i] != f[i] || s[i] > 1;
	}
	printf("spans %d flows %d roots 0\n", x, flows);
	free(s);
	free(f);
	return bad ? fprintf(stderr, "%d unpaired flows\n", bad), 1 : 0;
}

static int otlp(json_object *doc)
{
	json_object *rss = get(doc, "resourceSpans"), *all = json_object_new_array();
	int i, j, k, n, bad = 0, roots = 0;

	for (i = 0; rss && i < (int)json_object_array_length(rss); i++) {
		json_object *ss = get(json_object_array_get_idx(rss, i), "scopeSpans");

		for (j = 0; ss && j < (int)json_object_array_length(ss); j++) {
			json_object *sp = get(json_object_array_get_idx(ss, j), "spans");

			for (k = 0; sp && k < (int)json_object_array_length(sp); k++)
				json_object_array_add(all, json_object_get(
					json_object_array_get_idx(sp, k)));
		}
	}
	n = (int)json_object_array_length(all);
	for (i = 0; i < n; i++) {
		json_object *a = json_object_array_get_idx(all, i);
		const char *p = get(a, "parentSpanId") ? gets(a, "parentSpanId") : NULL;
		int found = 0;

		bad += !hex(gets(a, "traceId"), 32) || !hex(gets(a, "spanId"), 16) ||
		       strtoll(gets(a, "endTimeUnixNano"), NULL, 10) <
		       strtoll(gets(a, "startTimeUnixNano"), NULL, 10);
		if (!p) {
			roots++;
			continue;
		}
		for (j = 0; j < n && !found; j++) {
			json_object *b = json_object_array_get_idx(all, j);

			found = !strcmp(gets(b, "spanId"), p) &&
				!strcmp(gets(b, "traceId"), gets(a, "traceId"));
		}
		bad += !found;
	}
	printf("spans %d flows 0 roots %d\n", n, roots);
	json_object_put(all);
	return bad ? fprintf(stderr, "%d bad spans\n", bad), 1 : 0;
}

int main(int argc, char **argv)
{
	json_object *doc;
	int r;

	if (argc != 3 || (strcmp(argv[1], "perfetto") && strcmp(argv[1], "otlp"))) {
		fprintf(stderr, "usage: dt-export-check perfetto|otlp FILE\n");
		return 2;
	}
	doc = json_object_from_file(argv[2]);
	if (!doc) {
		fprintf(stderr, "%s: not JSON (%s)\n", argv[2], json_util_get_last_err());
		return 1;
	}
	r = strcmp(argv[1], "otlp") ? perfetto(doc) : otlp(doc);
	json_object_put(doc);
	return r;
}
