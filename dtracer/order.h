/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One event loop's order (deferred.c keeps one per thread): the requests
 * it read, the upstream calls it wrote and the responses, as counts, so
 * that a call can be given the position of the request it carries. The
 * count checks itself against the one link the kernel sees exactly: a
 * response written right after the answer of a call (a proxy answers
 * its client when its upstream answers). Plain C with no kernel
 * dependency: the userspace unit tests build this very file. Sockets
 * are given as hashes (never 0: 0 is a free entry).
 */
#ifndef _DTRACER_ORDER_H
#define _DTRACER_ORDER_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "kernel-types.h"	/* tests/unit/: u8, u16, u32, u64, s32, bool */
#endif

#include "interim.h"

/* What a loop did last. */
enum dt_order_op {
	DT_ORDER_NONE,
	DT_ORDER_READ,		/* read a request */
	DT_ORDER_ANSWER,	/* read on a connection it opened */
	DT_ORDER_RESPONSE,	/* wrote on a connection it accepted */
	DT_ORDER_FORWARD,	/* wrote a request upstream, or connected */
};

/* A TLS handshake this loop answers (interim.h): where it stands. */
enum dt_hs_state {
	DT_HS_HELLO = 1,	/* ServerHello written */
	DT_HS_TLS13,		/* ... a TLS 1.3 flight: tickets next */
	DT_HS_TICKETED,		/* ... tickets written after a read */
};

struct dt_order_hs {
	u32 sk;			/* its socket; 0: free */
	u32 pos;		/* the read its tickets followed */
	u16 rec;		/* ... the first ticket's record size */
	u8 state;		/* enum dt_hs_state */
};

#define DT_ORDER_HS 4

/*
 * A socket's last call written: its position, and the loop's last read
 * when it was written (a loop that calls as it reads: its request's).
 */
struct dt_order_at {
	u32 sk;			/* 0: free */
	u32 pos;
	u32 read;		/* that read's position ... */
	u16 tag;		/* ... and socket (the ring's tag; 0: none) */
	u16 gen;		/* the count it was given by (resyncs) */
};

#define DT_ORDER_AT_BITS 3
#define DT_ORDER_AT 8		/* 2 ^ DT_ORDER_AT_BITS */
/* The last reads' sockets, by position (a power of 2). */
#define DT_ORDER_RING 32

struct dt_order {
	u32 reads, fwds, resps;
	u32 sk;			/* the last op's socket */
	u8 last;		/* enum dt_order_op */
	/*
	 * The reads from fwds on (bit i: fwds + i) that the calls in order
	 * skip, and those of them called out of order.
	 */
	u64 skipped, taken;
	struct dt_order_hs hs[DT_ORDER_HS];
	/*
	 * The check: the sockets of the last reads (ring[pos % 32]: a
	 * hash's top 16 bits, 0 for none), where the calls were written (a
	 * slot by hash, a few sockets of many, each with the last read
	 * before it), the answers read since the
	 * last response (ans: the first one's socket; many: of another
	 * socket too), the last check's distance and how many times the
	 * count was put right.
	 */
	u16 ring[DT_ORDER_RING];
	struct dt_order_at fw[DT_ORDER_AT];
	u32 ans;
	bool many;
	s32 drift;
	u32 resyncs;
};

/* What a write on a connection the loop opened is. */
enum dt_order_fwd {
	DT_ORDER_NO_CALL,	/* no call of a request read here */
	DT_ORDER_IN_ORDER,	/* the call of the request read at *pos */
	DT_ORDER_EXACT,		/* ... out of order (after TLS 1.3 tickets) */
};

void dt_order_reset(struct dt_order *o);
bool dt_order_read(struct dt_order *o, u32 sk, bool serving, int streams,
		   u32 *pos);
bool dt_order_responded(struct dt_order *o, u32 sk, enum dt_answer a,
			bool tls13, u32 rec);
void dt_order_closed(struct dt_order *o, u32 sk);
void dt_order_idle(struct dt_order *o);
enum dt_order_fwd dt_order_forward(struct dt_order *o, u32 sk, bool counted,
				   int streams, u32 *pos, u32 *end);

#endif
