// SPDX-License-Identifier: GPL-2.0
/*
 * The sockets that carry marked bytes, and which bytes: for each, the
 * sequence ranges written by flagged threads (until acknowledged) and the
 * marked ranges received (until read), requests' and responses' apart;
 * and the two contexts (context.c) a socket can point at: the traced
 * request read on it (served) and the request one of our contexts sent
 * on it, unanswered (outstanding). Keyed by struct sock; lookups are
 * RCU, writers hold dt_socks_lock, the rest is under the entry's lock.
 *
 * Entries exist only while the probe is armed. An entry goes when its
 * socket is destroyed (the tracepoint tcp_destroy_sock, which
 * tcp_v4_destroy_sock fires for IPv6 sockets too), when the probe is
 * disarmed, or when it has been idle for socket_idle_ms (the sweep
 * below): a kept-alive connection that once carried a mark is not
 * looked up on its every packet for the rest of its life. The socket
 * is in TCP_CLOSE before it is destroyed, and entries are only added to
 * sockets not in TCP_CLOSE, both under dt_socks_lock: no entry outlives
 * its socket.
 *
 * An entry taken out of the table is marked gone under its own lock;
 * a writer that found it before and locks it after asks dt_sock_live()
 * for the socket's entry now, so nothing written to it is lost.
 */
#include "dtracer.h"
#include "frames.h"
#include "hooks.h"

#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/tcp_states.h>

#define DT_SOCKS_BITS 12

static DEFINE_HASHTABLE(dt_socks, DT_SOCKS_BITS);
static DEFINE_SPINLOCK(dt_socks_lock);
atomic_t dt_nsocks = ATOMIC_INIT(0);	/* entries in dt_socks */
static bool dt_socks_open;		/* under dt_socks_lock: armed */

unsigned int dt_max_sockets = 4096;

static unsigned int dt_socket_idle_ms = 10000;
module_param_named(socket_idle_ms, dt_socket_idle_ms, uint, 0644);
MODULE_PARM_DESC(socket_idle_ms,
		 "A followed socket's entry goes after this many ms without a change, with nothing in flight and no context anyone else holds (0: never)");

static void dt_socks_sweep(struct work_struct *work);
static DECLARE_DELAYED_WORK(dt_socks_sweep_work, dt_socks_sweep);

/* The sweep runs in a quarter of socket_idle_ms (a timer: no wake-up). */
static void dt_socks_sweep_schedule(void)
{
	unsigned int ms = READ_ONCE(dt_socket_idle_ms);

	if (ms)
		schedule_delayed_work(&dt_socks_sweep_work,
				      msecs_to_jiffies(ms / 4) + 1);
}

/*
 * The entry of sk, or NULL. Caller is in an RCU read-side section:
 * rcu_read_lock(), a netfilter hook, or preemption off (a kprobe, a
 * tracepoint, dt_socks_lock).
 */
struct dt_sock *dt_sock_find(const struct sock *sk)
{
	struct dt_sock *ds;

	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(),
			 "socket lookup outside an RCU read-side section");
	if (!atomic_read(&dt_nsocks))
		return NULL;
	hash_for_each_possible_rcu(dt_socks, ds, node, (unsigned long)sk)
		if (ds->sk == sk)
			return ds;
	return NULL;
}

/*
 * The entry of sk, made if needed: NULL (and counted) when the table is
 * full or memory is short, or when sk is closed (unless connecting: see
 * dt_sock_get_connecting()). Caller is in an RCU read-side section
 * (rcu_read_lock() or a netfilter hook), which keeps the entry returned;
 * any context.
 */
static struct dt_sock *dt_sock_add(const struct sock *sk, bool connecting)
{
	struct dt_sock *ds, *fresh;
	unsigned long irq;

	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(),
			 "socket lookup outside an RCU read-side section");
	ds = dt_sock_find(sk);
	if (ds)
		return ds;
	fresh = dt_mem_zalloc(DT_MEM_SOCKETS, sizeof(*fresh), GFP_ATOMIC);
	if (!fresh) {
		dt_stat_inc(DT_STAT_DROP_NOMEM);
		return NULL;
	}
	fresh->sk = sk;
	fresh->used = jiffies;
	spin_lock_init(&fresh->lock);

	spin_lock_irqsave(&dt_socks_lock, irq);
	ds = dt_sock_find(sk);
	if (ds || !dt_socks_open ||
	    (!connecting && READ_ONCE(sk->sk_state) == TCP_CLOSE)) {
		/* Made meanwhile, disarmed, or closing: nothing to add. */
	} else if (atomic_read(&dt_nsocks) >= READ_ONCE(dt_max_sockets)) {
		dt_stat_inc(DT_STAT_DROP_SOCKETS);
	} else {
		hash_add_rcu(dt_socks, &fresh->node, (unsigned long)sk);
		atomic_inc(&dt_nsocks);
		ds = fresh;
		fresh = NULL;
	}
	spin_unlock_irqrestore(&dt_socks_lock, irq);
	if (!fresh)
		dt_socks_sweep_schedule();
	dt_mem_free(DT_MEM_SOCKETS, fresh);
	return ds;
}

