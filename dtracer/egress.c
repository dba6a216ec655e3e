// SPDX-License-Identifier: GPL-2.0
/*
 * Egress: which bytes are marked, and marking the segments that carry them.
 *
 * 1. What a write is (kretprobes on tcp_sendmsg_locked and, before 6.5,
 *    do_tcp_sendpages, where the kernel has no tracepoint; both run with
 *    the socket locked by their caller):
 *    - a response, if the request read on the socket is a traced one
 *      (its context, "served"): whoever writes it (the thread that read
 *      it, an event loop coming back to it, a pool's worker) works for
 *      that request from now on (flags.c, resumed);
 *    - a request, if the writer is a client (add_pid), or works for a
 *      request and the socket is one this host connected (not one a
 *      listener accepted): the socket then keeps
 *      the context as "outstanding", and ingress brings the thread that
 *      reads the answer back to it;
 *    - else nothing: a thread working for a request that writes on a
 *      listener's connection whose request is not traced answers an
 *      untraced request, and leaves its context; an unmarked write on a
 *      connection with a request outstanding is a new, untraced request
 *      there, and the outstanding one is forgotten.
 *    A marked write gets an open range from write_seq, closed at the new
 *    write_seq by the write's return. Segments sent meanwhile (from this
 *    very call, softirq or a timer) fall in the open range. When the kind
 *    of bytes changes between writes, the write queue's tail skb is closed
 *    for appending (the kernel's own MSG_EOR bit), so that no skb, and
 *    thus no TSO/GSO segment cut from it, mixes kinds.
 *    A connection's first write is the request of the context that
 *    connected it, or unmarked if an untraced thread connected it lately
 *    (tracepoint inet_sock_set_state, TCP_SYN_SENT): an event loop
 *    connects for one request and writes when the connection is up,
 *    after reading others. Not on a thread running a goroutine
 *    (goroutines.c): Go's pools dial for one request and hand the
 *    connection to whichever asks first; the goroutine's context says.
 * 2. Marking (netfilter LOCAL_OUT, IPv4 and IPv6, last priority): a TCP
 *    segment of a followed socket whose bytes overlap a marked range gets
 *    the first reserved bit (0x08 of header byte 12), and a response's
 *    the second one too (0x04); any other segment (a pure ACK too) of
 *    a socket ingress asked to stop carries the second bit alone: the
 *    request sent there is over (ingress.c). The header is made writable first and the
 *    checksum fixed whatever ip_summed is. The header is rebuilt at every
 *    transmission, so retransmissions are marked the same way; GSO copies
 *    the header into every segment. Each marked segment fires
 *    dtracer_mark_send with its addresses, sequence range, kind and the
 *    last flagged thread that wrote on the socket.
 * 3. The response goes on: after a write on its request's socket a
 *    thread's context notes the time (flags.c): its span ends with its
 *    last write, whenever it turns to other work.
 * 4. A client's request (a thread flagged for no request of its own,
 *    writing on a socket with no request of its pending) starts: the
 *    socket's entry keeps the writer and the time, and ingress fires
 *    dtracer_answer when that thread reads marked bytes on the socket.
 *
 * Locking: the write hooks run under the socket's lock (the caller's,
 * asserted) and rcu_read_lock() (asserted); sockets.c takes its table's
 * lock to add an entry; an entry's fields are read and changed under the
 * entry's lock (contexts' references taken and put under it), released
 * before the thread table or handoff.c is called. The LOCAL_OUT hook
 * runs in netfilter's RCU read-side section and takes only an entry's
 * lock. dt_connects is lockless (a later connect may take a slot).
 */
#include "dtracer.h"
#include "frames.h"
#include "hooks.h"
#include "interim.h"
#include "packet.h"

#include <linux/hash.h>
#include <linux/fs.h>
#include <linux/ip.h>
#include <linux/jiffies.h>
#include <linux/ipv6.h>
#include <linux/kprobes.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <net/checksum.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/tcp.h>

struct dt_send_ctx {
	struct sock *sk;
	bool interim;		/* an interim answer: not the request's answer */
};

/* Whatever is appended to sk from now on starts a new skb. */
static void dt_close_tail(struct sock *sk)
{
	struct sk_buff *skb = tcp_write_queue_tail(sk);

	if (skb)
		TCP_SKB_CB(skb)->eor = 1;
}

enum dt_kind {
	DT_UNMARKED,
	DT_REQUEST,
	DT_RESPONSE,
};

