// SPDX-License-Identifier: GPL-2.0
/*
 * Ingress: noticing marked segments, and flagging the threads that read
 * their bytes.
 *
 * 1. Detection (netfilter LOCAL_IN, IPv4 and IPv6): a TCP segment with
 *    the first reserved bit and a payload from a trusted source (trust.c;
 *    others are counted and ignored) is matched to its established
 *    socket (early demux's, or a lookup); if it lies in the receive
 *    window and passes TCP's other checks that drop a segment (ACK,
 *    checksum, no signature: dt_acceptable()), dtracer_mark_recv fires
 *    and its sequence range is added to the socket's received marked
 *    ranges. A segment that fails any of these checks (untrusted, no
 *    socket, outside the window, one TCP will drop: a forged mark must
 *    get past TCP as any injected data must) is counted and
 *    leaves no event, so it can neither flag a thread nor give the
 *    collector's clock sync a sample. The packet is left as it came:
 *    the stack ignores the bit.
 *    Unmarked packets cost a protocol test and one byte test.
 *    A segment that also carries the second mark (a response's) is
 *    recorded apart; a response for nobody here any more (its client
 *    removed, or the request that asked over) has the next segment to
 *    the peer say so (egress.c, a stop). A segment with the second
 *    bit alone (a stop; a pure ACK too), past the same checks, ends
 *    the request its socket serves: its context dies, its threads
 *    leave it (removed), later writes there are unmarked.
 * 2. What a read is (tracepoint tcp_rcv_space_adjust, which every TCP
 *    read path fires in the reader's context once it has taken bytes;
 *    it works for a reader that was already blocked when the bytes
 *    arrived; MSG_PEEK does not move copied_seq and counts for nothing):
 *    - marked request bytes: a request to serve. A new context starts
 *      (context.c), the socket's "served" one, and the reader works for
 *      it (flags.c, propagated);
 *    - the answer on a connection where one of our contexts sent a
 *      request (egress.c's "outstanding"): response-marked bytes, or
 *      unmarked ones from a peer that never marked a response (no
 *      dtracer there): the reader works for that context again
 *      (resumed);
 *    - anything else (unmarked bytes; a marked response nobody here
 *      asked for, counted in responses_unsolicited): the reader turns to
 *      untraced work and leaves its context, and a traced request's
 *      socket whose next request is unmarked serves none any more.
 *    So a response never starts a request, and a context lives only as
 *    long as marked requests keep arriving from a client that is
 *    flagged: nothing can keep itself traced.
 * 3. A client's answer: when the reader is the client thread whose
 *    request on this socket is pending (egress.c), the read ends that
 *    request: dtracer_answer fires with the time since the request's
 *    first marked write, and the socket awaits the client's next one.
 *    Clients (add_pid) are flagged whatever they read.
 *
 * Locking: the LOCAL_IN hook runs in netfilter's RCU read-side section;
 * sockets.c takes its table's lock to add an entry, and the hook an
 * entry's lock to add a range. The read hook runs in the reader's
 * context under rcu_read_lock() (asserted where it relies on it) and
 * takes an entry's lock to take what the read passed or to change its
 * contexts (references taken and put under it); it releases the lock
 * before it calls the thread table.
 */
#include "dtracer.h"
#include "hooks.h"
#include "packet.h"

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <net/inet_hashtables.h>
#include <net/inet6_hashtables.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/route.h>
#include <net/tcp.h>

/*
 * The socket early demux gave skb (tcp_v4/v6_early_demux, before
 * routing: the established socket of its four-tuple, held by the skb),
 * if it is one we can use as is; NULL means "look it up".
 */
static struct sock *dt_demuxed(const struct sk_buff *skb)
{
	struct sock *sk = skb->sk;

	if (!sk || !sk_fullsock(sk) || sk->sk_protocol != IPPROTO_TCP ||
	    sk->sk_state == TCP_LISTEN)
		return NULL;
	return sk;
}

