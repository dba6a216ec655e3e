/*
 * The requests model's types (requests.h tells what they mean and how
 * the builder makes them): the reasons and kinds the kernel's events
 * carry, the model (spans, messages, requests), and the builder's input
 * events. Shared by the interface (requests.h) and the internals of the
 * builder and the exports (requests-int.h, export-int.h), which do not
 * include the interface of the module above them.
 */
#ifndef DT_COLLECTOR_REQUESTS_TYPES_H
#define DT_COLLECTOR_REQUESTS_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "segments.h"

/*
 * dtracer_flag's reasons, as in probes/events/dtracer.h (their values in
 * dtracer/trace/dtracer.h). tests/build/t-names.sh checks that these,
 * dtracer_unflag's below and requests.c's names of them are the
 * kernel's.
 */
enum dt_rq_flag_reason {
	DT_RQ_FLAG_MANUAL = 0,
	DT_RQ_FLAG_PROPAGATED = 1,
	DT_RQ_FLAG_INHERITED = 2,
	DT_RQ_FLAG_RESUMED = 3,	/* another thread joined the request */
	DT_RQ_FLAG_HANDOFF = 4,	/* a thread woken by one serving it */
	DT_RQ_FLAG_DEFERRED = 5, /* an event loop writing its deferred call */
	DT_RQ_FLAG_LOCAL = 6,	/* read the request over a UNIX socket */
	DT_RQ_FLAG_STREAMS = 7,	/* read it with other HTTP/2 streams: a guess */
};

/* Whether a span of this reason began reading its request from a peer. */
static inline bool dt_rq_flag_read(enum dt_rq_flag_reason r)
{
	return r == DT_RQ_FLAG_PROPAGATED || r == DT_RQ_FLAG_STREAMS;
}

/* dtracer_unflag's reasons, plus how a span can end without one. */
enum dt_rq_end_reason {
	DT_RQ_END_REMOVED = 0,
	DT_RQ_END_EXITED = 1,
	DT_RQ_END_RESPONSE = 2,
	DT_RQ_END_CLOSED = 3,
	DT_RQ_END_UNLOADED = 4,
	DT_RQ_END_OPEN = 5,	/* no unflag before the trace ended */
	DT_RQ_END_REQUEST = 6,	/* a manual flag's request ended (its last
				 * response arrived), the flag went on */
	DT_RQ_END_SWITCHED = 7,	/* the thread turned to other work before
				 * answering, and never came back */
};

/* dtracer_unflag's reason "switched", stored as DT_RQ_END_SWITCHED. */
#define DT_RQ_UNFLAG_SWITCHED 5

/* What a blocked thread waited for, from the syscall it blocked in. */
enum dt_rq_block {
	DT_RQ_BLOCK_NETWORK,	/* socket syscalls, read/write on a socket */
	DT_RQ_BLOCK_POLL,	/* poll, select, epoll: waiting for I/O */
	DT_RQ_BLOCK_DISK,	/* file I/O, or uninterruptible sleep */
	DT_RQ_BLOCK_LOCK,	/* futex, flock */
	DT_RQ_BLOCK_SLEEP,	/* nanosleep and friends */
	DT_RQ_BLOCK_OTHER,	/* anything else, or no syscall seen */
	DT_RQ_BLOCK_N
};

struct dt_rq_syscall {
	char *name;		/* "recvfrom" (without syscall_entry_) */
	uint64_t count;		/* entries inside the span */
	int64_t time_ns;	/* entry to exit, clipped to the span (a
				 * syscall the flag or unflag came in counts
				 * from the flag or to the unflag) */
};

/* The kernel's view of one span, from its host's recorded events. */
struct dt_rq_summary {
	int64_t running_ns;	/* on a CPU */
	int64_t runnable_ns;	/* woken or preempted, waiting for a CPU */
	int64_t blocked_ns;	/* sleeping; split in blocked_on[] */
	int64_t blocked_on[DT_RQ_BLOCK_N];
	int64_t unknown_ns;	/* no event told (gate, lost events) */
	uint64_t bytes_sent;	/* new bytes of marked segments it sent */
	uint64_t bytes_received;	/* bytes of messages it received */
	uint64_t events;	/* events of this thread inside the span */
	struct dt_rq_syscall *syscalls;	/* by time, longest first */
	size_t n_syscalls;
	uint64_t syscall_count;	/* sums over syscalls[] */
	int64_t syscall_ns;
};

