// SPDX-License-Identifier: GPL-2.0
/*
 * HTTP/2 reads: how many requests (streams) a server's read of an
 * HTTP/2 connection holds. deferred.c gives an event loop's reads a
 * position each, one request a read; an HTTP/2 client sends many at
 * once (h2load -m 16 writes 16 HEADERS frames together), and its
 * WINDOW_UPDATEs and ACKs are reads of no request. frames.c counts the
 * streams a read opens from the frame headers alone; this file gives
 * it the read's bytes:
 * 1. tcp_recvmsg's entry (a kprobe): a read on a connection a listener
 *    accepted, which is followed here or has had nothing read yet,
 *    notes the reader's buffer (its first segment) and copied_seq in the
 *    reader's slot (by hash of its thread id);
 * 2. the read itself (ingress.c, tcp_rcv_space_adjust, socket locked,
 *    once for each skb the read copies from): it took the buffer's
 *    bytes from the last such call (or the read's start) up to now. A
 *    connection whose
 *    first read starts with the client preface is followed from then
 *    on; each frame header is copied from the reader's memory, which the
 *    read has just written (copy_from_user_nofault: a page gone makes
 *    the connection unknown).
 * A read not seen whole (past its buffer's first segment, by splice or
 * strparser, or one that skipped the entry's note) or out of step (a
 * header not well formed, more than DT_H2_FRAMES headers) makes the
 * connection unknown (h2_lost): its reads count one request each again,
 * as any read. TLS hides the frames (unknown from the start).
 *
 * The kprobe costs every read of an accepted connection (about 3% of
 * nginx serving a small file), so it is registered only once HTTP/2 in
 * clear shows up: a segment whose payload starts with the client
 * preface, seen at LOCAL_IN (ingress.c, dt_h2_spot()), has a work item
 * register it; it stays until probe goes to 0. A connection whose first
 * read came before counts one request a read, as any read. A host that
 * serves no HTTP/2 in clear has no kprobe on tcp_recvmsg.
 *
 * Bounds: 1 << DT_H2_CONNS_BITS connections, in buckets of DT_H2_WAYS
 * slots by hash of the socket (a connection whose bucket is full takes
 * its first slot: the connection there becomes unknown, counted), a
 * slot per thread for the note.
 *
 * Locking: a connection's slot under its bucket's lock of dt_h2_locks (a leaf,
 * spin_lock_irqsave: a socket is destroyed in softirq too); the
 * reader's slot is written by its thread only (two threads hashing to
 * one slot: the later note wins, the other's read is unknown).
 */
#include "dtracer.h"
#include "frames.h"
#include "hooks.h"
#include "packet.h"

#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <net/tcp.h>

#define DT_H2_CONNS_BITS 10
#define DT_H2_WAYS 4		/* the slots a connection may take */
#define DT_H2_LOCKS 16
#define DT_H2_READERS_BITS 10

struct dt_h2_conn {
	const struct sock *sk;	/* NULL: a free slot */
	u32 seq;		/* where its next read starts */
	struct dt_h2 st;
};

struct dt_h2_reader {
	pid_t tid;
	const struct sock *sk;	/* NULL: no read noted */
	const u8 __user *buf;
	u32 room;		/* bytes in the buffer's first segment */
	u32 start;		/* copied_seq at the read's start */
	u32 seq;		/* ... where its bytes not counted yet start */
};

static struct dt_h2_conn dt_h2_conns[1 << DT_H2_CONNS_BITS];
/* Slot i is guarded by dt_h2_locks[i / DT_H2_WAYS % DT_H2_LOCKS]. */
static spinlock_t dt_h2_locks[DT_H2_LOCKS] = {
	[0 ... DT_H2_LOCKS - 1] = __SPIN_LOCK_UNLOCKED(dt_h2_locks),
};

static struct dt_h2_reader dt_h2_readers[1 << DT_H2_READERS_BITS];

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

/* Nothing of tp's bytes read yet (unlocked: a hint; the read checks). */
static bool dt_h2_unread(const struct tcp_sock *tp)
{
	return READ_ONCE(tp->copied_seq) + (u32)READ_ONCE(tp->bytes_received) ==
	       READ_ONCE(tp->rcv_nxt);
}

