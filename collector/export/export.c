/*
 * Exports of a requests model for other tools, built with json-c: the
 * entry point, the checks of its arguments and the writing. Each format
 * is a file of its own: export-perfetto.c (Chrome Trace Event JSON, for
 * ui.perfetto.dev) and export-otlp.c (OTLP/JSON, for Jaeger and other
 * OpenTelemetry backends).
 */
#define _GNU_SOURCE
#include "export.h"
#include "export-int.h"

#include <errno.h>
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

static int write_doc(json_object *doc, FILE *f, GError **error)
{
	const char *text;
	size_t n = 0;

	text = json_object_to_json_string_length(doc, JSON_C_TO_STRING_PLAIN |
						 JSON_C_TO_STRING_NOSLASHESCAPE,
						 &n);
	if (!text) {
		dt_error_errno(error, ENOMEM, "writing the export");
		return -1;
	}
	errno = 0;
	if (fwrite(text, 1, n, f) != n || fputc('\n', f) == EOF ||
	    fflush(f) == EOF || ferror(f)) {
		dt_error_errno(error, errno ? errno : EIO, "writing the export");
		return -1;
	}
	return 0;
}

int dt_export(const struct dt_rq_model *m, enum dt_export_format fmt,
	      int request, FILE *f, GError **error)
{
	struct ex x = { .m = m, .request = request };
	json_object *doc;
	int r;

	if (request < -1 || request >= m->n_requests) {
		if (!m->n_requests)
			g_set_error(error, DT_ERROR, DT_ERROR_NOTFOUND,
				    "no request %d (there are none)", request);
		else
			g_set_error(error, DT_ERROR, DT_ERROR_NOTFOUND,
				    "no request %d (requests are 0 to %d)",
				    request, m->n_requests - 1);
		return -1;
	}
	if (fmt != DT_EXPORT_PERFETTO && fmt != DT_EXPORT_OTLP) {
		g_set_error(error, DT_ERROR, DT_ERROR_INPUT,
			    "unknown export format %d", (int)fmt);
		return -1;
	}
	doc = fmt == DT_EXPORT_OTLP ? dt_export_otlp(&x) : dt_export_perfetto(&x);
	if (!doc || x.nomem) {
		dt_error_errno(error, ENOMEM, "building the export");
		r = -1;
	} else {
		r = write_doc(doc, f, error);
	}
	json_object_put(doc);
	free(x.prev);
	return r;
}
