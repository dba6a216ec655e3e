/*
 * Requests rebuilt from hand-made event streams
 * (collector/requests/requests.c): two hosts, a chain of three,
 * concurrent requests, requests whose answer crossed no marked segment,
 * one client thread's successive requests, keep-alive, retransmissions,
 * inheritance, an event loop and its worker (request contexts: switched,
 * resumed, the last write), a pool, an event loop's deferred call (a
 * guess, said in the tree), open spans, orphans, and the per-span
 * kernel summary. Times in ns.
 */
#define _POSIX_C_SOURCE 200809L	/* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "requests.h"
#include "tap.h"

static struct dt_rq_builder *b;
static int host[4];

static struct dt_flow flow(int from, int to, int sport, int dport)
{
	struct dt_flow f;

	memset(&f, 0, sizeof(f));
	f.family = 2;
	f.saddr[0] = 10, f.saddr[3] = (uint8_t)(1 + from);
	f.daddr[0] = 10, f.daddr[3] = (uint8_t)(1 + to);
	f.sport = (uint16_t)sport;
	f.dport = (uint16_t)dport;
	return f;
}

static struct dt_flow rev(struct dt_flow f)
{
	return flow(f.daddr[3] - 1, f.saddr[3] - 1, f.dport, f.sport);
}

static void add(struct dt_rq_event ev)
{
	if (dt_rq_add(b, &ev))
		ok(0, "dt_rq_add accepts the event");
}

static void flag(int h, int64_t ts, int tid, int reason, struct dt_flow f,
		 int ctx)
{
	add((struct dt_rq_event){ .kind = DT_RQ_EV_FLAG, .host = host[h],
				  .ts = ts, .tid = tid, .pid = tid,
				  .ctx_tid = ctx, .procname = "proc",
				  .reason = reason, .flow = f, .parent = -1 });
}

static void inherit(int h, int64_t ts, int tid, int parent)
{
	add((struct dt_rq_event){ .kind = DT_RQ_EV_FLAG, .host = host[h],
				  .ts = ts, .tid = tid, .pid = tid,
				  .ctx_tid = parent, .reason = 2,
				  .parent = parent });
}

static void unflag(int h, int64_t ts, int tid, int reason)
{
	add((struct dt_rq_event){ .kind = DT_RQ_EV_UNFLAG, .host = host[h],
				  .ts = ts, .tid = tid, .pid = tid,
				  .ctx_tid = tid, .reason = reason,
				  .duration_ns = 1 });
}

static void send(int h, int64_t ts, int tid, struct dt_flow f,
		 uint32_t seq, uint32_t len)
{
	add((struct dt_rq_event){ .kind = DT_RQ_EV_MARK_SEND,
				  .host = host[h], .ts = ts, .tid = tid,
				  .pid = tid, .ctx_tid = tid, .flow = f,
				  .seq = seq, .end_seq = seq + len });
}

static void recv(int h, int64_t ts, struct dt_flow f, uint32_t seq,
		 uint32_t len)
{
	add((struct dt_rq_event){ .kind = DT_RQ_EV_MARK_RECV,
				  .host = host[h], .ts = ts, .tid = -1,
				  .ctx_tid = -1, .flow = f, .seq = seq,
				  .end_seq = seq + len });
}

static void sys(int h, int64_t ts, int tid, const char *name, int entry,
		int64_t fd_or_ret)
{
	add((struct dt_rq_event){ .kind = entry ? DT_RQ_EV_SYSCALL_ENTRY :
						  DT_RQ_EV_SYSCALL_EXIT,
				  .host = host[h], .ts = ts, .tid = tid,
				  .pid = tid, .ctx_tid = tid, .name = name,
				  .fd = entry ? fd_or_ret : -1,
				  .ret = entry ? 0 : fd_or_ret });
}

static void sw(int h, int64_t ts, int prev, int64_t state, int next)
{
	add((struct dt_rq_event){ .kind = DT_RQ_EV_SCHED_SWITCH,
				  .host = host[h], .ts = ts, .tid = prev,
				  .pid = prev, .ctx_tid = prev,
				  .next_tid = next, .prev_state = state });
}

static void wake(int h, int64_t ts, int tid)
{
	add((struct dt_rq_event){ .kind = DT_RQ_EV_SCHED_WAKEUP,
				  .host = host[h], .ts = ts, .tid = tid,
				  .ctx_tid = 0 });
}

static void other(int h, int64_t ts, int tid)
{
	add((struct dt_rq_event){ .kind = DT_RQ_EV_OTHER, .host = host[h],
				  .ts = ts, .tid = tid, .pid = tid,
				  .ctx_tid = tid });
}

static void begin(int hosts)
{
	static const char *const names[] = { "a", "b", "c", "d" };
	int i;

	b = dt_rq_builder_new();
	for (i = 0; i < hosts; i++)
		host[i] = dt_rq_host(b, names[i]);
}

static struct dt_rq_model *end(void)
{
	struct dt_rq_model *m = dt_rq_finish(b);

	b = NULL;
	ok(m != NULL, "the model is built");
	return m;
}

/* The span of (host, tid) in request r, or -1. */
static int span_of(const struct dt_rq_model *m, int r, int h, int tid)
{
	int i;

	for (i = 0; i < m->n_spans; i++)
		if (m->spans[i].request == r && m->spans[i].host == h &&
		    m->spans[i].tid == tid)
			return i;
	return -1;
}

