/*
 * Requests: the builder (events in, spans, messages and requests out).
 * See requests.h and docs/architecture.md, "Requests".
 */
#define _DEFAULT_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "requests.h"

const char *dt_rq_flag_reason_name(enum dt_rq_flag_reason r)
{
	static const char *const names[] = { "manual", "propagated",
					     "inherited" };

	return (unsigned)r < 3 ? names[r] : "unknown";
}

const char *dt_rq_end_reason_name(enum dt_rq_end_reason r)
{
	static const char *const names[] = { "removed", "exited", "response",
					     "closed", "unloaded", "open",
					     "request" };

	return (unsigned)r < 7 ? names[r] : "unknown";
}

const char *dt_rq_block_name(enum dt_rq_block b)
{
	static const char *const names[] = { "network", "poll", "disk",
					     "lock", "sleep", "other" };

	return (unsigned)b < DT_RQ_BLOCK_N ? names[b] : "unknown";
}

static const char *flow_end(const struct dt_rq_flow *f, const uint8_t *a,
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

const char *dt_rq_flow_src(const struct dt_rq_flow *f, char *buf)
{
	return flow_end(f, f->saddr, f->sport, buf);
}

const char *dt_rq_flow_dst(const struct dt_rq_flow *f, char *buf)
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

/* ------------------------------------------------------------------ */
/* Ingestion: per host, events in time order.                          */
/* ------------------------------------------------------------------ */

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
	struct dt_rq_flow flow;
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
	struct dt_rq_flow flow;
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
	int64_t last_ts;
};

struct dt_rq_builder {
	GPtrArray *hosts;	/* struct host */
	GArray *raws;		/* struct raw */
	GArray *sends, *recvs;	/* struct seg */
	uint64_t events, dtracer_events;
};

static void host_free(gpointer p)
{
	struct host *h = p;

	g_hash_table_destroy(h->threads);
	g_hash_table_destroy(h->sockets);
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
	g_ptr_array_add(b->hosts, h);
	return (int)b->hosts->len - 1;
}

static struct thread *thread_of(struct host *h, int32_t tid)
{
	struct thread *t = g_hash_table_lookup(h->threads,
					       GINT_TO_POINTER(tid));

	if (!t) {
		t = g_new0(struct thread, 1);
		t->tid = tid;
		t->open = -1;
		g_hash_table_insert(h->threads, GINT_TO_POINTER(tid), t);
	}
	return t;
}

static struct raw *raw_at(struct dt_rq_builder *b, int i)
{
	return &g_array_index(b->raws, struct raw, i);
}

/* Close the thread's current piece at ts and start one in state st. */
static void thread_to(struct dt_rq_builder *b, struct thread *t, int64_t ts,
		      enum th_state st, enum dt_rq_block blk)
{
	if (t->open >= 0 && ts > t->since) {
		struct piece p = { t->since, ts, t->state, t->block };

		g_array_append_val(raw_at(b, t->open)->pieces, p);
	}
	if (ts > t->since || t->open < 0)
		t->since = ts;
	t->state = st;
	t->block = blk;
}

static bool name_in(const char *name, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(name, *set))
			return true;
	return false;
}

static const char *const net_calls[] = {
	"recvfrom", "recvmsg", "recvmmsg", "sendto", "sendmsg", "sendmmsg",
	"accept", "accept4", "connect", "shutdown", NULL
};
static const char *const fd_io_calls[] = {
	"read", "write", "readv", "writev", "pread64", "pwrite64",
	"preadv", "pwritev", "splice", "sendfile64", NULL
};
static const char *const poll_calls[] = {
	"poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait",
	"epoll_pwait2", NULL
};
static const char *const lock_calls[] = {
	"futex", "futex_waitv", "flock", NULL
};
static const char *const sleep_calls[] = {
	"nanosleep", "clock_nanosleep", "pause", NULL
};
static const char *const file_calls[] = {
	"fsync", "fdatasync", "sync", "syncfs", "sync_file_range", "openat",
	"open", "newfstatat", "statx", "unlink", "unlinkat", "rename",
	"renameat2", "fallocate", "ftruncate", "truncate", "getdents64",
	NULL
};

static bool is_socket(struct host *h, int32_t pid, int64_t fd)
{
	gint64 key = ((gint64)pid << 32) | (uint32_t)fd;

	return fd >= 0 && g_hash_table_contains(h->sockets, &key);
}

/* What a thread that switched out in state prev_state waits for. */
static enum dt_rq_block block_kind(struct host *h, struct thread *t,
				   int32_t pid, int64_t prev_state)
{
	bool d = prev_state & 2;	/* TASK_UNINTERRUPTIBLE */
	const char *s = t->sys;

	if (!s)
		return d ? DT_RQ_BLOCK_DISK : DT_RQ_BLOCK_OTHER;
	if (name_in(s, net_calls))
		return DT_RQ_BLOCK_NETWORK;
	if (name_in(s, fd_io_calls)) {
		if (is_socket(h, pid, t->sys_fd))
			return DT_RQ_BLOCK_NETWORK;
		return d ? DT_RQ_BLOCK_DISK : DT_RQ_BLOCK_OTHER;
	}
	if (name_in(s, poll_calls))
		return DT_RQ_BLOCK_POLL;
	if (name_in(s, lock_calls))
		return DT_RQ_BLOCK_LOCK;
	if (name_in(s, sleep_calls))
		return DT_RQ_BLOCK_SLEEP;
	if (name_in(s, file_calls) || d)
		return DT_RQ_BLOCK_DISK;
	return DT_RQ_BLOCK_OTHER;
}

static void socket_note(struct host *h, int32_t pid, int64_t fd, bool add)
{
	gint64 key = ((gint64)pid << 32) | (uint32_t)fd;

	if (fd < 0 || pid < 0)
		return;
	if (add)
		g_hash_table_add(h->sockets, g_memdup2(&key, sizeof(key)));
	else
		g_hash_table_remove(h->sockets, &key);
}

