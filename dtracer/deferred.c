// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred upstream calls: an event loop reads requests and makes each
 * one's upstream call later (the next turn of its loop, or when a
 * kept-alive upstream connection is free), in the order it read them.
 * When the traced request's call is written, the thread has read other
 * requests since, so the context it is in (the last request it read) is
 * the wrong one; the upstream call it writes is the oldest request it
 * read and has not forwarded yet.
 *
 * Per thread (a slot by hash of its id, written by that thread only):
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
 *   request whose answer came (its context, resumed, if traced);
 * - more of the same request (the same socket, nothing done between) is
 *   no new forward;
 * - else it is the oldest request read and not forwarded (a loop's
 *   queue), if any.
 * More responses than forwards say that requests were answered without
 * an upstream call (a static file beside proxied ones, an error, a
 * store that asks nobody): the oldest ones count as forwarded then, so
 * the queue never keeps requests that are gone.
 * An interim answer (interim.h, egress.c: a 100 Continue, a TLS
 * handshake's writes, TLS 1.3's tickets) written right after a read is
 * no response: that read's request goes on in a read of its own (the
 * body, the request after the handshake), which has a position too,
 * and the forwards in order skip the first one (a window of 64 reads
 * from fwds, a bit each; a skipped read counts as answered when they
 * pass it). So does a read right before its connection is closed (a
 * TLS close_notify read by a lingering close). HTTP/2's connection
 * frames (SETTINGS, PING, WINDOW_UPDATE: interim.h) are no step at all:
 * the request they come with is read, its call may follow. Per
 * connection in a TLS handshake (4 per thread, the oldest taken over):
 * a ServerHello written, a TLS 1.3 flight (its next record, or
 * application data written right after it), then the tickets:
 * application data written right after the read that follows the
 * flight (the client's Finished), and records of that size right after
 * them (a guess: they are encrypted). A forward right after the
 * tickets is the request read with the Finished, out of order (its read
 * stays skipped for the forwards in order).
 * A traced request read at position p is kept in dt_pending (its
 * context, the reader, p) until the reader's forward at p takes it, its
 * response is written, its socket goes, or after DT_PENDING_AGE; the
 * forward at p is then the context's request (reason deferred, a guess
 * named as such: the kernel sees the order, not the program's queue).
 * A forward at another position is an untraced request's: unmarked.
 * A process seen to hand requests between its threads (handoff.c: a
 * pool, or Go's scheduler, where the thread that writes a call is seldom
 * the one that read its request) is left to the hand-off's guess: the
 * order of one thread's reads and calls says nothing there.
 *
 * Measured first from system call traces of a Node.js middle tier
 * (http.Agent with 2 sockets, kept alive or not, under ab -k -c 32):
 * every one of 3,000 and 2,000 upstream calls was the one this rule
 * names. It assumes each request read makes at most one upstream call
 * before the next request's, in the order read; docs/limitations.md
 * says where it guesses wrong.
 *
 * Locking: a thread's slot is its own (two threads hashing to one slot
 * take it from each other: the counts start again, numbered by epoch,
 * and the older entries of dt_pending are dropped). dt_pending is
 * guarded by dt_pending_lock (spin_lock_irqsave, a leaf: nothing is
 * taken under it; contexts put under it are freed by kfree_rcu()).
 * dt_npending lets the forwards skip the lock while nothing is kept.
 */
#include "dtracer.h"

#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#define DT_LOOPS_BITS 11

enum dt_loop_op {
	DT_LOOP_NONE,
	DT_LOOP_READ,		/* read a request */
	DT_LOOP_ANSWER,		/* read on a connection it opened */
	DT_LOOP_RESPONSE,	/* wrote on a connection it accepted */
	DT_LOOP_FORWARD,	/* wrote a request upstream, or connected */
};

/* A TLS handshake this thread answers (interim.h): where it stands. */
enum dt_hs_state {
	DT_HS_HELLO = 1,	/* ServerHello written */
	DT_HS_TLS13,		/* ... a TLS 1.3 flight: tickets next */
	DT_HS_TICKETED,		/* ... tickets written after a read */
};