/*
 * The established socket of a segment, with a reference, or NULL. The
 * table is the namespace's, as TCP itself finds it (a namespace may have
 * one of its own; tcp_hashinfo is not exported on 6.12).
 */
static struct sock *dt_lookup(struct net *net, struct sk_buff *skb, u8 pf,
			      const struct tcphdr *th)
{
	struct inet_hashinfo *hinfo = net->ipv4.tcp_death_row.hashinfo;

	if (pf == NFPROTO_IPV4) {
		const struct iphdr *iph = ip_hdr(skb);

		return __inet_lookup_established(net, hinfo,
						 iph->saddr, th->source,
						 iph->daddr, ntohs(th->dest),
						 inet_iif(skb), inet_sdif(skb));
	}
#if IS_ENABLED(CONFIG_IPV6)
	{
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		return __inet6_lookup_established(net, hinfo,
						  &ip6h->saddr, th->source,
						  &ip6h->daddr, ntohs(th->dest),
						  inet6_iif(skb),
						  inet6_sdif(skb));
	}
#else
	return NULL;
#endif
}

/*
 * Whether TCP will take [seq, end) on sk: tcp_sequence()'s test (not all
 * before rcv_wup, not starting past the receive window), read without
 * the socket lock: TCP's own check, under the lock, comes later. A
 * forged marked segment must hit the window, as any injected data must.
 */
static bool dt_in_window(const struct sock *sk, u32 seq, u32 end)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return !before(end, READ_ONCE(tp->rcv_wup)) &&
	       !after(seq, READ_ONCE(tp->rcv_nxt) + tcp_receive_window(tp));
}

/*
 * Whether TCP will take the segment th (at thoff in skb) on sk, beyond
 * its window (dt_in_window()): an ACK, no SYN or RST; the ACK neither
 * of bytes sk never queued nor older than its window (tcp_ack() drops
 * the segment otherwise); a checksum that verifies (nf_checksum(), the
 * kernel's own check: TCP takes its result from the skb); and no
 * signature to check (TCP-MD5, TCP-AO: dt_sock_signed()). Read without
 * the socket lock, as dt_in_window(): so the bound is write_seq, not
 * snd_nxt as in tcp_ack(), which the sender moves only after its
 * segment has left: the peer's next segment can come back first (a
 * fresh clone's run lost one request's mark of 60 so, most likely,
 * with snd_nxt). Not checked:
 * timestamps (PAWS) and IPsec policy, which TCP checks too.
 */
static bool dt_acceptable(struct sk_buff *skb,
			  const struct nf_hook_state *state,
			  const struct sock *sk, const struct tcphdr *th,
			  int thoff)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 ack = ntohl(th->ack_seq);
	u32 una = READ_ONCE(tp->snd_una);

	if (!th->ack || th->syn || th->rst)
		return false;
	if (after(ack, READ_ONCE(tp->write_seq)) ||
	    before(ack, una - READ_ONCE(tp->max_window)))
		return false;
	if (dt_sock_signed(sk))
		return false;
	return !nf_checksum(skb, state->hook, thoff, IPPROTO_TCP, state->pf);
}

/*
 * Under ds->lock: whether a response arriving on ds's socket is for
 * nobody here any more: the client that asked is no longer flagged
 * (remove_pid, or it exited), or the request that asked is over.
 */
static bool dt_unwanted(const struct dt_sock *ds)
{
	lockdep_assert_held(&ds->lock);
	if (ds->client)
		return !dt_flagged(ds->client);
	return ds->outstanding && READ_ONCE(ds->outstanding->dead);
}

/*
 * Records [seq, end) as marked bytes received on sk (a response's?; a
 * request's: the ACK it came with, what the client had received). A
 * response for nobody here (a stream pushing on after its subscriber
 * was removed) has the next segment to the peer say the request is
 * over (egress.c).
 */