static int add_flag(struct dt_rq_builder *b, struct host *h, int hi,
		    const struct dt_rq_event *ev)
{
	struct thread *t = thread_of(h, ev->tid);
	struct raw r = { 0 };
	bool self = ev->ctx_tid == ev->tid;

	if (t->open >= 0) {
		/* A propagated flag made manual: the same span goes on. */
		if (ev->reason == DT_RQ_FLAG_MANUAL)
			raw_at(b, t->open)->flag = DT_RQ_FLAG_MANUAL;
		return 0;
	}
	r.host = hi;
	r.tid = ev->tid;
	r.pid = ev->pid;
	r.parent_tid = ev->parent;
	r.flag = (unsigned)ev->reason <= DT_RQ_FLAG_INHERITED ?
		 (enum dt_rq_flag_reason)ev->reason : DT_RQ_FLAG_MANUAL;
	r.end = DT_RQ_END_OPEN;
	r.start = r.end_ts = ev->ts;
	r.flow = ev->flow;
	if (self && ev->procname && !(r.procname = strdup(ev->procname)))
		return -1;
	r.pieces = g_array_new(FALSE, FALSE, sizeof(struct piece));
	r.sys = g_array_new(FALSE, FALSE, sizeof(struct sysrec));
	r.evts = g_array_new(FALSE, FALSE, sizeof(int64_t));
	r.parent = r.link_send = -1;
	g_array_append_val(b->raws, r);
	t->open = (int)b->raws->len - 1;
	t->since = ev->ts;
	t->state = self ? ST_RUNNING : ST_UNKNOWN;
	return 0;
}

static void add_unflag(struct dt_rq_builder *b, struct host *h,
		       const struct dt_rq_event *ev)
{
	struct thread *t = thread_of(h, ev->tid);
	struct raw *r;

	if (t->open < 0)
		return;
	thread_to(b, t, ev->ts, t->state, t->block);
	r = raw_at(b, t->open);
	r->end_ts = ev->ts;
	if (t->sys) {	/* unflagged inside a syscall: up to the unflag */
		struct sysrec s = { t->sys, t->sys_entry, ev->ts };

		g_array_append_val(r->sys, s);
	}
	r->end = (unsigned)ev->reason <= DT_RQ_END_UNLOADED ?
		 (enum dt_rq_end_reason)ev->reason : DT_RQ_END_REMOVED;
	r->duration = ev->duration_ns;
	t->open = -1;
}

static void add_seg(struct dt_rq_builder *b, struct host *h, int hi,
		    const struct dt_rq_event *ev, bool send)
{
	struct seg s = { 0 };

	s.host = hi;
	s.ts = s.sys_entry = ev->ts;
	s.tid = send ? ev->tid : -1;
	s.flow = ev->flow;
	s.seq = ev->seq;
	s.end_seq = ev->end_seq;
	s.match = s.span = s.msg = -1;
	if (send) {
		struct thread *t = thread_of(h, ev->tid);

		if (t->sys && ev->ctx_tid == ev->tid)
			s.sys_entry = t->sys_entry;
	}
	g_array_append_val(send ? b->sends : b->recvs, s);
}

/* An event the thread ran itself: it is on a CPU. */
static int own_event(struct dt_rq_builder *b, struct host *h,
		     const struct dt_rq_event *ev)
{
	struct thread *t;
	struct raw *r;

	if (ev->ctx_tid < 0)
		return 0;
	t = thread_of(h, ev->ctx_tid);
	if (t->open < 0)
		return 0;
	if (t->state != ST_RUNNING)
		thread_to(b, t, ev->ts, ST_RUNNING, DT_RQ_BLOCK_OTHER);
	r = raw_at(b, t->open);
	g_array_append_val(r->evts, ev->ts);
	/* The latest name: a flagged shell that exec()s its program (the
	 * usual `echo $$ > add_pid; exec curl ...`) is shown as the program.
	 */
	if (ev->procname && (!r->procname || strcmp(r->procname, ev->procname))) {
		char *name = strdup(ev->procname);

		if (!name)
			return -1;
		free(r->procname);
		r->procname = name;
	}
	return 0;
}

static void add_syscall(struct dt_rq_builder *b, struct host *h,
			const struct dt_rq_event *ev, bool entry)
{
	struct thread *t = thread_of(h, ev->ctx_tid);
	const char *name = g_intern_string(ev->name ? ev->name : "?");

	if (entry) {
		t->sys = name;
		t->sys_entry = ev->ts;
		t->sys_fd = ev->fd;
		if (!strcmp(name, "close"))
			socket_note(h, ev->pid, ev->fd, false);
		else if (!strcmp(name, "connect"))
			socket_note(h, ev->pid, ev->fd, true);
		return;
	}
	if ((!strcmp(name, "socket") || !strcmp(name, "accept") ||
	     !strcmp(name, "accept4")) && ev->ret >= 0)
		socket_note(h, ev->pid, ev->ret, true);
	if (t->open >= 0 && (t->sys == name || !t->sys)) {
		/* No entry: the gate let it through only once the flag
		 * came, inside this syscall. */
		struct sysrec s = { name, t->sys ? t->sys_entry :
				    raw_at(b, t->open)->start, ev->ts };

		g_array_append_val(raw_at(b, t->open)->sys, s);
	}
	t->sys = NULL;
}

static void add_switch(struct dt_rq_builder *b, struct host *h,
		       const struct dt_rq_event *ev)
{
	struct thread *prev = thread_of(h, ev->tid);
	struct thread *next = thread_of(h, ev->next_tid);

	if (prev->open >= 0) {
		if (ev->prev_state == 0)
			thread_to(b, prev, ev->ts, ST_RUNNABLE,
				  DT_RQ_BLOCK_OTHER);
		else
			thread_to(b, prev, ev->ts, ST_BLOCKED,
				  block_kind(h, prev, ev->pid,
					     ev->prev_state));
	}
	if (next->open >= 0)
		thread_to(b, next, ev->ts, ST_RUNNING, DT_RQ_BLOCK_OTHER);
}

static void add_wakeup(struct dt_rq_builder *b, struct host *h,
		       const struct dt_rq_event *ev)
{
	struct thread *t = thread_of(h, ev->tid);

	if (t->open >= 0 && (t->state == ST_BLOCKED || t->state == ST_UNKNOWN))
		thread_to(b, t, ev->ts, ST_RUNNABLE, DT_RQ_BLOCK_OTHER);
}

int dt_rq_add(struct dt_rq_builder *b, const struct dt_rq_event *ev)
{
	struct host *h;

	if (ev->host < 0 || (guint)ev->host >= b->hosts->len) {
		errno = EINVAL;
		return -1;
	}
	h = b->hosts->pdata[ev->host];
	if (ev->ts > h->last_ts)
		h->last_ts = ev->ts;
	b->events++;
	switch (ev->kind) {
	case DT_RQ_EV_FLAG:
		b->dtracer_events++;
		if (add_flag(b, h, ev->host, ev))
			return -1;
		break;
	case DT_RQ_EV_UNFLAG:
		b->dtracer_events++;
		add_unflag(b, h, ev);
		break;
	case DT_RQ_EV_MARK_SEND:
	case DT_RQ_EV_MARK_RECV:
		b->dtracer_events++;
		add_seg(b, h, ev->host, ev, ev->kind == DT_RQ_EV_MARK_SEND);
		break;
	case DT_RQ_EV_SCHED_SWITCH:
		add_switch(b, h, ev);
		return 0;	/* counted for the thread switching in */
	case DT_RQ_EV_SCHED_WAKEUP:
		add_wakeup(b, h, ev);
		return 0;	/* runs in the waker's context */
	case DT_RQ_EV_SYSCALL_ENTRY:
	case DT_RQ_EV_SYSCALL_EXIT:
		if (own_event(b, h, ev))
			return -1;
		add_syscall(b, h, ev, ev->kind == DT_RQ_EV_SYSCALL_ENTRY);
		return 0;
	case DT_RQ_EV_OTHER:
		break;
	}
	return own_event(b, h, ev);
}