/* tcp_recvmsg(sk, msg, ...): a server's read of sk starts. */
static int dt_h2_recv_entry(struct kprobe *kp, struct pt_regs *regs)
{
	struct sock *sk = (void *)regs_get_kernel_argument(regs, 0);
	const struct msghdr *msg = (void *)regs_get_kernel_argument(regs, 1);
	struct dt_h2_reader *rd;
	const void __user *buf;
	size_t room;

	if (!in_task() || !dt_serving_side(sk))
		return 0;
	rd = &dt_h2_readers[hash_32(current->pid, DT_H2_READERS_BITS)];
	/* The thread's earlier note is over: its read has returned. */
	if (rd->tid == current->pid)
		WRITE_ONCE(rd->sk, NULL);
	if (!dt_h2_find(dt_h2_bucket(sk), sk) && !dt_h2_unread(tcp_sk(sk)))
		return 0;
	buf = dt_msg_user_head(msg, &room);
	if (!buf || !room)
		return 0;
	rd->tid = current->pid;
	rd->buf = buf;
	rd->room = min_t(size_t, room, U32_MAX);
	rd->start = READ_ONCE(tcp_sk(sk)->copied_seq);
	rd->seq = rd->start;
	WRITE_ONCE(rd->sk, sk);
	return 0;
}

