/*
 * babeltrace2's errors and ours. See error-bt.h.
 */
#include "error-bt.h"

#include <stdarg.h>
#include <string.h>

/* The library's own causes (graph plumbing, object addresses) say less
 * than the components' ones, which name the file and what is wrong. */
static int plumbing(const bt_error_cause *c, uint64_t i)
{
	return bt_error_cause_get_actor_type(c) ==
	       BT_ERROR_CAUSE_ACTOR_TYPE_UNKNOWN && i != 0 &&
	       !strcmp(bt_error_cause_get_module_name(c), "libbabeltrace2");
}

void dt_error_take_bt(GError **error, int code, const char *fmt, ...)
{
	const bt_error *err = bt_current_thread_take_error();
	GString *msg = g_string_new(NULL);
	va_list ap;

	va_start(ap, fmt);
	g_string_append_vprintf(msg, fmt, ap);
	va_end(ap);
	if (err) {
		g_string_append_c(msg, ':');
		/* The cause appended last is the outermost: it comes first. */
		for (uint64_t i = bt_error_get_cause_count(err), shown = 0;
		     i-- > 0;) {
			const bt_error_cause *c =
				bt_error_borrow_cause_by_index(err, i);

			if (plumbing(c, i))
				continue;
			g_string_append_printf(msg, "\n  %s%s",
					       shown++ ? "caused by: " : "",
					       bt_error_cause_get_message(c));
		}
		bt_error_release(err);
	}
	g_set_error_literal(error, DT_ERROR, code, msg->str);
	g_string_free(msg, TRUE);
}
