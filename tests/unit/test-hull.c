/*
 * Unit tests of collector/sync/hull.c: convex-hull clock sync of two hosts.
 *
 * The synthetic hosts: A's clock reads t_B + off + drift * (t_B - t0)
 * when B's reads t_B, with epoch-sized times. A segment A->B received at
 * B time r was sent at A time (r's A time - delay); one B->A sent at B
 * time s is received at A time (s's A time + delay), delays random.
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hull.h"
#include "tap.h"

#define T0 INT64_C(1800000000000000000)	/* ~2027 in ns since the epoch */
#define MS INT64_C(1000000)
#define US INT64_C(1000)
#define SEC INT64_C(1000000000)
#define PPM 1e-6L

/* xorshift64*, fixed seeds: the same samples on every run. */
static uint64_t rng = UINT64_C(0x9e3779b97f4a7c15);

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * UINT64_C(2685821657736338717);
}

/* Uniform in [lo, hi]. */
static int64_t rnd_in(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

struct model {
	long double off;	/* t_A - t_B at t0 */
	long double drift;
};

struct sample {
	int dir;
	int64_t send, recv;
	int64_t tb;		/* the sample's B time */
};

/* True t_A - t_B at B time t. */
static long double true_off(const struct model *m, int64_t t)
{
	return m->off + m->drift * (long double)(t - T0);
}

static struct sample make(const struct model *m, int dir, int64_t tb,
			  int64_t delay)
{
	struct sample s = { .dir = dir, .tb = tb };

	if (dir == DT_HULL_AB) {
		s.recv = tb;
		s.send = tb + (int64_t)floorl(true_off(m, tb) - delay);
	} else {
		s.send = tb;
		s.recv = tb + (int64_t)ceill(true_off(m, tb) + delay);
	}
	return s;
}

/* n samples over [start, start + span), dirs: -1 both (random), else one. */
static struct sample *gen(const struct model *m, size_t n, int64_t start,
			  int64_t span, int dirs, int64_t dmin, int64_t dmax)
{
	struct sample *v = malloc(n * sizeof(*v));
	size_t i;

	for (i = 0; v && i < n; i++) {
		int64_t tb = start + (int64_t)((long double)span * i / n) +
			     rnd_in(0, span / (int64_t)n / 2);
		int dir = dirs >= 0 ? dirs : (int)(rnd() >> 63);

		v[i] = make(m, dir, tb, rnd_in(dmin, dmax));
	}
	return v;
}

static struct dt_hull_pair *pair_of(const struct sample *v, size_t n,
				    const size_t *order)
{
	struct dt_hull_pair *p = dt_hull_pair_new();
	size_t i;
	int err = 0;

	for (i = 0; p && i < n; i++) {
		const struct sample *s = &v[order ? order[i] : i];

		err |= dt_hull_add(p, s->dir, s->send, s->recv);
	}
	if (err) {
		dt_hull_pair_free(p);
		return NULL;
	}
	return p;
}

static size_t *shuffled(size_t n)
{
	size_t *o = malloc(n * sizeof(*o));
	size_t i;

	for (i = 0; o && i < n; i++)
		o[i] = i;
	for (i = n; o && i > 1; i--) {
		size_t j = (size_t)(rnd() % i), t = o[i - 1];

		o[i - 1] = o[j];
		o[j] = t;
	}
	return o;
}

static size_t *reversed(size_t n)
{
	size_t *o = malloc(n * sizeof(*o));
	size_t i;

	for (i = 0; o && i < n; i++)
		o[i] = n - 1 - i;
	return o;
}

static int64_t middle_tb(const struct sample *v, size_t n)
{
	int64_t lo = v[0].tb, hi = v[0].tb;
	size_t i;

	for (i = 1; i < n; i++) {
		lo = v[i].tb < lo ? v[i].tb : lo;
		hi = v[i].tb > hi ? v[i].tb : hi;
	}
	return lo + (hi - lo) / 2;
}

static int in(long double lo, long double x, long double hi)
{
	return lo <= x && x <= hi;
}

/*
 * Unbounded below (-INFINITY) or above (+INFINITY). Under valgrind, whose
 * x87 emulation turns long double infinities into -/+LDBL_MAX, those too.
 */
static int open_lo(long double x)
{
	return x < 0 && (isinf(x) || x == -LDBL_MAX);
}

static int open_hi(long double x)
{
	return x > 0 && (isinf(x) || x == LDBL_MAX);
}

static int bounded(long double x)
{
	return !isnan(x) && !open_lo(x) && !open_hi(x);
}

/* Truth inside the exact range at every sample's B time; the estimate
 * close to it. Returns the number of misses; *worst the worst error. */
static size_t check_samples(const struct dt_hull_pair *p,
			    const struct dt_sync_fit *fit,
			    const struct model *m, const struct sample *v,
			    size_t n, long double *worst)
{
	size_t i, miss = 0;

	*worst = 0;
	for (i = 0; i < n; i++) {
		long double lo, hi, truth = v[i].tb + true_off(m, v[i].tb);
		long double err;

		dt_sync_fit_range(p, fit, v[i].tb, &lo, &hi);
		miss += !in(v[i].tb + lo, truth, v[i].tb + hi);
		err = fabsl(dt_sync_fit_apply(fit, v[i].tb) - truth);
		if (!(err <= *worst))
			*worst = err;
	}
	return miss;
}

static void check_accurate(const char *what, const struct dt_hull_pair *p,
			   const struct dt_sync_fit *f, const struct model *m,
			   const struct sample *v, size_t n, long double drift_tol)
{
	long double truth = true_off(m, f->anchor), worst, lo, hi;
	size_t miss;

	printf("# %s: offset %.1Lf [%.1Lf, %.1Lf] (true %.1Lf), drift %.4Lf "
	       "ppm [%.4Lf, %.4Lf] (true %.4Lf), hulls %zu+%zu\n", what,
	       f->offset, f->offset_lo, f->offset_hi, truth, f->drift / PPM,
	       f->drift_lo / PPM, f->drift_hi / PPM, m->drift / PPM,
	       dt_hull_size(p, DT_HULL_AB), dt_hull_size(p, DT_HULL_BA));
	ok(f->quality == DT_SYNC_ACCURATE, "%s: accurate (%s)", what,
	   dt_sync_quality_name(f->quality));
	ok(f->anchor == middle_tb(v, n), "%s: anchor in the middle", what);
	ok(in(f->offset_lo, truth, f->offset_hi), "%s: true offset in bounds",
	   what);
	ok(in(f->drift_lo, m->drift, f->drift_hi), "%s: true drift in bounds",
	   what);
	ok(in(f->offset_lo, f->offset, f->offset_hi) &&
	   in(f->drift_lo, f->drift, f->drift_hi),
	   "%s: estimate in its own bounds", what);
	ok(f->offset_hi - f->offset_lo < 4 * MS &&
	   f->drift_hi - f->drift_lo < 20 * PPM,
	   "%s: bounds are tight (%.0Lf ns, %.3Lf ppm)", what,
	   f->offset_hi - f->offset_lo, (f->drift_hi - f->drift_lo) / PPM);
	ok(fabsl(f->offset - truth) < 50 * US, "%s: offset error %.0Lf ns < 50 us",
	   what, f->offset - truth);
	ok(fabsl(f->drift - m->drift) < drift_tol,
	   "%s: drift error %.4Lf ppm", what, (f->drift - m->drift) / PPM);
	dt_sync_fit_range(p, f, f->anchor, &lo, &hi);
	ok(lo == f->offset_lo && hi == f->offset_hi,
	   "%s: range at the anchor is the offset's bounds", what);
	miss = check_samples(p, f, m, v, n, &worst);
	ok(miss == 0, "%s: truth in range at all %zu sample times (%zu misses)",
	   what, n, miss);
	ok(worst < 50 * US, "%s: applied fit within %.0Lf ns of the truth",
	   what, worst);
}

static void test_accurate(const char *what, long double off,
			  long double drift)
{
	struct model m = { off, drift };
	size_t n = 400;
	struct sample *v = gen(&m, n, T0 - 300 * SEC, 600 * SEC, -1,
			       50 * US, 2 * MS);
	struct dt_hull_pair *p = pair_of(v, n, NULL);
	struct dt_sync_fit f;
	size_t i, n_ab = 0;

	ok(p != NULL, "%s: samples added", what);
	if (!p)
		goto out;
	for (i = 0; i < n; i++)
		n_ab += v[i].dir == DT_HULL_AB;
	dt_hull_fit(p, &f);
	ok(f.n_ab == n_ab && f.n_ba == n - n_ab, "%s: %zu + %zu samples counted",
	   what, f.n_ab, f.n_ba);
	check_accurate(what, p, &f, &m, v, n, 2 * PPM);
out:
	dt_hull_pair_free(p);
	free(v);
}

static void test_absent(void)
{
	struct dt_hull_pair *p = dt_hull_pair_new();
	struct dt_sync_fit f;
	long double lo, hi;

	dt_hull_fit(p, &f);
	ok(f.quality == DT_SYNC_ABSENT && !strcmp(dt_sync_quality_name(f.quality),
						 "absent"), "no sample: absent");
	ok(isnan(f.offset) && isnan(f.drift) && f.n_ab == 0 && f.n_ba == 0,
	   "absent: no numbers");
	ok(open_lo(f.offset_lo) && open_hi(f.offset_hi) && open_lo(f.drift_lo) &&
	   open_hi(f.drift_hi), "absent: bounds open");
	dt_sync_fit_range(p, &f, T0, &lo, &hi);
	ok(open_lo(lo) && open_hi(hi), "absent: range open");
	ok(isnan(dt_sync_fit_apply(&f, T0)), "absent: apply gives NAN");
	ok(dt_hull_add(p, 2, T0, T0) == -EINVAL && dt_hull_add(p, -1, T0, T0) ==
	   -EINVAL, "a bad direction is refused");
	ok(dt_hull_add(p, DT_HULL_AB, T0, T0) == 0 &&
	   dt_hull_add(p, DT_HULL_AB, T0, T0 - (INT64_C(1) << 62)) == -ERANGE &&
	   dt_hull_add(p, DT_HULL_BA, T0 + (INT64_C(1) << 62), T0) == -ERANGE,
	   "times 2^62 ns away are refused");
	dt_hull_fit(p, &f);
	ok(f.n_ab == 1 && f.n_ba == 0 && dt_hull_size(p, DT_HULL_AB) == 1,
	   "refused samples are not counted");
	dt_hull_pair_free(p);
}

static int all_nan(const struct dt_sync_fit *f)
{
	return isnan(f->offset) && isnan(f->offset_lo) &&
	       isnan(f->offset_hi) && isnan(f->drift) && isnan(f->drift_lo) &&
	       isnan(f->drift_hi);
}

static void expect_fail(const char *what, const struct dt_hull_pair *p)
{
	struct dt_sync_fit f;
	long double lo, hi;

	dt_hull_fit(p, &f);
	ok(f.quality == DT_SYNC_FAIL && !strcmp(dt_sync_quality_name(f.quality),
						"fail"), "%s: fail (%s)", what,
	   dt_sync_quality_name(f.quality));
	ok(all_nan(&f), "%s: no numbers", what);
	dt_sync_fit_range(p, &f, f.anchor, &lo, &hi);
	ok(isnan(lo) && isnan(hi), "%s: no range", what);
	ok(isnan(dt_sync_fit_apply(&f, f.anchor)), "%s: apply gives NAN", what);
}

static void test_fail(void)
{
	const int64_t K = 7300 * MS;
	struct model m = { -2100 * MS, 30 * PPM };
	size_t n = 300;
	struct sample *v = gen(&m, n, T0, 100 * SEC, -1, 50 * US, 2 * MS);
	struct dt_hull_pair *p = dt_hull_pair_new();
	struct dt_sync_fit f;

	/* at T0: t_A - t_B >= K, and <= K - 1000 */
	dt_hull_add(p, DT_HULL_AB, T0 + K, T0);
	dt_hull_add(p, DT_HULL_BA, T0, T0 + K - 1000);
	expect_fail("same time, bounds crossed", p);
	dt_hull_pair_free(p);

	/* A->B says >= K at T0 and T0 + 100, B->A <= K - 1 at T0 + 50 */
	p = dt_hull_pair_new();
	dt_hull_add(p, DT_HULL_AB, T0 + K, T0);
	dt_hull_add(p, DT_HULL_AB, T0 + 100 + K, T0 + 100);
	dt_hull_add(p, DT_HULL_BA, T0 + 50, T0 + 50 + K - 1);
	expect_fail("a B->A sample under an A->B chord", p);
	/* the same chord touched, not crossed, is feasible */
	dt_hull_pair_free(p);
	p = dt_hull_pair_new();
	dt_hull_add(p, DT_HULL_AB, T0 + K, T0);
	dt_hull_add(p, DT_HULL_AB, T0 + 100 + K, T0 + 100);
	dt_hull_add(p, DT_HULL_BA, T0 + 50, T0 + 50 + K);
	dt_hull_fit(p, &f);
	ok(f.quality == DT_SYNC_ACCURATE && f.drift == 0 && f.offset == K &&
	   f.offset_lo == K && f.offset_hi == K && f.drift_lo == 0 &&
	   f.drift_hi == 0, "a chord touched exactly: accurate, one line "
	   "(%s, offset %.1Lf drift %Lg)", dt_sync_quality_name(f.quality),
	   f.offset - K, f.drift);
	dt_hull_pair_free(p);

	/* good samples and one received 3 ms before it was sent */
	p = pair_of(v, n, NULL);
	dt_hull_fit(p, &f);
	ok(f.quality == DT_SYNC_ACCURATE, "before the bad sample: accurate");
	{
		struct sample bad = make(&m, DT_HULL_BA, T0 + 50 * SEC, -3 * MS);

		dt_hull_add(p, DT_HULL_BA, bad.send, bad.recv);
	}
	expect_fail("one receive 3 ms before its send", p);
	dt_hull_pair_free(p);
	free(v);
}

/* One sample each way, one way only, a drift of 0 ruled out. */
static void test_few(void)
{
	struct model m = { 7300 * MS, 50 * PPM };
	struct sample ab = make(&m, DT_HULL_AB, T0, 300 * US);
	struct sample ba = make(&m, DT_HULL_BA, T0 + SEC, 700 * US);
	struct dt_hull_pair *p = dt_hull_pair_new();
	struct dt_sync_fit f;
	long double lo, hi, want, truth;
	struct sample *v;
	size_t i, n = 20;
	int64_t best;

	dt_hull_add(p, ab.dir, ab.send, ab.recv);
	dt_hull_add(p, ba.dir, ba.send, ba.recv);
	dt_hull_fit(p, &f);
	truth = true_off(&m, f.anchor);
	ok(f.quality == DT_SYNC_APPROX && !strcmp(dt_sync_quality_name(f.quality),
						  "approximate"),
	   "1 + 1 samples: approximate (%s)", dt_sync_quality_name(f.quality));
	ok(f.anchor == T0 + SEC / 2, "1 + 1: anchor between them");
	ok(open_lo(f.drift_lo) && bounded(f.drift_hi) &&
	   in(f.drift_lo, m.drift, f.drift_hi),
	   "1 + 1: drift bounded above only, true drift inside (< %Lg)",
	   f.drift_hi);
	ok(open_lo(f.offset_lo) && open_hi(f.offset_hi), "1 + 1: offset at the anchor open both ways");
	want = ((long double)(ab.send - ab.recv) + (ba.recv - ba.send)) / 2;
	ok(f.drift == 0 && fabsl(f.offset - want) < 1e-3L,
	   "1 + 1: drift 0, offset the middle (%.1Lf, want %.1Lf)", f.offset,
	   want);
	ok(fabsl(f.offset - truth) < MS, "1 + 1: offset within 1 ms of truth");
	dt_sync_fit_range(p, &f, T0, &lo, &hi);
	ok(lo == ab.send - ab.recv && open_hi(hi) &&
	   in(lo, true_off(&m, T0), hi),
	   "1 + 1: range at the A->B sample: from its bound up");
	dt_hull_pair_free(p);

	/* A->B only: the least latency, i.e. the greatest send - recv */
	v = gen(&m, n, T0, 20 * SEC, DT_HULL_AB, 50 * US, 2 * MS);
	p = pair_of(v, n, NULL);
	dt_hull_fit(p, &f);
	truth = true_off(&m, f.anchor);
	best = INT64_MIN;
	for (i = 0; i < n; i++)
		best = v[i].send - v[i].recv > best ? v[i].send - v[i].recv : best;
	ok(f.quality == DT_SYNC_APPROX && f.n_ab == n && f.n_ba == 0,
	   "A->B only: approximate");
	ok(f.drift == 0 && f.offset == best,
	   "A->B only: drift 0, offset the tightest bound (%.0Lf vs %" PRId64 ")",
	   f.offset, best);
	ok(open_lo(f.drift_lo) && open_hi(f.drift_hi) &&
	   open_hi(f.offset_hi) && bounded(f.offset_lo) &&
	   in(f.offset_lo, truth, f.offset_hi),
	   "A->B only: drift open, offset bounded below only, truth inside");
	ok(check_samples(p, &f, &m, v, n, &lo) == 0,
	   "A->B only: truth in range at each sample time");
	dt_hull_pair_free(p);
	free(v);

	/* B->A only: the least latency, i.e. the least recv - send */
	v = gen(&m, n, T0, 20 * SEC, DT_HULL_BA, 50 * US, 2 * MS);
	p = pair_of(v, n, NULL);
	dt_hull_fit(p, &f);
	truth = true_off(&m, f.anchor);
	best = INT64_MAX;
	for (i = 0; i < n; i++)
		best = v[i].recv - v[i].send < best ? v[i].recv - v[i].send : best;
	ok(f.quality == DT_SYNC_APPROX && f.n_ab == 0 && f.n_ba == n &&
	   f.drift == 0 && f.offset == best,
	   "B->A only: approximate, drift 0, offset the tightest bound");
	ok(open_lo(f.drift_lo) && open_hi(f.drift_hi) && open_lo(f.offset_lo) &&
	   bounded(f.offset_hi) &&
	   in(f.offset_lo, truth, f.offset_hi),
	   "B->A only: offset bounded above only, truth inside");
	ok(check_samples(p, &f, &m, v, n, &lo) == 0,
	   "B->A only: truth in range at each sample time");
	dt_hull_pair_free(p);
	free(v);

	/* at T0 offset >= K, at T0 + 1 s <= K - 10 ms: drift <= -1%, taken */
	p = dt_hull_pair_new();
	dt_hull_add(p, DT_HULL_AB, T0 + 7300 * MS, T0);
	dt_hull_add(p, DT_HULL_BA, T0 + SEC, T0 + SEC + 7290 * MS);
	dt_hull_fit(p, &f);
	ok(f.quality == DT_SYNC_APPROX && open_lo(f.drift_lo) &&
	   fabsl(f.drift_hi + 0.01L) < 1e-15L && f.drift == f.drift_hi &&
	   fabsl(f.offset - 7295 * MS) < 1e-3L,
	   "drift 0 ruled out: the nearest drift (%Lg), its one offset (%.3Lf)",
	   f.drift, f.offset);
	dt_hull_pair_free(p);

	/* equal B times: only the outermost counts */
	p = dt_hull_pair_new();
	dt_hull_add(p, DT_HULL_AB, T0 + 7300 * MS - 100, T0);
	dt_hull_add(p, DT_HULL_AB, T0 + 7300 * MS - 5, T0);
	dt_hull_add(p, DT_HULL_AB, T0 + 7300 * MS - 50, T0);
	dt_hull_add(p, DT_HULL_AB, T0 + 7300 * MS - 5, T0);
	dt_hull_fit(p, &f);
	ok(dt_hull_size(p, DT_HULL_AB) == 1 && f.n_ab == 4 &&
	   f.offset == 7300 * MS - 5 && f.offset_lo == f.offset,
	   "A->B at one B time: one vertex, the highest send");
	dt_hull_pair_free(p);
}

static int same_fit(const struct dt_sync_fit *a, const struct dt_sync_fit *b)
{
	return a->quality == b->quality && a->n_ab == b->n_ab &&
	       a->n_ba == b->n_ba && a->anchor == b->anchor &&
	       a->offset == b->offset && a->offset_lo == b->offset_lo &&
	       a->offset_hi == b->offset_hi && a->drift == b->drift &&
	       a->drift_lo == b->drift_lo && a->drift_hi == b->drift_hi;
}

static int same_hulls(const struct dt_hull_pair *a,
		      const struct dt_hull_pair *b)
{
	return dt_hull_size(a, DT_HULL_AB) == dt_hull_size(b, DT_HULL_AB) &&
	       dt_hull_size(a, DT_HULL_BA) == dt_hull_size(b, DT_HULL_BA);
}

static int same_ranges(const struct dt_hull_pair *a,
		       const struct dt_hull_pair *b, const struct sample *v,
		       size_t n)
{
	size_t i;

	for (i = 0; i < n; i += n / 50 + 1) {
		long double alo, ahi, blo, bhi;

		dt_sync_fit_range(a, NULL, v[i].tb, &alo, &ahi);
		dt_sync_fit_range(b, NULL, v[i].tb, &blo, &bhi);
		if (alo != blo || ahi != bhi)
			return 0;
	}
	return 1;
}

static void compare_orders(const char *what, const struct sample *v,
			   size_t n, const struct dt_hull_pair *ref,
			   const struct dt_sync_fit *fref, const size_t *order)
{
	struct dt_hull_pair *p = pair_of(v, n, order);
	struct dt_sync_fit f;

	if (!p) {
		ok(0, "%s: samples added", what);
		return;
	}
	dt_hull_fit(p, &f);
	ok(same_fit(&f, fref) && same_hulls(p, ref) && same_ranges(p, ref, v, n),
	   "%s: same hulls, fit and ranges as in order", what);
	dt_hull_pair_free(p);
}

static void test_order(void)
{
	struct model m = { 7300 * MS, -40 * PPM };
	size_t n = 300, i;
	struct sample *v = gen(&m, n + 30, T0, 60 * SEC, -1, 50 * US, 2 * MS);
	size_t *rev = reversed(n + 30), *shuf = shuffled(n + 30);
	struct dt_hull_pair *p;
	struct dt_sync_fit f;

	/* some exact repeats and some at an existing B time */
	for (i = 0; i < 30; i++) {
		v[n + i] = v[i * 7];
		if (i % 2 && v[n + i].dir == DT_HULL_AB)
			v[n + i].send -= 10;
		else if (i % 2)
			v[n + i].recv += 10;
	}
	n += 30;
	p = pair_of(v, n, NULL);
	dt_hull_fit(p, &f);
	ok(f.quality == DT_SYNC_ACCURATE && f.n_ab + f.n_ba == n,
	   "order: in order, accurate");
	compare_orders("order: reversed", v, n, p, &f, rev);
	compare_orders("order: shuffled", v, n, p, &f, shuf);
	dt_hull_pair_free(p);
	free(rev);
	free(shuf);
	free(v);
}

static void test_large(void)
{
	struct model m = { -2100 * MS, -30 * PPM };
	size_t n = 200000;
	struct sample *v = gen(&m, n, T0 - 1800 * SEC, 3600 * SEC, -1,
			       50 * US, 2 * MS);
	struct dt_hull_pair *p = pair_of(v, n, NULL);
	struct dt_sync_fit f;
	size_t *rev = reversed(n), *shuf = shuffled(n);

	ok(p != NULL, "large: %zu samples added", n);
	if (p) {
		dt_hull_fit(p, &f);
		check_accurate("large", p, &f, &m, v, n, 0.2L * PPM);
		compare_orders("large: reversed", v, n, p, &f, rev);
		compare_orders("large: shuffled", v, n, p, &f, shuf);
	}
	dt_hull_pair_free(p);
	free(rev);
	free(shuf);
	free(v);
}

static void test_apply(void)
{
	struct dt_sync_fit f = {
		.quality = DT_SYNC_ACCURATE, .anchor = T0,
		.offset = 7300 * MS, .drift = 50 * PPM,
	};

	ok(dt_sync_fit_apply(&f, T0) == T0 + 7300 * MS,
	   "apply: the anchor maps by the offset alone, exactly");
	ok(fabsl(dt_sync_fit_apply(&f, T0 + 1000 * SEC) -
		 (T0 + 1000 * SEC + 7300 * MS + 50 * MS)) < 0.5L,
	   "apply: +1000 s gains 50 ms at +50 ppm");
	ok(fabsl(dt_sync_fit_apply(&f, T0 - 1000 * SEC) -
		 (T0 - 1000 * SEC + 7300 * MS - 50 * MS)) < 0.5L,
	   "apply: -1000 s loses 50 ms");
	f.quality = DT_SYNC_APPROX;
	f.offset = -2100 * MS;
	f.drift = -30 * PPM;
	ok(fabsl(dt_sync_fit_apply(&f, T0 + 100 * SEC) -
		 (T0 + 100 * SEC - 2100 * MS - 3 * MS)) < 0.5L,
	   "apply: negative offset and drift (approximate)");
	f.quality = DT_SYNC_FAIL;
	ok(isnan(dt_sync_fit_apply(&f, T0)), "apply: NAN for a failed fit");
}

/*
 * Brute force on small random sets: every intersection of two constraint
 * lines b = y - a*x (a = slope, relative coordinates), kept if it meets
 * all constraints, exactly in integers. When both directions interleave
 * in B time the feasible set is bounded: empty iff no vertex, else its
 * slope and offset bounds are over the vertices.
 */
struct pts {
	int64_t x[12], y[12];
	int dir[12];
	int n;
};

/* vertex a = num/den, b = bd/den (den > 0) feasible for all of s */
static int feasible(const struct pts *s, int64_t num, int64_t den,
		    int64_t bd)
{
	int i;

	for (i = 0; i < s->n; i++) {
		int64_t c = s->y[i] * den - num * s->x[i];	/* (y - a x) den */

		if (s->dir[i] == DT_HULL_AB ? bd < c : bd > c)
			return 0;
	}
	return 1;
}

struct brute {
	int any;
	long double a_lo, a_hi;		/* slope bounds (a, not drift) */
	long double c_lo, c_hi;		/* t_A - t_B bounds at tq */
	long double c_at_alo, c_at_ahi;	/* at the anchor, lines of a_lo/a_hi */
};

static void brute(const struct pts *s, int64_t anchor, int64_t tq,
		  struct brute *r)
{
	int i, k;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < s->n; i++)
		for (k = 0; k < s->n; k++) {
			int64_t den = s->x[k] - s->x[i], num, bd;
			long double a, c, ca;

			if (den <= 0)
				continue;
			num = s->y[k] - s->y[i];
			bd = s->y[i] * den - num * s->x[i];
			if (!feasible(s, num, den, bd))
				continue;
			a = (long double)num / den;
			c = (long double)(num * tq + bd) / den - tq;
			ca = (long double)(num * anchor + bd) / den - anchor;
			if (!r->any || a < r->a_lo) {
				r->a_lo = a;
				r->c_at_alo = ca;
			}
			if (!r->any || a > r->a_hi) {
				r->a_hi = a;
				r->c_at_ahi = ca;
			}
			if (!r->any || c < r->c_lo)
				r->c_lo = c;
			if (!r->any || c > r->c_hi)
				r->c_hi = c;
			r->any = 1;
		}
}

