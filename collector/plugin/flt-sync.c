/*
 * flt.dtracer.sync: pass messages through, collect dtracer's marks,
 * align the clocks at the end. See flt-sync.h.
 */
#include "flt-sync.h"
#include "error-bt.h"
#include "flt-pass.h"
#include "marks-read.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

enum ev_kind { EV_OTHER = 1, EV_SEND, EV_RECV, EV_NET_SEND, EV_NET_RECV };

struct sync_comp {
	bt_self_component *self;
	bt_self_component_port_input *in;
	struct dt_flt_sync_run *run;	/* the caller's, or own */
	struct dt_flt_sync_run own;
	char *path;
	char *reference;
	GHashTable *kinds;		/* const bt_event_class * -> kind */
	GHashTable *hosts;		/* const bt_trace * -> index + 1 */
};

struct sync_iter {
	struct sync_comp *comp;
	struct dt_pass pass;
};

/* ----- parameters ----------------------------------------------------- */

static int param_string(const bt_value *params, const char *name,
			char **out, GError **error)
{
	const bt_value *v = bt_value_map_borrow_entry_value_const(params,
								  name);

	if (!v)
		return 0;
	if (!bt_value_is_string(v)) {
		g_set_error(error, DT_ERROR, DT_ERROR_INPUT,
			    "parameter `%s`: expecting a string", name);
		return -1;
	}
	*out = g_strdup(bt_value_string_get(v));
	return 0;
}

static bt_value_map_foreach_entry_const_func_status
check_name(const char *key, const bt_value *v, void *data)
{
	GError **error = data;

	(void)v;
	if (strcmp(key, "path") && strcmp(key, "reference")) {
		g_set_error(error, DT_ERROR, DT_ERROR_INPUT,
			    "unknown parameter `%s` (known: path, reference)",
			    key);
		return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_ERROR;
	}
	return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_OK;
}

/* Unknown names are errors: a typo must not be silently ignored. */
static int check_params(struct sync_comp *c, const bt_value *params,
			GError **error)
{
	if (!bt_value_is_map(params)) {
		g_set_error(error, DT_ERROR, DT_ERROR_INPUT,
			    "parameters must be a map");
		return -1;
	}
	if (bt_value_map_foreach_entry_const(params, check_name, error)) {
		/* babeltrace2 noted the stop of the loop: ours says why */
		bt_current_thread_clear_error();
		return -1;
	}
	if (param_string(params, "path", &c->path, error) ||
	    param_string(params, "reference", &c->reference, error))
		return -1;
	return 0;
}

/* ----- component ------------------------------------------------------ */

static void comp_free(struct sync_comp *c)
{
	if (!c)
		return;
	if (c->own.sync)
		dt_sync_free(c->own.sync);
	if (c->kinds)
		g_hash_table_destroy(c->kinds);
	if (c->hosts)
		g_hash_table_destroy(c->hosts);
	g_free(c->path);
	g_free(c->reference);
	g_free(c);
}