/* a client 100 -> b server 200, answer back: one request. */
static void two_hosts(void)
{
	struct dt_flow f = flow(0, 1, 40000, 80);
	struct dt_rq_model *m;
	int root, srv;

	begin(2);
	flag(0, 1000, 100, 0, (struct dt_flow){ 0 }, 100);
	sys(0, 1100, 100, "write", 1, 3);
	send(0, 1200, 100, f, 1, 50);
	sys(0, 1300, 100, "write", 0, 50);
	recv(1, 1500, f, 1, 50);
	flag(1, 1700, 200, 1, f, 200);
	send(1, 2500, 200, rev(f), 9000, 300);
	unflag(1, 2600, 200, 2);
	recv(0, 2900, rev(f), 9000, 300);
	other(0, 3000, 100);
	unflag(0, 5000, 100, 0);
	m = end();
	ok(m->n_requests == 1 && m->n_spans == 2 && m->n_messages == 2,
	   "two hosts: 1 request, 2 spans, 2 messages (%d %d %d)",
	   m->n_requests, m->n_spans, m->n_messages);
	root = m->requests[0].root;
	srv = span_of(m, 0, host[1], 200);
	ok(root == 0 && m->spans[root].host == host[0] &&
	   m->spans[root].tid == 100 && m->spans[root].parent == -1,
	   "the root is the client thread");
	ok(srv == 1 && m->spans[srv].parent == root &&
	   m->spans[srv].depth == 1, "the server span is its child");
	ok(m->spans[srv].start_ns == 1700 && m->spans[srv].end_ns == 2600 &&
	   m->spans[srv].end_reason == DT_RQ_END_RESPONSE &&
	   m->spans[srv].flag_reason == DT_RQ_FLAG_PROPAGATED,
	   "the server span: flag to unflag, propagated .. response");
	ok(m->requests[0].start_ns == 1100,
	   "the request starts at the syscall that sent it (%lld)",
	   (long long)m->requests[0].start_ns);
	ok(m->requests[0].end_ns == 2900 && m->spans[root].end_ns == 2900 &&
	   m->spans[root].end_reason == DT_RQ_END_REQUEST,
	   "it ends when the answer arrived, the flag goes on (%lld)",
	   (long long)m->requests[0].end_ns);
	ok(m->messages[0].from_span == root && m->messages[0].to_span == srv &&
	   !m->messages[0].response && m->messages[0].send_ns == 1200 &&
	   m->messages[0].recv_ns == 1500 && m->messages[0].bytes == 50,
	   "message 0: the request, a to b, 50 bytes");
	ok(m->messages[1].from_span == srv && m->messages[1].to_span == root &&
	   m->messages[1].response && m->messages[1].bytes == 300,
	   "message 1: the response, b to a, 300 bytes");
	ok(m->spans[root].sum.bytes_sent == 50 &&
	   m->spans[root].sum.bytes_received == 300 &&
	   m->spans[srv].sum.bytes_sent == 300 &&
	   m->spans[srv].sum.bytes_received == 50, "bytes each way");
	ok(m->requests[0].n_hosts == 2 && m->requests[0].depth == 2,
	   "2 hosts, depth 2");
	ok(m->unmatched_sends == 0 && m->unmatched_recvs == 0 &&
	   m->orphan_spans == 0, "nothing unmatched");
	/* root 1800 - branch 1700 = 100; to b 300; wait 200; b 900; back
	 * 400 */
	ok(m->requests[0].critical_span == srv &&
	   !m->requests[0].critical_wait && m->requests[0].critical_ns == 900,
	   "critical hop: b's own 900 ns (%d %d %lld)",
	   m->requests[0].critical_span,
	   m->requests[0].critical_message,
	   (long long)m->requests[0].critical_ns);
	dt_rq_model_free(m);
}

