/*
 * dt-watch-replay [-f FIRST] [-s SEEDS] [-t TIMEOUT_MS] TRACES_DIR: the
 * watcher's model fed a recorded session's events as `dtracer watch` gets them
 * live, on the host, no guest. Each host's events (its trace under
 * TRACES_DIR, in its own clock) come in flushes of 1 s, each host at its
 * own phase and lag, now and then one host stalled for up to 4 s, each
 * flush followed by the host's progress; the models refresh every
 * 250 ms of the replay's clock. Two models take the same feed: one that
 * keeps every event (`watch --keep-all`) and one that drops what
 * printed requests leave behind (the default). Prints, per seed, what
 * each printed and how many entries each held; exits 1 if their outputs differ
 * anywhere (the first difference shown), 2 on a usage or read error.
 * Seeds FIRST (1 by default) to FIRST + SEEDS - 1 (5 by default): a seed
 * found odd among many is replayed alone (DT_REPLAY_OUT=PREFIX writes
 * both outputs to PREFIX.SEED.keep and PREFIX.SEED.drop).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "error.h"
#include "graph.h"
#include "requests-decode.h"
#include "watch-model.h"

#define PERIOD_NS 1000000000LL
#define STEP_NS 250000000LL

struct host {
	char *name;
	GArray *evs;		/* struct dt_rq_event, strings in chunk */
	int64_t phase, lag;	/* this seed's flushes */
	size_t next;		/* next event to deliver */
	int64_t flushed;	/* the last flush delivered (host clock) */
};

static GPtrArray *hosts;	/* struct host * */
static GHashTable *by_trace;	/* const bt_trace * -> struct host * */
static GHashTable *kinds;
static GStringChunk *strs;
static struct dt_msg_sink sink_data;

static struct host *host_of(const bt_trace *t)
{
	struct host *h = g_hash_table_lookup(by_trace, t);
	const bt_value *hn;
	const char *name;

	if (h)
		return h;
	hn = bt_trace_borrow_environment_entry_value_by_name_const(t,
								  "hostname");
	name = hn && bt_value_is_string(hn) ? bt_value_string_get(hn) : "?";
	for (guint i = 0; i < hosts->len; i++) {
		h = hosts->pdata[i];
		if (!strcmp(h->name, name))
			goto found;
	}
	h = g_new0(struct host, 1);
	h->name = g_strdup(name);
	h->evs = g_array_new(FALSE, FALSE, sizeof(struct dt_rq_event));
	g_ptr_array_add(hosts, h);
found:
	g_hash_table_insert(by_trace, (gpointer)t, h);
	return h;
}

static int on_message(void *data, const bt_message *msg)
{
	const bt_event *e;
	struct dt_rq_event ev;
	struct host *h;

	(void)data;
	if (bt_message_get_type(msg) != BT_MESSAGE_TYPE_EVENT)
		return 0;
	e = bt_message_event_borrow_event_const(msg);
	h = host_of(bt_stream_borrow_trace_const(
		bt_event_borrow_stream_const(e)));
	if (!dt_rq_decode(kinds, msg, &ev))
		return 0;
	if (ev.procname)
		ev.procname = g_string_chunk_insert_const(strs, ev.procname);
	if (ev.name)
		ev.name = g_string_chunk_insert_const(strs, ev.name);
	g_array_append_val(h->evs, ev);
	return 0;
}

static int read_traces(const char *dir)
{
	GPtrArray *traces = g_ptr_array_new_with_free_func(g_free);
	struct dt_classes cls;
	bt_component_class_sink *sink = NULL;
	bt_graph *g = NULL;
	GError *err = NULL;
	int ret = -1;

	if (dt_find_traces(dir, traces, 1, &err) ||
	    dt_classes_load(&cls, &err))
		goto out;
	sink_data = (struct dt_msg_sink){ .fn = on_message,
					  .what = "reading the traces" };
	sink = dt_msg_sink_class("dt-watch-replay");
	g = sink ? dt_graph_traces_data(&cls, (char *const *)traces->pdata,
					(int)traces->len, NULL, NULL, sink,
					NULL, &sink_data, &err) : NULL;
	if (g)
		ret = dt_graph_run(g, "reading the traces",
				   (char *const *)traces->pdata,
				   (int)traces->len, NULL, NULL, &err);
	bt_graph_put_ref(g);
	bt_component_class_sink_put_ref(sink);
	dt_classes_put(&cls);
out:
	if (err)
		fprintf(stderr, "dt-watch-replay: %s\n", err->message);
	g_clear_error(&err);
	g_ptr_array_free(traces, TRUE);
	return ret;
}