/*
 * Ends the open range at end. An interim answer's end is where the
 * request's next bytes count as more of it (ingress.c); tickets' end,
 * what the client may have had when it sent them. Under ds->lock.
 */
static void dt_writer_close(struct dt_sock *ds, u32 end)
{
	lockdep_assert_held(&ds->lock);
	if (!ds->writer)
		return;
	if (dt_ranges_add(ds->writer_resp ? &ds->sent_resp : &ds->sent,
			  ds->writer_start, end))
		dt_stat_inc(DT_STAT_DROP_RANGES);
	/*
	 * An interim answer counts only before the request's answer: one
	 * written right after the request was read, or after interim
	 * answers only. Connection frames written after the answer (gRPC's
	 * server pings, or updates the window, once it answered) keep
	 * nothing: the client's next bytes are its next request.
	 */
	if (ds->writer_interim && ds->served &&
	    (ds->writer_ticket || ds->served_seq == ds->writer_start)) {
		/* tickets: the bytes the client sent before they came */
		if (ds->writer_ticket) {
			ds->ticket = true;
			ds->ticket_end = end;
		} else {
			ds->served_seq = end;
		}
		/*
		 * HTTP/2's connection frames leave the request where it
		 * is: its call may come before the client's next bytes.
		 */
		ds->after_interim = !ds->writer_control;
	}
	ds->writer = NULL;
	ds->writer_interim = false;
	ds->writer_ticket = false;
	ds->writer_control = false;
}

/* The kind of the bytes that end at seq, the write queue's tail. */
static enum dt_kind dt_tail_kind(const struct dt_sock *ds, u32 seq)
{
	u32 last;

	lockdep_assert_held(&ds->lock);
	if (dt_ranges_last_end(&ds->sent_resp, &last) && last == seq)
		return DT_RESPONSE;
	if (dt_ranges_last_end(&ds->sent, &last) && last == seq)
		return DT_REQUEST;
	return DT_UNMARKED;
}

/*
 * Connections that untraced threads opened lately: the socket and when,
 * in the first of 4 slots from its hash that is free (empty, older than
 * DT_CONNECT_AGE, its own; else the first one is taken: that socket's
 * note is lost), until its first write or its end. Read at the first
 * write on a connection by a thread working for a request: an event
 * loop opening hundreds of connections a second loses none of them to
 * another's slot, and a connection that takes seconds to come up (its
 * SYN or SYN-ACK dropped: a backend's full accept queue) keeps its note.
 */
#define DT_CONNECTS_BITS 10
#define DT_CONNECTS_WAYS 4
#define DT_CONNECT_AGE (30 * HZ)

static struct {
	const struct sock *sk;
	unsigned long at;
	bool untraced;		/* for an untraced request */
} dt_connects[1 << DT_CONNECTS_BITS];

static unsigned int dt_connect_slot(const struct sock *sk, unsigned int way)
{
	return (hash_ptr(sk, DT_CONNECTS_BITS) + way) &
	       (ARRAY_SIZE(dt_connects) - 1);
}

static bool dt_connect_live(unsigned int i)
{
	return READ_ONCE(dt_connects[i].sk) &&
	       time_before(jiffies, READ_ONCE(dt_connects[i].at) +
				    DT_CONNECT_AGE);
}

static void dt_connect_note(const struct sock *sk, bool untraced)
{
	unsigned int i = dt_connect_slot(sk, 0), w, j;

	for (w = 0; w < DT_CONNECTS_WAYS; w++) {
		j = dt_connect_slot(sk, w);
		if (!dt_connect_live(j) || READ_ONCE(dt_connects[j].sk) == sk) {
			i = j;
			break;
		}
	}
	WRITE_ONCE(dt_connects[i].sk, sk);
	WRITE_ONCE(dt_connects[i].at, jiffies);
	WRITE_ONCE(dt_connects[i].untraced, untraced);
}

/* sk's slot if its connect was noted lately, else -1. */
static int dt_connect_find(const struct sock *sk)
{
	unsigned int w, i;

	for (w = 0; w < DT_CONNECTS_WAYS; w++) {
		i = dt_connect_slot(sk, w);
		if (READ_ONCE(dt_connects[i].sk) == sk && dt_connect_live(i))
			return i;
	}
	return -1;
}

/* Whether sk's connect was noted lately (and for an untraced request). */
static bool dt_connect_noted(const struct sock *sk, bool untraced)
{
	int i = dt_connect_find(sk);

	return i >= 0 && (!untraced || READ_ONCE(dt_connects[i].untraced));
}

