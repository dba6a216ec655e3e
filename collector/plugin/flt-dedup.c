/*
 * flt.dtracer.dedup: drop repeated copies of an event (overlapping
 * flight-recorder snapshots of one host). See flt-dedup.h.
 */
#include "flt-dedup.h"

#include <stdbool.h>
#include <string.h>

#include <glib.h>

#include "error-bt.h"
#include "flt-pass.h"

/* Past this many events at one nanosecond, later ones pass unchecked. */
#define GROUP_MAX 4096

struct dedup_comp {
	bt_self_component *self;
	bt_self_component_port_input *in;
	struct dt_flt_dedup_run *run;	/* the caller's, or own */
	struct dt_flt_dedup_run own;
	GHashTable *hosts;		/* const bt_trace * -> interned name */
};

struct dedup_iter {
	struct dedup_comp *comp;
	struct dt_pass pass;
	/* The events passed at the current time: messages (a reference
	 * each) and their fingerprints, 0 until needed. */
	int64_t group_ns;
	GPtrArray *group;
	GArray *fps;
};

/* ----- fingerprints ---------------------------------------------------- */

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * FNV_PRIME;
	return h;
}

static uint64_t mix_u64(uint64_t h, uint64_t v)
{
	return mix(h, &v, sizeof(v));
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	return s ? mix(h, s, strlen(s) + 1) : mix_u64(h, 0);
}

static uint64_t field_hash(uint64_t h, const bt_field *f)
{
	bt_field_class_type t;
	uint64_t i, n;

	if (!f)
		return mix_u64(h, 0x6e756c6c);
	t = bt_field_get_class_type(f);
	h = mix_u64(h, t);
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_BOOL))
		return mix_u64(h, bt_field_bool_get_value(f));
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_BIT_ARRAY))
		return mix_u64(h, bt_field_bit_array_get_value_as_integer(f));
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return mix_u64(h, bt_field_integer_unsigned_get_value(f));
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return mix_u64(h, (uint64_t)bt_field_integer_signed_get_value(f));
	if (t == BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL) {
		float v = bt_field_real_single_precision_get_value(f);

		return mix(h, &v, sizeof(v));
	}
	if (t == BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL) {
		double v = bt_field_real_double_precision_get_value(f);

		return mix(h, &v, sizeof(v));
	}
	if (t == BT_FIELD_CLASS_TYPE_STRING)
		return mix(h, bt_field_string_get_value(f),
			   bt_field_string_get_length(f));
	if (t == BT_FIELD_CLASS_TYPE_STRUCTURE) {
		n = bt_field_class_structure_get_member_count(
			bt_field_borrow_class_const(f));
		for (i = 0; i < n; i++)
			h = field_hash(h,
				bt_field_structure_borrow_member_field_by_index_const(
					f, i));
		return h;
	}
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY)) {
		n = bt_field_array_get_length(f);
		h = mix_u64(h, n);
		for (i = 0; i < n; i++)
			h = field_hash(h,
				bt_field_array_borrow_element_field_by_index_const(
					f, i));
		return h;
	}
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_OPTION))
		return field_hash(h, bt_field_option_borrow_field_const(f));
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_VARIANT))
		return field_hash(mix_u64(h,
			bt_field_variant_get_selected_option_index(f)),
			bt_field_variant_borrow_selected_option_field_const(f));
	return h;
}

uint64_t dt_event_fingerprint(const bt_event *ev, const char *host)
{
	uint64_t h = mix_str(FNV_OFFSET, host);

	h = mix_str(h, bt_event_class_get_name(bt_event_borrow_class_const(ev)));
	h = field_hash(h, bt_event_borrow_common_context_field_const(ev));
	h = field_hash(h, bt_event_borrow_specific_context_field_const(ev));
	h = field_hash(h, bt_event_borrow_payload_field_const(ev));
	return h ? h : 1;	/* 0: not computed */
}

/* The host a trace comes from (its `hostname`), interned. */
static const char *host_of(struct dedup_comp *c, const bt_trace *trace)
{
	const char *name = g_hash_table_lookup(c->hosts, trace);

	if (name)
		return name;
	name = dt_trace_host(trace);
	name = g_intern_string(name ? name : "");
	g_hash_table_insert(c->hosts, (gpointer)trace, (gpointer)name);
	return name;
}

static uint64_t fingerprint(struct dedup_comp *c, const bt_message *m)
{
	const bt_event *ev = bt_message_event_borrow_event_const(m);

	return dt_event_fingerprint(ev, host_of(c,
		bt_stream_borrow_trace_const(bt_event_borrow_stream_const(ev))));
}

/* ----- component ------------------------------------------------------- */