/* This seed's random number in [0, n). */
static int64_t rnd(GRand *r, int64_t n)
{
	return (int64_t)(g_rand_double(r) * (double)n);
}

/* The flush at or after ts on h (host clock). */
static int64_t flush_of(const struct host *h, int64_t ts)
{
	int64_t k = (ts - h->phase + PERIOD_NS - 1) / PERIOD_NS;

	return h->phase + k * PERIOD_NS;
}

struct run {
	struct dt_watch *keep, *drop;
	char *kb, *db;
	size_t kl, dl;
	FILE *kf, *df;
};

static void feed(struct run *r, struct host *h, const struct dt_rq_event *ev)
{
	dt_watch_add(r->keep, h->name, ev);
	dt_watch_add(r->drop, h->name, ev);
}

/* Everything h flushed by replay time now (its clock, + its lag). */
static void deliver(struct run *r, struct host *h, int64_t now, GRand *g,
		    int64_t *stall_until)
{
	for (;;) {
		int64_t f = h->flushed + PERIOD_NS;

		if (f + h->lag > now || now < *stall_until)
			return;
		while (h->next < h->evs->len) {
			struct dt_rq_event *ev = &g_array_index(h->evs,
				struct dt_rq_event, h->next);

			if (ev->ts > f)
				break;
			feed(r, h, ev);
			h->next++;
		}
		dt_watch_progress(r->keep, h->name, f);
		dt_watch_progress(r->drop, h->name, f);
		h->flushed = f;
		/* now and then the host falls behind for a while */
		if (rnd(g, 20) == 0)
			*stall_until = now + rnd(g, 4 * PERIOD_NS);
	}
}

static bool all_done(void)
{
	for (guint i = 0; i < hosts->len; i++) {
		struct host *h = hosts->pdata[i];

		if (h->next < h->evs->len)
			return false;
	}
	return true;
}

/* The first line where a and b differ, with a line before it. */
static void show_difference(const char *a, const char *b)
{
	const char *la = a, *lb = b, *pa = a;
	int line = 1;

	while (*la && *lb) {
		const char *ea = strchr(la, '\n'), *eb = strchr(lb, '\n');
		size_t na = ea ? (size_t)(ea - la) : strlen(la);
		size_t nb = eb ? (size_t)(eb - lb) : strlen(lb);

		if (na != nb || memcmp(la, lb, na))
			break;
		pa = la;
		la += na + (ea != NULL);
		lb += nb + (eb != NULL);
		line++;
	}
	printf("  first difference at line %d, after:\n    %.*s\n"
	       "  keep: %.*s\n  drop: %.*s\n", line,
	       (int)strcspn(pa, "\n"), pa, (int)strcspn(la, "\n"), la,
	       (int)strcspn(lb, "\n"), lb);
}

