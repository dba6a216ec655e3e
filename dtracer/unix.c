// SPDX-License-Identifier: GPL-2.0
/*
 * AF_UNIX hops: a traced request's context carried between the processes
 * of one host over a UNIX stream socket (nginx to php-fpm or gunicorn, an
 * application to a local sidecar). No bit on a wire: the same kernel
 * sees both ends, so what each end of a connection last wrote is kept by
 * the writing socket (an entry, by struct sock): a request of a context
 * (and who wrote it), a response to one, or untraced bytes.
 *
 * 1. A write (kprobe on unix_stream_sendmsg, in the writer's context):
 *    - a response, if the peer's last bytes were a traced request (of
 *      C): the writer works for C from now on (resumed) and the write is
 *      its response (response_idle_ms, as on TCP);
 *    - a request of C, if the writer works for C and has not answered
 *      it yet, on a connection it asks on (not one accepted from a
 *      listener: dt_unix_serving());
 *    - more of a request of C, if the writer works for no request now,
 *      its own last write on the connection was the request of C (read
 *      or not) and C is not answered: an event loop writes a call in
 *      parts and reads other connections between them (nginx writes a
 *      gRPC call's HEADERS, reads another upstream's answer, then writes
 *      the call's DATA), so the later parts are the call's
 *      (split_unix_calls), unless the write opens an HTTP/2 stream (a
 *      HEADERS frame first: another call);
 *    - else untraced bytes, noted only on a socket that has an entry
 *      (one that carried traced bytes before); on the serving end, the
 *      answer to a request of no context: a flagged writer leaves its
 *      context (a pool's worker handed the traced request by a wrong
 *      guess, handoff.c), as on TCP;
 *    - but an interim answer to a traced request (a whole write of
 *      HTTP/2's connection frames or an HTTP 1xx, interim.h), or
 *      connection frames from the request's writer, are none of these:
 *      the request stays the last bytes;
 *    - a response written by a thread other than the one that read its
 *      request, in the same process, says the process hands requests
 *      off (handoff.c), as on TCP.
 * 2. A read (kprobe on unix_stream_read_actor, which copies each chunk
 *    in the reader's context; the chunk's skb belongs to the socket that
 *    wrote it): bytes of a request of C: the reader works for C (flag
 *    reason local, its parent the writer); of a response to C: the
 *    reader works for C again (resumed); untraced bytes, or bytes from a
 *    socket that never carried traced ones: the reader turns to other
 *    work and leaves its context (a client stays a client).
 * 3. A thread running a goroutine (goroutines.c) has the goroutine take
 *    its context after a read or write that changed it, as after a TCP
 *    read or write.
 *
 * Entries go when their socket is destroyed (kprobe on
 * unix_sock_destructor: a socket's skbs hold it, so an entry lasts as
 * long as the bytes it speaks for are unread) or when the probe is
 * disarmed; at most max_sockets of them (drops_sockets), each holding a
 * reference on its context.
 *
 * Not seen (docs/limitations.md): datagram and seqpacket sockets, splice
 * from a UNIX socket, MSG_PEEK (a peek counts as a read). The kind of
 * bytes is per connection end (its last write's): a connection that
 * holds unread bytes of two requests at once gives the reader the later
 * one's. A flagged client writing to a local server starts no context:
 * only a request already traced on this host goes on over a UNIX socket.
 * If the kernel lacks one of the functions (inlined), the probe arms
 * without AF_UNIX hops and the log says why.
 *
 * Locking: entries are looked up under RCU and changed under
 * dt_unix_lock (spin_lock_irqsave, a leaf: the thread table is called
 * after it is released, with a reference on the context).
 */
#include "dtracer.h"
#include "frames.h"
#include "hooks.h"
#include "interim.h"

#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/net.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <net/af_unix.h>
#include <net/sock.h>

enum dt_unix_kind {
	DT_UNIX_UNTRACED,
	DT_UNIX_REQUEST,
	DT_UNIX_RESPONSE,
};

/* What a socket last wrote. */
struct dt_unix {
	struct hlist_node node;
	const struct sock *sk;		/* the writing end */
	enum dt_unix_kind kind;		/* under dt_unix_lock */
	struct dt_ctx *ctx;		/* ... for this request (a reference) */
	pid_t by;			/* ... written by this thread */
	pid_t read_by, read_tgid;	/* a request's reader, its process */
	struct rcu_head rcu;
};

