/*
 * The watcher's model (watch-model.h): what `dtracer watch` keeps and
 * prints.
 *
 * Each event is kept in its host's own clock; marks also go to the
 * clock sync. On refresh the model is built again from all of them: the
 * sync solved on every mark so far (the same hulls as `dtracer merge`,
 * their bounds narrowing as marks come), each host's events mapped to
 * the reference clock, then the requests builder.
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

struct whost {
	char *name;
	int sync;		/* index in the dt_sync */
	GArray *evs;		/* struct dt_rq_event, own clock */
	bool unordered;		/* an event came before the last one */
	uint64_t discarded;
	int64_t last_ts;	/* newest event kept */
	int64_t progress;	/* its session's position when quiet */
	int64_t floor;		/* since the last attach: older is a repeat */
	uint64_t repeated;	/* events left out as repeats */
	/* the clock sync, as last said */
	enum dt_sync_quality said_quality;
	int said_via;
	bool said_reference;
};

/* A request as printed (or waiting to be). */
struct shown {
	int id;			/* watch's number, in order of printing */
	char *host;		/* root */
	int32_t tid;
	int64_t own_start;	/* root host's clock */
	int64_t first_seen_us;
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
	GPtrArray *shown;	/* struct shown, by discovery */
	int next_id;
	bool dirty, head;
	int waiting;		/* requests seen, not printed yet */
	uint64_t events, printed, updated, timed_out, late;
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
	h->last_ts = h->floor = h->progress = INT64_MIN;
	h->said_via = -1;
	g_ptr_array_add(w->hosts, h);
	g_hash_table_insert(w->by_name, h->name, h);
	return h;
}

int dt_watch_attached(struct dt_watch *w, const char *host)
{
	struct whost *h = host_get(w, host);

	if (h->sync < 0)
		return -ENOMEM;
	h->floor = h->last_ts;
	return 0;
}

