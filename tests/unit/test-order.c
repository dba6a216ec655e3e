/*
 * Unit tests of dtracer/order.c, the very file the module builds: an
 * event loop's order, each upstream call given the position of the
 * request it carries, and the count put right by the responses that
 * follow their call's answer. Simulated loops: a proxy answering as
 * its upstreams answer (nginx), a queue in front of a few kept-alive
 * upstream connections (Node.js's http.Agent), a ring that completes
 * several reads before it writes (io_uring), with the missteps a count
 * can take (a read that makes no call, a write taken for a call).
 */
#include <stdlib.h>
#include <string.h>

#include "order.h"
#include "tap.h"

static struct dt_order o;

/* A socket's hash: spread as hash_ptr()'s, never 0. */
static u32 sock_hash(unsigned int i)
{
	return (u32)((i + 1) * 2654435761u) | 1;
}

static u32 rd(u32 s)
{
	u32 pos = ~0u;

	if (!dt_order_read(&o, s, true, -1, &pos))
		return ~0u;
	return pos;
}

static void answer(u32 u)
{
	u32 pos;

	dt_order_read(&o, u, false, -1, &pos);
}

static void respond(u32 s)
{
	dt_order_responded(&o, s, DT_ANSWER_FINAL, false, 0);
}

/* The position a call on u is given, ~0u if none. */
static u32 call(u32 u)
{
	u32 pos = ~0u, end;

	if (dt_order_forward(&o, u, false, -1, &pos, &end) == DT_ORDER_NO_CALL)
		return ~0u;
	return end == pos + 1 ? pos : ~0u;
}

/* A small generator, the same run each time. */
static unsigned int seed = 12345;

static unsigned int rnd(unsigned int n)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 16) % n;
}

#define CLIENTS 33
#define UPSTREAMS 40

/*
 * A proxy: up to CLIENTS requests in flight, each read and called at
 * once, answered in any order, its response written right after its
 * answer. misstep: at request n, a read that makes no call (1), a
 * write taken for a call (2), 5 requests answered without a call
 * counted (3: over a UNIX socket), 20 requests read, never called
 * nor answered (4: their clients went first; 5: and the loop closed
 * their connections). Returns the calls given another request's
 * position from request from on.
 */
static int proxy(int n, int misstep, int at, int from)
{
	u32 pos[CLIENTS], up[CLIENTS];
	bool busy[CLIENTS] = { false }, upbusy[UPSTREAMS] = { false };
	int started = 0, wrong = 0, inflight = 0;

	dt_order_reset(&o);
	while (started < n || inflight) {
		unsigned int c = rnd(CLIENTS);

		if (!busy[c] && started < n) {
			unsigned int u = rnd(UPSTREAMS);
			u32 got;

			while (upbusy[u])
				u = (u + 1) % UPSTREAMS;
			if (misstep == 1 && started == at) {
				/* a client's last bytes, its close later */
				rd(sock_hash(1000));
			}
			if (misstep == 4 && started == at) {
				int k;

				/* 20 requests whose clients went first */
				for (k = 0; k < 20; k++)
					rd(sock_hash(3000 + k));
			}
			if (misstep == 5 && started == at) {
				int k;

				/* ... and their connections closed */
				for (k = 0; k < 20; k++)
					rd(sock_hash(3000 + k));
				for (k = 0; k < 20; k++)
					dt_order_closed(&o, sock_hash(3000 + k));
			}
			if (misstep == 3 && started >= at && started < at + 5) {
				/* answered over a UNIX socket: no call counted */
				rd(sock_hash(1000 + started));
				respond(sock_hash(1000 + started));
			}
			pos[c] = rd(sock_hash(c));
			if (misstep == 2 && started == at)
				call(sock_hash(2000));
			up[c] = u;
			got = call(sock_hash(100 + u));
			if (started >= from && got != pos[c])
				wrong++;
			busy[c] = upbusy[u] = true;
			started++;
			inflight++;
		} else if (busy[c]) {
			answer(sock_hash(100 + up[c]));
			respond(sock_hash(c));
			busy[c] = upbusy[up[c]] = false;
			inflight--;
		}
	}
	return wrong;
}

/*
 * A queue: requests read in turns of up to 3, called in the order read
 * on whichever of 2 kept-alive upstream connections is free, each
 * answer answered at once and the queue's next call made right after
 * it; the queue seldom empties. misstep and at as proxy()'s. Returns
 * the calls given another request's position from request from on.
 */