/*
 * Under ds->lock: *slot (ds->served or ds->outstanding) becomes c, with a
 * reference of its own; the old one's reference goes. Nothing is kept on
 * an entry already taken out of the table (gone), whose references have
 * been put.
 */
void dt_sock_set_ctx(struct dt_sock *ds, struct dt_ctx **slot,
		     struct dt_ctx *c)
{
	lockdep_assert_held(&ds->lock);
	if (ds->gone || *slot == c)
		return;
	if (c && !dt_ctx_tryget(c))
		c = NULL;
	dt_ctx_put(*slot);
	*slot = c;
}

/*
 * The entry of sk, made if needed, unless sk is closed (see
 * dt_sock_add()). Under RCU.
 */
struct dt_sock *dt_sock_get(const struct sock *sk)
{
	return dt_sock_add(sk, false);
}

/*
 * The same for a socket that its caller is connecting (still in
 * TCP_CLOSE, on its way to TCP_SYN_SENT): the caller holds the socket's
 * lock, as connect() does, so it cannot be destroyed meanwhile (and a
 * socket destroyed later goes through the destroy hook).
 */
struct dt_sock *dt_sock_get_connecting(const struct sock *sk)
{
	sock_owned_by_me(sk);
	return dt_sock_add(sk, true);
}

/*
 * ds, sk's entry, locked by the caller (irq: its flags): ds itself, or,
 * if the sweep took ds out of the table meanwhile (gone), sk's entry
 * now, made if needed and locked instead; NULL (nothing locked) if
 * there is none (table full, memory short, sk closed). Marks the entry
 * used. Under RCU.
 */
struct dt_sock *dt_sock_live(const struct sock *sk, struct dt_sock *ds,
			     unsigned long *irq)
{
	lockdep_assert_held(&ds->lock);
	if (unlikely(ds->gone)) {
		spin_unlock_irqrestore(&ds->lock, *irq);
		ds = dt_sock_get(sk);
		if (!ds)
			return NULL;
		spin_lock_irqsave(&ds->lock, *irq);
		if (ds->gone) {		/* destroyed meanwhile */
			spin_unlock_irqrestore(&ds->lock, *irq);
			return NULL;
		}
	}
	ds->used = jiffies;
	return ds;
}

/*
 * Under ds->lock: the request served on ds's HTTP/2 connection (its
 * streams known) is followed there by another request, traced or not (a
 * client that multiplexes, or a proxy's calls): it becomes the newest
 * earlier one, whose streams' answers stay its own (egress.c). Of more
 * than DT_H2_EARLIER, the oldest is let go: if not answered yet, counted
 * (drops_h2_earlier), its answer goes unmarked.
 */
void dt_sock_keep_earlier(struct dt_sock *ds)
{
	struct dt_h2_earlier *e = ds->earlier;
	struct dt_ctx *old = e[DT_H2_EARLIER - 1].ctx;

	lockdep_assert_held(&ds->lock);
	if (ds->gone || !ds->served || !ds->served_h2_hi)
		return;
	if (old && !READ_ONCE(old->answered))
		dt_stat_inc(DT_STAT_DROP_H2_EARLIER);
	dt_ctx_put(old);
	memmove(&e[1], &e[0], sizeof(*e) * (DT_H2_EARLIER - 1));
	/* The served reference moves. */
	e[0].ctx = ds->served;
	e[0].streams.lo = ds->served_h2_lo;
	e[0].streams.hi = ds->served_h2_hi;
	e[0].ended = 0;
	ds->served = NULL;
	ds->served_h2_lo = 0;
	ds->served_h2_hi = 0;
}

/*
 * Under ds->lock: the earlier requests whose streams the server has
 * ended, each (END_STREAM written, counted by egress.c), are answered
 * whole: their entries go (h2_earlier_ended), so that a connection's
 * later writes are no longer read for them. A stream the server ends by
 * RST_STREAM alone is not counted: its request stays until the socket
 * goes, its entry is pushed out or its client ends it.
 */
