// SPDX-License-Identifier: GPL-2.0
/*
 * One event loop's order (order.h; deferred.c says what it is for):
 * - reads: the requests it read, on connections a listener accepted (a
 *   read on the socket of its previous read, nothing done between, is
 *   more of the same request; a read of an HTTP/2 connection, the
 *   streams it opens, h2.c: none, or many at once);
 * - fwds: how many of them it forwarded, oldest first;
 * - resps: the responses it wrote (more writes on the socket of its
 *   previous write, nothing done between, are the same response);
 * - last: what it did last: read a request, read an answer (on a
 *   connection it opened), wrote a response, wrote a request.
 * A request written on a connection the host opened (or a connect) is
 * a forward:
 * - right after an answer's read, it is no forward: a second call of the
 *   request whose answer came;
 * - more of the same request (the same socket, nothing done between) is
 *   no new forward;
 * - else it is the oldest request read and not forwarded (a loop's
 *   queue), if any.
 * A write on an HTTP/2 connection the loop opened (nghttpx multiplexing
 * its clients' requests upstream) is as many calls as the streams it
 * opens (h2.c, exact), whatever the loop did before; its answers, back
 * in any order of the streams, check nothing.
 * More responses than forwards say that requests were answered without
 * an upstream call (a static file beside proxied ones, an error, a
 * store that asks nobody): the oldest ones count as forwarded then, so
 * the queue never keeps requests that are gone.
 * An interim answer (interim.h: a 100 Continue, a TLS handshake's
 * writes, TLS 1.3's tickets) written right after a read is no response:
 * that read's request goes on in a read of its own (the body, the
 * request after the handshake), which has a position too, and the
 * forwards in order skip the first one (a window of 64 reads from fwds,
 * a bit each; a skipped read counts as answered when they pass it). So
 * do the reads not called yet of a connection the loop closes (a TLS
 * close_notify read by a lingering close, a request whose client went
 * first; the last 32 reads). HTTP/2's connection frames (SETTINGS,
 * PING, WINDOW_UPDATE: interim.h) are no step at all. Per connection in
 * a TLS handshake (4 per loop, the oldest taken over): a ServerHello
 * written, a TLS 1.3 flight (its next record, or application data
 * written right after it), then the tickets: application data written
 * right after the read that follows the flight (the client's Finished),
 * and records of that size right after them (a guess: they are
 * encrypted). A forward right after the tickets is the request read
 * with the Finished, out of order (its read stays skipped for the
 * forwards in order).
 *
 * The check. A count that once misses a step (a read that was no
 * request and made no call, a write taken for a call) would give every
 * later call its neighbour's request, for good: nothing in the counts
 * says so. One link the kernel sees is exact: a response written right
 * after the answer of one call (no other answer read since the last
 * response) answers the request that call carried. The sockets of the
 * last 32 reads are kept by position, and the position given to the
 * last call on a few sockets (a slot each by hash) with the loop's
 * last read then; such a response says by how many reads the call's
 * position was off (the distance): from that read if it was on the
 * response's socket (a loop that calls as it reads; up to 1,024: that
 * check alone puts the count right), else from the nearest read of
 * that socket within 8 positions of the call's (two checks in a row
 * off by the same distance put the count right: a single one can be a
 * loop that answers out of order). A check at 0 says the count is
 * right. A call is checked once:
 * its answer's check takes it.
 */
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

#include "order.h"

void dt_order_reset(struct dt_order *o)
{
	memset(o, 0, sizeof(*o));
}

/* Whether pos is in the window of reads from fwds on, at bit *bit. */
static bool dt_skip_bit(const struct dt_order *o, u32 pos, unsigned int *bit)
{
	u32 d = pos - o->fwds;

	*bit = d;
	return (s32)d >= 0 && d < 64;
}

/* The calls in order skip the read at pos (64 reads ahead at most). */
static void dt_skip_add(struct dt_order *o, u32 pos)
{
	unsigned int b;

	if (dt_skip_bit(o, pos, &b))
		o->skipped |= 1ull << b;
}

