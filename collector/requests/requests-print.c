/*
 * `dtracer requests`: the requests table and one request's tree, on a
 * terminal. Durations in adaptive units, offsets from the request start.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "requests.h"

/* "812 ns", "3.25 us", "12.3 ms", "1.204 s": buf of 32. */
static const char *dur(int64_t ns, char *buf)
{
	double v = (double)ns;

	if (ns < 0)
		snprintf(buf, 32, "-");
	else if (ns < 1000)
		snprintf(buf, 32, "%" PRId64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, 32, "%.2f us", v / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, 32, "%.2f ms", v / 1e6);
	else
		snprintf(buf, 32, "%.3f s", v / 1e9);
	return buf;
}

/* "1795344182.382848575": buf of 32. */
static const char *stamp(int64_t ns, char *buf)
{
	snprintf(buf, 32, "%" PRId64 ".%09" PRId64, ns / 1000000000,
		 ns % 1000000000);
	return buf;
}

/* "dt-b socat[214]": buf of 128. */
static const char *who(const struct dt_rq_model *m, int span, char *buf)
{
	const struct dt_rq_span *s = &m->spans[span];

	snprintf(buf, 128, "%s %s[%d]", m->hosts[s->host], s->procname,
		 s->tid);
	return buf;
}

static const char *hop(const struct dt_rq_model *m,
		       const struct dt_rq_request *r, char *buf)
{
	char w[128], d[32];

	if (r->critical_span >= 0 && r->critical_wait) {
		snprintf(buf, 200, "%s %s (queued before %s[%d] read it)",
			 m->hosts[m->spans[r->critical_span].host],
			 dur(r->critical_ns, d),
			 m->spans[r->critical_span].procname,
			 m->spans[r->critical_span].tid);
	} else if (r->critical_span >= 0) {
		snprintf(buf, 200, "%s %s", who(m, r->critical_span, w),
			 dur(r->critical_ns, d));
	} else if (r->critical_message >= 0) {
		const struct dt_rq_message *g =
			&m->messages[r->critical_message];

		snprintf(buf, 200, "%s -> %s %s (network)",
			 m->hosts[m->spans[g->from_span].host],
			 g->to_span >= 0 ?
			 m->hosts[m->spans[g->to_span].host] : "?",
			 dur(r->critical_ns, d));
	} else {
		snprintf(buf, 200, "-");
	}
	return buf;
}

void dt_rq_print_head(FILE *f)
{
	fprintf(f, "%4s  %-20s  %10s  %5s  %5s  %-24s  %s\n", "ID",
		"START", "DURATION", "HOSTS", "SPANS", "ROOT", "CRITICAL HOP");
}

void dt_rq_print_row(const struct dt_rq_model *m, int request, int id,
		     FILE *f)
{
	const struct dt_rq_request *r = &m->requests[request];
	char a[32], b[32], w[128], h[200];

	fprintf(f, "%4d  %-20s  %10s  %5d  %5d  %-24s  %s\n", id,
		stamp(r->start_ns, a), dur(r->end_ns - r->start_ns, b),
		r->n_hosts, r->n_spans, who(m, r->root, w), hop(m, r, h));
}

int dt_rq_print_table(const struct dt_rq_model *m, int64_t min_ns, FILE *f)
{
	char a[32];
	int i, shown = 0;

	for (i = 0; i < m->n_requests; i++)
		shown += m->requests[i].end_ns - m->requests[i].start_ns >= min_ns;
	fprintf(f, "# %d request%s, %d span%s, %d message%s on %d host%s:",
		m->n_requests, m->n_requests == 1 ? "" : "s",
		m->n_spans, m->n_spans == 1 ? "" : "s",
		m->n_messages, m->n_messages == 1 ? "" : "s",
		m->n_hosts, m->n_hosts == 1 ? "" : "s");
	for (i = 0; i < m->n_hosts; i++)
		fprintf(f, " %s", m->hosts[i]);
	if (min_ns > 0)
		fprintf(f, "\n# %d of them took %s or more", shown,
			dur(min_ns, a));
	fputc('\n', f);
	dt_rq_print_head(f);
	for (i = 0; i < m->n_requests; i++)
		if (m->requests[i].end_ns - m->requests[i].start_ns >= min_ns)
			dt_rq_print_row(m, i, m->requests[i].id, f);
	fflush(f);
	return ferror(f) ? -1 : 0;
}

