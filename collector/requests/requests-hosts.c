/*
 * One read of each host's traces, the hosts side by side (requests-hosts.h):
 * the requests and the clock sync of the hosts' own traces (`dtracer
 * requests` on them), and, with ctf_out, merge's pass 1 too.
 *
 * Each host's traces (its hostname from each trace's metadata) are read
 * by a graph of their own (src.ctf.fs, muxer, dedup, then our sink; or
 * the tap filter and sink.ctf.fs into ctf_out) in a thread of its own (up
 * to HOSTS_THREADS at once). The sink or tap decodes each event
 * (dt_rq_decode) and the TCP segments of LTTng's net events into chunks,
 * at most HOSTS_IN_FLIGHT of them per host waiting. The calling thread
 * takes the chunks as they come: the hosts registered in the order of
 * their first events, then each event into one builder in its host's
 * own clock (per host in time order, the hosts interleaved, as dtracer
 * watch does), the marks and net segments into the clock sync; at the
 * end the sync is solved, the builder's times mapped into the reference
 * clock, and it is finished.
 *
 * Threads: babeltrace2 objects never cross threads (each worker has its
 * own component classes, loaded by the calling thread before the pool
 * starts, its own graph and its own thread-local error, carried back in
 * a GError); the chunks are handed over by GAsyncQueues (full, and empty
 * ones to use again). Under hosts->lock: the in-flight counts, and the
 * graphs made (every host's graph is made before any runs: a corrupt
 * trace is met before anything is written). stop and interrupted are
 * atomic; a worker's error, counts and dedup figures are read once its
 * last chunk (n == -1) is taken.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "error-bt.h"
#include "flt-dedup.h"
#include "flt-tap.h"
#include "graph.h"
#include "marks-read.h"
#include "requests-decode.h"
#include "requests-hosts.h"
#include "sync.h"

#define HOSTS_CHUNK 4096	/* events a chunk */
#define HOSTS_IN_FLIGHT 4	/* chunks a host has waiting, at most */
#define HOSTS_THREADS 64	/* hosts read at once, at most */

/* A TCP segment LTTng's net events saw: the clock sync's too. */
struct netseg {
	int64_t ts;
	bool send;
	struct dt_mark m;
};

struct chunk {
	int worker;
	int n;			/* events; -1: the worker's last word */
	int n_net;
	uint64_t discarded;	/* events the tracer discarded */
	struct dt_rq_event ev[HOSTS_CHUNK];
	struct netseg net[HOSTS_CHUNK];
};

struct hosts;

struct worker {
	struct hosts *r;
	int id;
	char *host;
	GPtrArray *traces;	/* char *: its trace directories */
	struct dt_classes cls;
	GHashTable *kinds;
	GHashTable *net;	/* event class -> 1 net send, 2 receive, 3 no */
	GStringChunk *strings;	/* the events' strings, until the end */
	struct chunk *cur;
	struct dt_msg_sink sink;
	int in_flight;		/* under r->lock */
	GError *error;
	int b_host, s_host;	/* its index in the builder, in the sync */
	struct dt_flt_dedup_run dedup;
	uint64_t events;	/* its events read */
	GQueue first;		/* its chunks before every host is known */
	int64_t first_ts;	/* its first event's time, INT64_MAX: none */
	int64_t last_ts;	/* its last event's time taken */
	bool ended;
};

struct hosts {
	const char *ctf_out;	/* each host's trace written here, or NULL */
	struct dt_hosts_pass *p;	/* the caller's: progress */
	uint64_t taken;		/* events taken so far */
	GPtrArray *workers;	/* struct worker * */
	GAsyncQueue *full;	/* struct chunk *, to ingest */
	GAsyncQueue *empty;	/* struct chunk *, ingested: used again */
	GMutex lock;
	GCond room;
	gint stop;		/* the calling thread failed: end */
	volatile gint *interrupted;	/* ^C (dt_rq_hosts_interrupt) */
	guint created;		/* graphs made (or failed), under lock */
	bool create_failed;
	GCond all_created;
};