/* The read at pos was called out of order: skipped, not answered. */
static void dt_skip_taken(struct dt_order *o, u32 pos)
{
	unsigned int b;

	if (dt_skip_bit(o, pos, &b)) {
		o->skipped |= 1ull << b;
		o->taken |= 1ull << b;
	}
}

/* fwds moves on by n (the window with it). */
static void dt_fwds_advance(struct dt_order *o, u32 n)
{
	o->fwds += n;
	o->skipped = n < 64 ? o->skipped >> n : 0;
	o->taken = n < 64 ? o->taken >> n : 0;
}

/*
 * The skipped reads at fwds go, each one not called out of order counted
 * as answered (its request's answer comes after a read of its own, which
 * has a position too).
 */
static void dt_skip_pass(struct dt_order *o)
{
	while (o->fwds != o->reads && (o->skipped & 1)) {
		if (!(o->taken & 1))
			o->resps++;
		dt_fwds_advance(o, 1);
	}
}

/*
 * The loop read no request for a while (deferred.c): the requests it
 * read and has not called are gone (their clients left while they
 * waited: h2load's streams queued for an upstream connection when it
 * is killed) or will be called late; either way they are no longer
 * waited for, and the count goes on from the next read. Without it, a
 * count that gives HTTP/2 calls their positions (which nothing checks)
 * would stay behind for good.
 */
void dt_order_idle(struct dt_order *o)
{
	if (o->fwds != o->reads)
		dt_fwds_advance(o, o->reads - o->fwds);
}

static struct dt_order_hs *dt_hs_find(struct dt_order *o, u32 sk)
{
	int i;

	for (i = 0; i < DT_ORDER_HS; i++)
		if (o->hs[i].sk == sk)
			return &o->hs[i];
	return NULL;
}

/* A handshake on sk: its entry, a free one, or the first one's. */
static struct dt_order_hs *dt_hs_get(struct dt_order *o, u32 sk)
{
	struct dt_order_hs *e = dt_hs_find(o, sk);

	if (!e)
		e = dt_hs_find(o, 0);
	if (!e)
		e = &o->hs[0];
	memset(e, 0, sizeof(*e));
	e->sk = sk;
	return e;
}

/* The slot of sk in t: by the hash's top bits. */
static struct dt_order_at *dt_at(struct dt_order_at *t, u32 sk)
{
	return &t[sk >> (32 - DT_ORDER_AT_BITS)];
}

/* The loop's call on sk was given pos; its last read is noted with it. */
static void dt_at_set(struct dt_order *o, u32 sk, u32 pos)
{
	struct dt_order_at *a = dt_at(o->fw, sk);

	a->sk = sk;
	a->pos = pos;
	a->read = o->reads - 1;
	a->tag = o->reads ? o->ring[a->read % DT_ORDER_RING] : 0;
	a->gen = o->resyncs;
}

/* sk's last call, taken out (into *a): whether there was one. */
static bool dt_at_take(struct dt_order *o, u32 sk, struct dt_order_at *a)
{
	struct dt_order_at *e = dt_at(o->fw, sk);

	if (e->sk != sk)
		return false;
	*a = *e;
	e->sk = 0;
	return true;
}

/*
 * The count moves back by d reads (d < 0: on by -d, not beyond reads):
 * the calls to come take the positions d before the ones they would
 * have (the calls kept were given theirs by the count before: their
 * answers check nothing). Responses move with it: what was answered
 * without a call stays so.
 */
static void dt_order_shift(struct dt_order *o, s32 d)
{
	if (d < 0) {
		if ((u32)-d > o->reads - o->fwds)
			d = -(s32)(o->reads - o->fwds);
		dt_fwds_advance(o, -d);
	} else {
		o->fwds -= d;
		o->skipped = d < 64 ? o->skipped << d : 0;
		o->taken = d < 64 ? o->taken << d : 0;
	}
	o->resps -= d;
	o->resyncs++;
}

