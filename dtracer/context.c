// SPDX-License-Identifier: GPL-2.0
/*
 * Request contexts: the threads moving between them (the contexts
 * themselves, their references and their end: ctx.c). A context starts
 * when a thread reads marked request bytes on a socket (ingress.c); the
 * threads serving it point at it (their entries in the thread table,
 * flags.c), and so do two kinds of socket entries (sockets.c): the
 * request's socket ("served": whoever writes there writes this
 * request's response) and the connections the context sent requests on
 * ("outstanding": whoever reads the answer there works for this context
 * again).
 *
 * A thread is in one context at a time: the request it works for now.
 * Reading a request moves it to that request's context; reading the
 * answer to a context's upstream request, or writing on a traced
 * request's socket, moves it back to that context (resumed); turning to
 * untraced work (reading unmarked bytes, answering an untraced request)
 * takes it out (switched, or response once it has written its
 * response). Clients (add_pid, and their children) have no context and
 * stay flagged whatever they read or write. A thread that answered and
 * then does nothing on TCP for response_idle_ms leaves too (a sweep,
 * counted in expired): the end of a keep-alive server thread's response.
 *
 * Propagations are rate limited: at most max_propagations new flags per
 * second (a ratelimit_state, taken under dt_flags_lock, so that its
 * trylock never fails for contention). A flood of marked segments from a
 * trusted peer cannot keep this host tracing at will; the refused ones
 * are counted (drops_rate). Nor can one peer use that budget up for the
 * others: each peer address of each network namespace has
 * max_propagations_per_peer a second (module parameter, default 500:
 * half the default max_propagations; drops_rate_peer), counted in 256
 * slots by hash of the address and the namespace under dt_flags_lock
 * (two peers sharing a slot restart each other's second: a collision
 * gives more, never less). A container's 127.0.0.1 is not the host's.
 * And one request cannot fill the table: a context holds at most
 * max_threads_per_request threads (default 64; its readers, workers
 * handed it, children; drops_request_threads).
 *
 * Every thread in a context leaves it in bounded time: one that
 * answered, response_idle_ms after its last write (expired); one that
 * never answered (a pool's reader, a worker handed the request, a
 * child), unanswered_ms after it entered (default 600,000: ten minutes;
 * expired_unanswered; the event says switched).
 *
 * Locking: the moves change the thread table
 * under dt_flags_lock (flags-int.h), as does the sweep, which is a work
 * item (process context) armed with a delay under that lock, so that
 * nothing under it wakes a task.
 */
#include "flags-int.h"

#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

static unsigned int dt_response_idle_ms = 1000;
module_param_named(response_idle_ms, dt_response_idle_ms, uint, 0644);
MODULE_PARM_DESC(response_idle_ms,
		 "a thread that answered and then did nothing on TCP for this long leaves the request (0: never)");

static unsigned int dt_unanswered_ms = 600000;
module_param_named(unanswered_ms, dt_unanswered_ms, uint, 0644);
MODULE_PARM_DESC(unanswered_ms,
		 "a thread in a request that has not answered it this long after it entered leaves it (0: never)");

static unsigned int dt_peer_propagations = 500;
module_param_named(max_propagations_per_peer, dt_peer_propagations, uint, 0644);
MODULE_PARM_DESC(max_propagations_per_peer,
		 "new propagated flags allowed per second for the requests of one peer address (0: no limit)");

#define DT_PEERS_BITS 8

/* A peer's second: under dt_flags_lock. */
struct dt_peer_budget {
	u32 key;			/* hash of the address */
	unsigned long begin;		/* jiffies: the second began */
	unsigned int used;
};

static struct dt_peer_budget dt_peers[1 << DT_PEERS_BITS];

static void dt_expire(struct work_struct *work);
static void dt_expire_arm_locked(u64 since);
static DECLARE_DELAYED_WORK(dt_expire_work, dt_expire);
static bool dt_expire_stopped;		/* under dt_flags_lock: module exit */