/* a 100 -> b 200 -> c 300 and back, with scheduling and syscalls. */
static void chain(void)
{
	struct dt_flow ab = flow(0, 1, 40000, 80), bc = flow(1, 2, 41000, 81);
	struct dt_rq_model *m;
	const struct dt_rq_summary *sb, *sc;
	int root, sb_id, sc_id;

	begin(3);
	flag(0, 1000, 100, 0, (struct dt_flow){ 0 }, 100);
	sys(0, 1100, 100, "write", 1, 3);
	send(0, 1200, 100, ab, 1, 10);
	recv(1, 1500, ab, 1, 10);
	flag(1, 2000, 200, 1, ab, 200);
	sys(1, 2100, 200, "sendto", 1, 5);
	send(1, 2150, 200, bc, 7, 10);
	sys(1, 2200, 200, "sendto", 0, 10);
	sys(1, 2300, 200, "recvfrom", 1, 5);
	sw(1, 2400, 200, 1, 0);
	recv(2, 2500, bc, 7, 10);
	flag(2, 2600, 300, 1, bc, 300);
	sys(2, 2700, 300, "futex", 1, -1);
	sw(2, 2800, 300, 1, 0);
	wake(2, 3000, 300);
	sw(2, 3200, 0, 0, 300);
	sys(2, 3300, 300, "futex", 0, 0);
	send(2, 3400, 300, rev(bc), 70, 20);
	unflag(2, 3500, 300, 2);
	recv(1, 3600, rev(bc), 70, 20);
	wake(1, 3700, 200);
	sw(1, 3900, 0, 0, 200);
	sys(1, 4000, 200, "recvfrom", 0, 20);
	send(1, 4100, 200, rev(ab), 90, 20);
	unflag(1, 4200, 200, 2);
	recv(0, 4500, rev(ab), 90, 20);
	unflag(0, 6000, 100, 0);
	m = end();
	ok(m->n_requests == 1 && m->n_spans == 3 && m->n_messages == 4,
	   "chain: 1 request, 3 spans, 4 messages");
	root = m->requests[0].root;
	sb_id = span_of(m, 0, host[1], 200);
	sc_id = span_of(m, 0, host[2], 300);
	ok(sb_id >= 0 && sc_id >= 0 && m->spans[sb_id].parent == root &&
	   m->spans[sc_id].parent == sb_id, "a -> b -> c");
	ok(m->spans[root].depth == 0 && m->spans[sb_id].depth == 1 &&
	   m->spans[sc_id].depth == 2 && m->requests[0].depth == 3 &&
	   m->requests[0].n_hosts == 3, "depths 0, 1, 2; 3 hosts");
	ok(m->requests[0].spans[0] == root && m->requests[0].spans[1] == sb_id &&
	   m->requests[0].spans[2] == sc_id, "spans depth-first");
	sc = &m->spans[sc_id].sum;
	ok(sc->running_ns == 500 && sc->blocked_ns == 200 &&
	   sc->blocked_on[DT_RQ_BLOCK_LOCK] == 200 && sc->runnable_ns == 200 &&
	   sc->unknown_ns == 0, "c: running 500, blocked on a lock 200, "
	   "waiting for CPU 200 (%lld %lld %lld %lld)",
	   (long long)sc->running_ns, (long long)sc->blocked_ns,
	   (long long)sc->runnable_ns, (long long)sc->unknown_ns);
	ok(sc->n_syscalls == 1 && !strcmp(sc->syscalls[0].name, "futex") &&
	   sc->syscalls[0].count == 1 && sc->syscalls[0].time_ns == 600,
	   "c: one futex of 600 ns");
	sb = &m->spans[sb_id].sum;
	ok(sb->running_ns == 700 && sb->blocked_on[DT_RQ_BLOCK_NETWORK] == 1300 &&
	   sb->blocked_ns == 1300 && sb->runnable_ns == 200 &&
	   sb->unknown_ns == 0, "b: running 700, blocked on the network "
	   "1300, waiting for CPU 200 (%lld %lld %lld)",
	   (long long)sb->running_ns, (long long)sb->blocked_ns,
	   (long long)sb->runnable_ns);
	ok(sb->n_syscalls == 2 && !strcmp(sb->syscalls[0].name, "recvfrom") &&
	   sb->syscalls[0].time_ns == 1700 && sb->syscalls[1].time_ns == 100 &&
	   sb->syscall_count == 2 && sb->syscall_ns == 1800,
	   "b: recvfrom 1700 then sendto 100, longest first");
	ok(m->requests[0].critical_span == sc_id &&
	   !m->requests[0].critical_wait && m->requests[0].critical_ns == 900,
	   "critical hop: c's own 900 ns (%d %d %lld)",
	   m->requests[0].critical_span, m->requests[0].critical_message,
	   (long long)m->requests[0].critical_ns);
	dt_rq_model_free(m);
}

/* Two clients at once to one server host: the flows keep them apart. */
static void concurrent(void)
{
	struct dt_flow f1 = flow(0, 1, 40001, 80), f2 = flow(0, 1, 40002, 80);
	struct dt_rq_model *m;
	int s0, s1;

	begin(2);
	flag(0, 500, 100, 0, (struct dt_flow){ 0 }, 100);
	flag(0, 600, 101, 0, (struct dt_flow){ 0 }, 101);
	send(0, 1000, 100, f1, 1, 10);
	send(0, 1100, 101, f2, 1, 10);
	recv(1, 1200, f1, 1, 10);
	recv(1, 1250, f2, 1, 10);
	flag(1, 1300, 201, 1, f2, 201);
	flag(1, 1400, 200, 1, f1, 200);
	send(1, 2000, 200, rev(f1), 5, 10);
	unflag(1, 2010, 200, 2);
	send(1, 2100, 201, rev(f2), 5, 10);
	unflag(1, 2110, 201, 2);
	recv(0, 2200, rev(f1), 5, 10);
	recv(0, 2300, rev(f2), 5, 10);
	m = end();
	ok(m->n_requests == 2 && m->n_spans == 4,
	   "concurrent: 2 requests, 4 spans");
	ok(m->spans[m->requests[0].root].tid == 100 &&
	   m->spans[m->requests[1].root].tid == 101,
	   "numbered by start: 100's first");
	s0 = span_of(m, 0, host[1], 200);
	s1 = span_of(m, 1, host[1], 201);
	ok(s0 >= 0 && s1 >= 0 && m->spans[s0].parent == m->requests[0].root &&
	   m->spans[s1].parent == m->requests[1].root,
	   "b's 200 serves 100, b's 201 serves 101 (by flow, not by time)");
	ok(m->requests[0].end_ns == 2200 && m->requests[1].end_ns == 2300,
	   "each ends with its own answer");
	ok(m->requests[0].n_messages == 2 && m->requests[1].n_messages == 2,
	   "two messages each");
	dt_rq_model_free(m);
}

/*
 * The server closes without a marked answer; later the client sends to
 * a host that does not run dtracer (no receive at all).
 */
