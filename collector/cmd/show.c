/*
 * dtracer requests / view / export: the requests of a merged trace (the
 * output of `dtracer merge`) as a table, a tree, an HTML page, Perfetto
 * JSON or OTLP/JSON.
 */
#define _GNU_SOURCE
#include "cmd.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "options.h"
#include "requests.h"
#include "view.h"

struct show {
	const char *dir;
	const char *out;	/* NULL or "-": standard output */
	const char *title;
	int tree;		/* requests --tree, -1 */
	uint64_t slower;	/* requests --slower-than, 0: all */
	int request;		/* export --request, -1 */
	int format;
};

static int usage(const char *cmd, FILE *f)
{
	if (!strcmp(cmd, "requests"))
		fprintf(f, "usage: dtracer requests [--tree ID] "
			"[--slower-than DURATION] MERGED\n"
			"  one line per traced request of MERGED (dtracer "
			"merge's output), or request ID's tree;\n"
			"  --slower-than: only the requests that took DURATION "
			"or more (e.g. 50ms, 1.5s)\n");
	else if (!strcmp(cmd, "view"))
		fprintf(f, "usage: dtracer view -o PAGE.html [--title TEXT] "
			"MERGED\n  one self-contained HTML page: swimlanes per "
			"host and thread, spans, messages\n");
	else
		fprintf(f, "usage: dtracer export --format perfetto|otlp "
			"[--request ID] [-o FILE] MERGED\n  Perfetto (Chrome "
			"trace JSON) or OpenTelemetry (OTLP/JSON); FILE - or "
			"none: standard output\n");
	return f == stdout ? 0 : 2;
}

static int parse_id(const char *s, int *id)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 1 << 30)
		return -1;
	*id = (int)v;
	return 0;
}

/*
 * The three commands' options, each refused by the commands it is not
 * theirs ("unknown option").
 */
static const struct dt_option show_options[] = {
	{ "tree", required_argument, 't', 0 },
	{ "output", required_argument, 'o', 1 },
	{ "title", required_argument, 'T', 0 },
	{ "format", required_argument, 'f', 0 },
	{ "request", required_argument, 'r', 0 },
	{ "slower-than", required_argument, 's', 0 },
	{ "help", no_argument, 'h', 1 },
	{ NULL, 0, 0, 0 }
};

static int parse(struct show *o, const char *cmd, int argc, char **argv)
{
	struct dt_opts p;
	int c;

	o->tree = o->request = o->format = -1;
	dt_opts_start(&p, cmd, ":", show_options, argc, argv);
	while ((c = dt_opts_next(&p)) != -1) {
		const char *bad = NULL;

		if (c == 'h')
			return usage(cmd, stdout) + 1;	/* 1: done */
		if (c == 't' && !strcmp(cmd, "requests"))
			bad = parse_id(p.arg, &o->tree) ? "--tree" : NULL;
		else if (c == 's' && !strcmp(cmd, "requests"))
			bad = !(o->slower = dt_parse_duration(p.arg)) ?
			      "--slower-than (e.g. 50ms, 1.5s)" : NULL;
		else if (c == 'r' && !strcmp(cmd, "export"))
			bad = parse_id(p.arg, &o->request) ? "--request" : NULL;
		else if (c == 'f' && !strcmp(cmd, "export"))
			bad = (o->format = dt_export_format_parse(p.arg)) < 0 ?
			      "--format" : NULL;
		else if (c == 'o' && strcmp(cmd, "requests"))
			o->out = p.arg;
		else if (c == 'T' && !strcmp(cmd, "view"))
			o->title = p.arg;
		else if (c == ':')
			bad = "an option";
		else
			bad = "";
		if (bad && *bad) {
			fprintf(stderr, "dtracer %s: %s: bad value `%s`\n", cmd,
				bad, c == ':' ? dt_opts_word(&p) : p.arg);
			return usage(cmd, stderr);	/* 2 */
		}
		if (bad) {
			fprintf(stderr, "dtracer %s: unknown option `%s`\n", cmd,
				dt_opts_word(&p));
			return usage(cmd, stderr);	/* 2 */
		}
	}
	if (p.ind != argc - 1) {
		fprintf(stderr, "dtracer %s: give one MERGED directory "
			"(dtracer merge's output)\n", cmd);
		return usage(cmd, stderr);	/* 2 */
	}
	o->dir = argv[p.ind];
	if (!strcmp(cmd, "export") && o->format < 0) {
		fprintf(stderr, "dtracer export: --format perfetto|otlp is "
			"required\n");
		return usage(cmd, stderr);	/* 2 */
	}
	if (!strcmp(cmd, "view") && (!o->out || !strcmp(o->out, "-"))) {
		fprintf(stderr, "dtracer view: -o PAGE.html is required\n");
		return usage(cmd, stderr);	/* 2 */
	}
	return 0;
}

