// SPDX-License-Identifier: GPL-2.0
/*
 * Counters shown in /sys/distributed-tracer/stats. Every event the module
 * could not handle (full table, failed allocation, unwritable packet) is
 * counted here instead of growing anything. The table entries in memory
 * are counted here too: the stress test's baseline.
 */
#include "dtracer.h"

#include <linux/atomic.h>
#include <linux/error-injection.h>
#include <linux/slab.h>

static atomic64_t dt_stats[DT_STAT_COUNT];

static const char *const dt_stat_names[DT_STAT_COUNT] = {
	[DT_STAT_MARKS_SENT] = "marks_sent",
	[DT_STAT_MARKS_RECEIVED] = "marks_received",
	[DT_STAT_MARKS_UNTRUSTED] = "marks_untrusted",
	[DT_STAT_PROPAGATIONS] = "propagations",
	[DT_STAT_RESUMES] = "resumes",
	[DT_STAT_HANDOFFS] = "handoffs",
	[DT_STAT_SWITCHES] = "switches",
	[DT_STAT_INHERITS] = "inherits",
	[DT_STAT_UNFLAGS] = "unflags",
	[DT_STAT_RESPONSES] = "responses",
	[DT_STAT_EXPIRED] = "expired",
	[DT_STAT_UNSOLICITED] = "responses_unsolicited",
	[DT_STAT_ANSWERS] = "answers",
	[DT_STAT_READS_KERNEL] = "reads_kernel",
	[DT_STAT_SOCKETS_IDLE] = "sockets_idle",
	[DT_STAT_DROP_THREADS] = "drops_threads",
	[DT_STAT_DROP_RATE] = "drops_rate",
	[DT_STAT_DROP_SOCKETS] = "drops_sockets",
	[DT_STAT_DROP_RANGES] = "drops_ranges",
	[DT_STAT_DROP_NOMEM] = "drops_nomem",
	[DT_STAT_DROP_UNWRITABLE] = "drops_unwritable",
	[DT_STAT_MARKS_SIGNED] = "marks_signed",
	[DT_STAT_RECV_NO_SOCKET] = "recv_no_socket",
	[DT_STAT_MARKS_OUT_OF_WINDOW] = "marks_out_of_window",
	[DT_STAT_MARKS_REJECTED] = "marks_rejected",
	[DT_STAT_DROP_DEFERRED] = "drops_deferred",
	[DT_STAT_DROP_GOROUTINES] = "drops_goroutines",
	[DT_STAT_DROP_HANDOFFS] = "drops_handoffs",
	[DT_STAT_DROP_PEER] = "drops_rate_peer",
	[DT_STAT_DROP_REQUEST] = "drops_request_threads",
	[DT_STAT_EXPIRED_UNANSWERED] = "expired_unanswered",
	[DT_STAT_UNIX_HOPS] = "unix_hops",
	[DT_STAT_STOPS_SENT] = "stops_sent",
	[DT_STAT_STOPPED] = "requests_stopped",
	[DT_STAT_INTERIM] = "interim_answers",
	[DT_STAT_TICKETS] = "tls_tickets_guessed",
	[DT_STAT_H2_STREAMS] = "h2_streams",
	[DT_STAT_H2_LOST] = "h2_lost",
	[DT_STAT_DEFERRED_RESYNCS] = "deferred_resyncs",
	[DT_STAT_H2_CALLS] = "h2_calls",
	[DT_STAT_QUEUE_HANDOFFS] = "queue_handoffs",
	[DT_STAT_DROP_QUEUE] = "drops_queue",
	[DT_STAT_MOVED_UNIX_CALLS] = "moved_unix_calls",
	[DT_STAT_SPLIT_UNIX_CALLS] = "split_unix_calls",
	[DT_STAT_H2_GUESSED] = "h2_streams_guessed",
	[DT_STAT_H2_OTHER_ANSWERS] = "h2_other_answers",
	[DT_STAT_H2_EARLIER_ANSWERS] = "h2_earlier_answers",
	[DT_STAT_DROP_H2_EARLIER] = "drops_h2_earlier",
	[DT_STAT_H2_EARLIER_ENDED] = "h2_earlier_ended",
};

void dt_stat_inc(enum dt_stat s)
{
	atomic64_inc(&dt_stats[s]);
}

void dt_stat_add(enum dt_stat s, u64 n)
{
	atomic64_add(n, &dt_stats[s]);
}

u64 dt_stat_read(enum dt_stat s)
{
	return atomic64_read(&dt_stats[s]);
}

const char *dt_stat_name(enum dt_stat s)
{
	return dt_stat_names[s];
}

static atomic_long_t dt_mem[DT_MEM_COUNT];

static const char *const dt_mem_names[DT_MEM_COUNT] = {
	[DT_MEM_THREADS] = "mem_threads",
	[DT_MEM_SOCKETS] = "mem_sockets",
	[DT_MEM_CONTEXTS] = "mem_contexts",
	[DT_MEM_GOROUTINES] = "mem_goroutines",
};

/*
 * Whether an allocation that cannot sleep fails without being tried:
 * never, unless fail_function makes it say so (a kernel with
 * CONFIG_FAIL_FUNCTION: make check-debug's DT_VM_FAIL_ALLOC). Those
 * are the hooks' allocations, each a counted drop (drops_nomem) for its
 * caller; sysfs writes' (GFP_KERNEL) are left alone. Elsewhere the
 * annotation is empty.
 */
noinline bool dt_mem_fail_atomic(void)
{
	return false;
}

ALLOW_ERROR_INJECTION(dt_mem_fail_atomic, TRUE);

/* Every table entry and context is allocated here. */
void *dt_mem_zalloc(enum dt_mem m, size_t size, gfp_t gfp)
{
	void *p;

	if (!gfpflags_allow_blocking(gfp) && dt_mem_fail_atomic())
		return NULL;
	p = kzalloc(size, gfp);
	if (p)
		atomic_long_inc(&dt_mem[m]);
	return p;
}

void dt_mem_free(enum dt_mem m, const void *p)
{
	if (!p)
		return;
	kfree(p);
	atomic_long_dec(&dt_mem[m]);
}

/* p's free is queued (dt_mem_free_rcu): no longer counted. */
void dt_mem_forget(enum dt_mem m)
{
	atomic_long_dec(&dt_mem[m]);
}

long dt_mem_read(enum dt_mem m)
{
	return atomic_long_read(&dt_mem[m]);
}

const char *dt_mem_name(enum dt_mem m)
{
	return dt_mem_names[m];
}
