/*
 * The pass-through filter's common parts. See flt-pass.h.
 */
#include "flt-pass.h"

#include "error-bt.h"

bt_component_class_initialize_method_status
dt_pass_add_ports(bt_self_component_filter *self,
		  bt_self_component_port_input **in)
{
	if (bt_self_component_filter_add_input_port(self, "in", NULL, in) ||
	    bt_self_component_filter_add_output_port(self, "out", NULL, NULL))
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

bt_message_iterator_class_initialize_method_status
dt_pass_init(struct dt_pass *p, bt_self_message_iterator *self,
	     bt_self_message_iterator_configuration *config,
	     bt_self_component_port_input *in)
{
	*p = (struct dt_pass){ 0 };
	switch (bt_message_iterator_create_from_message_iterator(self, in,
								 &p->up)) {
	case BT_MESSAGE_ITERATOR_CREATE_FROM_MESSAGE_ITERATOR_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_CREATE_FROM_MESSAGE_ITERATOR_STATUS_MEMORY_ERROR:
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	default:
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self,
			"cannot iterate the input port");
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	bt_self_message_iterator_configuration_set_can_seek_forward(config,
		bt_message_iterator_can_seek_forward(p->up));
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void dt_pass_fini(struct dt_pass *p)
{
	while (p->pos < p->count)
		bt_message_put_ref(p->pending[p->pos++]);
	bt_message_iterator_put_ref(p->up);
	p->up = NULL;
}

bt_message_iterator_class_next_method_status
dt_pass_fill(struct dt_pass *p)
{
	if (p->pos < p->count)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	if (p->ended)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	switch (bt_message_iterator_next(p->up, &p->pending, &p->count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		p->pos = 0;
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		p->ended = true;
		p->pos = p->count = 0;
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		p->pos = p->count = 0;
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		p->pos = p->count = 0;
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
	default:
		/* the upstream's causes say what went wrong and where */
		p->pos = p->count = 0;
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
}

bt_message_iterator_class_next_method_status
dt_pass_fail(bt_self_message_iterator *self, GError *e)
{
	bool nomem = g_error_matches(e, DT_ERROR, DT_ERROR_NOMEM);

	dt_error_to_iterator(self, e);
	g_error_free(e);
	return nomem ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR :
		       BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
}

const bt_component_class_filter *
dt_pass_class(const char *name,
	      bt_component_class_filter_initialize_method init,
	      bt_component_class_filter_finalize_method fini,
	      bt_message_iterator_class_initialize_method iter_init,
	      bt_message_iterator_class_finalize_method iter_fini,
	      bt_message_iterator_class_next_method next)
{
	bt_message_iterator_class *ic = bt_message_iterator_class_create(next);
	bt_component_class_filter *fc;

	if (!ic)
		return NULL;
	if (bt_message_iterator_class_set_initialize_method(ic, iter_init) ||
	    bt_message_iterator_class_set_finalize_method(ic, iter_fini)) {
		bt_message_iterator_class_put_ref(ic);
		return NULL;
	}
	fc = bt_component_class_filter_create(name, ic);
	bt_message_iterator_class_put_ref(ic);
	if (!fc)
		return NULL;
	if (bt_component_class_filter_set_initialize_method(fc, init) ||
	    bt_component_class_filter_set_finalize_method(fc, fini)) {
		bt_component_class_filter_put_ref(fc);
		return NULL;
	}
	return fc;
}

const char *dt_trace_host(const bt_trace *trace)
{
	const bt_value *hn =
		bt_trace_borrow_environment_entry_value_by_name_const(trace,
								     "hostname");

	if (hn && bt_value_is_string(hn))
		return bt_value_string_get(hn);
	return bt_trace_get_name(trace);
}
