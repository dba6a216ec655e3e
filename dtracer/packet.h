/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding the TCP header of a packet at a netfilter hook: inline, as both
 * hooks ask it of every packet.
 */
#ifndef DT_PACKET_H
#define DT_PACKET_H

#include <linux/ip.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <net/ip.h>
#include <net/ipv6.h>

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

#endif /* DT_PACKET_H */
