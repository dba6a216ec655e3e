// SPDX-License-Identifier: GPL-2.0
/*
 * HTTP/2 reads: how many requests (streams) a server's read of an
 * HTTP/2 connection holds. deferred.c gives an event loop's reads a
 * position each, one request a read; an HTTP/2 client sends many at
 * once (h2load -m 16 writes 16 HEADERS frames together), and its
 * WINDOW_UPDATEs and ACKs are reads of no request. frames.c counts the
 * streams a read opens from the frame headers alone; this file gives
 * it the read's bytes, from the socket's receive queue:
 * the read (ingress.c, tcp_rcv_space_adjust, socket owned by the
 * reader, once for each skb the read copies from) has just moved
 * copied_seq over bytes of an skb that is still at the head of the
 * queue (it is freed after). A connection a listener accepted whose
 * first skb is still queued (its first bytes) and starts with the
 * client preface is followed from then on: at each read, its bytes from
 * where the last one stopped are walked, each frame header copied from
 * the skb (skb_copy_bits). Nothing is hooked but the read tracepoint
 * that ingress.c has anyway, so a connection is followed from its
 * first read whenever it came: one opened as probe went to 1 too.
 * A read whose bytes are gone from the queue when it is seen (splice
 * and strparser free them first) or out of step (a header not well
 * formed, more than DT_H2_FRAMES headers) makes the connection unknown
 * (h2_lost): its reads count one request each again, as any read. TLS
 * hides the frames (unknown from the start). A connection whose first
 * bytes were read before probe went to 1 counts one request a read.
 *
 * Bounds: 1 << DT_H2_CONNS_BITS connections, in buckets of DT_H2_WAYS
 * slots by hash of the socket (a connection whose bucket is full takes
 * its first slot: the connection there becomes unknown, counted);
 * DT_H2_SKBS skbs walked for a frame header at most.
 *
 * Locking: a connection's slot under its bucket's lock of dt_h2_locks (a leaf,
 * spin_lock_irqsave: a socket is destroyed in softirq too); the receive
 * queue is walked under the socket's owner (the reader: softirq queues
 * to the backlog meanwhile).
 */
#include "dtracer.h"
#include "frames.h"
#include "hooks.h"
#include "packet.h"

#include <linux/hash.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <net/sock.h>
#include <net/tcp.h>

#define DT_H2_CONNS_BITS 10
#define DT_H2_WAYS 4		/* the slots a connection may take */
#define DT_H2_LOCKS 16
#define DT_H2_SKBS 8		/* the skbs walked for a header at most */

struct dt_h2_conn {
	const struct sock *sk;	/* NULL: a free slot */
	u32 seq;		/* where its next read starts */
	struct dt_h2 st;
};

static struct dt_h2_conn dt_h2_conns[1 << DT_H2_CONNS_BITS];
/* Slot i is guarded by dt_h2_locks[i / DT_H2_WAYS % DT_H2_LOCKS]. */
static spinlock_t dt_h2_locks[DT_H2_LOCKS] = {
	[0 ... DT_H2_LOCKS - 1] = __SPIN_LOCK_UNLOCKED(dt_h2_locks),
};

/* sk's bucket: the DT_H2_WAYS slots it may take. */
static struct dt_h2_conn *dt_h2_bucket(const struct sock *sk)
{
	return &dt_h2_conns[hash_ptr(sk, DT_H2_CONNS_BITS) &
			    ~(DT_H2_WAYS - 1)];
}

/* The lock of slot c's bucket. */
static spinlock_t *dt_h2_lock(const struct dt_h2_conn *c)
{
	return &dt_h2_locks[(c - dt_h2_conns) / DT_H2_WAYS % DT_H2_LOCKS];
}

/* sk's slot in its bucket b, or NULL (unlocked: a hint). */
static struct dt_h2_conn *dt_h2_find(struct dt_h2_conn *b,
				     const struct sock *sk)
{
	int i;

	for (i = 0; i < DT_H2_WAYS; i++)
		if (READ_ONCE(b[i].sk) == sk)
			return &b[i];
	return NULL;
}

static void dt_h2_forget_locked(struct dt_h2_conn *c);

/*
 * Under b's lock: a slot of bucket b for sk, a connection that starts:
 * its own, a free one, else the first (its connection lost).
 */
static struct dt_h2_conn *dt_h2_claim_locked(struct dt_h2_conn *b,
					     const struct sock *sk)
{
	struct dt_h2_conn *c = dt_h2_find(b, sk);
	int i;

	lockdep_assert_held(dt_h2_lock(b));
	for (i = 0; !c && i < DT_H2_WAYS; i++)
		if (!b[i].sk)
			c = &b[i];
	c = c ?: b;
	dt_h2_forget_locked(c);
	WRITE_ONCE(c->sk, sk);
	return c;
}