#define DT_UNIX_BITS 10

static DEFINE_HASHTABLE(dt_unix, DT_UNIX_BITS);
static DEFINE_SPINLOCK(dt_unix_lock);
static atomic_t dt_nunix = ATOMIC_INIT(0);	/* entries in dt_unix */
static bool dt_unix_open;			/* under dt_unix_lock: armed */
static bool dt_unix_hooked;			/* under dt_probe_lock */

/* sk's entry, or NULL. Under RCU or dt_unix_lock. */
static struct dt_unix *dt_unix_find(const struct sock *sk)
{
	struct dt_unix *e;

	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(),
			 "UNIX socket lookup outside an RCU read-side section");
	hash_for_each_possible_rcu(dt_unix, e, node, (unsigned long)sk)
		if (e->sk == sk)
			return e;
	return NULL;
}

/* Under dt_unix_lock: e now says kind, for c (a reference taken). */
static void dt_unix_set_locked(struct dt_unix *e, enum dt_unix_kind kind,
			       struct dt_ctx *c, pid_t by)
{
	lockdep_assert_held(&dt_unix_lock);
	dt_ctx_put(e->ctx);
	e->ctx = c ? dt_ctx_get(c) : NULL;
	WRITE_ONCE(e->kind, kind);
	e->by = by;
	e->read_by = 0;
	e->read_tgid = 0;
}

/* Under dt_unix_lock: e out of the table, freed a grace period later. */
static void dt_unix_remove_locked(struct dt_unix *e)
{
	lockdep_assert_held(&dt_unix_lock);
	hash_del_rcu(&e->node);
	atomic_dec(&dt_nunix);
	dt_ctx_put(e->ctx);
	e->ctx = NULL;
	dt_mem_free_rcu(DT_MEM_SOCKETS, e, rcu);
}

/*
 * Whether sk is the serving end of its connection: accepted from a
 * listener, whose address it shares (unix_stream_connect() gives the
 * new socket a reference on the listener's), so that address is held
 * twice at least while the listener or another accepted connection
 * lives. A connecting socket has no address, or its own (bound, or
 * autobound), held once. Under RCU (sk is the writer's: alive).
 */
static bool dt_unix_serving(const struct sock *sk)
{
	const struct unix_address *a;

	/* Pairs with the release that set it (bind, autobind, connect). */
	a = smp_load_acquire(&unix_sk(sk)->addr);
	return a && refcount_read(&a->refcnt) > 1;
}

/*
 * Whether current's write on the connection end e (NULL: none followed)
 * goes on with the request e holds: current wrote it, and its context is
 * alive and not answered (so the peer, which may have read some of it,
 * still serves it). The caller knows current works for no request.
 * Under dt_unix_lock.
 */
static bool dt_unix_part_locked(const struct dt_unix *e)
{
	lockdep_assert_held(&dt_unix_lock);
	return e && e->kind == DT_UNIX_REQUEST && e->ctx &&
	       e->by == task_pid_nr(current) &&
	       !READ_ONCE(e->ctx->dead) && !READ_ONCE(e->ctx->answered);
}

/*
 * What current's write on sk (peer: its peer) is, noted on sk's entry
 * (made if the bytes are traced); *owner: the request it is for, a
 * reference the caller puts (NULL: untraced); for a response, *reader
 * and *tgid: the thread that read the request, its process (0: none
 * seen). Under RCU.
 */