void dt_watch_progress(struct dt_watch *w, const char *host, int64_t ts)
{
	struct whost *h = host_get(w, host);

	if (ts > h->progress) {
		h->progress = ts;
		w->dirty = true;
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
	if (ev.ts > h->last_ts)
		h->last_ts = ev.ts;
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

/* The clock maps, then the model from every event so far. */
static struct dt_rq_model *build(struct dt_watch *w)
{
	struct dt_rq_builder *b;

	if (dt_sync_solve(w->sync, w->o.reference) == -ENOENT)
		dt_sync_solve(w->sync, NULL);	/* not here yet */
	b = dt_rq_builder_new();
	if (!b)
		return NULL;
	for (guint i = 0; i < w->hosts->len; i++) {
		struct whost *h = g_ptr_array_index(w->hosts, i);
		const struct dt_clock_map *map =
			&dt_sync_host(w->sync, h->sync)->map;
		int idx = dt_rq_host(b, h->name);

		if (idx < 0)
			goto fail;
		if (h->unordered) {
			/* a session restarted: its events, in time order */
			g_array_sort(h->evs, by_ts);
			h->unordered = false;
		}
		for (guint k = 0; k < h->evs->len; k++) {
			struct dt_rq_event ev =
				g_array_index(h->evs, struct dt_rq_event, k);

			ev.host = idx;
			ev.ts = (int64_t)llroundl(dt_clock_map_apply(map,
								     ev.ts));
			if (dt_rq_add(b, &ev))
				goto fail;
		}
	}
	return dt_rq_finish(b);
fail:
	dt_rq_builder_free(b);
	return NULL;
}

/* A merged-clock time back in the host's own clock (maps invert). */
static int64_t own_time(const struct dt_clock_map *m, int64_t t)
{
	return (int64_t)llroundl(((long double)t - m->offset +
				  m->drift * m->anchor) / (1 + m->drift));
}

static struct shown *shown_of(struct dt_watch *w, const struct dt_rq_model *m,
			      const struct dt_rq_request *r, int64_t now_us)
{
	const struct dt_rq_span *root = &m->spans[r->root];
	const char *host = m->hosts[root->host];
	struct whost *h = g_hash_table_lookup(w->by_name, host);
	int64_t own = own_time(&dt_sync_host(w->sync, h->sync)->map,
			       r->start_ns);
	struct shown *s;

	for (guint i = w->shown->len; i-- > 0;) {
		s = g_ptr_array_index(w->shown, i);
		if (s->tid == root->tid && !strcmp(s->host, host) &&
		    llabs(s->own_start - own) <= WATCH_SAME_START_NS)
			return s;
	}
	s = g_new0(struct shown, 1);
	s->id = -1;
	s->host = g_strdup(host);
	s->tid = root->tid;
	s->own_start = own;
	s->first_seen_us = now_us;
	g_ptr_array_add(w->shown, s);
	return s;
}

static void shown_free(gpointer p)
{
	struct shown *s = p;

	g_free(s->host);
	g_free(s);
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

static void print_request(struct dt_watch *w, const struct dt_rq_model *m,
			  int i, struct shown *s, int open, int unreceived,
			  const char *late_hosts, bool update)
{
	const struct dt_rq_request *r = &m->requests[i];
	struct timespec now;

	if (s->id < 0)
		s->id = w->next_id++;
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
	if (w->o.delays && !clock_gettime(CLOCK_REALTIME, &now))
		say(w, "request %d printed %.3f s after its end (this machine's "
		    "clock against the reference host's)", s->id,
		    ((now.tv_sec * (int64_t)1000000000 + now.tv_nsec) -
		     r->end_ns) / 1e9);
	if (w->o.tree) {
		dt_rq_print_tree_as(m, i, s->id, w->out);
		fputc('\n', w->out);
	}
	fflush(w->out);
	w->printed += !s->printed;
	w->updated += update;
	w->timed_out += !s->printed &&
			(open || unreceived || (late_hosts && *late_hosts));
	s->printed = true;
	s->updated |= update;
	s->complete = !open && !unreceived && !(late_hosts && *late_hosts);
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

/* Build, then print what completed, timed out or changed. */
int dt_watch_refresh(struct dt_watch *w, int64_t now, bool final,
		     void (*changed)(void *data, const struct dt_rq_model *m),
		     void *data)
{
	struct dt_rq_model *m = build(w);
	bool any = false;
	GString *late;

	w->dirty = false;
	w->waiting = 0;
	if (!m) {
		say(w, "out of memory building the requests");
		return -ENOMEM;
	}
	say_sync(w);
	late = g_string_new(NULL);
	for (int i = 0; i < m->n_requests; i++) {
		const struct dt_rq_request *r = &m->requests[i];
		struct shown *s = shown_of(w, m, r, now);
		bool changed_since;
		int open, unreceived;

		pending(m, r, &open, &unreceived);
		g_string_truncate(late, 0);
		behind(w, r->end_ns, late);
		if (!s->printed) {
			if ((open || unreceived || late->len) && !final &&
			    now - s->first_seen_us < w->o.timeout_us) {
				w->waiting++;
				continue;
			}
			print_request(w, m, i, s, open, unreceived,
				      final ? NULL : late->str, false);
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
					      !late->len))) {
			if ((open || unreceived || late->len) && !final)
				continue;	/* not settled yet: wait */
			print_request(w, m, i, s, open, unreceived, NULL, true);
			any = true;
		}
	}
	g_string_free(late, TRUE);
	if (any && changed)
		changed(data, m);
	dt_rq_model_free(m);
	return 0;
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
				       .hosts = w->hosts->len };
	for (guint i = 0; i < w->hosts->len; i++) {
		const struct whost *h = g_ptr_array_index(w->hosts, i);

		c->discarded += h->discarded;
		c->repeated += h->repeated;
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
	w->sync = dt_sync_new();
	w->shown = g_ptr_array_new_with_free_func(shown_free);
	if (!w->sync) {
		dt_watch_free(w);
		return NULL;
	}
	return w;
}

void dt_watch_free(struct dt_watch *w)
{
	if (!w)
		return;
	g_ptr_array_free(w->shown, TRUE);
	g_ptr_array_free(w->hosts, TRUE);
	g_hash_table_destroy(w->by_name);
	g_string_chunk_free(w->strings);
	dt_sync_free(w->sync);
	g_free(w);
}