/* sk's note, if any, goes: sk wrote its first bytes, or is closed. */
static void dt_connect_forget(const struct sock *sk)
{
	int i = dt_connect_find(sk);

	if (i >= 0)
		WRITE_ONCE(dt_connects[i].sk, NULL);
}

/* A write on sk, a connection this host opened: a first one's note goes. */
static void dt_connect_written(const struct sock *sk)
{
	if (!READ_ONCE(tcp_sk(sk)->bytes_sent))
		dt_connect_forget(sk);
}

/* Whether sk has sent nothing yet and its connect was noted. */
static bool dt_first_write(const struct sock *sk, bool untraced)
{
	return READ_ONCE(tcp_sk(sk)->bytes_sent) == 0 &&
	       dt_connect_noted(sk, untraced);
}

/*
 * What a server's write is (interim.h), from its first bytes (6 of a
 * write longer than 64: the TLS record's header; across a writev's
 * segments), copied without faulting (a kprobe's handler may not
 * sleep: a page not there makes it an answer); *tls13: a ServerHello
 * whose flight's next record, in the same write, says TLS 1.3; *next: a
 * TLS record's end (its size).
 */
static enum dt_answer dt_write_answer(const struct msghdr *msg, bool *tls13,
				      u32 *next)
{
	size_t len, total = iov_iter_count(&msg->msg_iter);
	u8 b[DT_ANSWER_HEAD], t;
	const u8 __user *p;
	enum dt_answer a;
	long n;

	*tls13 = false;
	*next = 0;
	/*
	 * An HTTP interim answer, HTTP/2's connection frames: a whole write
	 * of 64 bytes at most (a writev's segments together).
	 */
	n = dt_msg_user_copy(msg, b, total > DT_ANSWER_HEAD ?
				     DT_ANSWER_TLS_HEAD : sizeof(b));
	if (n <= 0)
		return DT_ANSWER_FINAL;
	a = dt_answer_of(b, n, total, next);
	p = dt_msg_user_head(msg, &len);
	if (a == DT_ANSWER_HELLO && p && *next < len &&
	    !copy_from_user_nofault(&t, p + *next, 1))
		*tls13 = dt_answer_tls13(t);
	return a;
}

/*
 * What current's write on sk is (see the file comment), and for which
 * context (*owner, NULL for a client's or unmarked bytes): by, its flag
 * (NULL if none); ds, sk's entry (NULL if none; under its lock); fwd,
 * deferred.c's word on it (fwd_ctx: the context it names).
 */
static enum dt_kind dt_send_kind(const struct sock *sk,
				 const struct dt_sender *by,
				 const struct dt_sock *ds, enum dt_fwd fwd,
				 struct dt_ctx *fwd_ctx, struct dt_ctx **owner)
{
	if (ds)
		lockdep_assert_held(&ds->lock);
	*owner = NULL;
	if (by && by->client)
		return DT_REQUEST;
	if (ds && ds->served) {
		*owner = ds->served;
		return DT_RESPONSE;
	}
	if (ds && ds->connecting && !dt_go_thread()) {
		/* Its first write: the request of whoever connected it. */
		*owner = ds->outstanding;
		return *owner ? DT_REQUEST : DT_UNMARKED;
	}
	if (fwd == DT_FWD_TRACED) {
		/* An event loop's deferred call (deferred.c). */
		*owner = fwd_ctx;
		return DT_REQUEST;
	}
	if (fwd == DT_FWD_UNTRACED)
		return DT_UNMARKED;
	if (by && !by->answered && !dt_serving_side(sk) &&
	    (dt_go_thread() || !dt_first_write(sk, true))) {
		*owner = by->ctx;
		return DT_REQUEST;
	}
	return DT_UNMARKED;
}

/* What a write's head says (dt_write_answer), and what it is. */
struct dt_write {
	enum dt_answer answer;
	bool tls13;		/* a ServerHello, TLS 1.3 by its next record */
	u32 rec;		/* a TLS record's end: the first record's size */
	bool ticket;		/* TLS 1.3 tickets (deferred.c's guess) */
	bool interim;		/* out: an interim answer of a response */
	const struct msghdr *msg; /* sendmsg's (NULL: sendpage's, a client's) */
};