struct dt_rq_span {
	int id;			/* index in model->spans */
	int request;		/* index in model->requests */
	int parent;		/* span id, -1 for the root */
	int host;		/* index in model->hosts */
	int32_t tid, pid;
	char *procname;		/* the last procname context seen (exec) */
	enum dt_rq_flag_reason flag_reason;
	bool guess;		/* the kernel guessed a hop into it (handoff,
				 * deferred): docs/limitations.md */
	enum dt_rq_end_reason end_reason;
	bool flagged;		/* its thread still flagged where the events
				 * read end (a manual flag: more may come) */
	int64_t start_ns, end_ns;	/* merged clock, ns from origin */
	uint64_t duration_ns;	/* dtracer_unflag's, 0 if none */
	struct dt_flow flow;	/* a propagated span's request flow */
	int depth;		/* 0 for the root */
	struct dt_rq_summary sum;
};

/* A run of marked segments one span sent on one flow, received elsewhere. */
struct dt_rq_message {
	int id;			/* index in model->messages */
	int request;
	int from_span, to_span;	/* to_span -1 if no span received it */
	struct dt_flow flow;	/* as sent: source is from_span's host */
	int64_t send_ns, recv_ns;	/* first segment's send and receive */
	int64_t last_send_ns, last_recv_ns;
	uint64_t bytes;		/* new bytes sent (retransmissions once) */
	unsigned segments;
	bool response;		/* to the span whose request flow it answers */
};

struct dt_rq_request {
	int id;			/* index in model->requests, numbered by start */
	int root;		/* span id */
	int64_t start_ns, end_ns;
	int n_spans, n_hosts, n_messages;
	int depth;		/* deepest span's depth + 1 */
	/*
	 * The critical hop: the largest piece of the critical path (the
	 * chain of last-returning children from the root), either a span's
	 * own time (critical_span, critical_message -1) or a message's
	 * transit (critical_message; critical_span -1).
	 */
	int critical_span, critical_message;
	int64_t critical_ns;
	/*
	 * With critical_span: the hop is not the span's own time but the
	 * wait before it, from the arrival of the message that flagged it
	 * to its flag (the request queued on that host until a thread read
	 * it: accept, fork, a busy worker).
	 */
	bool critical_wait;
	int *spans;		/* ids, depth-first from the root, n_spans */
	int *messages;		/* ids by send time, n_messages */
};

struct dt_rq_model {
	char **hosts;		/* host names (trace's hostname) */
	int n_hosts;
	struct dt_rq_span *spans;
	int n_spans;
	struct dt_rq_message *messages;
	int n_messages;
	struct dt_rq_request *requests;
	int n_requests;
	/* What could not be placed (printed as notes, never fatal). */
	uint64_t unmatched_sends, unmatched_recvs, orphan_spans;
	uint64_t dtracer_events;	/* flag, unflag and mark events read */
	uint64_t events;	/* all events read */
	char *sync_report;	/* MERGED/sync.txt's content, or NULL */
};

/* The events the builder understands, already in the merged clock. */
enum dt_rq_event_kind {
	DT_RQ_EV_FLAG,
	DT_RQ_EV_UNFLAG,
	DT_RQ_EV_MARK_SEND,
	DT_RQ_EV_MARK_RECV,
	DT_RQ_EV_SCHED_SWITCH,	/* tid = prev_tid, next_tid, prev_state */
	DT_RQ_EV_SCHED_WAKEUP,	/* tid = the woken thread */
	DT_RQ_EV_SYSCALL_ENTRY,	/* tid = current; name, fd (-1 if none) */
	DT_RQ_EV_SYSCALL_EXIT,	/* tid = current; name, ret */
	DT_RQ_EV_OTHER,		/* anything else: tid = current (running) */
};

struct dt_rq_event {
	enum dt_rq_event_kind kind;
	int host;		/* from dt_rq_host() */
	int64_t ts;		/* ns from origin, merged clock */
	int32_t tid, pid;	/* the event's fields (flag, unflag, send)
				 * or its tid context (others); -1 unknown */
	int32_t ctx_tid;	/* the tid context (the thread it ran in),
				 * -1 if none or unknown */
	const char *procname;	/* the context's, may be NULL */
	int reason;		/* flag/unflag reason */
	int32_t parent;		/* flag: inherited from this tid */
	uint64_t duration_ns;	/* unflag */
	uint64_t context;	/* flag, unflag: the host's request number */
	uint64_t idle_ns;	/* unflag (response): since its last write */
	struct dt_flow flow;	/* flag (propagated), send, recv */
	uint32_t seq, end_seq;	/* send, recv */
	int32_t next_tid;	/* sched_switch */
	int64_t prev_state;	/* sched_switch: 0 runnable (preempted) */
	const char *name;	/* syscall name without the prefix */
	int64_t fd;		/* syscall entry: fd argument, -1 if none */
	int64_t ret;		/* syscall exit */
};

#endif