static int near(long double a, long double b)
{
	return fabsl(a - b) < 1e-6L;
}

/* The fit's line a - 1 = drift, offset at the anchor, meets all of s. */
static int line_ok(const struct pts *s, const struct dt_sync_fit *f,
		   int64_t base, int64_t k)
{
	int i;

	for (i = 0; i < s->n; i++) {
		long double off = f->offset + f->drift *
			(long double)(base + s->x[i] - f->anchor);
		long double d = (long double)(s->y[i] - s->x[i] + k) - off;

		if (s->dir[i] == DT_HULL_AB ? d > 1e-6L : d < -1e-6L)
			return 0;
	}
	return 1;
}

/* Upper (A->B) or lower (B->A) hull height at x, brute force. */
static long double hull_at(const struct pts *s, int dir, int64_t x)
{
	long double best = dir == DT_HULL_AB ? -INFINITY : INFINITY;
	int i, k;

	for (i = 0; i < s->n; i++)
		for (k = 0; k < s->n; k++) {
			long double h;

			if (s->dir[i] != dir || s->dir[k] != dir ||
			    s->x[i] > x || s->x[k] < x ||
			    (s->x[i] == s->x[k] && i != k))
				continue;
			h = s->x[i] == s->x[k] ? s->y[i] :
			    s->y[i] + (long double)(s->y[k] - s->y[i]) *
			    (x - s->x[i]) / (s->x[k] - s->x[i]);
			if (dir == DT_HULL_AB ? h > best : h < best)
				best = h;
		}
	return best;
}

