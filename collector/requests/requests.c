/*
 * Requests: the model's names and its freeing, the builder's life, and
 * the stages, which it calls in this order (dt_rq_add stage 1 for each
 * event, dt_rq_finish the end of stage 1, then stages 2 to 7):
 *
 *   1. requests-ingest.c    per host, events in time order: flag
 *                           intervals ("raws"), thread states, syscalls,
 *                           segments (rq_ingest); spans still open at
 *                           their host's last event closed there
 *                           (rq_close_open)
 *   2. requests-match.c     marked sends matched with their receives
 *                           (rq_index_flows, rq_match_flow)
 *   3. requests-link.c      which span sent each segment, and each
 *                           span's parent (the span whose bytes flagged
 *                           it) (rq_index_tids, rq_sends_to_spans,
 *                           rq_link_raws, rq_break_cycles)
 *   4. requests-messages.c  runs of segments one span sent on one flow
 *                           (rq_build_messages)
 *   5. requests-tree.c      the raw tree; a manual flag split per
 *                           request into nodes; their parents and order
 *                           (rq_raw_tree, rq_make_nodes, rq_node_parents,
 *                           rq_node_children)
 *   6. requests-spans.c     the model's spans, requests and messages,
 *                           numbered; bytes (rq_assemble)
 *   7. requests-summary.c   per span, its kernel time and syscalls; per
 *                           request, its members, extent and critical hop
 *                           (rq_summarize_spans, rq_fill_requests)
 *
 * Each stage may use the ones before it, never those after.
 * requests-window.c keeps a builder across a live session (dtracer
 * watch): copies it before stage 2, maps its times, drops what ended.
 * See requests.h and docs/architecture.md, "Requests".
 */
#define _DEFAULT_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "requests.h"
#include "requests-int.h"

const char *dt_rq_flag_reason_name(enum dt_rq_flag_reason r)
{
	static const char *const names[] = { "manual", "propagated",
					     "inherited", "resumed",
					     "handoff", "deferred", "local",
					     "streams" };

	return (unsigned)r < 8 ? names[r] : "unknown";
}

const char *dt_rq_end_reason_name(enum dt_rq_end_reason r)
{
	static const char *const names[] = { "removed", "exited", "response",
					     "closed", "unloaded", "open",
					     "request", "switched" };

	return (unsigned)r < 8 ? names[r] : "unknown";
}

const char *dt_rq_block_name(enum dt_rq_block b)
{
	static const char *const names[] = { "network", "poll", "disk",
					     "lock", "sleep", "other" };

	return (unsigned)b < DT_RQ_BLOCK_N ? names[b] : "unknown";
}

static const char *flow_end(const struct dt_flow *f, const uint8_t *a,
			    uint16_t port, char *buf)
{
	char ip[INET6_ADDRSTRLEN];

	if (f->family == AF_INET6 && inet_ntop(AF_INET6, a, ip, sizeof(ip)))
		snprintf(buf, DT_RQ_ADDR_LEN, "[%s]:%u", ip, port);
	else if (f->family == AF_INET && inet_ntop(AF_INET, a, ip, sizeof(ip)))
		snprintf(buf, DT_RQ_ADDR_LEN, "%s:%u", ip, port);
	else
		snprintf(buf, DT_RQ_ADDR_LEN, "-");
	return buf;
}

const char *dt_rq_flow_src(const struct dt_flow *f, char *buf)
{
	return flow_end(f, f->saddr, f->sport, buf);
}

const char *dt_rq_flow_dst(const struct dt_flow *f, char *buf)
{
	return flow_end(f, f->daddr, f->dport, buf);
}

void dt_rq_model_free(struct dt_rq_model *m)
{
	int i;
	size_t j;

	if (!m)
		return;
	for (i = 0; i < m->n_hosts; i++)
		free(m->hosts[i]);
	free(m->hosts);
	for (i = 0; i < m->n_spans; i++) {
		struct dt_rq_span *s = &m->spans[i];

		free(s->procname);
		for (j = 0; j < s->sum.n_syscalls; j++)
			free(s->sum.syscalls[j].name);
		free(s->sum.syscalls);
	}
	free(m->spans);
	free(m->messages);
	for (i = 0; i < m->n_requests; i++) {
		free(m->requests[i].spans);
		free(m->requests[i].messages);
	}
	free(m->requests);
	free(m->sync_report);
	free(m);
}

static void host_free(gpointer p)
{
	struct host *h = p;

	g_hash_table_destroy(h->threads);
	g_hash_table_destroy(h->sockets);
	g_hash_table_destroy(h->contexts);
	free(h->name);
	free(h);
}

static void raw_clear(struct raw *r)
{
	free(r->procname);
	g_array_free(r->pieces, TRUE);
	g_array_free(r->sys, TRUE);
	g_array_free(r->evts, TRUE);
}