/* ----- the workers' side ---------------------------------------------- */

static struct chunk *fresh(struct hosts *r, int worker)
{
	struct chunk *c = g_async_queue_try_pop(r->empty);

	if (!c)
		c = g_try_new(struct chunk, 1);
	if (c) {
		c->worker = worker;
		c->n = c->n_net = 0;
		c->discarded = 0;
	}
	return c;
}

static int hand_over(struct worker *w)
{
	struct hosts *r = w->r;
	struct chunk *c = w->cur;

	g_mutex_lock(&r->lock);
	while (w->in_flight >= HOSTS_IN_FLIGHT && !g_atomic_int_get(&r->stop))
		g_cond_wait(&r->room, &r->lock);
	w->in_flight++;
	g_mutex_unlock(&r->lock);
	if (g_atomic_int_get(&r->stop)) {
		g_mutex_lock(&r->lock);
		w->in_flight--;
		g_mutex_unlock(&r->lock);
		return -ECANCELED;
	}
	g_async_queue_push(r->full, c);
	w->cur = fresh(r, w->id);
	return w->cur ? 0 : -ENOMEM;
}

/* 1 net_dev_queue, 2 net_if_receive_skb, 3 neither. */
static int net_kind(struct worker *w, const bt_event_class *ec)
{
	int k = GPOINTER_TO_INT(g_hash_table_lookup(w->net, ec));
	const char *name;

	if (k)
		return k;
	name = bt_event_class_get_name(ec);
	k = !name ? 3 : !strcmp(name, "net_dev_queue") ? 1 :
	    !strcmp(name, "net_if_receive_skb") ? 2 : 3;
	g_hash_table_insert(w->net, (gpointer)ec, GINT_TO_POINTER(k));
	return k;
}

/* A net event's TCP segment into the chunk, for the clock sync. */
static void take_net(struct worker *w, const bt_message *msg, int k)
{
	const bt_event *e = bt_message_event_borrow_event_const(msg);
	struct netseg *g = &w->cur->net[w->cur->n_net];

	if (!bt_message_event_borrow_stream_class_default_clock_class_const(
		    msg) ||
	    bt_clock_snapshot_get_ns_from_origin(
		    bt_message_event_borrow_default_clock_snapshot_const(msg),
		    &g->ts) ||
	    dt_read_net(bt_event_borrow_payload_field_const(e), &g->m))
		return;		/* not a TCP segment: skipped */
	g->send = k == 1;
	w->cur->n_net++;
}

/* The sink's function: each event decoded into the current chunk. */
static int take(void *data, const bt_message *msg)
{
	struct worker *w = data;
	struct dt_rq_event *ev;

	int k;

	if (g_atomic_int_get(&w->r->stop) ||
	    g_atomic_int_get(w->r->interrupted))
		return -ECANCELED;	/* failed, or interrupted */
	if (bt_message_get_type(msg) == BT_MESSAGE_TYPE_DISCARDED_EVENTS) {
		uint64_t n;

		if (bt_message_discarded_events_get_count(msg, &n) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE)
			w->cur->discarded += n;
		return 0;
	}
	if (bt_message_get_type(msg) != BT_MESSAGE_TYPE_EVENT)
		return 0;
	w->events++;
	k = net_kind(w, bt_event_borrow_class_const(
			     bt_message_event_borrow_event_const(msg)));
	if (k != 3) {
		take_net(w, msg, k);
		if (w->cur->n_net == HOSTS_CHUNK)
			return hand_over(w);
	}
	ev = &w->cur->ev[w->cur->n];
	if (!dt_rq_decode(w->kinds, msg, ev))
		return 0;
	if (ev->procname)
		ev->procname = g_string_chunk_insert_const(w->strings,
							   ev->procname);
	if (ev->name)
		ev->name = g_string_chunk_insert_const(w->strings, ev->name);
	if (++w->cur->n == HOSTS_CHUNK)
		return hand_over(w);
	return 0;
}