static void print_summary(const struct dt_rq_summary *s, const char *ind,
			  FILE *f)
{
	char a[32], b[32], c[32], d[32];
	size_t i;
	int k;

	fprintf(f, "%s  running %s, waiting for CPU %s, blocked %s",
		ind, dur(s->running_ns, a), dur(s->runnable_ns, b),
		dur(s->blocked_ns, c));
	for (k = 0, i = 0; k < DT_RQ_BLOCK_N; k++)
		if (s->blocked_on[k])
			fprintf(f, "%s%s %s", i++ ? ", " : " (",
				dt_rq_block_name(k), dur(s->blocked_on[k], a));
	fprintf(f, "%s, unknown %s\n", i ? ")" : "", dur(s->unknown_ns, d));
	fprintf(f, "%s  %" PRIu64 " syscall%s (%s)", ind, s->syscall_count,
		s->syscall_count == 1 ? "" : "s", dur(s->syscall_ns, a));
	for (i = 0; i < s->n_syscalls && i < 5; i++)
		fprintf(f, "%s%s %" PRIu64 " (%s)", i ? ", " : ": ",
			s->syscalls[i].name, s->syscalls[i].count,
			dur(s->syscalls[i].time_ns, a));
	if (s->n_syscalls > 5)
		fprintf(f, ", ...");
	fprintf(f, "; sent %" PRIu64 " B, received %" PRIu64 " B; %" PRIu64
		" event%s\n", s->bytes_sent, s->bytes_received, s->events,
		s->events == 1 ? "" : "s");
}

static void print_span(const struct dt_rq_model *m,
		       const struct dt_rq_request *r, int id, FILE *f)
{
	const struct dt_rq_span *s = &m->spans[id];
	char ind[64], a[32], b[32], w[128], src[DT_RQ_ADDR_LEN];
	int i, n = s->depth * 2 < 60 ? s->depth * 2 : 60;

	memset(ind, ' ', n);
	ind[n] = 0;
	fprintf(f, "%s%s  +%s  %s  %s", ind, who(m, id, w),
		dur(s->start_ns - r->start_ns, a),
		dur(s->end_ns - s->start_ns, b),
		dt_rq_flag_reason_name(s->flag_reason));
	if (dt_rq_flag_read(s->flag_reason))
		fprintf(f, " from %s", dt_rq_flow_src(&s->flow, src));
	if (s->guess)
		fprintf(f, " (a guess)");
	fprintf(f, " .. %s\n", dt_rq_end_reason_name(s->end_reason));
	print_summary(&s->sum, ind, f);
	for (i = 0; i < r->n_messages; i++) {
		const struct dt_rq_message *g = &m->messages[r->messages[i]];

		if (g->from_span != id)
			continue;
		fprintf(f, "%s  -> %s  +%s  %" PRIu64 " B in %u segment%s",
			ind, g->to_span >= 0 ? who(m, g->to_span, w) :
			"(not received by a traced thread)",
			dur(g->send_ns - r->start_ns, a), g->bytes,
			g->segments, g->segments == 1 ? "" : "s");
		if (g->to_span >= 0)
			fprintf(f, ", transit %s%s",
				dur(g->recv_ns - g->send_ns, b),
				g->response ? " (response)" : "");
		fputc('\n', f);
	}
}

int dt_rq_print_tree(const struct dt_rq_model *m, int request, FILE *f)
{
	if (request < 0 || request >= m->n_requests) {
		errno = ERANGE;
		return -1;
	}
	return dt_rq_print_tree_as(m, request, m->requests[request].id, f);
}

int dt_rq_print_tree_as(const struct dt_rq_model *m, int request, int id,
			FILE *f)
{
	const struct dt_rq_request *r;
	char a[32], b[32], w[128], h[200];
	int i;

	if (request < 0 || request >= m->n_requests) {
		errno = ERANGE;
		return -1;
	}
	r = &m->requests[request];
	fprintf(f, "request %d: %s, start %s, duration %s, %d host%s, "
		"%d span%s, %d message%s\ncritical hop: %s\n", id,
		who(m, r->root, w), stamp(r->start_ns, a),
		dur(r->end_ns - r->start_ns, b), r->n_hosts,
		r->n_hosts == 1 ? "" : "s", r->n_spans,
		r->n_spans == 1 ? "" : "s", r->n_messages,
		r->n_messages == 1 ? "" : "s", hop(m, r, h));
	for (i = 0; i < r->n_spans; i++)
		print_span(m, r, r->spans[i], f);
	fflush(f);
	return ferror(f) ? -1 : 0;
}
