/*
 * babeltrace2 graph helpers. See graph.h.
 */
#define _XOPEN_SOURCE 700
#include "graph.h"

#include <errno.h>
#include <ftw.h>
#include <sys/stat.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "ctf-check.h"
#include "error-bt.h"

static bt_interrupter *volatile running;

/*
 * babeltrace2 2.0's src.ctf.fs asserts on some corrupt stream files (a
 * packet size above 2^63 aborts in msg-iter.c) instead of returning an
 * error. The assertion is printed first; then this says what it means,
 * and which trace was being opened if one was, and the command exits 1
 * (after its cleanup: merge's partial output) instead of dumping core.
 */
static __thread const char *volatile opening;	/* the trace being
							 * opened (per thread:
							 * requests-hosts.c) */
static void (*volatile abort_cleanup)(void);

static void on_abort(int sig)
{
	static const char head[] = "dtracer: babeltrace2 stopped on an "
		"internal check (above) while reading ";
	static const char tail[] = ": a corrupt stream file\n";
	static volatile sig_atomic_t once;
	const char *t = opening ? opening : "the traces";

	(void)sig;
	if (__sync_lock_test_and_set(&once, 1))	/* another thread too */
		for (;;)
			pause();
	if (abort_cleanup)
		abort_cleanup();
	if (write(STDERR_FILENO, head, sizeof(head) - 1) < 0 ||
	    write(STDERR_FILENO, t, strlen(t)) < 0 ||
	    write(STDERR_FILENO, tail, sizeof(tail) - 1) < 0)
		_exit(1);
	_exit(1);
}

void dt_graph_on_abort(void (*cleanup)(void))
{
	abort_cleanup = cleanup;
}

static const bt_plugin *find_plugin(const char *name, GError **error)
{
	const bt_plugin *p = NULL;

	if (error && *error)
		return NULL;
	if (bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE,
			   &p) != BT_PLUGIN_FIND_STATUS_OK) {
		bt_current_thread_clear_error();
		g_set_error(error, DT_ERROR, DT_ERROR_NOTFOUND,
			    "babeltrace2's `%s` plugin not found (Debian "
			    "package: babeltrace2)", name);
		return NULL;
	}
	return p;
}

int dt_classes_load(struct dt_classes *c, GError **error)
{
	GError *e = NULL;

	struct sigaction sa = { .sa_handler = on_abort };

	sigaction(SIGABRT, &sa, NULL);
	memset(c, 0, sizeof(*c));
	c->ctf = find_plugin("ctf", &e);
	c->utils = find_plugin("utils", &e);
	c->text = find_plugin("text", &e);
	if (e) {
		g_propagate_error(error, e);
		return -1;
	}
	c->src_ctf_fs = bt_plugin_borrow_source_component_class_by_name_const(
		c->ctf, "fs");
	c->src_lttng_live =
		bt_plugin_borrow_source_component_class_by_name_const(
			c->ctf, "lttng-live");
	c->sink_ctf_fs = bt_plugin_borrow_sink_component_class_by_name_const(
		c->ctf, "fs");
	c->muxer = bt_plugin_borrow_filter_component_class_by_name_const(
		c->utils, "muxer");
	c->dummy = bt_plugin_borrow_sink_component_class_by_name_const(
		c->utils, "dummy");
	c->pretty = bt_plugin_borrow_sink_component_class_by_name_const(
		c->text, "pretty");
	c->dedup = dt_flt_dedup_class();
	if (!c->dedup) {
		dt_error_errno(error, ENOMEM, "flt.dtracer.dedup");
		return -1;
	}
	if (!c->src_ctf_fs || !c->sink_ctf_fs || !c->muxer || !c->dummy ||
	    !c->pretty) {
		g_set_error(error, DT_ERROR, DT_ERROR_NOTFOUND,
			    "babeltrace2's plugins lack a component class "
			    "(src.ctf.fs, sink.ctf.fs, flt.utils.muxer, "
			    "sink.utils.dummy, sink.text.pretty)");
		return -1;
	}
	return 0;
}

void dt_classes_put(struct dt_classes *c)
{
	bt_plugin_put_ref(c->ctf);
	bt_plugin_put_ref(c->utils);
	bt_plugin_put_ref(c->text);
	bt_component_class_filter_put_ref(c->dedup);
	memset(c, 0, sizeof(*c));
}

