/*
 * flt.dtracer.dedup: a babeltrace2 filter that drops the second and later
 * copies of an event: same host, same time, same event, same fields.
 *
 * A flight-recorder host sends a snapshot per slow request, and LTTng
 * does not empty its ring buffers when it takes one: successive
 * snapshots of a host overlap, and a muxer fed with all of them yields
 * the overlapping events once per snapshot. Behind the muxer (events in
 * time order), copies come in the same group of equal times, so the
 * filter keeps only that group: it hashes an event's host, name, context
 * and payload fields only when another event of the group is there.
 * Two distinct events never collide unless they are alike in every
 * field at the same nanosecond on the same host.
 *
 * No parameters. `dtracer merge`, `requests`, `view` and `export` put it
 * behind their muxer (dt_flt_dedup_class()); with babeltrace2:
 *   babeltrace2 --plugin-path=DIR SNAPSHOTS... -c flt.dtracer.dedup
 */
#ifndef DT_COLLECTOR_FLT_DEDUP_H
#define DT_COLLECTOR_FLT_DEDUP_H

#include <stdint.h>

#include <babeltrace2/babeltrace.h>

/* Optional initialization data: the caller reads the count at the end. */
struct dt_flt_dedup_run {
	uint64_t dropped;
};

/* 64-bit fingerprint of an event: host, name, contexts, payload. */
uint64_t dt_event_fingerprint(const bt_event *ev, const char *host);

bt_component_class_initialize_method_status
dt_flt_dedup_init(bt_self_component_filter *self,
		  bt_self_component_filter_configuration *config,
		  const bt_value *params, void *init_data);
void dt_flt_dedup_finalize(bt_self_component_filter *self);
bt_message_iterator_class_initialize_method_status
dt_flt_dedup_iter_init(bt_self_message_iterator *self,
		       bt_self_message_iterator_configuration *config,
		       bt_self_component_port_output *port);
void dt_flt_dedup_iter_finalize(bt_self_message_iterator *self);
bt_message_iterator_class_next_method_status
dt_flt_dedup_iter_next(bt_self_message_iterator *self,
		       bt_message_array_const msgs, uint64_t capacity,
		       uint64_t *count);

/* The class, built without a plugin (a new reference each call). */
const bt_component_class_filter *dt_flt_dedup_class(void);

#endif
