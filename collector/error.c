/*
 * The collector's error convention. See error.h.
 */
#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

G_DEFINE_QUARK(dt-error-quark, dt_error)

void dt_error_errno(GError **error, int err, const char *fmt, ...)
{
	va_list ap;
	char *what;

	va_start(ap, fmt);
	what = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_set_error(error, DT_ERROR, err == ENOMEM ? DT_ERROR_NOMEM :
		    DT_ERROR_IO, "%s: %s", what, g_strerror(err));
	g_free(what);
}

void dt_error_print(const char *who, GError *error)
{
	if (!error)
		return;
	fprintf(stderr, "%s: %s\n", who, error->message);
	g_error_free(error);
}
