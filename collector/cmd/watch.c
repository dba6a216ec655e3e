/*
 * dtracer watch: the requests of hosts recording live (`dtracer record
 * --live`), printed on the collector as they complete, while tracing
 * goes on.
 *
 * live.c follows every session of the relayd; each event is decoded as
 * `dtracer requests` decodes it (requests-decode.h) and handed to the
 * model (watch-model.c), which aligns the clocks, builds the requests
 * and prints them. Here: the options, the loop, the page.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "cmd.h"
#include "error-bt.h"
#include "graph.h"
#include "live.h"
#include "options.h"
#include "requests-decode.h"
#include "view.h"
#include "watch-model.h"

#define WATCH_PORT 5344		/* lttng-relayd's live port */
#define WATCH_BUILD_US 250000	/* at most this often while events flow */
#define WATCH_IDLE_US 50000	/* sleep when nothing came */

struct watch {
	struct dt_watch_opts o;
	const char *html, *title;
	struct dt_watch *model;
	GHashTable *kinds;	/* dt_rq_kinds_new */
};

static volatile sig_atomic_t stop_asked;

static void on_stop(int sig)
{
	(void)sig;
	stop_asked = 1;
}

static void on_note(void *data, const char *text)
{
	struct watch *w = data;

	dt_watch_say(w->model, text);
}

static void on_discarded(void *data, const char *host, uint64_t n)
{
	struct watch *w = data;

	dt_watch_discarded(w->model, host, n);
}

static void on_attached(void *data, const char *host, bool lost)
{
	struct watch *w = data;

	if (dt_watch_attached(w->model, host, lost))
		dt_watch_say(w->model, "out of memory");
}

static void on_progress(void *data, const char *host, int64_t ts)
{
	struct watch *w = data;

	dt_watch_progress(w->model, host, ts);
}

static int on_event(void *data, const char *host, const bt_message *msg)
{
	struct watch *w = data;
	struct dt_rq_event ev;

	if (!dt_rq_decode(w->kinds, msg, &ev))
		return 0;
	return dt_watch_add(w->model, host, &ev);
}

/* The page, written beside FILE then renamed over it. */
static void write_html(void *data, const struct dt_rq_model *m)
{
	struct watch *w = data;
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
		char *s = g_strdup_printf("cannot write %s: %s", w->html,
					  e ? e->message : g_strerror(errno));

		dt_watch_say(w->model, s);
		g_free(s);
		g_unlink(tmp);
	}
	if (e)
		g_error_free(e);
	g_free(tmp);
}

static int watch_usage(FILE *f)
{
	fprintf(f,
		"usage: dtracer watch [--tree] [--timeout DURATION] "
		"[--reference HOST]\n"
		"       [--html FILE [--title TEXT]] [--delays] [--keep-all] "
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
		"  the view page (dtracer view) of every request printed so "
		"far, rewritten\n"
		"  whenever a request prints.\n"
		"  What printed requests leave behind is dropped, so that a "
		"long session's\n"
		"  cost stays flat; --keep-all keeps every event instead (a "
		"build then reads\n"
		"  them all).\n"
		"  --delays: how long after its end each request printed (by "
		"this machine's\n"
		"  clock: meaningful when the reference host is this one). "
		"PORT default %d.\n"
		"  Runs until interrupted (^C, SIGTERM), then prints what is "
		"still pending.\n", WATCH_PORT);
	return f == stdout ? 0 : 2;
}

static const struct dt_option watch_options[] = {
	{ "tree", no_argument, 'T', 0 },
	{ "timeout", required_argument, 't', 0 },
	{ "reference", required_argument, 'r', 0 },
	{ "html", required_argument, 'H', 0 },
	{ "keep-all", no_argument, 'K', 0 },
	{ "title", required_argument, 'i', 0 },
	{ "delays", no_argument, 'd', 0 },
	{ "help", no_argument, 'h', 1 },
	{ NULL, 0, 0, 0 },
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
	struct dt_opts p;
	uint64_t ns;
	int c;

	dt_opts_start(&p, "watch", "+", watch_options, argc, argv);
	while ((c = dt_opts_next(&p)) != -1) {
		switch (c) {
		case 'h':
			return watch_usage(stdout);
		case 'T':
			w->o.tree = true;
			break;
		case 'd':
			w->o.delays = true;
			break;
		case 't':
			ns = dt_parse_duration(p.arg);
			if (!ns || ns > (uint64_t)INT64_MAX / 2) {
				fprintf(stderr, "dtracer watch: --timeout: `%s` "
					"is not a duration (e.g. 5s, 500ms)\n",
					p.arg);
				return 2;
			}
			w->o.timeout_us = (int64_t)(ns / 1000);
			break;
		case 'r':
			w->o.reference = p.arg;
			break;
		case 'K':
			w->o.keep_all = true;
			break;
		case 'H':
			w->html = p.arg;
			w->o.page = true;	/* every request printed */
			break;
		case 'i':
			w->title = p.arg;
			break;
		default:
			dt_opts_bad(&p);
			return watch_usage(stderr);
		}
	}
	if (p.ind + 1 != argc) {
		fprintf(stderr, "dtracer watch: %s\n", p.ind == argc ?
			"which collector? (dtracer watch COLLECTOR[:PORT])" :
			"one collector only");
		return 2;
	}
	*url = relayd_url(argv[p.ind]);
	if (!*url) {
		fprintf(stderr, "dtracer watch: `%s` is not HOST or HOST:PORT\n",
			argv[p.ind]);
		return 2;
	}
	return -1;
}

