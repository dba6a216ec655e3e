// SPDX-License-Identifier: GPL-2.0
/*
 * Goroutines: Go's runtime runs many goroutines on a few threads and
 * moves them between threads at will, so a thread's context (the
 * request its last read started) is the wrong one as soon as another
 * goroutine runs on it; and a goroutine hands work to another through
 * channels (net/http's client writes each request from its connection's
 * writeLoop goroutine, woken by the handler that asked). The kernel
 * sees neither, but Go's scheduler says both, at functions whose
 * arguments are in registers (Go's internal ABI on x86-64: the first in
 * AX, the running goroutine in R14):
 *
 * - runtime.execute(gp): this thread runs goroutine gp from now on;
 * - runtime.stopm(): this thread has no goroutine to run;
 * - runtime.goready(gp) on a goroutine's stack: the running goroutine
 *   wakes gp (a channel send, a mutex released, a WaitGroup done);
 * - runtime.goexit0(gp): goroutine gp ended (its g is reused later);
 * - runtime.chansend(c, ...), runtime.chanrecv(c, ...) and
 *   runtime.selectgo(cases, order, pcs, nsends, nrecvs, ...) on a
 *   goroutine's stack: the running goroutine sends on channel c, or
 *   receives from it, or from one of the select's receive cases (each
 *   case's first word is its channel, cases[nsends..] the receives);
 * - runtime.newproc1(fn, callergp, ...) on the scheduler's stack: the
 *   goroutine callergp starts a new one (a `go` statement), which
 *   newproc then queues with runtime.runqput(pp, newg, true), the next
 *   runqput of the thread (ready() queues woken goroutines with it too).
 *
 * A user registers a Go binary (sysfs go: its path and the nine
 * functions' file offsets; the dtracer command finds them in the
 * binary's symbol table); dtracer puts uprobes there while the probe is
 * armed (uprobes.c). Then a goroutine has a context as a thread has one, and the
 * thread's flag follows the goroutine it runs:
 *
 * - whenever a thread running a goroutine reads or writes on TCP
 *   (ingress.c, egress.c: where it enters or leaves a context), the
 *   goroutine's entry says where the thread is at once (it never waits
 *   for the thread to switch: another thread may run it first);
 * - when a thread starts running a goroutine, it enters the goroutine's
 *   context (reason resumed), or leaves its own; with none to run
 *   (stopm), it leaves;
 * - a goroutine that wakes another in a channel operation (its value
 *   given to a receiver that waited, or room made for a sender that
 *   waited) hands it its context, or none: the woken goroutine's
 *   context, unless the woken goroutine serves a request of its own (it
 *   read it: own), which only its own reads change. A goroutine that
 *   read an untraced request serves no traced one (own, no context). A
 *   wake-up outside a channel operation (a mutex or semaphore released,
 *   a sync.Cond, a WaitGroup, a closed channel) hands nothing over: the
 *   woken goroutine goes on with its own work (net/http's writers, woken
 *   by a handler that released a lock they waited for, wrote other
 *   requests in its context; and lost their own to an untraced one's).
 *   A goroutine started by one in a context is born in it, as many
 *   hand-offs from the request's I/O as its starter (gRPC's server reads
 *   a connection in one goroutine and runs each call in a new one); one
 *   started outside a context is born without one.
 *   A wake-up is a channel's when the running goroutine entered
 *   chansend, chanrecv or selectgo since its thread last switched and
 *   has woken nobody since (one operation wakes one). A context goes
 *   at most DT_GO_HOPS hand-offs from the goroutine that did the
 *   request's I/O: further, it would spread through goroutines that
 *   feed many others, and from them to work of other requests;
 * - a value sent on a channel without a wake-up (into its buffer, or
 *   before the receiver came) carries the sender's context, or none, to
 *   the goroutine that receives next on that channel: net/http's client
 *   dials a new connection from a goroutine of its own, which starts the
 *   connection's writer, and the writer takes its first request from
 *   the channel's buffer. The last send per channel is kept (1 <<
 *   DT_GO_CHAN_BITS slots by hash; one older than DT_GO_CHAN_AGE is
 *   dropped when next looked at, so a send nobody receives keeps its
 *   context's reference until its slot is reused or the table
 *   forgotten); a select with more than one receive case holding one
 *   takes none (which it picks is the runtime's secret).
 *
 * A goroutine keeps its context while no thread runs it (nothing may be
 * flagged then): the table counts as traced (dt_go_idle). Once the
 * context's response is written (egress.c, unix.c: dt_ctx's answered),
 * a thread that runs the goroutine no longer enters it, nor is a
 * goroutine born in it: goroutines started for a request outlive it
 * (gRPC's connection writer, started by the read of a connection's
 * first call, writes every later call's answer).
 *
 * These are exact where the runtime calls them; what a goroutine does
 * between a wake-up and the work it was woken for is not seen (a
 * goroutine woken by several, a channel's value taken by another
 * receiver than the next one to ask, values of several senders in one
 * buffer). A Go thread's write is its goroutine's request
 * whoever connected the socket (egress.c): Go's connection pools dial
 * for one request and hand the connection to whichever asks first.
 * The hand-off rule (handoff.c) and the deferred calls' (deferred.c)
 * stay off for threads seen to run goroutines (dt_go_thread()).
 *
 * State: per thread, a slot by hash of its id, written by that thread
 * only (the goroutine it runs, whether it read an untraced request,
 * whether that goroutine is in a channel operation);
 * per goroutine, an entry in dt_go_gs by (process, g), at most
 * DT_GO_MAX (drops_goroutines counts those not kept), under dt_go_lock.
 * Uprobe handlers run in the thread's own context, preemptible;
 * ingress.c and egress.c call in task context only (dt_go_mirror checks
 * in_task()). dt_go_lock (spin_lock_irqsave, as the module's other
 * locks) is a leaf: taken with no other lock of dtracer's held, nothing
 * but the allocator's free under it (the thread table is changed after
 * it is released). Registrations are uprobes.c's (its mutex, after
 * state.c's dt_probe_lock when arming), and may sleep.
 */