bt_component_class_initialize_method_status
dt_flt_sync_init(bt_self_component_filter *self,
		 bt_self_component_filter_configuration *config,
		 const bt_value *params, void *init_data)
{
	struct sync_comp *c = g_new0(struct sync_comp, 1);
	bt_component_class_initialize_method_status st;
	GError *e = NULL;

	(void)config;
	c->self = bt_self_component_filter_as_self_component(self);
	c->kinds = g_hash_table_new(g_direct_hash, g_direct_equal);
	c->hosts = g_hash_table_new(g_direct_hash, g_direct_equal);
	if (check_params(c, params, &e)) {
		dt_error_to_component(c->self, e);
		g_error_free(e);
		comp_free(c);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	if (init_data) {
		c->run = init_data;
	} else {
		c->own.sync = dt_sync_new();
		c->run = &c->own;
	}
	st = dt_pass_add_ports(self, &c->in);
	if (st != BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK) {
		comp_free(c);
		return st;
	}
	bt_self_component_set_data(c->self, c);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void dt_flt_sync_finalize(bt_self_component_filter *self)
{
	comp_free(bt_self_component_get_data(
		bt_self_component_filter_as_self_component(self)));
}

/* ----- reading dtracer's events --------------------------------------- */

static enum ev_kind kind_of(struct sync_comp *c, const bt_event_class *ec)
{
	gpointer v = g_hash_table_lookup(c->kinds, ec);
	const char *name;
	enum ev_kind k = EV_OTHER;

	if (v)
		return GPOINTER_TO_INT(v);
	name = bt_event_class_get_name(ec);
	if (name && !strcmp(name, "dtracer_mark_send"))
		k = EV_SEND;
	else if (name && !strcmp(name, "dtracer_mark_recv"))
		k = EV_RECV;
	else if (name && !strcmp(name, "net_dev_queue"))
		k = EV_NET_SEND;
	else if (name && !strcmp(name, "net_if_receive_skb"))
		k = EV_NET_RECV;
	g_hash_table_insert(c->kinds, (gpointer)ec,
			    GINT_TO_POINTER(k));
	return k;
}

/* The host a trace comes from: its `hostname` environment entry. */
static int host_of(struct sync_comp *c, const bt_trace *trace)
{
	gpointer v = g_hash_table_lookup(c->hosts, trace);
	const char *host = dt_trace_host(trace);
	char *name;
	int i;

	if (v)
		return GPOINTER_TO_INT(v) - 1;
	name = host ? g_strdup(host) :
	       g_strdup_printf("trace-%u", g_hash_table_size(c->hosts));
	i = dt_sync_host_index(c->run->sync, name);
	g_free(name);
	if (i >= 0)
		g_hash_table_insert(c->hosts, (gpointer)trace,
				    GINT_TO_POINTER(i + 1));
	return i;
}

/* 0 if the payload is a mark dtracer recorded, -1 if malformed. */
static int read_mark(const bt_event *ev, struct dt_mark *m)
{
	struct dt_flow f;

	memset(m, 0, sizeof(*m));
	if (dt_read_mark(bt_event_borrow_payload_field_const(ev), &f,
			 &m->alen, &m->seq, &m->end_seq))
		return -1;
	m->family = f.family;
	memcpy(m->saddr, f.saddr, sizeof(m->saddr));
	memcpy(m->daddr, f.daddr, sizeof(m->daddr));
	m->sport = f.sport;
	m->dport = f.dport;
	return 0;
}

static int nomem(GError **error)
{
	dt_error_errno(error, ENOMEM, "flt.dtracer.sync");
	return -1;
}

/* Look at one message on its way through: 0, or -1 with *error set. */
static int inspect(struct sync_comp *c, const bt_message *msg,
		   GError **error)
{
	const bt_event *ev;
	const bt_clock_snapshot *cs;
	struct dt_mark m;
	int64_t ns;
	enum ev_kind k;
	int host;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		/* every host is known, those without a segment too */
		host = host_of(c, bt_stream_borrow_trace_const(
			bt_message_stream_beginning_borrow_stream_const(msg)));
		return host < 0 ? nomem(error) : 0;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS: {
		uint64_t n;

		/* shown beside marked receives that lost their send */
		if (bt_message_discarded_events_get_count(msg, &n) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE)
			dt_sync_add_discarded(c->run->sync, n);
		return 0;
	}
	case BT_MESSAGE_TYPE_EVENT:
		break;
	default:
		return 0;
	}
	if (!bt_message_event_borrow_stream_class_default_clock_class_const(msg))
		return 0;
	cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
	if (bt_clock_snapshot_get_ns_from_origin(cs, &ns))
		return 0;
	c->run->last_ns = ns;
	c->run->events++;
	ev = bt_message_event_borrow_event_const(msg);
	k = kind_of(c, bt_event_borrow_class_const(ev));
	if (k == EV_OTHER)
		return 0;
	host = host_of(c, bt_stream_borrow_trace_const(
				  bt_event_borrow_stream_const(ev)));
	if (host < 0)
		return nomem(error);
	if (k == EV_NET_SEND || k == EV_NET_RECV) {
		/* not every packet is a TCP segment: others are just skipped */
		if (dt_read_net(bt_event_borrow_payload_field_const(ev), &m))
			return 0;
		if (dt_sync_add_segment(c->run->sync, host, k == EV_NET_SEND,
					&m, ns, 1) == -ENOMEM)
			return nomem(error);
		return 0;
	}
	if (read_mark(ev, &m)) {
		g_set_error(error, DT_ERROR, DT_ERROR_INPUT,
			    "%s event with unexpected fields (not dtracer's "
			    "probe of this version?)",
			    bt_event_class_get_name(bt_event_borrow_class_const(ev)));
		return -1;
	}
	if (dt_sync_add_mark(c->run->sync, host, k == EV_SEND, &m, ns) ==
	    -ENOMEM)
		return nomem(error);
	return 0;
}

/* Write the report where the parameter `path` says. 0, or -1. */
static int write_report(struct sync_comp *c, GError **error)
{
	FILE *f = c->path ? fopen(c->path, "w") : stdout;

	if (!f) {
		dt_error_errno(error, errno, "cannot write the report to `%s`",
			       c->path);
		return -1;
	}
	dt_sync_report(c->run->sync, f);
	if ((c->path ? fclose(f) : fflush(f)) != 0) {
		dt_error_errno(error, errno ? errno : EIO,
			       "cannot write the report to `%s`",
			       c->path ? c->path : "standard output");
		return -1;
	}
	return 0;
}

/*
 * End of the input: solve once, report unless the caller takes it. 0,
 * or -1 with *error set (the caller's run->solved says the sync failed).
 */
static int finish(struct sync_comp *c, GError **error)
{
	const char *ref = c->run->reference ? c->run->reference : c->reference;
	int err;

	if (c->run->solved) {
		if (c->run->solved > 0)
			return 0;
		g_set_error(error, DT_ERROR, DT_ERROR_FAILED,
			    "dtracer clock sync failed: %s",
			    g_strerror(-c->run->solved));
		return -1;
	}
	err = dt_sync_solve(c->run->sync, ref);
	c->run->solved = err ? err : 1;
	if (err == -ENOENT) {
		g_set_error(error, DT_ERROR, DT_ERROR_NOTFOUND,
			    "reference host `%s` is not in the traces", ref);
		return -1;
	}
	if (err) {
		g_set_error(error, DT_ERROR, err == -ENOMEM ? DT_ERROR_NOMEM :
			    DT_ERROR_FAILED, "dtracer clock sync failed: %s",
			    g_strerror(-err));
		return -1;
	}
	return c->run == &c->own ? write_report(c, error) : 0;
}

/* ----- message iterator ----------------------------------------------- */

bt_message_iterator_class_initialize_method_status
dt_flt_sync_iter_init(bt_self_message_iterator *self,
		      bt_self_message_iterator_configuration *config,
		      bt_self_component_port_output *port)
{
	struct sync_comp *c = bt_self_component_get_data(
		bt_self_message_iterator_borrow_component(self));
	struct sync_iter *it = g_new0(struct sync_iter, 1);
	bt_message_iterator_class_initialize_method_status st;

	(void)port;
	it->comp = c;
	st = dt_pass_init(&it->pass, self, config, c->in);
	if (st != BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK) {
		g_free(it);
		return st;
	}
	bt_self_message_iterator_set_data(self, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void dt_flt_sync_iter_finalize(bt_self_message_iterator *self)
{
	struct sync_iter *it = bt_self_message_iterator_get_data(self);

	dt_pass_fini(&it->pass);
	g_free(it);
}

bt_message_iterator_class_next_method_status
dt_flt_sync_iter_next(bt_self_message_iterator *self,
		      bt_message_array_const msgs, uint64_t capacity,
		      uint64_t *count)
{
	struct sync_iter *it = bt_self_message_iterator_get_data(self);
	struct dt_pass *p = &it->pass;
	bt_message_iterator_class_next_method_status st = dt_pass_fill(p);
	GError *e = NULL;
	uint64_t n = 0;

	if (st == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END &&
	    finish(it->comp, &e))
		return dt_pass_fail(self, e);
	if (st != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK)
		return st;
	while (n < capacity && p->pos < p->count) {
		const bt_message *m = p->pending[p->pos];

		if (inspect(it->comp, m, &e)) {
			while (n > 0)
				bt_message_put_ref(msgs[--n]);
			return dt_pass_fail(self, e);
		}
		msgs[n++] = m;	/* the reference moves downstream */
		p->pos++;
	}
	*count = n;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

const bt_component_class_filter *dt_flt_sync_class(void)
{
	return dt_pass_class("sync", dt_flt_sync_init, dt_flt_sync_finalize,
			     dt_flt_sync_iter_init, dt_flt_sync_iter_finalize,
			     dt_flt_sync_iter_next);
}