static void no_answer(void)
{
	struct dt_flow f = flow(0, 1, 40000, 80), g = flow(0, 2, 40001, 80);
	struct dt_rq_model *m;
	int srv;

	begin(2);
	flag(0, 500, 100, 0, (struct dt_flow){ 0 }, 100);
	send(0, 1000, 100, f, 1, 10);
	recv(1, 1200, f, 1, 10);
	flag(1, 1300, 200, 1, f, 200);
	unflag(1, 3000, 200, 3);
	send(0, 5000, 100, g, 1, 10);
	unflag(0, 9000, 100, 0);
	m = end();
	ok(m->n_requests == 2, "no answer: 2 requests (%d)", m->n_requests);
	srv = span_of(m, 0, host[1], 200);
	ok(srv >= 0 && m->spans[srv].end_reason == DT_RQ_END_CLOSED &&
	   m->requests[0].end_ns == 3000 && m->requests[0].n_messages == 1,
	   "the first ends when the server span closed, one message");
	ok(m->requests[1].n_spans == 1 && m->requests[1].n_messages == 1 &&
	   m->messages[m->requests[1].messages[0]].to_span == -1 &&
	   m->requests[1].start_ns == 5000 && m->requests[1].end_ns == 5000,
	   "the second: the client alone, its message received by no one");
	ok(m->unmatched_sends == 1, "one send unmatched (%llu)",
	   (unsigned long long)m->unmatched_sends);
	dt_rq_model_free(m);
}

/* One client thread, three requests one after the other. */
static void successive(void)
{
	struct dt_rq_model *m;
	int k, ok_all = 1;

	begin(2);
	flag(0, 100, 100, 0, (struct dt_flow){ 0 }, 100);
	for (k = 0; k < 3; k++) {
		struct dt_flow f = flow(0, 1, 40000 + k, 80);
		int64_t t = 1000 + k * 10000;

		send(0, t, 100, f, 1, 10);
		recv(1, t + 100, f, 1, 10);
		flag(1, t + 200, 200 + k, 1, f, 200 + k);
		send(1, t + 300, 200 + k, rev(f), 1, 10);
		unflag(1, t + 400, 200 + k, 2);
		recv(0, t + 500, rev(f), 1, 10);
	}
	unflag(0, 50000, 100, 0);
	m = end();
	ok(m->n_requests == 3 && m->n_spans == 6,
	   "successive: 3 requests, 6 spans (%d %d)", m->n_requests,
	   m->n_spans);
	for (k = 0; k < m->n_requests; k++) {
		const struct dt_rq_request *r = &m->requests[k];
		int srv = span_of(m, k, host[1], 200 + k);

		ok_all &= r->n_spans == 2 && m->spans[r->root].tid == 100 &&
			  srv >= 0 && m->spans[srv].parent == r->root &&
			  r->start_ns == 1000 + k * 10000 &&
			  r->end_ns == 1500 + k * 10000;
	}
	ok(ok_all, "each: the client's part from its send to its answer, and "
	   "the server thread it flagged");
	ok(m->spans[m->requests[2].root].end_reason == DT_RQ_END_REQUEST,
	   "the client's flag outlives its requests");
	dt_rq_model_free(m);
}

/*
 * Keep-alive across clocks a little apart: the server's first span ends
 * (on its clock, after the sync) 50 ns after the client, which had its
 * answer, sent its next request on the same connection. Still two
 * requests: the client's own clock says the first was over.
 */
static void keepalive_skewed(void)
{
	struct dt_flow f = flow(0, 1, 40000, 80);
	struct dt_rq_model *m;

	begin(2);
	flag(0, 100, 100, 0, (struct dt_flow){ 0 }, 100);
	send(0, 1000, 100, f, 1, 50);
	recv(1, 1100, f, 1, 50);
	flag(1, 1300, 200, 1, f, 200);
	send(1, 1500, 200, rev(f), 1, 10);
	recv(0, 1700, rev(f), 1, 10);
	send(0, 3000, 100, f, 51, 50);
	unflag(1, 3050, 200, 2);
	recv(1, 3100, f, 51, 50);
	flag(1, 3300, 201, 1, f, 201);
	send(1, 3500, 201, rev(f), 11, 10);
	unflag(1, 3600, 201, 2);
	recv(0, 3700, rev(f), 11, 10);
	m = end();
	ok(m->n_requests == 2 && span_of(m, 0, host[1], 200) >= 0 &&
	   span_of(m, 1, host[1], 201) >= 0,
	   "keep-alive, the server's first span ending after the client's next send: still 2 requests (%d)",
	   m->n_requests);
	dt_rq_model_free(m);
}

/*
 * Keep-alive, the server's first span still open when the client enters
 * the system call of its next send (the mark comes later in that call):
 * the first request ends where that call began. Before, it ended at the
 * mark and the second began at the call: the two overlapped and were
 * one request (the demo's 5 of 6, now and then, in fresh clones' runs).
 */
static void keepalive_entry(void)
{
	struct dt_flow f = flow(0, 1, 40000, 80);
	struct dt_rq_model *m;

	begin(2);
	flag(0, 100, 100, 0, (struct dt_flow){ 0 }, 100);
	sys(0, 900, 100, "sendto", 1, 3);
	send(0, 1000, 100, f, 1, 50);
	sys(0, 1010, 100, "sendto", 0, 50);
	recv(1, 1100, f, 1, 50);
	flag(1, 1300, 200, 1, f, 200);
	send(1, 1500, 200, rev(f), 1, 10);
	recv(0, 1700, rev(f), 1, 10);
	sys(0, 2900, 100, "sendto", 1, 3);
	unflag(1, 2950, 200, 2);
	send(0, 3000, 100, f, 51, 50);
	sys(0, 3010, 100, "sendto", 0, 50);
	recv(1, 3100, f, 51, 50);
	flag(1, 3300, 201, 1, f, 201);
	send(1, 3500, 201, rev(f), 11, 10);
	unflag(1, 3600, 201, 2);
	recv(0, 3700, rev(f), 11, 10);
	m = end();
	ok(m->n_requests == 2 && span_of(m, 0, host[1], 200) >= 0 &&
	   span_of(m, 1, host[1], 201) >= 0 &&
	   m->requests[1].start_ns == 2900,
	   "keep-alive, the server's first span ending after the client entered its next send: 2 requests, the second from that call (%d, %lld)",
	   m->n_requests, m->n_requests > 1 ?
	   (long long)m->requests[1].start_ns : -1LL);
	dt_rq_model_free(m);
}

