/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dtracer's tracepoints: the contract with the LTTng probe provider in
 * probes/ (which includes this file to check its prototypes). They are
 * plain tracepoints, no ftrace events: with no probe attached, each costs
 * a patched-out branch.
 *
 *   dtracer_mark_send	a marked TCP segment leaves (netfilter LOCAL_OUT)
 *   dtracer_mark_recv	a marked TCP segment with data arrives (LOCAL_IN)
 *   dtracer_flag	a thread is flagged
 *   dtracer_unflag	a thread's flag is dropped
 *   dtracer_answer	a client read the answer to what it sent
 *
 * Addresses are given as on the wire, source first, so a send on one host
 * and the receive of the same bytes on another carry the same addresses,
 * ports and overlapping [seq, end_seq) ranges (TSO/GRO may cut or merge
 * segments). For a flag, the source is the peer whose request caused it.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM dtracer

#ifndef _DTRACER_TRACE_TYPES_H
#define _DTRACER_TRACE_TYPES_H

#include <linux/types.h>

/* Addresses of a segment, or of the request behind a flag. */
struct dtracer_addrs {
	u8 family;		/* AF_INET, AF_INET6, or 0: none */
	u8 len;			/* bytes used in saddr and daddr: 4, 16, 0 */
	__be16 sport, dport;
	u8 saddr[16], daddr[16];
};

/* dtracer_flag's reason (enum dt_reason). */
#define DTRACER_FLAG_MANUAL	0	/* add_pid */
#define DTRACER_FLAG_PROPAGATED	1	/* read marked bytes */
#define DTRACER_FLAG_INHERITED	2	/* child of a flagged thread */

/* dtracer_unflag's reason (enum dt_unflag). */
#define DTRACER_UNFLAG_REMOVED	0	/* remove_pid */
#define DTRACER_UNFLAG_EXITED	1	/* the thread exited */
#define DTRACER_UNFLAG_RESPONSE	2	/* answered on the request's socket */
#define DTRACER_UNFLAG_CLOSED	3	/* the request's socket went away */
#define DTRACER_UNFLAG_UNLOADED	4	/* dtracer.ko unloaded */

#endif /* _DTRACER_TRACE_TYPES_H */

#if !defined(_DTRACER_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _DTRACER_TRACE_H

#include <linux/tracepoint.h>

/*
 * tid, pid: the thread that wrote the bytes, when known (0 otherwise);
 * reason: its flag's reason.
 */
DECLARE_TRACE(dtracer_mark_send,
	TP_PROTO(const struct dtracer_addrs *a, u32 seq, u32 end_seq,
		 pid_t tid, pid_t pid, int reason),
	TP_ARGS(a, seq, end_seq, tid, pid, reason));

DECLARE_TRACE(dtracer_mark_recv,
	TP_PROTO(const struct dtracer_addrs *a, u32 seq, u32 end_seq),
	TP_ARGS(a, seq, end_seq));

/* parent: the parent's tid when inherited, else 0. */
DECLARE_TRACE(dtracer_flag,
	TP_PROTO(pid_t tid, pid_t pid, int reason, pid_t parent,
		 const struct dtracer_addrs *a),
	TP_ARGS(tid, pid, reason, parent, a));

/*
 * duration_ns: how long the thread was flagged (monotonic clock);
 * request: 1 if the flag was a request's (propagated, or inherited from
 * a propagated thread), so that its end is the end of serving it; 0 for
 * a client's flag (add_pid, or inherited from such a thread).
 */
DECLARE_TRACE(dtracer_unflag,
	TP_PROTO(pid_t tid, pid_t pid, int reason, u64 duration_ns,
		 int request),
	TP_ARGS(tid, pid, reason, duration_ns, request));

/*
 * A client thread (flagged with no request of its own: add_pid, or
 * inherited from such a thread) read the first marked bytes answering
 * what it sent on a socket: the end of one of its requests. duration_ns:
 * since its first marked write on that socket after the previous answer
 * (monotonic clock); the addresses are the socket's, the peer (the
 * answering server) as the source.
 */
DECLARE_TRACE(dtracer_answer,
	TP_PROTO(pid_t tid, pid_t pid, const struct dtracer_addrs *a,
		 u64 duration_ns),
	TP_ARGS(tid, pid, a, duration_ns));

#endif /* _DTRACER_TRACE_H */

/* This part must be outside the protection. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH trace
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE dtracer
#include <trace/define_trace.h>