/*
 * Under ds->lock: the traced request, of those whose streams ds's HTTP/2
 * connection knows (the served one's, then the earlier ones', newest
 * first: sockets.c), that a server's write w from seq answers, by its
 * whole frames (h2.c): the first whose streams it holds a frame of. A
 * write of other streams only is another request's answer: unmarked,
 * not the served request's (h2_other_answers). A write not read as
 * whole frames stays as dt_send_kind said (kind, *owner). An answer of
 * no request served now (an earlier one's, another's) leaves the served
 * one's more as it was (ingress.c). Go's gRPC server answers the calls
 * nghttpx multiplexes in any order; a gRPC client with calls at once
 * has each answered on its own. One walk of the write's frame headers
 * asks for all of them, and counts the earlier requests' streams it
 * ends: an earlier request whose streams all ended goes before the
 * connection's next write (sockets.c).
 */
static enum dt_kind dt_h2_owner(struct dt_sock *ds, const struct dt_write *w,
				u32 seq, enum dt_kind kind,
				struct dt_ctx **owner)
{
	struct dt_h2_ask ask[1 + DT_H2_EARLIER] = {
		{ .lo = ds->served_h2_lo, .hi = ds->served_h2_hi }
	};
	struct dt_ctx *found = NULL;
	struct dt_h2_earlier *e;
	unsigned int n = 1, i;
	int a;

	lockdep_assert_held(&ds->lock);
	dt_sock_ended_earlier(ds);
	/* A response of known streams, or a write where none is served. */
	if (!w->msg)
		return kind;
	if (kind == DT_RESPONSE ? !ds->served_h2_hi :
	    kind != DT_UNMARKED || ds->served || !ds->earlier[0].ctx)
		return kind;
	for (i = 0; i < DT_H2_EARLIER && ds->earlier[i].ctx; i++, n++) {
		ask[n].lo = ds->earlier[i].streams.lo;
		ask[n].hi = ds->earlier[i].streams.hi;
	}
	a = dt_h2_answer(w->msg, ask, n);
	for (i = 1; i < n; i++) {
		e = &ds->earlier[i - 1];
		e->ended = min_t(unsigned int, 255, e->ended + ask[i].ended);
	}
	if (ask[0].mine || (a == DT_H2_ANSWER_UNKNOWN && ask[0].hi))
		return kind;
	for (i = 1; i < n && !found; i++)
		if (ask[i].mine)
			found = ds->earlier[i - 1].ctx;
	if (ds->served && ds->served_seq == seq)
		ds->served_seq = seq + (u32)iov_iter_count(&w->msg->msg_iter);
	if (found) {
		dt_stat_inc(DT_STAT_H2_EARLIER_ANSWERS);
		*owner = found;
		return DT_RESPONSE;
	}
	if (kind == DT_RESPONSE)
		dt_stat_inc(DT_STAT_H2_OTHER_ANSWERS);
	*owner = NULL;
	return DT_UNMARKED;
}

/*
 * Under ds->lock: whether a response's write w is an interim answer:
 * one by its head (HTTP 1xx, a TLS handshake's records, HTTP/2's
 * connection frames: SETTINGS, PING, WINDOW_UPDATE), or TLS
 * application data in a handshake: after a ServerHello and before the
 * client's next request bytes are read, TLS 1.3's encrypted flight
 * (written with the ServerHello, whose next record says TLS 1.3, or
 * after it); after them, its session tickets (NewSessionTicket, a
 * guess: deferred.c's dt_loop_responded, which knows the thread's last
 * step there: application data written right after the client's
 * Finished was read, and records of that size right after it, as
 * OpenSSL writes its two tickets apart). The tickets come before the
 * client's request is read, or with it: the thread has not answered,
 * and the request's bytes that the client sent having had nothing
 * after them are more of it (ingress.c, by their ACK). A server that
 * sends no tickets and answers a request read with the Finished at once
 * (a static file) has that answer taken for them: its thread answers at
 * its next write, and the client's next request on the connection joins
 * the first one's context.
 */
static void dt_interim_locked(struct dt_sock *ds, struct dt_write *w)
{
	bool data = w->answer == DT_ANSWER_TLS_DATA;

	lockdep_assert_held(&ds->lock);
	w->interim = w->ticket || (data && ds->tls_hs) ||
		     w->answer == DT_ANSWER_INTERIM ||
		     w->answer == DT_ANSWER_HELLO ||
		     w->answer == DT_ANSWER_CONTROL;
	if (w->answer == DT_ANSWER_HELLO)
		ds->tls_hs = true;
	else if (!w->interim)
		ds->tls_hs = false;
	if (w->interim)
		dt_stat_inc(DT_STAT_INTERIM);
	if (w->ticket)
		dt_stat_inc(DT_STAT_TICKETS);
}

/*
 * Under ds->lock: current writes bytes of kind for owner from seq (w:
 * an interim answer?).
 */
