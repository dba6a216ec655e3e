/*
 * flt.dtracer.sync: a babeltrace2 filter that passes every message
 * through unchanged and collects dtracer's marked segments on the way;
 * at the end of its input it aligns the hosts' clocks (sync.h).
 *
 * Parameters (all optional):
 *   reference  host whose clock the others are mapped into
 *   path       file the report is written to (default: standard output)
 *
 * Used in a graph after a muxer (babeltrace2's convert mode does that):
 *   babeltrace2 --plugin-path=DIR TRACE... -c flt.dtracer.sync \
 *       -c sink.utils.dummy
 * `dtracer merge` creates the class itself (dt_flt_sync_class()) and
 * hands a struct dt_flt_sync_run as initialization data to get the
 * result instead of a report.
 */
#ifndef DT_COLLECTOR_FLT_SYNC_H
#define DT_COLLECTOR_FLT_SYNC_H

#include <stdint.h>

#include <babeltrace2/babeltrace.h>

#include "sync.h"

struct dt_flt_sync_run {
	struct dt_sync *sync;		/* caller's: filled by the filter */
	const char *reference;		/* overrides the parameter if set */
	int64_t last_ns;		/* progress: last event's time */
	uint64_t events;
	int solved;			/* 1 once the input ended, -errno on error */
};

bt_component_class_initialize_method_status
dt_flt_sync_init(bt_self_component_filter *self,
		 bt_self_component_filter_configuration *config,
		 const bt_value *params, void *init_data);
void dt_flt_sync_finalize(bt_self_component_filter *self);
bt_message_iterator_class_initialize_method_status
dt_flt_sync_iter_init(bt_self_message_iterator *self,
		      bt_self_message_iterator_configuration *config,
		      bt_self_component_port_output *port);
void dt_flt_sync_iter_finalize(bt_self_message_iterator *self);
bt_message_iterator_class_next_method_status
dt_flt_sync_iter_next(bt_self_message_iterator *self,
		      bt_message_array_const msgs, uint64_t capacity,
		      uint64_t *count);

/* The class, built without a plugin (a new reference each call). */
const bt_component_class_filter *dt_flt_sync_class(void);

#endif
