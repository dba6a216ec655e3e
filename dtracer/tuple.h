/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A socket's addresses, local first (tuple.c). Its own header, so that
 * the files that only carry addresses (events.c, context.c, manual.c)
 * need nothing of the socket table's (sockets.c).
 */
#ifndef _DTRACER_TUPLE_H
#define _DTRACER_TUPLE_H

#include <linux/in6.h>
#include <linux/types.h>

struct sock;

struct dt_tuple {
	u16 family;
	__be16 lport, rport;
	struct in6_addr laddr, raddr;	/* IPv4: s6_addr32[0] only */
};

void dt_tuple_from_sock(struct dt_tuple *t, const struct sock *sk);
int dt_tuple_print(char *buf, size_t size, const struct dt_tuple *t);

#endif /* _DTRACER_TUPLE_H */
