/*
 * Following an lttng-relayd's live sessions (live.h): babeltrace2's
 * src.ctf.lttng-live, one graph per session, each into a small sink of
 * ours that hands every message to the caller.
 *
 * One graph per session, not all sessions into one muxer: a muxer waits
 * for every input before it can order them, so one idle or stopped host
 * would hold back the others; and a graph cannot take a new source once
 * it runs, while hosts come and go. Each session's events come in time
 * order (lttng-live orders its streams); across hosts the caller does
 * not need an order.
 *
 * Sessions are found by the source's "sessions" query on the relayd,
 * asked again every second. A session's graph that ends (the session
 * was destroyed) or fails (the connection to the relayd broke) is made
 * again when the relayd lists the session again, no sooner than a
 * second later: lttng-live attaches at the newest data, so what the
 * host streamed in between is not seen, and is reported as a gap.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "error-bt.h"
#include "live.h"

#define LIVE_DISCOVER_US 1000000	/* ask the relayd for sessions */
#define LIVE_RETRY_US 1000000		/* before a session's graph again */

enum sess_state { S_RUNNING, S_ENDED, S_FAILED };

struct live_session {
	struct dt_live *l;
	char *key;		/* "HOST/NAME" */
	char *host, *name, *url;
	bt_graph *g;
	struct dt_msg_sink sink;
	enum sess_state state;
	int64_t changed_us;	/* when its last graph ended or failed */
	int64_t missing_since;	/* when it ended or was lost; 0: followed */
	bool quiet;		/* attaching again failed at once: retried
				 * silently until events come */
	const bt_trace *trace;	/* the last event's (a ref) */
	uint64_t events;	/* since the graph was made */
	bool delivered;		/* the graph gave a message: attached */
	uint64_t attaches;
	bool was_lost;		/* it failed, not ended, last time */
	int err;		/* from the callback, to end the step */
};

struct dt_live {
	const struct dt_classes *cls;
	bt_component_class_sink *sink_cls;
	char *url;
	const struct dt_live_ops *ops;
	void *data;
	GHashTable *sessions;	/* key -> struct live_session */
	GPtrArray *order;	/* struct live_session, by discovery */
	int64_t discovered_us;
	bool relayd_down;	/* the last query failed (said once) */
	uint64_t regained;	/* sessions followed again after a loss */
	int64_t gap_us;		/* and how long they were not */
};

static int64_t now_us(void)
{
	return g_get_monotonic_time();
}

static void note(struct dt_live *l, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static void note(struct dt_live *l, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	l->ops->note(l->data, s);
	g_free(s);
}

/* Said once a session is followed again: for how long it was not. */
static void followed_again(struct live_session *s)
{
	struct dt_live *l = s->l;
	int64_t gap = now_us() - s->missing_since;

	note(l, "%s: following session %s again, %.1f s after it %s",
	     s->host, s->name, gap / 1e6, s->was_lost ? "was lost: what it "
	     "streamed meanwhile is not seen" : "ended");
	if (s->was_lost) {
		l->regained++;
		l->gap_us += gap;
	}
	s->missing_since = 0;
	s->quiet = false;
}

/* The sink: each message to the callbacks, in the graph's thread. */
static int sink_message(struct live_session *s, const bt_message *msg)
{
	struct dt_live *l = s->l;

	s->delivered = true;
	if (s->quiet)
		followed_again(s);	/* attached at last */
	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT: {
		const bt_event *e = bt_message_event_borrow_event_const(msg);
		const bt_trace *t = bt_stream_borrow_trace_const(
			bt_event_borrow_stream_const(e));

		if (t != s->trace) {
			if (s->trace && s->events)
				note(l, "%s: session %s restarted (a new "
				     "trace)", s->host, s->name);
			bt_trace_put_ref(s->trace);
			s->trace = t;
			bt_trace_get_ref(t);
		}
		s->events++;
		return l->ops->event(l->data, s->host, msg);
	}
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY: {
		const bt_clock_snapshot *cs =
			bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg);
		int64_t ts;

		if (l->ops->progress &&
		    !bt_clock_snapshot_get_ns_from_origin(cs, &ts))
			l->ops->progress(l->data, s->host, ts);
		return 0;
	}
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS: {
		uint64_t n = 0;

		if (bt_message_discarded_events_get_count(msg, &n) !=
		    BT_PROPERTY_AVAILABILITY_AVAILABLE)
			n = 0;
		if (l->ops->discarded)
			l->ops->discarded(l->data, s->host, n);
		return 0;
	}
	default:
		return 0;
	}
}

/* The sink's function: a callback's failure kept, to tell it apart. */
static int sink_fn(void *data, const bt_message *msg)
{
	struct live_session *s = data;

	s->err = sink_message(s, msg);
	return s->err;
}