static void dt_note_received(const struct sock *sk, u32 seq, u32 end,
			     bool resp, u32 ack)
{
	struct dt_sock *ds;
	unsigned long irq;

	ds = dt_sock_get(sk);
	if (!ds)
		return;
	spin_lock_irqsave(&ds->lock, irq);
	ds = dt_sock_live(sk, ds, &irq);
	if (!ds)
		return;
	if (dt_ranges_add(resp ? &ds->rcvd_resp : &ds->rcvd, seq, end))
		dt_stat_inc(DT_STAT_DROP_RANGES);
	if (!resp)
		ds->req_ack = ack;
	if (resp && dt_unwanted(ds))
		ds->stop = true;
	spin_unlock_irqrestore(&ds->lock, irq);
}

/*
 * The peer says the request it sent on sk is over: the socket serves
 * it no more, nobody joins it again, and its threads leave it (removed).
 */
static void dt_stopped(const struct sock *sk)
{
	struct dt_sock *ds;
	unsigned long irq;
	bool any = false;

	ds = dt_sock_find(sk);
	if (!ds)
		return;
	spin_lock_irqsave(&ds->lock, irq);
	if (!ds->gone && ds->served) {
		dt_ctx_kill(ds->served);
		dt_sock_set_ctx(ds, &ds->served, NULL);
		any = true;
	}
	/* HTTP/2: the client's earlier requests there too. */
	if (!ds->gone && dt_sock_end_earlier(ds))
		any = true;
	spin_unlock_irqrestore(&ds->lock, irq);
	if (any) {
		dt_stat_inc(DT_STAT_STOPPED);
		dt_flags_request_stopped(sk);
	}
}

static unsigned int dt_ingress_hook(void *priv, struct sk_buff *skb,
				    const struct nf_hook_state *state)
{
	struct tcphdr _th;
	const struct tcphdr *th;
	struct sock *sk;
	bool held = false;
	int thoff, len;
	bool resp;
	u32 seq;
	u8 bits;

	thoff = dt_tcp_offset(skb, state->pf);
	if (thoff < 0)
		return NF_ACCEPT;
	th = skb_header_pointer(skb, thoff, sizeof(_th), &_th);
	if (!th)
		return NF_ACCEPT;
	bits = ((const u8 *)th)[DT_MARK_BYTE] & (DT_MARK_BIT | DT_RESP_BIT);
	len = skb->len - thoff - th->doff * 4;
	if (!bits || (bits != DT_STOP_BITS && len <= 0))
		return NF_ACCEPT;
	if (!dt_trusted(skb, state->pf, state->net)) {
		dt_stat_inc(DT_STAT_MARKS_UNTRUSTED);
		return NF_ACCEPT;
	}
	if (bits != DT_STOP_BITS)
		dt_stat_inc(DT_STAT_MARKS_RECEIVED);
	seq = ntohl(th->seq);
	resp = ((const u8 *)th)[DT_MARK_BYTE] & DT_RESP_BIT;
	sk = dt_demuxed(skb);
	if (!sk) {
		sk = dt_lookup(state->net, skb, state->pf, th);
		held = sk;
	}
	if ((!sk || sk->sk_state == TCP_NEW_SYN_RECV) && bits != DT_STOP_BITS &&
	    dt_early_note(sk, skb, state, th, thoff, seq, len, resp)) {
		/* Completing a handshake: its socket takes it (early.c). */
		dt_event_mark_recv(skb, state->pf, th, seq, seq + len, resp);
	} else if (!sk || !sk_fullsock(sk)) {
		dt_stat_inc(DT_STAT_RECV_NO_SOCKET);
	} else if (!dt_in_window(sk, seq, seq + len)) {
		dt_stat_inc(DT_STAT_MARKS_OUT_OF_WINDOW);
	} else if (!dt_acceptable(skb, state, sk, th, thoff)) {
		dt_stat_inc(DT_STAT_MARKS_REJECTED);
	} else if (bits == DT_STOP_BITS) {
		dt_stopped(sk);
	} else {
		dt_event_mark_recv(skb, state->pf, th, seq, seq + len, resp);
		dt_note_received(sk, seq, seq + len, resp, ntohl(th->ack_seq));
	}
	if (held)
		sock_gen_put(sk);
	return NF_ACCEPT;
}