static int replay(unsigned seed, int64_t timeout_ms)
{
	struct dt_watch_opts o = { .tree = true,
				   .timeout_us = timeout_ms * 1000 };
	struct dt_watch_counts ck, cd;
	struct run r = { 0 };
	GRand *g = g_rand_new_with_seed(seed);
	int64_t start = INT64_MAX, now, *stall;
	int same;

	r.kf = open_memstream(&r.kb, &r.kl);
	r.df = open_memstream(&r.db, &r.dl);
	o.keep_all = true;
	r.keep = dt_watch_new(&o, r.kf);
	o.keep_all = false;
	r.drop = dt_watch_new(&o, r.df);
	stall = g_new0(int64_t, hosts->len);
	for (guint i = 0; i < hosts->len; i++) {
		struct host *h = hosts->pdata[i];
		int64_t first = g_array_index(h->evs, struct dt_rq_event,
					      0).ts;

		h->phase = rnd(g, PERIOD_NS);
		h->lag = rnd(g, PERIOD_NS / 2);
		h->next = 0;
		if (first < start)
			start = first;
	}
	/* each host followed from the start, its flushes from then */
	for (guint i = 0; i < hosts->len; i++) {
		struct host *h = hosts->pdata[i];

		h->flushed = flush_of(h, start) - PERIOD_NS;
		dt_watch_attached(r.keep, h->name, false);
		dt_watch_attached(r.drop, h->name, false);
	}
	for (now = start; !all_done(); now += STEP_NS) {
		for (guint i = 0; i < hosts->len; i++)
			deliver(&r, hosts->pdata[i], now, g, &stall[i]);
		dt_watch_refresh(r.keep, now / 1000, false, NULL, NULL);
		dt_watch_refresh(r.drop, now / 1000, false, NULL, NULL);
		if (getenv("DT_REPLAY_STEP")) {
			fflush(r.kf);
			fflush(r.df);
			if (r.kl != r.dl || memcmp(r.kb, r.db, r.kl)) {
				printf("step at %lld: outputs differ\n",
				       (long long)(now - start));
				show_difference(r.kb, r.db);
				exit(1);
			}
		}
	}
	dt_watch_refresh(r.keep, now / 1000, true, NULL, NULL);
	dt_watch_refresh(r.drop, now / 1000, true, NULL, NULL);
	fflush(r.kf);
	fflush(r.df);
	dt_watch_counts(r.keep, &ck);
	dt_watch_counts(r.drop, &cd);
	same = r.kl == r.dl && !memcmp(r.kb, r.db, r.kl);
	printf("seed %u: %s: printed %llu and %llu (timed out %llu, %llu; "
	       "updated %llu, %llu), %zu and %zu bytes, entries held %llu "
	       "and %llu\n", seed, same ? "same" : "DIFFERENT",
	       (unsigned long long)ck.printed, (unsigned long long)cd.printed,
	       (unsigned long long)ck.timed_out,
	       (unsigned long long)cd.timed_out,
	       (unsigned long long)ck.updated, (unsigned long long)cd.updated,
	       r.kl, r.dl, (unsigned long long)ck.kept,
	       (unsigned long long)cd.kept);
	if (!same)
		show_difference(r.kb, r.db);
	if (getenv("DT_REPLAY_OUT")) {
		char *k = g_strdup_printf("%s.%u.keep", getenv("DT_REPLAY_OUT"),
					  seed);
		char *d = g_strdup_printf("%s.%u.drop", getenv("DT_REPLAY_OUT"),
					  seed);

		g_file_set_contents(k, r.kb, (gssize)r.kl, NULL);
		g_file_set_contents(d, r.db, (gssize)r.dl, NULL);
		g_free(k);
		g_free(d);
	}
	dt_watch_free(r.keep);
	dt_watch_free(r.drop);
	fclose(r.kf);
	fclose(r.df);
	free(r.kb);
	free(r.db);
	g_free(stall);
	g_rand_free(g);
	return same ? 0 : 1;
}

int main(int argc, char **argv)
{
	unsigned seeds = 5, first = 1;
	int64_t timeout_ms = 8000;
	int opt, bad = 0;

	while ((opt = getopt(argc, argv, "f:s:t:")) != -1) {
		if (opt == 'f')
			first = (unsigned)strtoul(optarg, NULL, 10);
		else if (opt == 's')
			seeds = (unsigned)strtoul(optarg, NULL, 10);
		else if (opt == 't')
			timeout_ms = strtoll(optarg, NULL, 10);
		else
			optind = argc + 1;
	}
	if (optind != argc - 1 || !seeds || !first || timeout_ms <= 0) {
		fprintf(stderr, "usage: dt-watch-replay [-f FIRST] [-s SEEDS] "
			"[-t TIMEOUT_MS] TRACES_DIR\n");
		return 2;
	}
	hosts = g_ptr_array_new();
	by_trace = g_hash_table_new(g_direct_hash, g_direct_equal);
	kinds = dt_rq_kinds_new();
	strs = g_string_chunk_new(4096);
	if (read_traces(argv[optind]))
		return 2;
	for (guint i = 0; i < hosts->len; i++) {
		struct host *h = hosts->pdata[i];

		if (!h->evs->len) {
			g_ptr_array_remove_index(hosts, i--);
			continue;
		}
		printf("%s: %u events\n", h->name, h->evs->len);
	}
	if (!hosts->len) {
		fprintf(stderr, "dt-watch-replay: no events in %s\n",
			argv[optind]);
		return 2;
	}
	for (unsigned s = first; s - first < seeds; s++)
		bad |= replay(s, timeout_ms);
	return bad;
}
