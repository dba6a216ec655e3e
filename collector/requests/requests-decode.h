/*
 * One babeltrace2 event message as a struct dt_rq_event (requests.h):
 * what `dtracer requests` reads from traces and what `dtracer watch`
 * reads live (requests-decode.c).
 */
#ifndef DT_COLLECTOR_REQUESTS_DECODE_H
#define DT_COLLECTOR_REQUESTS_DECODE_H

#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "requests.h"

/*
 * Decode msg (an event message) into ev: every field but ev->host, with
 * ts in the event's clock, ns from origin. kinds caches the event
 * classes' kinds: a table from dt_rq_kinds_new(), which holds a
 * reference on each class until it is destroyed.
 * Strings (procname, name) are borrowed from the message. 1 if decoded,
 * 0 if the event has no time or not the layout dtracer knows (skip it).
 */
GHashTable *dt_rq_kinds_new(void);
int dt_rq_decode(GHashTable *kinds, const bt_message *msg,
		 struct dt_rq_event *ev);

#endif