void dt_sock_ended_earlier(struct dt_sock *ds)
{
	struct dt_h2_earlier *e = ds->earlier;
	int i = 0, k;

	lockdep_assert_held(&ds->lock);
	while (i < DT_H2_EARLIER && e[i].ctx) {
		if (e[i].ended < dt_h2_streams_in(e[i].streams.lo,
						  e[i].streams.hi)) {
			i++;
			continue;
		}
		dt_stat_inc(DT_STAT_H2_EARLIER_ENDED);
		dt_ctx_put(e[i].ctx);
		for (k = i; k < DT_H2_EARLIER - 1; k++)
			e[k] = e[k + 1];
		e[DT_H2_EARLIER - 1].ctx = NULL;
	}
}

/*
 * Under ds->lock: the earlier requests of ds's connection are over (its
 * client said so): none of them can be served any more (dead). Returns
 * whether there was one.
 */
bool dt_sock_end_earlier(struct dt_sock *ds)
{
	bool any = false;
	int i;

	lockdep_assert_held(&ds->lock);
	for (i = 0; i < DT_H2_EARLIER; i++) {
		if (!ds->earlier[i].ctx)
			continue;
		dt_ctx_kill(ds->earlier[i].ctx);
		dt_ctx_put(ds->earlier[i].ctx);
		ds->earlier[i].ctx = NULL;
		any = true;
	}
	return any;
}

/* The contexts an entry holds references on, handed out of it. */
struct dt_sock_refs {
	struct dt_ctx *served, *out, *earlier[DT_H2_EARLIER];
};

/*
 * Under dt_socks_lock and ds->lock: ds leaves the table (gone); its
 * contexts are the caller's, in refs, to put (dt_sock_refs_put).
 */
static void dt_sock_unlink_locked(struct dt_sock *ds,
				  struct dt_sock_refs *refs)
{
	int i;

	lockdep_assert_held(&dt_socks_lock);
	lockdep_assert_held(&ds->lock);
	hash_del_rcu(&ds->node);
	atomic_dec(&dt_nsocks);
	ds->gone = true;
	refs->served = ds->served;
	refs->out = ds->outstanding;
	ds->served = NULL;
	ds->outstanding = NULL;
	for (i = 0; i < DT_H2_EARLIER; i++) {
		refs->earlier[i] = ds->earlier[i].ctx;
		ds->earlier[i].ctx = NULL;
	}
}

/*
 * The references an entry out of the table held go; dead: the requests
 * read on its socket can no longer be served (the socket is gone).
 */
static void dt_sock_refs_put(struct dt_sock_refs *refs, bool dead)
{
	int i;

	if (dead)
		dt_ctx_kill(refs->served);
	dt_ctx_put(refs->served);
	dt_ctx_put(refs->out);
	for (i = 0; i < DT_H2_EARLIER; i++) {
		if (dead)
			dt_ctx_kill(refs->earlier[i]);
		dt_ctx_put(refs->earlier[i]);
	}
}

/*
 * Takes ds out of the table (under dt_socks_lock, then its own lock):
 * its contexts' references go, and the requests read on it, if traced,
 * can no longer be served (dead): its socket is gone.
 */
static void dt_sock_remove_locked(struct dt_sock *ds)
{
	struct dt_sock_refs refs;

	lockdep_assert_held(&dt_socks_lock);
	spin_lock(&ds->lock);
	dt_sock_unlink_locked(ds, &refs);
	spin_unlock(&ds->lock);
	dt_sock_refs_put(&refs, true);
	dt_mem_free_rcu(DT_MEM_SOCKETS, ds, rcu);
}

/* Under ds->lock: whether the entry alone holds c (or c is NULL). */
static bool dt_sock_ctx_alone_locked(const struct dt_sock *ds,
				     const struct dt_ctx *c)
{
	unsigned int held = (ds->served == c) + (ds->outstanding == c);
	int i;

	lockdep_assert_held(&ds->lock);
	for (i = 0; i < DT_H2_EARLIER; i++)
		held += ds->earlier[i].ctx == c;
	return !c || dt_ctx_refs(c) <= held;
}

/* Under ds->lock: whether the entry alone holds its earlier contexts. */
static bool dt_sock_earlier_alone_locked(const struct dt_sock *ds)
{
	int i;

	lockdep_assert_held(&ds->lock);
	for (i = 0; i < DT_H2_EARLIER; i++)
		if (!dt_sock_ctx_alone_locked(ds, ds->earlier[i].ctx))
			return false;
	return true;
}

/*
 * Under dt_socks_lock and ds->lock, ds in the table (its socket not
 * destroyed yet): whether ds can go. Nothing changed for idle jiffies,
 * no marked bytes in flight (the acknowledged ones dropped here), no
 * write under way, no connect, no context anybody else holds (its
 * threads have left it), no flagged client waiting for its answer.
 */
