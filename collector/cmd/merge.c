/*
 * dtracer merge / dtracer sync: align the hosts' clocks from the marked
 * segments and mux the traces into one timeline.
 *
 *   pass 1: per host, in a thread of its own (requests-hosts.c):
 *           src.ctf.fs (its traces) -> flt.utils.muxer -> dedup ->
 *           tap (sync's marks, requests' events) -> sink.ctf.fs OUT/ctf;
 *           the sync solved, OUT/requests.txt
 *           (dtracer sync: src.ctf.fs -> muxer -> dedup -> flt.dtracer.sync
 *           -> sink.utils.dummy, in one graph)
 *   then:   each host's OUT/ctf metadata gets its clock map (retime.h)
 *   pass 2: src.ctf.fs (OUT/ctf) -> flt.utils.muxer -> sink.text.pretty
 *
 * Everything is written under OUT.partial-XXXXXX next to OUT and renamed
 * to OUT at the end: an error or ^C leaves no half-written OUT.
 */
#define _XOPEN_SOURCE 700
#include "cmd.h"

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "ctf-check.h"
#include "flt-sync.h"
#include "graph.h"
#include "requests-hosts.h"
#include "options.h"
#include "retime.h"
#include "sync.h"

struct merge {
	const char *out;
	const char *reference;
	char **dirs;			/* DIR... */
	int n_dirs;
	int text;
	int only_sync;
	int progress;
	GPtrArray *traces;		/* char *: trace directories */
	char *tmp;			/* OUT.partial-XXXXXX */
	struct dt_classes cls;
	struct dt_flt_sync_run run;
	struct dt_flt_dedup_run dedup;	/* counted in the sync pass */
	int64_t begin, end;		/* for the progress bar */
};

static char *volatile cleanup_dir;

/* Remove the partial output (not from the signal handler: it only
 * interrupts the graph, and the normal error path cleans up). */
static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * If babeltrace2 aborts (graph.h): no partial output left behind. The
 * other hosts' threads may still be writing into it: it is moved aside
 * first (they write on in the moved tree, or fail to create a file), and
 * removed again should one have made a directory there since.
 */
static void remove_partial(void)
{
	static char dead[4096];
	const char *dir = cleanup_dir;

	if (!dir || strlen(dir) + 6 > sizeof(dead))
		return;
	strcpy(dead, dir);
	strcat(dead, ".dead");
	if (!rename(dir, dead))
		remove_tree(dead);
	for (int i = 0; i < 3; i++) {
		struct timespec ms20 = { 0, 20000000 };

		remove_tree(dir);
		nanosleep(&ms20, NULL);
	}
	remove_tree(dir);
}

static void on_signal(int sig)
{
	(void)sig;
	dt_graph_interrupt();
	dt_rq_hosts_interrupt();
}

/* ----- progress ------------------------------------------------------- */

static void progress_bar(void *data)
{
	struct merge *m = data;
	static gint64 last;
	gint64 now = g_get_monotonic_time();
	double f;
	int w = 40, k;

	if (!m->progress || now - last < 100000)
		return;
	last = now;
	f = m->end > m->begin ?
	    (double)(m->run.last_ns - m->begin) / (double)(m->end - m->begin) : 0;
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	k = (int)(f * w);
	fprintf(stderr, "\r  [%.*s%*s] %3d%%  %llu events", k,
		"########################################", w - k, "",
		(int)(f * 100), (unsigned long long)m->run.events);
}

static void progress_done(struct merge *m)
{
	if (m->progress)
		fprintf(stderr, "\r%*s\r", 70, "");
}

/* ----- the passes ----------------------------------------------------- */

/* Run g (NULL: it could not be built, *error says why); progress only
 * for the sync pass. 0, or -1 after saying why. */
static int run_graph(struct merge *m, bt_graph *g, GPtrArray *traces,
		     const char *what, int progress, GError *error)
{
	int r;

	if (!g) {
		dt_error_print("dtracer", error);
		return -1;
	}
	r = dt_graph_run(g, what, (char *const *)traces->pdata,
			 (int)traces->len, progress ? progress_bar : NULL, m,
			 &error);
	if (progress)
		progress_done(m);
	dt_error_print("dtracer", error);
	/*
	 * After an error or an interruption the graph is not finalized:
	 * babeltrace2 2.0's sink.ctf.fs crashes finalizing a stream cut
	 * short by an upstream error (an unknown event class id in a
	 * stream). Its output is removed and the command ends just after.
	 */
	if (!r)
		bt_graph_put_ref(g);
	return r;
}

