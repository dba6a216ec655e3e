// SPDX-License-Identifier: GPL-2.0
/*
 * A socket's addresses (struct dt_tuple, tuple.h): taken from the socket,
 * printed for list_pid, put into dtracer's events.
 */
#include "tuple.h"

#include <linux/kernel.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>

void dt_tuple_from_sock(struct dt_tuple *t, const struct sock *sk)
{
	const struct inet_sock *inet = inet_sk(sk);

	memset(t, 0, sizeof(*t));
	t->family = sk->sk_family;
	t->lport = inet->inet_sport;
	t->rport = inet->inet_dport;
#if IS_ENABLED(CONFIG_IPV6)
	/* An IPv6 socket talking IPv4 (v4-mapped) is IPv4 on the wire. */
	if (sk->sk_family == AF_INET6 &&
	    !(ipv6_addr_v4mapped(&sk->sk_v6_rcv_saddr) &&
	      ipv6_addr_v4mapped(&sk->sk_v6_daddr))) {
		t->laddr = sk->sk_v6_rcv_saddr;
		t->raddr = sk->sk_v6_daddr;
		return;
	}
	t->family = AF_INET;
#endif
	t->laddr.s6_addr32[0] = inet->inet_saddr;
	t->raddr.s6_addr32[0] = inet->inet_daddr;
}

/* "LOCAL REMOTE", each address:port, IPv6 addresses in brackets. */
int dt_tuple_print(char *buf, size_t size, const struct dt_tuple *t)
{
	if (t->family == AF_INET6)
		return snprintf(buf, size, "[%pI6c]:%u [%pI6c]:%u",
				&t->laddr, ntohs(t->lport),
				&t->raddr, ntohs(t->rport));
	return snprintf(buf, size, "%pI4:%u %pI4:%u",
			&t->laddr.s6_addr32[0], ntohs(t->lport),
			&t->raddr.s6_addr32[0], ntohs(t->rport));
}
