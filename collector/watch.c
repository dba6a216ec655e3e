/*
 * dtracer watch: the requests of hosts recording live (`dtracer record
 * --live`), printed on the collector as they complete, while tracing
 * goes on.
 *
 * live.c follows every session of the relayd. Each event is decoded as
 * `dtracer requests` decodes it (requests-read.h) and kept, in its
 * host's own clock; marks also go to the clock sync. After new events,
 * the model is built again from all of them: the sync solved on every
 * mark so far (the same hulls as `dtracer merge`, their bounds
 * narrowing as marks come), each host's events mapped to the reference
 * clock, then the requests builder. A request prints once complete
 * (every span of it ended, every message it sent received), or at its
 * timeout as it is then; if it changes later (a late span), it prints
 * again, marked "updated".
 *
 * A request is known across builds by its root: host, thread and start
 * in that host's own clock, which the maps do not change.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "cmd.h"
#include "error-bt.h"
#include "graph.h"
#include "live.h"
#include "requests-read.h"
#include "sync.h"
#include "view.h"

#define WATCH_PORT 5344		/* lttng-relayd's live port */
#define WATCH_BUILD_US 250000	/* at most this often while events flow */
#define WATCH_IDLE_US 50000	/* sleep when nothing came */
#define WATCH_SAME_START_NS 50000	/* a root's start, across builds */

struct whost {
	char *name;
	int sync;		/* index in the dt_sync */
	GArray *evs;		/* struct dt_rq_event, own clock */
	bool unordered;		/* an event came before the last one */
	uint64_t discarded;
	int64_t last_ts;	/* newest event kept */
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
	bool printed, complete;
	int n_spans, n_hosts, n_messages;
};

struct watch {
	/* options */
	bool tree, delays;
	int64_t timeout_us;
	const char *reference, *html, *title;
	/* state */
	GPtrArray *hosts;	/* struct whost */
	GHashTable *by_name;	/* name -> struct whost */
	GHashTable *kinds;	/* dt_rq_kinds_new */
	GStringChunk *strings;
	struct dt_sync *sync;
	GPtrArray *shown;	/* struct shown, by discovery */
	int next_id;
	bool dirty, head;
	int waiting;		/* requests seen, not printed yet */
	int64_t built_us;
	uint64_t events, printed, updated, timed_out;
};

static volatile sig_atomic_t stop_asked;

static void on_stop(int sig)
{
	(void)sig;
	stop_asked = 1;
}

