/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dtracer's events, declared with LTTng's probe macros over dtracer.ko's
 * tracepoints (dtracer/trace/dtracer.h, same prototypes).
 *
 * Addresses are as on the wire, source first; saddr and daddr are 4 bytes
 * (IPv4) or 16 (IPv6), in network order. A dtracer_mark_send on one host
 * and the dtracer_mark_recv of the same bytes on another have the same
 * family, addresses and ports, and [seq, end_seq) ranges that overlap
 * (TSO and GRO may cut or merge segments; a retransmission sends again).
 * Sequence numbers are TCP's, modulo 2^32.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM dtracer

#if !defined(LTTNG_TRACE_DTRACER_H) || defined(TRACE_HEADER_MULTI_READ)
#define LTTNG_TRACE_DTRACER_H

#include <lttng/tracepoint-event.h>
#include <linux/socket.h>
#include <linux/types.h>

#ifndef _DTRACER_LTTNG_ONCE
#define _DTRACER_LTTNG_ONCE
/* The addresses and ports of a dtracer_addrs, as fields. */
#define dtracer_ctf_addrs(a)						\
	ctf_enum(dtracer_family, u8, family, (a)->family)		\
	ctf_sequence(u8, saddr, (a)->saddr, u8, (a)->len)		\
	ctf_sequence(u8, daddr, (a)->daddr, u8, (a)->len)		\
	ctf_integer_network(u16, sport, (a)->sport)			\
	ctf_integer_network(u16, dport, (a)->dport)
#endif

LTTNG_TRACEPOINT_ENUM(dtracer_family,
	TP_ENUM_VALUES(
		ctf_enum_value("none", 0)
		ctf_enum_value("inet", AF_INET)
		ctf_enum_value("inet6", AF_INET6)
	)
)

LTTNG_TRACEPOINT_ENUM(dtracer_flag_reason,
	TP_ENUM_VALUES(
		ctf_enum_value("manual", DTRACER_FLAG_MANUAL)
		ctf_enum_value("propagated", DTRACER_FLAG_PROPAGATED)
		ctf_enum_value("inherited", DTRACER_FLAG_INHERITED)
		ctf_enum_value("resumed", DTRACER_FLAG_RESUMED)
		ctf_enum_value("handoff", DTRACER_FLAG_HANDOFF)
		ctf_enum_value("deferred", DTRACER_FLAG_DEFERRED)
		ctf_enum_value("local", DTRACER_FLAG_LOCAL)
		ctf_enum_value("streams", DTRACER_FLAG_STREAMS)
	)
)

LTTNG_TRACEPOINT_ENUM(dtracer_unflag_reason,
	TP_ENUM_VALUES(
		ctf_enum_value("removed", DTRACER_UNFLAG_REMOVED)
		ctf_enum_value("exited", DTRACER_UNFLAG_EXITED)
		ctf_enum_value("response", DTRACER_UNFLAG_RESPONSE)
		ctf_enum_value("closed", DTRACER_UNFLAG_CLOSED)
		ctf_enum_value("unloaded", DTRACER_UNFLAG_UNLOADED)
		ctf_enum_value("switched", DTRACER_UNFLAG_SWITCHED)
	)
)

/*
 * A marked segment leaves; tid, pid: who wrote its bytes (0 if unknown);
 * response: 1 if it carries the response mark too.
 */
LTTNG_TRACEPOINT_EVENT(dtracer_mark_send,
	TP_PROTO(const struct dtracer_addrs *a, u32 seq, u32 end_seq,
		 pid_t tid, pid_t pid, int reason, int response),
	TP_ARGS(a, seq, end_seq, tid, pid, reason, response),
	TP_FIELDS(
		ctf_integer(pid_t, tid, tid)
		ctf_integer(pid_t, pid, pid)
		dtracer_ctf_addrs(a)
		ctf_integer(u32, seq, seq)
		ctf_integer(u32, end_seq, end_seq)
		ctf_enum(dtracer_flag_reason, u8, reason, reason)
		ctf_integer(u8, response, response)
	)
)

/* A marked segment with data arrives (response: as dtracer_mark_send's). */
LTTNG_TRACEPOINT_EVENT(dtracer_mark_recv,
	TP_PROTO(const struct dtracer_addrs *a, u32 seq, u32 end_seq,
		 int response),
	TP_ARGS(a, seq, end_seq, response),
	TP_FIELDS(
		dtracer_ctf_addrs(a)
		ctf_integer(u32, seq, seq)
		ctf_integer(u32, end_seq, end_seq)
		ctf_integer(u8, response, response)
	)
)

/*
 * A thread is flagged. propagated: the addresses are the request's
 * (source: the peer that sent it); resumed: back to the context of an
 * earlier flag, same context and addresses; inherited: parent is the
 * parent's tid and the addresses its request's, if any; manual: family
 * none. context: this host's number for the request (0: a client's).
 */
LTTNG_TRACEPOINT_EVENT(dtracer_flag,
	TP_PROTO(pid_t tid, pid_t pid, int reason, pid_t parent,
		 const struct dtracer_addrs *a, u64 context),
	TP_ARGS(tid, pid, reason, parent, a, context),
	TP_FIELDS(
		ctf_integer(pid_t, tid, tid)
		ctf_integer(pid_t, pid, pid)
		ctf_enum(dtracer_flag_reason, u8, reason, reason)
		ctf_integer(pid_t, parent, parent)
		dtracer_ctf_addrs(a)
		ctf_integer(u64, context, context)
	)
)

/*
 * A thread's flag is dropped, after duration_ns; request is 1 if the flag
 * was a request's (its end is the end of its part in serving it), 0 for
 * a client's; context: as dtracer_flag's; idle_ns (reason response): the
 * time since its last write of the response.
 */
LTTNG_TRACEPOINT_EVENT(dtracer_unflag,
	TP_PROTO(pid_t tid, pid_t pid, int reason, u64 duration_ns,
		 int request, u64 context, u64 idle_ns),
	TP_ARGS(tid, pid, reason, duration_ns, request, context, idle_ns),
	TP_FIELDS(
		ctf_integer(pid_t, tid, tid)
		ctf_integer(pid_t, pid, pid)
		ctf_enum(dtracer_unflag_reason, u8, reason, reason)
		ctf_integer(u64, duration_ns, duration_ns)
		ctf_integer(u8, request, request)
		ctf_integer(u64, context, context)
		ctf_integer(u64, idle_ns, idle_ns)
	)
)

/*
 * A client thread read the answer to what it sent on a socket, duration_ns
 * after its first marked write there (the end of one of its requests);
 * addresses: the socket's, the answering peer as the source.
 */
LTTNG_TRACEPOINT_EVENT(dtracer_answer,
	TP_PROTO(pid_t tid, pid_t pid, const struct dtracer_addrs *a,
		 u64 duration_ns),
	TP_ARGS(tid, pid, a, duration_ns),
	TP_FIELDS(
		ctf_integer(pid_t, tid, tid)
		ctf_integer(pid_t, pid, pid)
		dtracer_ctf_addrs(a)
		ctf_integer(u64, duration_ns, duration_ns)
	)
)

#endif /* LTTNG_TRACE_DTRACER_H */

/* This part must be outside protection. */
#include <lttng/define_trace.h>
