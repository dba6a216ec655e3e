/*
 * The collector's one error convention.
 *
 * A function that can fail for a reason worth telling a user (a file, a
 * trace, an argument, babeltrace2) takes `GError **error` last (NULL: the
 * caller does not want the reason) and returns -1, or NULL for a pointer,
 * with *error set in the DT_ERROR domain. A caller that adds context does
 * so with g_prefix_error() ("cannot read X: " + the cause). Only commands
 * print: dt_error_print(). babeltrace2 components hand theirs to the
 * graph as an error cause (error-bt.h), and a graph's error comes back as
 * a GError whose message lists babeltrace2's causes, outermost first.
 *
 * Computations with nothing to tell but a code (the hull, the sync's
 * tables, the requests builder's stages) return 0 or -errno.
 */
#ifndef DT_COLLECTOR_ERROR_H
#define DT_COLLECTOR_ERROR_H

#include <glib.h>

#define DT_ERROR (dt_error_quark())

enum dt_error_code {
	DT_ERROR_FAILED,	/* anything else */
	DT_ERROR_INPUT,		/* a trace, a file or an argument is wrong */
	DT_ERROR_IO,		/* reading or writing failed (errno's text) */
	DT_ERROR_NOMEM,
	DT_ERROR_INTERRUPTED,	/* ^C */
	DT_ERROR_NOTFOUND,	/* what was named is not there */
};

GQuark dt_error_quark(void);

/* Set *error to errno's text, as "WHAT: strerror(err)" (err > 0). */
void dt_error_errno(GError **error, int err, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);

/* Print "WHO: message" on standard error and free error (NULL: no-op). */
void dt_error_print(const char *who, GError *error);

#endif