static void dt_writer_open(struct dt_sock *ds, u32 seq, enum dt_kind kind,
			   const struct dt_sender *by, struct dt_ctx *owner,
			   const struct dt_write *w)
{
	lockdep_assert_held(&ds->lock);
	ds->writer = current;
	ds->writer_start = seq;
	ds->writer_resp = kind == DT_RESPONSE;
	ds->writer_interim = w->interim;
	ds->writer_ticket = w->ticket;
	ds->writer_control = w->answer == DT_ANSWER_CONTROL;
	if (!by || (!by->client && by->ctx != owner)) {
		/* A thread joining the request: resumed. */
		ds->sender.tid = task_pid_nr(current);
		ds->sender.pid = task_tgid_nr(current);
		ds->sender.reason = DT_REASON_RESUMED;
		ds->sender.client = false;
	} else {
		ds->sender = *by;
	}
	/* Who wrote, for the mark's event; not the context (no reference). */
	ds->sender.ctx = NULL;
	if (kind == DT_REQUEST && by && by->client)
		ds->client = current;
	if (kind == DT_REQUEST && by && by->client && !ds->asker) {
		/* A client's request starts: ingress ends it at the answer. */
		ds->asker = current;
		ds->asked_at = ktime_get_ns();
	}
}

/*
 * Before a write on sk (locked by the caller) by current, flagged as by
 * says (NULL: not flagged): records what its bytes are, keeps kinds of
 * bytes in different skbs, and moves current to the request it works for
 * (flags.c). Returns whether the write's return must be seen. A write
 * that should be marked on a socket that cannot be followed (table
 * full, counted) is unmarked. w: what the write's head says; its
 * interim set if it is a response's interim answer. Under RCU (the
 * contexts read stay valid).
 */
static bool dt_send_begin(struct sock *sk, const struct dt_sender *by,
			  enum dt_fwd fwd, struct dt_ctx *fwd_ctx,
			  struct dt_write *w)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct dt_ctx *owner;
	struct dt_sock *ds;
	enum dt_kind kind;
	unsigned long irq;
	u32 seq, una;

	sock_owned_by_me(sk);
	RCU_LOCKDEP_WARN(!rcu_read_lock_held(),
			 "write recorded outside an RCU read-side section");
	ds = dt_sock_find(sk);
	if (!ds &&
	    dt_send_kind(sk, by, NULL, fwd, fwd_ctx, &owner) != DT_UNMARKED)
		ds = dt_sock_get(sk);
	if (ds) {
		spin_lock_irqsave(&ds->lock, irq);
		/* Gone idle meanwhile (sockets.c): the socket's entry now. */
		ds = dt_sock_live(sk, ds, &irq);
	}
	if (!ds) {
		if (by && !by->client) {
			dt_flags_leave(current);
			dt_go_mirror(false);
		}
		return false;
	}
	seq = READ_ONCE(tp->write_seq);
	una = READ_ONCE(tp->snd_una);
	dt_ranges_prune(&ds->sent, una);
	dt_ranges_prune(&ds->sent_resp, una);
	/* A writer that slept in sendmsg (socket unlocked) wrote up to here. */
	dt_writer_close(ds, seq);
	kind = dt_send_kind(sk, by, ds, fwd, fwd_ctx, &owner);
	kind = dt_h2_owner(ds, w, seq, kind, &owner);
	ds->connecting = false;
	if (kind != dt_tail_kind(ds, seq))
		dt_close_tail(sk);
	if (kind == DT_RESPONSE)
		dt_interim_locked(ds, w);
	if (kind != DT_UNMARKED)
		dt_writer_open(ds, seq, kind, by, owner, w);
	if (kind == DT_REQUEST && owner)
		dt_sock_set_ctx(ds, &ds->outstanding, owner);
	else if (kind == DT_UNMARKED)
		dt_sock_set_ctx(ds, &ds->outstanding, NULL);
	spin_unlock_irqrestore(&ds->lock, irq);
	if (owner && !(by && (by->client || by->ctx == owner)))
		dt_flags_enter(current, owner,
			       owner == fwd_ctx ? DT_REASON_DEFERRED :
						  DT_REASON_RESUMED);
	else if (kind == DT_UNMARKED && by && !by->client)
		dt_flags_leave(current);
	if (kind == DT_RESPONSE && !w->interim) {
		if (owner)
			WRITE_ONCE(owner->answered, true);
		dt_handoff_answered(owner);
		dt_loop_answered(owner);
	}
	dt_go_mirror(false);
	return kind != DT_UNMARKED;
}