static bt_value *inputs_param(const char *dir)
{
	bt_value *params = bt_value_map_create();
	bt_value *inputs = NULL;

	if (!params ||
	    bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, dir)) {
		bt_value_put_ref(params);
		return NULL;
	}
	return params;
}

/* Connect every output port of a source to a new input port of the muxer. */
static int connect_source(bt_graph *g, const bt_component_source *src,
			  const bt_component_filter *mux)
{
	uint64_t n = bt_component_source_get_output_port_count(src);

	for (uint64_t i = 0; i < n; i++) {
		const bt_port_output *out =
			bt_component_source_borrow_output_port_by_index_const(
				src, i);
		uint64_t k = bt_component_filter_get_input_port_count(mux);
		const bt_port_input *in =
			bt_component_filter_borrow_input_port_by_index_const(
				mux, k - 1);

		if (bt_graph_connect_ports(g, out, in, NULL))
			return -1;
	}
	return 0;
}

static const bt_port_output *filter_out(const bt_component_filter *f)
{
	return bt_component_filter_borrow_output_port_by_index_const(f, 0);
}

bt_graph *dt_graph_traces(const struct dt_classes *c, char *const *traces,
			  int n, const bt_component_class_filter *filter,
			  void *filter_data, const bt_component_class_sink *sink,
			  const bt_value *sink_params, GError **error)
{
	return dt_graph_traces_data(c, traces, n, filter, filter_data, sink,
				    sink_params, NULL, error);
}

bt_graph *dt_graph_traces_data(const struct dt_classes *c,
			       char *const *traces, int n,
			       const bt_component_class_filter *filter,
			       void *filter_data,
			       const bt_component_class_sink *sink,
			       const bt_value *sink_params, void *sink_data,
			       GError **error)
{
	bt_graph *g = bt_graph_create(0);
	const bt_component_filter *mux, *dedup, *flt = NULL;
	const bt_component_sink *snk;
	const bt_port_output *last;
	const char *bad = NULL;

	if (!g)
		goto error;
	if (bt_graph_add_filter_component(g, c->muxer, "muxer", NULL,
					  BT_LOGGING_LEVEL_NONE, &mux))
		goto error;
	for (int i = 0; i < n; i++) {
		const bt_component_source *src;
		bt_value *params = inputs_param(traces[i]);
		char name[32];
		int err;

		if (!params)
			goto error;
		snprintf(name, sizeof(name), "trace-%d", i);
		opening = traces[i];
		err = bt_graph_add_source_component(g, c->src_ctf_fs, name,
						    params,
						    BT_LOGGING_LEVEL_NONE,
						    &src) ||
		      connect_source(g, src, mux);
		opening = NULL;
		bt_value_put_ref(params);
		if (err) {
			bad = traces[i];
			goto error;
		}
	}
	if (bt_graph_add_filter_component_with_initialize_method_data(g,
			c->dedup, "dedup", NULL, c->dedup_run,
			BT_LOGGING_LEVEL_NONE, &dedup) ||
	    bt_graph_connect_ports(g, filter_out(mux),
		bt_component_filter_borrow_input_port_by_index_const(dedup, 0),
		NULL))
		goto error;
	last = filter_out(dedup);
	if (filter) {
		if (bt_graph_add_filter_component_with_initialize_method_data(
			    g, filter, "sync", NULL, filter_data,
			    BT_LOGGING_LEVEL_NONE, &flt) ||
		    bt_graph_connect_ports(g, last,
			bt_component_filter_borrow_input_port_by_index_const(
				flt, 0), NULL))
			goto error;
		last = filter_out(flt);
	}
	if (bt_graph_add_sink_component_with_initialize_method_data(g, sink,
			"sink", sink_params, sink_data, BT_LOGGING_LEVEL_NONE,
			&snk) ||
	    bt_graph_connect_ports(g, last,
		bt_component_sink_borrow_input_port_by_index_const(snk, 0),
		NULL))
		goto error;
	return g;
error:
	bt_graph_put_ref(g);
	dt_error_take_bt(error, DT_ERROR_INPUT, "cannot read %s",
			 bad ? bad : "the traces");
	return NULL;
}

void dt_graph_interrupt(void)
{
	bt_interrupter *i = running;

	if (i)
		bt_interrupter_set(i);
}

/*
 * The trace (one of traces[0..n), as given to dt_graph_traces) whose
 * source component the current thread's error comes from, or NULL. The
 * error stays current.
 */