static int pass_sync(struct merge *m)
{
	bt_value *params = NULL;
	const bt_component_class_sink *sink = m->cls.dummy;
	const bt_component_class_filter *flt = dt_flt_sync_class();
	GError *error = NULL;
	bt_graph *g;
	char *dir;
	int r;

	if (!flt)
		return -1;
	if (!m->only_sync) {
		dir = g_build_filename(m->tmp, "ctf", NULL);
		params = bt_value_map_create();
		if (!params ||
		    bt_value_map_insert_string_entry(params, "path", dir) ||
		    bt_value_map_insert_bool_entry(params, "quiet", BT_TRUE)) {
			g_free(dir);
			bt_value_put_ref(params);
			bt_component_class_filter_put_ref(flt);
			return -1;
		}
		g_free(dir);
		sink = m->cls.sink_ctf_fs;
	}
	g = dt_graph_traces(&m->cls, (char *const *)m->traces->pdata,
			    (int)m->traces->len, flt, &m->run, sink, params,
			    &error);
	r = run_graph(m, g, m->traces, "reading the traces", 1, error);
	bt_value_put_ref(params);
	bt_component_class_filter_put_ref(flt);
	if (!r && m->run.solved < 0) {
		fprintf(stderr, "dtracer: clock sync failed: %s\n",
			strerror(-m->run.solved));
		r = -1;
	}
	return r;
}

/* The hosts pass's progress: events taken, the slowest host's time. */
static void hosts_progress(void *data, uint64_t events, int64_t ts)
{
	struct merge *m = data;

	m->run.events = events;
	m->run.last_ns = ts;
	progress_bar(m);
}

/*
 * merge's pass: each host's traces read once, by a graph of their own in
 * a thread of their own (requests-hosts.c): copied into OUT/ctf, the
 * marks and net segments to the sync, the events to the requests, whose
 * table goes to OUT/requests.txt. 0, or -1 after saying why.
 */
static int pass_hosts(struct merge *m)
{
	struct dt_hosts_pass p = { .reference = m->reference,
				   .progress = hosts_progress, .data = m };
	struct dt_rq_model *model = NULL;
	char *dir = g_build_filename(m->tmp, "ctf", NULL);
	char *table = g_build_filename(m->tmp, "requests.txt", NULL);
	GError *error = NULL;
	FILE *f;
	int r;

	p.ctf_out = dir;
	if (m->progress)
		fprintf(stderr, "dtracer merge: each host in a thread of its "
			"own\n");
	r = dt_rq_hosts_pass(m->traces, &p, &model, &error);
	progress_done(m);
	g_free(dir);
	if (r) {
		dt_error_print("dtracer", error);
		g_free(table);
		return -1;
	}
	dt_sync_free(m->run.sync);
	m->run.sync = p.sync;
	m->run.events = p.events;
	m->dedup.dropped = p.dedup_dropped;
	f = fopen(table, "w");
	r = !f || dt_rq_print_table(model, 0, f);
	if (f && fclose(f))
		r = 1;
	if (r)
		fprintf(stderr, "dtracer merge: cannot write %s: %s\n", table,
			strerror(errno));
	dt_rq_model_free(model);
	g_free(table);
	return r ? -1 : 0;
}

/* Output traces: every metadata under OUT/ctf. */
static GPtrArray *output_traces(struct merge *m)
{
	GPtrArray *t = g_ptr_array_new_with_free_func(g_free);
	char *dir = g_build_filename(m->tmp, "ctf", NULL);

	dt_find_traces(dir, t, 0, NULL);
	g_free(dir);
	return t;
}

