// SPDX-License-Identifier: GPL-2.0
/*
 * Egress: which bytes are marked, and marking the segments that carry them.
 *
 * 1. Recording (kretprobes on tcp_sendmsg_locked and do_tcp_sendpages,
 *    where the kernel has no tracepoint; both run with the socket locked
 *    by their caller). When a flagged thread writes, its socket's entry
 *    gets an open range from write_seq; the write's return closes it at
 *    the new write_seq. Segments sent meanwhile (from this very call,
 *    softirq or a timer) fall in the open range. When writers change
 *    between flagged and unflagged, the write queue's tail skb is closed
 *    for appending (the kernel's own MSG_EOR bit), so that no skb, and
 *    thus no TSO/GSO segment cut from it, mixes marked and unmarked
 *    bytes.
 * 2. Marking (netfilter LOCAL_OUT, IPv4 and IPv6, last priority): a TCP
 *    segment of a followed socket whose bytes overlap a marked range gets
 *    the first reserved bit (0x08 of header byte 12). The header is made
 *    writable first and the checksum fixed whatever ip_summed is. The
 *    header is rebuilt at every transmission, so retransmissions are
 *    marked the same way; GSO copies the header into every segment.
 *    Each marked segment fires dtracer_mark_send with its addresses and
 *    sequence range, and the last flagged thread that wrote on the socket
 *    (the writer, unless another flagged thread wrote since).
 * 3. Response: a thread flagged by a request (propagated or inherited)
 *    that writes on the request's socket is unflagged after the write.
 * 4. A client's request (a thread flagged for no request of its own,
 *    writing on a socket with no request of its pending) starts: the
 *    socket's entry keeps the writer and the time, and ingress fires
 *    dtracer_answer when that thread reads marked bytes on the socket.
 */
#include "dtracer.h"
#include "packet.h"

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kprobes.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/timekeeping.h>
#include <net/checksum.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/tcp.h>

struct dt_send_ctx {
	struct sock *sk;
};

/* Whatever is appended to sk from now on starts a new skb. */
static void dt_close_tail(struct sock *sk)
{
	struct sk_buff *skb = tcp_write_queue_tail(sk);

	if (skb)
		TCP_SKB_CB(skb)->eor = 1;
}

/* Ends the open range at end. Under ds->lock. */
static void dt_writer_close(struct dt_sock *ds, u32 end)
{
	lockdep_assert_held(&ds->lock);
	if (!ds->writer)
		return;
	if (dt_ranges_add(&ds->sent, ds->writer_start, end))
		dt_stat_inc(DT_STAT_DROP_RANGES);
	ds->writer = NULL;
}

/*
 * Before a write on sk (locked by the caller): open a marked range if the
 * writer is flagged, keep marked and unmarked bytes in different skbs.
 * A flagged writer whose socket cannot be followed (table full, counted)
 * writes unmarked bytes.
 */
static void dt_send_begin(struct sock *sk, const struct dt_sender *by)
{
	bool flagged = by;
	struct tcp_sock *tp = tcp_sk(sk);
	struct dt_sock *ds;
	unsigned long irq;
	bool tail_marked;
	u32 seq, last;

	sock_owned_by_me(sk);
	ds = flagged ? dt_sock_get(sk) : dt_sock_find(sk);
	if (!ds)
		return;
	seq = READ_ONCE(tp->write_seq);
	spin_lock_irqsave(&ds->lock, irq);
	dt_ranges_prune(&ds->sent, READ_ONCE(tp->snd_una));
	/* A writer that slept in sendmsg (socket unlocked) wrote up to here. */
	dt_writer_close(ds, seq);
	tail_marked = dt_ranges_last_end(&ds->sent, &last) && last == seq;
	if (flagged) {
		ds->writer = current;
		ds->writer_start = seq;
		ds->sender = *by;
		/* A client's request starts: ingress ends it at the answer. */
		if (by->client && !ds->asker) {
			ds->asker = current;
			ds->asked_at = ktime_get_ns();
		}
	}
	if (flagged != tail_marked)
		dt_close_tail(sk);
	spin_unlock_irqrestore(&ds->lock, irq);
}

static int dt_send_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct dt_send_ctx *ctx = (void *)ri->data;
	struct sock *sk = (void *)regs_get_kernel_argument(regs, 0);
	struct dt_sender by;
	bool flagged;

	/* Nothing flagged, nothing followed: the usual case, no call. */
	if (!atomic_read(&dt_trace_active) && !dt_socks_count())
		return 1;
	flagged = dt_flag_sender(current, &by);
	if (!flagged && !dt_socks_count())
		return 1;
	rcu_read_lock();
	dt_send_begin(sk, flagged ? &by : NULL);
	rcu_read_unlock();
	ctx->sk = sk;
	/* Only flagged writes need the return: close the range, unflag. */
	return !flagged;
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
	dt_flags_response(current, sk);
	return 0;
}