#define DT_PROPAGATIONS_DEFAULT 1000	/* per second */
static struct ratelimit_state dt_propagation_rate =
	RATELIMIT_STATE_INIT_FLAGS(dt_propagation_rate, HZ,
				   DT_PROPAGATIONS_DEFAULT,
				   RATELIMIT_MSG_ON_RELEASE);

/* New propagated flags allowed per second; 0: no limit. */
unsigned int dt_flags_max_propagations(void)
{
	return READ_ONCE(dt_propagation_rate.interval) ?
	       READ_ONCE(dt_propagation_rate.burst) : 0;
}

/*
 * A new limit starts a new second: the propagations counted under the
 * old one (up to 1,000 by default) do not use up the new budget.
 */
void dt_flags_set_max_propagations(unsigned int per_second)
{
	unsigned long irq;

	spin_lock_irqsave(&dt_flags_lock, irq);
	WRITE_ONCE(dt_propagation_rate.burst, per_second);
	WRITE_ONCE(dt_propagation_rate.interval, per_second ? HZ : 0);
	dt_propagation_rate.begin = 0;
	dt_propagation_rate.printed = 0;
	dt_propagation_rate.missed = 0;
	spin_unlock_irqrestore(&dt_flags_lock, irq);
}

/*
 * Whether task's entry stays as it is: 1 if it is in c already, -1 if it
 * is a client's; else 0.
 */
int dt_flags_staying(const struct task_struct *task, const struct dt_ctx *c)
{
	struct dt_flag *f;
	int stay = 0;

	if (!atomic_read(&dt_trace_active))
		return 0;
	rcu_read_lock();
	f = dt_flag_find(task);
	if (f)
		stay = !f->ctx ? -1 : f->ctx == c;
	rcu_read_unlock();
	return stay;
}

/*
 * Under dt_flags_lock: whether c's peer (the request's source address,
 * in the request socket's network namespace) has a propagation left
 * this second; takes it.
 */
static bool dt_peer_allow_locked(const struct dt_ctx *c)
{
	unsigned int max = READ_ONCE(dt_peer_propagations);
	struct dt_peer_budget *b;
	u32 key;

	lockdep_assert_held(&dt_flags_lock);
	if (!max)
		return true;
	key = jhash(&c->tuple.raddr, sizeof(c->tuple.raddr),
		    c->tuple.family ^ c->net_mix);
	b = &dt_peers[hash_32(key, DT_PEERS_BITS)];
	if (b->key != key || time_after_eq(jiffies, b->begin + HZ)) {
		b->key = key;
		b->begin = jiffies;
		b->used = 0;
	}
	if (b->used >= max)
		return false;
	b->used++;
	return true;
}

/*
 * Under dt_flags_lock: may task, whose entry is old (or NULL), move to c?
 * Not if it stays (a client, or in c already), is exiting, c's socket is
 * gone, the table is full, c holds max_threads_per_request threads, or
 * (a new request) its peer's max_propagations_per_peer or
 * max_propagations were flagged this second; the last four are counted.
 */
bool dt_flags_may_enter_locked(struct task_struct *task,
			       struct dt_flag *old, struct dt_ctx *c,
			       enum dt_reason reason)
{
	lockdep_assert_held(&dt_flags_lock);
	if (old && (!old->ctx || old->ctx == c))
		return false;
	/* A kernel thread serves no request of its own (nfsd's reads). */
	if (READ_ONCE(task->flags) & (PF_EXITING | PF_KTHREAD) ||
	    READ_ONCE(c->dead))
		return false;
	if (!old && !dt_flags_room_locked(1)) {
		dt_stat_inc(DT_STAT_DROP_THREADS);
		return false;
	}
	if (!dt_ctx_room_locked(c)) {
		dt_stat_inc(DT_STAT_DROP_REQUEST);
		return false;
	}
	if (dt_reason_read(reason) && !dt_peer_allow_locked(c)) {
		dt_stat_inc(DT_STAT_DROP_PEER);
		return false;
	}
	if (dt_reason_read(reason) && !__ratelimit(&dt_propagation_rate)) {
		dt_stat_inc(DT_STAT_DROP_RATE);
		return false;
	}
	return true;
}