struct tally {
	int fail, accurate, approx, approx_one, bad;
};

static int check_one_dir(const struct pts *s, const struct dt_sync_fit *f,
			 int64_t base, int64_t k, int dir)
{
	int64_t X = f->anchor - base;
	long double h = hull_at(s, dir, X) - X + k, want = 0;
	int i, first = 1;

	for (i = 0; i < s->n; i++) {
		int64_t c = s->y[i] - s->x[i];

		if (first || (dir == DT_HULL_AB ? c > want : c < want))
			want = c;
		first = 0;
	}
	if (f->quality != DT_SYNC_APPROX || f->drift != 0 ||
	    f->offset != want + k || !open_lo(f->drift_lo) ||
	    !open_hi(f->drift_hi))
		return 0;
	if (dir == DT_HULL_AB)
		return near(f->offset_lo, h) && open_hi(f->offset_hi);
	return near(f->offset_hi, h) && open_lo(f->offset_lo);
}

static int check_mixed(const struct pts *s, const struct dt_sync_fit *f,
		       const struct dt_hull_pair *p, int64_t base, int64_t k,
		       struct tally *t)
{
	int64_t X = f->anchor - base, tq = rnd_in(-10, 40);
	int64_t ab_min = INT64_MAX, ab_max = INT64_MIN;
	int64_t ba_min = INT64_MAX, ba_max = INT64_MIN;
	long double lo, hi;
	struct brute b;
	int i;