struct dt_rq_builder *dt_rq_builder_new(void)
{
	struct dt_rq_builder *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->hosts = g_ptr_array_new_with_free_func(host_free);
	b->raws = g_array_new(FALSE, TRUE, sizeof(struct raw));
	b->sends = g_array_new(FALSE, TRUE, sizeof(struct seg));
	b->recvs = g_array_new(FALSE, TRUE, sizeof(struct seg));
	return b;
}

void dt_rq_builder_free(struct dt_rq_builder *b)
{
	guint i;

	if (!b)
		return;
	for (i = 0; i < b->raws->len; i++)
		raw_clear(&g_array_index(b->raws, struct raw, i));
	g_array_free(b->raws, TRUE);
	g_array_free(b->sends, TRUE);
	g_array_free(b->recvs, TRUE);
	g_ptr_array_free(b->hosts, TRUE);
	free(b);
}

int dt_rq_host(struct dt_rq_builder *b, const char *name)
{
	struct host *h;
	guint i;

	for (i = 0; i < b->hosts->len; i++)
		if (!strcmp(((struct host *)b->hosts->pdata[i])->name, name))
			return (int)i;
	h = calloc(1, sizeof(*h));
	if (!h || !(h->name = strdup(name))) {
		free(h);
		return -1;
	}
	h->threads = g_hash_table_new_full(g_direct_hash, g_direct_equal,
					   NULL, g_free);
	h->sockets = g_hash_table_new_full(g_int64_hash, g_int64_equal,
					   g_free, NULL);
	h->contexts = g_hash_table_new_full(rq_ctx_key_hash, rq_ctx_key_equal,
					    g_free, NULL);
	g_ptr_array_add(b->hosts, h);
	return (int)b->hosts->len - 1;
}

/* Stage 1, for each event. */
int dt_rq_add(struct dt_rq_builder *b, const struct dt_rq_event *ev)
{
	return rq_ingest(b, ev);
}

static int copy_hosts(struct dt_rq_builder *b, struct dt_rq_model *m)
{
	guint i;

	m->hosts = calloc(b->hosts->len ? b->hosts->len : 1, sizeof(char *));
	if (!m->hosts)
		return -1;
	for (i = 0; i < b->hosts->len; i++) {
		m->hosts[i] = strdup(((struct host *)b->hosts->pdata[i])->name);
		if (!m->hosts[i])
			return -1;
		m->n_hosts++;
	}
	return 0;
}

struct dt_rq_model *dt_rq_finish(struct dt_rq_builder *b)
{
	struct finish F = { .b = b };
	GArray *msgs = NULL, *roots = NULL;
	GHashTableIter it;
	gpointer v;
	guint i;
	int ret = -1;

	F.m = calloc(1, sizeof(*F.m));
	if (!F.m || copy_hosts(b, F.m))
		goto out;
	/* 1. ingestion's end */
	rq_close_open(b);
	/* 2. match */
	F.flows = g_hash_table_new_full(dt_flow_hash, dt_flow_equal, NULL,
					rq_flowsegs_free);
	F.by_tid = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
					 (GDestroyNotify)g_array_unref);
	F.nodes = g_array_new(FALSE, TRUE, sizeof(struct node));
	rq_index_flows(&F);
	g_hash_table_iter_init(&it, F.flows);
	while (g_hash_table_iter_next(&it, NULL, &v))
		if (rq_match_flow(&F, v))
			goto out;
	/* 3. link */
	rq_index_tids(&F);
	rq_sends_to_spans(&F);
	rq_link_raws(&F);
	rq_break_cycles(&F);
	/* 4. messages */
	msgs = rq_build_messages(&F);
	/* 5. tree */
	rq_raw_tree(&F, msgs);
	rq_make_nodes(&F, msgs);
	rq_node_parents(&F);
	roots = rq_node_children(&F);
	/* 6. spans */
	if (rq_assemble(&F, roots, msgs))
		goto out;
	/* 7. summaries */
	if (rq_summarize_spans(&F) || rq_fill_requests(F.m))
		goto out;
	ret = 0;
	for (i = 0; i < b->sends->len; i++)
		F.m->unmatched_sends += send_at(&F, (int)i)->match < 0;
	for (i = 0; i < b->recvs->len; i++)
		F.m->unmatched_recvs += recv_at(&F, (int)i)->match < 0;
	F.m->events = b->events;
	F.m->dtracer_events = b->dtracer_events;
out:
	if (roots)
		g_array_free(roots, TRUE);
	if (msgs)
		g_array_free(msgs, TRUE);
	if (F.flows)
		g_hash_table_destroy(F.flows);
	if (F.by_tid)
		g_hash_table_destroy(F.by_tid);
	if (F.nodes)
		g_array_free(F.nodes, TRUE);
	g_free(F.first_child);
	g_free(F.next_sib);
	dt_rq_builder_free(b);
	if (ret) {
		dt_rq_model_free(F.m);
		return NULL;
	}
	return F.m;
}
