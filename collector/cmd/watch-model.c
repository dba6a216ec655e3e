/*
 * The watcher's model (watch-model.h): what `dtracer watch` keeps and
 * prints.
 *
 * Each event is kept in its host's own clock; marks also go to the
 * clock sync. On refresh the model is built from them: the sync solved
 * (the same hulls as `dtracer merge`, their bounds narrowing as marks
 * come), the requests builder's copy of its base, the events since the
 * base's cut ingested into it, its times mapped to the reference clock,
 * finished.
 *
 * What a day of traffic leaves behind goes (unless keep_all): after a
 * refresh, the cut is the latest time (the merged clock) before which
 * every request printed for good (settled, updated, or with nothing
 * more to come: done_with), that no request spans, and that every
 * host's stream has passed by its clock bound (less the bound twice and a
 * millisecond). Each host's events before it go into the builder's
 * base, which drops what ended there (requests-window.c); the sync
 * keeps the samples of the marks before it in its hulls and drops the
 * marks (a send a second past it, whose receive may be in flight,
 * stays); the printed requests before it are forgotten. The requests
 * after the cut are built as from every event. An event older than its
 * host's cut (a restarted session's) is left out and counted
 * (late_events).
 *
 * A request prints once it is settled: every span of it ended, every
 * message it sent received, and every aligned host's stream past its
 * end by that host's clock bound. A host's stream position (its
 * watermark) is the newest of its events and of the progress its
 * session reports while it is quiet (lttng-live's inactivity messages,
 * dt_watch_progress()): its session delivers its events in time order,
 * so nothing older can come. Until then a host whose events are late
 * (a span rooted on another host, its own root not arrived yet) is
 * waited for, not printed as a request of its own. A request not
 * settled at its timeout prints as it is, naming what it waits for, and
 * prints once more ("updated") if it later completes or changes: the
 * only update. A request that changes after printing settled (events
 * older than a host's watermark: a restarted session) is counted
 * (late), not printed again.
 *
 * A request is known across builds by its root: host, thread and start
 * in that host's own clock, which the maps do not change.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <glib.h>

#include "sync.h"
#include "watch-model.h"

#define WATCH_SAME_START_NS 1000	/* a root's start, across builds:
					 * the maps' rounding, inverted */
#define WATCH_GAP_SLACK_NS 2000000000LL	/* after a re-attach, until the
					 * first event: packets a stream
					 * flushed before it, a live period
					 * (1 s by default) at most, twice */
#define WATCH_UNALIGNED_NS 1000000000LL	/* a followed host with no event
					 * yet: its position in its own
					 * clock, taken as within this of
					 * the merged one */

/* After a lost session is followed again: its events may be missing. */
struct gap {
	int64_t from, to;	/* the host's own clock */
};

struct whost {
	char *name;
	int sync;		/* index in the dt_sync */
	GArray *evs;		/* struct dt_rq_event, own clock */
	bool unordered;		/* an event came before the last one */
	uint64_t discarded;
	int64_t last_ts;	/* newest event kept */
	int64_t progress;	/* its session's position when quiet */
	int64_t floor;		/* since the last attach: older is a repeat */
	bool attached;		/* its session is followed */
	uint64_t repeated;	/* events left out as repeats */
	int64_t cut;		/* older events: in the base, or left out */
	GArray *gaps;		/* struct gap; the last open (to INT64_MAX)
				 * until an event or progress after it */
	uint64_t late_events;	/* left out: older than the cut */
	int idx;		/* index in w->hosts and in the base */
	/* the clock sync, as last said */
	enum dt_sync_quality said_quality;
	int said_via;
	bool said_reference;
};

/* A request as printed (or waiting to be). */
struct shown {
	int id;			/* watch's number, in order of printing */
	int host;		/* root: index in w->hosts */
	int32_t tid;
	int64_t own_start;	/* root host's clock */
	int64_t first_seen_us, printed_us;
	int64_t whole_ns;	/* --delays: when first seen whole (its
				 * spans ended, its messages received),
				 * this machine's real time; 0 if not yet */
	bool printed, complete, updated;
	int n_spans, n_hosts, n_messages;
};

struct dt_watch {
	struct dt_watch_opts o;
	FILE *out;
	GPtrArray *hosts;	/* struct whost */
	GHashTable *by_name;	/* name -> struct whost */
	GStringChunk *strings;
	struct dt_sync *sync;
	struct dt_rq_builder *base;	/* the events before the cut */
	long double cut;	/* the merged clock's, -INFINITY at first */
	GHashTable *shown;	/* root (host << 32 | tid) -> GPtrArray of
				 * struct shown */
	int next_id;
	bool dirty, head;
	int waiting;		/* requests seen, not printed yet */
	GString *scratch;
	GPtrArray *page;	/* o.page: struct dt_rq_model of request ID */
	uint64_t events, printed, updated, timed_out, late, maybe_missing;
	uint64_t joined;	/* printed pieces found part of another */
};