/* The last build, and what was printed, seen and lost. */
static void watch_end(struct watch *w, const struct dt_live *l)
{
	struct dt_watch_counts c;
	uint64_t lost;
	double gap;
	char *s;

	dt_watch_refresh(w->model, g_get_monotonic_time(), true,
			 w->html ? write_html : NULL, w);
	dt_watch_counts(w->model, &c);
	dt_live_gaps(l, &lost, &gap);
	s = g_strdup_printf("stopped: %" PRIu64 " requests printed (%" PRIu64
			    " incomplete when printed, %" PRIu64 " updates, %"
			    PRIu64 " changed after, %" PRIu64 " that may lack "
			    "a host's events, %" PRIu64 " printed in pieces "
			    "joined) from %" PRIu64 " events of %u hosts",
			    c.printed, c.timed_out, c.updated, c.late,
			    c.maybe_missing, c.joined, c.events, c.hosts);
	dt_watch_say(w->model, s);
	g_free(s);
	s = g_strdup_printf("lost: %" PRIu64 " events discarded by the hosts' "
			    "tracers; %" PRIu64 " sessions lost and followed "
			    "again, %.1f s not followed in all; %" PRIu64
			    " events given again left out; %" PRIu64 " older "
			    "than what was printed for good left out",
			    c.discarded, lost, gap, c.repeated,
			    c.late_events);
	dt_watch_say(w->model, s);
	g_free(s);
}

/* Until asked to stop: follow, and build now and then. 0 or -1. */
static int watch_loop(struct watch *w, struct dt_live *l, GError **error)
{
	int64_t built = 0;

	while (!stop_asked) {
		int r = dt_live_step(l, error);
		int64_t now;

		if (r < 0)
			return -1;
		now = g_get_monotonic_time();
		/* while events flow, build now and then; once caught up,
		 * at once; with requests pending, for their timeouts */
		if ((dt_watch_dirty(w->model) &&
		     (!r || now - built >= WATCH_BUILD_US)) ||
		    (dt_watch_waiting(w->model) &&
		     now - built >= 4 * WATCH_BUILD_US)) {
			if (dt_watch_refresh(w->model, now, false,
					     w->html ? write_html : NULL, w)) {
				dt_error_errno(error, ENOMEM, "the requests");
				return -1;
			}
			built = now;
		}
		if (!r)
			g_usleep(WATCH_IDLE_US);
	}
	return 0;
}

int dt_cmd_watch(int argc, char **argv)
{
	static const struct dt_live_ops ops = {
		.event = on_event,
		.discarded = on_discarded,
		.note = on_note,
		.attached = on_attached,
		.progress = on_progress,
	};
	struct watch w = { .o = { .timeout_us = 5000000 },
			   .title = "dtracer watch" };
	struct dt_classes cls;
	struct dt_live *l = NULL;
	struct sigaction sa = { .sa_handler = on_stop };
	GError *e = NULL;
	char *url = NULL, *s;
	int r = watch_parse(argc, argv, &w, &url), ret = 1;

	if (r >= 0)
		return r;
	if (dt_classes_load(&cls, &e)) {
		dt_error_print("dtracer watch", e);
		g_error_free(e);
		g_free(url);
		return 1;
	}
	w.kinds = dt_rq_kinds_new();
	w.model = dt_watch_new(&w.o, stdout);
	if (!w.model)
		dt_error_errno(&e, ENOMEM, "dtracer watch");
	else
		l = dt_live_new(&cls, url, &ops, &w, &e);
	if (!l)
		goto out;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	s = g_strdup_printf("watching the live sessions of %s: a request "
			    "prints once it is complete and every host's "
			    "events are past its end, or %.1f s after it was "
			    "first seen", url, w.o.timeout_us / 1e6);
	dt_watch_say(w.model, s);
	g_free(s);
	if (!watch_loop(&w, l, &e)) {
		watch_end(&w, l);
		ret = 0;
	}
out:
	if (e) {
		dt_error_print("dtracer watch", e);
		g_error_free(e);
	}
	dt_live_free(l);
	dt_watch_free(w.model);
	g_hash_table_destroy(w.kinds);
	dt_classes_put(&cls);
	g_free(url);
	return ret;
}
