/*
 * flt.dtracer.sync: pass messages through, collect dtracer's marks,
 * align the clocks at the end. See flt-sync.h.
 */
#include "flt-sync.h"
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
	bt_message_iterator *up;
	bt_message_array_const pending;	/* upstream batch not yet passed */
	uint64_t pending_count, pending_pos;
	int ended;
};

/* ----- parameters ----------------------------------------------------- */

static int param_string(struct sync_comp *c, const bt_value *params,
			const char *name, char **out)
{
	const bt_value *v = bt_value_map_borrow_entry_value_const(params,
								  name);

	if (!v)
		return 0;
	if (!bt_value_is_string(v)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(c->self,
			"parameter `%s`: expecting a string", name);
		return -1;
	}
	*out = g_strdup(bt_value_string_get(v));
	return 0;
}

static bt_value_map_foreach_entry_const_func_status
check_name(const char *key, const bt_value *v, void *data)
{
	struct sync_comp *c = data;

	(void)v;
	if (strcmp(key, "path") && strcmp(key, "reference")) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(c->self,
			"unknown parameter `%s` (known: path, reference)", key);
		return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_ERROR;
	}
	return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_OK;
}

/* Unknown names are errors: a typo must not be silently ignored. */
static int check_params(struct sync_comp *c, const bt_value *params)
{
	if (!bt_value_is_map(params)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(c->self,
			"parameters must be a map");
		return -1;
	}
	if (bt_value_map_foreach_entry_const(params, check_name, c))
		return -1;
	if (param_string(c, params, "path", &c->path) ||
	    param_string(c, params, "reference", &c->reference))
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

	(void)config;
	c->self = bt_self_component_filter_as_self_component(self);
	c->kinds = g_hash_table_new(g_direct_hash, g_direct_equal);
	c->hosts = g_hash_table_new(g_direct_hash, g_direct_equal);
	if (check_params(c, params))
		goto error;
	if (init_data) {
		c->run = init_data;
	} else {
		c->own.sync = dt_sync_new();
		c->run = &c->own;
	}
	if (bt_self_component_filter_add_input_port(self, "in", NULL,
						    &c->in) ||
	    bt_self_component_filter_add_output_port(self, "out", NULL, NULL))
		goto error;
	bt_self_component_set_data(c->self, c);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
error:
	comp_free(c);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
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
	const bt_value *hn;
	char *name;
	int i;

	if (v)
		return GPOINTER_TO_INT(v) - 1;
	hn = bt_trace_borrow_environment_entry_value_by_name_const(trace,
								  "hostname");
	if (hn && bt_value_is_string(hn))
		name = g_strdup(bt_value_string_get(hn));
	else if (bt_trace_get_name(trace))
		name = g_strdup(bt_trace_get_name(trace));
	else
		name = g_strdup_printf("trace-%u",
				       g_hash_table_size(c->hosts));
	i = dt_sync_host_index(c->run->sync, name);
	g_free(name);
	if (i >= 0)
		g_hash_table_insert(c->hosts, (gpointer)trace,
				    GINT_TO_POINTER(i + 1));
	return i;
}