/*
 * Under dt_flags_lock: f (new) becomes task's entry, in c, whose
 * reference the caller took for it, for reason (parent: the waker's tid
 * for a hand-off, else 0); old, task's entry or NULL, goes (switched).
 */
void dt_flag_move_locked(struct dt_flag *f, struct dt_flag *old,
			 struct task_struct *task, struct dt_ctx *c,
			 enum dt_reason reason, pid_t parent)
{
	lockdep_assert_held(&dt_flags_lock);
	if (old)
		dt_flag_remove_locked(old, DT_UNFLAG_SWITCHED);
	f->task = task;
	f->reason = reason;
	f->parent = parent;
	f->ctx = c;
	dt_flag_insert_locked(f);
	dt_expire_arm_locked(f->since);
}

/*
 * task works for c from now on: propagated (it read c's request) or
 * resumed (it read the answer to c's upstream request, or writes c's
 * response). It leaves the context it was in. A client stays a client.
 * Returns whether task is in c now (not if it is a client, or if it was
 * refused: table full, rate, memory, c's socket gone). Any context.
 */
bool dt_flags_enter(struct task_struct *task, struct dt_ctx *c,
		    enum dt_reason reason)
{
	return dt_flags_enter_from(task, c, reason, 0);
}

/* The counter of threads entering a context for reason. */
static enum dt_stat dt_enter_stat(enum dt_reason reason)
{
	switch (reason) {
	case DT_REASON_PROPAGATED:
	case DT_REASON_STREAMS:
		return DT_STAT_PROPAGATIONS;
	case DT_REASON_LOCAL:
		return DT_STAT_UNIX_HOPS;
	default:
		return DT_STAT_RESUMES;
	}
}

/*
 * As dt_flags_enter(), from: the thread that gave task the request (the
 * event's parent: for local, the writer of the request's bytes).
 */
bool dt_flags_enter_from(struct task_struct *task, struct dt_ctx *c,
			 enum dt_reason reason, pid_t from)
{
	struct dt_flag *f, *old;
	unsigned long irq;
	bool in;
	int stay;

	stay = dt_flags_staying(task, c);
	if (stay)
		return stay > 0;
	f = dt_mem_zalloc(DT_MEM_THREADS, sizeof(*f), GFP_ATOMIC);
	if (!f) {
		dt_stat_inc(DT_STAT_DROP_NOMEM);
		return false;
	}
	spin_lock_irqsave(&dt_flags_lock, irq);
	old = dt_flag_find(task);
	in = old && old->ctx == c;
	if (dt_flags_may_enter_locked(task, old, c, reason) &&
	    dt_ctx_tryget(c)) {
		dt_flag_move_locked(f, old, task, c, reason, from);
		dt_stat_inc(dt_enter_stat(reason));
		f = NULL;
		in = true;
	}
	spin_unlock_irqrestore(&dt_flags_lock, irq);
	dt_mem_free(DT_MEM_THREADS, f);
	return in;
}

/*
 * task's context, a reference the caller puts (NULL: none, or task is a
 * client), and why task is in it (goroutines.c: a goroutine takes the
 * context of the thread running it).
 */
struct dt_ctx *dt_flags_ctx(struct task_struct *task, enum dt_reason *reason)
{
	struct dt_ctx *c = NULL;
	struct dt_flag *f;

	rcu_read_lock();
	f = dt_flag_find(task);
	if (f && f->ctx && dt_ctx_tryget(f->ctx)) {
		c = f->ctx;
		*reason = f->reason;
	}
	rcu_read_unlock();
	return c;
}

/*
 * task turned to work for no traced request: it leaves its context
 * (switched, or response once it has answered). A client stays.
 */
void dt_flags_leave(struct task_struct *task)
{
	dt_flag_remove_task(task, DT_UNFLAG_SWITCHED, false);
}

/*
 * Under dt_flags_lock: the sweep runs by the time due (monotonic ns),
 * sooner than it was to (never later), unless it is off.
 */