	for (i = 0; i < s->n; i++) {
		int64_t *mn = s->dir[i] == DT_HULL_AB ? &ab_min : &ba_min;
		int64_t *mx = s->dir[i] == DT_HULL_AB ? &ab_max : &ba_max;

		*mn = s->x[i] < *mn ? s->x[i] : *mn;
		*mx = s->x[i] > *mx ? s->x[i] : *mx;
	}
	brute(s, X, tq, &b);
	if (ba_min < ab_max && ba_max > ab_min) {	/* bounded */
		if (!b.any)
			return t->fail++, f->quality == DT_SYNC_FAIL &&
					  all_nan(f);
		t->accurate++;
		dt_sync_fit_range(p, f, base + tq, &lo, &hi);
		return f->quality == DT_SYNC_ACCURATE &&
		       near(f->drift_lo, b.a_lo - 1) &&
		       near(f->drift_hi, b.a_hi - 1) &&
		       near(f->drift, (b.a_lo + b.a_hi) / 2 - 1) &&
		       near(f->offset, (b.c_at_alo + b.c_at_ahi) / 2 + k) &&
		       near(lo, b.c_lo + k) && near(hi, b.c_hi + k) &&
		       line_ok(s, f, base, k);
	}
	if (f->quality == DT_SYNC_FAIL)
		return t->fail++, ab_min == ba_max || ab_max == ba_min;
	t->approx++;
	if (f->quality != DT_SYNC_APPROX || !line_ok(s, f, base, k) ||
	    !in(f->drift_lo, f->drift, f->drift_hi) ||
	    !(open_lo(f->drift_lo) || open_hi(f->drift_hi)))
		return 0;
	/* drift 0 whenever a slope of 1 is allowed, offset the middle */
	ab_max = INT64_MIN;
	ba_min = INT64_MAX;
	for (i = 0; i < s->n; i++) {
		int64_t c = s->y[i] - s->x[i];

		if (s->dir[i] == DT_HULL_AB)
			ab_max = c > ab_max ? c : ab_max;
		else
			ba_min = c < ba_min ? c : ba_min;
	}
	if (ab_max > ba_min)
		return f->drift != 0 && (f->drift == f->drift_lo ||
					 f->drift == f->drift_hi);
	t->approx_one++;
	return f->drift == 0 &&
	       f->offset == ((long double)ab_max + ba_min) / 2 + k;
}