static int uint_member(const bt_field *s, const char *name, uint64_t *v)
{
	int64_t x;

	if (dt_field_int(s, name, &x))
		return -1;
	*v = (uint64_t)x;
	return 0;
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

/* The selected option of a variant member, if s has one of that name. */
static const bt_field *option(const bt_field *s, const char *name)
{
	const bt_field *v = dt_field_member(s, name);

	if (!v || !bt_field_class_type_is(bt_field_get_class_type(v),
					  BT_FIELD_CLASS_TYPE_VARIANT))
		return NULL;
	return bt_field_variant_borrow_selected_option_field_const(v);
}

/* IPv6 addresses: eight big-endian 16-bit words. */
static int addr6_member(const bt_field *s, const char *name, uint8_t *out)
{
	const bt_field *f = dt_field_member(s, name);

	if (!f || !bt_field_class_type_is(bt_field_get_class_type(f),
					  BT_FIELD_CLASS_TYPE_ARRAY) ||
	    bt_field_array_get_length(f) != 8)
		return -1;
	for (uint64_t i = 0; i < 8; i++) {
		uint64_t w = bt_field_integer_unsigned_get_value(
			bt_field_array_borrow_element_field_by_index_const(f, i));

		out[2 * i] = (uint8_t)(w >> 8);
		out[2 * i + 1] = (uint8_t)w;
	}
	return 0;
}

/*
 * LTTng's net_dev_queue / net_if_receive_skb with their network and
 * transport headers: a TCP segment's addresses, ports and sequence range
 * (payload, plus one for SYN and one for FIN). 0, or -1 if the event is
 * not a TCP segment over IPv4 or IPv6 (without extension headers).
 */
static int read_net(const bt_event *ev, struct dt_mark *m)
{
	const bt_field *p = bt_event_borrow_payload_field_const(ev);
	const bt_field *ip = option(p, "network_header"), *tcp;
	uint64_t tot, ihl = 0, proto, doff, flags, sport, dport, seq;
	int64_t len;

	memset(m, 0, sizeof(*m));
	if (!ip)
		return -1;
	tcp = option(ip, "transport_header");
	if (!tcp || uint_member(tcp, "data_offset", &doff) ||
	    uint_member(tcp, "flags", &flags) ||
	    uint_member(tcp, "source_port", &sport) ||
	    uint_member(tcp, "dest_port", &dport) ||
	    uint_member(tcp, "seq", &seq))
		return -1;
	if (!uint_member(ip, "tot_len", &tot)) {
		uint64_t slen = 0, dlen = 0;

		if (uint_member(ip, "ihl", &ihl) ||
		    dt_field_addr(ip, "saddr", m->saddr, &slen) ||
		    dt_field_addr(ip, "daddr", m->daddr, &dlen) ||
		    slen != 4 || dlen != 4)
			return -1;
		m->family = 2;		/* AF_INET */
		m->alen = 4;
		len = (int64_t)tot - 4 * (int64_t)ihl - 4 * (int64_t)doff;
	} else if (!uint_member(ip, "payload_len", &tot) &&
		   !uint_member(ip, "nexthdr", &proto) && proto == 6 &&
		   !addr6_member(ip, "saddr", m->saddr) &&
		   !addr6_member(ip, "daddr", m->daddr)) {
		m->family = 10;		/* AF_INET6 */
		m->alen = 16;
		len = (int64_t)tot - 4 * (int64_t)doff;
	} else {
		return -1;
	}
	if (len < 0)
		return -1;
	len += !!(flags & 0x002) + !!(flags & 0x001);	/* SYN, FIN */
	m->sport = (uint16_t)sport;
	m->dport = (uint16_t)dport;
	m->seq = (uint32_t)seq;
	m->end_seq = (uint32_t)(seq + (uint64_t)len);
	return 0;
}

/* Look at one message on its way through: 0, or -errno. */
static int inspect(struct sync_comp *c, const bt_message *msg)
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
		return host < 0 ? -ENOMEM : 0;
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
		return -ENOMEM;
	if (k == EV_NET_SEND || k == EV_NET_RECV) {
		/* not every packet is a TCP segment: others are just skipped */
		if (read_net(ev, &m))
			return 0;
		return dt_sync_add_segment(c->run->sync, host,
					   k == EV_NET_SEND, &m, ns, 1);
	}
	if (read_mark(ev, &m)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(c->self,
			"%s event with unexpected fields (not dtracer's probe of this version?)",
			bt_event_class_get_name(bt_event_borrow_class_const(ev)));
		return -EINVAL;
	}
	if (dt_sync_add_mark(c->run->sync, host, k == EV_SEND, &m, ns) ==
	    -ENOMEM)
		return -ENOMEM;
	return 0;
}

