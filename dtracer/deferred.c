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
 * Per thread (a slot by hash of its id, written by that thread only),
 * its order (order.c): the requests it read on connections a listener
 * accepted, the upstream calls it wrote (requests on connections the
 * host opened, and connects), the responses, each call given the
 * position of the oldest request read and not called yet, interim
 * answers and TLS handshakes skipped, the reads of a connection closed
 * before their call skipped, and the count checked against each
 * response written right after its call's answer and put right when
 * that says it is off. A read on a connection whose sending side its
 * server shut counts for nothing (it could not be answered). After
 * DT_LOOP_IDLE without a request read, the requests read and not
 * called are waited for no more (their clients left while they waited
 * for an upstream connection; HTTP/2 calls, counted exactly, have no
 * check to put the count right).
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
#include "order.h"

#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <net/sock.h>

#define DT_LOOPS_BITS 11

struct dt_loop {
	pid_t tid;
	u32 epoch;		/* numbers the slot's owners */
	unsigned long read_at;	/* its last read of a request (jiffies) */
	struct dt_order o;
};

static struct dt_loop dt_loops[1 << DT_LOOPS_BITS];
static atomic_t dt_loop_epochs = ATOMIC_INIT(0);

/* A loop that read no request for this long waits for no call. */
#define DT_LOOP_IDLE (2 * HZ)

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
		dt_order_reset(&l->o);
	}
	return l;
}

/* A socket in the order: a hash, never 0 (a free entry). */
static u32 dt_loop_hash(const struct sock *sk)
{
	return hash_ptr(sk, 32) ?: 1;
}

/*
 * current read bytes on sk; serving: sk is a connection a listener
 * accepted; streams: the HTTP/2 streams they open (h2.c), or -1 (not
 * HTTP/2, not known). Returns whether they start a new request there,
 * and its position in *pos (order.c); a read on a connection whose
 * sending side current's process shut is none. A loop that read no
 * request for DT_LOOP_IDLE before this one waits for no call of the
 * requests it read before (order.c's dt_order_idle, counted as a
 * resync).
 */
bool dt_loop_read(const struct sock *sk, bool serving, int streams, u32 *pos)
{
	struct dt_loop *l;

	/*
	 * Read after the server shut its sending side (php-fpm drains a
	 * FastCGI connection after its answer, nginx's lingering close):
	 * no request, it could not be answered.
	 */
	if (serving && (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN))
		return false;
	l = dt_loop_mine();
	if (serving) {
		/* Idle a while: the requests not called are no more waited for. */
		if (l->o.fwds != l->o.reads &&
		    time_after(jiffies, l->read_at + DT_LOOP_IDLE)) {
			dt_order_idle(&l->o);
			dt_stat_inc(DT_STAT_DEFERRED_RESYNCS);
		}
		l->read_at = jiffies;
	}
	return dt_order_read(&l->o, dt_loop_hash(sk), serving, streams, pos);
}

/*
 * current writes on sk, a connection a listener accepted, whose head
 * says a (egress.c's dt_write_answer: tls13, a ServerHello's flight in
 * TLS 1.3; rec, a TLS record's size): a response, or an interim answer
 * (order.c). Returns whether a is TLS 1.3's tickets.
 */
bool dt_loop_responded(const struct sock *sk, enum dt_answer a, bool tls13,
		       u32 rec)
{
	struct dt_order *o = &dt_loop_mine()->o;
	u32 resyncs = o->resyncs;
	bool ticket = dt_order_responded(o, dt_loop_hash(sk), a, tls13, rec);

	if (o->resyncs != resyncs)
		dt_stat_inc(DT_STAT_DEFERRED_RESYNCS);
	return ticket;
}

/*
 * current closes sk right after reading it: the calls in order skip that
 * read (order.c). Only current's own slot.
 */
void dt_loop_closed(const struct sock *sk)
{
	struct dt_loop *l = &dt_loops[hash_32(current->pid, DT_LOOPS_BITS)];

	if (READ_ONCE(l->tid) == current->pid)
		dt_order_closed(&l->o, dt_loop_hash(sk));
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
 * untraced; of an HTTP/2 write's calls [pos, end), the first traced
 * one (a second one in the same write goes untraced). Unless exact (a
 * call out of order), entries of current's reads before end were
 * answered without a forward, or forwarded by another rule, or
 * skipped: they go too.
 */
static struct dt_ctx *dt_pending_take(const struct dt_loop *l, u32 pos,
				      u32 end, bool exact)
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
		if (e->pos - pos < end - pos && !c &&
		    !READ_ONCE(e->ctx->dead)) {
			c = e->ctx;
			e->ctx = NULL;
			atomic_dec(&dt_npending);
		} else if (!exact && (s32)(e->pos - end) < 0) {
			dt_pending_drop_locked(e);
		}
	}
	spin_unlock_irqrestore(&dt_pending_lock, irq);
	return c;
}

/*
 * unix.c: current, a loop, writes a call over a UNIX socket (not
 * counted in its order) while back in a request already answered (it
 * read that request's answer): the call is of the oldest traced
 * request it read that no call took and that is not answered yet, if
 * any (its context: the entry's reference, for the caller to put).
 * Entries of answered requests go on the way.
 */
struct dt_ctx *dt_loop_take_oldest(void)
{
	const struct dt_loop *l =
		&dt_loops[hash_32(current->pid, DT_LOOPS_BITS)];
	struct dt_pending *e, *best = NULL;
	struct dt_ctx *c = NULL;
	unsigned long irq;

	if (!atomic_read(&dt_npending) || READ_ONCE(l->tid) != current->pid)
		return NULL;
	spin_lock_irqsave(&dt_pending_lock, irq);
	for (e = dt_pending; e < dt_pending + DT_PENDING_MAX; e++) {
		if (!e->ctx || e->tid != l->tid || e->epoch != l->epoch)
			continue;
		if (READ_ONCE(e->ctx->answered) || dt_pending_stale_locked(e))
			dt_pending_drop_locked(e);
		else if (!best || (s32)(e->pos - best->pos) < 0)
			best = e;
	}
	if (best) {
		c = best->ctx;
		best->ctx = NULL;
		atomic_dec(&dt_npending);
	}
	spin_unlock_irqrestore(&dt_pending_lock, irq);
	return c;
}

/*
 * current writes a request on sk, a connection this host opened, or
 * connects sk; counted: the forward was counted already (the first
 * write after a connect that was one); streams: the HTTP/2 streams the
 * write opens (h2.c), or -1 (not HTTP/2, not known). Returns
 * DT_FWD_NONE if this is no forward (the context current is in
 * decides), else whose request it is: DT_FWD_TRACED with *c (a
 * reference, for the caller to put) or DT_FWD_UNTRACED.
 */
enum dt_fwd dt_loop_forward(const struct sock *sk, bool counted,
			    int streams, struct dt_ctx **c)
{
	struct dt_loop *l = dt_loop_mine();
	enum dt_order_fwd f;
	u32 pos, end;

	*c = NULL;
	f = dt_order_forward(&l->o, dt_loop_hash(sk), counted, streams, &pos,
			     &end);
	/* Counted, not judged: the hand-off's or goroutines' rule. */
	if (dt_in_pool() || dt_go_thread())
		return DT_FWD_NONE;
	if (f == DT_ORDER_NO_CALL)
		return DT_FWD_NONE;
	*c = dt_pending_take(l, pos, end, f == DT_ORDER_EXACT);
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