#include "dtracer.h"
#include "uprobes.h"

#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define DT_GO_SLOT_BITS 11
#define DT_GO_BITS 10
#define DT_GO_MAX 4096
#define DT_GO_HOPS 2
#define DT_GO_CHAN_BITS 8
#define DT_GO_CHAN_AGE (2 * HZ)
#define DT_GO_SELECT_MAX 16

/*
 * The binaries followed (their probes on while the probe is armed:
 * uprobes.c); defined at the end, with the handlers. Some binary's
 * probes on (dt_uprobes_live()): the packet paths, the wake-up hook and
 * thread exits ask goroutines.c nothing more on a host that follows no
 * Go program.
 */
static struct dt_uprobes dt_go_uprobes;

/* Per thread: the goroutine it runs (0: none known). */
struct dt_go_slot {
	pid_t tid;
	bool untraced;		/* it read an untraced request since */
	unsigned long g;
	unsigned long chan;	/* g in a channel operation (its wake-up's) */
	unsigned long born;	/* g starting a goroutine (newproc1 seen) */
};

static struct dt_go_slot dt_go_slots[1 << DT_GO_SLOT_BITS];

struct dt_go_g {
	struct hlist_node node;
	pid_t tgid;
	unsigned long g;
	struct dt_ctx *ctx;	/* a reference, or NULL: none */
	bool own;		/* it read its request */
	u8 hops;		/* hand-offs from the request's I/O */
};

static DEFINE_HASHTABLE(dt_go_gs, DT_GO_BITS);
static DEFINE_SPINLOCK(dt_go_lock);
static unsigned int dt_go_count;

/* A channel's last send, until a receiver takes it (under dt_go_lock). */
struct dt_go_chan {
	pid_t tgid;
	unsigned long c;
	struct dt_ctx *ctx;	/* a reference, or NULL: an untraced sender's */
	u8 hops;
	unsigned long at;	/* jiffies | 1; 0: free */
};

static struct dt_go_chan dt_go_chans[1 << DT_GO_CHAN_BITS];
static unsigned int dt_go_nchans;	/* slots that keep a context */

/*
 * Nothing to follow: no thread is in a context and no goroutine keeps
 * one (a goroutine keeps its context while no thread runs it; whichever
 * runs it next enters it).
 */