static int retime(struct merge *m, GPtrArray *outs)
{
	for (guint i = 0; i < outs->len; i++) {
		char *md = g_build_filename(outs->pdata[i], "metadata", NULL);
		char *host = dt_metadata_hostname(md);
		int k = host ? dt_sync_host_index(m->run.sync, host) : -1;
		const struct dt_sync_host *h = k >= 0 ?
			dt_sync_host(m->run.sync, k) : NULL;
		GError *error = NULL;
		int err = 0;

		if (h && (h->is_reference || h->via >= 0))
			err = dt_metadata_retime(md, &h->map, &error);
		dt_error_print("dtracer", error);
		g_free(host);
		g_free(md);
		if (err)
			return -1;
	}
	return 0;
}

static int pass_text(struct merge *m, GPtrArray *outs)
{
	bt_value *params = bt_value_map_create();
	char *path = g_build_filename(m->tmp, "timeline.txt", NULL);
	GError *error = NULL;
	bt_graph *g;
	int r = -1;

	if (params &&
	    !bt_value_map_insert_string_entry(params, "path", path) &&
	    !bt_value_map_insert_bool_entry(params, "clock-seconds", BT_TRUE) &&
	    !bt_value_map_insert_bool_entry(params, "no-delta", BT_TRUE) &&
	    !bt_value_map_insert_string_entry(params, "color", "never") &&
	    !bt_value_map_insert_bool_entry(params, "field-trace:hostname",
					    BT_TRUE)) {
		g = dt_graph_traces(&m->cls, (char *const *)outs->pdata,
				    (int)outs->len, NULL, NULL, m->cls.pretty,
				    params, &error);
		r = run_graph(m, g, outs, "writing the timeline", 0, error);
	}
	bt_value_put_ref(params);
	g_free(path);
	return r;
}

/* ----- the report ----------------------------------------------------- */

static void print_bound(FILE *f, long double lo, long double hi,
			long double scale, const char *unit)
{
	fputs(" [", f);
	if (isfinite(lo))
		fprintf(f, "%+.3Lf", lo * scale);
	else
		fputs("-inf", f);
	fputs(", ", f);
	if (isfinite(hi))
		fprintf(f, "%+.3Lf", hi * scale);
	else
		fputs("+inf", f);
	fprintf(f, "] %s", unit);
}

static void print_summary(const struct dt_sync *s, FILE *f)
{
	uint64_t lost = dt_sync_marks_unmatched(s);

	fprintf(f, "clock sync: %d hosts, %llu segments matched (%llu with "
		"LTTng's net events), %llu received with no send, %llu marked "
		"received with no mark_send", dt_sync_n_hosts(s),
		(unsigned long long)dt_sync_matched(s),
		(unsigned long long)dt_sync_matched_net(s),
		(unsigned long long)dt_sync_unmatched(s),
		(unsigned long long)lost);
	/* A marked segment always has its send: say why one may not. */
	if (lost || dt_sync_discarded(s))
		fprintf(f, " (the tracers discarded %llu events)",
			(unsigned long long)dt_sync_discarded(s));
	fputc('\n', f);
	for (int i = 0; i < dt_sync_n_pairs(s); i++) {
		const struct dt_sync_pair *p = dt_sync_pair(s, i);
		const struct dt_sync_fit *ft = &p->fit;

		fprintf(f, "  %s <- %s: %-11s %zu+%zu samples",
			dt_sync_host(s, p->a)->name, dt_sync_host(s, p->b)->name,
			dt_sync_quality_name(ft->quality), ft->n_ab, ft->n_ba);
		if (ft->quality >= DT_SYNC_APPROX) {
			fprintf(f, ", offset %+.3Lf us", ft->offset / 1e3L);
			print_bound(f, ft->offset_lo, ft->offset_hi, 1e-3L, "us");
			fprintf(f, ", drift %+.3Lf ppm", ft->drift * 1e6L);
			print_bound(f, ft->drift_lo, ft->drift_hi, 1e6L, "ppm");
			fprintf(f, ", +/- %.3Lf us%s", p->half_width / 1e3L,
				ft->quality == DT_SYNC_APPROX ?
				" if no drift" : "");
		}
		if (p->net_left_out)
			fprintf(f, " (%zu samples of LTTng's net events left "
				"out: with them no clock map fits)",
				p->net_left_out);
		fputc('\n', f);
	}
	for (int i = 0; i < dt_sync_n_hosts(s); i++) {
		const struct dt_sync_host *h = dt_sync_host(s, i);

		if (h->is_reference)
			fprintf(f, "  %s: reference clock\n", h->name);
		else if (h->via >= 0)
			fprintf(f, "  %s: %s via %s, uncertainty +/- %.3Lf us\n",
				h->name, dt_sync_quality_name(h->quality),
				dt_sync_host(s, h->via)->name,
				h->uncertainty / 1e3L);
		else
			fprintf(f, "  %s: %s, NOT ALIGNED (its own clock)\n",
				h->name, dt_sync_quality_name(h->quality));
	}
}

