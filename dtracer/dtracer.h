/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dtracer: zero-instrumentation distributed kernel tracing.
 * Declarations shared by the module's files.
 *
 * Locking, everywhere in the module (the lock order is kept here):
 * - Lookups (hot paths, any context) run under RCU only.
 * - Writers of the thread table hold dt_flags_lock (flags.c, shared by
 *   the files that change the table through flags-int.h), writers of the
 *   socket table hold dt_socks_lock, and a socket's ranges are read and
 *   written under its own lock. All three are taken with
 *   spin_lock_irqsave: the hooks run in process, softirq and kprobe
 *   context, and irqsave is safe in all three without ever running
 *   softirqs on unlock.
 * - Lock order: dt_narrow_lock (syscalls.c), then dt_flags_lock, then
 *   dt_socks_lock, then a socket's lock. Two places hold two of them:
 *   syscalls.c (dt_narrow_lock, then dt_flags_lock in
 *   dt_flags_set_narrowed()) and sockets.c (dt_socks_lock, then the
 *   entry's lock, to take a removed entry's contexts); the packet paths
 *   release a socket's lock before they call the thread table's files.
 * - No lock of dtracer's is taken inside the scheduler's (raw) locks,
 *   and nothing is allocated there: handoff.c's sched_waking probe reads
 *   under RCU and writes its CPU's preallocated ring, applied by an
 *   irq_work after try_to_wake_up(). Nothing done under dt_flags_lock,
 *   or under the locks after it, wakes a task or sleeps.
 * - Contexts (ctx.c) are counted by references and freed by
 *   kfree_rcu(): a pointer read under RCU may be used to the end of the
 *   section, and kept beyond it only with dt_ctx_tryget().
 * - Mutexes (process context only): dt_probe_lock (state.c), then
 *   dt_gate_lock (gate.c), then dt_syscalls_lock (syscalls.c, which
 *   registers its kretprobes under it and takes dt_narrow_lock under
 *   it); dt_trust_lock alone (it serialises writers of the trust list).
 * - deferred.c's dt_pending_lock and goroutines.c's dt_go_lock
 *   (spin_lock_irqsave) are leaves: taken with no other lock of
 *   dtracer's held, nothing taken under them. uprobes.c's mutexes (one
 *   per runtime) come after dt_probe_lock (arming registers uprobes under
 *   them).
 * - Entries are freed with kfree_rcu(); nothing sleeps under any of them.
 * - A function that must run under a lock asserts it: lockdep for locks,
 *   sock_owned_by_me() for a socket's, RCU_LOCKDEP_WARN for RCU. A lock
 *   is asserted by the file that owns it (or the files sharing it through
 *   flags-int.h), so no file calls another only to assert. Without
 *   CONFIG_LOCKDEP (Debian's kernel) the asserts compile to nothing.
 */
#ifndef _DTRACER_H
#define _DTRACER_H

#ifdef pr_fmt
#undef pr_fmt
#endif
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/refcount.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>

#include "interim.h"
#include "ranges.h"
#include "tuple.h"
#include "trace/dtracer.h"	/* event reasons; tracepoints in events.c */

struct sock;
struct task_struct;
struct tracepoint;

/* state.c: whether the packet hooks are armed. */
bool dt_probe_armed(void);
int dt_probe_set(bool arm);

/* stats.c: counters shown in /sys/distributed-tracer/stats. */
enum dt_stat {
	DT_STAT_MARKS_SENT,		/* segments leaving with the mark */
	DT_STAT_MARKS_RECEIVED,		/* trusted marked segments arriving */
	DT_STAT_MARKS_UNTRUSTED,	/* ... from untrusted sources: ignored */
	DT_STAT_PROPAGATIONS,		/* requests read: contexts started */
	DT_STAT_RESUMES,		/* threads back to a request */
	DT_STAT_HANDOFFS,		/* threads woken to serve one */
	DT_STAT_SWITCHES,		/* contexts left for other work */
	DT_STAT_INHERITS,		/* threads flagged at fork/clone */
	DT_STAT_UNFLAGS,		/* flags dropped, for any reason */
	DT_STAT_RESPONSES,		/* responses started */
	DT_STAT_EXPIRED,		/* ... then idle: response_idle_ms */
	DT_STAT_UNSOLICITED,		/* marked responses nobody asked for */
	DT_STAT_ANSWERS,		/* answers read by clients */
	DT_STAT_READS_KERNEL,		/* marked bytes a kernel read took */
	DT_STAT_SOCKETS_IDLE,		/* socket entries gone idle */
	DT_STAT_DROP_THREADS,		/* flags not set: thread table full */
	DT_STAT_DROP_RATE,		/* propagations over max_propagations */
	DT_STAT_DROP_SOCKETS,		/* sockets not followed: table full */
	DT_STAT_DROP_RANGES,		/* marked ranges lost: socket's set full */
	DT_STAT_DROP_NOMEM,		/* allocations that failed */
	DT_STAT_DROP_UNWRITABLE,	/* segments that could not be marked */
	DT_STAT_MARKS_SIGNED,		/* ... their socket signs (MD5, AO) */
	DT_STAT_RECV_NO_SOCKET,		/* marked segments with no full socket */
	DT_STAT_MARKS_OUT_OF_WINDOW,	/* ... outside the receive window */
	DT_STAT_MARKS_REJECTED,		/* ... that TCP will drop otherwise */
	DT_STAT_DROP_DEFERRED,		/* deferred calls not followed: full */
	DT_STAT_DROP_GOROUTINES,	/* goroutines not followed: full */
	DT_STAT_DROP_HANDOFFS,		/* wake-ups not handed: ring full */
	DT_STAT_DROP_PEER,		/* propagations over a peer's budget */
	DT_STAT_DROP_REQUEST,		/* threads over a request's budget */
	DT_STAT_EXPIRED_UNANSWERED,	/* in a request too long, no answer */
	DT_STAT_UNIX_HOPS,		/* requests read over AF_UNIX */
	DT_STAT_STOPS_SENT,		/* "request over" sent to a peer */
	DT_STAT_STOPPED,		/* requests ended by their client's */
	DT_STAT_INTERIM,		/* interim answers written (interim.h) */
	DT_STAT_TICKETS,		/* ... of which TLS 1.3 tickets: a guess */
	DT_STAT_H2_STREAMS,		/* HTTP/2 streams read (h2.c) */
	DT_STAT_H2_LOST,		/* HTTP/2 connections no longer counted */
	DT_STAT_DEFERRED_RESYNCS,	/* event loops' counts put right */
	DT_STAT_H2_CALLS,		/* HTTP/2 streams written upstream */
	DT_STAT_QUEUE_HANDOFFS,		/* jobs taken from a queue, traced */
	DT_STAT_DROP_QUEUE,		/* traced jobs lost: slot reused */
	DT_STAT_MOVED_UNIX_CALLS,	/* loops' UNIX calls off a stale request */
	DT_STAT_SPLIT_UNIX_CALLS,	/* UNIX calls' later writes, no context */
	DT_STAT_H2_GUESSED,		/* streams read with a traced one */
	DT_STAT_H2_OTHER_ANSWERS,	/* answers of other streams, apart */
	DT_STAT_H2_EARLIER_ANSWERS,	/* ... of an earlier traced request's */
	DT_STAT_DROP_H2_EARLIER,	/* earlier traced requests let go */
	DT_STAT_H2_EARLIER_ENDED,	/* ... whose streams all ended */
	DT_STAT_COUNT
};

void dt_stat_inc(enum dt_stat s);
void dt_stat_add(enum dt_stat s, u64 n);
u64 dt_stat_read(enum dt_stat s);
const char *dt_stat_name(enum dt_stat s);

/*
 * stats.c: table entries in memory, counted from allocation until they
 * are freed, or for removed ones until their free is queued (the
 * kernel's batched kfree_rcu(), which frees them a grace period later
 * without calling back into this module): stats' mem_threads and
 * mem_sockets, back to 0 once the tables are empty.
 */
enum dt_mem {
	DT_MEM_THREADS,
	DT_MEM_SOCKETS,
	DT_MEM_CONTEXTS,
	DT_MEM_GOROUTINES,
	DT_MEM_COUNT
};

bool dt_mem_fail_atomic(void);
void *dt_mem_zalloc(enum dt_mem m, size_t size, gfp_t gfp);
void dt_mem_free(enum dt_mem m, const void *p);
void dt_mem_forget(enum dt_mem m);
/*
 * Frees p, a struct whose struct rcu_head is field, after a grace
 * period. kfree_rcu() batches frees (one grace period for many, where a
 * call_rcu() each made RCU start a grace period for almost every
 * unflag: a request/response server paid for it on every request).
 */
#define dt_mem_free_rcu(m, p, field)		\
	do {					\
		dt_mem_forget(m);		\
		kfree_rcu(p, field);		\
	} while (0)
long dt_mem_read(enum dt_mem m);
const char *dt_mem_name(enum dt_mem m);

/* ctx.c: the requests this host serves (see there). */
struct dt_ctx {
	refcount_t ref;
	u64 id;				/* this host's number for it */
	const struct sock *sk;		/* the request's socket */
	struct dt_tuple tuple;		/* ... and its addresses */
	u32 net_mix;			/* ... and its namespace's hash mix */
	pid_t reader;			/* the thread that read it */
	unsigned int threads;		/* entries in it (dt_flags_lock) */
	bool dead;			/* the socket is gone */
	bool answered;			/* its response was written */
	struct rcu_head rcu;
};

struct dt_ctx *dt_ctx_new(const struct sock *sk);
struct dt_ctx *dt_ctx_get(struct dt_ctx *c);
bool dt_ctx_tryget(struct dt_ctx *c);
void dt_ctx_put(struct dt_ctx *c);
void dt_ctx_kill(struct dt_ctx *c);
unsigned int dt_ctx_refs(const struct dt_ctx *c);

/* flags.c: the table of flagged threads, each in one context. */
enum dt_reason {
	DT_REASON_MANUAL = DTRACER_FLAG_MANUAL,		/* add_pid */
	DT_REASON_PROPAGATED = DTRACER_FLAG_PROPAGATED,	/* read a request */
	DT_REASON_INHERITED = DTRACER_FLAG_INHERITED,	/* child of a flagged one */
	DT_REASON_RESUMED = DTRACER_FLAG_RESUMED,	/* back to a context */
	DT_REASON_HANDOFF = DTRACER_FLAG_HANDOFF,	/* woken to serve one */
	DT_REASON_DEFERRED = DTRACER_FLAG_DEFERRED,	/* its deferred call */
	DT_REASON_LOCAL = DTRACER_FLAG_LOCAL,		/* over AF_UNIX */
	DT_REASON_STREAMS = DTRACER_FLAG_STREAMS,	/* read with others */
};

/* Whether a thread entered for reason read a new request on TCP. */
static inline bool dt_reason_read(enum dt_reason reason)
{
	return reason == DT_REASON_PROPAGATED || reason == DT_REASON_STREAMS;
}

enum dt_unflag {
	DT_UNFLAG_REMOVED = DTRACER_UNFLAG_REMOVED,	/* remove_pid */
	DT_UNFLAG_EXITED = DTRACER_UNFLAG_EXITED,	/* the thread exited */
	DT_UNFLAG_RESPONSE = DTRACER_UNFLAG_RESPONSE,	/* done after answering */
	DT_UNFLAG_CLOSED = DTRACER_UNFLAG_CLOSED,	/* its socket went away */
	DT_UNFLAG_UNLOADED = DTRACER_UNFLAG_UNLOADED,	/* module unloaded */
	DT_UNFLAG_SWITCHED = DTRACER_UNFLAG_SWITCHED,	/* other work, unanswered */
};

/* Who wrote marked bytes, for dtracer_mark_send. */
struct dt_sender {
	pid_t tid, pid;
	enum dt_reason reason;
	bool client;			/* flagged for no request of its own */
	bool answered;			/* it wrote its context's response */
	struct dt_ctx *ctx;		/* else its context (valid under RCU) */
};

/*
 * Non-zero while tracing is supposed to be active: the count of flagged
 * threads. Part of the original prototype's contract, exported for the
 * lttng-modules fork.
 */
extern atomic_t dt_trace_active;
extern unsigned int dt_max_threads;
extern bool dt_inherit;
#define DT_HINT_BITS 10
extern unsigned long dt_flags_hint[];
bool dt_flagged(const struct task_struct *task);
bool dt_flag_sender(const struct task_struct *task, struct dt_sender *by);
void dt_flags_fork(struct task_struct *parent, struct task_struct *child);
void dt_flags_task_exit(struct task_struct *task);
unsigned int dt_flags_count(void);
void dt_flags_set_narrowed(bool on);
bool dt_flags_narrowed(void);

/* manual.c: add_pid, remove_pid, list_pid. */
int dt_flags_add(int *ids, int n);
int dt_flags_remove(int *ids, int n);
ssize_t dt_flags_list(char *buf, size_t size);

/* context.c: threads moving between contexts; the idle sweep; exit. */
unsigned int dt_flags_max_propagations(void);
void dt_flags_set_max_propagations(unsigned int per_second);
bool dt_flags_enter(struct task_struct *task, struct dt_ctx *c,
		    enum dt_reason reason);
bool dt_flags_enter_from(struct task_struct *task, struct dt_ctx *c,
			 enum dt_reason reason, pid_t from);
void dt_flags_leave(struct task_struct *task);
struct dt_ctx *dt_flags_ctx(struct task_struct *task, enum dt_reason *reason);
void dt_flags_wrote(struct task_struct *task, const struct sock *sk);
void dt_flags_answered(struct task_struct *task, const struct dt_ctx *c);
void dt_flags_socket_gone(const struct sock *sk);
void dt_flags_request_stopped(const struct sock *sk);
void dt_flags_end_contexts(void);
void dt_flags_exit(void);

/* lifecycle.c: fork and exit, hooked while the module is loaded. */
int dt_lifecycle_init(void);
void dt_lifecycle_exit(void);

/* The stream ids an HTTP/2 read's new streams are among (hi 0: none). */
struct dt_h2_range {
	u32 lo, hi;
};

/*
 * A traced request read on an HTTP/2 connection before the one it serves
 * now (a client that multiplexes): its streams' answers are still its,
 * until the server has ended each of them (sockets.c).
 */
struct dt_h2_earlier {
	struct dt_ctx *ctx;		/* a reference of the entry's */
	struct dt_h2_range streams;
	u8 ended;			/* its streams the server ended */
};

#define DT_H2_EARLIER 3

/* sockets.c: marked ranges of the sockets that carry marked bytes. */
struct dt_sock {
	struct hlist_node node;
	const struct sock *sk;
	spinlock_t lock;		/* guards all below */
	struct dt_ranges sent;		/* marked bytes written, not acked */
	struct dt_ranges sent_resp;	/* ... of which a response's */
	struct dt_ranges rcvd;		/* marked bytes received, not read */
	struct dt_ranges rcvd_resp;	/* ... of which a response's */
	const struct task_struct *writer; /* writing marked bytes now */
	u32 writer_start;		/* ... from this sequence number */
	bool writer_resp;		/* ... a response */
	bool writer_interim;		/* ... an interim one (interim.h) */
	bool writer_ticket;		/* ... TLS 1.3 tickets (a guess) */
	bool writer_control;		/* ... HTTP/2 connection frames */
	bool tls_hs;			/* wrote a ServerHello, read nothing since */
	bool ticket;			/* wrote tickets since served was read */
	u32 ticket_end;			/* ... up to this sequence number */
	u32 req_ack;			/* the last marked request segment's ACK */
	bool peer_answers;		/* the peer marks its responses */
	struct dt_sender sender;	/* the last flagged writer (ctx NULL) */
	struct dt_ctx *served;		/* the request read here, traced */
	/* ... its HTTP/2 streams' ids, if known (hi 0: not) */
	u32 served_h2_lo, served_h2_hi;
	/* ... write_seq when it was read, or after an interim answer */
	u32 served_seq;
	bool after_interim;		/* ... which came since its last read */
	/* the traced ones read before it, newest first (HTTP/2 only) */
	struct dt_h2_earlier earlier[DT_H2_EARLIER];
	struct dt_ctx *outstanding;	/* sent a request here, unanswered */
	bool gone;			/* out of the table: keep nothing */
	unsigned long used;		/* jiffies of its last change */
	bool connecting;		/* its first write is outstanding's */
	const struct task_struct *asker; /* a client awaiting an answer */
	const struct task_struct *client; /* a client that asked here */
	bool stop;			/* the next segment says the request is over */
	u64 asked_at;			/* ... since (monotonic ns) */
	struct rcu_head rcu;
};

extern unsigned int dt_max_sockets;
struct dt_sock *dt_sock_find(const struct sock *sk);
struct dt_sock *dt_sock_get(const struct sock *sk);
struct dt_sock *dt_sock_get_connecting(const struct sock *sk);
struct dt_sock *dt_sock_live(const struct sock *sk, struct dt_sock *ds,
			     unsigned long *irq);
void dt_sock_set_ctx(struct dt_sock *ds, struct dt_ctx **slot,
		     struct dt_ctx *c);
void dt_sock_keep_earlier(struct dt_sock *ds);
bool dt_sock_end_earlier(struct dt_sock *ds);
void dt_sock_ended_earlier(struct dt_sock *ds);
extern atomic_t dt_nsocks;

/* Sockets followed: read first thing on every packet and write. */
static inline unsigned int dt_socks_count(void)
{
	return atomic_read(&dt_nsocks);
}

int dt_sockets_arm(void);
void dt_sockets_disarm(void);

/* The mark in the TCP header (packet.h finds the header). */
#define DT_MARK_BYTE 12		/* data offset and reserved bits */
#define DT_MARK_BIT 0x08	/* the first reserved bit (never AE/NS) */
#define DT_RESP_BIT 0x04	/* the second: the bytes are a response */
/*
 * The second bit alone, on any segment (a pure ACK too) from the side
 * that asked: the request is over, nobody here follows it any more.
 */
#define DT_STOP_BITS DT_RESP_BIT

/* egress.c: record marked writes, mark leaving segments. */
int dt_egress_arm(void);
void dt_egress_disarm(void);
unsigned long dt_egress_missed(void);

/* unix.c: a request's context carried over AF_UNIX stream sockets. */
void dt_unix_arm(void);
void dt_unix_disarm(void);

/* deferred.c: an event loop's requests, until each one's upstream call. */
enum dt_fwd {
	DT_FWD_NONE,		/* no forward: the writer's context decides */
	DT_FWD_UNTRACED,	/* an untraced request's call */
	DT_FWD_TRACED,		/* a traced request's call */
};

bool dt_loop_read(const struct sock *sk, bool serving, int streams, u32 *pos);
void dt_loop_queue(u32 pos, struct dt_ctx *c);
bool dt_loop_responded(const struct sock *sk, enum dt_answer a, bool tls13,
		       u32 rec);
enum dt_fwd dt_loop_forward(const struct sock *sk, bool counted,
			    int streams, struct dt_ctx **c);
struct dt_ctx *dt_loop_take_oldest(void);
void dt_loop_answered(const struct dt_ctx *c);
void dt_loop_closed(const struct sock *sk);
void dt_loop_reset(void);

/* goroutines.c: Go's goroutines followed across threads (uprobes). */
int dt_go_arm(void);
void dt_go_disarm(void);
void dt_go_clear(void);
int dt_go_set(const char *buf, size_t len);
ssize_t dt_go_show(char *buf);
bool dt_go_thread(void);
void dt_go_untraced(void);
void dt_go_mirror(bool served);
void dt_go_task_exit(struct task_struct *task);

/* pyqueue.c: CPython's job queues followed (uprobes). */
int dt_pyq_arm(void);
void dt_pyq_disarm(void);
void dt_pyq_clear(void);
int dt_pyq_set(const char *buf, size_t len);
ssize_t dt_pyq_show(char *buf);
bool dt_pyq_process(void);

/* handoff.c: a thread serving a request hands it to the threads it wakes. */
int dt_handoff_arm(void);
void dt_handoff_disarm(void);
void dt_handoff_answered(const struct dt_ctx *c);
void dt_handoff_answered_by(pid_t reader, pid_t tgid);
bool dt_in_pool(void);

/*
 * h2.c: the streams an HTTP/2 client opens in a server's read, or in
 * its own write (a proxy's upstream connection).
 */
void dt_h2_arm(void);
struct msghdr;
int dt_h2_read(const struct sock *sk, u32 now, bool *control,
	       struct dt_h2_range *r);
struct dt_h2_ask;
int dt_h2_answer(const struct msghdr *msg, struct dt_h2_ask *ask,
		 unsigned int n);
int dt_h2_write(const struct sock *sk, const struct msghdr *msg);
void dt_h2_destroyed(const struct sock *sk);

/* early.c: marked bytes that complete a handshake, kept for its socket. */
struct nf_hook_state;
struct sk_buff;
struct tcphdr;
struct dt_early_mark {
	u32 seq, end;		/* the marked bytes */
	u32 ack;		/* ... the ACK they came with */
	bool resp;		/* ... a response's */
};

bool dt_early_note(struct sock *req, struct sk_buff *skb,
		   const struct nf_hook_state *state, const struct tcphdr *th,
		   int thoff, u32 seq, u32 len, bool resp);
bool dt_early_take(const struct sock *sk, struct dt_early_mark *m);
void dt_early_reset(void);

/* ingress.c: detect marked segments, flag the threads that read them. */
int dt_ingress_arm(void);
void dt_ingress_disarm(void);

/* trust.c: the sources whose marks are honoured. */
struct sk_buff;
struct net;
int dt_trust_init(void);
void dt_trust_exit(void);
bool dt_trusted(const struct sk_buff *skb, u8 pf, struct net *net);
int dt_trust_set(const char *buf, size_t len);
ssize_t dt_trust_show(char *buf);
int dt_trust_netns_set(const char *buf, size_t len);
ssize_t dt_trust_netns_show(char *buf);

/* gate.c: what the lttng-modules fork asks before recording an event. */
enum dt_gate_mode {
	DT_GATE_OFF,		/* stock LTTng */
	DT_GATE_GLOBAL,		/* everything while a thread is flagged */
	DT_GATE_THREAD,		/* flagged threads (and irq context) only */
	DT_GATE_COUNT
};

extern const char *const dt_gate_names[DT_GATE_COUNT];
enum dt_gate_mode dt_gate_get(void);
void dt_gate_set(enum dt_gate_mode mode);
void dt_gate_set_armed(bool armed);
bool dt_gate_attached(void);
int dt_gate_attach(void (*changed)(bool on));
void dt_gate_detach(void);
int dt_gate_syscall_probes(void *entry, void *exit);
bool dt_gate_record(void);

/* scope.c: whether a thread's system call is its request's. */
bool dt_scope_foreign(const struct dt_ctx *c);

/* syscalls.c: system call tracepoints only for flagged threads. */
void dt_syscalls_init(void);
void dt_syscalls_update(bool want);
void dt_syscalls_set_probes(void *entry, void *exit);

/* events.c: dtracer's own tracepoints (trace/dtracer.h). */
struct tcphdr;
void dt_event_mark_send(const struct sk_buff *skb, u8 pf,
			const struct tcphdr *th, u32 seq, u32 end,
			const struct dt_sender *by, bool response);
void dt_event_mark_recv(const struct sk_buff *skb, u8 pf,
			const struct tcphdr *th, u32 seq, u32 end,
			bool response);
void dt_event_flag(struct task_struct *task, enum dt_reason reason,
		   pid_t parent, const struct dt_ctx *c);
void dt_event_unflag(struct task_struct *task, enum dt_unflag reason,
		     u64 duration_ns, const struct dt_ctx *c, u64 idle_ns);
void dt_event_answer(struct task_struct *task, const struct sock *sk,
		     u64 duration_ns);

/* control.c: /sys/distributed-tracer/. */
int dt_control_init(void);
void dt_control_exit(void);

#endif /* _DTRACER_H */