/* The session's graph: lttng-live on its URL into our sink. 0 or -1. */
static int session_graph(struct live_session *s, GError **error)
{
	struct dt_live *l = s->l;
	const bt_component_source *src = NULL;
	const bt_component_sink *sink = NULL;
	bt_value *params = bt_value_map_create();
	bt_value *inputs = NULL;
	int ret = -1;

	s->g = bt_graph_create(0);
	if (!params || !s->g ||
	    bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, s->url) ||
	    bt_value_map_insert_string_entry(params,
					     "session-not-found-action",
					     "end")) {
		dt_error_errno(error, ENOMEM, "%s", s->url);
		goto out;
	}
	/* its errors come back as causes (said in the notes), not logs */
	if (bt_graph_add_source_component(s->g, l->cls->src_lttng_live,
					  "live", params,
					  BT_LOGGING_LEVEL_NONE, &src) ||
	    bt_graph_add_sink_component_with_initialize_method_data(
		    s->g, l->sink_cls, "sink", NULL, &s->sink,
		    BT_LOGGING_LEVEL_ERROR, &sink) ||
	    bt_graph_connect_ports(s->g,
		bt_component_source_borrow_output_port_by_index_const(src, 0),
		bt_component_sink_borrow_input_port_by_name_const(sink, "in"),
		NULL)) {
		dt_error_take_bt(error, DT_ERROR_FAILED, "following %s",
				 s->url);
		goto out;
	}
	s->sink = (struct dt_msg_sink){ .fn = sink_fn, .data = s,
					.what = "the watcher" };
	s->events = 0;
	s->delivered = false;
	s->attaches++;
	s->state = S_RUNNING;
	ret = 0;
out:
	bt_value_put_ref(params);
	if (ret) {
		bt_graph_put_ref(s->g);
		s->g = NULL;
	}
	return ret;
}

static void session_free(gpointer p)
{
	struct live_session *s = p;

	bt_graph_put_ref(s->g);
	bt_trace_put_ref(s->trace);
	g_free(s->key);
	g_free(s->host);
	g_free(s->name);
	g_free(s->url);
	g_free(s);
}

static const char *map_string(const bt_value *m, const char *key)
{
	const bt_value *v = bt_value_map_borrow_entry_value_const(m, key);

	return v && bt_value_is_string(v) ? bt_value_string_get(v) : NULL;
}

/* A session the relayd lists: followed if new, again if it had ended. */
static void listed(struct dt_live *l, const bt_value *m)
{
	const char *url = map_string(m, "url");
	const char *host = map_string(m, "target-hostname");
	const char *name = map_string(m, "session-name");
	struct live_session *s;
	GError *e = NULL;
	char *key;

	if (!url || !host || !name)
		return;
	key = g_strdup_printf("%s/%s", host, name);
	s = g_hash_table_lookup(l->sessions, key);
	if (!s) {
		s = g_new0(struct live_session, 1);
		s->l = l;
		s->key = key;
		s->host = g_strdup(host);
		s->name = g_strdup(name);
		s->url = g_strdup(url);
		s->state = S_FAILED;
		g_hash_table_insert(l->sessions, s->key, s);
		g_ptr_array_add(l->order, s);
		key = NULL;
	}
	g_free(key);
	if (s->state == S_RUNNING ||
	    (s->attaches && now_us() - s->changed_us < LIVE_RETRY_US))
		return;
	if (session_graph(s, &e)) {
		note(l, "%s: cannot follow session %s: %s", s->host, s->name,
		     e->message);
		g_error_free(e);
		s->changed_us = now_us();
		return;
	}
	if (s->attaches == 1)
		note(l, "%s: following session %s (%s)", s->host, s->name,
		     s->url);
	else if (!s->quiet)
		followed_again(s);
	if (l->ops->attached)
		l->ops->attached(l->data, s->host,
				 s->attaches > 1 && s->was_lost);
}

/* Ask the relayd which sessions it serves live. */
static void discover(struct dt_live *l)
{
	const bt_component_class *cc =
		bt_component_class_source_as_component_class_const(
			l->cls->src_lttng_live);
	bt_value *params = bt_value_map_create();
	bt_query_executor *q = NULL;
	const bt_value *res = NULL;
	bt_query_executor_query_status st = BT_QUERY_EXECUTOR_QUERY_STATUS_ERROR;

	l->discovered_us = now_us();
	if (params && !bt_value_map_insert_string_entry(params, "url", l->url))
		q = bt_query_executor_create(cc, "sessions", params);
	if (q) {
		bt_query_executor_set_logging_level(q, BT_LOGGING_LEVEL_NONE);
		st = bt_query_executor_query(q, &res);
	}
	if (st == BT_QUERY_EXECUTOR_QUERY_STATUS_OK && res &&
	    bt_value_is_array(res)) {
		if (l->relayd_down)
			note(l, "the relayd at %s answers again", l->url);
		l->relayd_down = false;
		for (uint64_t i = 0; i < bt_value_array_get_length(res); i++)
			listed(l, bt_value_array_borrow_element_by_index_const(
				       res, i));
	} else if (st != BT_QUERY_EXECUTOR_QUERY_STATUS_AGAIN) {
		bt_current_thread_clear_error();
		if (!l->relayd_down)
			note(l, "no answer from the relayd at %s (lttng-relayd "
			     "with its live port?): asking again every "
			     "second", l->url);
		l->relayd_down = true;
	}
	bt_value_put_ref(res);
	bt_query_executor_put_ref(q);
	bt_value_put_ref(params);
}