static enum dt_unix_kind dt_unix_note(const struct sock *sk,
				      const struct sock *peer,
				      const struct dt_sender *by, bool part,
				      struct dt_ctx **owner, pid_t *reader,
				      pid_t *tgid)
{
	enum dt_unix_kind kind = DT_UNIX_UNTRACED;
	struct dt_unix *e, *pe, *fresh = NULL;
	bool more = false;
	unsigned long irq;

	*owner = NULL;
	e = dt_unix_find(sk);
	pe = dt_unix_find(peer);
	if (!e && (pe || (by && by->ctx))) {
		fresh = dt_mem_zalloc(DT_MEM_SOCKETS, sizeof(*fresh),
				      GFP_ATOMIC);
		if (!fresh)
			dt_stat_inc(DT_STAT_DROP_NOMEM);
	}
	spin_lock_irqsave(&dt_unix_lock, irq);
	pe = dt_unix_find(peer);
	e = dt_unix_find(sk);
	if (pe && pe->kind == DT_UNIX_REQUEST && pe->ctx &&
	    !READ_ONCE(pe->ctx->dead)) {
		kind = DT_UNIX_RESPONSE;
		*owner = dt_ctx_get(pe->ctx);
		*reader = pe->read_by;
		*tgid = pe->read_tgid;
	} else if (by && by->ctx && !by->answered && !dt_unix_serving(sk) &&
		   dt_ctx_tryget(by->ctx)) {
		kind = DT_UNIX_REQUEST;
		*owner = by->ctx;
	} else if (part && dt_unix_part_locked(e)) {
		/* The entry stays as it is: its reader too. */
		kind = DT_UNIX_REQUEST;
		*owner = dt_ctx_get(e->ctx);
		more = true;
		dt_stat_inc(DT_STAT_SPLIT_UNIX_CALLS);
	}
	if (!e && kind != DT_UNIX_UNTRACED && fresh && dt_unix_open) {
		if (atomic_read(&dt_nunix) >= READ_ONCE(dt_max_sockets)) {
			dt_stat_inc(DT_STAT_DROP_SOCKETS);
		} else {
			e = fresh;
			fresh = NULL;
			e->sk = sk;
			hash_add_rcu(dt_unix, &e->node, (unsigned long)sk);
			atomic_inc(&dt_nunix);
		}
	}
	if (e && !more)
		dt_unix_set_locked(e, kind, *owner, task_pid_nr(current));
	spin_unlock_irqrestore(&dt_unix_lock, irq);
	dt_mem_free(DT_MEM_SOCKETS, fresh);
	return kind;
}

/*
 * An event loop's call over a UNIX socket (by: its writer, flagged):
 * the loop's context is the request it last read, or whose answer it
 * last read. If that request is answered already (the loop read its
 * answer, then writes another call before it answers its client), the
 * call is not of it: it goes on the call this thread began on sk, if
 * its request is not answered, or is of the oldest traced request the
 * loop read that no call took (deferred.c's pending requests). A
 * reference, for the caller to put; NULL: by's context decides, as for
 * any write. A guess, as deferred.c's order: nginx reads a request,
 * then the answer of the call before, then writes the request's call.
 * Under RCU.
 */
static struct dt_ctx *dt_unix_next_call(const struct sock *sk,
					const struct dt_sender *by)
{
	struct dt_ctx *c;
	struct dt_unix *e;

	if (by->client || !by->ctx || by->answered ||
	    !READ_ONCE(by->ctx->answered) || dt_unix_serving(sk) ||
	    dt_in_pool() || dt_go_thread())
		return NULL;
	e = dt_unix_find(sk);
	if (e && READ_ONCE(e->kind) == DT_UNIX_REQUEST &&
	    READ_ONCE(e->by) == task_pid_nr(current)) {
		c = READ_ONCE(e->ctx);
		if (c && !READ_ONCE(c->answered) && dt_ctx_tryget(c))
			return c;
	}
	return dt_loop_take_oldest();
}

/*
 * Whether a write (msg) is an interim answer (interim.h: HTTP/2's
 * connection frames, an HTTP 1xx): a whole write of 64 bytes at most.
 */
static bool dt_unix_interim(const struct msghdr *msg)
{
	size_t total = iov_iter_count(&msg->msg_iter);
	u8 b[DT_ANSWER_HEAD];
	enum dt_answer a;
	u32 next;
	long n;

	if (!total || total > sizeof(b))
		return false;
	n = dt_msg_user_copy(msg, b, total);
	if (n <= 0)
		return false;
	a = dt_answer_of(b, n, total, &next);
	return a == DT_ANSWER_CONTROL || a == DT_ANSWER_INTERIM;
}

/*
 * Whether a write (msg) starts with an HTTP/2 HEADERS frame header: it
 * opens a stream (or sends trailers), so it is a call of its own, never
 * more of the one before.
 */
static bool dt_unix_opens_stream(const struct msghdr *msg)
{
	u8 h[DT_H2_FRAME_HEADER];

	if (dt_msg_user_copy(msg, h, sizeof(h)) != sizeof(h))
		return false;
	return h[3] == DT_H2_HEADERS && dt_h2_frame_stream(h) & 0x7fffffff;
}