struct dt_loop_hs {
	u32 sk;			/* hash of its socket; 0: free */
	u32 pos;		/* the read its tickets followed */
	u16 rec;		/* ... the first ticket's record size */
	u8 state;		/* enum dt_hs_state */
};

#define DT_LOOP_HS 4

struct dt_loop {
	pid_t tid;
	u32 epoch;		/* numbers the slot's owners */
	u32 reads, fwds, resps;
	u32 sk;			/* hash of the last op's socket */
	u8 last;
	/*
	 * The reads from fwds on (bit i: fwds + i) that the calls in order
	 * skip, and those of them called out of order.
	 */
	u64 skipped, taken;
	struct dt_loop_hs hs[DT_LOOP_HS];
};

static struct dt_loop dt_loops[1 << DT_LOOPS_BITS];
static atomic_t dt_loop_epochs = ATOMIC_INIT(0);

#define DT_PENDING_MAX 64
#define DT_PENDING_AGE (10 * HZ)

static struct dt_pending {
	struct dt_ctx *ctx;	/* a reference; NULL: a free entry */
	pid_t tid;
	u32 epoch, pos;
	unsigned long at;
} dt_pending[DT_PENDING_MAX];
static DEFINE_SPINLOCK(dt_pending_lock);
static atomic_t dt_npending = ATOMIC_INIT(0);

/* current's slot, taken over if another thread had it. */
static struct dt_loop *dt_loop_mine(void)
{
	pid_t tid = current->pid;
	struct dt_loop *l = &dt_loops[hash_32(tid, DT_LOOPS_BITS)];

	if (READ_ONCE(l->tid) != tid) {
		WRITE_ONCE(l->tid, tid);
		WRITE_ONCE(l->epoch, atomic_inc_return(&dt_loop_epochs));
		l->reads = 0;
		l->fwds = 0;
		l->resps = 0;
		l->last = DT_LOOP_NONE;
		l->skipped = 0;
		l->taken = 0;
		memset(l->hs, 0, sizeof(l->hs));
	}
	return l;
}

/* Whether pos is in the window of reads from fwds on, at bit *bit. */
static bool dt_skip_bit(const struct dt_loop *l, u32 pos, unsigned int *bit)
{
	u32 d = pos - l->fwds;

	*bit = d;
	return (s32)d >= 0 && d < 64;
}

/* The calls in order skip the read at pos (64 reads ahead at most). */
static void dt_skip_add(struct dt_loop *l, u32 pos)
{
	unsigned int b;

	if (dt_skip_bit(l, pos, &b))
		l->skipped |= 1ull << b;
}

/* The read at pos was called out of order: skipped, not answered. */
static void dt_skip_taken(struct dt_loop *l, u32 pos)
{
	unsigned int b;

	if (dt_skip_bit(l, pos, &b)) {
		l->skipped |= 1ull << b;
		l->taken |= 1ull << b;
	}
}

/* fwds moves on by n (the window with it). */
static void dt_fwds_advance(struct dt_loop *l, u32 n)
{
	l->fwds += n;
	l->skipped = n < 64 ? l->skipped >> n : 0;
	l->taken = n < 64 ? l->taken >> n : 0;
}

/*
 * The skipped reads at fwds go, each one not called out of order counted
 * as answered (its request's answer comes after a read of its own, which
 * has a position too).
 */
static void dt_skip_pass(struct dt_loop *l)
{
	while (l->fwds != l->reads && (l->skipped & 1)) {
		if (!(l->taken & 1))
			l->resps++;
		dt_fwds_advance(l, 1);
	}
}

static struct dt_loop_hs *dt_hs_find(struct dt_loop *l, u32 h)
{
	int i;

	for (i = 0; i < DT_LOOP_HS; i++)
		if (l->hs[i].sk == h)
			return &l->hs[i];
	return NULL;
}

/* A handshake on h: its entry, a free one, or the first one's. */
static struct dt_loop_hs *dt_hs_get(struct dt_loop *l, u32 h)
{
	struct dt_loop_hs *e = dt_hs_find(l, h);

