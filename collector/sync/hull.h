/*
 * Clock offset and drift between two hosts from timestamped segments, by
 * the convex-hull method of Duda et al. (1987), fully incremental.
 *
 * Hosts A and B. A segment sent by A at s (A's clock) and received by B
 * at r (B's clock) is the point (x = r, y = s); one sent by B at s and
 * received by A at r is the point (x = s, y = r). The map from B's clock
 * to A's is a line y = a*x + b, a = 1 + drift, and causality (a receive
 * comes after its send) puts every A->B point on or below it and every
 * B->A point on or above it. Only the upper hull of the A->B points and
 * the lower hull of the B->A points constrain the line: both are kept as
 * samples come, and the fit works on them alone, in exact integer
 * arithmetic (__int128) for every decision.
 *
 * Times are int64 ns; all the times of one pair must lie within 2^61 ns
 * (73 years) of the first sample's, or dt_hull_add says -ERANGE.
 */
#ifndef DT_COLLECTOR_HULL_H
#define DT_COLLECTOR_HULL_H

#include <stddef.h>
#include <stdint.h>

enum dt_sync_quality {
	DT_SYNC_ABSENT,		/* no sample at all */
	DT_SYNC_FAIL,		/* no line satisfies all the samples */
	DT_SYNC_APPROX,		/* consistent, but drift or offset unbounded */
	DT_SYNC_ACCURATE,	/* drift and offset bounded on both sides */
};

/* "absent", "fail", "approximate", "accurate" ("?" for anything else). */
const char *dt_sync_quality_name(enum dt_sync_quality q);

/* Directions of a sample. */
enum {
	DT_HULL_AB = 0,		/* sent in A's clock, received in B's */
	DT_HULL_BA = 1,		/* sent in B's clock, received in A's */
};

struct dt_hull_pair;

/* A pair of hosts with no sample yet; NULL on ENOMEM. */
struct dt_hull_pair *dt_hull_pair_new(void);
void dt_hull_pair_free(struct dt_hull_pair *p);
/* A copy (its vertices: what the samples so far left); NULL on ENOMEM. */
struct dt_hull_pair *dt_hull_pair_copy(const struct dt_hull_pair *p);

/*
 * A sample: dir DT_HULL_AB or DT_HULL_BA. Any order; in order of the B
 * time it costs amortized O(1). 0, -ENOMEM (the pair is unchanged),
 * -EINVAL (bad dir) or -ERANGE (more than 2^61 ns from the first sample).
 */
int dt_hull_add(struct dt_hull_pair *p, int dir, int64_t send_ns,
		int64_t recv_ns);

/* Vertices of the hull kept for dir (the samples that still matter). */
size_t dt_hull_size(const struct dt_hull_pair *p, int dir);

/*
 * The fit: t_A = t_B + offset + drift * (t_B - anchor).
 * ABSENT: estimates NAN, bounds -/+INFINITY. FAIL: all NAN.
 * APPROX: bounds infinite where the samples leave them open.
 */
struct dt_sync_fit {
	enum dt_sync_quality quality;
	size_t n_ab, n_ba;		/* samples added per direction */
	int64_t anchor;			/* B time (ns): middle of the samples' */
	long double offset;		/* t_A - t_B at anchor (ns) */
	long double offset_lo, offset_hi; /* its range over feasible lines */
	long double drift;		/* a - 1 */
	long double drift_lo, drift_hi;	/* its range over feasible lines */
};

void dt_hull_fit(const struct dt_hull_pair *p, struct dt_sync_fit *fit);

/* A's time for B's time t_b by the fit's estimate (NAN unless a fit). */
long double dt_sync_fit_apply(const struct dt_sync_fit *fit, int64_t t_b);

/*
 * Exact range of t_A - t_B at B's time t over all the lines the samples
 * allow: -/+INFINITY where open (no sample: both), NAN if none is
 * allowed. Computed from p alone; fit (p's, may be NULL) is not read.
 */
void dt_sync_fit_range(const struct dt_hull_pair *p,
		       const struct dt_sync_fit *fit, int64_t t,
		       long double *lo, long double *hi);

#endif