static int queue(int n, int misstep, int at, int from)
{
	u32 q[64], qs[64], on[2];
	int qc[64], onc[2];
	bool busy[2] = { false, false }, waiting[CLIENTS] = { false };
	int head = 0, len = 0, started = 0, done = 0, wrong = 0, called = 0;
	int next = 0;

	dt_order_reset(&o);
	while (done < n) {
		int k, i;

		/* a client asks again once answered (HTTP/1.1) */
		for (k = rnd(4); k > 0 && started < n && len < 30; k--) {
			u32 s;

			while (waiting[next])
				next = (next + 1) % CLIENTS;
			s = sock_hash(next);
			waiting[next] = true;
			qc[(head + len) % 64] = next;

			if (misstep == 1 && started == at)
				rd(sock_hash(1000));
			q[(head + len) % 64] = rd(s);
			qs[(head + len) % 64] = s;
			len++;
			started++;
		}
		for (i = 0; i < 2; i++) {
			if (busy[i] && !rnd(2)) {
				answer(sock_hash(100 + i));
				respond(on[i]);
				waiting[onc[i]] = false;
				busy[i] = false;
				done++;
			}
			if (busy[i] || !len)
				continue;
			if (misstep == 2 && called == at)
				call(sock_hash(2000));
			if (call(sock_hash(100 + i)) != q[head % 64] &&
			    called >= from)
				wrong++;
			on[i] = qs[head % 64];
			onc[i] = qc[head % 64];
			busy[i] = true;
			head++;
			len--;
			called++;
		}
	}
	return wrong;
}

/*
 * A proxy whose requests each wait for a 100 Continue before their body
 * (an interim answer: the call carries the body's read), answered as
 * their upstream answers, 33 at a time.
 */
static int proxy_continue(int n)
{
	u32 body[CLIENTS];
	bool busy[CLIENTS] = { false };
	int started = 0, wrong = 0, inflight = 0;

	dt_order_reset(&o);
	while (started < n || inflight) {
		unsigned int c = rnd(CLIENTS);

		if (!busy[c] && started < n) {
			rd(sock_hash(c));
			dt_order_responded(&o, sock_hash(c), DT_ANSWER_INTERIM,
					   false, 0);
			body[c] = rd(sock_hash(c));
			if (call(sock_hash(100 + c)) != body[c])
				wrong++;
			busy[c] = true;
			started++;
			inflight++;
		} else if (busy[c]) {
			answer(sock_hash(100 + c));
			respond(sock_hash(c));
			busy[c] = false;
			inflight--;
		}
	}
	return wrong;
}

/*
 * A ring: requests read, called at once, and the answers of 2 calls
 * read before their responses are written, in the order read.
 */
static int ring(int n)
{
	int i, wrong = 0;

	dt_order_reset(&o);
	for (i = 0; i + 1 < n; i += 2) {
		u32 a = rd(sock_hash(i % CLIENTS));
		u32 b;

		if (call(sock_hash(100)) != a)
			wrong++;
		b = rd(sock_hash((i + 1) % CLIENTS));
		if (call(sock_hash(101)) != b)
			wrong++;
		/* answers in reverse, responses in order: no link */
		answer(sock_hash(101));
		answer(sock_hash(100));
		respond(sock_hash(i % CLIENTS));
		respond(sock_hash((i + 1) % CLIENTS));
	}
	return wrong;
}

/*
 * An HTTP/2 proxy (nghttpx): its clients' reads open 1 to 16 streams
 * each, and it calls them upstream on one HTTP/2 connection, any number
 * of them in a write (writes of none too: WINDOW_UPDATE, DATA), while
 * their answers come back on it in any order and it answers its
 * clients. Returns the writes given other calls than the ones they
 * carry.
 */
static int h2proxy(int n)
{
	u32 up = sock_hash(3000), pos, end, p;
	int wrong = 0, reads = 0, called = 0, answered = 0, k, m;
	enum dt_order_fwd f;

	dt_order_reset(&o);
	while (called < n) {
		if (reads - called < 48 && rnd(2)) {
			k = 1 + rnd(16);
			dt_order_read(&o, sock_hash(rnd(CLIENTS)), true, k, &p);
			reads += k;
		}
		/* A WINDOW_UPDATE of a client's: no stream opened. */
		if (rnd(4) == 0)
			dt_order_read(&o, sock_hash(rnd(CLIENTS)), true, 0, &p);
		while (answered < called && rnd(3)) {
			answer(up);
			respond(sock_hash(rnd(CLIENTS)));
			answered++;
		}
		m = rnd(reads - called + 1);
		f = dt_order_forward(&o, up, false, m, &pos, &end);
		/* None opened (DATA, WINDOW_UPDATE): no call. */
		if (!m) {
			wrong += f != DT_ORDER_NO_CALL;
			continue;
		}
		if (f != DT_ORDER_IN_ORDER || pos != (u32)called ||
		    end != (u32)(called + m))
			wrong++;
		called += m;
	}
	return wrong;
}

/*
 * An HTTP/2 proxy reads 16 streams and calls 4 of them; the rest never
 * will be (their client went). The position of its next call, after
 * a read of one stream, with or without the loop's idle between.
 */