static bool dt_go_idle(void)
{
	return !atomic_read(&dt_trace_active) && !READ_ONCE(dt_go_count) &&
	       !READ_ONCE(dt_go_nchans);
}

static struct dt_go_slot *dt_go_slot(void)
{
	return &dt_go_slots[hash_32(task_pid_nr(current), DT_GO_SLOT_BITS)];
}

/* Whether current runs goroutines of a registered binary. */
bool dt_go_thread(void)
{
	return dt_uprobes_live(&dt_go_uprobes) &&
	       READ_ONCE(dt_go_slot()->tid) == task_pid_nr(current);
}

/* lifecycle.c: task exits; its slot is no longer a goroutine runner's. */
void dt_go_task_exit(struct task_struct *task)
{
	pid_t tid = task_pid_nr(task);
	struct dt_go_slot *s = &dt_go_slots[hash_32(tid, DT_GO_SLOT_BITS)];

	if (dt_uprobes_live(&dt_go_uprobes) && READ_ONCE(s->tid) == tid)
		WRITE_ONCE(s->tid, 0);
}

/* ingress.c: current read a request nobody traced (on a served socket). */
void dt_go_untraced(void)
{
	if (dt_go_thread() && in_task())
		WRITE_ONCE(dt_go_slot()->untraced, true);
}

static struct dt_go_g *dt_go_find_locked(pid_t tgid, unsigned long g)
{
	struct dt_go_g *e;

	lockdep_assert_held(&dt_go_lock);
	hash_for_each_possible(dt_go_gs, e, node, g ^ tgid)
		if (e->g == g && e->tgid == tgid)
			return e;
	return NULL;
}

/* Whether goroutine by runs on current (not on the scheduler's stack). */
static bool dt_go_runs(const struct dt_go_slot *s, unsigned long by)
{
	return READ_ONCE(s->tid) == task_pid_nr(current) && s->g == by;
}

/*
 * Under dt_go_lock: the hand-offs *c (by's context) will have gone once
 * by passes it on; past DT_GO_HOPS, *c moves to *far (none is passed).
 */
static u8 dt_go_hops_locked(pid_t tgid, unsigned long by, struct dt_ctx **c,
			    struct dt_ctx **far)
{
	struct dt_go_g *e = dt_go_find_locked(tgid, by);
	u8 hops = e && e->ctx == *c ? e->hops + 1 : 1;

	if (*c && hops > DT_GO_HOPS) {
		*far = *c;
		*c = NULL;
	}
	return hops;
}

/*
 * g's entry set to ctx (a reference, consumed; NULL: none), own and hops:
 * made if missing (unless there is nothing to keep), removed if neither
 * a context nor own. Returns the reference it replaced, for the caller
 * to put once the lock is released.
 */
static struct dt_ctx *dt_go_set_locked(pid_t tgid, unsigned long g,
				       struct dt_ctx *ctx, bool own, u8 hops,
				       struct dt_go_g **spare)
{
	struct dt_go_g *e = dt_go_find_locked(tgid, g);
	struct dt_ctx *old;

	if (!e && !ctx && !own)
		return NULL;
	if (!e) {
		if (dt_go_count >= DT_GO_MAX || !*spare) {
			dt_stat_inc(DT_STAT_DROP_GOROUTINES);
			return ctx;
		}
		e = *spare;
		*spare = NULL;
		e->tgid = tgid;
		e->g = g;
		hash_add(dt_go_gs, &e->node, g ^ tgid);
		WRITE_ONCE(dt_go_count, dt_go_count + 1);
	}
	old = e->ctx;
	e->ctx = ctx;
	e->own = own;
	e->hops = hops;
	if (!ctx && !own) {
		hash_del(&e->node);
		WRITE_ONCE(dt_go_count, dt_go_count - 1);
		dt_mem_free(DT_MEM_GOROUTINES, e);
	}
	return old;
}

static struct dt_go_g *dt_go_spare(void)
{
	return dt_mem_zalloc(DT_MEM_GOROUTINES, sizeof(struct dt_go_g),
			     GFP_NOWAIT | __GFP_NOWARN);
}

