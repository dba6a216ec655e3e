/*
 * The requests builder's internals, shared by its stages (requests.c
 * lists them and calls them in order): what ingestion collects, the
 * state of dt_rq_finish, and each stage's entry points. Not part of the
 * collector's interface: requests.h is, and this header does not
 * include it (the model's types are in requests-types.h).
 */
#ifndef DT_COLLECTOR_REQUESTS_INT_H
#define DT_COLLECTOR_REQUESTS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "requests-types.h"

enum th_state { ST_UNKNOWN, ST_RUNNING, ST_RUNNABLE, ST_BLOCKED };

/* A piece of a thread's time while a span of it was open. */
struct piece {
	int64_t a, b;
	uint8_t state, block;
};

struct sysrec {
	const char *name;	/* interned */
	int64_t entry, exit;
};

/* A flag interval as the trace tells it (before requests split them). */
struct raw {
	int host;
	int32_t tid, pid, parent_tid;
	char *procname;
	enum dt_rq_flag_reason flag;
	enum dt_rq_end_reason end;
	int64_t start, end_ts;
	uint64_t duration;
	struct dt_flow flow;
	uint64_t context;	/* the host's request number, 0: none */
	int origin;		/* resumed: the raw that started the request */
	bool guess;		/* a handoff or deferred flag made it part */
	bool trimmed;		/* a manual flag whose requests before a cut
				 * were dropped (requests-window.c) */
	GArray *pieces;		/* struct piece */
	GArray *sys;		/* struct sysrec */
	GArray *evts;		/* int64_t: the thread's own events */
	/* finish() */
	int parent;		/* raw index */
	int link_send;		/* send that made it (propagated), -1 */
	int64_t branch_end;	/* end of its subtree and answers */
	int first_final;	/* final span ids: [first, first + n) */
	int n_final;
};

/* A dtracer_mark_send or dtracer_mark_recv. */
struct seg {
	int host;
	int64_t ts;
	int64_t sys_entry;	/* send: entry of the writer's syscall */
	int32_t tid;		/* send: the writer */
	struct dt_flow flow;
	uint32_t seq, end_seq;
	int64_t lo, hi;		/* unwrapped [seq, end_seq) in the flow */
	int match;		/* recv: the send; send: its first recv */
	int span;		/* send: raw span of the writer, -1 */
	int msg;		/* send: message index, -1 */
	uint64_t fresh;		/* send: bytes not sent before */
};

struct thread {
	int32_t tid;
	int open;		/* raw index, -1 */
	enum th_state state;
	enum dt_rq_block block;
	int64_t since;
	const char *sys;	/* interned, NULL outside a syscall */
	int64_t sys_entry, sys_fd;
};

struct host {
	char *name;
	GHashTable *threads;	/* tid -> struct thread */
	GHashTable *sockets;	/* (pid << 32 | fd) -> 1 */
	GHashTable *contexts;	/* struct rq_ctx_key -> raw index + 1 */
	int64_t last_ts;
};

/*
 * A request's raw span on a host, per thread: tid -1 is the one that
 * started it (read the request).
 */
struct rq_ctx_key {
	uint64_t context;
	int32_t tid;
};

guint rq_ctx_key_hash(gconstpointer k);
gboolean rq_ctx_key_equal(gconstpointer a, gconstpointer b);

struct dt_rq_builder {
	GPtrArray *hosts;	/* struct host */
	GArray *raws;		/* struct raw */
	GArray *sends, *recvs;	/* struct seg */
	uint64_t events, dtracer_events;
};

/* A directed flow's segments, with sequence numbers unwrapped. */
struct flowsegs {
	GArray *sends, *recvs;	/* int: indices, in time order */
	struct dt_seq_base base;
};

struct finish {
	struct dt_rq_builder *b;
	struct dt_rq_model *m;
	GHashTable *flows;	/* struct dt_flow -> struct flowsegs */
	GHashTable *by_tid;	/* (host << 32 | tid) -> GArray of raw */
	/* raw tree */
	int *first_child, *next_sib;
	/* final nodes: one per raw, or one per request of a manual raw */
	GArray *nodes;		/* struct node */
};

struct msg {
	int from, to;		/* raw spans */
	int first_send;
	int recv_host;
	struct dt_flow flow;
	int64_t send, recv, last_send, last_recv;
	uint64_t bytes;
	unsigned segments;
	bool response;
};

/* A span of the model before numbering. */
struct node {
	int raw;
	int64_t start, end;
	enum dt_rq_end_reason end_reason;
	uint64_t duration;
	int parent;		/* node */
	int first_child, next_sib;
	int id;			/* final span id */
};

struct range {
	int64_t a, b;
};

static inline struct raw *raw_at(struct dt_rq_builder *b, int i)
{
	return &g_array_index(b->raws, struct raw, i);
}

static inline struct seg *send_at(struct finish *F, int i)
{
	return &g_array_index(F->b->sends, struct seg, i);
}

static inline struct seg *recv_at(struct finish *F, int i)
{
	return &g_array_index(F->b->recvs, struct seg, i);
}

bool rq_answered(struct finish *F, const struct dt_flow *rev, int host,
		 int64_t a, int64_t b);

static inline struct node *node_at(struct finish *F, int i)
{
	return &g_array_index(F->nodes, struct node, i);
}

/*
 * Each stage's entry points, in the order requests.c calls them; a stage
 * may use those of the stages before it, never after.
 */

/* 1. requests-ingest.c: each event (dt_rq_add), then the spans left open */
int rq_ingest(struct dt_rq_builder *b, const struct dt_rq_event *ev);
void rq_thread_to(struct dt_rq_builder *b, struct thread *t, int64_t ts,
		  enum th_state st, enum dt_rq_block blk);
void rq_close_open(struct dt_rq_builder *b);

/* 2. requests-match.c */
void rq_flowsegs_free(gpointer p);
void rq_index_flows(struct finish *F);
int rq_match_flow(struct finish *F, struct flowsegs *fs);

/* 3. requests-link.c */
void rq_index_tids(struct finish *F);
void rq_sends_to_spans(struct finish *F);
int rq_latest(struct finish *F, GArray *idx, bool sends, int host,
	      bool other_host, int64_t ts);
void rq_link_raws(struct finish *F);
void rq_break_cycles(struct finish *F);

/* 4. requests-messages.c */
GArray *rq_build_messages(struct finish *F);

/* 5. requests-tree.c */
void rq_raw_tree(struct finish *F, GArray *msgs);
void rq_make_nodes(struct finish *F, GArray *msgs);
int rq_node_of(struct finish *F, int i, int64_t t);
void rq_node_parents(struct finish *F);
GArray *rq_node_children(struct finish *F);

/* 6. requests-spans.c: the model's spans, requests and messages */
int rq_assemble(struct finish *F, GArray *roots, GArray *msgs);

/* 7. requests-summary.c: each span's summary, each request's */
int rq_summarize_spans(struct finish *F);
int rq_fill_requests(struct dt_rq_model *m);

#endif