	if (!e)
		e = dt_hs_find(l, 0);
	if (!e)
		e = &l->hs[0];
	memset(e, 0, sizeof(*e));
	e->sk = h;
	return e;
}

static u32 dt_loop_hash(const struct sock *sk)
{
	return hash_ptr(sk, 32);
}

/*
 * current read bytes on sk; serving: sk is a connection a listener
 * accepted; streams: the HTTP/2 streams they open (h2.c), or -1 (not
 * HTTP/2, not known). Returns whether they start a new request there,
 * and its position in *pos (an HTTP/2 read's streams: a position each,
 * from *pos on; a read that opens none has none).
 */
bool dt_loop_read(const struct sock *sk, bool serving, int streams, u32 *pos)
{
	struct dt_loop *l = dt_loop_mine();
	u32 h = dt_loop_hash(sk);
	struct dt_loop_hs *e;
	bool fresh;

	if (!serving) {
		l->last = DT_LOOP_ANSWER;
		return false;
	}
	if (streams >= 0)
		fresh = streams > 0;
	else
		fresh = !(l->last == DT_LOOP_READ && l->sk == h);
	if (fresh) {
		*pos = l->reads;
		l->reads += streams > 0 ? streams : 1;
	}
	/* After TLS 1.3 tickets: the request, at a position of its own. */
	e = dt_hs_find(l, h);
	if (e && e->state == DT_HS_TICKETED)
		e->sk = 0;
	l->last = DT_LOOP_READ;
	l->sk = h;
	return fresh;
}

/*
 * Under egress.c's dt_loop_responded(): the head a of current's write on
 * h (tls13: a ServerHello whose flight says TLS 1.3; rec: a TLS record's
 * size) in the handshake e, if any: whether it is an interim answer,
 * and *ticket whether it is TLS 1.3's tickets. prev: current's last step
 * on h (DT_LOOP_NONE if its last was elsewhere).
 */
static bool dt_hs_interim(struct dt_loop *l, u32 h, enum dt_answer a,
			  bool tls13, u32 rec, u8 prev, bool *ticket)
{
	struct dt_loop_hs *e = dt_hs_find(l, h);
	bool data = a == DT_ANSWER_TLS_DATA;

	*ticket = false;
	if (a == DT_ANSWER_HELLO) {
		e = dt_hs_get(l, h);
		e->state = tls13 ? DT_HS_TLS13 : DT_HS_HELLO;
		return true;
	}
	if (a == DT_ANSWER_INTERIM)
		return true;
	if (!data || !e)
		return false;
	/* TLS 1.3's flight goes on in application data, written at once */
	if (e->state == DT_HS_HELLO && prev == DT_LOOP_RESPONSE) {
		e->state = DT_HS_TLS13;
		return true;
	}
	/* its tickets: right after the client's Finished was read */
	if (e->state == DT_HS_TLS13 && prev == DT_LOOP_READ) {
		e->state = DT_HS_TICKETED;
		e->pos = l->reads - 1;
		e->rec = rec;
		*ticket = true;
		return true;
	}
	/* ... and more of them, of one size, right after */
	if (e->state == DT_HS_TICKETED && prev == DT_LOOP_RESPONSE &&
	    rec == e->rec) {
		*ticket = true;
		return true;
	}
	e->sk = 0;
	return false;
}

/*
 * current writes on sk, a connection a listener accepted, whose head
 * says a (egress.c's dt_write_answer: tls13, a ServerHello's flight in
 * TLS 1.3; rec, a TLS record's size). A response: answered without a
 * call, the oldest requests count as forwarded. An interim answer (a
 * 100 Continue, a TLS handshake's writes, TLS 1.3's tickets: a guess)
 * right after the request's read: the calls in order skip that read
 * (its request's next bytes come as a read of its own), and it counts
 * as no response. Returns whether a is TLS 1.3's tickets.
 */