/* Before a write on a UNIX stream socket: what its bytes are. */
static int dt_unix_send(struct kprobe *p, struct pt_regs *regs)
{
	struct socket *sock = (void *)regs_get_kernel_argument(regs, 0);
	const struct msghdr *msg = (void *)regs_get_kernel_argument(regs, 1);
	const struct sock *sk = READ_ONCE(sock->sk), *peer;
	struct dt_sender by;
	pid_t reader = 0, tgid = 0;
	struct dt_ctx *owner, *next;
	struct dt_unix *pe, *e;
	bool flagged, part;

	/* Nothing flagged, nothing followed: the usual case, no lookup. */
	if (!atomic_read(&dt_trace_active) && !atomic_read(&dt_nunix))
		return 0;
	peer = sk ? READ_ONCE(unix_peer(sk)) : NULL;
	if (!peer)
		return 0;
	rcu_read_lock();
	/*
	 * An interim answer to a traced request (Go's gRPC server acks
	 * nginx's SETTINGS as it reads a call) answers nothing, and HTTP/2's
	 * connection frames from its asker (nginx acks the C core's PING
	 * before the call is answered) ask nothing: the request stays the
	 * last bytes.
	 */
	pe = dt_unix_find(peer);
	e = dt_unix_find(sk);
	if (((pe && READ_ONCE(pe->kind) == DT_UNIX_REQUEST) ||
	     (e && READ_ONCE(e->kind) == DT_UNIX_REQUEST)) &&
	    dt_unix_interim(msg)) {
		rcu_read_unlock();
		dt_stat_inc(DT_STAT_INTERIM);
		return 0;
	}
	flagged = dt_flag_sender(current, &by);
	/* Not an answer (the peer's last bytes a request): maybe a call. */
	next = flagged && !(pe && READ_ONCE(pe->kind) == DT_UNIX_REQUEST) ?
	       dt_unix_next_call(sk, &by) : NULL;
	if (next) {
		by.ctx = next;
		dt_stat_inc(DT_STAT_MOVED_UNIX_CALLS);
	}
	/* In no request, after its own request there: maybe more of it. */
	part = (!flagged || (!by.client && !by.ctx)) && e &&
	       READ_ONCE(e->kind) == DT_UNIX_REQUEST &&
	       READ_ONCE(e->by) == task_pid_nr(current) && !dt_go_thread() &&
	       !dt_unix_opens_stream(msg);
	if (dt_unix_note(sk, peer, flagged ? &by : NULL, part, &owner,
			 &reader, &tgid) == DT_UNIX_RESPONSE) {
		if (!(flagged && (by.client || by.ctx == owner)))
			dt_flags_enter(current, owner, DT_REASON_RESUMED);
		dt_flags_answered(current, owner);
		WRITE_ONCE(owner->answered, true);
		dt_handoff_answered_by(reader, tgid);
		rcu_read_unlock();
		/* The goroutine this thread runs, if any, with it. */
		dt_go_mirror(false);
	} else if (flagged && !by.client && dt_unix_serving(sk)) {
		/*
		 * Untraced bytes on the serving end: the answer to a request
		 * of no context. A pool's worker handed the traced request
		 * by a wrong guess (handoff.c: it was woken for another job)
		 * learns it here, and leaves.
		 */
		rcu_read_unlock();
		dt_flags_leave(current);
		dt_go_mirror(false);
	} else {
		rcu_read_unlock();
	}
	dt_ctx_put(owner);
	dt_ctx_put(next);
	return 0;
}

