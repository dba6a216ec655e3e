// SPDX-License-Identifier: GPL-2.0
/*
 * dtracer's tracepoints (trace/dtracer.h) and the code that fills them.
 * Every helper first asks whether a probe is attached, so with no LTTng
 * session listening an event costs a patched-out branch.
 */
#include "dtracer.h"

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <linux/tcp.h>

#define CREATE_TRACE_POINTS
#include "trace/dtracer.h"

/* Addresses of the segment skb (data at its network header), from th. */
static void dt_addrs_from_skb(struct dtracer_addrs *a,
			      const struct sk_buff *skb, u8 pf,
			      const struct tcphdr *th)
{
	memset(a, 0, sizeof(*a));
	if (pf == NFPROTO_IPV4) {
		const struct iphdr *iph = ip_hdr(skb);

		a->family = AF_INET;
		a->len = 4;
		memcpy(a->saddr, &iph->saddr, 4);
		memcpy(a->daddr, &iph->daddr, 4);
	} else {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		a->family = AF_INET6;
		a->len = 16;
		memcpy(a->saddr, &ip6h->saddr, 16);
		memcpy(a->daddr, &ip6h->daddr, 16);
	}
	a->sport = th->source;
	a->dport = th->dest;
}

/* A socket's addresses (t: local first), the peer as the source. */
static void dt_addrs_from_peer(struct dtracer_addrs *a,
			       const struct dt_tuple *t)
{
	memset(a, 0, sizeof(*a));
	if (t->family != AF_INET && t->family != AF_INET6)
		return;
	a->family = t->family;
	a->len = t->family == AF_INET ? 4 : 16;
	memcpy(a->saddr, &t->raddr, a->len);
	memcpy(a->daddr, &t->laddr, a->len);
	a->sport = t->rport;
	a->dport = t->lport;
}

void dt_event_mark_send(const struct sk_buff *skb, u8 pf,
			const struct tcphdr *th, u32 seq, u32 end,
			const struct dt_sender *by, bool response)
{
	struct dtracer_addrs a;

	if (!trace_dtracer_mark_send_enabled())
		return;
	dt_addrs_from_skb(&a, skb, pf, th);
	trace_dtracer_mark_send(&a, seq, end, by->tid, by->pid, by->reason,
				response);
}

void dt_event_mark_recv(const struct sk_buff *skb, u8 pf,
			const struct tcphdr *th, u32 seq, u32 end,
			bool response)
{
	struct dtracer_addrs a;

	if (!trace_dtracer_mark_recv_enabled())
		return;
	dt_addrs_from_skb(&a, skb, pf, th);
	trace_dtracer_mark_recv(&a, seq, end, response);
}

/* c: the request served (its addresses, its number), NULL: a client. */
void dt_event_flag(struct task_struct *task, enum dt_reason reason,
		   pid_t parent, const struct dt_ctx *c)
{
	static const struct dt_tuple none;
	struct dtracer_addrs a;

	if (!trace_dtracer_flag_enabled())
		return;
	dt_addrs_from_peer(&a, c ? &c->tuple : &none);
	trace_dtracer_flag(task_pid_nr(task), task_tgid_nr(task), reason,
			   parent, &a, c ? c->id : 0);
}

void dt_event_unflag(struct task_struct *task, enum dt_unflag reason,
		     u64 duration_ns, const struct dt_ctx *c, u64 idle_ns)
{
	if (!trace_dtracer_unflag_enabled())
		return;
	trace_dtracer_unflag(task_pid_nr(task), task_tgid_nr(task), reason,
			     duration_ns, !!c, c ? c->id : 0, idle_ns);
}

void dt_event_answer(struct task_struct *task, const struct sock *sk,
		     u64 duration_ns)
{
	struct dtracer_addrs a;
	struct dt_tuple t;

	if (!trace_dtracer_answer_enabled())
		return;
	dt_tuple_from_sock(&t, sk);
	dt_addrs_from_peer(&a, &t);
	trace_dtracer_answer(task_pid_nr(task), task_tgid_nr(task), &a,
			     duration_ns);
}