bool dt_loop_responded(const struct sock *sk, enum dt_answer a, bool tls13,
		       u32 rec)
{
	struct dt_loop *l = dt_loop_mine();
	u32 h = dt_loop_hash(sk);
	u8 prev = l->sk == h ? l->last : DT_LOOP_NONE;
	bool ticket;

	/* HTTP/2's connection frames: no step of the loop's order. */
	if (a == DT_ANSWER_CONTROL)
		return false;
	if (dt_hs_interim(l, h, a, tls13, rec, prev, &ticket)) {
		if (prev == DT_LOOP_READ && l->reads)
			dt_skip_add(l, l->reads - 1);
	} else if (prev != DT_LOOP_RESPONSE) {
		l->resps++;
		/* Answered without a call: the oldest go (not beyond reads). */
		if ((s32)(l->resps - l->fwds) > 0)
			dt_fwds_advance(l, ((s32)(l->resps - l->reads) > 0 ?
					    l->reads : l->resps) - l->fwds);
	}
	l->last = DT_LOOP_RESPONSE;
	l->sk = h;
	return ticket;
}

/*
 * current closes sk right after reading it: what it read there (the
 * client's last bytes: TLS's close_notify read by a lingering close)
 * makes no call; the calls in order skip it. Only current's own slot.
 */
void dt_loop_closed(const struct sock *sk)
{
	struct dt_loop *l = &dt_loops[hash_32(current->pid, DT_LOOPS_BITS)];

	if (READ_ONCE(l->tid) != current->pid || l->last != DT_LOOP_READ ||
	    l->sk != dt_loop_hash(sk) || !l->reads)
		return;
	dt_skip_add(l, l->reads - 1);
	l->last = DT_LOOP_NONE;
}

/* Under dt_pending_lock: e goes, its reference with it. */
static void dt_pending_drop_locked(struct dt_pending *e)
{
	lockdep_assert_held(&dt_pending_lock);
	dt_ctx_put(e->ctx);
	e->ctx = NULL;
	atomic_dec(&dt_npending);
}

/* Under dt_pending_lock: whether e can go (its request or reader gone). */
static bool dt_pending_stale_locked(const struct dt_pending *e)
{
	const struct dt_loop *l = &dt_loops[hash_32(e->tid, DT_LOOPS_BITS)];

	lockdep_assert_held(&dt_pending_lock);
	return READ_ONCE(e->ctx->dead) ||
	       time_after(jiffies, e->at + DT_PENDING_AGE) ||
	       READ_ONCE(l->tid) != e->tid || READ_ONCE(l->epoch) != e->epoch;
}

/*
 * current read c's request at pos: c waits for current's forward at pos.
 * A full table drops the stalest entry's claim first, then c (counted):
 * c's call then goes by the thread's context, as without this file.
 */
void dt_loop_queue(u32 pos, struct dt_ctx *c)
{
	struct dt_loop *l = dt_loop_mine();
	struct dt_pending *e, *free = NULL;
	unsigned long irq;

	if (dt_in_pool() || dt_go_thread())
		return;
	spin_lock_irqsave(&dt_pending_lock, irq);
	for (e = dt_pending; e < dt_pending + DT_PENDING_MAX; e++) {
		if (e->ctx && dt_pending_stale_locked(e))
			dt_pending_drop_locked(e);
		if (!e->ctx && !free)
			free = e;
	}
	if (free) {
		free->ctx = dt_ctx_get(c);
		free->tid = l->tid;
		free->epoch = l->epoch;
		free->pos = pos;
		free->at = jiffies;
		atomic_inc(&dt_npending);
	} else {
		dt_stat_inc(DT_STAT_DROP_DEFERRED);
	}
	spin_unlock_irqrestore(&dt_pending_lock, irq);
}

/*
 * Takes the request current read at pos out of dt_pending: its context
 * (the entry's reference, for the caller to put), or NULL if it was
 * untraced. Unless exact (a call out of order), entries of current's
 * reads before pos were answered without a forward, or forwarded by
 * another rule, or skipped: they go too.
 */