/* Keep-alive: two requests on one connection, one server thread. */
static void keepalive(void)
{
	struct dt_flow f = flow(0, 1, 40000, 80);
	struct dt_rq_model *m;
	int s0, s1;

	begin(2);
	flag(0, 100, 100, 0, (struct dt_flow){ 0 }, 100);
	send(0, 1000, 100, f, 1, 50);
	recv(1, 1100, f, 1, 50);
	flag(1, 1300, 200, 1, f, 200);
	send(1, 1500, 200, rev(f), 1, 10);
	unflag(1, 1600, 200, 2);
	recv(0, 1700, rev(f), 1, 10);
	send(0, 3000, 100, f, 51, 50);
	recv(1, 3100, f, 51, 50);
	flag(1, 3300, 200, 1, f, 200);
	send(1, 3500, 200, rev(f), 11, 10);
	unflag(1, 3600, 200, 2);
	recv(0, 3700, rev(f), 11, 10);
	m = end();
	s0 = span_of(m, 0, host[1], 200);
	s1 = span_of(m, 1, host[1], 200);
	ok(m->n_requests == 2 && s0 >= 0 && s1 >= 0 &&
	   m->spans[s0].start_ns == 1300 && m->spans[s1].start_ns == 3300,
	   "keep-alive: 2 requests, each with its own flag of thread 200");
	ok(m->messages[m->requests[1].messages[0]].send_ns == 3000 &&
	   m->messages[m->requests[1].messages[0]].to_span == s1,
	   "the second request's message flagged the second span");
	dt_rq_model_free(m);
}

/* A lost segment sent again; bytes once. */
static void retransmission(void)
{
	struct dt_flow f = flow(0, 1, 40000, 80);
	struct dt_rq_model *m;

	begin(2);
	flag(0, 100, 100, 0, (struct dt_flow){ 0 }, 100);
	send(0, 1000, 100, f, 1, 50);
	send(0, 1500, 100, f, 1, 50);
	recv(1, 1600, f, 1, 50);
	flag(1, 1700, 200, 1, f, 200);
	m = end();
	ok(m->n_messages == 1 && m->messages[0].segments == 2 &&
	   m->messages[0].bytes == 50 && m->messages[0].send_ns == 1000 &&
	   m->messages[0].recv_ns == 1600,
	   "retransmission: one message, 2 segments, 50 bytes");
	ok(m->spans[span_of(m, 0, host[1], 200)].end_reason ==
	   DT_RQ_END_OPEN && m->spans[span_of(m, 0, host[1], 200)].end_ns ==
	   1700, "a span never unflagged ends open at its host's last event");
	dt_rq_model_free(m);
}

/* The client forks; the child sends. A flag nobody sent. */
static void inherited_and_orphan(void)
{
	struct dt_flow f = flow(0, 1, 40000, 80), x = flow(2, 1, 999, 80);
	struct dt_rq_model *m;
	int child, srv, orphan = -1, i;

	begin(3);
	flag(0, 100, 100, 0, (struct dt_flow){ 0 }, 100);
	inherit(0, 500, 101, 100);
	send(0, 1000, 101, f, 1, 10);
	recv(1, 1100, f, 1, 10);
	flag(1, 1200, 200, 1, f, 200);
	flag(1, 1250, 201, 1, x, 201);
	send(1, 1300, 200, rev(f), 1, 10);
	unflag(1, 1400, 200, 2);
	recv(0, 1500, rev(f), 1, 10);
	unflag(0, 1600, 101, 1);
	m = end();
	child = span_of(m, 0, host[0], 101);
	srv = span_of(m, 0, host[1], 200);
	ok(child >= 0 && m->spans[child].parent == m->requests[0].root &&
	   m->spans[child].flag_reason == DT_RQ_FLAG_INHERITED &&
	   srv >= 0 && m->spans[srv].parent == child &&
	   m->requests[0].n_spans == 3,
	   "inherited: client -> forked child -> server");
	for (i = 0; i < m->n_requests; i++)
		if (m->spans[m->requests[i].root].tid == 201)
			orphan = i;
	ok(m->n_requests == 2 && orphan >= 0 && m->orphan_spans == 1 &&
	   m->requests[orphan].n_spans == 1 &&
	   m->spans[m->requests[orphan].root].flag_reason ==
	   DT_RQ_FLAG_PROPAGATED,
	   "a flag from a flow no traced host sent: its own request, counted");
	dt_rq_model_free(m);
}

/*
 * `echo $$ > add_pid; exec curl URL URL`: the shell's name gives way to
 * the program's, and curl's resolver thread (started, sent nothing,
 * exited before the first request) joins that request, not one of its own.
 */