static const char *error_trace(char *const *traces, int n)
{
	const bt_error *err = bt_current_thread_take_error();
	const char *found = NULL;

	if (!err)
		return NULL;
	for (uint64_t i = 0; !found && i < bt_error_get_cause_count(err); i++) {
		const bt_error_cause *c = bt_error_borrow_cause_by_index(err, i);
		const char *name = NULL;
		int k;

		switch (bt_error_cause_get_actor_type(c)) {
		case BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT:
			name = bt_error_cause_component_actor_get_component_name(c);
			break;
		case BT_ERROR_CAUSE_ACTOR_TYPE_MESSAGE_ITERATOR:
			name = bt_error_cause_message_iterator_actor_get_component_name(c);
			break;
		default:
			break;
		}
		if (name && sscanf(name, "trace-%d", &k) == 1 && k >= 0 &&
		    k < n)
			found = traces[k];
	}
	bt_current_thread_move_error(err);
	return found;
}

static int run_failed(const char *what, char *const *traces, int n,
		      int interrupted, GError **error)
{
	const char *bad;

	if (interrupted) {
		bt_current_thread_clear_error();
		g_set_error(error, DT_ERROR, DT_ERROR_INTERRUPTED,
			    "interrupted");
		return -1;
	}
	bad = error_trace(traces, n);
	if (bad)
		dt_error_take_bt(error, DT_ERROR_INPUT, "%s failed: cannot "
				 "read %s", what, bad);
	else
		dt_error_take_bt(error, DT_ERROR_FAILED, "%s failed", what);
	return -1;
}

int dt_graph_run(bt_graph *g, const char *what, char *const *traces, int n,
		 void (*progress)(void *), void *data, GError **error)
{
	bt_interrupter *intr = bt_interrupter_create();
	int ret = -1, interrupted = 0;

	if (!intr || bt_graph_add_interrupter(g, intr)) {
		bt_interrupter_put_ref(intr);
		return run_failed(what, traces, n, 0, error);
	}
	running = intr;
	for (;;) {
		bt_graph_run_once_status st = bt_graph_run_once(g);

		if (progress)
			progress(data);
		if (st == BT_GRAPH_RUN_ONCE_STATUS_END) {
			ret = 0;
			break;
		}
		if (bt_interrupter_is_set(intr)) {
			interrupted = 1;
			break;
		}
		if (st == BT_GRAPH_RUN_ONCE_STATUS_AGAIN)
			g_usleep(1000);
		else if (st != BT_GRAPH_RUN_ONCE_STATUS_OK)
			break;
	}
	running = NULL;
	bt_interrupter_put_ref(intr);
	return ret ? run_failed(what, traces, n, interrupted, error) : 0;
}

/* babeltrace.trace-infos: streams' range-ns {begin, end}. */
static void range_of(const bt_value *infos, int64_t *begin, int64_t *end)
{
	for (uint64_t i = 0; i < bt_value_array_get_length(infos); i++) {
		const bt_value *t =
			bt_value_array_borrow_element_by_index_const(infos, i);
		const bt_value *streams =
			bt_value_map_borrow_entry_value_const(t, "stream-infos");

		for (uint64_t j = 0; streams && j <
		     bt_value_array_get_length(streams); j++) {
			const bt_value *s =
				bt_value_array_borrow_element_by_index_const(
					streams, j);
			const bt_value *r =
				bt_value_map_borrow_entry_value_const(s,
								      "range-ns");
			const bt_value *b = r ?
				bt_value_map_borrow_entry_value_const(r, "begin") :
				NULL;
			const bt_value *e = r ?
				bt_value_map_borrow_entry_value_const(r, "end") :
				NULL;

			if (b && bt_value_is_signed_integer(b) &&
			    bt_value_integer_signed_get(b) < *begin)
				*begin = bt_value_integer_signed_get(b);
			if (e && bt_value_is_signed_integer(e) &&
			    bt_value_integer_signed_get(e) > *end)
				*end = bt_value_integer_signed_get(e);
		}
	}
}

