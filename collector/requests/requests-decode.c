/*
 * One babeltrace2 event message as a struct dt_rq_event: the decoding
 * `dtracer requests` (requests-read.c, requests-hosts.c) and `dtracer
 * watch` share. See requests-decode.h.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "marks-read.h"
#include "requests-decode.h"

enum kind {
	K_IGNORE = DT_RQ_EV_OTHER + 1,
};

static enum dt_rq_event_kind kind_of_name(const char *n)
{
	static const struct {
		const char *name;
		int kind;
	} fixed[] = {
		{ "dtracer_flag", DT_RQ_EV_FLAG },
		{ "dtracer_unflag", DT_RQ_EV_UNFLAG },
		{ "dtracer_mark_send", DT_RQ_EV_MARK_SEND },
		{ "dtracer_mark_recv", DT_RQ_EV_MARK_RECV },
		{ "sched_switch", DT_RQ_EV_SCHED_SWITCH },
		{ "sched_wakeup", DT_RQ_EV_SCHED_WAKEUP },
		{ "sched_waking", DT_RQ_EV_SCHED_WAKEUP },
		{ "sched_wakeup_new", DT_RQ_EV_SCHED_WAKEUP },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(fixed); i++)
		if (!strcmp(n, fixed[i].name))
			return fixed[i].kind;
	if (g_str_has_prefix(n, "syscall_entry_") ||
	    g_str_has_prefix(n, "compat_syscall_entry_"))
		return DT_RQ_EV_SYSCALL_ENTRY;
	if (g_str_has_prefix(n, "syscall_exit_") ||
	    g_str_has_prefix(n, "compat_syscall_exit_"))
		return DT_RQ_EV_SYSCALL_EXIT;
	return DT_RQ_EV_OTHER;
}

static int kind_of(GHashTable *kinds, const bt_event_class *ec)
{
	gpointer v = g_hash_table_lookup(kinds, ec);
	const char *n;
	int k;

	if (v)
		return GPOINTER_TO_INT(v) - 1;
	n = bt_event_class_get_name(ec);
	k = n ? (int)kind_of_name(n) : DT_RQ_EV_OTHER;
	bt_event_class_get_ref(ec);	/* dropped with the table */
	g_hash_table_insert(kinds, (gpointer)ec, GINT_TO_POINTER(k + 1));
	return k;
}

static void put_event_class(gpointer ec)
{
	bt_event_class_put_ref(ec);
}

GHashTable *dt_rq_kinds_new(void)
{
	return g_hash_table_new_full(g_direct_hash, g_direct_equal,
				     put_event_class, NULL);
}

/* Fill ev's kind-specific fields from the payload; -1 if malformed. */
static int read_payload(const bt_event *e, const char *name,
			struct dt_rq_event *ev)
{
	const bt_field *p = bt_event_borrow_payload_field_const(e);
	int64_t v = -1, w = -1, x = -1;
	uint8_t alen;

	switch (ev->kind) {
	case DT_RQ_EV_FLAG:
	case DT_RQ_EV_UNFLAG:
		if (dt_field_int(p, "tid", &v) || dt_field_int(p, "pid", &w) ||
		    dt_field_int(p, "reason", &x))
			return -1;
		ev->tid = (int32_t)v;
		ev->pid = (int32_t)w;
		ev->reason = (int)x;
		/* context and idle_ns: absent from older dtracer's traces */
		if (!dt_field_int(p, "context", &v))
			ev->context = (uint64_t)v;
		if (ev->kind == DT_RQ_EV_UNFLAG) {
			if (!dt_field_int(p, "duration_ns", &v))
				ev->duration_ns = (uint64_t)v;
			if (!dt_field_int(p, "idle_ns", &v))
				ev->idle_ns = (uint64_t)v;
			return 0;
		}
		if (!dt_field_int(p, "parent", &v))
			ev->parent = (int32_t)v;
		return dt_read_flow(p, &ev->flow, &alen);
	case DT_RQ_EV_MARK_SEND:
		if (dt_field_int(p, "tid", &v) || dt_field_int(p, "pid", &w))
			return -1;
		ev->tid = (int32_t)v;
		ev->pid = (int32_t)w;
		/* fall through */
	case DT_RQ_EV_MARK_RECV:
		return dt_read_mark(p, &ev->flow, &alen, &ev->seq,
				    &ev->end_seq);
	case DT_RQ_EV_SCHED_SWITCH:
		if (dt_field_int(p, "prev_tid", &v) ||
		    dt_field_int(p, "next_tid", &w) ||
		    dt_field_int(p, "prev_state", &x))
			return -1;
		ev->tid = (int32_t)v;
		ev->next_tid = (int32_t)w;
		ev->prev_state = x;
		return 0;
	case DT_RQ_EV_SCHED_WAKEUP:
		if (dt_field_int(p, "tid", &v))
			return -1;
		ev->tid = (int32_t)v;
		return 0;
	case DT_RQ_EV_SYSCALL_ENTRY:
		ev->name = strstr(name, "entry_") + 6;
		ev->fd = dt_field_int(p, "fd", &v) ? -1 : v;
		return 0;
	case DT_RQ_EV_SYSCALL_EXIT:
		ev->name = strstr(name, "exit_") + 5;
		ev->ret = dt_field_int(p, "ret", &v) ? 0 : v;
		return 0;
	default:
		return 0;
	}
}

int dt_rq_decode(GHashTable *kinds, const bt_message *msg,
		 struct dt_rq_event *ev)
{
	const bt_event *e = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(e);
	const bt_clock_snapshot *cs;
	const bt_field *ctx = bt_event_borrow_common_context_field_const(e);
	const bt_field *pn = dt_field_member(ctx, "procname");
	int64_t v;

	*ev = (struct dt_rq_event){ .kind = kind_of(kinds, ec) };
	if (!bt_message_event_borrow_stream_class_default_clock_class_const(msg))
		return 0;	/* no time: nothing to place */
	cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
	if (bt_clock_snapshot_get_ns_from_origin(cs, &ev->ts))
		return 0;
	ev->ctx_tid = dt_field_int(ctx, "tid", &v) ? -1 : (int32_t)v;
	ev->tid = ev->ctx_tid;
	ev->pid = dt_field_int(ctx, "pid", &v) ? ev->ctx_tid : (int32_t)v;
	ev->parent = -1;
	ev->fd = -1;
	if (pn && bt_field_get_class_type(pn) == BT_FIELD_CLASS_TYPE_STRING)
		ev->procname = bt_field_string_get_value(pn);
	/* not the layout we know: skipped */
	return read_payload(e, bt_event_class_get_name(ec), ev) ? 0 : 1;
}
