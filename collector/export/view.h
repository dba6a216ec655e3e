/*
 * The HTML view of a requests model: one self-contained page (no network
 * access, no external script or font): a swimlane per host and thread,
 * spans as bars, an arrow per message, zoom, hover details, and the
 * span's kernel summary on click.
 */
#ifndef DT_COLLECTOR_VIEW_H
#define DT_COLLECTOR_VIEW_H

#include <stdio.h>

#include "error.h"
#include "requests.h"

/*
 * Write the page for m to f. 0, or -1 with *error set (DT_ERROR_INPUT:
 * no traced request in m; DT_ERROR_IO: writing f failed).
 */
int dt_view_write(const struct dt_rq_model *m, const char *title, FILE *f,
		  GError **error);

#endif