static struct kretprobe dt_krp_sendmsg;

static int dt_send_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct dt_send_ctx *ctx = (void *)ri->data;
	struct sock *sk = (void *)regs_get_kernel_argument(regs, 0);
	struct dt_write w = { .answer = DT_ANSWER_FINAL };
	enum dt_fwd fwd = DT_FWD_NONE;
	struct dt_ctx *fwd_ctx = NULL;
	struct dt_sender by;
	bool flagged, marked;
	bool serving = dt_serving_side(sk);
	int streams;

	/*
	 * Every write counts, traced or not: an event loop's order. A
	 * server's answer (sendmsg's; sendpage's is a file's) by its head:
	 * an interim one leaves its request waiting there.
	 */
	if (serving) {
		if (get_kretprobe(ri) == &dt_krp_sendmsg)
			w.msg = (const struct msghdr *)
				regs_get_kernel_argument(regs, 1);
		if (w.msg)
			w.answer = dt_write_answer(w.msg, &w.tls13, &w.rec);
		w.ticket = dt_loop_responded(sk, w.answer, w.tls13, w.rec);
	} else {
		/* An HTTP/2 upstream: its write's calls, a stream each. */
		streams = get_kretprobe(ri) == &dt_krp_sendmsg ?
			  dt_h2_write(sk, (const struct msghdr *)
					  regs_get_kernel_argument(regs, 1)) :
			  -1;
		fwd = dt_loop_forward(sk, dt_first_write(sk, false), streams,
				      &fwd_ctx);
	}
	/* Nothing flagged, nothing followed: the usual case, no call. */
	if (!atomic_read(&dt_trace_active) && !dt_socks_count() && !fwd_ctx) {
		if (!serving)
			dt_connect_written(sk);
		return 1;
	}
	rcu_read_lock();
	flagged = dt_flag_sender(current, &by);
	marked = (flagged || dt_socks_count() || fwd_ctx) &&
		 dt_send_begin(sk, flagged ? &by : NULL, fwd, fwd_ctx, &w);
	rcu_read_unlock();
	dt_ctx_put(fwd_ctx);
	if (!serving)
		dt_connect_written(sk);
	ctx->sk = sk;
	ctx->interim = w.interim;
	/* Only marked writes need the return: close the range. */
	return !marked;
}

static int dt_send_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct dt_send_ctx *ctx = (void *)ri->data;
	struct sock *sk = ctx->sk;
	struct dt_sock *ds;
	unsigned long irq;

	rcu_read_lock();
	ds = dt_sock_find(sk);
	if (ds) {
		spin_lock_irqsave(&ds->lock, irq);
		if (ds->writer == current)
			dt_writer_close(ds, READ_ONCE(tcp_sk(sk)->write_seq));
		spin_unlock_irqrestore(&ds->lock, irq);
	}
	rcu_read_unlock();
	/* An interim answer answers nothing yet: the thread goes on. */
	if (!ctx->interim)
		dt_flags_wrote(current, sk);
	return 0;
}

#define DT_SEND_MAXACTIVE 256

#ifdef DT_HAVE_DO_TCP_SENDPAGES
/*
 * Before 6.5, sendfile and splice wrote through do_tcp_sendpages (Kbuild
 * looks for it in the headers); since, through tcp_sendmsg_locked.
 */
static struct kretprobe dt_krp_sendpages;
#endif
static struct kretprobe *dt_send_probes[] = {
	&dt_krp_sendmsg,
#ifdef DT_HAVE_DO_TCP_SENDPAGES
	&dt_krp_sendpages,
#endif
};

static void dt_send_probe_init(struct kretprobe *rp, const char *symbol)
{
	dt_kretprobe_init(rp, symbol, dt_send_entry, dt_send_return,
			  sizeof(struct dt_send_ctx), DT_SEND_MAXACTIVE);
}

/*
 * What the bytes [seq, end) of sk are: a response's, a request's, or
 * unmarked; if marked, by is the last flagged thread that wrote on sk.
 */
static enum dt_kind dt_segment_kind(const struct sock *sk, u32 seq, u32 end,
				    struct dt_sender *by)
{
	enum dt_kind kind = DT_UNMARKED;
	struct dt_sock *ds;
	unsigned long irq;
	bool open;