static void dt_expire_at_locked(u64 due)
{
	u64 now = ktime_get_ns();
	unsigned long delay, at;

	lockdep_assert_held(&dt_flags_lock);
	if (dt_expire_stopped)
		return;
	/* At least a jiffy: a timer only, nothing woken under the lock. */
	delay = (due > now ? nsecs_to_jiffies(due - now) : 0) + 1;
	at = jiffies + delay;
	if (!delayed_work_pending(&dt_expire_work) ||
	    time_before(at, READ_ONCE(dt_expire_work.timer.expires)))
		mod_delayed_work(system_wq, &dt_expire_work, delay);
}

/*
 * Under dt_flags_lock: a thread entered a context at since. (A child
 * inheriting the context, flags.c, is not armed for: its parent entered
 * earlier, so the sweep runs before the child is due, and arms itself
 * for the next thread due.)
 */
static void dt_expire_arm_locked(u64 since)
{
	u64 ms = READ_ONCE(dt_unanswered_ms);

	lockdep_assert_held(&dt_flags_lock);
	if (ms)
		dt_expire_at_locked(since + ms * NSEC_PER_MSEC);
}

/*
 * task, flagged, wrote its context's response if that context is c or
 * its socket is sk (the first write counts one in responses): it goes
 * on at least until task turns to other work or response_idle_ms pass.
 */
static void dt_flags_wrote_for(struct task_struct *task, const struct sock *sk,
			       const struct dt_ctx *c)
{
	struct dt_flag *f;
	unsigned long irq;
	bool again;

	/*
	 * After the first write the sweep is scheduled (and goes on while
	 * the thread is in the table): the time alone, without the lock.
	 * The sweep may read the time of the write before; so it could
	 * under the lock too, had it run first.
	 */
	rcu_read_lock();
	f = dt_flag_find(task);
	again = f && f->ctx && (f->ctx == c || f->ctx->sk == sk) &&
		READ_ONCE(f->wrote);
	if (again)
		WRITE_ONCE(f->wrote, ktime_get_ns());
	rcu_read_unlock();
	if (again)
		return;
	spin_lock_irqsave(&dt_flags_lock, irq);
	f = dt_flag_find(task);
	if (f && f->ctx && (f->ctx == c || f->ctx->sk == sk)) {
		u64 ms = READ_ONCE(dt_response_idle_ms);

		if (!f->wrote)
			dt_stat_inc(DT_STAT_RESPONSES);
		f->wrote = ktime_get_ns();
		if (ms)
			dt_expire_at_locked(f->wrote + ms * NSEC_PER_MSEC);
	}
	spin_unlock_irqrestore(&dt_flags_lock, irq);
}

/* task, flagged, wrote on sk: its response if sk is its request's socket. */
void dt_flags_wrote(struct task_struct *task, const struct sock *sk)
{
	dt_flags_wrote_for(task, sk, NULL);
}

/* task wrote c's response on another socket (unix.c: over AF_UNIX). */
void dt_flags_answered(struct task_struct *task, const struct dt_ctx *c)
{
	if (c)
		dt_flags_wrote_for(task, NULL, c);
}

/*
 * When f leaves its context unless it moves or writes first (monotonic
 * ns; U64_MAX: never): response_idle_ms after its last write, or, if it
 * never wrote, unanswered_ms after it entered.
 */
static u64 dt_flag_due(const struct dt_flag *f)
{
	u64 wrote = READ_ONCE(f->wrote);
	u64 ms;

	if (!READ_ONCE(f->ctx))
		return U64_MAX;
	ms = wrote ? READ_ONCE(dt_response_idle_ms) :
		     READ_ONCE(dt_unanswered_ms);
	if (!ms)
		return U64_MAX;
	return (wrote ? wrote : f->since) + ms * NSEC_PER_MSEC;
}

/*
 * The sweep: threads past their due time (dt_flag_due()) leave their
 * context: response (expired) after an answer, switched
 * (expired_unanswered) without one. It walks the table under RCU and
 * takes dt_flags_lock for each thread that goes (checked again there:
 * the thread may have moved or written since), so it never keeps
 * interrupts off for a walk of the table; it runs again when the next
 * thread is due.
 */
