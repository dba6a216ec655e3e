/*
 * Requests: each traced request rebuilt as a tree of spans from a merged
 * (clock-aligned) trace.
 *
 * A span is one thread on one host while it served the request: from its
 * dtracer_flag to its dtracer_unflag (a propagated or inherited flag), or,
 * for the client thread flagged by hand, the part of its flag that one
 * request covers (see docs/architecture.md, "Requests"). Spans are linked
 * by messages: runs of marked segments one span sent on one TCP flow and
 * another host received (dtracer_mark_send matched with dtracer_mark_recv
 * by 4-tuple and sequence numbers, as the clock sync does).
 *
 * The model is plain data: arrays indexed by id, every string and array
 * allocated on its own with malloc, all freed by dt_rq_model_free(). Tests
 * may build one by hand that way.
 */
#ifndef DT_COLLECTOR_REQUESTS_H
#define DT_COLLECTOR_REQUESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "requests-types.h"	/* the model and the events */

/* The names of the reasons and kinds (requests-types.h), as printed. */
const char *dt_rq_flag_reason_name(enum dt_rq_flag_reason r);
const char *dt_rq_end_reason_name(enum dt_rq_end_reason r);
const char *dt_rq_block_name(enum dt_rq_block b);

/* Flows (struct dt_flow, segments.h): source first, addresses in network
 * order. "192.0.2.11:55328" or "[2001:db8::1]:80"; buf of DT_RQ_ADDR_LEN. */
#define DT_RQ_ADDR_LEN 64
const char *dt_rq_flow_src(const struct dt_flow *f, char *buf);
const char *dt_rq_flow_dst(const struct dt_flow *f, char *buf);

void dt_rq_model_free(struct dt_rq_model *m);

struct dt_rq_builder;

struct dt_rq_builder *dt_rq_builder_new(void);
/* The host's index (registered on first use); -1 on ENOMEM. */
int dt_rq_host(struct dt_rq_builder *b, const char *name);
/* Events in any order per host is NOT supported: per host, by time. */
int dt_rq_add(struct dt_rq_builder *b, const struct dt_rq_event *ev);
/* Build the model; the builder is freed. NULL on ENOMEM. */
struct dt_rq_model *dt_rq_finish(struct dt_rq_builder *b);
void dt_rq_builder_free(struct dt_rq_builder *b);

/*
 * A builder kept across refreshes (requests-window.c, dtracer watch):
 * its copy, to finish while it goes on; its times mapped (each host's
 * clock into the merged one); what ended before cut[host] (a time in
 * that host's clock per host) dropped, and the parts of flag intervals
 * still open before it; its size (entries kept, for tests). The
 * requests after a cut come out as from every event, when no request
 * spans it. Clone: NULL on ENOMEM.
 */
struct dt_rq_builder *dt_rq_builder_clone(const struct dt_rq_builder *b);
void dt_rq_builder_map(struct dt_rq_builder *b,
		       int64_t (*map)(void *data, int host, int64_t ts),
		       void *data);
void dt_rq_builder_retire(struct dt_rq_builder *b, const int64_t *cut);
size_t dt_rq_builder_size(const struct dt_rq_builder *b);

/*
 * Models of chosen requests (requests-subset.c): request taken out of
 * m alone; parts (NULL ones skipped; their hosts the same list) put
 * together, in order. Each a model of its own, ids renumbered; NULL on
 * ENOMEM.
 */
struct dt_rq_model *dt_rq_model_extract(const struct dt_rq_model *m,
					int request);
struct dt_rq_model *dt_rq_model_join(struct dt_rq_model *const *parts,
				     int n);

/*
 * Read a merged directory (dtracer merge's OUT: OUT/ctf and OUT/sync.txt;
 * or any directory of CTF traces) into a model. 0, or -1 with *error
 * set.
 */
int dt_rq_read(const char *dir, struct dt_rq_model **out, GError **error);

/*
 * Outputs (requests-print.c, view.c, export.c). 0 or -1 (errno). The
 * table lists the requests that took min_ns or more (0: all).
 */
int dt_rq_print_table(const struct dt_rq_model *m, int64_t min_ns, FILE *f);
int dt_rq_print_tree(const struct dt_rq_model *m, int request, FILE *f);
/* The table's head line, one row of it and a tree, under another ID
 * than the request's own (dtracer watch numbers requests as it prints
 * them). */
void dt_rq_print_head(FILE *f);
void dt_rq_print_row(const struct dt_rq_model *m, int request, int id,
		     FILE *f);
int dt_rq_print_tree_as(const struct dt_rq_model *m, int request, int id,
			FILE *f);

#endif
