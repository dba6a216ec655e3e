/*
 * Exports of a requests model for other tools: Perfetto (Chrome Trace
 * Event JSON, with flow events for the cross-host messages) and
 * OpenTelemetry (OTLP/JSON spans with trace and span ids and parents).
 */
#ifndef DT_COLLECTOR_EXPORT_H
#define DT_COLLECTOR_EXPORT_H

#include <stdio.h>

#include "error.h"
#include "requests.h"

enum dt_export_format {
	DT_EXPORT_PERFETTO,
	DT_EXPORT_OTLP,
};

/* "perfetto" or "otlp"; -1 if unknown. */
int dt_export_format_parse(const char *name);

/*
 * Write the requests of m (all of them if request is -1, else that one)
 * to f. 0, or -1 with *error set (DT_ERROR_NOTFOUND: no such request;
 * DT_ERROR_IO: writing f failed).
 */
int dt_export(const struct dt_rq_model *m, enum dt_export_format fmt,
	      int request, FILE *f, GError **error);

#endif