int dt_traces_range(const struct dt_classes *c, char *const *traces, int n,
		    int64_t *begin, int64_t *end)
{
	*begin = INT64_MAX;
	*end = INT64_MIN;
	for (int i = 0; i < n; i++) {
		bt_value *params = inputs_param(traces[i]);
		bt_query_executor *q = params ? bt_query_executor_create(
			bt_component_class_source_as_component_class_const(
				c->src_ctf_fs),
			"babeltrace.trace-infos", params) : NULL;
		const bt_value *res = NULL;

		if (q && bt_query_executor_query(q, &res) ==
			 BT_QUERY_EXECUTOR_QUERY_STATUS_OK)
			range_of(res, begin, end);
		else
			bt_current_thread_clear_error();
		bt_value_put_ref(res);
		bt_query_executor_put_ref(q);
		bt_value_put_ref(params);
	}
	return *begin < *end ? 0 : -1;
}

/* ----- finding traces ------------------------------------------------- */

static GPtrArray *found;	/* nftw has no data argument */

static int find_entry(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	if (flag == FTW_F && S_ISREG(st->st_mode) &&
	    !strcmp(path + ftw->base, "metadata"))
		g_ptr_array_add(found, g_path_get_dirname(path));
	return 0;
}

static int check_traces(GPtrArray *traces, guint from, GError **error)
{
	for (guint i = from; i < traces->len; i++) {
		char *md = g_build_filename(traces->pdata[i], "metadata", NULL);
		int bad = dt_ctf_check_metadata(md, error);

		g_free(md);
		if (bad)
			return -1;
	}
	return 0;
}

int dt_find_traces(const char *dir, GPtrArray *traces, int check,
		   GError **error)
{
	struct stat st;
	guint before = traces->len;

	if (stat(dir, &st)) {
		dt_error_errno(error, errno, "%s", dir);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		g_set_error(error, DT_ERROR, DT_ERROR_INPUT, "%s: not a "
			    "directory (give the directories holding the "
			    "traces)", dir);
		return -1;
	}
	found = traces;
	if (nftw(dir, find_entry, 16, FTW_PHYS)) {
		dt_error_errno(error, errno, "%s", dir);
		return -1;
	}
	if (traces->len == before) {
		g_set_error(error, DT_ERROR, DT_ERROR_INPUT, "%s: no CTF trace "
			    "there (no `metadata` file under it)", dir);
		return -1;
	}
	return check ? check_traces(traces, before, error) : 0;
}

static bt_component_class_sink_consume_method_status
msg_sink_consume(bt_self_component_sink *self)
{
	struct dt_msg_sink *k = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));
	bt_message_array_const msgs;
	uint64_t n;
	int err = 0;

	switch (bt_message_iterator_next(k->it, &msgs, &n)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	default:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < n; i++) {
		if (!err)
			err = k->fn(k->data, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	if (err) {
		GError *e = NULL;

		dt_error_errno(&e, -err, "%s", k->what);
		dt_error_to_component(
			bt_self_component_sink_as_self_component(self), e);
		g_error_free(e);
		return err == -ENOMEM ?
		       BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR :
		       BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
}

static bt_component_class_initialize_method_status
msg_sink_init(bt_self_component_sink *self,
	      bt_self_component_sink_configuration *cfg,
	      const bt_value *params, void *data)
{
	(void)cfg;
	(void)params;
	bt_self_component_set_data(
		bt_self_component_sink_as_self_component(self), data);
	if (bt_self_component_sink_add_input_port(self, "in", NULL, NULL))
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static bt_component_class_sink_graph_is_configured_method_status
msg_sink_configured(bt_self_component_sink *self)
{
	struct dt_msg_sink *k = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));
	bt_self_component_port_input *in =
		bt_self_component_sink_borrow_input_port_by_name(self, "in");

	if (bt_message_iterator_create_from_sink_component(self, in, &k->it))
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

static void msg_sink_finalize(bt_self_component_sink *self)
{
	struct dt_msg_sink *k = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));

	bt_message_iterator_put_ref(k->it);
	k->it = NULL;
}

bt_component_class_sink *dt_msg_sink_class(const char *name)
{
	bt_component_class_sink *c =
		bt_component_class_sink_create(name, msg_sink_consume);

	if (!c)
		return NULL;
	if (bt_component_class_sink_set_initialize_method(c, msg_sink_init) ||
	    bt_component_class_sink_set_graph_is_configured_method(
		    c, msg_sink_configured) ||
	    bt_component_class_sink_set_finalize_method(c, msg_sink_finalize)) {
		bt_component_class_sink_put_ref(c);
		return NULL;
	}
	return c;
}