static int run_graph(struct worker *w, bt_graph *g)
{
	for (;;) {
		switch (bt_graph_run_once(g)) {
		case BT_GRAPH_RUN_ONCE_STATUS_END:
			return 0;
		case BT_GRAPH_RUN_ONCE_STATUS_OK:
			break;
		case BT_GRAPH_RUN_ONCE_STATUS_AGAIN:
			g_usleep(1000);
			break;
		default:
			if (g_atomic_int_get(&w->r->stop) ||
			    g_atomic_int_get(w->r->interrupted)) {
				bt_current_thread_clear_error();
				return -1;
			}
			dt_error_take_bt(&w->error, DT_ERROR_INPUT,
					 "%s: reading its traces failed (%s)",
					 w->host,
					 (char *)w->traces->pdata[0]);
			return -1;
		}
	}
}

/* Its graph: into our sink, or through the tap into sink.ctf.fs. */
static bt_graph *graph_of(struct worker *w, bt_component_class_sink **sink,
			  const bt_component_class_filter **tap)
{
	bt_value *params = NULL;
	bt_graph *g = NULL;

	w->sink = (struct dt_msg_sink){ .fn = take, .data = w,
					.what = "reading a host's events" };
	if (!w->r->ctf_out) {
		*sink = dt_msg_sink_class("dtracer-hosts");
		if (*sink)
			g = dt_graph_traces_data(&w->cls,
				(char *const *)w->traces->pdata,
				(int)w->traces->len, NULL, NULL, *sink, NULL,
				&w->sink, &w->error);
		else
			dt_error_errno(&w->error, ENOMEM, "%s", w->host);
		return g;
	}
	*tap = dt_flt_tap_class();
	params = bt_value_map_create();
	if (!*tap || !params ||
	    bt_value_map_insert_string_entry(params, "path", w->r->ctf_out) ||
	    bt_value_map_insert_bool_entry(params, "quiet", BT_TRUE))
		dt_error_errno(&w->error, ENOMEM, "%s", w->host);
	else
		g = dt_graph_traces(&w->cls, (char *const *)w->traces->pdata,
				    (int)w->traces->len, *tap, &w->sink,
				    w->cls.sink_ctf_fs, params, &w->error);
	bt_value_put_ref(params);
	return g;
}

/*
 * Every host's graph made before any runs (when all run at once): the
 * traces are opened, and a corrupt one found (babeltrace2 may abort
 * there: graph.c), before anything is written. 1: run it.
 */
static bool graphs_made(struct hosts *r, bool made)
{
	bool run;

	g_mutex_lock(&r->lock);
	r->created++;
	r->create_failed |= !made;
	g_cond_broadcast(&r->all_created);
	while (r->workers->len <= HOSTS_THREADS &&
	       r->created < r->workers->len && !r->create_failed)
		g_cond_wait(&r->all_created, &r->lock);
	run = made && !r->create_failed;
	g_mutex_unlock(&r->lock);
	return run;
}

/* A pool thread: one host's traces, start to end. */
static void work(gpointer data, gpointer user)
{
	struct worker *w = data;
	bt_component_class_sink *sink = NULL;
	const bt_component_class_filter *tap = NULL;
	bt_graph *g;
	int r = -1;

	(void)user;
	w->cls.dedup_run = &w->dedup;
	g = graph_of(w, &sink, &tap);
	if (graphs_made(w->r, g != NULL))
		r = run_graph(w, g);
	if (!r && (w->cur->n || w->cur->n_net || w->cur->discarded))
		r = hand_over(w);
	/*
	 * After an error the graph is not finalized: babeltrace2 2.0's
	 * sink.ctf.fs crashes finalizing a stream cut short (merge.c);
	 * the command ends just after.
	 */
	if (!r || !w->r->ctf_out)
		bt_graph_put_ref(g);
	bt_component_class_sink_put_ref(sink);
	bt_component_class_filter_put_ref(tap);
	if (!w->cur)
		w->cur = g_new(struct chunk, 1);
	w->cur->worker = w->id;
	w->cur->n = -1;		/* done: the calling thread reads error */
	w->cur->n_net = 0;
	w->cur->discarded = 0;
	g_async_queue_push(w->r->full, w->cur);
	w->cur = NULL;
}

