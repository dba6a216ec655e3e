/*
 * Segments: the one place that says which send a received TCP segment
 * is. The clock sync (sync.c) and the requests builder (requests-*.c)
 * both match dtracer's marks (and, for the sync, LTTng's net events)
 * with this, so they cannot disagree.
 *
 * A flow is one direction of one connection, as on the wire. A
 * segment is a range of its sequence space seen at a time on a host:
 * sent, or received. Sequence numbers are unwrapped against a base (the
 * first one seen on the flow) by a signed 32-bit distance, so a flow may
 * wrap once within 2 GiB of its base.
 *
 * The match: each receive is paired with the earliest send, on another
 * host, of a segment overlapping its bytes. A retransmission may leave
 * after the receive, the first copy cannot; TSO and GRO cut and merge
 * segments, so ranges overlap rather than match one to one.
 *
 * No babeltrace2 here: marks-read.c decodes the events.
 */
#ifndef DT_COLLECTOR_SEGMENTS_H
#define DT_COLLECTOR_SEGMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

/* One direction of one connection; family 0: none (a manual flag). */
struct dt_flow {
	uint8_t family;		/* 0 none, 2 inet, 10 inet6 */
	uint8_t saddr[16], daddr[16];	/* 4 bytes used for inet, rest 0 */
	uint16_t sport, dport;
};

/* For GHashTable keys of struct dt_flow. */
guint dt_flow_hash(gconstpointer p);
gboolean dt_flow_equal(gconstpointer a, gconstpointer b);
/* The other direction of the same connection. */
struct dt_flow dt_flow_reverse(const struct dt_flow *f);

/* A flow's base: its first sequence number seen. */
struct dt_seq_base {
	bool set;
	uint32_t base;
};

/* [seq, end_seq) as [*lo, *hi) from the base (set by the first call). */
void dt_seq_unwrap(struct dt_seq_base *b, uint32_t seq, uint32_t end_seq,
		   int64_t *lo, int64_t *hi);

/* One segment of a flow, sent or received. */
struct dt_seg {
	int64_t lo, hi;		/* unwrapped [seq, end_seq) */
	int64_t t;		/* its host's clock, ns */
	int host;
	bool net;		/* from LTTng's net events, not dtracer's */
};

/* What dt_segs_match found for one receive. */
struct dt_seg_match {
	int send;		/* index of its send, -1: none */
	bool mark_send;		/* a dtracer send (not net) of its bytes on
				 * another host exists */
};

/*
 * Match the n_recvs receives of one flow with its n_sends sends (both
 * in any order; neither is changed): match[i] for recvs[i]. first, if
 * not NULL, gets for each send the index of its earliest matched
 * receive, -1 if none. 0, or -ENOMEM (then match and first are not
 * filled).
 */
int dt_segs_match(const struct dt_seg *sends, size_t n_sends,
		  const struct dt_seg *recvs, size_t n_recvs,
		  struct dt_seg_match *match, int *first);

#endif