/* Where a read's bytes are: sk's receive queue, from seq on. */
struct dt_h2_queue {
	const struct sock *sk;
	u32 seq;
};

/*
 * Copies n bytes of q's queue, from q->seq + off on, into dst: 0, or
 * -EFAULT if they are not all there (freed, or not arrived).
 */
static int dt_h2_copy(void *dst, u32 off, u32 n, void *priv)
{
	const struct dt_h2_queue *q = priv;
	u8 *to = dst;
	const struct sk_buff *skb;
	u32 at = q->seq + off;
	int walked = 0;

	skb_queue_walk(&q->sk->sk_receive_queue, skb) {
		u32 from = TCP_SKB_CB(skb)->seq, len;

		if (++walked > DT_H2_SKBS || before(at, from) ||
		    TCP_SKB_CB(skb)->tcp_flags & TCPHDR_SYN)
			return -EFAULT;
		if (!before(at, from + skb->len))
			continue;
		len = min_t(u32, n, from + skb->len - at);
		if (skb_copy_bits(skb, at - from, to, len))
			return -EFAULT;
		to += len;
		at += len;
		n -= len;
		if (!n)
			return 0;
	}
	return -EFAULT;
}

/* Whether sk's first byte (*first, its seq) is still queued. */
static bool dt_h2_first_queued(const struct sock *sk, u32 *first)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct sk_buff *skb = skb_peek(&sk->sk_receive_queue);

	*first = tp->rcv_nxt - (u32)tp->bytes_received;
	return skb && TCP_SKB_CB(skb)->seq == *first;
}

/*
 * Under the slot's lock: c is no connection followed any more (lost if
 * its client preface had been read whole: HTTP/2 no longer counted).
 */
static void dt_h2_forget_locked(struct dt_h2_conn *c)
{
	lockdep_assert_held(dt_h2_lock(c));
	if (c->sk && c->st.preface == DT_H2_PREFACE_LEN)
		dt_stat_inc(DT_STAT_H2_LOST);
	WRITE_ONCE(c->sk, NULL);
}

/*
 * Under the lock of sk's bucket b: the bytes of sk from its slot's seq
 * up to now, a read of a connection followed: how many streams they
 * open, or -1 (not followed, or no more: h2_lost); *control: they were
 * connection frames alone.
 */
static int dt_h2_next_locked(struct dt_h2_conn *b, const struct sock *sk,
			     u32 now, bool *control, struct dt_h2_range *r)
{
	struct dt_h2_conn *c = dt_h2_find(b, sk);
	struct dt_h2_queue q = { .sk = sk };
	int k;

	lockdep_assert_held(dt_h2_lock(b));
	if (!c || c->seq == now)
		return -1;
	q.seq = c->seq;
	r->lo = dt_h2_next_stream(&c->st);
	/* A read that went past the slot's seq unseen is out of step. */
	k = before(c->seq, now) ?
		dt_h2_requests(&c->st, now - c->seq, dt_h2_copy, &q) : -1;
	if (k < 0) {
		dt_h2_forget_locked(c);
		return -1;
	}
	c->seq = now;
	*control = !c->st.streamed;
	r->hi = c->st.last_stream;
	return k;
}

/*
 * sk's first bytes up to now, still queued: how many streams they open
 * if they start with the client preface (sk is followed from then on),
 * or -1.
 */
static int dt_h2_first(struct dt_h2_conn *b, const struct sock *sk,
		       u32 now, struct dt_h2_range *r)
{
	struct dt_h2_queue q = { .sk = sk };
	struct dt_h2 st = { 0 };
	struct dt_h2_conn *c;
	unsigned long irq;
	int k;

	if (!dt_h2_first_queued(sk, &q.seq) || !before(q.seq, now))
		return -1;
	k = dt_h2_requests(&st, now - q.seq, dt_h2_copy, &q);
	if (k < 0)
		return -1;
	spin_lock_irqsave(dt_h2_lock(b), irq);
	c = dt_h2_claim_locked(b, sk);
	c->st = st;
	c->seq = now;
	spin_unlock_irqrestore(dt_h2_lock(b), irq);
	r->lo = 1;
	r->hi = st.last_stream;
	return k;
}

/*
 * The reader of sk (a connection a listener accepted; the socket owned
 * by it) has moved copied_seq to now: how many streams its HTTP/2
 * client opened in the bytes read since the last call (a read that
 * copies from several skbs comes here after each), or -1 (not HTTP/2,
 * or not known: one request, as any read); *control: those bytes were
 * connection frames alone (SETTINGS, PING, WINDOW_UPDATE: frames.h);
 * *r: the ids the streams they open are among (if k > 0).
 */
int dt_h2_read(const struct sock *sk, u32 now, bool *control,
	       struct dt_h2_range *r)
{
	struct dt_h2_conn *b = dt_h2_bucket(sk);
	unsigned long irq;
	int k;