static void helper_thread(void)
{
	struct dt_flow f = flow(0, 1, 40000, 80), g = flow(0, 1, 40001, 80);
	struct dt_rq_model *m;
	int helper, k;

	begin(2);
	add((struct dt_rq_event){ .kind = DT_RQ_EV_FLAG, .host = host[0],
				  .ts = 100, .tid = 100, .pid = 100,
				  .ctx_tid = 100, .procname = "sh",
				  .reason = 0, .parent = -1 });
	add((struct dt_rq_event){ .kind = DT_RQ_EV_OTHER, .host = host[0],
				  .ts = 150, .tid = 100, .pid = 100,
				  .ctx_tid = 100, .procname = "curl" });
	inherit(0, 200, 101, 100);
	other(0, 250, 101);
	unflag(0, 400, 101, 1);
	for (k = 0; k < 2; k++) {
		struct dt_flow x = k ? g : f;
		int64_t t = 1000 + 1000 * k;

		sys(0, t - 10, 100, "sendto", 1, 3);
		send(0, t, 100, x, 1, 10);
		recv(1, t + 100, x, 1, 10);
		flag(1, t + 200, 200 + k, 1, x, 200 + k);
		send(1, t + 300, 200 + k, rev(x), 1, 10);
		unflag(1, t + 400, 200 + k, 2);
		recv(0, t + 500, rev(x), 1, 10);
	}
	unflag(0, 3000, 100, 0);
	m = end();
	helper = span_of(m, 0, host[0], 101);
	ok(m->n_requests == 2 && m->requests[0].n_spans == 3 &&
	   m->requests[1].n_spans == 2 && helper >= 0 &&
	   m->spans[helper].parent == m->requests[0].root &&
	   m->spans[m->requests[0].root].start_ns == 200,
	   "a helper thread joins the request it prepared (%d requests)",
	   m->n_requests);
	ok(!strcmp(m->spans[m->requests[0].root].procname, "curl") &&
	   !strcmp(m->spans[m->requests[1].root].procname, "curl"),
	   "a flagged shell that exec()s is named after its program");
	dt_rq_model_free(m);
}

static void ctx_flag(int h, int64_t ts, int tid, int reason,
		     struct dt_flow f, uint64_t context)
{
	add((struct dt_rq_event){ .kind = DT_RQ_EV_FLAG, .host = host[h],
				  .ts = ts, .tid = tid, .pid = tid,
				  .ctx_tid = tid, .procname = "proc",
				  .reason = reason, .flow = f, .parent = -1,
				  .context = context });
}

static void ctx_unflag(int h, int64_t ts, int tid, int reason,
		       uint64_t context, uint64_t idle)
{
	add((struct dt_rq_event){ .kind = DT_RQ_EV_UNFLAG, .host = host[h],
				  .ts = ts, .tid = tid, .pid = tid,
				  .ctx_tid = tid, .reason = reason,
				  .duration_ns = 1, .context = context,
				  .idle_ns = idle });
}

/*
 * An event loop: b's 200 reads a's request (context 7), asks c, serves
 * something else meanwhile (switched), comes back with c's answer
 * (resumed), and answers a; its span ends with its last write (idle
 * 300 before the unflag). A worker 201 joins the request to write more
 * of the response: a child span of 200's.
 */
static void event_loop(void)
{
	struct dt_flow ab = flow(0, 1, 40000, 80), bc = flow(1, 2, 41000, 81);
	struct dt_rq_model *m;
	int root, sb, sc, sw;

	begin(3);
	flag(0, 1000, 100, 0, (struct dt_flow){ 0 }, 100);
	send(0, 1200, 100, ab, 1, 10);
	recv(1, 1500, ab, 1, 10);
	ctx_flag(1, 1600, 200, 1, ab, 7);
	send(1, 1700, 200, bc, 7, 10);
	ctx_unflag(1, 1800, 200, DT_RQ_UNFLAG_SWITCHED, 7, 0);
	other(1, 1900, 200);
	recv(2, 2000, bc, 7, 10);
	ctx_flag(2, 2100, 300, 1, bc, 1);
	send(2, 2200, 300, rev(bc), 70, 20);
	ctx_unflag(2, 2900, 300, DT_RQ_END_RESPONSE, 1, 650);
	recv(1, 2400, rev(bc), 70, 20);
	ctx_flag(1, 2500, 200, DT_RQ_FLAG_RESUMED, ab, 7);
	send(1, 2600, 200, rev(ab), 90, 20);
	ctx_flag(1, 2650, 201, DT_RQ_FLAG_RESUMED, ab, 7);
	send(1, 2700, 201, rev(ab), 110, 20);
	ctx_unflag(1, 2800, 201, DT_RQ_END_RESPONSE, 7, 50);
	ctx_unflag(1, 3000, 200, DT_RQ_END_RESPONSE, 7, 300);
	recv(0, 3100, rev(ab), 90, 40);
	unflag(0, 6000, 100, 0);
	m = end();
	root = m->requests[0].root;
	sb = span_of(m, 0, host[1], 200);
	sc = span_of(m, 0, host[2], 300);
	sw = span_of(m, 0, host[1], 201);
	ok(m->n_requests == 1 && m->n_spans == 4,
	   "event loop: 1 request, 4 spans (%d %d)", m->n_requests,
	   m->n_spans);
	ok(sb >= 0 && sc >= 0 && sw >= 0 && m->spans[sb].parent == root &&
	   m->spans[sc].parent == sb && m->spans[sw].parent == sb,
	   "a -> b (the loop) -> c, and b's worker under the loop's span");
	ok(sb >= 0 && m->spans[sb].start_ns == 1600 &&
	   m->spans[sb].end_ns == 2700 &&
	   m->spans[sb].end_reason == DT_RQ_END_RESPONSE,
	   "the loop's span: one span from its flag to its last write, not two");
	ok(sb >= 0 && m->spans[sb].sum.blocked_on[DT_RQ_BLOCK_OTHER] >= 700,
	   "its time away (switched, 1800 to 2500) is waiting (%lld)",
	   sb >= 0 ? (long long)m->spans[sb].sum.blocked_on[DT_RQ_BLOCK_OTHER] : -1LL);
	ok(sc >= 0 && m->spans[sc].end_ns == 2250,
	   "c's span ends with its last write (%lld)",
	   sc >= 0 ? (long long)m->spans[sc].end_ns : -1LL);
	ok(sw >= 0 && m->spans[sw].flag_reason == DT_RQ_FLAG_RESUMED &&
	   m->spans[sw].start_ns == 2650 && m->spans[sw].end_ns == 2750,
	   "the worker: resumed, 2650 to its last write");
	dt_rq_model_free(m);
}