/* What the ring keeps of sk: its hash's top 16 bits, never 0. */
static u16 dt_ring_tag(u32 sk)
{
	return (sk >> 16) ?: 1;
}

/* How far from a call's position its request's read is looked for. */
#define DT_ORDER_NEAR 8

/*
 * The position of the read of sk nearest to pos (DT_ORDER_NEAR apart at
 * most, in the ring), in *read: whether there is one.
 */
static bool dt_ring_near(const struct dt_order *o, u32 sk, u32 pos, u32 *read)
{
	u16 tag = dt_ring_tag(sk);
	int k, side;

	for (k = 0; k <= DT_ORDER_NEAR; k++) {
		for (side = 0; side < (k ? 2 : 1); side++) {
			u32 q = side ? pos + k : pos - k;

			/* in the ring: read already, and not 32 reads ago */
			if ((s32)(o->reads - q) <= 0 ||
			    o->reads - q > DT_ORDER_RING)
				continue;
			if (o->ring[q % DT_ORDER_RING] == tag) {
				*read = q;
				return true;
			}
		}
	}
	return false;
}

/* The farthest a count is put right at once, in reads. */
#define DT_ORDER_FAR 1024

/*
 * A response on sk right after the answer on ans (the only one read
 * since the last response): the call on ans carried the request read on
 * sk, which is the read before the call if that was on sk (a loop that
 * calls as it reads: any distance, the count put right at once), else
 * the read of sk nearest the call's position (two checks in a row off
 * by one distance put the count right).
 */
static void dt_order_check(struct dt_order *o, u32 sk, u32 ans)
{
	struct dt_order_at call;
	bool sure;
	u32 read;
	s32 d;

	if (!dt_at_take(o, ans, &call) || call.gen != (u16)o->resyncs)
		return;
	sure = call.tag && call.tag == dt_ring_tag(sk);
	if (sure)
		read = call.read;
	else if (!dt_ring_near(o, sk, call.pos, &read))
		return;
	d = call.pos - read;
	if (d < -DT_ORDER_FAR || d > DT_ORDER_FAR)
		return;
	if (d != o->drift && !sure) {
		o->drift = d;
		return;
	}
	if (d)
		dt_order_shift(o, d);
	o->drift = 0;
}

/*
 * The loop read bytes on sk; serving: sk is a connection a listener
 * accepted; streams: the HTTP/2 streams they open (h2.c), or -1 (not
 * HTTP/2, not known). Returns whether they start a new request there,
 * and its position in *pos (an HTTP/2 read's streams: a position each,
 * from *pos on; a read that opens none has none).
 */
bool dt_order_read(struct dt_order *o, u32 sk, bool serving, int streams,
		   u32 *pos)
{
	struct dt_order_hs *e;
	bool fresh;
	int i;

	if (!serving) {
		/* An answer: the first since the last response, or more. */
		if (!o->ans)
			o->ans = sk;
		else if (o->ans != sk)
			o->many = true;
		o->last = DT_ORDER_ANSWER;
		o->sk = sk;
		return false;
	}
	if (streams >= 0)
		fresh = streams > 0;
	else
		fresh = !(o->last == DT_ORDER_READ && o->sk == sk);
	if (fresh) {
		*pos = o->reads;
		o->reads += streams > 0 ? streams : 1;
		/* HTTP/2's streams answer in any order: none checked. */
		for (i = 0; i < (streams > 0 ? streams : 1) &&
		     i < DT_ORDER_RING; i++)
			o->ring[(*pos + i) % DT_ORDER_RING] =
				streams < 0 ? dt_ring_tag(sk) : 0;
	}
	/* After TLS 1.3 tickets: the request, at a position of its own. */
	e = dt_hs_find(o, sk);
	if (e && e->state == DT_HS_TICKETED)
		e->sk = 0;
	o->last = DT_ORDER_READ;
	o->sk = sk;
	return fresh;
}

