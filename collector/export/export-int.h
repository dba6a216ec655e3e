/*
 * The exports' shared internals (export.c, export-perfetto.c,
 * export-otlp.c; view.c uses the helpers too): one export under way, and
 * json-c helpers that note an allocation failure instead of crashing or
 * writing half a document.
 * Not the exports' interface (export.h), which this header does not
 * include: the model's types come from requests-types.h.
 */
#ifndef DT_COLLECTOR_EXPORT_INT_H
#define DT_COLLECTOR_EXPORT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "requests-types.h"

/* One export under way. */
struct ex {
	const struct dt_rq_model *m;
	int request;		/* -1: all of them */
	int64_t base;		/* Perfetto: the ns of ts 0 */
	int *prev;		/* Perfetto: span id -> the previous exported
				 * span of its thread, -1 */
	bool nomem;		/* a json-c allocation failed */
};

/*
 * json-c returns NULL when out of memory. put() takes v into object o
 * under k (into array o if k is NULL), or frees it and notes the
 * failure: the document is then incomplete, never written.
 */
static inline void put(struct ex *x, json_object *o, const char *k, json_object *v)
{
	int r = -1;

	if (o && v)
		r = k ? json_object_object_add(o, k, v) :
			json_object_array_add(o, v);
	if (r) {
		x->nomem = true;
		json_object_put(v);
	}
}

static inline void add(struct ex *x, json_object *a, json_object *v)
{
	put(x, a, NULL, v);
}

static inline json_object *i64(int64_t v)
{
	return json_object_new_int64(v);
}

/* The model's strings should all be set; a NULL must not crash. */
static inline json_object *str(const char *s)
{
	return json_object_new_string(s ? s : "?");
}

static inline const char *host_name(const struct dt_rq_model *m, int h)
{
	return h >= 0 && h < m->n_hosts && m->hosts[h] ? m->hosts[h] : "?";
}

static inline const char *proc_name(const struct dt_rq_span *s)
{
	return s->procname ? s->procname : "?";
}

/* The exported spans and messages: all, or one request's. */
static inline int n_spans(const struct ex *x)
{
	return x->request < 0 ? x->m->n_spans :
				x->m->requests[x->request].n_spans;
}

static inline const struct dt_rq_span *span_at(const struct ex *x, int i)
{
	return &x->m->spans[x->request < 0 ? i :
			    x->m->requests[x->request].spans[i]];
}

static inline int n_messages(const struct ex *x)
{
	return x->request < 0 ? x->m->n_messages :
				x->m->requests[x->request].n_messages;
}

static inline const struct dt_rq_message *message_at(const struct ex *x, int i)
{
	return &x->m->messages[x->request < 0 ? i :
			       x->m->requests[x->request].messages[i]];
}

static inline bool exported(const struct ex *x, int span)
{
	return span >= 0 && span < x->m->n_spans &&
	       (x->request < 0 || x->m->spans[span].request == x->request);
}

/* Each format's document; NULL or x->nomem when memory ran out. */
json_object *dt_export_perfetto(struct ex *x);
json_object *dt_export_otlp(struct ex *x);

#endif