static void say(struct dt_watch *w, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static void say(struct dt_watch *w, const char *fmt, ...)
{
	va_list ap;

	fputs("# ", w->out);
	va_start(ap, fmt);
	vfprintf(w->out, fmt, ap);
	va_end(ap);
	fputc('\n', w->out);
	fflush(w->out);
}

void dt_watch_say(struct dt_watch *w, const char *text)
{
	char **lines = g_strsplit(text, "\n", -1);

	for (int i = 0; lines[i]; i++)
		say(w, "%s%s", i ? "  " : "", g_strstrip(lines[i]));
	g_strfreev(lines);
}

static struct whost *host_get(struct dt_watch *w, const char *name)
{
	struct whost *h = g_hash_table_lookup(w->by_name, name);

	if (h)
		return h;
	h = g_new0(struct whost, 1);
	h->name = g_strdup(name);
	h->sync = dt_sync_host_index(w->sync, name);
	h->evs = g_array_new(FALSE, FALSE, sizeof(struct dt_rq_event));
	h->gaps = g_array_new(FALSE, FALSE, sizeof(struct gap));
	h->last_ts = h->floor = h->progress = h->cut = INT64_MIN;
	h->idx = dt_rq_host(w->base, name);
	if (h->idx != (int)w->hosts->len)
		h->sync = -1;	/* ENOMEM: dt_watch_add says it */
	h->said_via = -1;
	g_ptr_array_add(w->hosts, h);
	g_hash_table_insert(w->by_name, h->name, h);
	return h;
}

int dt_watch_attached(struct dt_watch *w, const char *host, bool lost)
{
	struct whost *h = host_get(w, host);
	struct gap g = { MAX(h->last_ts, h->progress), INT64_MAX };

	if (h->sync < 0)
		return -ENOMEM;
	h->floor = h->last_ts;
	h->attached = true;
	if (lost && g.from != INT64_MIN &&
	    (!h->gaps->len ||
	     g_array_index(h->gaps, struct gap, h->gaps->len - 1).to !=
	     INT64_MAX))
		g_array_append_val(h->gaps, g);
	return 0;
}

/* The open gap, if any, ends a live period after ts. */
static void gap_close(struct whost *h, int64_t ts)
{
	struct gap *g;

	if (!h->gaps->len)
		return;
	g = &g_array_index(h->gaps, struct gap, h->gaps->len - 1);
	if (g->to == INT64_MAX)
		g->to = ts > INT64_MAX - WATCH_GAP_SLACK_NS ? INT64_MAX - 1 :
			ts + WATCH_GAP_SLACK_NS;
}

void dt_watch_progress(struct dt_watch *w, const char *host, int64_t ts)
{
	struct whost *h = host_get(w, host);

	if (ts > h->progress) {
		h->progress = ts;
		w->dirty = true;
		gap_close(h, ts);
	}
}

void dt_watch_discarded(struct dt_watch *w, const char *host, uint64_t n)
{
	host_get(w, host)->discarded += n;
	say(w, "%s: its tracer discarded %" PRIu64 " events (ring buffer "
	    "full): requests then may lack spans", host, n);
}

static void host_free(gpointer p)
{
	struct whost *h = p;

	g_array_free(h->evs, TRUE);
	g_array_free(h->gaps, TRUE);
	g_free(h->name);
	g_free(h);
}

int dt_watch_add(struct dt_watch *w, const char *host,
		 const struct dt_rq_event *e)
{
	struct whost *h = host_get(w, host);
	struct dt_rq_event ev = *e;

	if (h->sync < 0)
		return -ENOMEM;
	if (ev.ts <= h->floor) {
		h->repeated++;
		return 0;
	}
	if (ev.ts < h->cut) {
		h->late_events++;
		return 0;
	}
	if (ev.ts > h->last_ts)
		h->last_ts = ev.ts;
	gap_close(h, ev.ts);
	if (ev.procname)
		ev.procname = g_string_chunk_insert_const(w->strings,
							  ev.procname);
	if (ev.name)
		ev.name = g_string_chunk_insert_const(w->strings, ev.name);
	if (h->evs->len &&
	    g_array_index(h->evs, struct dt_rq_event, h->evs->len - 1).ts >
	    ev.ts)
		h->unordered = true;
	g_array_append_val(h->evs, ev);
	w->events++;
	w->dirty = true;
	if (ev.kind == DT_RQ_EV_MARK_SEND || ev.kind == DT_RQ_EV_MARK_RECV) {
		struct dt_mark m = {
			.family = ev.flow.family,
			.alen = ev.flow.family == AF_INET6 ? 16 : 4,
			.sport = ev.flow.sport, .dport = ev.flow.dport,
			.seq = ev.seq, .end_seq = ev.end_seq,
		};

		memcpy(m.saddr, ev.flow.saddr, sizeof(m.saddr));
		memcpy(m.daddr, ev.flow.daddr, sizeof(m.daddr));
		if (dt_sync_add_mark(w->sync, h->sync,
				     ev.kind == DT_RQ_EV_MARK_SEND, &m,
				     ev.ts) == -ENOMEM)
			return -ENOMEM;
	}
	return 0;
}

static gint by_ts(gconstpointer a, gconstpointer b)
{
	const struct dt_rq_event *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

static const struct dt_clock_map *map_of(struct dt_watch *w,
					 const struct whost *h)
{
	return &dt_sync_host(w->sync, h->sync)->map;
}

/* A time of host idx (its own clock) in the merged clock. */
static int64_t to_merged(void *data, int idx, int64_t ts)
{
	struct dt_watch *w = data;

	return (int64_t)llroundl(dt_clock_map_apply(
		map_of(w, g_ptr_array_index(w->hosts, idx)), ts));
}

/* Events [from, to) of h's since the cut into b, in h's own clock. */
static int ingest(struct dt_rq_builder *b, struct whost *h, guint from,
		  guint to)
{
	for (guint k = from; k < to; k++) {
		struct dt_rq_event ev =
			g_array_index(h->evs, struct dt_rq_event, k);

		ev.host = h->idx;
		if (dt_rq_add(b, &ev))
			return -1;
	}
	return 0;
}

/* The clock maps, then the model: the base's copy and the rest. */
static struct dt_rq_model *build(struct dt_watch *w)
{
	struct dt_rq_builder *b;

	if (dt_sync_solve(w->sync, w->o.reference) == -ENOENT)
		dt_sync_solve(w->sync, NULL);	/* not here yet */
	b = dt_rq_builder_clone(w->base);
	if (!b)
		return NULL;
	for (guint i = 0; i < w->hosts->len; i++) {
		struct whost *h = g_ptr_array_index(w->hosts, i);

		if (h->unordered) {
			/* a session restarted: its events, in time order */
			g_array_sort(h->evs, by_ts);
			h->unordered = false;
		}
		if (ingest(b, h, 0, h->evs->len)) {
			dt_rq_builder_free(b);
			return NULL;
		}
	}
	dt_rq_builder_map(b, to_merged, w);
	return dt_rq_finish(b);
}

/* A merged-clock time back in the host's own clock (maps invert). */
static int64_t own_time(const struct dt_clock_map *m, int64_t t)
{
	return (int64_t)llroundl(((long double)t - m->offset +
				  m->drift * m->anchor) / (1 + m->drift));
}

static gint64 *root_key(int host, int32_t tid)
{
	static gint64 k;

	k = ((gint64)host << 32) | (uint32_t)tid;
	return &k;
}

/* The list of requests rooted at (host, tid), made if need be. */
static GPtrArray *shown_list(struct dt_watch *w, int host, int32_t tid)
{
	GPtrArray *same = g_hash_table_lookup(w->shown, root_key(host, tid));

	if (!same) {
		same = g_ptr_array_new_with_free_func(g_free);
		g_hash_table_insert(w->shown,
				    g_memdup2(root_key(host, tid),
					      sizeof(gint64)), same);
	}
	return same;
}

/* The request rooted at host's tid from own (its clock): its index in
 * same, or -1. */
static int shown_at(GPtrArray *same, int64_t own)
{
	for (guint i = same->len; i-- > 0;)
		if (llabs(((struct shown *)g_ptr_array_index(same, i))
				  ->own_start - own) <= WATCH_SAME_START_NS)
			return (int)i;
	return -1;
}

static int64_t own_start_of(struct dt_watch *w, const struct dt_rq_span *sp)
{
	return own_time(map_of(w, g_ptr_array_index(w->hosts, sp->host)),
			sp->start_ns);
}

/*
 * The request printed rooted at span sp (at its timeout, while the rest
 * of its request was behind), with its list and index there; NULL if
 * none.
 */
static struct shown *piece_of(struct dt_watch *w, const struct dt_rq_span *sp,
			      GPtrArray **list, int *k)
{
	GPtrArray *was = g_hash_table_lookup(w->shown,
					     root_key(sp->host, sp->tid));
	struct shown *p;

	if (!was || (*k = shown_at(was, own_start_of(w, sp))) < 0)
		return NULL;
	p = g_ptr_array_index(was, *k);
	*list = was;
	return p->printed ? p : NULL;
}

/*
 * The request as known across builds: by its root (host, thread and
 * start in that host's clock, which the maps do not change); else, a
 * request printed before rooted at one of its spans (printed at its
 * timeout while the root's host was behind: its root has come since),
 * known by its new root from now on, even if the root had an entry of
 * its own, waiting (which it replaces); else a new one.
 */
static struct shown *shown_of(struct dt_watch *w, const struct dt_rq_model *m,
			      const struct dt_rq_request *r, int64_t now_us)
{
	const struct dt_rq_span *root = &m->spans[r->root];
	GPtrArray *same = shown_list(w, root->host, root->tid), *was;
	int64_t own = own_start_of(w, root);
	int k = shown_at(same, own);
	struct shown *s = k >= 0 ? g_ptr_array_index(same, k) : NULL, *p;

	if (s && s->printed)
		return s;
	for (int i = 0; i < r->n_spans; i++) {
		if (r->spans[i] == r->root ||
		    !(p = piece_of(w, &m->spans[r->spans[i]], &was, &k)))
			continue;
		g_ptr_array_steal_index(was, k);
		/* the root's own entry, waiting, gives way to it */
		if (s)
			g_ptr_array_remove(same, s);
		p->host = root->host;
		p->tid = root->tid;
		p->own_start = own;
		g_ptr_array_add(same, p);
		return p;
	}
	if (s)
		return s;
	s = g_new0(struct shown, 1);
	s->id = -1;
	s->host = root->host;
	s->tid = root->tid;
	s->own_start = own;
	s->first_seen_us = now_us;
	g_ptr_array_add(same, s);
	return s;
}

/*
 * The other printed pieces of r, s's request: each printed at its
 * timeout rooted at one of r's spans while the rest of r was behind
 * (two hosts late at once), now known as parts of s. Said once, and
 * forgotten: from now on they are s (the page keeps s alone).
 */
static void join_pieces(struct dt_watch *w, const struct dt_rq_model *m,
			const struct dt_rq_request *r, struct shown *s)
{
	GPtrArray *was;
	struct shown *p;
	int k;

	for (int i = 0; i < r->n_spans; i++) {
		if (r->spans[i] == r->root ||
		    !(p = piece_of(w, &m->spans[r->spans[i]], &was, &k)) ||
		    p == s)
			continue;
		say(w, "request %d was part of request %d: printed at its "
		    "timeout before the rest of it was seen", p->id, s->id);
		if (w->o.page && (guint)p->id < w->page->len) {
			dt_rq_model_free(g_ptr_array_index(w->page, p->id));
			g_ptr_array_index(w->page, p->id) = NULL;
		}
		w->joined++;
		w->printed--;
		g_ptr_array_remove_index(was, k);
	}
}

/*
 * The aligned hosts whose stream has not passed t (the merged clock) by
 * their clock bound: their names to names (if not NULL), their count.
 * A host not aligned yet is not counted: its clock cannot be compared
 * (and its spans cannot be placed in a request either).
 */
static int behind(struct dt_watch *w, int64_t t, GString *names)
{
	int n = 0;

	for (guint i = 0; i < w->hosts->len; i++) {
		struct whost *h = g_ptr_array_index(w->hosts, i);
		const struct dt_sync_host *s;
		int64_t mark = MAX(h->last_ts, h->progress);

		if (h->sync < 0)
			continue;
		s = dt_sync_host(w->sync, h->sync);
		if (!s->is_reference && s->via < 0)
			continue;
		if (mark != INT64_MIN &&
		    dt_clock_map_apply(&s->map, mark) - s->uncertainty >= t)
			continue;
		if (names)
			g_string_append_printf(names, "%s%s", n ? ", " : "",
					       h->name);
		n++;
	}
	return n;
}

/* Spans still open and messages nobody traced received. */
static void pending(const struct dt_rq_model *m, const struct dt_rq_request *r,
		    int *open, int *unreceived)
{
	*open = *unreceived = 0;
	for (int i = 0; i < r->n_spans; i++)
		*open += m->spans[r->spans[i]].end_reason == DT_RQ_END_OPEN;
	for (int i = 0; i < r->n_messages; i++)
		*unreceived += m->messages[r->messages[i]].to_span < 0;
}

/*
 * The aligned hosts with a gap (dt_watch_attached) across the request
 * (the merged clock, widened by their clock bound): their names to
 * names, their count.
 */
static int gaps_across(struct dt_watch *w, const struct dt_rq_request *r,
		       GString *names)
{
	int n = 0;

	for (guint i = 0; i < w->hosts->len; i++) {
		struct whost *h = g_ptr_array_index(w->hosts, i);
		const struct dt_sync_host *s;

		if (h->sync < 0 || !h->gaps->len)
			continue;
		s = dt_sync_host(w->sync, h->sync);
		if (!s->is_reference && s->via < 0)
			continue;
		for (guint k = 0; k < h->gaps->len; k++) {
			const struct gap *g = &g_array_index(h->gaps,
							     struct gap, k);
			long double a = dt_clock_map_apply(&s->map, g->from) -
					s->uncertainty;
			long double b = g->to == INT64_MAX ? INFINITY :
				dt_clock_map_apply(&s->map, g->to) +
				s->uncertainty;

			if (a <= r->end_ns && b >= r->start_ns) {
				g_string_append_printf(names, "%s%s",
						       n ? ", " : "", h->name);
				n++;
				break;
			}
		}
	}
	return n;
}

/*
 * A request of a client flagged by hand that sent nothing: the start of
 * the request it is about to make (curl's resolver thread, before its
 * first send), or work of its own. Once the flag ended, it waits for its
 * timeout.
 */
static bool prelude(const struct dt_rq_model *m, const struct dt_rq_request *r)
{
	return !r->n_messages &&
	       m->spans[r->root].flag_reason == DT_RQ_FLAG_MANUAL;
}

/*
 * A prelude whose client is still flagged is no request yet: what it
 * becomes (the start of the client's next request, cut off by the
 * final model, or a request of its own if the flag ends first) is not
 * known, however long it takes (a client starting on a loaded host).
 * It does not print at the timeout.
 */
static bool prelude_open(const struct dt_rq_model *m,
			 const struct dt_rq_request *r)
{
	return prelude(m, r) && m->spans[r->root].flagged;
}

static void print_request(struct dt_watch *w, const struct dt_rq_model *m,
			  int i, struct shown *s, int open, int unreceived,
			  const char *late_hosts, bool update, int64_t now_us)
{
	const struct dt_rq_request *r = &m->requests[i];
	/* not at the last build (late_hosts NULL), nor in an update */
	bool pre = late_hosts && prelude(m, r);
	struct timespec now = { 0 };

	if (s->id < 0)
		s->id = w->next_id++;
	if (w->o.page) {	/* its model, as printed now, for the page */
		struct dt_rq_model *x = dt_rq_model_extract(m, i);

		if ((guint)s->id >= w->page->len)
			g_ptr_array_set_size(w->page, s->id + 1);
		dt_rq_model_free(g_ptr_array_index(w->page, s->id));
		g_ptr_array_index(w->page, s->id) = x;
		if (!x)
			say(w, "out of memory: request %d is not on the page",
			    s->id);
	}
	if (!w->head || w->o.tree) {
		dt_rq_print_head(w->out);
		w->head = true;
	}
	dt_rq_print_row(m, i, s->id, w->out);
	if (update)
		say(w, "request %d updated: %d spans on %d hosts, %d messages "
		    "(was %d, %d, %d)", s->id, r->n_spans, r->n_hosts,
		    r->n_messages, s->n_spans, s->n_hosts, s->n_messages);
	if (open || unreceived)
		say(w, "request %d incomplete after %.1f s: %d span%s still "
		    "open, %d message%s not received by a followed host",
		    s->id, w->o.timeout_us / 1e6, open, open == 1 ? "" : "s",
		    unreceived, unreceived == 1 ? "" : "s");
	else if (late_hosts && *late_hosts)
		say(w, "request %d printed after %.1f s without %s past its "
		    "end: their events may be missing", s->id,
		    w->o.timeout_us / 1e6, late_hosts);
	else if (pre)
		say(w, "request %d: its client, flagged by hand, sent nothing "
		    "in %.1f s: work of its own, or the start of a request "
		    "still to come", s->id, w->o.timeout_us / 1e6);
	g_string_truncate(w->scratch, 0);
	if (gaps_across(w, r, w->scratch)) {
		say(w, "request %d may lack events of %s: its session was "
		    "lost and followed again across it, and what reached the "
		    "relayd meanwhile is skipped", s->id, w->scratch->str);
		w->maybe_missing += !s->printed;
	}
	if (w->o.delays && !clock_gettime(CLOCK_REALTIME, &now) &&
	    s->whole_ns)
		say(w, "request %d printed %.3f s after its end (this machine's "
		    "clock against the reference host's; seen whole after "
		    "%.3f s)", s->id,
		    ((now.tv_sec * (int64_t)1000000000 + now.tv_nsec) -
		     r->end_ns) / 1e9, (s->whole_ns - r->end_ns) / 1e9);
	else if (w->o.delays && now.tv_sec)
		say(w, "request %d printed %.3f s after its end (this machine's "
		    "clock against the reference host's)", s->id,
		    ((now.tv_sec * (int64_t)1000000000 + now.tv_nsec) -
		     r->end_ns) / 1e9);
	if (w->o.tree) {
		dt_rq_print_tree_as(m, i, s->id, w->out);
		fputc('\n', w->out);
	}
	fflush(w->out);
	if (!s->printed)
		s->printed_us = now_us;
	w->printed += !s->printed;
	w->updated += update;
	w->timed_out += !s->printed &&
			(open || unreceived || (late_hosts && *late_hosts) ||
			 pre);
	s->printed = true;
	s->updated |= update;
	s->complete = !open && !unreceived && !(late_hosts && *late_hosts) &&
		      !pre;
	s->n_spans = r->n_spans;
	s->n_hosts = r->n_hosts;
	s->n_messages = r->n_messages;
}

/* What changed in the clock sync since last said. */
static void say_sync(struct dt_watch *w)
{
	for (guint i = 0; i < w->hosts->len; i++) {
		struct whost *h = g_ptr_array_index(w->hosts, i);
		const struct dt_sync_host *s;

		if (h->sync < 0)
			continue;
		s = dt_sync_host(w->sync, h->sync);
		if (s->is_reference && !h->said_reference)
			say(w, "clocks: %s is the reference", h->name);
		else if (!s->is_reference && s->via >= 0 &&
			 (s->quality != h->said_quality ||
			  s->via != h->said_via))
			say(w, "clocks: %s aligned to %s, %s, within %.3Lf us",
			    h->name, dt_sync_host(w->sync, s->via)->name,
			    dt_sync_quality_name(s->quality),
			    s->uncertainty / 1e3L);
		h->said_reference = s->is_reference;
		h->said_quality = s->quality;
		h->said_via = s->via;
	}
}

/*
 * Printed for good: no span of it open (a thread that never answers is
 * unflagged by the kernel's bound, unanswered_ms), and settled, updated,
 * or every aligned host's stream past its end (what it waits for will
 * not come: a message to a host not followed), by a timeout more if a
 * message of it was not received (a peer reads a message when it reads:
 * queued in its socket, it is read after the sender's end), or printed
 * ten timeouts ago (a host that stopped streaming).
 */
static bool done_with(struct dt_watch *w, const struct dt_rq_model *m,
		      const struct dt_rq_request *r, const struct shown *s,
		      int64_t now)
{
	int open, unreceived;

	if (!s->printed)
		return false;
	pending(m, r, &open, &unreceived);
	return !open && (s->complete || s->updated ||
			 !behind(w, r->end_ns + (unreceived ?
				 w->o.timeout_us * 1000 : 0), NULL) ||
			 now - s->printed_us >= 10 * w->o.timeout_us);
}

/* A time range, the merged clock. */
struct extent {
	long double a, b;
};

static gint by_start_desc(gconstpointer x, gconstpointer y)
{
	const struct extent *p = x, *q = y;

	return (p->a < q->a) - (p->a > q->a);
}

/*
 * The flag intervals of h's events not in the base yet (but a manual
 * flag's, which the base trims), from flag to unflag event (the span's
 * end is its last write, the unflag may come much later: a kept-alive
 * connection's next request), to the end of time while open.
 */
static void flag_extents(struct dt_watch *w, struct whost *h, GArray *out)
{
	const struct dt_clock_map *map = map_of(w, h);
	GHashTable *open = g_hash_table_new_full(g_direct_hash,
						 g_direct_equal, NULL, g_free);
	GHashTableIter it;
	gpointer v;

	for (guint k = 0; k < h->evs->len; k++) {
		const struct dt_rq_event *e = &g_array_index(h->evs,
			struct dt_rq_event, k);
		gpointer key = GINT_TO_POINTER(e->tid);
		int64_t *f;

		if (e->kind == DT_RQ_EV_FLAG && e->reason != DT_RQ_FLAG_MANUAL) {
			if (!g_hash_table_contains(open, key))
				g_hash_table_insert(open, key,
						    g_memdup2(&e->ts,
							      sizeof(e->ts)));
		} else if (e->kind == DT_RQ_EV_UNFLAG &&
			   (f = g_hash_table_lookup(open, key))) {
			struct extent x = {
				dt_clock_map_apply(map, *f),
				dt_clock_map_apply(map, e->ts),
			};

			g_array_append_val(out, x);
			g_hash_table_remove(open, key);
		}
	}
	g_hash_table_iter_init(&it, open);
	while (g_hash_table_iter_next(&it, NULL, &v)) {
		struct extent x = { dt_clock_map_apply(map, *(int64_t *)v),
				    INFINITY };

		g_array_append_val(out, x);
	}
	g_hash_table_destroy(open);
}

/*
 * The cut (the merged clock): before every request not printed for
 * good and every host's stream position, by the clocks' bound twice
 * and a millisecond (margin: the maps move as marks come), and no
 * request nor flag interval within that margin of it (the base would
 * keep a propagated span whose request's other spans it dropped);
 * -INFINITY while a host with events is not aligned.
 */
static long double cut_of(struct dt_watch *w, const struct dt_rq_model *m,
			  int64_t now)
{
	long double c = INFINITY, bound = 0, margin;
	GArray *x = g_array_new(FALSE, FALSE, sizeof(struct extent));
	bool moved;

	for (guint i = 0; i < w->hosts->len; i++) {
		struct whost *h = g_ptr_array_index(w->hosts, i);
		const struct dt_sync_host *s = h->sync < 0 ? NULL :
			dt_sync_host(w->sync, h->sync);
		int64_t mark = MAX(h->last_ts, h->progress);

		/*
		 * No event yet: nothing to drop of it, and its clock may
		 * never align; but the marks and spans of the others' its
		 * first events will pair with must wait for it: while it is
		 * followed, until its session's position passes (its own
		 * clock, within WATCH_UNALIGNED_NS of the others').
		 */
		if (h->last_ts == INT64_MIN) {
			if (!h->attached)
				continue;
			if (h->progress == INT64_MIN) {
				g_array_free(x, TRUE);
				return -INFINITY;
			}
			c = MIN(c, (long double)h->progress -
				   WATCH_UNALIGNED_NS);
			continue;
		}
		if (h->sync < 0 || (!s->is_reference && s->via < 0)) {
			g_array_free(x, TRUE);
			return -INFINITY;
		}
		c = MIN(c, dt_clock_map_apply(&s->map, mark) - s->uncertainty);
		bound = MAX(bound, s->uncertainty);
		flag_extents(w, h, x);
	}
	for (int i = 0; i < m->n_requests; i++) {
		const struct dt_rq_request *r = &m->requests[i];
		struct extent e = { r->start_ns, r->end_ns };

		if (!done_with(w, m, r, shown_of(w, m, r, now), now))
			c = MIN(c, r->start_ns);
		g_array_append_val(x, e);
	}
	margin = 2 * bound + 1e6;
	c -= margin;
	/* by start, from the last: none within the margin of the cut */
	g_array_sort(x, by_start_desc);
	do {
		moved = false;
		for (guint i = 0; i < x->len; i++) {
			const struct extent *e = &g_array_index(x,
				struct extent, i);

			if (e->a < c + margin && e->b > c - margin) {
				c = e->a - margin;
				moved = true;
			}
		}
	} while (moved);
	g_array_free(x, TRUE);
	return c;
}

/* The printed requests and the gaps before each host's cut, forgotten. */
static void forget(struct dt_watch *w)
{
	GHashTableIter it;
	gpointer k, v;

	for (guint i = 0; i < w->hosts->len; i++) {
		struct whost *h = g_ptr_array_index(w->hosts, i);

		while (h->gaps->len &&
		       g_array_index(h->gaps, struct gap, 0).to < h->cut)
			g_array_remove_index(h->gaps, 0);
	}

	g_hash_table_iter_init(&it, w->shown);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		GPtrArray *same = v;
		int64_t cut = ((struct whost *)g_ptr_array_index(w->hosts,
			(guint)(*(gint64 *)k >> 32)))->cut;

		for (guint i = same->len; i-- > 0;)
			if (((struct shown *)g_ptr_array_index(same, i))
				    ->own_start < cut)
				g_ptr_array_remove_index(same, i);
		if (!same->len)
			g_hash_table_iter_remove(&it);
	}
}

/* What the cut leaves behind goes (see the top of this file). */
static int advance(struct dt_watch *w, const struct dt_rq_model *m,
		   int64_t now)
{
	int n = dt_sync_n_hosts(w->sync), err;
	int64_t *cut, *sync_cut;
	long double c;

	if (w->o.keep_all)
		return 0;
	c = cut_of(w, m, now);
	if (!isfinite(c) || c <= w->cut)
		return 0;
	w->cut = c;
	cut = g_new(int64_t, w->hosts->len ? w->hosts->len : 1);
	sync_cut = g_new(int64_t, n ? n : 1);
	for (int i = 0; i < n; i++)
		sync_cut[i] = INT64_MIN;
	for (guint i = 0; i < w->hosts->len; i++) {
		struct whost *h = g_ptr_array_index(w->hosts, i);
		guint k = 0;

		/* a host with no event yet keeps no cut: its clock may not
		 * be aligned when its first events come */
		cut[i] = h->cut;
		if (h->last_ts == INT64_MIN || h->sync < 0)
			continue;
		h->cut = MAX(h->cut, own_time(map_of(w, h), (int64_t)c));
		while (k < h->evs->len &&
		       g_array_index(h->evs, struct dt_rq_event, k).ts < h->cut)
			k++;
		if (ingest(w->base, h, 0, k))
			goto nomem;
		g_array_remove_range(h->evs, 0, k);
		cut[i] = sync_cut[h->sync] = h->cut;
	}
	dt_rq_builder_retire(w->base, cut);
	err = dt_sync_retire(w->sync, sync_cut);
	forget(w);
	g_free(cut);
	g_free(sync_cut);
	return err;
nomem:
	g_free(cut);
	g_free(sync_cut);
	return -ENOMEM;
}

/* Build, then print what completed, timed out or changed. */
int dt_watch_refresh(struct dt_watch *w, int64_t now, bool final,
		     void (*changed)(void *data, const struct dt_rq_model *m),
		     void *data)
{
	struct dt_rq_model *m = build(w);
	bool any = false;
	GString *late;
	int64_t real_ns = 0;
	struct timespec ts;
	int err;

	w->dirty = false;
	w->waiting = 0;
	if (!m) {
		say(w, "out of memory building the requests");
		return -ENOMEM;
	}
	say_sync(w);
	if (w->o.delays && !clock_gettime(CLOCK_REALTIME, &ts))
		real_ns = ts.tv_sec * (int64_t)1000000000 + ts.tv_nsec;
	late = g_string_new(NULL);
	for (int i = 0; i < m->n_requests; i++) {
		const struct dt_rq_request *r = &m->requests[i];
		struct shown *s = shown_of(w, m, r, now);
		bool changed_since;
		int open, unreceived;

		if (s->printed && !s->complete)
			join_pieces(w, m, r, s);
		pending(m, r, &open, &unreceived);
		if (!s->printed && !s->whole_ns && !open && !unreceived)
			s->whole_ns = real_ns;
		g_string_truncate(late, 0);
		behind(w, r->end_ns, late);
		if (!s->printed) {
			if (!final && (prelude_open(m, r) ||
				       ((open || unreceived || late->len ||
					 prelude(m, r)) &&
					now - s->first_seen_us <
					w->o.timeout_us))) {
				w->waiting++;
				continue;
			}
			print_request(w, m, i, s, open, unreceived,
				      final ? NULL : late->str, false, now);
			any = true;
			continue;
		}
		changed_since = s->n_spans != r->n_spans ||
				s->n_messages != r->n_messages ||
				s->n_hosts != r->n_hosts;
		if (s->complete) {
			w->late += changed_since;
			if (changed_since) {	/* counted once per change */
				s->n_spans = r->n_spans;
				s->n_messages = r->n_messages;
				s->n_hosts = r->n_hosts;
			}
		} else if (!s->updated &&
			   (changed_since || (!open && !unreceived &&
					      !late->len && !prelude(m, r)))) {
			if ((open || unreceived || late->len) && !final)
				continue;	/* not settled yet: wait */
			print_request(w, m, i, s, open, unreceived, NULL, true,
				      now);
			any = true;
		}
	}
	g_string_free(late, TRUE);
	if (any && changed && w->o.page) {
		struct dt_rq_model *p = dt_rq_model_join(
			(struct dt_rq_model *const *)w->page->pdata,
			(int)w->page->len);

		if (p)
			changed(data, p);
		else
			say(w, "out of memory: the page is not written");
		dt_rq_model_free(p);
	} else if (any && changed) {
		changed(data, m);
	}
	err = advance(w, m, now);
	dt_rq_model_free(m);
	if (err)
		say(w, "out of memory dropping what was printed");
	return err;
}

bool dt_watch_dirty(const struct dt_watch *w)
{
	return w->dirty;
}

int dt_watch_waiting(const struct dt_watch *w)
{
	return w->waiting;
}

void dt_watch_counts(const struct dt_watch *w, struct dt_watch_counts *c)
{
	*c = (struct dt_watch_counts){ .events = w->events,
				       .printed = w->printed,
				       .timed_out = w->timed_out,
				       .updated = w->updated,
				       .late = w->late,
				       .maybe_missing = w->maybe_missing,
				       .joined = w->joined,
				       .hosts = w->hosts->len,
				       .kept = dt_rq_builder_size(w->base) +
					       dt_sync_kept(w->sync) +
					       g_hash_table_size(w->shown) };
	for (guint i = 0; i < w->hosts->len; i++) {
		const struct whost *h = g_ptr_array_index(w->hosts, i);

		c->discarded += h->discarded;
		c->repeated += h->repeated;
		c->late_events += h->late_events;
		c->kept += h->evs->len;
	}
}

struct dt_watch *dt_watch_new(const struct dt_watch_opts *o, FILE *out)
{
	struct dt_watch *w = g_new0(struct dt_watch, 1);

	w->o = *o;
	w->out = out;
	w->hosts = g_ptr_array_new_with_free_func(host_free);
	w->by_name = g_hash_table_new(g_str_hash, g_str_equal);
	w->strings = g_string_chunk_new(4096);
	w->scratch = g_string_new(NULL);
	w->page = g_ptr_array_new_with_free_func(
		(GDestroyNotify)dt_rq_model_free);
	w->sync = dt_sync_new();
	w->base = dt_rq_builder_new();
	w->cut = -INFINITY;
	w->shown = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
					 (GDestroyNotify)g_ptr_array_unref);
	if (!w->sync || !w->base) {
		dt_watch_free(w);
		return NULL;
	}
	return w;
}

void dt_watch_free(struct dt_watch *w)
{
	if (!w)
		return;
	g_hash_table_destroy(w->shown);
	g_ptr_array_free(w->hosts, TRUE);
	dt_rq_builder_free(w->base);
	g_hash_table_destroy(w->by_name);
	g_string_chunk_free(w->strings);
	g_string_free(w->scratch, TRUE);
	g_ptr_array_free(w->page, TRUE);
	dt_sync_free(w->sync);
	g_free(w);
}