bt_component_class_initialize_method_status
dt_flt_dedup_init(bt_self_component_filter *self,
		  bt_self_component_filter_configuration *config,
		  const bt_value *params, void *init_data)
{
	struct dedup_comp *c = g_new0(struct dedup_comp, 1);
	bt_component_class_initialize_method_status st;
	GError *e = NULL;

	(void)config;
	c->self = bt_self_component_filter_as_self_component(self);
	if (params && bt_value_is_map(params) && !bt_value_map_is_empty(params)) {
		g_set_error(&e, DT_ERROR, DT_ERROR_INPUT,
			    "flt.dtracer.dedup takes no parameters");
		dt_error_to_component(c->self, e);
		g_error_free(e);
		g_free(c);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	st = dt_pass_add_ports(self, &c->in);
	if (st != BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK) {
		g_free(c);
		return st;
	}
	c->run = init_data ? init_data : &c->own;
	c->hosts = g_hash_table_new(g_direct_hash, g_direct_equal);
	bt_self_component_set_data(c->self, c);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void dt_flt_dedup_finalize(bt_self_component_filter *self)
{
	struct dedup_comp *c = bt_self_component_get_data(
		bt_self_component_filter_as_self_component(self));

	g_hash_table_destroy(c->hosts);
	g_free(c);
}

/* ----- message iterator ------------------------------------------------ */

static void group_clear(struct dedup_iter *it)
{
	g_ptr_array_set_size(it->group, 0);	/* puts the references */
	g_array_set_size(it->fps, 0);
}

static void put_message(gpointer m)
{
	bt_message_put_ref(m);
}

bt_message_iterator_class_initialize_method_status
dt_flt_dedup_iter_init(bt_self_message_iterator *self,
		       bt_self_message_iterator_configuration *config,
		       bt_self_component_port_output *port)
{
	struct dedup_comp *c = bt_self_component_get_data(
		bt_self_message_iterator_borrow_component(self));
	struct dedup_iter *it = g_new0(struct dedup_iter, 1);
	bt_message_iterator_class_initialize_method_status st;

	(void)port;
	it->comp = c;
	st = dt_pass_init(&it->pass, self, config, c->in);
	if (st != BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK) {
		g_free(it);
		return st;
	}
	it->group = g_ptr_array_new_with_free_func(put_message);
	it->fps = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	bt_self_message_iterator_set_data(self, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void dt_flt_dedup_iter_finalize(bt_self_message_iterator *self)
{
	struct dedup_iter *it = bt_self_message_iterator_get_data(self);

	dt_pass_fini(&it->pass);
	g_ptr_array_free(it->group, TRUE);
	g_array_free(it->fps, TRUE);
	g_free(it);
}

/* Whether m repeats an event already passed at its time. */
static bool repeated(struct dedup_iter *it, const bt_message *m)
{
	const bt_clock_snapshot *cs;
	int64_t ns;
	uint64_t fp;
	guint i;

	if (bt_message_get_type(m) != BT_MESSAGE_TYPE_EVENT ||
	    !bt_message_event_borrow_stream_class_default_clock_class_const(m))
		return false;
	cs = bt_message_event_borrow_default_clock_snapshot_const(m);
	if (bt_clock_snapshot_get_ns_from_origin(cs, &ns))
		return false;
	if (!it->group->len || ns != it->group_ns) {
		group_clear(it);
		it->group_ns = ns;
	} else if (it->group->len < GROUP_MAX) {
		fp = fingerprint(it->comp, m);
		for (i = 0; i < it->group->len; i++) {
			uint64_t *o = &g_array_index(it->fps, uint64_t, i);

			if (!*o)
				*o = fingerprint(it->comp,
						 g_ptr_array_index(it->group, i));
			if (*o == fp)
				return true;
		}
		g_array_append_val(it->fps, fp);
		bt_message_get_ref(m);
		g_ptr_array_add(it->group, (gpointer)m);
		return false;
	} else {
		return false;
	}
	fp = 0;
	g_array_append_val(it->fps, fp);
	bt_message_get_ref(m);
	g_ptr_array_add(it->group, (gpointer)m);
	return false;
}

bt_message_iterator_class_next_method_status
dt_flt_dedup_iter_next(bt_self_message_iterator *self,
		       bt_message_array_const msgs, uint64_t capacity,
		       uint64_t *count)
{
	struct dedup_iter *it = bt_self_message_iterator_get_data(self);
	struct dt_pass *p = &it->pass;
	bt_message_iterator_class_next_method_status st;
	uint64_t n = 0;

	while (!n) {
		st = dt_pass_fill(p);
		if (st == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END)
			group_clear(it);
		if (st != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK)
			return st;
		while (n < capacity && p->pos < p->count) {
			const bt_message *m = p->pending[p->pos++];

			if (repeated(it, m)) {
				bt_message_put_ref(m);
				it->comp->run->dropped++;
				continue;
			}
			msgs[n++] = m;	/* the reference moves downstream */
		}
	}
	*count = n;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

const bt_component_class_filter *dt_flt_dedup_class(void)
{
	return dt_pass_class("dedup", dt_flt_dedup_init, dt_flt_dedup_finalize,
			     dt_flt_dedup_iter_init, dt_flt_dedup_iter_finalize,
			     dt_flt_dedup_iter_next);
}
