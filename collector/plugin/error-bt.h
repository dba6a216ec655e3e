/*
 * The error convention (error.h) at babeltrace2's edge: a graph's error
 * (the current thread's, a list of causes) taken into a GError, and a
 * GError handed to the graph as a component's or an iterator's cause.
 */
#ifndef DT_COLLECTOR_ERROR_BT_H
#define DT_COLLECTOR_ERROR_BT_H

#include <babeltrace2/babeltrace.h>

#include "error.h"

/*
 * Set *error to "WHAT:" (fmt) then, one per line, the causes of the
 * current thread's babeltrace2 error, outermost first ("  cause", then
 * "  caused by: ..."; the library's own plumbing left out), and clear
 * that error. Without a current error, *error is just WHAT.
 */
void dt_error_take_bt(GError **error, int code, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);

/* Append e's message as a cause of the current thread's error (macros:
 * the cause names the caller's file and line). */
#define dt_error_to_component(self, e)					\
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT((self), "%s",	\
							    (e)->message)
#define dt_error_to_iterator(self, e)					\
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR((self),	\
		"%s", (e)->message)

#endif