/* ----- the calling thread's side -------------------------------------- */

/*
 * The hostname in a trace's metadata: its env block is near the start,
 * in plain text even in a packetized file (a packet's text is whole
 * between headers); else as src.ctf.fs's metadata-info query decodes it.
 */
static char *hostname_raw(const char *dir)
{
	static const char key[] = "\thostname = \"";
	char *md = g_build_filename(dir, "metadata", NULL);
	FILE *f = fopen(md, "rb");
	char buf[65536], *name = NULL;
	size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
	const char *h = n ? memmem(buf, n, key, sizeof(key) - 1) : NULL;
	const char *end = h ? memchr(h + sizeof(key) - 1, '"',
				     n - (size_t)(h - buf) - (sizeof(key) - 1))
			    : NULL;

	if (end && end > h + sizeof(key) - 1 && end - h < 300)
		name = g_strndup(h + sizeof(key) - 1,
				 (gsize)(end - h - (sizeof(key) - 1)));
	for (char *c = name; c && *c; c++)
		if (!g_ascii_isgraph(*c)) {
			g_free(name);
			name = NULL;
			break;
		}
	if (f)
		fclose(f);
	g_free(md);
	return name;
}

static char *hostname_of(const struct dt_classes *c, const char *dir)
{
	bt_value *params;
	const bt_value *res = NULL, *text;
	bt_query_executor *q = NULL;
	char *name = hostname_raw(dir);

	if (name)
		return name;
	params = bt_value_map_create();
	if (params && !bt_value_map_insert_string_entry(params, "path", dir))
		q = bt_query_executor_create(
			bt_component_class_source_as_component_class_const(
				c->src_ctf_fs), "metadata-info", params);
	if (q && bt_query_executor_query(q, &res) ==
		 BT_QUERY_EXECUTOR_QUERY_STATUS_OK &&
	    (text = bt_value_map_borrow_entry_value_const(res, "text")) &&
	    bt_value_is_string(text)) {
		const char *t = bt_value_string_get(text);
		const char *env = strstr(t, "\nenv {");
		const char *h = env ? strstr(env, "hostname = \"") : NULL;
		const char *end = h ? strchr(h + 12, '"') : NULL;

		if (end)
			name = g_strndup(h + 12, (gsize)(end - h - 12));
	}
	bt_current_thread_clear_error();
	bt_value_put_ref(res);
	bt_query_executor_put_ref(q);
	bt_value_put_ref(params);
	return name ? name : g_path_get_basename(dir);
}

static void worker_free(gpointer p)
{
	struct worker *w = p;

	g_free(w->host);
	g_ptr_array_free(w->traces, TRUE);
	dt_classes_put(&w->cls);
	if (w->kinds)
		g_hash_table_destroy(w->kinds);
	if (w->net)
		g_hash_table_destroy(w->net);
	g_queue_clear_full(&w->first, g_free);
	if (w->strings)
		g_string_chunk_free(w->strings);
	g_free(w->cur);
	if (w->error)
		g_error_free(w->error);
	g_free(w);
}