DT_NF_HOOKS(dt_ingress, LOCAL_IN);

/* What one read took from a followed socket (see the file comment). */
struct dt_read {
	bool request;			/* marked request bytes */
	bool response;			/* marked response bytes */
	bool answer;			/* ... a client's answer */
	/* more of served (nothing written since, or an interim answer) */
	bool more;
	bool after_interim;		/* ... after an interim answer */
	u64 asked_at;
	struct dt_ctx *resume;		/* the context whose answer it is */
	struct dt_ctx *served;		/* the request read there before */
};

/* Whether a read up to now passed marked bytes of rs; drops them. */
static bool dt_passed(struct dt_ranges *rs, u32 now)
{
	bool hit = rs->n && dt_seq_before(rs->r[0].start, now);

	dt_ranges_prune(rs, now);
	return hit;
}

/*
 * Under RCU: what current's read up to now on ds's socket took; wseq:
 * the socket's write_seq.
 */
static void dt_read_take(struct dt_sock *ds, u32 now, u32 wseq,
			 struct dt_read *r)
{
	unsigned long irq;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(),
			 "read taken outside an RCU read-side section");
	spin_lock_irqsave(&ds->lock, irq);
	/* The sweep (sockets.c) waits for socket_idle_ms after this. */
	ds->used = jiffies;
	r->request = dt_passed(&ds->rcvd, now);
	r->response = dt_passed(&ds->rcvd_resp, now);
	if (r->response)
		ds->peer_answers = true;
	if (ds->outstanding && !r->request &&
	    (r->response || !ds->peer_answers))
		r->resume = ds->outstanding;
	r->served = ds->served;
	/*
	 * Request bytes where nothing was written since the request was
	 * read (seen by dtracer or not), or nothing but an interim answer
	 * (egress.c: a 100 Continue, a TLS handshake), or bytes the client
	 * sent having had nothing after the TLS 1.3 tickets written since
	 * (its ACK): more of the same request.
	 */
	r->more = r->request && ds->served &&
		  (wseq == ds->served_seq ||
		   (ds->ticket && !after(ds->req_ack, ds->ticket_end)));
	if (r->request) {
		r->after_interim = r->more && ds->after_interim;
		ds->after_interim = false;
		ds->ticket = false;
		ds->tls_hs = false;
		if (r->more)
			ds->served_seq = wseq;
	}
	if ((r->request || r->response) && ds->asker == current) {
		r->answer = true;
		r->asked_at = ds->asked_at;
		ds->asker = NULL;
	}
	spin_unlock_irqrestore(&ds->lock, irq);
}

/*
 * A new request read on ds's socket: its context, which the reader
 * enters and the socket serves. A reader refused (table full, rate,
 * memory) or a client leaves the request untraced here: the socket
 * serves none, so its answer is not marked either. streams: the HTTP/2
 * streams the read opened; of several, which one the mark is for is not
 * told, and the reader's reason says so (streams, a guess).
 */
static void dt_read_request(struct sock *sk, struct dt_sock *ds,
			    const u32 *pos, int streams,
			    const struct dt_h2_range *h2)
{
	struct dt_ctx *c = dt_ctx_new(sk);
	unsigned long irq;
	bool in;

	in = c && dt_flags_enter(current, c,
				 streams > 1 ? DT_REASON_STREAMS :
					       DT_REASON_PROPAGATED);
	if (in && pos)
		dt_loop_queue(*pos, c);
	spin_lock_irqsave(&ds->lock, irq);
	dt_sock_keep_earlier(ds);
	dt_sock_set_ctx(ds, &ds->served, in ? c : NULL);
	ds->served_seq = READ_ONCE(tcp_sk(sk)->write_seq);
	ds->served_h2_lo = streams > 0 ? h2->lo : 0;
	ds->served_h2_hi = streams > 0 ? h2->hi : 0;
	spin_unlock_irqrestore(&ds->lock, irq);
	dt_ctx_put(c);
}