static int dt_h2_copy(void *dst, u32 off, u32 n, void *priv)
{
	const u8 __user *buf = (__force const u8 __user *)priv;

	return copy_from_user_nofault(dst, buf + off, n) ? -EFAULT : 0;
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
 * Under the lock of sk's bucket b: n bytes of the read rd noted, from
 * rd->seq on, on sk, a connection's first (first) or the next ones:
 * how many streams they open, or -1 (not HTTP/2, unknown); *control:
 * they were connection frames alone.
 */
static int dt_h2_count_locked(struct dt_h2_conn *b, const struct sock *sk,
			      const struct dt_h2_reader *rd, u32 n, bool first,
			      bool *control)
{
	u32 off = rd->seq - rd->start;
	void *priv = (__force void *)(rd->buf + off);
	bool fits = off <= rd->room && n <= rd->room - off;
	struct dt_h2 st = { 0 };
	struct dt_h2_conn *c;
	int k;

	lockdep_assert_held(dt_h2_lock(b));
	if (first) {
		/* A slot only for a client preface. */
		k = fits ? dt_h2_requests(&st, n, dt_h2_copy, priv) : -1;
		if (k < 0)
			return -1;
		c = dt_h2_claim_locked(b, sk);
		c->st = st;
		c->seq = rd->seq + n;
		return k;
	}
	c = dt_h2_find(b, sk);
	if (!c)
		return -1;
	if (c->seq != rd->seq || !fits) {
		dt_h2_forget_locked(c);
		return -1;
	}
	k = dt_h2_requests(&c->st, n, dt_h2_copy, priv);
	if (k < 0) {
		dt_h2_forget_locked(c);
	} else {
		c->seq += n;
		*control = !c->st.streamed;
	}
	return k;
}

/*
 * current has read sk (a connection a listener accepted) up to now, its
 * socket locked: how many streams its HTTP/2 client opened in the bytes
 * read since the read started or since the last call (a read that
 * copies from several skbs comes here after each), or -1 (not HTTP/2,
 * or not known: one request, as any read); *control: those bytes were
 * connection frames alone (SETTINGS, PING, WINDOW_UPDATE: frames.h).
 */
int dt_h2_read(const struct sock *sk, u32 now, bool *control)
{
	struct dt_h2_reader *rd =
		&dt_h2_readers[hash_32(current->pid, DT_H2_READERS_BITS)];
	const struct tcp_sock *tp = tcp_sk(sk);
	struct dt_h2_conn *b;
	unsigned long irq;
	bool first;
	u32 n;
	int k;

	*control = false;
	if (READ_ONCE(rd->sk) != sk || rd->tid != current->pid)
		return -1;
	n = now - rd->seq;
	if (!n)
		return -1;
	/* They start at the connection's first byte. */
	first = rd->seq + (u32)tp->bytes_received == tp->rcv_nxt;
	b = dt_h2_bucket(sk);
	spin_lock_irqsave(dt_h2_lock(b), irq);
	k = dt_h2_count_locked(b, sk, rd, n, first, control);
	spin_unlock_irqrestore(dt_h2_lock(b), irq);
	/* The read may copy from more skbs: its next bytes from here. */
	rd->seq = now;
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
 * Off (probe 0), waiting for HTTP/2 in clear, or seen (the work item
 * queued once: it registers the kprobe, or says in the log that it
 * cannot).
 */
enum { DT_H2_OFF, DT_H2_WAITING, DT_H2_SEEN };

static atomic_t dt_h2_state = ATOMIC_INIT(DT_H2_OFF);
static struct kprobe dt_kp_recv;
/* Written by the work item, read by dt_h2_disarm() after cancelling it. */
static bool dt_h2_hooked;

static void dt_h2_hook(struct work_struct *work)
{
	int ret;

	memset(&dt_kp_recv, 0, sizeof(dt_kp_recv));
	dt_kp_recv.symbol_name = "tcp_recvmsg";
	dt_kp_recv.pre_handler = dt_h2_recv_entry;
	ret = register_kprobe(&dt_kp_recv);
	if (ret) {
		pr_warn("HTTP/2 streams not counted: cannot hook tcp_recvmsg: %d\n",
			ret);
		return;
	}
	dt_h2_hooked = true;
	pr_info("HTTP/2 in clear seen: counting its streams\n");
}

static DECLARE_WORK(dt_h2_work, dt_h2_hook);

/*
 * LOCAL_IN (softirq): a TCP segment's payload of len bytes starts at off
 * in skb. If it starts with the HTTP/2 client preface and the read
 * kprobe is not there yet, it gets registered.
 */
void dt_h2_spot(const struct sk_buff *skb, int off, int len)
{
	static const char head[] = "PRI * HTTP/2.0\r\n";
	u8 buf[sizeof(head) - 1];
	const u8 *b;

	if (atomic_read(&dt_h2_state) != DT_H2_WAITING ||
	    len < (int)sizeof(buf))
		return;
	b = skb_header_pointer(skb, off, sizeof(buf), buf);
	if (!b || memcmp(b, head, sizeof(buf)))
		return;
	if (atomic_cmpxchg(&dt_h2_state, DT_H2_WAITING, DT_H2_SEEN) ==
	    DT_H2_WAITING)
		schedule_work(&dt_h2_work);
}

/*
 * Counts HTTP/2 streams until dt_h2_disarm(), once HTTP/2 in clear is
 * seen (dt_h2_spot()). Process context, before the LOCAL_IN hook is
 * registered.
 */
void dt_h2_arm(void)
{
	struct dt_h2_conn *c;
	unsigned long irq;
	int i;

	/* A slot left from an earlier arming (destroy may run meanwhile). */
	for (c = dt_h2_conns; c < dt_h2_conns + ARRAY_SIZE(dt_h2_conns); c++) {
		spin_lock_irqsave(dt_h2_lock(c), irq);
		WRITE_ONCE(c->sk, NULL);
		spin_unlock_irqrestore(dt_h2_lock(c), irq);
	}
	for (i = 0; i < ARRAY_SIZE(dt_h2_readers); i++)
		WRITE_ONCE(dt_h2_readers[i].sk, NULL);
	atomic_set(&dt_h2_state, DT_H2_WAITING);
}

/*
 * No read noted any more. Process context, after the LOCAL_IN hook is
 * gone (nothing queues the work item again) and the reads' tracepoint.
 */
void dt_h2_disarm(void)
{
	atomic_set(&dt_h2_state, DT_H2_OFF);
	cancel_work_sync(&dt_h2_work);
	if (dt_h2_hooked)
		unregister_kprobe(&dt_kp_recv);
	dt_h2_hooked = false;
}