static int write_report(struct merge *m)
{
	char *path = g_build_filename(m->tmp, "sync.txt", NULL);
	FILE *f = fopen(path, "w");
	GError *error = NULL;
	int err;

	if (!f) {
		dt_error_errno(&error, errno, "%s", path);
		dt_error_print("dtracer", error);
		g_free(path);
		return -1;
	}
	dt_sync_report(m->run.sync, f);
	err = fclose(f);
	if (err) {
		dt_error_errno(&error, errno, "%s", path);
		dt_error_print("dtracer", error);
	}
	g_free(path);
	return err ? -1 : 0;
}

/* ----- the command ---------------------------------------------------- */

static int usage(const char *cmd, FILE *f)
{
	if (!strcmp(cmd, "sync"))
		fprintf(f, "usage: dtracer sync [--reference HOST] DIR...\n"
			"  Print the clock alignment of the hosts whose traces are under DIR...\n");
	else
		fprintf(f, "usage: dtracer merge -o OUT [--reference HOST] [--no-text] DIR...\n"
			"  Align the hosts' clocks from dtracer's marked segments and merge\n"
			"  the traces under DIR... into OUT/ (ctf/, timeline.txt, sync.txt).\n");
	return f == stdout ? 0 : 2;
}

static const struct dt_option merge_options[] = {
	{ "output", required_argument, 'o', 1 },
	{ "reference", required_argument, 'r', 1 },
	{ "no-text", no_argument, 'T', 0 },
	{ "help", no_argument, 'h', 1 },
	{ NULL, 0, 0, 0 },
};

static int parse(struct merge *m, const char *cmd, int argc, char **argv)
{
	struct dt_opts p;
	int c;

	dt_opts_start(&p, cmd, "", merge_options, argc, argv);
	while ((c = dt_opts_next(&p)) != -1) {
		switch (c) {
		case 'o':
			m->out = p.arg;
			break;
		case 'r':
			m->reference = p.arg;
			break;
		case 'T':
			m->text = 0;
			break;
		case 'h':
			exit(usage(cmd, stdout));
		default:
			dt_opts_bad(&p);
			return usage(cmd, stderr);
		}
	}
	m->dirs = argv + p.ind;
	m->n_dirs = argc - p.ind;
	if (!m->n_dirs) {
		fprintf(stderr, "dtracer %s: no trace directory given\n", cmd);
		return usage(cmd, stderr);
	}
	if (!m->only_sync && !m->out) {
		fprintf(stderr, "dtracer merge: -o OUT is required\n");
		return usage(cmd, stderr);
	}
	if (m->only_sync && (m->out || !m->text)) {
		fprintf(stderr, "dtracer sync: writes nothing (-o and --no-text "
			"are merge's options)\n");
		return usage(cmd, stderr);
	}
	if (m->reference && !*m->reference) {
		fprintf(stderr, "dtracer %s: --reference: empty host name\n", cmd);
		return 2;
	}
	return 0;
}

/* OUT must not exist; its partial twin is created next to it. */
static int make_tmp(struct merge *m)
{
	char *parent = g_path_get_dirname(m->out);
	char *base = g_path_get_basename(m->out);
	struct stat st;
	int r = -1;

	if (!lstat(m->out, &st))
		fprintf(stderr, "dtracer merge: %s already exists (remove it or "
			"choose another -o)\n", m->out);
	else if (stat(parent, &st) || !S_ISDIR(st.st_mode))
		fprintf(stderr, "dtracer merge: %s: no such directory\n", parent);
	else {
		m->tmp = g_strdup_printf("%s/.%s.partial-XXXXXX", parent, base);
		if (!mkdtemp(m->tmp)) {
			fprintf(stderr, "dtracer merge: cannot create a directory "
				"in %s: %s\n", parent, strerror(errno));
			g_free(m->tmp);
			m->tmp = NULL;
		} else {
			cleanup_dir = m->tmp;
			r = 0;
		}
	}
	g_free(parent);
	g_free(base);
	return r;
}

