/*
 * Clock synchronisation between hosts from dtracer's marked segments.
 *
 * Every marked TCP segment is recorded twice: dtracer_mark_send on the
 * host that sent it, dtracer_mark_recv on the host that received it,
 * each with the segment's addresses, ports and sequence range as on the
 * wire. Matched, they are samples "sent at s (sender's clock), received
 * at r (receiver's clock)": the receive came after the send, which
 * bounds the difference of the two clocks (hull.c). Pairs of hosts are
 * then chained over a spanning tree from a reference host.
 *
 * No babeltrace2 here: flt-sync.c feeds the marks in, merge.c applies
 * the result.
 */
#ifndef DT_COLLECTOR_SYNC_H
#define DT_COLLECTOR_SYNC_H

#include <stdint.h>
#include <stdio.h>

#include "hull.h"

/* One marked segment, as dtracer's events record it. */
struct dt_mark {
	uint8_t family;		/* AF_INET or AF_INET6 */
	uint8_t alen;		/* 4 or 16 */
	uint8_t saddr[16];
	uint8_t daddr[16];
	uint16_t sport;
	uint16_t dport;
	uint32_t seq;
	uint32_t end_seq;
};

/*
 * A clock map: t_out = t_in + offset + drift * (t_in - anchor), times in
 * ns from the clocks' origin (the epoch for LTTng's clocks).
 */
struct dt_clock_map {
	long double offset;
	long double drift;
	int64_t anchor;
};

long double dt_clock_map_apply(const struct dt_clock_map *m, int64_t t);

/* A host's result: its map into the reference host's clock. */
struct dt_sync_host {
	char *name;
	enum dt_sync_quality quality;	/* worst along its path */
	int is_reference;
	int via;			/* parent in the tree, -1 if none */
	struct dt_clock_map map;	/* identity unless quality >= approx */
	long double uncertainty;	/* ns at the anchors: half-widths
					   summed along the path */
};

/* A pair's result: hosts a < b (indexes), fit maps b's clock into a's. */
struct dt_sync_pair {
	int a, b;
	struct dt_sync_fit fit;
	/*
	 * Half the width of the offset range at the anchor: of the fit's
	 * bounds if accurate; if approximate (drift unknown, assumed 0), of
	 * the range with no drift. Infinite if open.
	 */
	long double half_width;
	/*
	 * Samples from LTTng's net events left out: all the samples together
	 * admitted no clock map (a net event can miss a segment's first
	 * transmission: with the gate at `thread` a retransmission from a
	 * timer may be the only send recorded, after the receive), and
	 * dtracer's own marks (recorded for every transmission) alone did.
	 */
	size_t net_left_out;
};

struct dt_sync;

struct dt_sync *dt_sync_new(void);
void dt_sync_free(struct dt_sync *s);

/* Index of the host of that name, added if new; -1 on ENOMEM. */
int dt_sync_host_index(struct dt_sync *s, const char *name);

/* A dtracer_mark_send (is_send) or dtracer_mark_recv; 0 or -ENOMEM. */
int dt_sync_add_mark(struct dt_sync *s, int host, int is_send,
		     const struct dt_mark *m, int64_t t);

/*
 * The same for any segment: net (1) for one seen by LTTng's
 * net_dev_queue / net_if_receive_skb, which bound the clocks just as
 * well (queued to the device before it leaves, received after it came).
 */
int dt_sync_add_segment(struct dt_sync *s, int host, int is_send,
			const struct dt_mark *m, int64_t t, int net);

/*
 * Match the marks, fit every pair, chain from the reference host (NULL:
 * the host with the most accurate pairs, then the first by name).
 * 0, -ENOMEM, or -ENOENT if reference names no host.
 */
int dt_sync_solve(struct dt_sync *s, const char *reference);

/*
 * For a sync that lives as long as a live session (dtracer watch): the
 * marks older than cut[host] (a time in that host's clock, per host
 * index) leave, their samples kept in the pairs' hulls (whose vertices
 * are all a hull keeps) and in the counts; a send a newer receive
 * matches stays, and so does any send younger than its cut by
 * DT_SYNC_RETIRE_GRACE_NS (its receive may still be in flight). Solve
 * gives what it gave with them, for receives that come within the
 * grace of their send. 0 or -ENOMEM.
 * dt_sync_kept: the marks kept (for tests).
 */
#define DT_SYNC_RETIRE_GRACE_NS 1000000000LL
int dt_sync_retire(struct dt_sync *s, const int64_t *cut);
size_t dt_sync_kept(const struct dt_sync *s);

int dt_sync_n_hosts(const struct dt_sync *s);
const struct dt_sync_host *dt_sync_host(const struct dt_sync *s, int i);
int dt_sync_n_pairs(const struct dt_sync *s);
const struct dt_sync_pair *dt_sync_pair(const struct dt_sync *s, int i);
/* Matched samples (all pairs), those with a net event on one side at
 * least, and receives with no send. */
uint64_t dt_sync_matched(const struct dt_sync *s);
uint64_t dt_sync_matched_net(const struct dt_sync *s);
uint64_t dt_sync_unmatched(const struct dt_sync *s);
/*
 * dtracer_mark_recv events with no dtracer_mark_send of their bytes on
 * another host: a marked segment always has its send, so anything but 0
 * means lost events (see dt_sync_discarded) or a wrong match.
 */
uint64_t dt_sync_marks_unmatched(const struct dt_sync *s);
/* Events the tracers reported discarded (ring buffers full), summed. */
void dt_sync_add_discarded(struct dt_sync *s, uint64_t n);
uint64_t dt_sync_discarded(const struct dt_sync *s);

/* The report: one line per pair and per host (see docs/collector.md). */
void dt_sync_report(const struct dt_sync *s, FILE *f);

#endif