/*
 * ingress.c, egress.c, after current's read or write (where it enters or
 * leaves contexts): the goroutine it runs has current's context from now
 * on (own if this read was its request, served, or an untraced one: own,
 * no context), so that any thread that runs it next takes it. Nothing
 * for a thread running no goroutine. (Own is the goroutine's, not the
 * thread's reason: a thread that read a request goes on in its context
 * when it runs the goroutines that request woke.)
 */
void dt_go_mirror(bool served)
{
	struct dt_go_slot *s = dt_go_slot();
	pid_t tgid = task_tgid_nr(current);
	struct dt_go_g *spare = NULL, *e;
	enum dt_reason reason;
	struct dt_ctx *c, *old;
	unsigned long g, irq;
	bool own, untraced;

	if (!dt_go_thread() || !in_task() || !s->g)
		return;
	g = s->g;
	untraced = s->untraced;
	s->untraced = false;
	c = dt_flags_ctx(current, &reason);
	if (c || untraced)
		spare = dt_go_spare();
	spin_lock_irqsave(&dt_go_lock, irq);
	e = dt_go_find_locked(tgid, g);
	if (c)
		own = served || (e && e->own && e->ctx == c);
	else
		own = untraced || (e && e->own);
	old = dt_go_set_locked(tgid, g, c, own,
			       e && e->ctx == c ? e->hops : 0, &spare);
	spin_unlock_irqrestore(&dt_go_lock, irq);
	dt_ctx_put(old);
	dt_mem_free(DT_MEM_GOROUTINES, spare);
}

/*
 * current runs goroutine g from now on (0: none): it enters g's context,
 * or leaves its own. The table is left alone while nothing is followed.
 */
static void dt_go_switch(unsigned long g)
{
	struct dt_go_slot *s = dt_go_slot();
	struct dt_ctx *c = NULL;
	unsigned long irq;
	struct dt_go_g *e;

	WRITE_ONCE(s->tid, task_pid_nr(current));
	s->g = g;
	s->untraced = false;
	s->chan = 0;
	s->born = 0;
	if (dt_go_idle())
		return;
	if (g) {
		spin_lock_irqsave(&dt_go_lock, irq);
		e = dt_go_find_locked(task_tgid_nr(current), g);
		if (e && e->ctx && !READ_ONCE(e->ctx->dead) &&
		    !READ_ONCE(e->ctx->answered))
			c = dt_ctx_get(e->ctx);
		spin_unlock_irqrestore(&dt_go_lock, irq);
	}
	if (!c || !dt_flags_enter(current, c, DT_REASON_RESUMED))
		dt_flags_leave(current);
	dt_ctx_put(c);
}

/*
 * Goroutine by, running, wakes gp: in a channel operation, gp gets its
 * context, or none (also past DT_GO_HOPS hand-offs), unless gp serves a
 * request of its own; otherwise nothing. Not on the scheduler's own
 * stack (g0: a timer, the network poller): by is then not the goroutine
 * the thread runs.
 */
static void dt_go_ready(unsigned long by, unsigned long gp)
{
	struct dt_go_slot *s = dt_go_slot();
	pid_t tgid = task_tgid_nr(current);
	struct dt_go_g *spare, *e;
	enum dt_reason reason;
	struct dt_ctx *c, *old = NULL, *far = NULL;
	unsigned long irq;
	bool chan;
	u8 hops;

	if (dt_go_idle() || !gp || !dt_go_runs(s, by))
		return;
	/* Only a channel's wake-up hands work over (not a mutex's). */
	chan = s->chan == by;
	s->chan = 0;
	if (!chan)
		return;
	c = dt_flags_ctx(current, &reason);
	spare = c ? dt_go_spare() : NULL;
	spin_lock_irqsave(&dt_go_lock, irq);
	hops = dt_go_hops_locked(tgid, by, &c, &far);
	e = dt_go_find_locked(tgid, gp);
	if (!(e && e->own) && (c || e)) {
		old = dt_go_set_locked(tgid, gp, c, false, hops, &spare);
		c = NULL;
	}
	spin_unlock_irqrestore(&dt_go_lock, irq);
	dt_ctx_put(old);
	dt_ctx_put(c);
	dt_ctx_put(far);
	dt_mem_free(DT_MEM_GOROUTINES, spare);
}