/* A chunk of skb read by current: it works for what its bytes are. */
static int dt_unix_read(struct kprobe *p, struct pt_regs *regs)
{
	struct sk_buff *skb = (void *)regs_get_kernel_argument(regs, 0);
	enum dt_unix_kind kind = DT_UNIX_UNTRACED;
	struct dt_ctx *c = NULL;
	struct dt_sender by;
	struct dt_unix *e;
	bool flagged;
	pid_t from = 0;

	if (!atomic_read(&dt_nunix) && !atomic_read(&dt_trace_active))
		return 0;
	rcu_read_lock();
	flagged = dt_flag_sender(current, &by);
	e = dt_unix_find(READ_ONCE(skb->sk));
	if (e) {
		unsigned long irq;

		spin_lock_irqsave(&dt_unix_lock, irq);
		if (e->ctx && e->kind != DT_UNIX_UNTRACED &&
		    dt_ctx_tryget(e->ctx)) {
			kind = e->kind;
			c = e->ctx;
			from = e->by;
		}
		/* Who read the request: its answer's writer may be another. */
		if (kind == DT_UNIX_REQUEST) {
			e->read_by = task_pid_nr(current);
			e->read_tgid = task_tgid_nr(current);
		}
		spin_unlock_irqrestore(&dt_unix_lock, irq);
	}
	rcu_read_unlock();
	if (kind == DT_UNIX_REQUEST)
		dt_flags_enter_from(current, c, DT_REASON_LOCAL, from);
	else if (kind == DT_UNIX_RESPONSE)
		dt_flags_enter(current, c, DT_REASON_RESUMED);
	else if (flagged && !by.client)
		dt_flags_leave(current);
	dt_ctx_put(c);
	/*
	 * The goroutine this thread runs, if any, is where it is now (as
	 * after a TCP read, ingress.c): Go's gRPC server reads a call, then
	 * may wait for a lock before it starts the call's goroutine, and the
	 * thread that runs it next takes the goroutine's context.
	 */
	if (kind != DT_UNIX_UNTRACED || (flagged && !by.client))
		dt_go_mirror(kind == DT_UNIX_REQUEST);
	return 0;
}

/* A UNIX socket is destroyed: its entry goes. */
static int dt_unix_destroy(struct kprobe *p, struct pt_regs *regs)
{
	struct sock *sk = (void *)regs_get_kernel_argument(regs, 0);
	struct dt_unix *e;
	unsigned long irq;

	if (!atomic_read(&dt_nunix))
		return 0;
	spin_lock_irqsave(&dt_unix_lock, irq);
	e = dt_unix_find(sk);
	if (e)
		dt_unix_remove_locked(e);
	spin_unlock_irqrestore(&dt_unix_lock, irq);
	return 0;
}

static struct kprobe dt_kp_unix_send;
static struct kprobe dt_kp_unix_read;
static struct kprobe dt_kp_unix_destroy;
static struct kprobe *dt_unix_probes[] = {
	&dt_kp_unix_destroy,
	&dt_kp_unix_send,
	&dt_kp_unix_read,
};

static void dt_unix_probe_init(struct kprobe *kp, const char *symbol,
			       kprobe_pre_handler_t handler)
{
	memset(kp, 0, sizeof(*kp));
	kp->symbol_name = symbol;
	kp->pre_handler = handler;
}

/*
 * Follows AF_UNIX hops until dt_unix_disarm(). Process context. Never
 * fails: a kernel whose functions cannot be hooked is said in the log,
 * and the probe arms without them.
 */
void dt_unix_arm(void)
{
	unsigned long irq;
	int ret;

	dt_unix_probe_init(&dt_kp_unix_destroy, "unix_sock_destructor",
			   dt_unix_destroy);
	dt_unix_probe_init(&dt_kp_unix_send, "unix_stream_sendmsg",
			   dt_unix_send);
	dt_unix_probe_init(&dt_kp_unix_read, "unix_stream_read_actor",
			   dt_unix_read);
	spin_lock_irqsave(&dt_unix_lock, irq);
	dt_unix_open = true;
	spin_unlock_irqrestore(&dt_unix_lock, irq);
	ret = register_kprobes(dt_unix_probes, ARRAY_SIZE(dt_unix_probes));
	dt_unix_hooked = !ret;
	if (ret)
		pr_warn("AF_UNIX hops not followed: cannot hook the kernel's UNIX stream sockets: %d\n",
			ret);
}

/* No AF_UNIX hop followed any more, and no entry left. Process context. */
void dt_unix_disarm(void)
{
	struct hlist_node *tmp;
	struct dt_unix *e;
	unsigned long irq;
	int bkt;

	if (dt_unix_hooked)
		unregister_kprobes(dt_unix_probes, ARRAY_SIZE(dt_unix_probes));
	dt_unix_hooked = false;
	spin_lock_irqsave(&dt_unix_lock, irq);
	dt_unix_open = false;
	hash_for_each_safe(dt_unix, bkt, tmp, e, node)
		dt_unix_remove_locked(e);
	spin_unlock_irqrestore(&dt_unix_lock, irq);
}
