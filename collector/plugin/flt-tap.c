/*
 * A filter that shows each message to a function on its way. See
 * flt-tap.h.
 */
#include "flt-tap.h"

#include <errno.h>

#include <glib.h>

#include "error.h"
#include "flt-pass.h"
#include "graph.h"

struct tap_comp {
	bt_self_component_port_input *in;
	struct dt_msg_sink *k;
};

struct tap_iter {
	struct tap_comp *comp;
	struct dt_pass pass;
};

static bt_component_class_initialize_method_status
tap_init(bt_self_component_filter *self,
	 bt_self_component_filter_configuration *config,
	 const bt_value *params, void *init_data)
{
	struct tap_comp *c = g_new0(struct tap_comp, 1);
	bt_component_class_initialize_method_status st;

	(void)config;
	(void)params;
	c->k = init_data;
	st = dt_pass_add_ports(self, &c->in);
	if (st != BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK) {
		g_free(c);
		return st;
	}
	bt_self_component_set_data(
		bt_self_component_filter_as_self_component(self), c);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void tap_finalize(bt_self_component_filter *self)
{
	g_free(bt_self_component_get_data(
		bt_self_component_filter_as_self_component(self)));
}

static bt_message_iterator_class_initialize_method_status
tap_iter_init(bt_self_message_iterator *self,
	      bt_self_message_iterator_configuration *config,
	      bt_self_component_port_output *port)
{
	struct tap_comp *c = bt_self_component_get_data(
		bt_self_message_iterator_borrow_component(self));
	struct tap_iter *it = g_new0(struct tap_iter, 1);
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

static void tap_iter_finalize(bt_self_message_iterator *self)
{
	struct tap_iter *it = bt_self_message_iterator_get_data(self);

	dt_pass_fini(&it->pass);
	g_free(it);
}

static bt_message_iterator_class_next_method_status
tap_iter_next(bt_self_message_iterator *self, bt_message_array_const msgs,
	      uint64_t capacity, uint64_t *count)
{
	struct tap_iter *it = bt_self_message_iterator_get_data(self);
	struct dt_msg_sink *k = it->comp->k;
	struct dt_pass *p = &it->pass;
	bt_message_iterator_class_next_method_status st = dt_pass_fill(p);
	uint64_t n = 0;

	if (st != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK)
		return st;
	while (n < capacity && p->pos < p->count) {
		const bt_message *m = p->pending[p->pos];
		int err = k->fn(k->data, m);

		if (err) {
			GError *e = NULL;

			while (n > 0)
				bt_message_put_ref(msgs[--n]);
			dt_error_errno(&e, -err, "%s", k->what);
			return dt_pass_fail(self, e);
		}
		msgs[n++] = m;	/* the reference moves downstream */
		p->pos++;
	}
	*count = n;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

const bt_component_class_filter *dt_flt_tap_class(void)
{
	return dt_pass_class("tap", tap_init, tap_finalize, tap_iter_init,
			     tap_iter_finalize, tap_iter_next);
}