	ds = dt_sock_find(sk);
	if (!ds)
		return DT_UNMARKED;
	spin_lock_irqsave(&ds->lock, irq);
	open = ds->writer && dt_seq_before(ds->writer_start, end);
	if (dt_ranges_overlap(&ds->sent_resp, seq, end) ||
	    (open && ds->writer_resp))
		kind = DT_RESPONSE;
	else if (dt_ranges_overlap(&ds->sent, seq, end) || open)
		kind = DT_REQUEST;
	*by = ds->sender;
	spin_unlock_irqrestore(&ds->lock, irq);
	return kind;
}

/*
 * Sets bits in the mark's byte at thoff, fixing the checksum, and
 * counts it in stat; false (counted) if the header cannot be written.
 */
static bool dt_set_bits(struct sk_buff *skb, unsigned int thoff, u8 bits,
			enum dt_stat stat)
{
	struct tcphdr *th;
	__be16 *word, old;

	if (skb_ensure_writable(skb, thoff + sizeof(*th))) {
		dt_stat_inc(DT_STAT_DROP_UNWRITABLE);
		return false;
	}
	th = (struct tcphdr *)(skb->data + thoff);
	word = (__be16 *)((u8 *)th + DT_MARK_BYTE);
	old = *word;
	((u8 *)th)[DT_MARK_BYTE] |= bits;
	inet_proto_csum_replace2(&th->check, skb, old, *word, false);
	dt_stat_inc(stat);
	return true;
}

/* Sets the mark (and a response's) at thoff. */
static bool dt_set_mark(struct sk_buff *skb, unsigned int thoff,
			enum dt_kind kind)
{
	return dt_set_bits(skb, thoff, DT_MARK_BIT |
			   (kind == DT_RESPONSE ? DT_RESP_BIT : 0),
			   DT_STAT_MARKS_SENT);
}

/*
 * Whether sk's next segment says its request is over (ingress.c set
 * it: a marked response came for nobody here); the saying is taken.
 */
static bool dt_take_stop(const struct sock *sk)
{
	struct dt_sock *ds = dt_sock_find(sk);
	unsigned long irq;
	bool stop;

	if (!ds || !READ_ONCE(ds->stop))
		return false;
	spin_lock_irqsave(&ds->lock, irq);
	stop = ds->stop;
	ds->stop = false;
	spin_unlock_irqrestore(&ds->lock, irq);
	return stop;
}

static unsigned int dt_egress_hook(void *priv, struct sk_buff *skb,
				   const struct nf_hook_state *state)
{
	const struct sock *sk = skb->sk;
	struct tcphdr _th;
	const struct tcphdr *th;
	struct dt_sender by;
	enum dt_kind kind;
	int thoff, len;
	u32 seq;

	if (!sk || !dt_socks_count() || !sk_fullsock(sk) ||
	    sk->sk_protocol != IPPROTO_TCP)
		return NF_ACCEPT;
	thoff = dt_tcp_offset(skb, state->pf);
	if (thoff < 0)
		return NF_ACCEPT;
	th = skb_header_pointer(skb, thoff, sizeof(_th), &_th);
	if (!th)
		return NF_ACCEPT;
	len = skb->len - thoff - th->doff * 4;
	if (((const u8 *)th)[DT_MARK_BYTE] & (DT_MARK_BIT | DT_RESP_BIT))
		return NF_ACCEPT;
	seq = ntohl(th->seq);
	kind = len > 0 ? dt_segment_kind(sk, seq, seq + len, &by) :
			 DT_UNMARKED;
	if (kind == DT_UNMARKED) {
		if (!th->syn && !th->rst && dt_take_stop(sk) &&
		    !dt_sock_signed(sk))
			dt_set_bits(skb, thoff, DT_STOP_BITS,
				    DT_STAT_STOPS_SENT);
		return NF_ACCEPT;
	}
	if (dt_sock_signed(sk)) {
		dt_stat_inc(DT_STAT_MARKS_SIGNED);
		return NF_ACCEPT;
	}
	if (th != &_th)		/* marking may move the header */
		th = memcpy(&_th, th, sizeof(_th));
	if (dt_set_mark(skb, thoff, kind))
		dt_event_mark_send(skb, state->pf, th, seq, seq + len, &by,
				   kind == DT_RESPONSE);
	return NF_ACCEPT;
}

/* Whether sk's connect does not wait: an event loop's. */
static bool dt_connect_nonblocking(const struct sock *sk)
{
	const struct socket *sock = READ_ONCE(sk->sk_socket);

	return sock && sock->file && (READ_ONCE(sock->file->f_flags) & O_NONBLOCK);
}