/*
 * The head a of the loop's write on sk (tls13: a ServerHello whose
 * flight says TLS 1.3; rec: a TLS record's size) in its handshake, if
 * any: whether it is an interim answer, and *ticket whether it is TLS
 * 1.3's tickets. prev: the loop's last step on sk (DT_ORDER_NONE if its
 * last was elsewhere).
 */
static bool dt_hs_interim(struct dt_order *o, u32 sk, enum dt_answer a,
			  bool tls13, u32 rec, u8 prev, bool *ticket)
{
	struct dt_order_hs *e = dt_hs_find(o, sk);
	bool data = a == DT_ANSWER_TLS_DATA;

	*ticket = false;
	if (a == DT_ANSWER_HELLO) {
		e = dt_hs_get(o, sk);
		e->state = tls13 ? DT_HS_TLS13 : DT_HS_HELLO;
		return true;
	}
	if (a == DT_ANSWER_INTERIM)
		return true;
	if (!data || !e)
		return false;
	/* TLS 1.3's flight goes on in application data, written at once */
	if (e->state == DT_HS_HELLO && prev == DT_ORDER_RESPONSE) {
		e->state = DT_HS_TLS13;
		return true;
	}
	/* its tickets: right after the client's Finished was read */
	if (e->state == DT_HS_TLS13 && prev == DT_ORDER_READ) {
		e->state = DT_HS_TICKETED;
		e->pos = o->reads - 1;
		e->rec = rec;
		*ticket = true;
		return true;
	}
	/* ... and more of them, of one size, right after */
	if (e->state == DT_HS_TICKETED && prev == DT_ORDER_RESPONSE &&
	    rec == e->rec) {
		*ticket = true;
		return true;
	}
	e->sk = 0;
	return false;
}

/*
 * The loop writes on sk, a connection a listener accepted, whose head
 * says a (egress.c's dt_write_answer: tls13, a ServerHello's flight in
 * TLS 1.3; rec, a TLS record's size). A response: checked against the
 * answer read right before it, if any; answered without a call, the
 * oldest requests count as forwarded. An interim answer (a 100
 * Continue, a TLS handshake's writes, TLS 1.3's tickets: a guess) right
 * after the request's read: the calls in order skip that read (its
 * request's next bytes come as a read of its own), and it counts as no
 * response. Returns whether a is TLS 1.3's tickets.
 */
bool dt_order_responded(struct dt_order *o, u32 sk, enum dt_answer a,
			bool tls13, u32 rec)
{
	u8 prev = o->sk == sk ? o->last : DT_ORDER_NONE;
	bool ticket;

	/* HTTP/2's connection frames: no step of the loop's order. */
	if (a == DT_ANSWER_CONTROL)
		return false;
	if (dt_hs_interim(o, sk, a, tls13, rec, prev, &ticket)) {
		if (prev == DT_ORDER_READ && o->reads)
			dt_skip_add(o, o->reads - 1);
	} else if (prev != DT_ORDER_RESPONSE) {
		if (o->last == DT_ORDER_ANSWER && o->sk == o->ans && !o->many)
			dt_order_check(o, sk, o->ans);
		o->ans = 0;
		o->many = false;
		o->resps++;
		/* Answered without a call: the oldest go (not beyond reads). */
		if ((s32)(o->resps - o->fwds) > 0)
			dt_fwds_advance(o, ((s32)(o->resps - o->reads) > 0 ?
					    o->reads : o->resps) - o->fwds);
	}
	o->last = DT_ORDER_RESPONSE;
	o->sk = sk;
	return ticket;
}

/*
 * The loop closes sk: what it read there and has not called yet (the
 * client's last bytes: TLS's close_notify read by a lingering close; a
 * request whose client went before its call) makes no call; the calls
 * in order skip it.
 */
