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
#define DTRACER_FLAG_RESUMED	3	/* back to a request's context */
#define DTRACER_FLAG_HANDOFF	4	/* woken by a thread serving one */
#define DTRACER_FLAG_DEFERRED	5	/* writes a request's deferred call */
#define DTRACER_FLAG_LOCAL	6	/* read a request over AF_UNIX */
#define DTRACER_FLAG_STREAMS	7	/* ... with other HTTP/2 streams */

/* dtracer_unflag's reason (enum dt_unflag). */
#define DTRACER_UNFLAG_REMOVED	0	/* remove_pid */
#define DTRACER_UNFLAG_EXITED	1	/* the thread exited */
#define DTRACER_UNFLAG_RESPONSE	2	/* done after writing the response */
#define DTRACER_UNFLAG_CLOSED	3	/* the request's socket went away */
#define DTRACER_UNFLAG_UNLOADED	4	/* dtracer.ko unloaded */
#define DTRACER_UNFLAG_SWITCHED	5	/* to other work before answering */

#endif /* _DTRACER_TRACE_TYPES_H */

#if !defined(_DTRACER_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _DTRACER_TRACE_H

#include <linux/tracepoint.h>

/*
 * tid, pid: the thread that wrote the bytes, when known (0 otherwise);
 * reason: its flag's reason; response: 1 if the segment also carries
 * the second mark (its bytes answer a request), 0 for a request's.
 */
DECLARE_TRACE(dtracer_mark_send,
	TP_PROTO(const struct dtracer_addrs *a, u32 seq, u32 end_seq,
		 pid_t tid, pid_t pid, int reason, int response),
	TP_ARGS(a, seq, end_seq, tid, pid, reason, response));

DECLARE_TRACE(dtracer_mark_recv,
	TP_PROTO(const struct dtracer_addrs *a, u32 seq, u32 end_seq,
		 int response),
	TP_ARGS(a, seq, end_seq, response));

/*
 * parent: the parent's tid when inherited, else 0; context: this host's
 * number for the request served (0: a client's flag), the same number
 * when a thread comes back to it (reason resumed).
 */
DECLARE_TRACE(dtracer_flag,
	TP_PROTO(pid_t tid, pid_t pid, int reason, pid_t parent,
		 const struct dtracer_addrs *a, u64 context),
	TP_ARGS(tid, pid, reason, parent, a, context));

/*
 * duration_ns: how long the thread was flagged (monotonic clock);
 * request: 1 if the flag was a request's (propagated, inherited from a
 * propagated thread, resumed), so that its end is the end of its part
 * in serving it; 0 for a client's flag (add_pid, or inherited from such
 * a thread); context: as dtracer_flag's; idle_ns: the time since the
 * thread's last write of the response (reason response; else 0), so
 * that the span ends with its last write.
 */
DECLARE_TRACE(dtracer_unflag,
	TP_PROTO(pid_t tid, pid_t pid, int reason, u64 duration_ns,
		 int request, u64 context, u64 idle_ns),
	TP_ARGS(tid, pid, reason, duration_ns, request, context, idle_ns));

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