static struct dt_ctx *dt_pending_take(const struct dt_loop *l, u32 pos,
				      bool exact)
{
	struct dt_ctx *c = NULL;
	struct dt_pending *e;
	unsigned long irq;

	if (!atomic_read(&dt_npending))
		return NULL;
	spin_lock_irqsave(&dt_pending_lock, irq);
	for (e = dt_pending; e < dt_pending + DT_PENDING_MAX; e++) {
		if (!e->ctx || e->tid != l->tid || e->epoch != l->epoch)
			continue;
		if (e->pos == pos && !c && !READ_ONCE(e->ctx->dead)) {
			c = e->ctx;
			e->ctx = NULL;
			atomic_dec(&dt_npending);
		} else if (!exact && (s32)(e->pos - pos) <= 0) {
			dt_pending_drop_locked(e);
		}
	}
	spin_unlock_irqrestore(&dt_pending_lock, irq);
	return c;
}

/*
 * current writes a request on sk, a connection this host opened, or
 * connects sk; counted: the forward was counted already (the first
 * write after a connect that was one). Returns DT_FWD_NONE if this is
 * no forward (the context current is in decides), else whose request
 * it is: DT_FWD_TRACED with *c (a reference, for the caller to put) or
 * DT_FWD_UNTRACED.
 */
enum dt_fwd dt_loop_forward(const struct sock *sk, bool counted,
			    struct dt_ctx **c)
{
	struct dt_loop *l = dt_loop_mine();
	u32 h = dt_loop_hash(sk), pos, prev = l->sk;
	struct dt_loop_hs *e;
	u8 last = l->last;

	*c = NULL;
	l->last = DT_LOOP_FORWARD;
	if (counted || (last == DT_LOOP_FORWARD && l->sk == h)) {
		l->sk = h;
		return DT_FWD_NONE;
	}
	l->sk = h;
	if (last == DT_LOOP_ANSWER || last == DT_LOOP_NONE)
		return DT_FWD_NONE;
	/*
	 * Right after TLS 1.3 tickets: the call of the request read with
	 * the client's Finished, out of order (its read stays skipped).
	 */
	e = last == DT_LOOP_RESPONSE ? dt_hs_find(l, prev) : NULL;
	if (e && e->state == DT_HS_TICKETED) {
		e->sk = 0;
		dt_skip_taken(l, e->pos);
		if (dt_in_pool() || dt_go_thread())
			return DT_FWD_NONE;
		*c = dt_pending_take(l, e->pos, true);
		return *c ? DT_FWD_TRACED : DT_FWD_UNTRACED;
	}
	/* In order: the reads answered by interim answers are skipped. */
	dt_skip_pass(l);
	if (l->fwds == l->reads)
		return DT_FWD_NONE;
	pos = l->fwds;
	dt_fwds_advance(l, 1);
	/* Counted, not judged: the hand-off's or goroutines' rule. */
	if (dt_in_pool() || dt_go_thread())
		return DT_FWD_NONE;
	*c = dt_pending_take(l, pos, false);
	return *c ? DT_FWD_TRACED : DT_FWD_UNTRACED;
}

/* c's response is being written: it makes no upstream call any more. */
void dt_loop_answered(const struct dt_ctx *c)
{
	struct dt_pending *e;
	unsigned long irq;

	if (!atomic_read(&dt_npending))
		return;
	spin_lock_irqsave(&dt_pending_lock, irq);
	for (e = dt_pending; e < dt_pending + DT_PENDING_MAX; e++)
		if (e->ctx == c)
			dt_pending_drop_locked(e);
	spin_unlock_irqrestore(&dt_pending_lock, irq);
}

/* Disarmed (no hook runs any more): every entry goes, counts restart. */
void dt_loop_reset(void)
{
	struct dt_pending *e;
	unsigned long irq;

	spin_lock_irqsave(&dt_pending_lock, irq);
	for (e = dt_pending; e < dt_pending + DT_PENDING_MAX; e++)
		if (e->ctx)
			dt_pending_drop_locked(e);
	spin_unlock_irqrestore(&dt_pending_lock, irq);
	memset(dt_loops, 0, sizeof(dt_loops));
}