static u32 idle(bool idled)
{
	u32 up = sock_hash(3000), pos = ~0u, end, p;

	dt_order_reset(&o);
	dt_order_read(&o, sock_hash(1), true, 16, &p);
	dt_order_forward(&o, up, false, 4, &pos, &end);
	if (idled)
		dt_order_idle(&o);
	dt_order_read(&o, sock_hash(2), true, 1, &p);
	if (dt_order_forward(&o, up, false, 1, &pos, &end) == DT_ORDER_NO_CALL)
		return ~0u;
	return pos;
}

int main(void)
{
	int w;

	w = h2proxy(5000);
	ok(w == 0 && o.resyncs == 0,
	   "an HTTP/2 proxy, 5,000 streams called on one connection, several a write: every write carries the positions of its streams, one of none no call (%d wrong), no resync (%u)",
	   w, o.resyncs);

	ok(idle(false) == 4 && idle(true) == 16,
	   "16 HTTP/2 streams read, 4 called, the rest never (their client left): the next call is the 5th's, after the loop's idle the next read's (%u, %u)",
	   idle(false), idle(true));

	ok(proxy(5000, 0, 0, 0) == 0 && o.resyncs == 0,
	   "a proxy, 5,000 requests on 33 connections: every call at its request's position, no resync (%u)",
	   o.resyncs);

	w = proxy(5000, 1, 1000, 1000);
	ok(o.resyncs == 1, "a read that makes no call: the count is put right once (%u)",
	   o.resyncs);
	ok(w > 0 && w < 200,
	   "... after a few calls given their neighbour's request (%d of 4,000)", w);
	ok(proxy(5000, 1, 1000, 1500) == 0,
	   "... and none after the first 500 requests");

	w = proxy(5000, 3, 1000, 1000);
	ok(o.resyncs >= 1, "5 requests answered without a call counted: the count is put right (%u)",
	   o.resyncs);
	ok(proxy(5000, 3, 1000, 1500) == 0,
	   "... and no call is wrong after the first 500 requests");

	w = proxy(5000, 4, 1000, 1000);
	ok(o.resyncs == 1, "20 requests read and never called nor answered: the count is put right once (%u)",
	   o.resyncs);
	ok(w > 0 && w < 100, "... after a few wrong calls (%d of 4,000)", w);
	ok(proxy(5000, 4, 1000, 1200) == 0,
	   "... and none after the first 200 requests");

	w = proxy(5000, 5, 1000, 0);
	ok(w == 0 && o.resyncs == 0,
	   "... their connections closed: no call wrong, no resync (%d, %u)", w,
	   o.resyncs);

	w = proxy(5000, 2, 1000, 1000);
	ok(w == 1 && o.resyncs == 0,
	   "a write taken for a call with nothing queued: one call wrong, the next one right (%d wrong, %u resyncs)",
	   w, o.resyncs);

	ok(queue(3000, 0, 0, 0) == 0 && o.resyncs == 0,
	   "a queue before 2 upstream connections, 3,000 requests: every call at its request's position, no resync (%u)",
	   o.resyncs);
	w = queue(3000, 1, 1000, 1000);
	ok(o.resyncs == 1, "... a read that makes no call: the count is put right once (%u)",
	   o.resyncs);
	ok(w > 0 && w < 100, "... after a few wrong calls (%d of 2,000)", w);
	ok(queue(3000, 1, 1000, 1100) == 0,
	   "... and none after the first 100 calls");
	w = queue(3000, 2, 1000, 1000);
	ok(o.resyncs == 1, "... a write taken for a call: the count is put right once (%u)",
	   o.resyncs);
	ok(w > 0 && w < 100, "... after a few wrong calls (%d of 2,000)", w);
	ok(queue(3000, 2, 1000, 1100) == 0,
	   "... and none after the first 100 calls");
	ok(proxy_continue(3000) == 0 && o.resyncs == 0,
	   "a proxy, 3,000 requests each after a 100 Continue: every call at its body's position, no resync (%u)",
	   o.resyncs);
	ok(ring(2000) == 0 && o.resyncs == 0,
	   "a ring reading 2 answers before its responses: no check, no resync (%u)",
	   o.resyncs);

	/* Two checks: one that is off says nothing yet. */
	{
		u32 a, b, c2;

		dt_order_reset(&o);
		a = rd(sock_hash(1));
		call(sock_hash(101));
		b = rd(sock_hash(2));
		call(sock_hash(102));
		(void)a;
		(void)b;
		/* answered crosswise once: a response after the other's answer */
		answer(sock_hash(102));
		respond(sock_hash(1));
		answer(sock_hash(101));
		respond(sock_hash(2));
		c2 = rd(sock_hash(3));
		ok(call(sock_hash(101)) == c2 && o.resyncs == 0,
		   "two crossed answers (off by 1, then by -1): the count stays as it is");
	}
	return tap_done();
}