/*
 * Goroutine by, running (its thread on the scheduler's stack), started
 * gp: gp is born in by's context, as many hand-offs from the request's
 * I/O as by (a start is no hand-off: gRPC's server reads a connection's
 * first bytes in one goroutine, which starts the connection's reader,
 * which starts each call's); nothing if by is in none. A g is reused
 * only after goexit0 forgot it, so gp has no entry of its own to keep.
 */
static void dt_go_born(unsigned long by, unsigned long gp)
{
	pid_t tgid = task_tgid_nr(current);
	struct dt_ctx *c, *old;
	struct dt_go_g *spare, *e;
	enum dt_reason reason;
	unsigned long irq;

	c = dt_flags_ctx(current, &reason);
	if (!c || READ_ONCE(c->answered)) {
		dt_ctx_put(c);
		return;
	}
	spare = dt_go_spare();
	spin_lock_irqsave(&dt_go_lock, irq);
	e = dt_go_find_locked(tgid, by);
	old = dt_go_set_locked(tgid, gp, c, false,
			       e && e->ctx == c ? e->hops : 0, &spare);
	spin_unlock_irqrestore(&dt_go_lock, irq);
	dt_ctx_put(old);
	dt_mem_free(DT_MEM_GOROUTINES, spare);
}

/* Goroutine gp ended: its g will be another goroutine's. */
static void dt_go_exit(unsigned long gp)
{
	struct dt_go_slot *s = dt_go_slot();
	struct dt_go_g *spare = NULL;
	struct dt_ctx *old;
	unsigned long irq;

	if (READ_ONCE(s->tid) == task_pid_nr(current) && s->g == gp) {
		s->g = 0;
		s->untraced = false;
	}
	spin_lock_irqsave(&dt_go_lock, irq);
	old = dt_go_set_locked(task_tgid_nr(current), gp, NULL, false, 0,
			       &spare);
	spin_unlock_irqrestore(&dt_go_lock, irq);
	dt_ctx_put(old);
	dt_mem_free(DT_MEM_GOROUTINES, spare);
}

static struct dt_go_chan *dt_go_chan_slot(pid_t tgid, unsigned long c)
{
	return &dt_go_chans[hash_long(c ^ tgid, DT_GO_CHAN_BITS)];
}

/* Under dt_go_lock: slot ch emptied; returns its reference to put. */
static struct dt_ctx *dt_go_chan_free_locked(struct dt_go_chan *ch)
{
	struct dt_ctx *old = ch->ctx;

	lockdep_assert_held(&dt_go_lock);
	if (ch->at && old)
		WRITE_ONCE(dt_go_nchans, dt_go_nchans - 1);
	ch->ctx = NULL;
	ch->at = 0;
	return old;
}

/*
 * The running goroutine (by) sends on channel c: c's next receiver takes
 * its context (or none, past DT_GO_HOPS: an untraced sender's none
 * clears a receiver's stale context). A send to a receiver that waits is
 * goready's too; the slot then goes to the next value's. A none never
 * takes the slot of another channel's context.
 */
static void dt_go_send(unsigned long by, unsigned long c)
{
	struct dt_go_slot *s = dt_go_slot();
	pid_t tgid = task_tgid_nr(current);
	struct dt_ctx *ctx, *old = NULL, *far = NULL;
	struct dt_go_chan *ch;
	enum dt_reason reason;
	unsigned long irq;
	u8 hops;

	if (dt_go_idle() || !c || !dt_go_runs(s, by))
		return;
	ctx = dt_flags_ctx(current, &reason);
	ch = dt_go_chan_slot(tgid, c);
	spin_lock_irqsave(&dt_go_lock, irq);
	hops = dt_go_hops_locked(tgid, by, &ctx, &far);
	if (ctx || !ch->ctx || (ch->tgid == tgid && ch->c == c)) {
		old = dt_go_chan_free_locked(ch);
		ch->tgid = tgid;
		ch->c = c;
		ch->ctx = ctx;
		ch->hops = hops;
		ch->at = jiffies | 1;
		if (ctx)
			WRITE_ONCE(dt_go_nchans, dt_go_nchans + 1);
		ctx = NULL;
	}
	spin_unlock_irqrestore(&dt_go_lock, irq);
	dt_ctx_put(old);
	dt_ctx_put(far);
	dt_ctx_put(ctx);
}