static int merge_body(struct merge *m, const char *cmd)
{
	GError *error = NULL;
	GPtrArray *outs;
	int r;

	if (dt_classes_load(&m->cls, &error)) {
		dt_error_print("dtracer", error);
		return 1;
	}
	dt_graph_on_abort(remove_partial);
	m->progress = isatty(STDERR_FILENO);
	if (m->progress && dt_traces_range(&m->cls,
			(char *const *)m->traces->pdata, (int)m->traces->len,
			&m->begin, &m->end))
		m->begin = m->end = 0;
	if (!m->only_sync && make_tmp(m))
		return 1;
	if (m->progress)
		fprintf(stderr, "dtracer %s: reading %u traces\n", cmd,
			m->traces->len);
	m->cls.dedup_run = &m->dedup;
	if (m->only_sync ? pass_sync(m) : pass_hosts(m))
		return 1;
	m->cls.dedup_run = NULL;
	if (m->only_sync) {
		dt_sync_report(m->run.sync, stdout);
		return 0;
	}
	outs = output_traces(m);
	r = write_report(m) || retime(m, outs);
	if (!r && m->text && m->progress)
		fprintf(stderr, "dtracer merge: writing the timeline\n");
	if (!r && m->text)
		r = pass_text(m, outs);
	g_ptr_array_free(outs, TRUE);
	if (r)
		return 1;
	if (rename(m->tmp, m->out)) {
		fprintf(stderr, "dtracer merge: cannot rename %s to %s: %s\n",
			m->tmp, m->out, strerror(errno));
		return 1;
	}
	cleanup_dir = NULL;
	print_summary(m->run.sync, stdout);
	printf("merged %llu events of %d hosts into %s/ (ctf/%s, sync.txt, "
	       "requests.txt)\n",
	       (unsigned long long)m->run.events, dt_sync_n_hosts(m->run.sync),
	       m->out, m->text ? ", timeline.txt" : "");
	if (m->dedup.dropped)
		printf("left out %llu repeated events (in several traces of "
		       "one host: overlapping snapshots)\n",
		       (unsigned long long)m->dedup.dropped);
	return 0;
}

int dt_cmd_merge(int argc, char **argv, int only_sync)
{
	const char *cmd = only_sync ? "sync" : "merge";
	struct merge m = { .text = 1, .only_sync = only_sync };
	char *out = NULL;
	/* the first ^C stops the graph cleanly, a second one kills */
	struct sigaction sa = { .sa_handler = on_signal,
				.sa_flags = SA_RESETHAND };
	int r;

	r = parse(&m, cmd, argc, argv);
	if (r)
		return r;
	if (m.out) {
		/* "out/" names out: its partial twin goes next to it */
		out = g_strdup(m.out);
		while (strlen(out) > 1 && out[strlen(out) - 1] == '/')
			out[strlen(out) - 1] = '\0';
		m.out = out;
	}
	m.traces = g_ptr_array_new_with_free_func(g_free);
	for (int i = 0; i < m.n_dirs; i++) {
		GError *error = NULL;

		if (dt_find_traces(m.dirs[i], m.traces, 1, &error)) {
			dt_error_print("dtracer", error);
			g_ptr_array_free(m.traces, TRUE);
			g_free(out);
			return 1;
		}
	}
	m.run.sync = dt_sync_new();
	m.run.reference = m.reference;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	r = merge_body(&m, cmd);
	if (cleanup_dir) {
		remove_tree(cleanup_dir);
		cleanup_dir = NULL;
	}
	dt_sync_free(m.run.sync);
	g_free(m.tmp);
	g_ptr_array_free(m.traces, TRUE);
	dt_classes_put(&m.cls);
	g_free(out);
	return r;
}
