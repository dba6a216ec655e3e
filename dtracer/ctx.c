// SPDX-License-Identifier: GPL-2.0
/*
 * Request contexts themselves (struct dt_ctx): one per traced request
 * this host serves, made when a thread reads its marked bytes (ingress.c);
 * held by the threads serving it (flags.c's entries) and by two kinds of
 * socket entries (sockets.c): the request's socket and the connections
 * it sent requests on. How threads move between contexts: context.c.
 *
 * A context is counted by references (refcount_t) and freed by
 * kfree_rcu() with the last one, so a pointer read under RCU stays
 * readable to the end of the read-side section; keeping it longer takes
 * a reference (dt_ctx_tryget()). Every reference is held by a bounded
 * table entry, so contexts are bounded by max_threads + 3 * max_sockets
 * + 64 (deferred.c's requests waiting for their calls; the third
 * max_sockets: unix.c's entries).
 *
 * dead: the request's socket is gone (set before its threads are
 * unflagged, read under dt_flags_lock): no thread may join the context
 * again, so an answer arriving late on an upstream connection flags
 * nobody.
 *
 * Locking: none; references and the id counter are atomic. Calls no
 * file of the thread table's.
 */
#include "dtracer.h"

#include <linux/atomic.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <net/netns/hash.h>
#include <net/sock.h>

static atomic64_t dt_ctx_ids = ATOMIC64_INIT(0);

/*
 * A new context for the request current reads on sk, one reference, or
 * NULL.
 */
struct dt_ctx *dt_ctx_new(const struct sock *sk)
{
	struct dt_ctx *c;

	c = dt_mem_zalloc(DT_MEM_CONTEXTS, sizeof(*c), GFP_ATOMIC);
	if (!c) {
		dt_stat_inc(DT_STAT_DROP_NOMEM);
		return NULL;
	}
	refcount_set(&c->ref, 1);
	c->id = atomic64_inc_return(&dt_ctx_ids);
	c->sk = sk;
	c->reader = task_pid_nr(current);
	dt_tuple_from_sock(&c->tuple, sk);
	c->net_mix = net_hash_mix(sock_net(sk));
	return c;
}

struct dt_ctx *dt_ctx_get(struct dt_ctx *c)
{
	refcount_inc(&c->ref);
	return c;
}

/*
 * A reference on c, found under RCU (or under a lock taken irqsave, an
 * RCU read-side section too), unless its last one is being put.
 */
bool dt_ctx_tryget(struct dt_ctx *c)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(),
			 "context found outside an RCU read-side section");
	return refcount_inc_not_zero(&c->ref);
}

void dt_ctx_put(struct dt_ctx *c)
{
	if (c && refcount_dec_and_test(&c->ref))
		dt_mem_free_rcu(DT_MEM_CONTEXTS, c, rcu);
}

/*
 * How many references c has now (sockets.c: whether a socket's entry
 * alone holds it); a hint, read under the holder's lock.
 */
unsigned int dt_ctx_refs(const struct dt_ctx *c)
{
	return refcount_read(&c->ref);
}

/* c's request socket is gone: nobody joins it again. */
void dt_ctx_kill(struct dt_ctx *c)
{
	if (c)
		WRITE_ONCE(c->dead, true);
}