/* One worker per hostname, its traces in the order found. */
static int group(struct hosts *r, GPtrArray *traces, GError **error)
{
	struct dt_classes probe;

	if (dt_classes_load(&probe, error))
		return -1;
	for (guint i = 0; i < traces->len; i++) {
		char *name = hostname_of(&probe, traces->pdata[i]);
		struct worker *w = NULL;

		for (guint k = 0; k < r->workers->len && !w; k++)
			if (!strcmp(((struct worker *)r->workers->pdata[k])->host,
				    name))
				w = r->workers->pdata[k];
		if (w) {
			g_free(name);
		} else {
			w = g_new0(struct worker, 1);
			w->r = r;
			w->id = (int)r->workers->len;
			w->host = name;
			w->traces = g_ptr_array_new_with_free_func(g_free);
			g_ptr_array_add(r->workers, w);
		}
		g_ptr_array_add(w->traces, g_strdup(traces->pdata[i]));
	}
	dt_classes_put(&probe);
	if (r->p->reference) {
		guint k = 0;

		while (k < r->workers->len &&
		       strcmp(((struct worker *)r->workers->pdata[k])->host,
			      r->p->reference))
			k++;
		if (k == r->workers->len) {
			g_set_error(error, DT_ERROR, DT_ERROR_INPUT,
				    "clock sync failed: reference host `%s` is "
				    "not in the traces", r->p->reference);
			return -1;
		}
	}
	/* each worker's own classes: babeltrace2 objects stay in a thread */
	for (guint k = 0; k < r->workers->len; k++) {
		struct worker *w = r->workers->pdata[k];

		if (dt_classes_load(&w->cls, error))
			return -1;
		w->kinds = dt_rq_kinds_new();
		w->net = g_hash_table_new(g_direct_hash, g_direct_equal);
		w->strings = g_string_chunk_new(4096);
		w->first_ts = INT64_MAX;
		w->last_ts = INT64_MIN;
		w->cur = fresh(r, w->id);
		if (!w->cur) {
			dt_error_errno(error, ENOMEM, "%s", w->host);
			return -1;
		}
	}
	return 0;
}

static int ingest(struct dt_rq_builder *b, struct dt_sync *s,
		  struct worker *w, struct chunk *c)
{
	for (int i = 0; i < c->n; i++) {
		struct dt_rq_event *ev = &c->ev[i];

		ev->host = w->b_host;
		if (dt_rq_add(b, ev))
			return -ENOMEM;
		if (ev->kind == DT_RQ_EV_MARK_SEND ||
		    ev->kind == DT_RQ_EV_MARK_RECV) {
			struct dt_mark m = {
				.family = ev->flow.family,
				.alen = ev->flow.family == AF_INET6 ? 16 : 4,
				.sport = ev->flow.sport,
				.dport = ev->flow.dport,
				.seq = ev->seq, .end_seq = ev->end_seq,
			};

			memcpy(m.saddr, ev->flow.saddr, sizeof(m.saddr));
			memcpy(m.daddr, ev->flow.daddr, sizeof(m.daddr));
			if (dt_sync_add_mark(s, w->s_host,
					     ev->kind == DT_RQ_EV_MARK_SEND,
					     &m, ev->ts) == -ENOMEM)
				return -ENOMEM;
		}
	}
	for (int i = 0; i < c->n_net; i++)
		if (dt_sync_add_segment(s, w->s_host, c->net[i].send,
					&c->net[i].m, c->net[i].ts, 1) ==
		    -ENOMEM)
			return -ENOMEM;
	if (c->discarded)
		dt_sync_add_discarded(s, c->discarded);
	return 0;
}

struct mapping {
	struct dt_sync *s;
	GArray *to_sync;	/* int: builder host -> sync host */
};

static int64_t to_reference(void *data, int host, int64_t ts)
{
	struct mapping *m = data;
	int s = g_array_index(m->to_sync, int, host);

	return (int64_t)llroundl(dt_clock_map_apply(
		&dt_sync_host(m->s, s)->map, ts));
}

/* The sync's report, as the merged trace's sync.txt would say it. */
static char *report_of(const struct dt_sync *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	dt_sync_report(s, f);
	fclose(f);
	return buf;
}

/* Hosts into the builder and the sync in order of their first events
 * (as a merged trace's reader meets them), those with none last. */
static gint by_first(gconstpointer a, gconstpointer b)
{
	const struct worker *x = *(struct worker *const *)a;
	const struct worker *y = *(struct worker *const *)b;

	if (x->first_ts != y->first_ts)
		return x->first_ts < y->first_ts ? -1 : 1;
	return x->id - y->id;
}

static int register_hosts(struct hosts *r, struct dt_rq_builder *b,
			  struct dt_sync *s, GArray *to_sync, GError **error)
{
	GPtrArray *order = g_ptr_array_sized_new(r->workers->len);