/*
 * More of the request served on ds's socket opened the streams h2: its
 * answer may be theirs too (they are taken for it, h2_streams_guessed).
 */
static void dt_served_streams(struct dt_sock *ds,
			      const struct dt_h2_range *h2)
{
	unsigned long irq;

	spin_lock_irqsave(&ds->lock, irq);
	if (ds->served_h2_hi && h2->hi > ds->served_h2_hi)
		ds->served_h2_hi = h2->hi;
	spin_unlock_irqrestore(&ds->lock, irq);
}

/*
 * An untraced request read on ds's socket: it serves no traced one now
 * (HTTP/2: the traced one's streams are still answered, sockets.c).
 */
static void dt_read_untraced(struct dt_sock *ds, struct dt_ctx *served)
{
	unsigned long irq;

	spin_lock_irqsave(&ds->lock, irq);
	if (ds->served == served) {
		dt_sock_keep_earlier(ds);
		dt_sock_set_ctx(ds, &ds->served, NULL);
	}
	spin_unlock_irqrestore(&ds->lock, irq);
}

/*
 * A read that is no task's own (current is whoever the softirq
 * interrupted, or a kernel thread): strparser's (kTLS receive, KCM,
 * sockmap) from data_ready or a kworker, a kernel server's (nfsd). The
 * marked bytes are taken, counted, and flag nobody: the socket serves
 * no traced request now, and current's context, whatever it is, stays.
 */
static void dt_on_read_kernel(struct sock *sk, u32 now)
{
	struct dt_read r = { 0 };
	struct dt_sock *ds;

	if (!dt_socks_count())
		return;
	rcu_read_lock();
	ds = dt_sock_find(sk);
	if (ds)
		dt_read_take(ds, now, READ_ONCE(tcp_sk(sk)->write_seq), &r);
	if (r.request || r.response)
		dt_stat_inc(DT_STAT_READS_KERNEL);
	if (r.request && r.served)
		dt_read_untraced(ds, r.served);
	rcu_read_unlock();
}

/*
 * The streams a read opened with marked bytes that are not the traced
 * request's own (its more, or beside the one it opens): which of a
 * read's streams the mark is for is not told, and the reader takes
 * them all for the traced request's (docs/limitations.md). A guess,
 * counted (streams < 1: none).
 */
static void dt_h2_guessed(int streams)
{
	if (streams > 0)
		dt_stat_add(DT_STAT_H2_GUESSED, streams);
}

/*
 * tcp_rcv_space_adjust: the reader has just moved copied_seq over the
 * bytes it took (recvmsg, read, splice, zero-copy receive all call it, in
 * the reader's context, socket locked; tcp_read_sock and tcp_read_done
 * too, which strparser calls from softirq or a kworker).
 */