void dt_order_closed(struct dt_order *o, u32 sk)
{
	u16 tag = dt_ring_tag(sk);
	u32 q = o->fwds;

	/* Not called yet, in the ring (the last 32 reads): no call comes. */
	if (o->reads - q > DT_ORDER_RING)
		q = o->reads - DT_ORDER_RING;
	for (; q != o->reads; q++)
		if (o->ring[q % DT_ORDER_RING] == tag)
			dt_skip_add(o, q);
	if (o->last == DT_ORDER_READ && o->sk == sk)
		o->last = DT_ORDER_NONE;
}

/*
 * An HTTP/2 write on sk opening n streams (n <= 0: none): n calls, the
 * oldest requests read and not called, whatever the loop did before
 * (the count is exact: an answer read, or an earlier write on sk, says
 * nothing of it). Its answers check nothing: they come back on sk in
 * any order of its streams. One that opens none (DATA, WINDOW_UPDATE,
 * SETTINGS, PING) is no call: the writer's context decides, as for
 * more of a call (the server that reads it leaves its request on
 * unmarked bytes: a connection frame of nginx's, one call a
 * connection, is its call's).
 */
static enum dt_order_fwd dt_order_streams(struct dt_order *o, u32 sk, int n,
					  u32 *pos, u32 *end)
{
	struct dt_order_at unused;
	bool any = false;

	dt_at_take(o, sk, &unused);
	if (n <= 0)
		return DT_ORDER_NO_CALL;
	for (; n > 0; n--) {
		dt_skip_pass(o);
		if (o->fwds == o->reads)
			break;
		if (!any)
			*pos = o->fwds;
		any = true;
		dt_fwds_advance(o, 1);
	}
	*end = o->fwds;
	return any ? DT_ORDER_IN_ORDER : DT_ORDER_NO_CALL;
}

/*
 * The loop writes a request on sk, a connection it opened, or connects
 * sk; counted: the forward was counted already (the first write after a
 * connect that was one); streams: the HTTP/2 streams the write opens
 * (h2.c: its client's frames on sk, exact), or -1 (not HTTP/2, not
 * known). Returns whether it is a call of a request read here, that
 * request's position in *pos and the next one's in *end: an HTTP/2
 * write carries the calls of [*pos, *end), one a stream, in order.
 */
enum dt_order_fwd dt_order_forward(struct dt_order *o, u32 sk, bool counted,
				   int streams, u32 *pos, u32 *end)
{
	struct dt_order_at unused;
	struct dt_order_hs *e;
	u32 prev = o->sk;
	u8 last = o->last;

	o->last = DT_ORDER_FORWARD;
	o->sk = sk;
	if (streams >= 0)
		return dt_order_streams(o, sk, streams - counted, pos, end);
	if (counted || (last == DT_ORDER_FORWARD && prev == sk))
		return DT_ORDER_NO_CALL;
	if (last == DT_ORDER_ANSWER || last == DT_ORDER_NONE)
		goto none;
	/*
	 * Right after TLS 1.3 tickets: the call of the request read with
	 * the client's Finished, out of order (its read stays skipped).
	 */
	e = last == DT_ORDER_RESPONSE ? dt_hs_find(o, prev) : NULL;
	if (e && e->state == DT_HS_TICKETED) {
		e->sk = 0;
		dt_skip_taken(o, e->pos);
		*pos = e->pos;
		*end = *pos + 1;
		dt_at_set(o, sk, *pos);
		return DT_ORDER_EXACT;
	}
	/* In order: the reads answered by interim answers are skipped. */
	dt_skip_pass(o);
	if (o->fwds == o->reads)
		goto none;
	*pos = o->fwds;
	dt_fwds_advance(o, 1);
	*end = o->fwds;
	dt_at_set(o, sk, *pos);
	return DT_ORDER_IN_ORDER;
none:
	/* No call of a request of ours: its answer checks nothing. */
	dt_at_take(o, sk, &unused);
	return DT_ORDER_NO_CALL;
}