/*
 * A pool: b's reader (200) reads a's request (context 7) and wakes its
 * worker (201: handoff, the reader in parent), which answers; the
 * reader turns to other work.
 */
static void pool(void)
{
	struct dt_flow ab = flow(0, 1, 40000, 80);
	struct dt_rq_model *m;
	int root, sr, sw;

	begin(2);
	flag(0, 1000, 100, 0, (struct dt_flow){ 0 }, 100);
	send(0, 1200, 100, ab, 1, 10);
	recv(1, 1500, ab, 1, 10);
	ctx_flag(1, 1600, 200, 1, ab, 7);
	add((struct dt_rq_event){ .kind = DT_RQ_EV_FLAG, .host = host[1],
				  .ts = 1700, .tid = 201, .pid = 200,
				  .ctx_tid = 201, .procname = "proc",
				  .reason = DT_RQ_FLAG_HANDOFF, .flow = ab,
				  .parent = 200, .context = 7 });
	ctx_unflag(1, 1800, 200, DT_RQ_UNFLAG_SWITCHED, 7, 0);
	send(1, 2000, 201, rev(ab), 90, 20);
	ctx_unflag(1, 2500, 201, DT_RQ_END_RESPONSE, 7, 400);
	recv(0, 2200, rev(ab), 90, 20);
	unflag(0, 6000, 100, 0);
	m = end();
	root = m->requests[0].root;
	sr = span_of(m, 0, host[1], 200);
	sw = span_of(m, 0, host[1], 201);
	ok(m->n_requests == 1 && m->n_spans == 3 && sr >= 0 && sw >= 0 &&
	   m->spans[sr].parent == root && m->spans[sw].parent == sr,
	   "pool: the worker handed the request is a child of its reader");
	ok(sw >= 0 && m->spans[sw].flag_reason == DT_RQ_FLAG_HANDOFF &&
	   m->spans[sw].guess && !m->spans[sr].guess &&
	   !strcmp(dt_rq_flag_reason_name(m->spans[sw].flag_reason),
		   "handoff") &&
	   m->spans[sw].start_ns == 1700 && m->spans[sw].end_ns == 2100,
	   "its span: handoff, from the wake-up to its last write");
	dt_rq_model_free(m);
}

/*
 * A hop over a UNIX socket: b's nginx-like 200 reads a's request
 * (context 7) and writes it on a UNIX socket; 300, another process of
 * b, reads it there (local, 200 in parent: the kernel knows the writer),
 * answers, and 200 answers a. 300's span is a child of 200's, and no
 * guess.
 */
static void unix_hop(void)
{
	struct dt_flow ab = flow(0, 1, 40000, 80);
	struct dt_rq_model *m;
	int sr, su;

	begin(2);
	flag(0, 1000, 100, 0, (struct dt_flow){ 0 }, 100);
	send(0, 1200, 100, ab, 1, 10);
	recv(1, 1500, ab, 1, 10);
	ctx_flag(1, 1600, 200, DT_RQ_FLAG_PROPAGATED, ab, 7);
	add((struct dt_rq_event){ .kind = DT_RQ_EV_FLAG, .host = host[1],
				  .ts = 1700, .tid = 300, .pid = 300,
				  .ctx_tid = 300, .procname = "php-fpm",
				  .reason = DT_RQ_FLAG_LOCAL, .flow = ab,
				  .parent = 200, .context = 7 });
	ctx_unflag(1, 2300, 300, DT_RQ_END_RESPONSE, 7, 200);
	send(1, 2400, 200, rev(ab), 90, 20);
	ctx_unflag(1, 2900, 200, DT_RQ_END_RESPONSE, 7, 400);
	recv(0, 2600, rev(ab), 90, 20);
	unflag(0, 6000, 100, 0);
	m = end();
	sr = span_of(m, 0, host[1], 200);
	su = span_of(m, 0, host[1], 300);
	ok(m->n_requests == 1 && m->n_spans == 3 && sr >= 0 && su >= 0 &&
	   m->spans[su].parent == sr,
	   "UNIX hop: the reader of the socket is a child of its writer's span");
	ok(su >= 0 && m->spans[su].flag_reason == DT_RQ_FLAG_LOCAL &&
	   !m->spans[su].guess &&
	   !strcmp(dt_rq_flag_reason_name(m->spans[su].flag_reason),
		   "local") &&
	   m->spans[su].start_ns == 1700 && m->spans[su].end_ns == 2100,
	   "its span: local, exact, from its read to its last write");
	dt_rq_model_free(m);
}

/*
 * An event loop that defers its upstream call: b's 200 reads a's
 * request (context 7), reads another (switched), then writes the call
 * to c for context 7 (deferred: the kernel's guess from the order of
 * reads and calls), comes back with c's answer and answers a. One span
 * for the loop, c under it; the tree says the hop was guessed.
 */
