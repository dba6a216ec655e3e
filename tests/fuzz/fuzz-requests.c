/*
 * The requests model (collector/requests/requests.c) and everything
 * written from it (requests-print.c, view.c, export.c), fed with the events
 * requests-read.c hands over from a merged trace: flags, unflags, marked
 * sends and receives on a few TCP flows between three hosts, scheduler
 * switches and wakeups, system calls, others; in time order, as
 * babeltrace2's muxer delivers them. Then the table, every request's
 * tree, the HTML page, Perfetto and OTLP exports (to /dev/null).
 * Checked: the model's indexes point where they should.
 */
#include "export.h"
#include "requests.h"
#include "view.h"

#include "fuzz.h"

#define HOSTS 3

/* Flows between the hosts: 0 -> 1, 1 -> 2, and their answers. */
static const struct {
	int from, to;
	uint16_t sport, dport;
} flows[4] = {
	{ 0, 1, 40000, 80 }, { 1, 2, 40001, 8000 },
	{ 1, 0, 80, 40000 }, { 2, 1, 8000, 40001 },
};

static const char *const sysnames[] = {
	"recvfrom", "sendto", "read", "write", "futex", "epoll_wait",
	"nanosleep", "connect",
};

static const char *const procnames[] = { NULL, "curl", "nginx", "" };

static void flow(struct dt_flow *f, unsigned k, int family6)
{
	memset(f, 0, sizeof(*f));
	f->family = family6 ? 10 : 2;
	f->saddr[0] = f->daddr[0] = 192;
	f->saddr[3] = (uint8_t)(flows[k].from + 1);
	f->daddr[3] = (uint8_t)(flows[k].to + 1);
	f->sport = flows[k].sport;
	f->dport = flows[k].dport;
}

static void check_model(const struct dt_rq_model *m)
{
	FUZZ_CHECK(m->n_hosts >= 0 && m->n_hosts <= HOSTS);
	for (int i = 0; i < m->n_spans; i++) {
		const struct dt_rq_span *s = &m->spans[i];

		FUZZ_CHECK(s->id == i);
		FUZZ_CHECK(s->request >= 0 && s->request < m->n_requests);
		FUZZ_CHECK(s->parent >= -1 && s->parent < m->n_spans);
		FUZZ_CHECK(s->host >= 0 && s->host < m->n_hosts);
		FUZZ_CHECK(s->start_ns <= s->end_ns);
	}
	for (int i = 0; i < m->n_messages; i++) {
		const struct dt_rq_message *g = &m->messages[i];

		FUZZ_CHECK(g->id == i);
		FUZZ_CHECK(g->from_span >= 0 && g->from_span < m->n_spans);
		FUZZ_CHECK(g->to_span >= -1 && g->to_span < m->n_spans);
	}
	for (int i = 0; i < m->n_requests; i++) {
		const struct dt_rq_request *q = &m->requests[i];

		FUZZ_CHECK(q->id == i);
		FUZZ_CHECK(q->root >= 0 && q->root < m->n_spans);
		FUZZ_CHECK(q->n_spans >= 1);
		for (int k = 0; k < q->n_spans; k++)
			FUZZ_CHECK(q->spans[k] >= 0 &&
				   q->spans[k] < m->n_spans &&
				   m->spans[q->spans[k]].request == i);
		for (int k = 0; k < q->n_messages; k++)
			FUZZ_CHECK(q->messages[k] >= 0 &&
				   q->messages[k] < m->n_messages);
	}
}

