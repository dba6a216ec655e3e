// SPDX-License-Identifier: GPL-2.0
/*
 * Marked bytes that complete a handshake. A client whose connect has
 * completed writes its request at once; when the server's accept queue
 * is full (a burst of connections, a slow acceptor: a proxy opening
 * hundreds a second to a backend), TCP drops the handshake's last ACK,
 * and the request's first segment is what completes the handshake; when
 * its SYN queue is full, the server answered the SYN with a cookie and
 * keeps nothing (SYN cookies), so that the request's first segment is
 * what makes the connection. At LOCAL_IN that segment finds a request
 * socket (TCP_NEW_SYN_RECV) or no socket, no connection yet: its marked
 * range is noted here by its addresses (a request socket's: checked as
 * TCP will, it acknowledges the SYN-ACK and no more, its bytes start at
 * the first one expected; any: its checksum) and handed to the
 * connection's socket when TCP makes it (inet_sock_set_state from
 * TCP_SYN_RECV to TCP_ESTABLISHED, before the segment's bytes are
 * queued: ingress.c), if its bytes start where the connection's do.
 * Until then the client retransmits; each copy's note takes the place
 * of the last one's.
 *
 * Bounded: DT_EARLY_MAX notes, each kept DT_EARLY_AGE at most (then
 * dropped: recv_no_socket, as a segment with no socket at all).
 *
 * Locking: dt_early_lock (spin_lock_irqsave, a leaf) guards the notes;
 * dt_nearly lets the state hook skip it while there is none.
 */
#include "dtracer.h"
#include "packet.h"

#include <linux/jiffies.h>
#include <linux/netfilter.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <net/ipv6.h>
#include <net/request_sock.h>
#include <net/tcp.h>

#define DT_EARLY_MAX 64
#define DT_EARLY_AGE HZ

/* A connection's addresses (tuple.h), in its network namespace. */
struct dt_early_key {
	const struct net *net;
	struct dt_tuple t;
};

static struct dt_early {
	struct dt_early_key key;
	struct dt_early_mark mark;
	unsigned long at;
	bool used;
} dt_early[DT_EARLY_MAX];
static DEFINE_SPINLOCK(dt_early_lock);
static atomic_t dt_nearly = ATOMIC_INIT(0);

/*
 * An arriving segment's key (th its TCP header), as dt_tuple_from_sock()
 * gives its connection's.
 */
static void dt_early_key_skb(struct dt_early_key *k, const struct sk_buff *skb,
			     const struct nf_hook_state *state,
			     const struct tcphdr *th)
{
	memset(k, 0, sizeof(*k));
	k->net = state->net;
	k->t.family = AF_INET;
	k->t.lport = th->dest;
	k->t.rport = th->source;
#if IS_ENABLED(CONFIG_IPV6)
	if (state->pf == NFPROTO_IPV6) {
		k->t.family = AF_INET6;
		k->t.laddr = ipv6_hdr(skb)->daddr;
		k->t.raddr = ipv6_hdr(skb)->saddr;
		return;
	}
#endif
	k->t.laddr.s6_addr32[0] = ip_hdr(skb)->daddr;
	k->t.raddr.s6_addr32[0] = ip_hdr(skb)->saddr;
}

/* Under dt_early_lock: e goes (taken, or too old). */
static void dt_early_drop_locked(struct dt_early *e)
{
	lockdep_assert_held(&dt_early_lock);
	e->used = false;
	atomic_dec(&dt_nearly);
}

/* Under dt_early_lock: k's note, a free one (old ones freed), or NULL. */
static struct dt_early *dt_early_slot_locked(const struct dt_early_key *k)
{
	struct dt_early *e, *free = NULL;

	lockdep_assert_held(&dt_early_lock);
	for (e = dt_early; e < dt_early + DT_EARLY_MAX; e++) {
		if (e->used && time_after(jiffies, e->at + DT_EARLY_AGE)) {
			dt_early_drop_locked(e);
			dt_stat_inc(DT_STAT_RECV_NO_SOCKET);
		}
		if (e->used && !memcmp(&e->key, k, sizeof(*k)))
			return e;
		if (!e->used && !free)
			free = e;
	}
	return free;
}

/*
 * The marked segment skb (its TCP header th at thoff, bytes [seq, seq +
 * len), a response's?) reached req, a request socket, or no socket (req
 * NULL) at LOCAL_IN: whether it is noted for the connection TCP may make
 * of it (false: it would not complete the handshake, or no note was
 * free).
 */
bool dt_early_note(struct sock *req, struct sk_buff *skb,
		   const struct nf_hook_state *state, const struct tcphdr *th,
		   int thoff, u32 seq, u32 len, bool resp)
{
	const struct tcp_request_sock *treq;
	struct dt_early_key k;
	struct dt_early *e;
	unsigned long irq;
	u32 ack = ntohl(th->ack_seq);

	if (!th->ack || th->syn || th->rst || th->fin || !len)
		return false;
	if (req) {
		treq = tcp_rsk(inet_reqsk(req));
		if (ack != treq->snt_isn + 1 || seq != treq->rcv_nxt)
			return false;
	}
	if (nf_checksum(skb, state->hook, thoff, IPPROTO_TCP, state->pf))
		return false;
	dt_early_key_skb(&k, skb, state, th);
	spin_lock_irqsave(&dt_early_lock, irq);
	e = dt_early_slot_locked(&k);
	if (e) {
		if (!e->used) {
			e->used = true;
			e->key = k;
			atomic_inc(&dt_nearly);
		}
		e->mark.seq = seq;
		e->mark.end = seq + len;
		e->mark.resp = resp;
		e->mark.ack = ack;
		e->at = jiffies;
	}
	spin_unlock_irqrestore(&dt_early_lock, irq);
	return e;
}

/*
 * sk, a connection TCP has just made of a request socket: the marked
 * bytes noted for it, if any (true, in *m; the note goes).
 */
bool dt_early_take(const struct sock *sk, struct dt_early_mark *m)
{
	struct dt_early_key k;
	struct dt_early *e;
	unsigned long irq;
	bool found = false;

	if (!atomic_read(&dt_nearly))
		return false;
	memset(&k, 0, sizeof(k));
	k.net = sock_net(sk);
	dt_tuple_from_sock(&k.t, sk);
	spin_lock_irqsave(&dt_early_lock, irq);
	for (e = dt_early; e < dt_early + DT_EARLY_MAX; e++) {
		if (e->used && !memcmp(&e->key, &k, sizeof(k))) {
			*m = e->mark;
			dt_early_drop_locked(e);
			found = true;
			break;
		}
	}
	spin_unlock_irqrestore(&dt_early_lock, irq);
	/* The bytes TCP expects first: what the note checked. */
	return found && m->seq == READ_ONCE(tcp_sk(sk)->rcv_nxt);
}

/* Disarmed (no hook runs any more): every note goes. */
void dt_early_reset(void)
{
	struct dt_early *e;
	unsigned long irq;

	spin_lock_irqsave(&dt_early_lock, irq);
	for (e = dt_early; e < dt_early + DT_EARLY_MAX; e++)
		if (e->used)
			dt_early_drop_locked(e);
	spin_unlock_irqrestore(&dt_early_lock, irq);
}