	for (guint k = 0; k < r->workers->len; k++)
		g_ptr_array_add(order, r->workers->pdata[k]);
	g_ptr_array_sort(order, by_first);
	for (guint k = 0; k < order->len; k++) {
		struct worker *w = order->pdata[k];

		w->b_host = dt_rq_host(b, w->host);
		w->s_host = dt_sync_host_index(s, w->host);
		if (w->b_host < 0 || w->s_host < 0) {
			g_ptr_array_free(order, TRUE);
			dt_error_errno(error, ENOMEM, "%s", w->host);
			return -1;
		}
		g_array_set_size(to_sync, (guint)w->b_host + 1);
		g_array_index(to_sync, int, w->b_host) = w->s_host;
	}
	g_ptr_array_free(order, TRUE);
	return 0;
}

/* Its chunk taken: room for the worker's next. */
static void room(struct hosts *r, struct worker *w)
{
	g_mutex_lock(&r->lock);
	w->in_flight--;
	g_cond_broadcast(&r->room);
	g_mutex_unlock(&r->lock);
}

static void stop_all(struct hosts *r)
{
	if (g_atomic_int_get(&r->stop))
		return;
	g_atomic_int_set(&r->stop, 1);
	g_mutex_lock(&r->lock);
	g_cond_broadcast(&r->room);
	g_mutex_unlock(&r->lock);
}

/*
 * Until every worker has given its first events or ended (each holds at
 * most HOSTS_IN_FLIGHT chunks meanwhile; all run at once when there are
 * no more than HOSTS_THREADS): the hosts' order. 1 if known so.
 */
static bool wait_first(struct hosts *r)
{
	guint known = 0;

	if (r->workers->len > HOSTS_THREADS)
		return false;	/* some wait for others' end: found order */
	while (known < r->workers->len) {
		struct chunk *c = g_async_queue_pop(r->full);
		struct worker *w = r->workers->pdata[c->worker];
		bool was = w->ended || w->first_ts != INT64_MAX;

		g_queue_push_tail(&w->first, c);
		if (c->n < 0)
			w->ended = true;
		else if (c->n > 0 && w->first_ts == INT64_MAX)
			w->first_ts = c->ev[0].ts;
		known += !was && (w->ended || w->first_ts != INT64_MAX);
	}
	return true;
}

/* The caller told how far the pass is: the slowest host's time. */
static void progress(struct hosts *r)
{
	int64_t t = INT64_MAX;

	if (!r->p->progress)
		return;
	for (guint k = 0; k < r->workers->len; k++) {
		const struct worker *w = r->workers->pdata[k];

		if (!w->ended && w->last_ts < t)
			t = w->last_ts;
	}
	r->p->progress(r->p->data, r->taken, t == INT64_MAX ? 0 : t);
}

/* One chunk: ingested, or the worker's end. 0, or -1 (*error set). */
static int take_one(struct hosts *r, struct dt_rq_builder *b,
		    struct dt_sync *s, struct chunk *c, guint *done,
		    int err, GError **error)
{
	struct worker *w = r->workers->pdata[c->worker];

	if (c->n < 0) {
		(*done)++;
		w->ended = true;
		if (w->error && !(error && *error)) {
			g_propagate_error(error, w->error);
			w->error = NULL;
			err = -1;
		}
	} else if (!err && ingest(b, s, w, c)) {
		dt_error_errno(error, ENOMEM, "%s", w->host);
		err = -1;
	} else if (c->n > 0) {
		w->last_ts = c->ev[c->n - 1].ts;
		r->taken += (uint64_t)c->n;
		progress(r);
	}
	if (err)
		stop_all(r);
	if (c->n >= 0)
		room(r, w);
	g_async_queue_push(r->empty, c);
	return err;
}

/* Take the chunks until every worker has said its last word. */
static int take_all(struct hosts *r, struct dt_rq_builder *b,
		    struct dt_sync *s, GArray *to_sync, GError **error)
{
	guint done = 0;
	int err = 0;

