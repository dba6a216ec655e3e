/*
 * Requests, for a builder that lives as long as a live session (dtracer
 * watch): ingestion (stage 1) kept, the later stages run on a copy, and
 * what the settled past left behind dropped.
 *
 * The watcher ingests each host's events once, in the host's own clock,
 * into a builder it keeps (its base). On each refresh it clones the
 * base, ingests the events not settled yet into the clone, maps the
 * clone's times into the merged clock (dt_rq_builder_map) and finishes
 * it. Once every request before a time is printed for good, the base
 * takes the events before it and drops (dt_rq_builder_retire) the flag
 * intervals and marked segments that ended there, and the parts of
 * intervals still open (a client's manual flag) before it: the model of
 * the later requests stays what the whole trace gives, and the base
 * stays as large as the requests in flight.
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "requests.h"
#include "requests-int.h"

static struct host *host_clone(const struct host *h)
{
	struct host *c = calloc(1, sizeof(*c));
	GHashTableIter it;
	gpointer k, v;

	if (!c || !(c->name = strdup(h->name))) {
		free(c);
		return NULL;
	}
	c->last_ts = h->last_ts;
	c->threads = g_hash_table_new_full(g_direct_hash, g_direct_equal,
					   NULL, g_free);
	c->sockets = g_hash_table_new_full(g_int64_hash, g_int64_equal,
					   g_free, NULL);
	c->contexts = g_hash_table_new_full(rq_ctx_key_hash, rq_ctx_key_equal,
					    g_free, NULL);
	g_hash_table_iter_init(&it, h->threads);
	while (g_hash_table_iter_next(&it, &k, &v))
		g_hash_table_insert(c->threads, k,
				    g_memdup2(v, sizeof(struct thread)));
	g_hash_table_iter_init(&it, h->sockets);
	while (g_hash_table_iter_next(&it, &k, NULL))
		g_hash_table_add(c->sockets, g_memdup2(k, sizeof(gint64)));
	g_hash_table_iter_init(&it, h->contexts);
	while (g_hash_table_iter_next(&it, &k, &v))
		g_hash_table_insert(c->contexts,
				    g_memdup2(k, sizeof(struct rq_ctx_key)), v);
	return c;
}

struct dt_rq_builder *dt_rq_builder_clone(const struct dt_rq_builder *b)
{
	struct dt_rq_builder *c = dt_rq_builder_new();
	guint i;

	if (!c)
		return NULL;
	for (i = 0; i < b->hosts->len; i++) {
		struct host *h = host_clone(b->hosts->pdata[i]);

		if (!h)
			goto fail;
		g_ptr_array_add(c->hosts, h);
	}
	for (i = 0; i < b->raws->len; i++) {
		struct raw r = g_array_index(b->raws, struct raw, i);

		if (r.procname && !(r.procname = strdup(r.procname)))
			goto fail;
		r.pieces = g_array_copy(r.pieces);
		r.sys = g_array_copy(r.sys);
		r.evts = g_array_copy(r.evts);
		g_array_append_val(c->raws, r);
	}
	g_array_append_vals(c->sends, b->sends->data, b->sends->len);
	g_array_append_vals(c->recvs, b->recvs->data, b->recvs->len);
	c->events = b->events;
	c->dtracer_events = b->dtracer_events;
	return c;
fail:
	dt_rq_builder_free(c);
	return NULL;
}

void dt_rq_builder_map(struct dt_rq_builder *b,
		       int64_t (*map)(void *data, int host, int64_t ts),
		       void *data)
{
	guint i, k;

	for (i = 0; i < b->hosts->len; i++) {
		struct host *h = b->hosts->pdata[i];
		GHashTableIter it;
		gpointer v;

		h->last_ts = map(data, (int)i, h->last_ts);
		g_hash_table_iter_init(&it, h->threads);
		while (g_hash_table_iter_next(&it, NULL, &v)) {
			struct thread *t = v;

			t->since = map(data, (int)i, t->since);
			t->sys_entry = map(data, (int)i, t->sys_entry);
		}
	}
	for (i = 0; i < b->raws->len; i++) {
		struct raw *r = raw_at(b, (int)i);

		r->start = map(data, r->host, r->start);
		r->end_ts = map(data, r->host, r->end_ts);
		for (k = 0; k < r->pieces->len; k++) {
			struct piece *p = &g_array_index(r->pieces,
							 struct piece, k);

			p->a = map(data, r->host, p->a);
			p->b = map(data, r->host, p->b);
		}
		for (k = 0; k < r->sys->len; k++) {
			struct sysrec *s = &g_array_index(r->sys,
							  struct sysrec, k);

			s->entry = map(data, r->host, s->entry);
			s->exit = map(data, r->host, s->exit);
		}
		for (k = 0; k < r->evts->len; k++) {
			int64_t *t = &g_array_index(r->evts, int64_t, k);

			*t = map(data, r->host, *t);
		}
	}
	for (k = 0; k < 2; k++) {
		GArray *segs = k ? b->recvs : b->sends;

		for (i = 0; i < segs->len; i++) {
			struct seg *s = &g_array_index(segs, struct seg, i);

			s->ts = map(data, s->host, s->ts);
			s->sys_entry = map(data, s->host, s->sys_entry);
		}
	}
}

/* Segments older than their host's cut go. */
static void retire_segs(GArray *segs, const int64_t *cut)
{
	guint i, n = 0;

	for (i = 0; i < segs->len; i++) {
		struct seg s = g_array_index(segs, struct seg, i);

		if (s.ts >= cut[s.host])
			g_array_index(segs, struct seg, n++) = s;
	}
	g_array_set_size(segs, n);
}