static void test_brute(void)
{
	const int64_t base = T0, k = 7300 * MS;
	struct tally t = { 0, 0, 0, 0, 0 };
	int trial, one_dir = 0;

	for (trial = 0; trial < 5000; trial++) {
		struct dt_hull_pair *p = dt_hull_pair_new();
		int nab = (int)rnd_in(0, 6), nba = (int)rnd_in(0, 6), i, good;
		struct dt_sync_fit f;
		struct pts s;

		if (!nab && !nba)
			nab = 1;
		s.n = nab + nba;
		for (i = 0; i < s.n; i++) {
			s.dir[i] = i < nab ? DT_HULL_AB : DT_HULL_BA;
			s.x[i] = rnd_in(0, 30);
			s.y[i] = s.x[i] + (i < nab ? rnd_in(-12, 3) :
					   rnd_in(-3, 12));
		}
		for (i = s.n - 1; i >= 0; i--) {	/* any order */
			int64_t x = base + s.x[i], y = base + k + s.y[i];

			dt_hull_add(p, s.dir[i], s.dir[i] == DT_HULL_AB ? y : x,
				    s.dir[i] == DT_HULL_AB ? x : y);
		}
		dt_hull_fit(p, &f);
		if (!nab || !nba) {
			one_dir++;
			good = check_one_dir(&s, &f, base, k,
					     nab ? DT_HULL_AB : DT_HULL_BA);
		} else {
			good = check_mixed(&s, &f, p, base, k, &t);
		}
		if (!good && t.bad++ < 5)
			printf("# brute mismatch, trial %d: %s\n", trial,
			       dt_sync_quality_name(f.quality));
		dt_hull_pair_free(p);
	}
	printf("# brute: %d fail, %d accurate, %d approximate (%d at drift 0), "
	       "%d one way\n", t.fail, t.accurate, t.approx, t.approx_one,
	       one_dir);
	ok(t.bad == 0, "brute force: 5000 small sets agree (%d mismatches)",
	   t.bad);
	ok(t.fail > 200 && t.accurate > 200 && t.approx > 50 && t.approx_one > 20 &&
	   t.approx - t.approx_one > 20 && one_dir > 50,
	   "brute force: every outcome met");
}

int main(void)
{
	test_accurate("+50 ppm, +7.3 s", 7300 * MS, 50 * PPM);
	test_accurate("-35 ppm, -0.42 s", -420 * MS, -35 * PPM);
	test_accurate("0 ppm, 0 s", 0, 0);
	test_few();
	test_absent();
	test_fail();
	test_order();
	test_large();
	test_apply();
	test_brute();
	return tap_done();
}
