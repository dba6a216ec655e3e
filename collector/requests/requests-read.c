/*
 * Reading a merged trace into the requests builder: src.ctf.fs per trace
 * -> flt.utils.muxer -> a sink of ours that turns each event into a
 * struct dt_rq_event (requests.h). Timestamps are the traces' clocks
 * from origin: after `dtracer merge`, the aligned ones; the hosts' own
 * traces (no sync.txt) go to requests-hosts.c. Decoding one event:
 * requests-decode.c.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "error-bt.h"
#include "graph.h"
#include "marks-read.h"
#include "requests-decode.h"
#include "requests-hosts.h"

struct reader {
	struct dt_rq_builder *b;
	struct dt_msg_sink sink;
	GHashTable *hosts;	/* const bt_trace * -> host + 1 */
	GHashTable *kinds;	/* const bt_event_class * -> kind + 1 */
};

static int host_of(struct reader *r, const bt_trace *t)
{
	gpointer v = g_hash_table_lookup(r->hosts, t);
	const bt_value *hn;
	int i;

	if (v)
		return GPOINTER_TO_INT(v) - 1;
	hn = bt_trace_borrow_environment_entry_value_by_name_const(t,
								  "hostname");
	if (hn && bt_value_is_string(hn))
		i = dt_rq_host(r->b, bt_value_string_get(hn));
	else
		i = dt_rq_host(r->b, bt_trace_get_name(t) ?
				     bt_trace_get_name(t) : "?");
	if (i >= 0)
		g_hash_table_insert(r->hosts, (gpointer)t,
				    GINT_TO_POINTER(i + 1));
	return i;
}

static int add_event(struct reader *r, const bt_message *msg)
{
	const bt_event *e = bt_message_event_borrow_event_const(msg);
	const bt_trace *t = bt_stream_borrow_trace_const(
		bt_event_borrow_stream_const(e));
	struct dt_rq_event ev;
	int host = host_of(r, t);

	if (host < 0)
		return -ENOMEM;
	if (!dt_rq_decode(r->kinds, msg, &ev))
		return 0;
	ev.host = host;
	return dt_rq_add(r->b, &ev) ? -errno : 0;
}

/* The sink's function: the events, the rest ignored. */
static int add_message(void *data, const bt_message *msg)
{
	if (bt_message_get_type(msg) != BT_MESSAGE_TYPE_EVENT)
		return 0;
	return add_event(data, msg);
}

/* MERGED/ctf if there is one, else MERGED itself. */
static char *traces_dir(const char *dir)
{
	char *ctf = g_build_filename(dir, "ctf", NULL);

	if (g_file_test(ctf, G_FILE_TEST_IS_DIR))
		return ctf;
	g_free(ctf);
	return g_strdup(dir);
}

static int run(struct reader *r, GPtrArray *traces, GError **error)
{
	struct dt_classes cls;
	bt_component_class_sink *sink;
	bt_graph *g = NULL;
	int ret = -1;

	if (dt_classes_load(&cls, error))
		return -1;
	r->sink = (struct dt_msg_sink){ .fn = add_message, .data = r,
					.what = "building the requests" };
	sink = dt_msg_sink_class("dtracer-requests");
	if (sink)
		g = dt_graph_traces_data(&cls, (char *const *)traces->pdata,
					 (int)traces->len, NULL, NULL,
					 sink, NULL, &r->sink, error);
	else
		dt_error_errno(error, ENOMEM, "the requests' reader");
	if (g)
		ret = dt_graph_run(g, "reading the traces",
				   (char *const *)traces->pdata,
				   (int)traces->len, NULL, NULL, error);
	bt_graph_put_ref(g);
	bt_component_class_sink_put_ref(sink);
	dt_classes_put(&cls);
	return ret;
}

int dt_rq_read(const char *dir, struct dt_rq_model **out, GError **error)
{
	struct reader r = { 0 };
	GPtrArray *traces = g_ptr_array_new_with_free_func(g_free);
	char *tdir = traces_dir(dir), *sync = NULL, *report = NULL;
	int ret = -1;

	*out = NULL;
	if (dt_find_traces(tdir, traces, 1, error))
		goto out;
	sync = g_build_filename(dir, "sync.txt", NULL);
	if (!g_file_test(sync, G_FILE_TEST_EXISTS)) {
		/* the hosts' own traces: aligned here, side by side */
		ret = dt_rq_read_hosts(traces, out, error);
		goto out;
	}
	r.b = dt_rq_builder_new();
	r.hosts = g_hash_table_new(g_direct_hash, g_direct_equal);
	r.kinds = dt_rq_kinds_new();
	if (!r.b) {
		dt_error_errno(error, ENOMEM, "%s", dir);
		goto out;
	}
	if (run(&r, traces, error))
		goto out;
	*out = dt_rq_finish(r.b);
	r.b = NULL;
	if (!*out) {
		dt_error_errno(error, ENOMEM, "%s", dir);
		goto out;
	}
	if (g_file_get_contents(sync, &report, NULL, NULL)) {
		(*out)->sync_report = strdup(report);
		g_free(report);
	}
	ret = 0;
out:
	dt_rq_builder_free(r.b);
	if (r.hosts)
		g_hash_table_destroy(r.hosts);
	if (r.kinds)
		g_hash_table_destroy(r.kinds);
	g_ptr_array_free(traces, TRUE);
	g_free(tdir);
	g_free(sync);
	return ret;
}