/* ------------------------------------------------------------------ */
/* Matching: marked segments by flow and sequence numbers.             */
/* ------------------------------------------------------------------ */

/* A directed flow's segments, with sequence numbers unwrapped. */
struct flowsegs {
	GArray *sends, *recvs;	/* int: indices, in time order */
	bool based;
	uint32_t base;
};

static guint flow_hash(gconstpointer p)
{
	const struct dt_rq_flow *f = p;
	guint h = f->family * 31u + f->sport * 65599u + f->dport;
	int i;

	for (i = 0; i < 16; i++)
		h = h * 33u + f->saddr[i] * 7u + f->daddr[i];
	return h;
}

static gboolean flow_equal(gconstpointer a, gconstpointer b)
{
	const struct dt_rq_flow *x = a, *y = b;

	return x->family == y->family && x->sport == y->sport &&
	       x->dport == y->dport && !memcmp(x->saddr, y->saddr, 16) &&
	       !memcmp(x->daddr, y->daddr, 16);
}

static struct dt_rq_flow flow_reverse(const struct dt_rq_flow *f)
{
	struct dt_rq_flow r = *f;

	memcpy(r.saddr, f->daddr, 16);
	memcpy(r.daddr, f->saddr, 16);
	r.sport = f->dport;
	r.dport = f->sport;
	return r;
}

static void flowsegs_free(gpointer p)
{
	struct flowsegs *fs = p;

	g_array_free(fs->sends, TRUE);
	g_array_free(fs->recvs, TRUE);
	g_free(fs);
}

struct finish {
	struct dt_rq_builder *b;
	struct dt_rq_model *m;
	GHashTable *flows;	/* struct dt_rq_flow -> struct flowsegs */
	GHashTable *by_tid;	/* (host << 32 | tid) -> GArray of raw */
	/* raw tree */
	int *first_child, *next_sib;
	/* final nodes: one per raw, or one per request of a manual raw */
	GArray *nodes;		/* struct node */
};

static struct seg *send_at(struct finish *F, int i)
{
	return &g_array_index(F->b->sends, struct seg, i);
}

static struct seg *recv_at(struct finish *F, int i)
{
	return &g_array_index(F->b->recvs, struct seg, i);
}

static struct flowsegs *flow_get(struct finish *F, const struct dt_rq_flow *f)
{
	struct flowsegs *fs = g_hash_table_lookup(F->flows, f);

	if (!fs) {
		fs = g_new0(struct flowsegs, 1);
		fs->sends = g_array_new(FALSE, FALSE, sizeof(int));
		fs->recvs = g_array_new(FALSE, FALSE, sizeof(int));
		g_hash_table_insert(F->flows, (gpointer)f, fs);
	}
	return fs;
}

static void unwrap(struct flowsegs *fs, struct seg *s)
{
	if (!fs->based) {
		fs->based = true;
		fs->base = s->seq;
	}
	s->lo = (int32_t)(s->seq - fs->base);
	s->hi = s->lo + (uint32_t)(s->end_seq - s->seq);
}

static void index_flows(struct finish *F)
{
	guint i;

	for (i = 0; i < F->b->sends->len; i++) {
		struct seg *s = send_at(F, i);
		struct flowsegs *fs = flow_get(F, &s->flow);
		int v = (int)i;

		unwrap(fs, s);
		g_array_append_val(fs->sends, v);
	}
	for (i = 0; i < F->b->recvs->len; i++) {
		struct seg *r = recv_at(F, i);
		struct flowsegs *fs = flow_get(F, &r->flow);
		int v = (int)i;

		unwrap(fs, r);
		g_array_append_val(fs->recvs, v);
	}
}

static struct dt_rq_builder *sort_b;	/* g_array_sort has no data */