/* An open interval's parts before the cut go (summaries clip to spans). */
static void trim_open(struct raw *r, int64_t cut)
{
	guint i, n;

	for (i = n = 0; i < r->pieces->len; i++) {
		struct piece p = g_array_index(r->pieces, struct piece, i);

		if (p.b >= cut)
			g_array_index(r->pieces, struct piece, n++) = p;
	}
	g_array_set_size(r->pieces, n);
	for (i = n = 0; i < r->sys->len; i++) {
		struct sysrec s = g_array_index(r->sys, struct sysrec, i);

		if (s.exit >= cut)
			g_array_index(r->sys, struct sysrec, n++) = s;
	}
	g_array_set_size(r->sys, n);
	for (i = n = 0; i < r->evts->len; i++) {
		int64_t t = g_array_index(r->evts, int64_t, i);

		if (t >= cut)
			g_array_index(r->evts, int64_t, n++) = t;
	}
	g_array_set_size(r->evts, n);
}

/* Threads, contexts and origins to the raws' new indices (-1: gone). */
static void renumber(struct dt_rq_builder *b, const int *to)
{
	guint i;

	for (i = 0; i < b->hosts->len; i++) {
		struct host *h = b->hosts->pdata[i];
		GHashTableIter it;
		gpointer v;

		g_hash_table_iter_init(&it, h->threads);
		while (g_hash_table_iter_next(&it, NULL, &v)) {
			struct thread *t = v;

			if (t->open >= 0)
				t->open = to[t->open];
			/* Nothing of it left to carry: made again on need,
			 * as it was (a flag sets what counts). */
			if (t->open < 0 && !t->sys)
				g_hash_table_iter_remove(&it);
		}
		g_hash_table_iter_init(&it, h->contexts);
		while (g_hash_table_iter_next(&it, NULL, &v)) {
			int ri = to[GPOINTER_TO_INT(v) - 1];

			if (ri < 0)
				g_hash_table_iter_remove(&it);
			else
				g_hash_table_iter_replace(&it,
							  GINT_TO_POINTER(ri + 1));
		}
	}
	for (i = 0; i < b->raws->len; i++) {
		struct raw *r = raw_at(b, (int)i);

		if (r->origin >= 0)
			r->origin = to[r->origin];
	}
}

void dt_rq_builder_retire(struct dt_rq_builder *b, const int64_t *cut)
{
	int *to = g_new(int, b->raws->len ? b->raws->len : 1);
	guint i, n = 0;

	for (i = 0; i < b->raws->len; i++) {
		struct raw r = g_array_index(b->raws, struct raw, i);

		if (r.end != DT_RQ_END_OPEN && r.end_ts < cut[r.host]) {
			free(r.procname);
			g_array_free(r.pieces, TRUE);
			g_array_free(r.sys, TRUE);
			g_array_free(r.evts, TRUE);
			to[i] = -1;
			continue;
		}
		/* only a client's manual flag spans requests; anything else
		 * open across a cut is kept whole */
		if (r.start < cut[r.host] && r.flag == DT_RQ_FLAG_MANUAL) {
			trim_open(&r, cut[r.host]);
			r.trimmed = true;
		}
		to[i] = (int)n;
		g_array_index(b->raws, struct raw, n++) = r;
	}
	g_array_set_size(b->raws, n);
	renumber(b, to);
	g_free(to);
	retire_segs(b->sends, cut);
	retire_segs(b->recvs, cut);
}

size_t dt_rq_builder_size(const struct dt_rq_builder *b)
{
	size_t n = b->raws->len + b->sends->len + b->recvs->len;
	guint i;

	for (i = 0; i < b->raws->len; i++) {
		const struct raw *r = &g_array_index(b->raws, struct raw, i);

		n += r->pieces->len + r->sys->len + r->evts->len;
	}
	for (i = 0; i < b->hosts->len; i++) {
		const struct host *h = b->hosts->pdata[i];

		n += g_hash_table_size(h->threads) +
		     g_hash_table_size(h->contexts);
	}
	return n;
}