/* Read the model; NULL after saying why (nothing traced included). */
static struct dt_rq_model *load(const struct show *o)
{
	struct dt_rq_model *m;
	GError *error = NULL;

	if (dt_rq_read(o->dir, &m, &error)) {
		dt_error_print("dtracer", error);
		return NULL;
	}
	if (!m->dtracer_events || !m->n_requests) {
		fprintf(stderr, "dtracer: %s: %s (%llu events read): record "
			"with `dtracer record` on each host (it loads dtracer's "
			"LTTng probes) and flag the client thread with `echo "
			"TID > /sys/distributed-tracer/add_pid`\n", o->dir,
			m->dtracer_events ? "no traced request (no dtracer_flag "
			"event)" : "no dtracer event in the trace",
			(unsigned long long)m->events);
		dt_rq_model_free(m);
		return NULL;
	}
	if (!m->sync_report && m->n_hosts > 1)
		fprintf(stderr, "dtracer: note: %s has no sync.txt: the hosts' "
			"clocks may not be aligned (give `dtracer merge`'s "
			"output)\n", o->dir);
	return m;
}

/*
 * Write through a temporary file renamed over OUT at the end, so that a
 * failed run leaves no half-written OUT (and an existing one untouched).
 */
static int write_out(const struct show *o, const struct dt_rq_model *m)
{
	char *tmp = NULL;
	GError *error = NULL;
	FILE *f = stdout;
	int fd, r;

	if (o->out && strcmp(o->out, "-")) {
		if (asprintf(&tmp, "%s.partial-XXXXXX", o->out) < 0)
			return -1;
		fd = mkstemp(tmp);
		if (fd < 0 || !(f = fdopen(fd, "w"))) {
			fprintf(stderr, "dtracer: %s: %s\n", o->out,
				strerror(errno));
			if (fd >= 0)
				close(fd), unlink(tmp);
			free(tmp);
			return -1;
		}
	}
	if (o->format >= 0)
		r = dt_export(m, o->format, o->request, f, &error);
	else
		r = dt_view_write(m, o->title ? o->title : o->dir, f, &error);
	if (!r && fflush(f))
		r = -1;
	if (tmp && fclose(f) && !r)
		r = -1;
	if (r && !error)
		dt_error_errno(&error, errno, "writing");
	else if (!r && tmp && rename(tmp, o->out)) {
		dt_error_errno(&error, errno, "renaming %s", tmp);
		r = -1;
	}
	if (error)
		g_prefix_error(&error, "%s: ", o->out ? o->out : "stdout");
	dt_error_print("dtracer", error);
	if (tmp && r)
		unlink(tmp);
	free(tmp);
	return r;
}

static int show(int argc, char **argv, const char *cmd)
{
	struct show o = { 0 };
	struct dt_rq_model *m;
	int r = parse(&o, cmd, argc, argv);

	if (r)
		return r == 1 ? 0 : 2;	/* --help, usage error */
	m = load(&o);
	if (!m)
		return 1;
	if (!strcmp(cmd, "requests")) {
		r = o.tree >= 0 ? dt_rq_print_tree(m, o.tree, stdout) :
		    dt_rq_print_table(m, (int64_t)o.slower, stdout);
		if (r && o.tree >= m->n_requests)
			fprintf(stderr, "dtracer requests: no request %d (%d "
				"request%s: 0 to %d)\n", o.tree, m->n_requests,
				m->n_requests == 1 ? "" : "s",
				m->n_requests - 1);
		else if (r)
			fprintf(stderr, "dtracer requests: %s\n",
				strerror(errno));
	} else {
		if (o.request >= m->n_requests) {
			fprintf(stderr, "dtracer export: no request %d (%d "
				"request%s: 0 to %d)\n", o.request,
				m->n_requests, m->n_requests == 1 ? "" : "s",
				m->n_requests - 1);
			r = -1;
		} else {
			r = write_out(&o, m);
		}
		if (!r && o.out && strcmp(o.out, "-"))
			fprintf(stderr, "dtracer: wrote %s (%d request%s, %d "
				"span%s)\n", o.out,
				o.request >= 0 ? 1 : m->n_requests,
				o.request >= 0 || m->n_requests == 1 ? "" : "s",
				o.request >= 0 ?
				m->requests[o.request].n_spans : m->n_spans,
				(o.request >= 0 ?
				 m->requests[o.request].n_spans : m->n_spans) == 1 ?
				"" : "s");
	}
	dt_rq_model_free(m);
	return r ? 1 : 0;
}

int dt_cmd_requests(int argc, char **argv)
{
	return show(argc, argv, "requests");
}

int dt_cmd_view(int argc, char **argv)
{
	return show(argc, argv, "view");
}

int dt_cmd_export(int argc, char **argv)
{
	return show(argc, argv, "export");
}
