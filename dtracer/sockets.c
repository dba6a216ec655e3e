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
 * tcp_v4_destroy_sock fires for IPv6 sockets too) or when the probe is
 * disarmed. The socket is in TCP_CLOSE before it is destroyed, and
 * entries are only added to sockets not in TCP_CLOSE, both under
 * dt_socks_lock: no entry outlives its socket.
 */
#include "dtracer.h"
#include "hooks.h"

#include <linux/hashtable.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#define DT_SOCKS_BITS 12

static DEFINE_HASHTABLE(dt_socks, DT_SOCKS_BITS);
static DEFINE_SPINLOCK(dt_socks_lock);
atomic_t dt_nsocks = ATOMIC_INIT(0);	/* entries in dt_socks */
static bool dt_socks_open;		/* under dt_socks_lock: armed */

unsigned int dt_max_sockets = 4096;

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
 * Takes ds out of the table (under dt_socks_lock, then its own lock):
 * its contexts' references go, and the request read on it, if traced,
 * can no longer be served (dead): its socket is gone.
 */
static void dt_sock_remove_locked(struct dt_sock *ds)
{
	struct dt_ctx *served, *out;

	lockdep_assert_held(&dt_socks_lock);
	hash_del_rcu(&ds->node);
	atomic_dec(&dt_nsocks);
	spin_lock(&ds->lock);
	ds->gone = true;
	served = ds->served;
	out = ds->outstanding;
	ds->served = NULL;
	ds->outstanding = NULL;
	spin_unlock(&ds->lock);
	dt_ctx_kill(served);
	dt_ctx_put(served);
	dt_ctx_put(out);
	dt_mem_free_rcu(DT_MEM_SOCKETS, ds, rcu);
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
}