static void deferred(void)
{
	struct dt_flow ab = flow(0, 1, 40000, 80), bc = flow(1, 2, 41000, 81);
	struct dt_rq_model *m;
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	int sb, sc;

	begin(3);
	flag(0, 1000, 100, 0, (struct dt_flow){ 0 }, 100);
	send(0, 1200, 100, ab, 1, 10);
	recv(1, 1500, ab, 1, 10);
	ctx_flag(1, 1600, 200, DT_RQ_FLAG_PROPAGATED, ab, 7);
	ctx_unflag(1, 1700, 200, DT_RQ_UNFLAG_SWITCHED, 7, 0);
	other(1, 1750, 200);
	ctx_flag(1, 1900, 200, DT_RQ_FLAG_DEFERRED, ab, 7);
	send(1, 1950, 200, bc, 7, 10);
	ctx_unflag(1, 2000, 200, DT_RQ_UNFLAG_SWITCHED, 7, 0);
	recv(2, 2100, bc, 7, 10);
	ctx_flag(2, 2150, 300, DT_RQ_FLAG_PROPAGATED, bc, 1);
	send(2, 2200, 300, rev(bc), 70, 20);
	ctx_unflag(2, 2900, 300, DT_RQ_END_RESPONSE, 1, 650);
	recv(1, 2400, rev(bc), 70, 20);
	ctx_flag(1, 2500, 200, DT_RQ_FLAG_RESUMED, ab, 7);
	send(1, 2600, 200, rev(ab), 90, 20);
	ctx_unflag(1, 3000, 200, DT_RQ_END_RESPONSE, 7, 350);
	recv(0, 3100, rev(ab), 90, 20);
	unflag(0, 6000, 100, 0);
	m = end();
	sb = span_of(m, 0, host[1], 200);
	sc = span_of(m, 0, host[2], 300);
	ok(m->n_requests == 1 && m->n_spans == 3 && sb >= 0 && sc >= 0 &&
	   m->spans[sc].parent == sb,
	   "deferred: a -> b (the loop, one span) -> c (%d spans)",
	   m->n_spans);
	ok(sb >= 0 && m->spans[sb].guess && !m->spans[sc].guess &&
	   !m->spans[m->requests[0].root].guess,
	   "the loop's span is marked as guessed, no other");
	f = open_memstream(&out, &len);
	ok(f && dt_rq_print_tree(m, 0, f) == 0 && !fclose(f) && out &&
	   strstr(out, "propagated from 10.0.0.1:40000 (a guess)"),
	   "the tree says so: \"propagated from 10.0.0.1:40000 (a guess)\"");
	free(out);
	dt_rq_model_free(m);
}

/* A flagged thread that sends nothing: one request, its whole flag. */
static void silent(void)
{
	struct dt_rq_model *m;

	begin(1);
	flag(0, 100, 100, 0, (struct dt_flow){ 0 }, 7);
	other(0, 300, 100);
	unflag(0, 900, 100, 0);
	m = end();
	ok(m->n_requests == 1 && m->n_spans == 1 &&
	   m->spans[0].start_ns == 100 && m->spans[0].end_ns == 900 &&
	   m->spans[0].end_reason == DT_RQ_END_REMOVED &&
	   m->spans[0].duration_ns == 1,
	   "silent: the flag's interval and its unflag");
	ok(m->spans[0].sum.unknown_ns == 200 && m->spans[0].sum.running_ns == 600,
	   "flagged by another thread: unknown until its own first event");
	ok(m->dtracer_events == 2 && m->events == 3, "events counted");
	dt_rq_model_free(m);
}

/*
 * a client 100 -> b server 200, whose read opened several HTTP/2
 * streams (reason streams): linked as a propagated span is, and marked
 * as the kernel's guess.
 */
static void streams(void)
{
	struct dt_flow f = flow(0, 1, 40002, 8100);
	struct dt_rq_model *m;
	int root, srv;

	begin(2);
	flag(0, 1000, 100, 0, (struct dt_flow){ 0 }, 100);
	send(0, 1200, 100, f, 1, 80);
	recv(1, 1500, f, 1, 80);
	flag(1, 1700, 200, DT_RQ_FLAG_STREAMS, f, 200);
	send(1, 2500, 200, rev(f), 9000, 300);
	unflag(1, 2600, 200, 2);
	recv(0, 2900, rev(f), 9000, 300);
	unflag(0, 5000, 100, 0);
	m = end();
	root = m->n_requests == 1 ? m->requests[0].root : -1;
	srv = span_of(m, 0, host[1], 200);
	ok(m->n_requests == 1 && srv >= 0 && m->spans[srv].parent == root &&
	   m->n_messages == 2 && m->messages[0].to_span == srv,
	   "streams: the server span is the client's child, by the marked bytes");
	ok(srv >= 0 && m->spans[srv].guess && !m->spans[root].guess &&
	   !strcmp(dt_rq_flag_reason_name(m->spans[srv].flag_reason),
		   "streams"),
	   "... and the kernel's guess, named streams");
	dt_rq_model_free(m);
}

int main(void)
{
	char buf[DT_RQ_ADDR_LEN];
	struct dt_flow f = flow(0, 1, 40000, 80);

	two_hosts();
	chain();
	concurrent();
	no_answer();
	successive();
	keepalive();
	keepalive_skewed();
	keepalive_entry();
	retransmission();
	inherited_and_orphan();
	helper_thread();
	event_loop();
	pool();
	unix_hop();
	deferred();
	silent();
	streams();
	ok(!strcmp(dt_rq_flow_src(&f, buf), "10.0.0.1:40000") &&
	   !strcmp(dt_rq_flow_dst(&f, buf), "10.0.0.2:80"), "flow addresses");
	f.family = 10;
	ok(!strcmp(dt_rq_flow_src(&f, buf), "[a00:1::]:40000"),
	   "IPv6 in brackets (%s)", buf);
	b = dt_rq_builder_new();
	ok(dt_rq_add(b, &(struct dt_rq_event){ .host = 3 }) == -1,
	   "an event of an unknown host is refused");
	dt_rq_builder_free(b);
	return tap_done();
}