/* End of the input: solve once, report unless the caller takes it. */
static int finish(struct sync_comp *c)
{
	const char *ref = c->run->reference ? c->run->reference : c->reference;
	FILE *f;
	int err;

	if (c->run->solved)
		return c->run->solved < 0 ? c->run->solved : 0;
	err = dt_sync_solve(c->run->sync, ref);
	c->run->solved = err ? err : 1;
	if (err == -ENOENT) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(c->self,
			"reference host `%s` is not in the traces", ref);
		return err;
	}
	if (err || c->run != &c->own)
		return err;
	f = c->path ? fopen(c->path, "w") : stdout;
	if (!f) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(c->self,
			"cannot write the report to `%s`: %s", c->path,
			strerror(errno));
		return -errno;
	}
	dt_sync_report(c->run->sync, f);
	if ((c->path ? fclose(f) : fflush(f)) != 0) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(c->self,
			"cannot write the report to `%s`",
			c->path ? c->path : "standard output");
		return -EIO;
	}
	return 0;
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

	(void)port;
	it->comp = c;
	if (bt_message_iterator_create_from_message_iterator(self, c->in,
							     &it->up)) {
		g_free(it);
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	bt_self_message_iterator_configuration_set_can_seek_forward(config,
		bt_message_iterator_can_seek_forward(it->up));
	bt_self_message_iterator_set_data(self, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void dt_flt_sync_iter_finalize(bt_self_message_iterator *self)
{
	struct sync_iter *it = bt_self_message_iterator_get_data(self);

	while (it->pending_pos < it->pending_count)
		bt_message_put_ref(it->pending[it->pending_pos++]);
	bt_message_iterator_put_ref(it->up);
	g_free(it);
}

static bt_message_iterator_class_next_method_status
next_error(bt_self_message_iterator *self, int err)
{
	if (err == -ENOMEM)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
	if (err == -ENOENT)	/* finish() said which reference */
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self,
		"dtracer clock sync failed: %s", strerror(-err));
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
}

bt_message_iterator_class_next_method_status
dt_flt_sync_iter_next(bt_self_message_iterator *self,
		      bt_message_array_const msgs, uint64_t capacity,
		      uint64_t *count)
{
	struct sync_iter *it = bt_self_message_iterator_get_data(self);
	uint64_t n = 0;
	int err;

	if (it->pending_pos >= it->pending_count && !it->ended) {
		switch (bt_message_iterator_next(it->up, &it->pending,
						 &it->pending_count)) {
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
			it->pending_pos = 0;
			break;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
			it->ended = 1;
			break;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
		default:
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
	}
	if (it->ended) {
		err = finish(it->comp);
		if (err)
			return next_error(self, err);
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	}
	while (n < capacity && it->pending_pos < it->pending_count) {
		const bt_message *m = it->pending[it->pending_pos];

		err = inspect(it->comp, m);
		if (err) {
			while (n > 0)
				bt_message_put_ref(msgs[--n]);
			return next_error(self, err);
		}
		msgs[n++] = m;	/* the reference moves downstream */
		it->pending_pos++;
	}
	*count = n;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

const bt_component_class_filter *dt_flt_sync_class(void)
{
	bt_message_iterator_class *ic =
		bt_message_iterator_class_create(dt_flt_sync_iter_next);
	bt_component_class_filter *fc;

	if (!ic)
		return NULL;
	if (bt_message_iterator_class_set_initialize_method(ic,
			dt_flt_sync_iter_init) ||
	    bt_message_iterator_class_set_finalize_method(ic,
			dt_flt_sync_iter_finalize)) {
		bt_message_iterator_class_put_ref(ic);
		return NULL;
	}
	fc = bt_component_class_filter_create("sync", ic);
	bt_message_iterator_class_put_ref(ic);
	if (!fc)
		return NULL;
	if (bt_component_class_filter_set_initialize_method(fc,
			dt_flt_sync_init) ||
	    bt_component_class_filter_set_finalize_method(fc,
			dt_flt_sync_finalize)) {
		bt_component_class_filter_put_ref(fc);
		return NULL;
	}
	return fc;
}