#define DT_SEND_MAXACTIVE 256

static struct kretprobe dt_krp_sendmsg, dt_krp_sendpages;
static struct kretprobe *dt_send_probes[] = {
	&dt_krp_sendmsg,
	&dt_krp_sendpages,
};

static void dt_send_probe_init(struct kretprobe *rp, const char *symbol)
{
	memset(rp, 0, sizeof(*rp));
	rp->kp.symbol_name = symbol;
	rp->entry_handler = dt_send_entry;
	rp->handler = dt_send_return;
	rp->data_size = sizeof(struct dt_send_ctx);
	rp->maxactive = DT_SEND_MAXACTIVE;
}

/*
 * Whether the bytes [seq, end) of sk include marked ones; if so, by is
 * the last flagged thread that wrote on sk.
 */
static bool dt_segment_marked(const struct sock *sk, u32 seq, u32 end,
			      struct dt_sender *by)
{
	struct dt_sock *ds;
	unsigned long irq;
	bool mark;

	ds = dt_sock_find(sk);
	if (!ds)
		return false;
	spin_lock_irqsave(&ds->lock, irq);
	mark = dt_ranges_overlap(&ds->sent, seq, end) ||
	       (ds->writer && dt_seq_before(ds->writer_start, end));
	*by = ds->sender;
	spin_unlock_irqrestore(&ds->lock, irq);
	return mark;
}

/* Sets the mark in the TCP header at thoff, fixing the checksum. */
static bool dt_set_mark(struct sk_buff *skb, unsigned int thoff)
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
	((u8 *)th)[DT_MARK_BYTE] |= DT_MARK_BIT;
	inet_proto_csum_replace2(&th->check, skb, old, *word, false);
	dt_stat_inc(DT_STAT_MARKS_SENT);
	return true;
}

static unsigned int dt_egress_hook(void *priv, struct sk_buff *skb,
				   const struct nf_hook_state *state)
{
	const struct sock *sk = skb->sk;
	struct tcphdr _th;
	const struct tcphdr *th;
	struct dt_sender by;
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
	if (len <= 0 || ((const u8 *)th)[DT_MARK_BYTE] & DT_MARK_BIT)
		return NF_ACCEPT;
	seq = ntohl(th->seq);
	if (!dt_segment_marked(sk, seq, seq + len, &by))
		return NF_ACCEPT;
	if (th != &_th)		/* marking may move the header */
		th = memcpy(&_th, th, sizeof(_th));
	if (dt_set_mark(skb, thoff))
		dt_event_mark_send(skb, state->pf, th, seq, seq + len, &by);
	return NF_ACCEPT;
}

static const struct nf_hook_ops dt_egress_ops[] = {
	{
		.hook = dt_egress_hook,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_LOCAL_OUT,
		.priority = NF_IP_PRI_LAST,
	},
	{
		.hook = dt_egress_hook,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_LOCAL_OUT,
		.priority = NF_IP6_PRI_LAST,
	},
};

static int __net_init dt_egress_net_init(struct net *net)
{
	return nf_register_net_hooks(net, dt_egress_ops,
				     ARRAY_SIZE(dt_egress_ops));
}

static void __net_exit dt_egress_net_exit(struct net *net)
{
	nf_unregister_net_hooks(net, dt_egress_ops, ARRAY_SIZE(dt_egress_ops));
}

static struct pernet_operations dt_egress_net_ops = {
	.init = dt_egress_net_init,
	.exit = dt_egress_net_exit,
};

int dt_egress_arm(void)
{
	int ret;

	dt_send_probe_init(&dt_krp_sendmsg, "tcp_sendmsg_locked");
	dt_send_probe_init(&dt_krp_sendpages, "do_tcp_sendpages");
	ret = register_kretprobes(dt_send_probes, ARRAY_SIZE(dt_send_probes));
	if (ret) {
		pr_err("cannot hook TCP writes: %d\n", ret);
		return ret;
	}
	ret = register_pernet_subsys(&dt_egress_net_ops);
	if (ret) {
		pr_err("cannot hook LOCAL_OUT: %d\n", ret);
		unregister_kretprobes(dt_send_probes, ARRAY_SIZE(dt_send_probes));
	}
	return ret;
}

void dt_egress_disarm(void)
{
	unregister_pernet_subsys(&dt_egress_net_ops);
	unregister_kretprobes(dt_send_probes, ARRAY_SIZE(dt_send_probes));
}

/* Writes not seen: no free kretprobe instance, or a kprobe already running. */
unsigned long dt_egress_missed(void)
{
	return dt_krp_sendmsg.nmissed + dt_krp_sendpages.nmissed +
	       dt_krp_sendmsg.kp.nmissed + dt_krp_sendpages.kp.nmissed;
}