static bool dt_sock_idle_locked(struct dt_sock *ds, unsigned long idle)
{
	u32 una = READ_ONCE(tcp_sk(ds->sk)->snd_una);

	lockdep_assert_held(&dt_socks_lock);
	lockdep_assert_held(&ds->lock);
	if (!time_after(jiffies, ds->used + idle))
		return false;
	dt_ranges_prune(&ds->sent, una);
	dt_ranges_prune(&ds->sent_resp, una);
	return !ds->sent.n && !ds->sent_resp.n && !ds->rcvd.n &&
	       !ds->rcvd_resp.n && !ds->writer && !ds->connecting &&
	       dt_sock_ctx_alone_locked(ds, ds->served) &&
	       dt_sock_ctx_alone_locked(ds, ds->outstanding) &&
	       dt_sock_earlier_alone_locked(ds) &&
	       !(ds->asker && dt_flag_sender(ds->asker, NULL));
}

/*
 * The sweep: entries idle for socket_idle_ms go (counted in
 * sockets_idle). It walks the table under RCU and takes dt_socks_lock
 * for each entry that may go (interrupts are off only for one entry's
 * check), and runs again while entries remain.
 */
static void dt_socks_sweep(struct work_struct *work)
{
	unsigned long idle = msecs_to_jiffies(READ_ONCE(dt_socket_idle_ms));
	struct dt_sock_refs refs;
	struct dt_sock *ds;
	unsigned long irq;
	bool gone;
	int bkt;

	if (!idle)
		return;
	rcu_read_lock();
	hash_for_each_rcu(dt_socks, bkt, ds, node) {
		if (!time_after(jiffies, READ_ONCE(ds->used) + idle))
			continue;
		gone = false;
		spin_lock_irqsave(&dt_socks_lock, irq);
		spin_lock(&ds->lock);
		if (!ds->gone && dt_sock_idle_locked(ds, idle)) {
			dt_sock_unlink_locked(ds, &refs);
			gone = true;
		}
		spin_unlock(&ds->lock);
		spin_unlock_irqrestore(&dt_socks_lock, irq);
		if (!gone)
			continue;
		dt_sock_refs_put(&refs, false);
		dt_mem_free_rcu(DT_MEM_SOCKETS, ds, rcu);
		dt_stat_inc(DT_STAT_SOCKETS_IDLE);
	}
	rcu_read_unlock();
	if (atomic_read(&dt_nsocks))
		dt_socks_sweep_schedule();
}

/* sk is being destroyed: forget it. Returns whether it was followed. */
static bool dt_sock_forget(const struct sock *sk)
{
	struct dt_sock *ds;
	unsigned long irq;

	if (!atomic_read(&dt_nsocks))
		return false;
	spin_lock_irqsave(&dt_socks_lock, irq);
	ds = dt_sock_find(sk);
	if (ds)
		dt_sock_remove_locked(ds);
	spin_unlock_irqrestore(&dt_socks_lock, irq);
	return ds;
}

/* Drops every entry and refuses new ones until dt_sockets_arm(). */
static void dt_socks_flush(void)
{
	struct dt_sock *ds;
	struct hlist_node *tmp;
	unsigned long irq;
	int bkt;

	spin_lock_irqsave(&dt_socks_lock, irq);
	dt_socks_open = false;
	hash_for_each_safe(dt_socks, bkt, tmp, ds, node)
		dt_sock_remove_locked(ds);
	spin_unlock_irqrestore(&dt_socks_lock, irq);
}

static struct tracepoint *dt_tp_destroy;

/* tcp_destroy_sock: preemption is off (tracepoint), as dt_sock_forget asks. */
static void dt_on_destroy(void *data, struct sock *sk)
{
	/*
	 * Only a followed socket can be a flag's reason: propagation needs
	 * its received ranges, inheritance copies the parent's socket.
	 */
	if (dt_sock_forget(sk))
		dt_flags_socket_gone(sk);
	dt_h2_destroyed(sk);
}

int dt_sockets_arm(void)
{
	unsigned long irq;
	int ret;

	spin_lock_irqsave(&dt_socks_lock, irq);
	dt_socks_open = true;
	spin_unlock_irqrestore(&dt_socks_lock, irq);
	ret = dt_tracepoint_hook(&dt_tp_destroy, "tcp_destroy_sock",
				 dt_on_destroy, "tcp_destroy_sock");
	if (ret)
		dt_socks_flush();
	return ret;
}

/* After egress and ingress are disarmed: nothing adds entries any more. */
void dt_sockets_disarm(void)
{
	dt_tracepoint_unhook(dt_tp_destroy, dt_on_destroy);
	dt_socks_flush();
	/* It may have been scheduling itself again: it finds none now. */
	cancel_delayed_work_sync(&dt_socks_sweep_work);
}
