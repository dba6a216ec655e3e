/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding the TCP header of a packet at a netfilter hook, and the side of
 * a connection a socket is: inline, as the packet paths ask them of every
 * packet, read and write.
 */
#ifndef DT_PACKET_H
#define DT_PACKET_H

#include <linux/ip.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sock.h>

/*
 * Offset of the TCP header in skb, whose data starts at the network
 * header (LOCAL_IN, LOCAL_OUT), or -1 for anything but an unfragmented
 * TCP packet. pf: NFPROTO_IPV4 or NFPROTO_IPV6.
 */
static inline int dt_tcp_offset(struct sk_buff *skb, u8 pf)
{
	const struct iphdr *iph;
	int thoff = 0;

	if (pf == NFPROTO_IPV4) {
		iph = ip_hdr(skb);
		if (iph->protocol != IPPROTO_TCP || ip_is_fragment(iph))
			return -1;
		return skb_network_offset(skb) + ip_hdrlen(skb);
	}
	if (ipv6_find_hdr(skb, &thoff, IPPROTO_TCP, NULL, NULL) != IPPROTO_TCP)
		return -1;
	return thoff;
}

/*
 * A connection accepted from a listener keeps the listener's backlog
 * (sk_clone_lock() copies it, nothing resets it): on it this host serves.
 * One made by connect() never listened: on it this host asks. A listener
 * made with listen(fd, 0) passes its connections for asking ones.
 */
static inline bool dt_serving_side(const struct sock *sk)
{
	return READ_ONCE(sk->sk_max_ack_backlog) > 0;
}

/*
 * Whether sk signs its segments (TCP-MD5, TCP-AO): the signature covers
 * the header's reserved bits. Sent: it is made before LOCAL_OUT, so a
 * mark set there would make the peer drop the segment, and every
 * retransmission (egress.c leaves them unmarked). Received: TCP checks
 * it after LOCAL_IN (ingress.c takes no mark there).
 */
static inline bool dt_sock_signed(const struct sock *sk)
{
#ifdef CONFIG_TCP_MD5SIG
	if (rcu_access_pointer(tcp_sk(sk)->md5sig_info))
		return true;
#endif
#ifdef CONFIG_TCP_AO
	if (rcu_access_pointer(tcp_sk(sk)->ao_info))
		return true;
#endif
	return false;
}

#endif /* DT_PACKET_H */