/*
 * The running goroutine (by) receives from channel c: if c's last send
 * is kept, by takes its context (or none), unless by serves a request
 * of its own, and the thread with it.
 */
static void dt_go_take(unsigned long by, unsigned long c)
{
	pid_t tgid = task_tgid_nr(current);
	struct dt_ctx *ctx = NULL, *old = NULL, *drop = NULL;
	struct dt_go_g *spare, *e;
	struct dt_go_chan *ch;
	bool took = false;
	unsigned long irq;
	u8 hops = 0;

	ch = dt_go_chan_slot(tgid, c);
	spare = dt_go_spare();
	spin_lock_irqsave(&dt_go_lock, irq);
	if (ch->at && ch->tgid == tgid && ch->c == c) {
		hops = ch->hops;
		took = time_before(jiffies, ch->at + DT_GO_CHAN_AGE);
		old = dt_go_chan_free_locked(ch);
		if (took) {
			ctx = old;
			old = NULL;
		}
	}
	e = took ? dt_go_find_locked(tgid, by) : NULL;
	if (took && !(e && e->own) && (ctx || e)) {
		/* The entry's reference, and one for the thread's enter. */
		if (ctx)
			dt_ctx_get(ctx);
		old = dt_go_set_locked(tgid, by, ctx, false, hops, &spare);
	} else {
		drop = ctx;
		ctx = NULL;
		took = false;
	}
	spin_unlock_irqrestore(&dt_go_lock, irq);
	dt_ctx_put(old);
	dt_ctx_put(drop);
	dt_mem_free(DT_MEM_GOROUTINES, spare);
	if (!took)
		return;
	if (!ctx || !dt_flags_enter(current, ctx, DT_REASON_RESUMED))
		dt_flags_leave(current);
	dt_ctx_put(ctx);
}

/* Whether the running goroutine (by) is this thread's, and c has a send. */
static bool dt_go_chan_kept(unsigned long by, unsigned long c)
{
	struct dt_go_slot *s = dt_go_slot();
	struct dt_go_chan *ch;

	if (dt_go_idle() || !c || !dt_go_runs(s, by))
		return false;
	ch = dt_go_chan_slot(task_tgid_nr(current), c);
	return READ_ONCE(ch->at) && READ_ONCE(ch->c) == c &&
	       READ_ONCE(ch->tgid) == task_tgid_nr(current);
}

/* The running goroutine (by) enters a channel operation. */
static void dt_go_chan_op(unsigned long by)
{
	struct dt_go_slot *s = dt_go_slot();

	if (dt_go_runs(s, by))
		s->chan = by;
}

static int dt_go_on_chansend(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	dt_go_chan_op(regs->r14);
	dt_go_send(regs->r14, regs->ax);
	return 0;
}

static int dt_go_on_chanrecv(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	dt_go_chan_op(regs->r14);
	if (dt_go_chan_kept(regs->r14, regs->ax))
		dt_go_take(regs->r14, regs->ax);
	return 0;
}

/*
 * selectgo(cases, order, pcs, nsends, nrecvs, block): the receive cases'
 * channels read from the goroutine's stack (a case is two words, its
 * channel first); exactly one of them with a send kept: that one.
 */
static int dt_go_on_selectgo(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	unsigned long nsends = regs->di, nrecvs = regs->si, i, c, one = 0;
	const unsigned long __user *cases = (const void __user *)regs->ax;

	dt_go_chan_op(regs->r14);
	if (dt_go_idle() || nsends > DT_GO_SELECT_MAX ||
	    nrecvs > DT_GO_SELECT_MAX)
		return 0;
	for (i = nsends; i < nsends + nrecvs; i++) {
		if (get_user(c, cases + 2 * i))
			return 0;
		if (!dt_go_chan_kept(regs->r14, c))
			continue;
		if (one)
			return 0;
		one = c;
	}
	if (one)
		dt_go_take(regs->r14, one);
	return 0;
}

static int dt_go_on_execute(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	dt_go_switch(regs->ax);
	return 0;
}

static int dt_go_on_stopm(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	dt_go_switch(0);
	return 0;
}