static void dt_on_read(void *data, struct sock *sk)
{
	u32 now = READ_ONCE(tcp_sk(sk)->copied_seq);
	struct dt_read r = { 0 };
	bool serving = dt_serving_side(sk);
	struct dt_h2_range h2 = { 0 };
	struct dt_sender by;
	struct dt_sock *ds;
	bool fresh, control;
	int streams;
	u32 pos;

	if (!in_task() || (current->flags & PF_KTHREAD)) {
		dt_on_read_kernel(sk, now);
		return;
	}
	/*
	 * Every read counts, traced or not: an event loop's order, in
	 * requests (HTTP/2: the streams the read opens, h2.c).
	 */
	control = false;
	streams = serving ? dt_h2_read(sk, now, &control, &h2) : -1;
	fresh = dt_loop_read(sk, serving, streams, &pos);
	if (!dt_socks_count() && !atomic_read(&dt_trace_active))
		return;
	rcu_read_lock();
	ds = dt_sock_find(sk);
	if (ds)
		dt_read_take(ds, now, READ_ONCE(tcp_sk(sk)->write_seq), &r);
	if (r.answer && dt_flagged(current)) {
		dt_stat_inc(DT_STAT_ANSWERS);
		dt_event_answer(current, sk, ktime_get_ns() - r.asked_at);
	} else if (r.more) {
		/*
		 * More of a request not answered yet: the same request. After
		 * an interim answer, at a position of its own in an event
		 * loop's reads (deferred.c): its call may follow.
		 */
		if (dt_flags_enter(current, r.served, DT_REASON_RESUMED) &&
		    fresh && r.after_interim)
			dt_loop_queue(pos, r.served);
		dt_h2_guessed(streams);
		if (streams > 0)
			dt_served_streams(ds, &h2);
	} else if (r.request && !streams) {
		/*
		 * HTTP/2 frames of no new stream (a WINDOW_UPDATE, an ACK)
		 * after the answer: no request, the reader stays where it is.
		 */
	} else if (r.request) {
		dt_h2_guessed(streams - 1);
		dt_read_request(sk, ds, fresh ? &pos : NULL, streams, &h2);
	} else if (r.resume) {
		dt_flags_enter(current, r.resume, DT_REASON_RESUMED);
	} else if (control && r.served) {
		/*
		 * HTTP/2's connection frames alone on a connection that
		 * serves a traced request (an ACK of the server's PING, a
		 * WINDOW_UPDATE), marked or not: the request is still being
		 * served there (gRPC's C core reads nginx's PING ACK before
		 * its worker answers), and the reader stays where it is.
		 */
	} else {
		/* The rest of a client's answer is no stray response. */
		if (r.response && !(dt_flag_sender(current, &by) && by.client))
			dt_stat_inc(DT_STAT_UNSOLICITED);
		if (r.served)
			dt_read_untraced(ds, r.served);
		if (serving)
			dt_go_untraced();
		dt_flags_leave(current);
	}
	rcu_read_unlock();
	/* The goroutine this thread runs, if any, is where it is now. */
	dt_go_mirror(r.request);
}

static struct tracepoint *dt_tp_read;
static struct tracepoint *dt_tp_state;

/*
 * inet_sock_set_state: a connection made of a request socket
 * (TCP_SYN_RECV to TCP_ESTABLISHED, before the bytes of the segment
 * that completed it are queued) takes the marked bytes noted for it.
 */
static void dt_on_established(void *data, const struct sock *sk, int old,
			      int new)
{
	struct dt_early_mark m;

	if (sk->sk_protocol != IPPROTO_TCP || old != TCP_SYN_RECV ||
	    new != TCP_ESTABLISHED || !dt_early_take(sk, &m))
		return;
	dt_note_received(sk, m.seq, m.end, m.resp, m.ack);
}

int dt_ingress_arm(void)
{
	int ret;

	dt_h2_arm();
	ret = dt_tracepoint_hook(&dt_tp_read, "tcp_rcv_space_adjust",
				 dt_on_read, "TCP reads");
	if (ret)
		goto out_early;
	ret = dt_tracepoint_hook(&dt_tp_state, "inet_sock_set_state",
				 dt_on_established, "TCP handshakes");
	if (ret)
		goto out_read;
	ret = dt_nf_hooks_register(&dt_ingress_net_ops, "LOCAL_IN");
	if (!ret)
		return 0;
	dt_tracepoint_unhook(dt_tp_state, dt_on_established);
out_read:
	dt_tracepoint_unhook(dt_tp_read, dt_on_read);
out_early:
	dt_early_reset();
	return ret;
}

void dt_ingress_disarm(void)
{
	unregister_pernet_subsys(&dt_ingress_net_ops);
	dt_tracepoint_unhook(dt_tp_state, dt_on_established);
	dt_tracepoint_unhook(dt_tp_read, dt_on_read);
	dt_early_reset();
}