/*
 * inet_sock_set_state to TCP_SYN_SENT: current connects sk (socket
 * locked, still TCP_CLOSE). A connection's first write belongs to the
 * thread that opened it, whoever writes it: an event loop connects for
 * one request and writes once the connection is up, having read others
 * meanwhile. A thread working for a request notes its context on the
 * socket's entry; an untraced event loop (a non-blocking connect) notes
 * the socket in dt_connects (no entry: connections are many, the socket
 * table is for marked ones). A blocking connect by an untraced thread is
 * not noted: such a thread waits for its connection and then reads what
 * to send on it (socat, a proxy thread per connection), so the first
 * write takes the writer's context. Clients need nothing: they mark
 * everything. To TCP_FIN_WAIT1, TCP_LAST_ACK or TCP_CLOSE in a task: the
 * task closes sk, and an event loop's request read there makes no call
 * (deferred.c). To TCP_CLOSE: sk's connect note, if any, goes.
 */
static void dt_on_state(void *data, const struct sock *sk, int old, int new)
{
	struct dt_ctx *owner = NULL, *c;
	struct dt_sender by;
	struct dt_sock *ds;
	unsigned long irq;
	enum dt_fwd fwd;
	bool flagged;

	if (sk->sk_protocol != IPPROTO_TCP)
		return;
	/* Closed (a connect that failed too): its connect's note goes. */
	if (new == TCP_CLOSE)
		dt_connect_forget(sk);
	/* A server closing a connection: no call of a request read there. */
	if ((new == TCP_FIN_WAIT1 || new == TCP_LAST_ACK || new == TCP_CLOSE) &&
	    in_task() && !(current->flags & PF_KTHREAD)) {
		dt_loop_closed(sk);
		return;
	}
	if (new != TCP_SYN_SENT)
		return;
	/* A connect can be an event loop's forward (deferred.c). */
	fwd = dt_loop_forward(sk, false, -1, &c);
	rcu_read_lock();
	flagged = dt_flag_sender(current, &by);
	if (fwd != DT_FWD_NONE)
		dt_connect_note(sk, fwd == DT_FWD_UNTRACED);
	else if (!flagged && dt_connect_nonblocking(sk))
		dt_connect_note(sk, true);
	if (fwd == DT_FWD_TRACED)
		owner = c;
	else if (fwd == DT_FWD_NONE && flagged && !by.client && !by.answered)
		owner = by.ctx;
	if (owner) {
		ds = dt_sock_get_connecting(sk);
		if (ds) {
			spin_lock_irqsave(&ds->lock, irq);
			ds->connecting = true;
			dt_sock_set_ctx(ds, &ds->outstanding, owner);
			spin_unlock_irqrestore(&ds->lock, irq);
		}
	}
	rcu_read_unlock();
	dt_ctx_put(c);
}

static struct tracepoint *dt_tp_state;

DT_NF_HOOKS(dt_egress, LOCAL_OUT);

int dt_egress_arm(void)
{
	int ret;

	ret = dt_tracepoint_hook(&dt_tp_state, "inet_sock_set_state",
				 dt_on_state, "TCP connects");
	if (ret)
		return ret;
	dt_send_probe_init(&dt_krp_sendmsg, "tcp_sendmsg_locked");
#ifdef DT_HAVE_DO_TCP_SENDPAGES
	dt_send_probe_init(&dt_krp_sendpages, "do_tcp_sendpages");
#endif
	ret = register_kretprobes(dt_send_probes, ARRAY_SIZE(dt_send_probes));
	if (ret) {
		pr_err("cannot hook TCP writes: %d\n", ret);
		goto out_state;
	}
	ret = dt_nf_hooks_register(&dt_egress_net_ops, "LOCAL_OUT");
	if (ret) {
		unregister_kretprobes(dt_send_probes, ARRAY_SIZE(dt_send_probes));
		goto out_state;
	}
	return 0;

out_state:
	dt_tracepoint_unhook(dt_tp_state, dt_on_state);
	return ret;
}

void dt_egress_disarm(void)
{
	unregister_pernet_subsys(&dt_egress_net_ops);
	unregister_kretprobes(dt_send_probes, ARRAY_SIZE(dt_send_probes));
	dt_tracepoint_unhook(dt_tp_state, dt_on_state);
}

/* Writes not seen: no free kretprobe instance, or a kprobe already running. */
unsigned long dt_egress_missed(void)
{
	unsigned long n = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(dt_send_probes); i++)
		n += dt_send_probes[i]->nmissed + dt_send_probes[i]->kp.nmissed;
	return n;
}