/* One run of a session's graph; 1 if it consumed, 0 if not, <0 fatal. */
static int session_step(struct live_session *s)
{
	struct dt_live *l = s->l;
	uint64_t before = s->events;
	int err;

	if (s->state != S_RUNNING)
		return 0;
	switch (bt_graph_run_once(s->g)) {
	case BT_GRAPH_RUN_ONCE_STATUS_OK:
		return s->events != before;
	case BT_GRAPH_RUN_ONCE_STATUS_AGAIN:
		return 0;
	case BT_GRAPH_RUN_ONCE_STATUS_END:
		if (!s->quiet)
			note(l, "%s: session %s ended (%" PRIu64 " events read "
			     "from it); following it again if it starts again",
			     s->host, s->name, s->events);
		s->state = S_ENDED;
		s->was_lost = false;
		break;
	default: {
		GError *e = NULL;

		err = s->err;
		s->err = 0;
		dt_error_take_bt(&e, DT_ERROR_FAILED, "reading");
		if (err) {
			bt_graph_put_ref(s->g);
			s->g = NULL;
			s->state = S_FAILED;
			return err;
		}
		if (!s->quiet)
			note(l, "%s: session %s %s (%s)%s; following it again "
			     "when the relayd lists it", s->host, s->name,
			     s->delivered ? "lost" : "cannot be attached to",
			     e->message, strstr(e->message, "attaching") ?
			     " (the relayd lets one viewer at a time attach "
			     "to a session: is another watcher or babeltrace2 "
			     "on it?)" : "");
		g_error_free(e);
		s->state = S_FAILED;
		s->was_lost = true;
		break;
	}
	}
	bt_graph_put_ref(s->g);
	s->g = NULL;
	s->changed_us = now_us();
	if (!s->missing_since)
		s->missing_since = s->changed_us;
	/* attached again, and failed before any event: retry silently */
	s->quiet = !s->events && s->attaches > 1;
	return 0;
}

struct dt_live *dt_live_new(const struct dt_classes *cls, const char *url,
			    const struct dt_live_ops *ops, void *data,
			    GError **error)
{
	struct dt_live *l;

	if (!cls->src_lttng_live) {
		g_set_error(error, DT_ERROR, DT_ERROR_NOTFOUND,
			    "babeltrace2's ctf plugin has no lttng-live "
			    "source (Debian package: babeltrace2)");
		return NULL;
	}
	l = g_new0(struct dt_live, 1);
	l->cls = cls;
	l->url = g_strdup(url);
	l->ops = ops;
	l->data = data;
	l->sessions = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
					    session_free);
	l->order = g_ptr_array_new();
	l->sink_cls = dt_msg_sink_class("dtracer-live");
	l->discovered_us = INT64_MIN / 2;
	if (!l->sink_cls) {
		dt_error_errno(error, ENOMEM, "the live reader");
		dt_live_free(l);
		return NULL;
	}
	return l;
}

void dt_live_free(struct dt_live *l)
{
	if (!l)
		return;
	g_ptr_array_free(l->order, TRUE);
	g_hash_table_destroy(l->sessions);
	bt_component_class_sink_put_ref(l->sink_cls);
	g_free(l->url);
	g_free(l);
}

int dt_live_step(struct dt_live *l, GError **error)
{
	int any = 0;

	if (now_us() - l->discovered_us >= LIVE_DISCOVER_US)
		discover(l);
	for (guint i = 0; i < l->order->len; i++) {
		int r = session_step(g_ptr_array_index(l->order, i));

		if (r < 0) {
			dt_error_errno(error, -r, "following the sessions");
			return -1;
		}
		any |= r;
	}
	return any;
}

int dt_live_following(const struct dt_live *l)
{
	int n = 0;

	for (guint i = 0; i < l->order->len; i++)
		n += ((struct live_session *)g_ptr_array_index(l->order, i))
			     ->state == S_RUNNING;
	return n;
}

void dt_live_gaps(const struct dt_live *l, uint64_t *lost, double *seconds)
{
	*lost = l->regained;
	*seconds = l->gap_us / 1e6;
}
