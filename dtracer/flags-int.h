/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The thread table's insides, shared by the files that change it and by
 * no other: flags.c (the table, its lock, lookups, insertions and
 * removals, fork and exit), manual.c (add_pid, remove_pid, list_pid),
 * context.c (threads moving between request contexts, the idle sweep, a
 * request's socket gone) and handoff.c (the hand-off rule). Every other
 * file goes through dtracer.h.
 *
 * Locking (the lock order is in dtracer.h): both tables are written under
 * dt_flags_lock (spin_lock_irqsave), dt_flags read under RCU or that
 * lock, dt_flags_by_sk under the lock only. An entry's fields are set
 * before it is inserted and not changed after, but wrote (context.c):
 * written under the lock or, once set, under RCU alone. A function named
 * _locked runs under dt_flags_lock and asserts it.
 */
#ifndef DT_FLAGS_INT_H
#define DT_FLAGS_INT_H

#include "dtracer.h"

#include <linux/hashtable.h>
#include <linux/spinlock.h>

struct dt_flag {
	struct hlist_node node;		/* in dt_flags, by task */
	struct hlist_node by_sk;	/* in dt_flags_by_sk if ctx */
	struct task_struct *task;
	enum dt_reason reason;
	pid_t parent;			/* inherited: the parent's tid */
	struct dt_ctx *ctx;		/* its request (a reference), or NULL */
	u64 since;			/* flagged at (monotonic ns) */
	u64 wrote;			/* last write of the response, 0: none */
	bool handed;			/* handed ctx on by a wake-up (handoff.c) */
	struct rcu_head rcu;
};

#define DT_FLAGS_BITS 12

/* flags.c: the table, by task and, for entries with a context, by socket. */
extern DECLARE_HASHTABLE(dt_flags, DT_FLAGS_BITS);
extern DECLARE_HASHTABLE(dt_flags_by_sk, DT_FLAGS_BITS);
extern spinlock_t dt_flags_lock;

struct dt_flag *dt_flag_find(const struct task_struct *task);
bool dt_flags_room_locked(unsigned int need);
bool dt_ctx_room_locked(const struct dt_ctx *c);
void dt_flag_insert_locked(struct dt_flag *f);
void dt_flag_remove_locked(struct dt_flag *f, enum dt_unflag why);
void dt_flag_replace_locked(struct dt_flag *old, struct dt_flag *f);
void dt_flag_remove_task(struct task_struct *task, enum dt_unflag why,
			 bool clients);

/* context.c: whether and how a thread moves to a context. */
int dt_flags_staying(const struct task_struct *task, const struct dt_ctx *c);
bool dt_flags_may_enter_locked(struct task_struct *task,
			       struct dt_flag *old, struct dt_ctx *c,
			       enum dt_reason reason);
void dt_flag_move_locked(struct dt_flag *f, struct dt_flag *old,
			 struct task_struct *task, struct dt_ctx *c,
			 enum dt_reason reason, pid_t parent);

#endif /* DT_FLAGS_INT_H */