	wait_first(r);
	if (register_hosts(r, b, s, to_sync, error)) {
		err = -1;
		stop_all(r);
	}
	for (guint k = 0; k < r->workers->len; k++) {
		struct worker *w = r->workers->pdata[k];
		struct chunk *c;

		while ((c = g_queue_pop_head(&w->first)))
			err = take_one(r, b, s, c, &done, err, error);
	}
	while (done < r->workers->len)
		err = take_one(r, b, s, g_async_queue_pop(r->full), &done,
			       err, error);
	if (!err && g_atomic_int_get(r->interrupted)) {
		g_set_error(error, DT_ERROR, DT_ERROR_INTERRUPTED,
			    "interrupted");
		err = -1;
	}
	return err;
}

static volatile gint interrupted;

void dt_rq_hosts_interrupt(void)
{
	g_atomic_int_set(&interrupted, 1);
}

int dt_rq_hosts_pass(GPtrArray *traces, struct dt_hosts_pass *p,
		     struct dt_rq_model **out, GError **error)
{
	struct hosts r = { .ctf_out = p->ctf_out, .p = p };
	struct dt_rq_builder *b = dt_rq_builder_new();
	struct dt_sync *s = dt_sync_new();
	struct mapping map = { s, g_array_new(FALSE, TRUE, sizeof(int)) };
	GThreadPool *pool = NULL;
	int ret = -1, err;

	*out = NULL;
	p->sync = NULL;
	r.workers = g_ptr_array_new_with_free_func(worker_free);
	r.full = g_async_queue_new();
	r.empty = g_async_queue_new_full(g_free);
	r.interrupted = &interrupted;
	g_mutex_init(&r.lock);
	g_cond_init(&r.room);
	g_cond_init(&r.all_created);
	if (!b || !s) {
		dt_error_errno(error, ENOMEM, "the requests");
		goto out;
	}
	if (group(&r, traces, error))
		goto out;
	/* a thread per host (up to HOSTS_THREADS): hosts of unequal size
	 * on fewer processors end together */
	pool = g_thread_pool_new(work, NULL,
				 (gint)MIN(HOSTS_THREADS,
					   MAX(r.workers->len,
					       g_get_num_processors())),
				 FALSE, NULL);
	for (guint k = 0; pool && k < r.workers->len; k++)
		g_thread_pool_push(pool, r.workers->pdata[k], NULL);
	if (!pool) {
		dt_error_errno(error, EAGAIN, "the readers' threads");
		goto out;
	}
	if (take_all(&r, b, s, map.to_sync, error))
		goto out;
	for (guint k = 0; k < r.workers->len; k++) {
		struct worker *w = r.workers->pdata[k];

		p->events += w->events;
		p->dedup_dropped += w->dedup.dropped;
	}
	err = dt_sync_solve(s, p->reference);
	if (err == -ENOENT) {
		g_set_error(error, DT_ERROR, DT_ERROR_INPUT, "clock sync "
			    "failed: no host %s in the traces", p->reference);
		goto out;
	}
	if (err) {
		dt_error_errno(error, -err, "the clock sync");
		goto out;
	}
	dt_rq_builder_map(b, to_reference, &map);
	*out = dt_rq_finish(b);
	b = NULL;
	if (!*out) {
		dt_error_errno(error, ENOMEM, "the requests");
		goto out;
	}
	(*out)->sync_report = report_of(s);
	p->sync = s;
	s = NULL;
	ret = 0;
out:
	if (pool)
		g_thread_pool_free(pool, FALSE, TRUE);
	dt_rq_builder_free(b);
	dt_sync_free(s);
	g_array_free(map.to_sync, TRUE);
	g_ptr_array_free(r.workers, TRUE);
	g_async_queue_unref(r.full);
	g_async_queue_unref(r.empty);
	g_mutex_clear(&r.lock);
	g_cond_clear(&r.room);
	g_cond_clear(&r.all_created);
	return ret;
}

int dt_rq_read_hosts(GPtrArray *traces, struct dt_rq_model **out,
		     GError **error)
{
	struct dt_hosts_pass p = { 0 };
	int r = dt_rq_hosts_pass(traces, &p, out, error);

	dt_sync_free(p.sync);
	return r;
}