static void say(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

static void say(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/* A note, each of its lines a comment (causes come one per line). */
static void on_note(void *data, const char *text)
{
	char **lines = g_strsplit(text, "\n", -1);

	(void)data;
	for (int i = 0; lines[i]; i++)
		say("%s%s", i ? "  " : "", g_strstrip(lines[i]));
	g_strfreev(lines);
}

static void on_discarded(void *data, const char *host, uint64_t n)
{
	struct watch *w = data;
	struct whost *h = g_hash_table_lookup(w->by_name, host);

	if (h)
		h->discarded += n;
	say("%s: its tracer discarded %" PRIu64 " events (ring buffer "
	    "full): requests then may lack spans", host, n);
}

static struct whost *host_get(struct watch *w, const char *name)
{
	struct whost *h = g_hash_table_lookup(w->by_name, name);

	if (h)
		return h;
	h = g_new0(struct whost, 1);
	h->name = g_strdup(name);
	h->sync = dt_sync_host_index(w->sync, name);
	h->evs = g_array_new(FALSE, FALSE, sizeof(struct dt_rq_event));
	h->last_ts = h->floor = INT64_MIN;
	h->said_via = -1;
	g_ptr_array_add(w->hosts, h);
	g_hash_table_insert(w->by_name, h->name, h);
	return h;
}

static void on_attached(void *data, const char *host)
{
	struct watch *w = data;
	struct whost *h = host_get(w, host);

	h->floor = h->last_ts;
}

static void host_free(gpointer p)
{
	struct whost *h = p;

	g_array_free(h->evs, TRUE);
	g_free(h->name);
	g_free(h);
}

static int on_event(void *data, const char *host, const bt_message *msg)
{
	struct watch *w = data;
	struct whost *h = host_get(w, host);
	struct dt_rq_event ev;

	if (h->sync < 0)
		return -ENOMEM;
	if (!dt_rq_decode(w->kinds, msg, &ev))
		return 0;
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
static struct dt_rq_model *build(struct watch *w)
{
	struct dt_rq_builder *b;

	if (dt_sync_solve(w->sync, w->reference) == -ENOENT)
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

static struct shown *shown_of(struct watch *w, const struct dt_rq_model *m,
			      const struct dt_rq_request *r)
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
	s->first_seen_us = g_get_monotonic_time();
	g_ptr_array_add(w->shown, s);
	return s;
}

static void shown_free(gpointer p)
{
	struct shown *s = p;

	g_free(s->host);
	g_free(s);
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

static void print_request(struct watch *w, const struct dt_rq_model *m,
			  int i, struct shown *s, int open, int unreceived,
			  bool update)
{
	const struct dt_rq_request *r = &m->requests[i];
	struct timespec now;

	if (s->id < 0)
		s->id = w->next_id++;
	if (!w->head || w->tree) {
		dt_rq_print_head(stdout);
		w->head = true;
	}
	dt_rq_print_row(m, i, s->id, stdout);
	if (update)
		say("request %d updated: %d spans on %d hosts, %d messages "
		    "(was %d, %d, %d)", s->id, r->n_spans, r->n_hosts,
		    r->n_messages, s->n_spans, s->n_hosts, s->n_messages);
	if (open || unreceived)
		say("request %d incomplete after %.1f s: %d span%s still "
		    "open, %d message%s not received by a followed host",
		    s->id, w->timeout_us / 1e6, open, open == 1 ? "" : "s",
		    unreceived, unreceived == 1 ? "" : "s");
	if (w->delays && !clock_gettime(CLOCK_REALTIME, &now))
		say("request %d printed %.3f s after its end (this machine's "
		    "clock against the reference host's)", s->id,
		    ((now.tv_sec * (int64_t)1000000000 + now.tv_nsec) -
		     r->end_ns) / 1e9);
	if (w->tree) {
		dt_rq_print_tree_as(m, i, s->id, stdout);
		fputc('\n', stdout);
	}
	fflush(stdout);
	w->printed += !s->printed;
	w->updated += update;
	w->timed_out += !s->printed && (open || unreceived);
	s->printed = true;
	s->complete = !open && !unreceived;
	s->n_spans = r->n_spans;
	s->n_hosts = r->n_hosts;
	s->n_messages = r->n_messages;
}

/* The page, written beside FILE then renamed over it. */
static void write_html(struct watch *w, const struct dt_rq_model *m)
{
	char *tmp = g_strdup_printf("%s.tmp", w->html);
	GError *e = NULL;
	FILE *f = fopen(tmp, "w");
	int err = !f;

	if (f) {
		err = dt_view_write(m, w->title, f, &e) != 0;
		err |= fclose(f) != 0;
	}
	if (!err && rename(tmp, w->html))
		err = 1;
	if (err) {
		say("cannot write %s: %s", w->html,
		    e ? e->message : g_strerror(errno));
		g_unlink(tmp);
	}
	if (e)
		g_error_free(e);
	g_free(tmp);
}

/* What changed in the clock sync since last said. */
static void say_sync(struct watch *w)
{
	for (guint i = 0; i < w->hosts->len; i++) {
		struct whost *h = g_ptr_array_index(w->hosts, i);
		const struct dt_sync_host *s;

		if (h->sync < 0)
			continue;
		s = dt_sync_host(w->sync, h->sync);
		if (s->is_reference && !h->said_reference)
			say("clocks: %s is the reference", h->name);
		else if (!s->is_reference && s->via >= 0 &&
			 (s->quality != h->said_quality ||
			  s->via != h->said_via))
			say("clocks: %s aligned to %s, %s, within %.3Lf us",
			    h->name, dt_sync_host(w->sync, s->via)->name,
			    dt_sync_quality_name(s->quality),
			    s->uncertainty / 1e3L);
		h->said_reference = s->is_reference;
		h->said_quality = s->quality;
		h->said_via = s->via;
	}
}

/* Build, then print what completed, timed out or changed. */
static void refresh(struct watch *w, bool final)
{
	struct dt_rq_model *m = build(w);
	int64_t now = g_get_monotonic_time();
	bool changed = false;

	w->built_us = now;
	w->dirty = false;
	w->waiting = 0;
	if (!m) {
		say("out of memory building the requests");
		return;
	}
	say_sync(w);
	for (int i = 0; i < m->n_requests; i++) {
		const struct dt_rq_request *r = &m->requests[i];
		struct shown *s = shown_of(w, m, r);
		int open, unreceived;

		pending(m, r, &open, &unreceived);
		if (!s->printed) {
			if ((open || unreceived) && !final &&
			    now - s->first_seen_us < w->timeout_us) {
				w->waiting++;
				continue;
			}
			print_request(w, m, i, s, open, unreceived, false);
			changed = true;
		} else if (s->n_spans != r->n_spans ||
			   s->n_messages != r->n_messages ||
			   s->n_hosts != r->n_hosts ||
			   (!s->complete && !open && !unreceived)) {
			print_request(w, m, i, s, open, unreceived, true);
			changed = true;
		}
	}
	if (w->html && changed)
		write_html(w, m);
	dt_rq_model_free(m);
}

static int watch_usage(FILE *f)
{
	fprintf(f,
		"usage: dtracer watch [--tree] [--timeout DURATION] "
		"[--reference HOST]\n"
		"       [--html FILE [--title TEXT]] [--delays] "
		"COLLECTOR[:PORT]\n"
		"  Follow every session COLLECTOR's lttng-relayd serves live "
		"(dtracer record\n"
		"  --live on the hosts), those that start later too, and print "
		"each request\n"
		"  once every span of it has ended and every message it sent "
		"was received\n"
		"  (or after --timeout, default 5s), as `dtracer requests` "
		"does; --tree adds\n"
		"  its tree. Clocks are aligned from the marks as they come. "
		"--html FILE:\n"
		"  the view page (dtracer view), rewritten whenever a request "
		"prints.\n"
		"  --delays: how long after its end each request printed (by "
		"this machine's\n"
		"  clock: meaningful when the reference host is this one). "
		"PORT default %d.\n"
		"  Runs until interrupted (^C, SIGTERM), then prints what is "
		"still pending.\n", WATCH_PORT);
	return f == stdout ? 0 : 2;
}

static const struct option watch_opts[] = {
	{ "tree", no_argument, NULL, 'T' },
	{ "timeout", required_argument, NULL, 't' },
	{ "reference", required_argument, NULL, 'r' },
	{ "html", required_argument, NULL, 'H' },
	{ "title", required_argument, NULL, 'i' },
	{ "delays", no_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* COLLECTOR[:PORT] as "net://COLLECTOR:PORT"; NULL if not that. */
static char *relayd_url(const char *arg)
{
	const char *colon = strrchr(arg, ':');
	char *host;
	char *url;
	long port = WATCH_PORT;

	if (!*arg || strchr(arg, '/') || arg[0] == '[')
		return NULL;
	if (colon) {
		char *end;

		errno = 0;
		port = strtol(colon + 1, &end, 10);
		if (errno || *end || end == colon + 1 || port < 1 ||
		    port > 65535)
			return NULL;
	}
	host = g_strndup(arg, colon ? (gsize)(colon - arg) : strlen(arg));
	url = *host ? g_strdup_printf("net://%s:%ld", host, port) : NULL;
	g_free(host);
	return url;
}

static int watch_parse(int argc, char **argv, struct watch *w, char **url)
{
	uint64_t ns;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", watch_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return watch_usage(stdout);
		case 'T':
			w->tree = true;
			break;
		case 'd':
			w->delays = true;
			break;
		case 't':
			ns = dt_parse_duration(optarg);
			if (!ns || ns > (uint64_t)INT64_MAX / 2) {
				fprintf(stderr, "dtracer watch: --timeout: `%s` "
					"is not a duration (e.g. 5s, 500ms)\n",
					optarg);
				return 2;
			}
			w->timeout_us = (int64_t)(ns / 1000);
			break;
		case 'r':
			w->reference = optarg;
			break;
		case 'H':
			w->html = optarg;
			break;
		case 'i':
			w->title = optarg;
			break;
		default:
			fprintf(stderr, "dtracer watch: unknown option or "
				"missing argument: %s\n", argv[optind - 1]);
			return watch_usage(stderr);
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "dtracer watch: %s\n", optind == argc ?
			"which collector? (dtracer watch COLLECTOR[:PORT])" :
			"one collector only");
		return 2;
	}
	*url = relayd_url(argv[optind]);
	if (!*url) {
		fprintf(stderr, "dtracer watch: `%s` is not HOST or HOST:PORT\n",
			argv[optind]);
		return 2;
	}
	return -1;
}

static void watch_free(struct watch *w)
{
	g_ptr_array_free(w->shown, TRUE);
	g_ptr_array_free(w->hosts, TRUE);
	g_hash_table_destroy(w->by_name);
	g_hash_table_destroy(w->kinds);
	g_string_chunk_free(w->strings);
	dt_sync_free(w->sync);
}

/* The last build, and what was printed, seen and lost. */
static void watch_end(struct watch *w, const struct dt_live *l)
{
	uint64_t discarded = 0, repeated = 0, lost;
	double gap;

	refresh(w, true);
	for (guint i = 0; i < w->hosts->len; i++) {
		const struct whost *h = g_ptr_array_index(w->hosts, i);

		discarded += h->discarded;
		repeated += h->repeated;
	}
	dt_live_gaps(l, &lost, &gap);
	say("stopped: %" PRIu64 " requests printed (%" PRIu64 " incomplete "
	    "when printed, %" PRIu64 " updates) from %" PRIu64 " events of %u "
	    "hosts", w->printed, w->timed_out, w->updated, w->events,
	    w->hosts->len);
	say("lost: %" PRIu64 " events discarded by the hosts' tracers; %"
	    PRIu64 " sessions lost and followed again, %.1f s not followed "
	    "in all; %" PRIu64 " events given again left out", discarded,
	    lost, gap, repeated);
}

int dt_cmd_watch(int argc, char **argv)
{
	static const struct dt_live_ops ops = {
		.event = on_event,
		.discarded = on_discarded,
		.note = on_note,
		.attached = on_attached,
	};
	struct watch w = { .timeout_us = 5000000,
			   .title = "dtracer watch" };
	struct dt_classes cls;
	struct dt_live *l = NULL;
	struct sigaction sa = { .sa_handler = on_stop };
	GError *e = NULL;
	char *url = NULL;
	int r = watch_parse(argc, argv, &w, &url), ret = 1;

	if (r >= 0)
		return r;
	if (dt_classes_load(&cls, &e)) {
		dt_error_print("dtracer watch", e);
		g_error_free(e);
		g_free(url);
		return 1;
	}
	w.hosts = g_ptr_array_new_with_free_func(host_free);
	w.by_name = g_hash_table_new(g_str_hash, g_str_equal);
	w.kinds = dt_rq_kinds_new();
	w.strings = g_string_chunk_new(4096);
	w.sync = dt_sync_new();
	w.shown = g_ptr_array_new_with_free_func(shown_free);
	l = dt_live_new(&cls, url, &ops, &w, &e);
	if (!l || !w.sync)
		goto out;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	say("watching the live sessions of %s: a request prints once it is "
	    "complete, or %.1f s after it was first seen", url,
	    w.timeout_us / 1e6);
	while (!stop_asked) {
		int64_t now;

		r = dt_live_step(l, &e);
		if (r < 0)
			break;
		now = g_get_monotonic_time();
		/* while events flow, build now and then; once caught up,
		 * at once; with requests pending, for their timeouts */
		if ((w.dirty && (!r || now - w.built_us >= WATCH_BUILD_US)) ||
		    (w.waiting && now - w.built_us >= 4 * WATCH_BUILD_US))
			refresh(&w, false);
		if (!r)
			g_usleep(WATCH_IDLE_US);
	}
	if (!e) {
		watch_end(&w, l);
		ret = 0;
	}
out:
	if (e) {
		dt_error_print("dtracer watch", e);
		g_error_free(e);
	}
	dt_live_free(l);
	watch_free(&w);
	dt_classes_put(&cls);
	g_free(url);
	return ret;
}
