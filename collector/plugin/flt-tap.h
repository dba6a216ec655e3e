/*
 * A filter that hands each message passing through to a function and
 * passes it on unchanged (dtracer merge's per-host graphs: the requests
 * and the clock sync read the messages on their way to sink.ctf.fs).
 * In-process only (not in the babeltrace2 plugin): its initialize-method
 * data is a struct dt_msg_sink (graph.h), whose fn may fail the graph.
 */
#ifndef DT_COLLECTOR_FLT_TAP_H
#define DT_COLLECTOR_FLT_TAP_H

#include <babeltrace2/babeltrace.h>

/* The class (a new reference), or NULL. */
const bt_component_class_filter *dt_flt_tap_class(void);

#endif