static void outputs(const struct dt_rq_model *m)
{
	FILE *f = fuzz_null();
	GError *err = NULL;

	FUZZ_CHECK(dt_rq_print_table(m, 0, f) == 0);
	FUZZ_CHECK(dt_rq_print_table(m, 1000, f) == 0);
	for (int i = 0; i < m->n_requests && i < 8; i++)
		FUZZ_CHECK(dt_rq_print_tree(m, i, f) == 0);
	FUZZ_CHECK(dt_rq_print_tree(m, m->n_requests, f) == -1);
	if (dt_view_write(m, "fuzz <&\"'>", f, &err))
		FUZZ_CHECK(err && err->domain == DT_ERROR);
	g_clear_error(&err);
	if (dt_export(m, DT_EXPORT_PERFETTO, -1, f, &err))
		FUZZ_CHECK(err && err->domain == DT_ERROR);
	g_clear_error(&err);
	if (m->n_requests &&
	    dt_export(m, DT_EXPORT_OTLP, m->n_requests - 1, f, &err))
		FUZZ_CHECK(err && err->domain == DT_ERROR);
	g_clear_error(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct dt_rq_builder *b = dt_rq_builder_new();
	struct dt_rq_model *m;
	int64_t ts = 1700000000000000000LL;
	int host[HOSTS];

	FUZZ_CHECK(b);
	for (int i = 0; i < HOSTS; i++) {
		char name[8];

		snprintf(name, sizeof(name), "h%d", i);
		FUZZ_CHECK((host[i] = dt_rq_host(b, name)) == i);
	}
	while (in.n) {
		unsigned op = (unsigned)fuzz_take(&in, 1);
		unsigned a = (unsigned)fuzz_take(&in, 1);
		struct dt_rq_event ev = { 0 };
		unsigned k = (a >> 4) & 3;

		ev.kind = (enum dt_rq_event_kind)(op % (DT_RQ_EV_OTHER + 1));
		ts += (int64_t)fuzz_take(&in, 2) * 1000;
		ev.ts = ts;
		ev.tid = ev.ctx_tid = 100 + (int32_t)(a & 7);
		ev.pid = 100 + (int32_t)(a & 3);
		ev.procname = procnames[(op >> 4) & 3];
		ev.parent = -1;
		ev.fd = -1;
		switch (ev.kind) {
		case DT_RQ_EV_FLAG:
			ev.host = (op >> 6) % HOSTS;
			ev.reason = (a >> 3) % 4;	/* 3: unknown */
			if (ev.reason == DT_RQ_FLAG_INHERITED)
				ev.parent = 100 + (int32_t)(k * 2);
			if (ev.reason == DT_RQ_FLAG_PROPAGATED)
				flow(&ev.flow, k, a >> 7);
			break;
		case DT_RQ_EV_UNFLAG:
			ev.host = (op >> 6) % HOSTS;
			ev.reason = (a >> 3) % 7;
			ev.duration_ns = fuzz_take(&in, 4);
			break;
		case DT_RQ_EV_MARK_SEND:
		case DT_RQ_EV_MARK_RECV:
			flow(&ev.flow, k, a >> 7);
			ev.host = ev.kind == DT_RQ_EV_MARK_SEND ?
				  flows[k].from : flows[k].to;
			ev.seq = (uint32_t)fuzz_take(&in, 2) << 4;
			ev.end_seq = ev.seq + (uint32_t)fuzz_take(&in, 1);
			break;
		case DT_RQ_EV_SCHED_SWITCH:
			ev.host = (op >> 6) % HOSTS;
			ev.next_tid = 100 + (int32_t)((a >> 3) & 7);
			ev.prev_state = (op >> 4) & 3;
			break;
		case DT_RQ_EV_SYSCALL_ENTRY:
		case DT_RQ_EV_SYSCALL_EXIT:
			ev.host = (op >> 6) % HOSTS;
			ev.name = sysnames[(a >> 3) & 7];
			ev.fd = (int64_t)(a >> 6) - 1;
			ev.ret = (int64_t)(int8_t)fuzz_take(&in, 1);
			break;
		default:
			ev.host = (op >> 6) % HOSTS;
			break;
		}
		FUZZ_CHECK(dt_rq_add(b, &ev) == 0);
	}
	m = dt_rq_finish(b);
	FUZZ_CHECK(m);
	check_model(m);
	outputs(m);
	dt_rq_model_free(m);
	return 0;
}
