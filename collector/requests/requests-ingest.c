/*
 * Requests, stage 1: ingestion. Per host, events in time order: each
 * flag interval as a raw span (its thread's states, syscalls and own
 * events while it is open), the sockets each process holds, and the
 * marked segments sent and received.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "requests-int.h"

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

/* Close the thread's current piece at ts and start one in state st. */
void rq_thread_to(struct dt_rq_builder *b, struct thread *t, int64_t ts,
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

guint rq_ctx_key_hash(gconstpointer k)
{
	const struct rq_ctx_key *c = k;

	return g_int64_hash(&c->context) * 31 + (guint)c->tid;
}

gboolean rq_ctx_key_equal(gconstpointer a, gconstpointer b)
{
	const struct rq_ctx_key *x = a, *y = b;

	return x->context == y->context && x->tid == y->tid;
}

/* The raw of context on h for tid (-1: the one that started it), or -1. */
static int ctx_raw(struct host *h, uint64_t context, int32_t tid)
{
	struct rq_ctx_key k = { context, tid };

	return GPOINTER_TO_INT(g_hash_table_lookup(h->contexts, &k)) - 1;
}

static void ctx_note(struct host *h, uint64_t context, int32_t tid, int ri)
{
	struct rq_ctx_key *k = g_new(struct rq_ctx_key, 1);

	k->context = context;
	k->tid = tid;
	g_hash_table_replace(h->contexts, k, GINT_TO_POINTER(ri + 1));
}

/*
 * A thread back to a request it left (an event loop reading the answer
 * to the request's upstream call, after serving others): its span goes
 * on, the time away counted as waiting. Returns whether it did.
 */
/* Whether a flag of this reason is the kernel's guess. */
static bool guessed(int reason)
{
	return reason == DT_RQ_FLAG_HANDOFF || reason == DT_RQ_FLAG_DEFERRED ||
	       reason == DT_RQ_FLAG_STREAMS;
}

static bool resume_span(struct dt_rq_builder *b, struct host *h,
			struct thread *t, const struct dt_rq_event *ev)
{
	int ri = ctx_raw(h, ev->context, ev->tid);
	struct raw *r;

	if (ri < 0 || !ev->context)
		return false;
	r = raw_at(b, ri);
	r->guess |= guessed(ev->reason);
	if (ev->ts > r->end_ts) {
		struct piece p = { r->end_ts, ev->ts, ST_BLOCKED,
				   DT_RQ_BLOCK_OTHER };

		g_array_append_val(r->pieces, p);
	}
	r->end = DT_RQ_END_OPEN;
	r->end_ts = ev->ts;
	t->open = ri;
	t->since = ev->ts;
	t->state = ev->ctx_tid == ev->tid ? ST_RUNNING : ST_UNKNOWN;
	return true;
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
	if ((ev->reason == DT_RQ_FLAG_RESUMED ||
	     ev->reason == DT_RQ_FLAG_HANDOFF ||
	     ev->reason == DT_RQ_FLAG_DEFERRED ||
	     ev->reason == DT_RQ_FLAG_LOCAL) && resume_span(b, h, t, ev))
		return 0;
	r.host = hi;
	r.tid = ev->tid;
	r.pid = ev->pid;
	r.parent_tid = ev->parent;
	r.flag = (unsigned)ev->reason <= DT_RQ_FLAG_STREAMS ?
		 (enum dt_rq_flag_reason)ev->reason : DT_RQ_FLAG_MANUAL;
	r.context = ev->context;
	r.guess = guessed(ev->reason);
	/* Another thread joining a request: a child of the one that began. */
	r.origin = ev->context ? ctx_raw(h, ev->context, -1) : -1;
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
	if (r.context) {
		if (dt_rq_flag_read(r.flag))
			ctx_note(h, r.context, -1, t->open);
		ctx_note(h, r.context, r.tid, t->open);
	}
	t->since = ev->ts;
	t->state = self ? ST_RUNNING : ST_UNKNOWN;
	return 0;
}

static void add_unflag(struct dt_rq_builder *b, struct host *h,
		       const struct dt_rq_event *ev)
{
	struct thread *t = thread_of(h, ev->tid);
	int64_t end = ev->ts;
	struct raw *r;

	if (t->open < 0)
		return;
	r = raw_at(b, t->open);
	/* After a response the span ends with its last write. */
	if (ev->reason == DT_RQ_END_RESPONSE && ev->idle_ns &&
	    (int64_t)ev->idle_ns < ev->ts - r->start)
		end = ev->ts - (int64_t)ev->idle_ns;
	rq_thread_to(b, t, end, t->state, t->block);
	r->end_ts = end;
	if (t->sys) {	/* unflagged inside a syscall: up to the unflag */
		struct sysrec s = { t->sys, t->sys_entry, end };

		g_array_append_val(r->sys, s);
	}
	if (ev->reason == DT_RQ_UNFLAG_SWITCHED)
		r->end = DT_RQ_END_SWITCHED;
	else
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
		rq_thread_to(b, t, ev->ts, ST_RUNNING, DT_RQ_BLOCK_OTHER);
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
			rq_thread_to(b, prev, ev->ts, ST_RUNNABLE,
				     DT_RQ_BLOCK_OTHER);
		else
			rq_thread_to(b, prev, ev->ts, ST_BLOCKED,
				     block_kind(h, prev, ev->pid,
				     ev->prev_state));
	}
	if (next->open >= 0)
		rq_thread_to(b, next, ev->ts, ST_RUNNING, DT_RQ_BLOCK_OTHER);
}

static void add_wakeup(struct dt_rq_builder *b, struct host *h,
		       const struct dt_rq_event *ev)
{
	struct thread *t = thread_of(h, ev->tid);

	if (t->open >= 0 && (t->state == ST_BLOCKED || t->state == ST_UNKNOWN))
		rq_thread_to(b, t, ev->ts, ST_RUNNABLE, DT_RQ_BLOCK_OTHER);
}

/* One event (dt_rq_add). */
int rq_ingest(struct dt_rq_builder *b, const struct dt_rq_event *ev)
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

/* Spans still flagged when a host's trace ended end there. */
void rq_close_open(struct dt_rq_builder *b)
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
			rq_thread_to(b, t, h->last_ts, t->state, t->block);
			raw_at(b, t->open)->end_ts = h->last_ts;
			t->open = -1;
		}
	}
}