static void dt_expire(struct work_struct *work)
{
	u64 now = ktime_get_ns(), next = U64_MAX, due;
	struct dt_flag *f;
	unsigned long irq;
	int bkt;

	rcu_read_lock();
	hash_for_each_rcu(dt_flags, bkt, f, node) {
		due = dt_flag_due(f);
		if (due > now) {
			next = min(next, due);
			continue;
		}
		spin_lock_irqsave(&dt_flags_lock, irq);
		if (dt_flag_find(f->task) == f && dt_flag_due(f) <= now) {
			dt_stat_inc(f->wrote ? DT_STAT_EXPIRED :
				    DT_STAT_EXPIRED_UNANSWERED);
			dt_flag_remove_locked(f, f->wrote ? DT_UNFLAG_RESPONSE :
						 DT_UNFLAG_SWITCHED);
		}
		spin_unlock_irqrestore(&dt_flags_lock, irq);
	}
	rcu_read_unlock();
	if (next != U64_MAX) {
		spin_lock_irqsave(&dt_flags_lock, irq);
		dt_expire_at_locked(next);
		spin_unlock_irqrestore(&dt_flags_lock, irq);
	}
}

/* The threads serving sk's request leave it, for why. */
static void dt_flags_sk_end(const struct sock *sk, enum dt_unflag why)
{
	struct dt_flag *f;
	struct hlist_node *tmp;
	unsigned long irq;

	if (!atomic_read(&dt_trace_active))
		return;
	spin_lock_irqsave(&dt_flags_lock, irq);
	hash_for_each_possible_safe(dt_flags_by_sk, f, tmp, by_sk,
				    (unsigned long)sk)
		if (f->ctx->sk == sk)
			dt_flag_remove_locked(f, why);
	spin_unlock_irqrestore(&dt_flags_lock, irq);
}

/* sk is being destroyed: threads serving its request leave it. */
void dt_flags_socket_gone(const struct sock *sk)
{
	dt_flags_sk_end(sk, DT_UNFLAG_CLOSED);
}

/*
 * The peer that asked on sk says its request is over (ingress.c: its
 * client was removed): the threads serving it leave (removed).
 */
void dt_flags_request_stopped(const struct sock *sk)
{
	dt_flags_sk_end(sk, DT_UNFLAG_REMOVED);
}

/*
 * probe 0 (state.c): sockets are no longer followed, nor their
 * destruction seen, so no request's context could end by its socket any
 * more (and a socket made later at the same address would pass for
 * it): every thread in one leaves it (closed: its socket is gone from
 * dtracer's view). Clients, flagged by root, stay. Under RCU, the lock
 * taken for each thread that goes.
 */
void dt_flags_end_contexts(void)
{
	struct dt_flag *f;
	unsigned long irq;
	int bkt;

	rcu_read_lock();
	hash_for_each_rcu(dt_flags, bkt, f, node) {
		if (!f->ctx)
			continue;
		spin_lock_irqsave(&dt_flags_lock, irq);
		if (dt_flag_find(f->task) == f)
			dt_flag_remove_locked(f, DT_UNFLAG_CLOSED);
		spin_unlock_irqrestore(&dt_flags_lock, irq);
	}
	rcu_read_unlock();
}

/* Module exit: the hooks are gone; the sweep stops, every flag goes. */
void dt_flags_exit(void)
{
	struct dt_flag *f;
	struct hlist_node *tmp;
	unsigned long irq;
	int bkt;

	spin_lock_irqsave(&dt_flags_lock, irq);
	dt_expire_stopped = true;
	spin_unlock_irqrestore(&dt_flags_lock, irq);
	cancel_delayed_work_sync(&dt_expire_work);
	spin_lock_irqsave(&dt_flags_lock, irq);
	hash_for_each_safe(dt_flags, bkt, tmp, f, node)
		dt_flag_remove_locked(f, DT_UNFLAG_UNLOADED);
	spin_unlock_irqrestore(&dt_flags_lock, irq);
}
