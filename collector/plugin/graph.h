/*
 * Small helpers to build babeltrace2 graphs out of babeltrace2's own
 * component classes (src.ctf.fs, flt.utils.muxer, sink.ctf.fs,
 * sink.text.pretty, sink.utils.dummy) and dtracer's filter.
 */
#ifndef DT_COLLECTOR_GRAPH_H
#define DT_COLLECTOR_GRAPH_H

#include <stdint.h>

#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "error.h"
#include "flt-dedup.h"

/*
 * The classes, found once in babeltrace2's plugin directories, and our
 * flt.dtracer.dedup. dedup_run, if set, counts the events it dropped.
 */
struct dt_classes {
	const bt_plugin *ctf, *utils, *text;
	const bt_component_class_source *src_ctf_fs;
	const bt_component_class_source *src_lttng_live;	/* may be NULL */
	const bt_component_class_filter *muxer, *dedup;
	const bt_component_class_sink *sink_ctf_fs, *pretty, *dummy;
	struct dt_flt_dedup_run *dedup_run;
};

/* 0, or -1 with *error set (a plugin or class missing). */
int dt_classes_load(struct dt_classes *c, GError **error);
void dt_classes_put(struct dt_classes *c);

/*
 * A graph: one src.ctf.fs per trace directory, all into a muxer, then
 * flt.dtracer.dedup (overlapping snapshots of one host give each event
 * once), whose output goes through the optional filter into the sink.
 * NULL on error, *error set: "cannot read TRACE" (the trace directory
 * that failed to open, if one did) and babeltrace2's causes.
 */
bt_graph *dt_graph_traces(const struct dt_classes *c, char *const *traces,
			  int n, const bt_component_class_filter *filter,
			  void *filter_data, const bt_component_class_sink *sink,
			  const bt_value *sink_params, GError **error);

/* The same, with data for the sink's initialize method. */
bt_graph *dt_graph_traces_data(const struct dt_classes *c,
			       char *const *traces, int n,
			       const bt_component_class_filter *filter,
			       void *filter_data,
			       const bt_component_class_sink *sink,
			       const bt_value *sink_params, void *sink_data,
			       GError **error);

/*
 * A sink class that hands each message its graph gives to a function:
 * `dtracer requests` (requests-read.c) and `dtracer watch` (live.c)
 * read traces through it. The component's initialize-method data is a
 * struct dt_msg_sink, which must outlive the graph. fn returns 0, or
 * -errno to fail the graph: the messages after it are dropped, and
 * "WHAT: strerror" is the error's cause. NULL on ENOMEM.
 */
struct dt_msg_sink {
	int (*fn)(void *data, const bt_message *msg);
	void *data;
	const char *what;
	bt_message_iterator *it;	/* the sink's own */
};

bt_component_class_sink *dt_msg_sink_class(const char *name);

/*
 * Append to traces (g_free'd strings) the trace directories (holding a
 * `metadata` file) under dir; with check, their metadata is checked
 * (ctf-check.h). 0, or -1 with *error set (none found included).
 */
int dt_find_traces(const char *dir, GPtrArray *traces, int check,
		   GError **error);

/*
 * Run to the end; progress(data) between steps. 0, or -1 with *error
 * set: DT_ERROR_INTERRUPTED, or "WHAT failed: cannot read TRACE"
 * (traces[0..n), as given to dt_graph_traces: the one whose source
 * failed, if one did) and babeltrace2's causes.
 */
int dt_graph_run(bt_graph *g, const char *what, char *const *traces, int n,
		 void (*progress)(void *), void *data, GError **error);

/* Ask running graphs to stop (async-signal-safe). */
void dt_graph_interrupt(void);

/* Earliest and latest times of the traces (for progress); 0 or -1. */
int dt_traces_range(const struct dt_classes *c, char *const *traces, int n,
		    int64_t *begin, int64_t *end);

/*
 * If babeltrace2 aborts on an internal assertion (a corrupt trace it
 * does not refuse properly), run cleanup, say so and exit 1. Set up by
 * dt_classes_load(); cleanup may be NULL.
 */
void dt_graph_on_abort(void (*cleanup)(void));

#endif