static int dt_go_on_goready(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct dt_go_slot *s = dt_go_slot();

	/*
	 * A start that runqput did not follow at once (a runtime that
	 * inlines it there, or starts a goroutine parked) is forgotten: the
	 * runqput of this wake-up is not its.
	 */
	if (READ_ONCE(s->tid) == task_pid_nr(current))
		s->born = 0;
	dt_go_ready(regs->r14, regs->ax);
	return 0;
}

static int dt_go_on_goexit0(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	dt_go_exit(regs->ax);
	return 0;
}

/* newproc1(fn, callergp, callerpc, ...): callergp starts a goroutine. */
static int dt_go_on_newproc1(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct dt_go_slot *s = dt_go_slot();

	if (!dt_go_idle() && dt_go_runs(s, regs->bx))
		s->born = regs->bx;
	return 0;
}

/*
 * runqput(pp, gp, next): after newproc1 on this thread, gp is the new
 * goroutine (newproc queues it next, at once); otherwise a woken one.
 */
static int dt_go_on_runqput(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct dt_go_slot *s = dt_go_slot();
	unsigned long by = s->born;

	if (!by || READ_ONCE(s->tid) != task_pid_nr(current))
		return 0;
	s->born = 0;
	if ((regs->cx & 0xff) && regs->bx && dt_go_runs(s, by))
		dt_go_born(by, regs->bx);
	return 0;
}

/* The goroutines' table emptied (disarmed, or the last binary gone). */
static void dt_go_forget(void)
{
	struct dt_go_g *e;
	struct hlist_node *tmp;
	unsigned long irq;
	unsigned int i;
	int bkt;

	spin_lock_irqsave(&dt_go_lock, irq);
	hash_for_each_safe(dt_go_gs, bkt, tmp, e, node) {
		hash_del(&e->node);
		dt_ctx_put(e->ctx);
		dt_mem_free(DT_MEM_GOROUTINES, e);
	}
	WRITE_ONCE(dt_go_count, 0);
	for (i = 0; i < ARRAY_SIZE(dt_go_chans); i++)
		dt_ctx_put(dt_go_chan_free_locked(&dt_go_chans[i]));
	spin_unlock_irqrestore(&dt_go_lock, irq);
	memset(dt_go_slots, 0, sizeof(dt_go_slots));
}

static const struct dt_uprobe_fn dt_go_fns[] = {
	{ "runtime.execute", dt_go_on_execute },
	{ "runtime.stopm", dt_go_on_stopm },
	{ "runtime.goready", dt_go_on_goready },
	{ "runtime.goexit0", dt_go_on_goexit0 },
	{ "runtime.chansend", dt_go_on_chansend },
	{ "runtime.chanrecv", dt_go_on_chanrecv },
	{ "runtime.selectgo", dt_go_on_selectgo },
	{ "runtime.newproc1", dt_go_on_newproc1 },
	{ "runtime.runqput", dt_go_on_runqput },
};

/*
 * sysfs go: "PATH OFFSET_EXECUTE OFFSET_STOPM OFFSET_GOREADY
 * OFFSET_GOEXIT0 OFFSET_CHANSEND OFFSET_CHANRECV OFFSET_SELECTGO
 * OFFSET_NEWPROC1 OFFSET_RUNQPUT" (file offsets, as the dtracer
 * command's go finds them); see uprobes.c.
 */
static struct dt_uprobes dt_go_uprobes = {
	.what = "go",
	.fns = dt_go_fns,
	.nfns = ARRAY_SIZE(dt_go_fns),
	.forget = dt_go_forget,
	.mutex = __MUTEX_INITIALIZER(dt_go_uprobes.mutex),
};

/* state.c: the uprobes follow the probe (armed: on, disarmed: off). */
int dt_go_arm(void)
{
	return dt_uprobes_arm(&dt_go_uprobes);
}

void dt_go_disarm(void)
{
	dt_uprobes_disarm(&dt_go_uprobes);
}

void dt_go_clear(void)
{
	dt_uprobes_clear(&dt_go_uprobes);
}

int dt_go_set(const char *buf, size_t len)
{
	return dt_uprobes_set(&dt_go_uprobes, buf, len);
}

ssize_t dt_go_show(char *buf)
{
	return dt_uprobes_show(&dt_go_uprobes, buf);
}