	*control = false;
	r->lo = 0;
	r->hi = 0;
	if (!sock_owned_by_user_nocheck(sk))
		return -1;
	if (!dt_h2_find(b, sk)) {
		k = dt_h2_first(b, sk, now, r);
	} else {
		spin_lock_irqsave(dt_h2_lock(b), irq);
		k = dt_h2_next_locked(b, sk, now, control, r);
		spin_unlock_irqrestore(dt_h2_lock(b), irq);
	}
	if (k > 0)
		dt_stat_add(DT_STAT_H2_STREAMS, k);
	return k;
}

static int dt_h2_msg_copy(void *dst, u32 off, u32 n, void *priv)
{
	return dt_msg_user_copy_at(priv, off, dst, n) == n ? 0 : -EFAULT;
}

/*
 * current writes msg on sk, a connection this host opened (locked by
 * the caller): how many streams the write opens, if sk's first write
 * started with the client preface (a proxy's HTTP/2 upstream: nghttpx
 * multiplexes its clients' requests on it), or -1 (not HTTP/2, or not
 * known any more: a write seen in part, a sendfile's, out of step).
 * The write is taken whole: one that sends less (non-blocking, the
 * buffer full) leaves the next one out of step, and the connection is
 * lost (h2_lost).
 */
int dt_h2_write(const struct sock *sk, const struct msghdr *msg)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	size_t n = iov_iter_count(&msg->msg_iter);
	struct dt_h2_conn *b = dt_h2_bucket(sk), *c;
	u32 seq = READ_ONCE(tp->write_seq);
	struct dt_h2 st = { 0 };
	unsigned long irq;
	bool first;
	int k;

	if (!n || n > U32_MAX)
		return -1;
	/* Nothing written on sk yet (unlocked: a hint; the preface checks). */
	first = !READ_ONCE(tp->bytes_sent) && seq == READ_ONCE(tp->snd_una);
	if (!first && !dt_h2_find(b, sk))
		return -1;
	/* A slot only for a client preface. */
	k = first ? dt_h2_requests(&st, n, dt_h2_msg_copy, (void *)msg) : 0;
	if (k < 0)
		return -1;
	spin_lock_irqsave(dt_h2_lock(b), irq);
	c = first ? dt_h2_claim_locked(b, sk) : dt_h2_find(b, sk);
	if (first) {
		c->st = st;
		c->seq = seq + n;
	} else if (!c) {
		k = -1;
	} else if (c->seq != seq) {
		dt_h2_forget_locked(c);
		k = -1;
	} else {
		k = dt_h2_requests(&c->st, n, dt_h2_msg_copy, (void *)msg);
		if (k < 0)
			dt_h2_forget_locked(c);
		else
			c->seq += n;
	}
	spin_unlock_irqrestore(dt_h2_lock(b), irq);
	if (k > 0)
		dt_stat_add(DT_STAT_H2_CALLS, k);
	return k;
}

/*
 * A server's write msg (sendmsg's) on a connection whose traced requests
 * opened the streams of the n asks: what its frames, whole, answer
 * (frames.h: enum dt_h2_answer, dt_h2_answers, which fills the asks in).
 * Any context: the copies do not fault.
 */
int dt_h2_answer(const struct msghdr *msg, struct dt_h2_ask *ask,
		 unsigned int n)
{
	size_t len = iov_iter_count(&msg->msg_iter);

	if (!len || len > U32_MAX || !n)
		return DT_H2_ANSWER_UNKNOWN;
	return dt_h2_answers(len, ask, n, dt_h2_msg_copy, (void *)msg);
}

/* sk goes: its slot, if it has one, is free (sockets.c's destroy). */
void dt_h2_destroyed(const struct sock *sk)
{
	struct dt_h2_conn *b = dt_h2_bucket(sk), *c;
	unsigned long irq;

	if (!dt_h2_find(b, sk))
		return;
	spin_lock_irqsave(dt_h2_lock(b), irq);
	c = dt_h2_find(b, sk);
	if (c)
		WRITE_ONCE(c->sk, NULL);
	spin_unlock_irqrestore(dt_h2_lock(b), irq);
}

/*
 * No connection followed: a slot left from an earlier arming goes.
 * Process context, before the read tracepoint is hooked.
 */
void dt_h2_arm(void)
{
	struct dt_h2_conn *c;
	unsigned long irq;

	/* destroy may run meanwhile. */
	for (c = dt_h2_conns; c < dt_h2_conns + ARRAY_SIZE(dt_h2_conns); c++) {
		spin_lock_irqsave(dt_h2_lock(c), irq);
		WRITE_ONCE(c->sk, NULL);
		spin_unlock_irqrestore(dt_h2_lock(c), irq);
	}
}