static gint by_lo(gconstpointer a, gconstpointer b)
{
	const struct seg *x = &g_array_index(sort_b->sends, struct seg,
					     *(const int *)a);
	const struct seg *y = &g_array_index(sort_b->sends, struct seg,
					     *(const int *)b);

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Longest stretch of sequence space one send event covers (GSO). */
#define DT_RQ_MAX_SEG (1 << 20)

/*
 * Each receive: the earliest send of the same bytes on another host.
 * Sends sorted by start: those starting before the receive's end, back
 * to one maximal segment before its start.
 */
static void match_flow(struct finish *F, struct flowsegs *fs)
{
	GArray *by = g_array_copy(fs->sends);
	guint i;

	sort_b = F->b;
	g_array_sort(by, by_lo);
	for (i = 0; i < fs->recvs->len; i++) {
		int ri = g_array_index(fs->recvs, int, i);
		struct seg *r = recv_at(F, ri);
		guint lo = 0, hi = by->len;

		while (lo < hi) {	/* first send with lo >= r->hi */
			guint mid = (lo + hi) / 2;

			if (send_at(F, g_array_index(by, int, mid))->lo < r->hi)
				lo = mid + 1;
			else
				hi = mid;
		}
		while (lo-- > 0) {
			int si = g_array_index(by, int, lo);
			struct seg *s = send_at(F, si);

			if (s->lo < r->lo - DT_RQ_MAX_SEG)
				break;
			if (s->host == r->host || r->lo >= s->hi)
				continue;
			if (r->match < 0 || s->ts < send_at(F, r->match)->ts)
				r->match = si;
		}
		if (r->match >= 0) {
			struct seg *s = send_at(F, r->match);

			if (s->match < 0 || r->ts < recv_at(F, s->match)->ts)
				s->match = ri;
		}
	}
	g_array_free(by, TRUE);
}

/* ------------------------------------------------------------------ */
/* Linking: which span sent what, and which span each flag came from.  */
/* ------------------------------------------------------------------ */

static gint64 *tid_key(int host, int32_t tid)
{
	gint64 *k = g_new(gint64, 1);

	*k = ((gint64)host << 32) | (uint32_t)tid;
	return k;
}

static void index_tids(struct finish *F)
{
	guint i;

	for (i = 0; i < F->b->raws->len; i++) {
		struct raw *r = raw_at(F->b, (int)i);
		gint64 *k = tid_key(r->host, r->tid);
		GArray *a = g_hash_table_lookup(F->by_tid, k);
		int v = (int)i;

		if (!a) {
			a = g_array_new(FALSE, FALSE, sizeof(int));
			g_hash_table_insert(F->by_tid, k, a);
		} else {
			g_free(k);
		}
		g_array_append_val(a, v);	/* raws are in start order */
	}
}

/* The latest span of (host, tid) that started at or before ts, or -1. */
static int span_at(struct finish *F, int host, int32_t tid, int64_t ts)
{
	gint64 k = ((gint64)host << 32) | (uint32_t)tid;
	GArray *a = g_hash_table_lookup(F->by_tid, &k);
	guint lo = 0, hi = a ? a->len : 0;

	while (lo < hi) {	/* first span starting after ts */
		guint mid = (lo + hi) / 2;

		if (raw_at(F->b, g_array_index(a, int, mid))->start > ts)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo ? g_array_index(a, int, lo - 1) : -1;
}

static void sends_to_spans(struct finish *F)
{
	guint i;

	for (i = 0; i < F->b->sends->len; i++) {
		struct seg *s = send_at(F, (int)i);

		s->span = span_at(F, s->host, s->tid, s->ts);
	}
}

/* The latest segment of idx (sends or recvs) on host at or before ts. */
static int latest(struct finish *F, GArray *idx, bool sends, int host,
		  bool other_host, int64_t ts)
{
	int found = -1;
	guint i;

	for (i = 0; idx && i < idx->len; i++) {
		int si = g_array_index(idx, int, i);
		struct seg *s = sends ? send_at(F, si) : recv_at(F, si);

		if ((s->host == host) == other_host || s->ts > ts)
			continue;
		if (found < 0 || s->ts >= (sends ? send_at(F, found)->ts :
					   recv_at(F, found)->ts))
			found = si;
	}
	return found;
}

/*
 * A propagated span's parent: the span that sent the marked bytes its
 * thread read. The receive on its own host (same clock) says which
 * bytes; the matched send says who sent them. Without a receive, the
 * latest send of the flow from another host before the flag.
 */
static void link_propagated(struct finish *F, struct raw *r)
{
	struct flowsegs *fs = g_hash_table_lookup(F->flows, &r->flow);
	int ri, si = -1;

	if (!fs)
		return;
	ri = latest(F, fs->recvs, false, r->host, false, r->start);
	if (ri >= 0)
		si = recv_at(F, ri)->match;
	if (si < 0)
		si = latest(F, fs->sends, true, r->host, true, r->start);
	if (si < 0)
		return;
	r->link_send = si;
	r->parent = send_at(F, si)->span;
}

static void link_raws(struct finish *F)
{
	guint i;

	for (i = 0; i < F->b->raws->len; i++) {
		struct raw *r = raw_at(F->b, (int)i);

		if (r->flag == DT_RQ_FLAG_PROPAGATED)
			link_propagated(F, r);
		else if (r->flag == DT_RQ_FLAG_INHERITED)
			r->parent = span_at(F, r->host, r->parent_tid,
					    r->start);
		if (r->parent == (int)i)
			r->parent = -1;
	}
}

/* ------------------------------------------------------------------ */
/* Messages: runs of segments one span sent on one flow.               */
/* ------------------------------------------------------------------ */

struct msg {
	int from, to;		/* raw spans */
	int first_send;
	int recv_host;
	struct dt_rq_flow flow;
	int64_t send, recv, last_send, last_recv;
	uint64_t bytes;
	unsigned segments;
	bool response;
};

static void msg_add_seg(struct finish *F, struct msg *g, struct seg *s,
			int64_t *max_hi)
{
	if (s->hi > *max_hi) {
		s->fresh = (uint64_t)(s->hi - (s->lo > *max_hi ? s->lo :
					       *max_hi));
		g->bytes += s->fresh;
		*max_hi = s->hi;
	}
	g->segments++;
	g->last_send = s->ts;
	if (s->match >= 0) {
		struct seg *r = recv_at(F, s->match);

		if (g->recv_host < 0) {
			g->recv_host = r->host;
			g->recv = r->ts;
		}
		if (r->ts < g->recv)
			g->recv = r->ts;
		if (r->ts > g->last_recv)
			g->last_recv = r->ts;
	}
}

/* Did host receive anything on flow in (a, b]? (an answer came back) */
static bool answered(struct finish *F, const struct dt_rq_flow *rev,
		     int host, int64_t a, int64_t b)
{
	struct flowsegs *fs = g_hash_table_lookup(F->flows, rev);
	guint i;

	for (i = 0; fs && i < fs->recvs->len; i++) {
		struct seg *r = recv_at(F, g_array_index(fs->recvs, int, i));

		if (r->host == host && r->ts > a && r->ts <= b)
			return true;
	}
	return false;
}

static void flow_messages(struct finish *F, struct flowsegs *fs,
			  GArray *msgs)
{
	struct dt_rq_flow rev;
	struct msg *g = NULL;
	int64_t max_hi = INT64_MIN;
	guint i;

	for (i = 0; i < fs->sends->len; i++) {
		struct seg *s = send_at(F, g_array_index(fs->sends, int, i));

		if (s->span < 0) {
			s->msg = -1;
			continue;
		}
		rev = flow_reverse(&s->flow);
		if (!g || g->from != s->span ||
		    answered(F, &rev, s->host, g->last_send, s->ts)) {
			struct msg n = { .from = s->span, .to = -1,
					 .first_send = g_array_index(fs->sends,
								     int, i),
					 .recv_host = -1, .flow = s->flow,
					 .send = s->ts, .last_send = s->ts,
					 .recv = 0, .last_recv = 0 };

			g_array_append_val(msgs, n);
			g = &g_array_index(msgs, struct msg, msgs->len - 1);
		}
		s->msg = (int)msgs->len - 1;
		msg_add_seg(F, g, s, &max_hi);
	}
}

/*
 * Who received a message: the span its bytes flagged (request, set by
 * build_messages); else a span of the receiving host already serving
 * this flow; else the span that sent the latest request on the reverse
 * flow (a response).
 */
static void msg_target(struct finish *F, struct msg *g)
{
	struct dt_rq_flow rev = flow_reverse(&g->flow);
	struct flowsegs *fs;
	int si;
	guint i;

	if (g->to >= 0 || g->recv_host < 0)
		return;
	for (i = 0; i < F->b->raws->len; i++) {
		struct raw *r = raw_at(F->b, (int)i);

		if (r->host == g->recv_host && r->flag == DT_RQ_FLAG_PROPAGATED &&
		    flow_equal(&r->flow, &g->flow) && r->start <= g->recv &&
		    g->recv <= r->end_ts) {
			g->to = (int)i;
			return;
		}
	}
	fs = g_hash_table_lookup(F->flows, &rev);
	if (!fs)
		return;
	si = latest(F, fs->sends, true, g->recv_host, false, g->recv);
	if (si >= 0 && send_at(F, si)->span >= 0) {
		g->to = send_at(F, si)->span;
		g->response = true;
	}
}

static GArray *build_messages(struct finish *F)
{
	GArray *msgs = g_array_new(FALSE, TRUE, sizeof(struct msg));
	GHashTableIter it;
	gpointer v;
	guint i;

	g_hash_table_iter_init(&it, F->flows);
	while (g_hash_table_iter_next(&it, NULL, &v))
		flow_messages(F, v, msgs);
	for (i = 0; i < F->b->raws->len; i++) {
		struct raw *r = raw_at(F->b, (int)i);

		if (r->link_send >= 0 && send_at(F, r->link_send)->msg >= 0)
			g_array_index(msgs, struct msg,
				      send_at(F, r->link_send)->msg).to = (int)i;
	}
	for (i = 0; i < msgs->len; i++)
		msg_target(F, &g_array_index(msgs, struct msg, i));
	return msgs;
}

/* ------------------------------------------------------------------ */
/* Requests: a manual flag split per request, nodes, trees.            */
/* ------------------------------------------------------------------ */

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

static struct node *node_at(struct finish *F, int i)
{
	return &g_array_index(F->nodes, struct node, i);
}

/* Cut parent links that make a cycle (contradictory traces). */
static void break_cycles(struct finish *F)
{
	guint n = F->b->raws->len, i, steps;

	for (i = 0; i < n; i++) {
		int p = raw_at(F->b, (int)i)->parent;

		for (steps = 0; p >= 0 && steps <= n; steps++) {
			if (p == (int)i) {
				raw_at(F->b, (int)i)->parent = -1;
				break;
			}
			p = raw_at(F->b, p)->parent;
		}
	}
}

static int64_t branch_end(struct finish *F, int i, bool *done)
{
	struct raw *r = raw_at(F->b, i);
	int c;

	if (done[i])
		return r->branch_end;
	done[i] = true;
	if (r->end_ts > r->branch_end)
		r->branch_end = r->end_ts;
	for (c = F->first_child[i]; c >= 0; c = F->next_sib[c]) {
		int64_t e = branch_end(F, c, done);

		if (e > r->branch_end)
			r->branch_end = e;
	}
	return r->branch_end;
}

/* Each raw's subtree end, answers to its parent included. */
static void raw_tree(struct finish *F, GArray *msgs)
{
	guint n = F->b->raws->len, i;
	bool *done = g_new0(bool, n ? n : 1);

	F->first_child = g_new(int, n ? n : 1);
	F->next_sib = g_new(int, n ? n : 1);
	for (i = 0; i < n; i++)
		F->first_child[i] = F->next_sib[i] = -1;
	for (i = n; i-- > 0;) {
		int p = raw_at(F->b, (int)i)->parent;

		raw_at(F->b, (int)i)->branch_end = INT64_MIN;
		if (p >= 0) {
			F->next_sib[i] = F->first_child[p];
			F->first_child[p] = (int)i;
		}
	}
	for (i = 0; i < msgs->len; i++) {
		struct msg *g = &g_array_index(msgs, struct msg, i);
		struct raw *from = raw_at(F->b, g->from);

		if (g->response && g->to >= 0 && g->to == from->parent &&
		    g->last_recv > from->branch_end)
			from->branch_end = g->last_recv;
	}
	for (i = 0; i < n; i++)
		branch_end(F, (int)i, done);
	g_free(done);
}

static gint by_a(gconstpointer x, gconstpointer y)
{
	const struct range *p = x, *q = y;

	return p->a < q->a ? -1 : p->a > q->a;
}

/* Did raw span c send anything that left a message? */
static bool sent_any(GArray *msgs, int c)
{
	guint k;

	for (k = 0; k < msgs->len; k++)
		if (g_array_index(msgs, struct msg, k).from == c)
			return true;
	return false;
}

/* Sorted ranges merged where they overlap. */
static void merge_overlaps(GArray *cl)
{
	guint k, n = 0;

	for (k = 0; k < cl->len; k++) {
		struct range x = g_array_index(cl, struct range, k);
		struct range *last = n ? &g_array_index(cl, struct range, n - 1)
				       : NULL;

		if (last && x.a <= last->b) {
			if (x.b > last->b)
				last->b = x.b;
		} else {
			g_array_index(cl, struct range, n++) = x;
		}
	}
	g_array_set_size(cl, n);
}

/*
 * Helpers: threads the manual thread started that neither sent nor have
 * children (curl's resolver thread, say) belong to the request they
 * prepared, the first one not over when they started (or the last one).
 */
static void attach_helpers(GArray *cl, GArray *helpers)
{
	guint k, j;

	for (k = 0; k < helpers->len; k++) {
		struct range h = g_array_index(helpers, struct range, k);
		struct range *x = &g_array_index(cl, struct range, cl->len - 1);

		for (j = 0; j < cl->len; j++)
			if (g_array_index(cl, struct range, j).b >= h.a) {
				x = &g_array_index(cl, struct range, j);
				break;
			}
		if (h.a < x->a)
			x->a = h.a;
		if (h.b > x->b)
			x->b = h.b;
	}
	merge_overlaps(cl);
}

/*
 * A manual flag's requests: what it sent (to each child span, until the
 * child's subtree and answers end; elsewhere, until received), clustered
 * where these overlap. Each cluster is one request; helper threads join
 * one (attach_helpers).
 */
static GArray *manual_clusters(struct finish *F, int i, GArray *msgs)
{
	GArray *br = g_array_new(FALSE, FALSE, sizeof(struct range));
	GArray *helpers = g_array_new(FALSE, FALSE, sizeof(struct range));
	GArray *cl = br;
	guint k;
	int c;

	for (c = F->first_child[i]; c >= 0; c = F->next_sib[c]) {
		struct raw *r = raw_at(F->b, c);
		struct range x = { r->start, r->branch_end };

		if (r->link_send >= 0)
			x.a = send_at(F, r->link_send)->sys_entry;
		else if (F->first_child[c] < 0 && !sent_any(msgs, c)) {
			g_array_append_val(helpers, x);
			continue;
		}
		g_array_append_val(br, x);
	}
	for (k = 0; k < msgs->len; k++) {
		struct msg *g = &g_array_index(msgs, struct msg, k);
		struct range x;

		if (g->from != i ||
		    (g->to >= 0 && raw_at(F->b, g->to)->parent == i))
			continue;
		x.a = send_at(F, g->first_send)->sys_entry;
		x.b = g->last_recv > g->last_send ? g->last_recv : g->last_send;
		g_array_append_val(br, x);
	}
	/* Only helpers: they are the requests. */
	if (!br->len) {
		g_array_append_vals(br, helpers->data, helpers->len);
		g_array_set_size(helpers, 0);
	}
	g_array_sort(cl, by_a);
	merge_overlaps(cl);
	if (cl->len && helpers->len) {
		g_array_sort(helpers, by_a);
		attach_helpers(cl, helpers);
	}
	g_array_free(helpers, TRUE);
	return cl;
}

static void add_node(struct finish *F, int raw, int64_t a, int64_t b,
		     enum dt_rq_end_reason why, uint64_t duration)
{
	struct node n = { .raw = raw, .start = a, .end = b < a ? a : b,
			  .end_reason = why, .duration = duration,
			  .parent = -1, .first_child = -1, .next_sib = -1,
			  .id = -1 };

	g_array_append_val(F->nodes, n);
}

static void make_nodes(struct finish *F, GArray *msgs)
{
	guint i, k;

	for (i = 0; i < F->b->raws->len; i++) {
		struct raw *r = raw_at(F->b, (int)i);
		GArray *cl = NULL;

		r->first_final = (int)F->nodes->len;
		r->n_final = 1;
		if (r->flag != DT_RQ_FLAG_MANUAL ||
		    !(cl = manual_clusters(F, (int)i, msgs))->len) {
			if (r->flag == DT_RQ_FLAG_MANUAL)
				g_array_free(cl, TRUE);
			add_node(F, (int)i, r->start, r->end_ts, r->end,
				 r->duration);
			continue;
		}
		r->n_final = (int)cl->len;
		for (k = 0; k < cl->len; k++) {
			struct range x = g_array_index(cl, struct range, k);
			int64_t a = x.a > r->start ? x.a : r->start;

			bool last = r->end_ts <= x.b || k + 1 == cl->len;

			add_node(F, (int)i, a, last && r->end_ts < x.b ?
				 r->end_ts : x.b,
				 last && r->end_ts <= x.b ? r->end :
				 DT_RQ_END_REQUEST,
				 last && r->end_ts <= x.b ? r->duration : 0);
		}
		g_array_free(cl, TRUE);
	}
}

/* The node of raw span i at time t (a manual flag has one per request). */
static int node_of(struct finish *F, int i, int64_t t)
{
	struct raw *r = raw_at(F->b, i);
	int k, best = r->first_final;

	for (k = 0; k < r->n_final; k++) {
		struct node *n = node_at(F, r->first_final + k);

		if (n->start > t)
			break;
		best = r->first_final + k;
		if (t <= n->end)
			break;
	}
	return best;
}

static void node_parents(struct finish *F)
{
	guint i;

	for (i = 0; i < F->nodes->len; i++) {
		struct node *n = node_at(F, (int)i);
		struct raw *r = raw_at(F->b, n->raw);
		int64_t t = r->link_send >= 0 ?
			    send_at(F, r->link_send)->ts : r->start;

		if (r->parent >= 0)
			n->parent = node_of(F, r->parent, t);
	}
}

static void summarize_pieces(struct dt_rq_summary *s, const struct raw *r,
			     int64_t a, int64_t b)
{
	guint i;

	for (i = 0; i < r->pieces->len; i++) {
		const struct piece *p = &g_array_index(r->pieces, struct piece,
						       i);
		int64_t x = p->a > a ? p->a : a, y = p->b < b ? p->b : b;

		if (y <= x)
			continue;
		if (p->state == ST_RUNNING)
			s->running_ns += y - x;
		else if (p->state == ST_RUNNABLE)
			s->runnable_ns += y - x;
		else if (p->state == ST_BLOCKED)
			s->blocked_on[p->block] += y - x;
	}
	for (i = 0; i < DT_RQ_BLOCK_N; i++)
		s->blocked_ns += s->blocked_on[i];
	s->unknown_ns = (b - a) - s->running_ns - s->runnable_ns -
			s->blocked_ns;
	if (s->unknown_ns < 0)
		s->unknown_ns = 0;
	for (i = 0; i < r->evts->len; i++) {
		int64_t t = g_array_index(r->evts, int64_t, i);

		s->events += t >= a && t <= b;
	}
}

static gint by_time_desc(gconstpointer x, gconstpointer y)
{
	const struct dt_rq_syscall *p = x, *q = y;

	if (p->time_ns != q->time_ns)
		return p->time_ns > q->time_ns ? -1 : 1;
	return strcmp(p->name, q->name);
}

static int summarize_syscalls(struct dt_rq_summary *s, const struct raw *r,
			      int64_t a, int64_t b)
{
	GHashTable *by = g_hash_table_new(g_str_hash, g_str_equal);
	GArray *out = g_array_new(FALSE, TRUE, sizeof(struct dt_rq_syscall));
	GHashTableIter it;
	gpointer v;
	guint i;
	int ret = 0;

	for (i = 0; i < r->sys->len; i++) {
		const struct sysrec *c = &g_array_index(r->sys, struct sysrec,
							i);
		int64_t x = c->entry > a ? c->entry : a;
		int64_t y = c->exit < b ? c->exit : b;
		struct dt_rq_syscall *d;

		if (c->exit < a || c->entry > b)
			continue;
		d = g_hash_table_lookup(by, c->name);
		if (!d) {
			d = g_new0(struct dt_rq_syscall, 1);
			d->name = (char *)c->name;
			g_hash_table_insert(by, (gpointer)c->name, d);
		}
		d->count++;
		d->time_ns += y > x ? y - x : 0;
	}
	g_hash_table_iter_init(&it, by);
	while (g_hash_table_iter_next(&it, NULL, &v)) {
		struct dt_rq_syscall d = *(struct dt_rq_syscall *)v;

		g_free(v);
		s->syscall_count += d.count;
		s->syscall_ns += d.time_ns;
		if (ret || !(d.name = strdup(d.name)))
			ret = -1;
		else
			g_array_append_val(out, d);
	}
	g_hash_table_destroy(by);
	g_array_sort(out, by_time_desc);
	s->n_syscalls = out->len;
	s->syscalls = out->len ? malloc(out->len * sizeof(*s->syscalls)) : NULL;
	if (out->len && !s->syscalls)
		ret = -1;
	else if (out->len)
		memcpy(s->syscalls, out->data, out->len * sizeof(*s->syscalls));
	if (ret)
		for (i = 0; i < out->len; i++)
			free(g_array_index(out, struct dt_rq_syscall, i).name);
	if (ret) {
		free(s->syscalls);
		s->syscalls = NULL;
		s->n_syscalls = 0;
	}
	g_array_free(out, TRUE);
	return ret;
}

static GArray *sort_nodes;	/* g_array_sort has no data */

static gint node_by_start(gconstpointer x, gconstpointer y)
{
	const struct node *p = &g_array_index(sort_nodes, struct node,
					      *(const int *)x);
	const struct node *q = &g_array_index(sort_nodes, struct node,
					      *(const int *)y);

	if (p->start != q->start)
		return p->start < q->start ? -1 : 1;
	return *(const int *)x - *(const int *)y;
}

/* Children lists by start time; the roots in start order. */
static GArray *node_children(struct finish *F)
{
	GArray *order = g_array_new(FALSE, FALSE, sizeof(int));
	GArray *roots = g_array_new(FALSE, FALSE, sizeof(int));
	guint i;

	for (i = 0; i < F->nodes->len; i++) {
		int v = (int)i;

		g_array_append_val(order, v);
	}
	sort_nodes = F->nodes;
	g_array_sort(order, node_by_start);
	for (i = order->len; i-- > 0;) {
		int v = g_array_index(order, int, i);
		struct node *n = node_at(F, v);

		if (n->parent >= 0) {
			n->next_sib = node_at(F, n->parent)->first_child;
			node_at(F, n->parent)->first_child = v;
		}
	}
	for (i = 0; i < order->len; i++) {
		int v = g_array_index(order, int, i);

		if (node_at(F, v)->parent < 0)
			g_array_append_val(roots, v);
	}
	g_array_free(order, TRUE);
	return roots;
}

static int fill_span(struct finish *F, int v, int req, int parent_id,
		     int depth)
{
	struct node *n = node_at(F, v);
	struct raw *r = raw_at(F->b, n->raw);
	struct dt_rq_span *s = &F->m->spans[F->m->n_spans];

	n->id = s->id = F->m->n_spans++;
	s->request = req;
	s->parent = parent_id;
	s->host = r->host;
	s->tid = r->tid;
	s->pid = r->pid;
	s->procname = strdup(r->procname ? r->procname : "?");
	s->flag_reason = r->flag;
	s->end_reason = n->end_reason;
	s->start_ns = n->start;
	s->end_ns = n->end;
	s->duration_ns = n->duration;
	s->flow = r->flow;
	s->depth = depth;
	summarize_pieces(&s->sum, r, n->start, n->end);
	if (!s->procname || summarize_syscalls(&s->sum, r, n->start, n->end))
		return -1;
	return s->id;
}

/* Depth-first from a root: ids in that order. */
static int number_tree(struct finish *F, int v, int req, int parent_id,
		       int depth)
{
	int id = fill_span(F, v, req, parent_id, depth), c;

	if (id < 0)
		return -1;
	for (c = node_at(F, v)->first_child; c >= 0;
	     c = node_at(F, c)->next_sib)
		if (number_tree(F, c, req, id, depth + 1))
			return -1;
	return 0;
}

static int by_send(const void *x, const void *y)
{
	const struct dt_rq_message *p = x, *q = y;

	if (p->send_ns != q->send_ns)
		return p->send_ns < q->send_ns ? -1 : 1;
	return p->from_span - q->from_span;
}

static int final_messages(struct finish *F, GArray *msgs)
{
	struct dt_rq_model *m = F->m;
	guint i;

	m->messages = calloc(msgs->len ? msgs->len : 1, sizeof(*m->messages));
	if (!m->messages)
		return -1;
	for (i = 0; i < msgs->len; i++) {
		struct msg *g = &g_array_index(msgs, struct msg, i);
		struct dt_rq_message *d = &m->messages[m->n_messages++];

		d->from_span = node_at(F, node_of(F, g->from, g->send))->id;
		d->to_span = g->to >= 0 ?
			     node_at(F, node_of(F, g->to, g->recv))->id : -1;
		d->request = m->spans[d->from_span].request;
		d->flow = g->flow;
		d->send_ns = g->send;
		d->last_send_ns = g->last_send;
		d->recv_ns = g->recv;
		d->last_recv_ns = g->last_recv;
		d->bytes = g->bytes;
		d->segments = g->segments;
		d->response = g->response;
		if (d->to_span >= 0)
			m->spans[d->to_span].sum.bytes_received += d->bytes;
	}
	qsort(m->messages, m->n_messages, sizeof(*m->messages), by_send);
	for (i = 0; i < (guint)m->n_messages; i++)
		m->messages[i].id = (int)i;
	return 0;
}

static void bytes_sent(struct finish *F)
{
	guint i;

	for (i = 0; i < F->b->sends->len; i++) {
		struct seg *s = send_at(F, (int)i);

		if (s->span >= 0 && s->msg >= 0)
			F->m->spans[node_at(F, node_of(F, s->span,
						       s->ts))->id]
				.sum.bytes_sent += s->fresh;
	}
}

/* ------------------------------------------------------------------ */
/* Per request: members, extent, the critical hop.                     */
/* ------------------------------------------------------------------ */

struct hop {
	int64_t ns;
	int span, message;
	bool wait;
};

static void hop_max(struct hop *best, int64_t ns, int span, int message,
		    bool wait)
{
	if (ns > best->ns) {
		best->ns = ns;
		best->span = span;
		best->message = message;
		best->wait = wait;
	}
}

/*
 * Walk the critical path from the root: at each span, the child whose
 * branch (request sent .. subtree and answer back) ends last is what the
 * span waited for; the span's own time is its length minus that branch.
 */
static void critical(const struct dt_rq_model *m, struct dt_rq_request *r,
		     const int64_t *sub_end)
{
	struct hop best = { -1, -1, -1, false };
	int s = r->root;

	while (s >= 0) {
		const struct dt_rq_span *sp = &m->spans[s];
		int64_t bend = INT64_MIN, bstart = 0;
		int child = -1, req = -1, resp = -1, i;

		for (i = 0; i < r->n_spans; i++) {
			const struct dt_rq_span *c = &m->spans[r->spans[i]];

			if (c->parent == s && sub_end[c->id] > bend) {
				bend = sub_end[c->id];
				child = c->id;
			}
		}
		for (i = 0; child >= 0 && i < r->n_messages; i++) {
			const struct dt_rq_message *g =
				&m->messages[r->messages[i]];

			if (g->from_span == s && g->to_span == child &&
			    !g->response && req < 0)
				req = g->id;
			if (g->from_span == child && g->to_span == s &&
			    g->response)
				resp = g->id;
		}
		if (child >= 0) {
			bstart = req >= 0 ? m->messages[req].send_ns :
				 m->spans[child].start_ns;
			hop_max(&best, (sp->end_ns - sp->start_ns) -
				(bend - bstart), s, -1, false);
		} else {
			hop_max(&best, sp->end_ns - sp->start_ns, s, -1, false);
		}
		if (req >= 0) {
			const struct dt_rq_message *g = &m->messages[req];

			hop_max(&best, g->recv_ns - g->send_ns, -1, req, false);
			hop_max(&best, m->spans[child].start_ns - g->last_recv_ns,
				child, -1, true);
		}
		if (resp >= 0)
			hop_max(&best, m->messages[resp].recv_ns -
				m->messages[resp].send_ns, -1, resp, false);
		s = child;
	}
	r->critical_span = best.span;
	r->critical_message = best.message;
	r->critical_wait = best.wait;
	r->critical_ns = best.ns < 0 ? 0 : best.ns;
}

static int fill_requests(struct dt_rq_model *m)
{
	int64_t *sub_end = calloc(m->n_spans ? m->n_spans : 1,
				  sizeof(*sub_end));
	int *nspan = calloc(m->n_requests ? m->n_requests : 1, sizeof(int));
	int *nmsg = calloc(m->n_requests ? m->n_requests : 1, sizeof(int));
	int i, ret = -1;

	if (!sub_end || !nspan || !nmsg)
		goto out;
	for (i = 0; i < m->n_spans; i++) {
		sub_end[i] = m->spans[i].end_ns;
		nspan[m->spans[i].request]++;
	}
	for (i = 0; i < m->n_messages; i++) {
		const struct dt_rq_message *g = &m->messages[i];

		nmsg[g->request]++;
		if (g->response && g->to_span >= 0 &&
		    m->spans[g->from_span].parent == g->to_span &&
		    g->last_recv_ns > sub_end[g->from_span])
			sub_end[g->from_span] = g->last_recv_ns;
	}
	/* Depth-first ids: children come after their parent. */
	for (i = m->n_spans; i-- > 0;) {
		int p = m->spans[i].parent;

		if (p >= 0 && sub_end[i] > sub_end[p])
			sub_end[p] = sub_end[i];
	}
	for (i = 0; i < m->n_requests; i++) {
		struct dt_rq_request *r = &m->requests[i];

		r->spans = malloc((nspan[i] ? nspan[i] : 1) * sizeof(int));
		r->messages = malloc((nmsg[i] ? nmsg[i] : 1) * sizeof(int));
		if (!r->spans || !r->messages)
			goto out;
	}
	for (i = 0; i < m->n_spans; i++) {
		struct dt_rq_request *r = &m->requests[m->spans[i].request];
		const struct dt_rq_span *s = &m->spans[i];
		int k;

		for (k = 0; k < r->n_spans; k++)
			if (m->spans[r->spans[k]].host == s->host)
				break;
		r->n_hosts += k == r->n_spans;
		r->spans[r->n_spans++] = i;
		if (s->depth + 1 > r->depth)
			r->depth = s->depth + 1;
		if (s->end_ns > r->end_ns)
			r->end_ns = s->end_ns;
	}
	for (i = 0; i < m->n_messages; i++) {
		struct dt_rq_request *r = &m->requests[m->messages[i].request];

		r->messages[r->n_messages++] = i;
		if (m->messages[i].last_recv_ns > r->end_ns)
			r->end_ns = m->messages[i].last_recv_ns;
	}
	for (i = 0; i < m->n_requests; i++)
		critical(m, &m->requests[i], sub_end);
	ret = 0;
out:
	free(sub_end);
	free(nspan);
	free(nmsg);
	return ret;
}

/* Spans still flagged when a host's trace ended end there. */
static void close_open(struct dt_rq_builder *b)
{
	guint i;

	for (i = 0; i < b->hosts->len; i++) {
		struct host *h = b->hosts->pdata[i];
		GHashTableIter it;
		gpointer v;

		g_hash_table_iter_init(&it, h->threads);
		while (g_hash_table_iter_next(&it, NULL, &v)) {
			struct thread *t = v;

			if (t->open < 0)
				continue;
			thread_to(b, t, h->last_ts, t->state, t->block);
			raw_at(b, t->open)->end_ts = h->last_ts;
			t->open = -1;
		}
	}
}

static int assemble(struct finish *F, GArray *msgs)
{
	struct dt_rq_model *m = F->m;
	GArray *roots;
	guint i;
	int ret = -1;

	raw_tree(F, msgs);
	make_nodes(F, msgs);
	node_parents(F);
	roots = node_children(F);
	m->spans = calloc(F->nodes->len ? F->nodes->len : 1,
			  sizeof(*m->spans));
	m->requests = calloc(roots->len ? roots->len : 1,
			     sizeof(*m->requests));
	if (!m->spans || !m->requests)
		goto out;
	for (i = 0; i < roots->len; i++) {
		int v = g_array_index(roots, int, i);
		struct dt_rq_request *r = &m->requests[m->n_requests++];
		struct raw *raw = raw_at(F->b, node_at(F, v)->raw);

		r->id = (int)i;
		r->start_ns = r->end_ns = node_at(F, v)->start;
		if (raw->flag != DT_RQ_FLAG_MANUAL)
			m->orphan_spans++;
		if (number_tree(F, v, (int)i, -1, 0))
			goto out;
		r->root = node_at(F, v)->id;
	}
	if (final_messages(F, msgs))
		goto out;
	bytes_sent(F);
	ret = fill_requests(m);
out:
	g_array_free(roots, TRUE);
	return ret;
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
	GArray *msgs = NULL;
	GHashTableIter it;
	gpointer v;
	guint i;
	int ret = -1;

	F.m = calloc(1, sizeof(*F.m));
	if (!F.m || copy_hosts(b, F.m))
		goto out;
	close_open(b);
	F.flows = g_hash_table_new_full(flow_hash, flow_equal, NULL,
					flowsegs_free);
	F.by_tid = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
					 (GDestroyNotify)g_array_unref);
	F.nodes = g_array_new(FALSE, TRUE, sizeof(struct node));
	index_flows(&F);
	g_hash_table_iter_init(&it, F.flows);
	while (g_hash_table_iter_next(&it, NULL, &v))
		match_flow(&F, v);
	index_tids(&F);
	sends_to_spans(&F);
	link_raws(&F);
	break_cycles(&F);
	msgs = build_messages(&F);
	ret = assemble(&F, msgs);
	for (i = 0; i < b->sends->len; i++)
		F.m->unmatched_sends += send_at(&F, (int)i)->match < 0;
	for (i = 0; i < b->recvs->len; i++)
		F.m->unmatched_recvs += recv_at(&F, (int)i)->match < 0;
	F.m->events = b->events;
	F.m->dtracer_events = b->dtracer_events;
out:
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
