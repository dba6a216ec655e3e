/*
 * Exports of a requests model for other tools, built with json-c: the
 * entry point, the checks of its arguments and the writing. Each format
 * is a file of its own: export-perfetto.c (Chrome Trace Event JSON, for
 * ui.perfetto.dev) and export-otlp.c (OTLP/JSON, for Jaeger and other
 * OpenTelemetry backends).
 */
#define _GNU_SOURCE
#include "export-int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int dt_export_format_parse(const char *name)
{
	if (name && !strcmp(name, "perfetto"))
		return DT_EXPORT_PERFETTO;
	if (name && !strcmp(name, "otlp"))
		return DT_EXPORT_OTLP;
	return -1;
}

/* ----- Writing ---------------------------------------------------------- */

static int fail(char **err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(err, fmt, ap) < 0)
		*err = NULL;
	va_end(ap);
	return -1;
}

static int write_doc(json_object *doc, FILE *f, char **err)
{
	const char *text;
	size_t n = 0;

	text = json_object_to_json_string_length(doc, JSON_C_TO_STRING_PLAIN |
						 JSON_C_TO_STRING_NOSLASHESCAPE,
						 &n);
	if (!text)
		return fail(err, "writing the export: %s", strerror(ENOMEM));
	errno = 0;
	if (fwrite(text, 1, n, f) != n || fputc('\n', f) == EOF ||
	    fflush(f) == EOF || ferror(f))
		return fail(err, "writing the export: %s",
			    strerror(errno ? errno : EIO));
	return 0;
}

int dt_export(const struct dt_rq_model *m, enum dt_export_format fmt,
	      int request, FILE *f, char **err)
{
	struct ex x = { .m = m, .request = request };
	json_object *doc;
	int r;

	*err = NULL;
	if (request < -1 || request >= m->n_requests) {
		if (!m->n_requests)
			return fail(err, "no request %d (there are none)",
				    request);
		return fail(err, "no request %d (requests are 0 to %d)",
			    request, m->n_requests - 1);
	}
	if (fmt != DT_EXPORT_PERFETTO && fmt != DT_EXPORT_OTLP)
		return fail(err, "unknown export format %d", (int)fmt);
	doc = fmt == DT_EXPORT_OTLP ? dt_export_otlp(&x) : dt_export_perfetto(&x);
	if (!doc || x.nomem)
		r = fail(err, "building the export: %s", strerror(ENOMEM));
	else
		r = write_doc(doc, f, err);
	json_object_put(doc);
	free(x.prev);
	return r;
}
