/*
 * What dtracer's two filter classes (flt-sync.c, flt-dedup.c) share:
 * both pass their input through, looking at (or leaving out) one message
 * at a time. One input port "in", one output port "out"; an iterator
 * over the upstream that keeps the batch it has not handed on yet; the
 * class made from the methods; the host a trace comes from.
 */
#ifndef DT_COLLECTOR_FLT_PASS_H
#define DT_COLLECTOR_FLT_PASS_H

#include <stdbool.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

#include "error.h"

/* The upstream of a message iterator and its batch not yet handed on. */
struct dt_pass {
	bt_message_iterator *up;
	bt_message_array_const pending;
	uint64_t count, pos;	/* pending[pos..count) not handed on */
	bool ended;		/* upstream said END */
};

/* The ports "in" (*in, for the iterators) and "out". */
bt_component_class_initialize_method_status
dt_pass_add_ports(bt_self_component_filter *self,
		  bt_self_component_port_input **in);

/* Iterate the component's input port in (seeking forward if it can). */
bt_message_iterator_class_initialize_method_status
dt_pass_init(struct dt_pass *p, bt_self_message_iterator *self,
	     bt_self_message_iterator_configuration *config,
	     bt_self_component_port_input *in);

/* The pending messages and the upstream put. */
void dt_pass_fini(struct dt_pass *p);

/*
 * A batch pending if the last one is used up: OK (pending[pos..count)
 * not empty), END (p->ended set), AGAIN, or the upstream's error (its
 * causes appended by whoever failed).
 */
bt_message_iterator_class_next_method_status dt_pass_fill(struct dt_pass *p);

/* Hand e (then freed) to the graph as the iterator's error. */
bt_message_iterator_class_next_method_status
dt_pass_fail(bt_self_message_iterator *self, GError *e);

/* The filter class `name` with these methods (a new reference), or NULL. */
const bt_component_class_filter *
dt_pass_class(const char *name,
	      bt_component_class_filter_initialize_method init,
	      bt_component_class_filter_finalize_method fini,
	      bt_message_iterator_class_initialize_method iter_init,
	      bt_message_iterator_class_finalize_method iter_fini,
	      bt_message_iterator_class_next_method next);

/* The host a trace comes from: its `hostname` environment entry, else
 * its name, else NULL (borrowed from the trace). */
const char *dt_trace_host(const bt_trace *trace);

#endif
