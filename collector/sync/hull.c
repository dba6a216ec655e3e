/*
 * Convex-hull clock synchronisation of a pair of hosts (see hull.h).
 *
 * The maths. A line y = a*x + b is allowed (feasible) when
 *   b >= y_i - a*x_i  for every A->B point i, and
 *   b <= y_j - a*x_j  for every B->A point j.
 * For a slope a, let lower(a) = max_i (y_i - a*x_i) and upper(a) =
 * min_j (y_j - a*x_j): the feasible set F of (a, b) is lower(a) <= b <=
 * upper(a). lower is convex and piecewise linear in a; its pieces are
 * the vertices of the upper hull of the A->B points (the maximum moves
 * from one vertex to the next when a crosses the slope of the edge
 * between them), so only that hull matters. Likewise upper is concave,
 * made of the lower hull of the B->A points. g(a) = upper(a) - lower(a)
 * is concave: the feasible slopes {g >= 0} form one interval, possibly
 * empty (FAIL) or unbounded, and its finite ends are zeros of g, i.e. the
 * slopes of lines through one vertex of each hull.
 *
 * Every decision (hull turns, slope order, sign of g) is an exact
 * comparison of rationals in __int128. Points are stored relative to the
 * first sample (int64); values are turned into long double only at the
 * end, from integers taken relative to the anchor, so that the result
 * depends on the samples and not on the order they came in.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hull.h"

__extension__ typedef __int128 i128;	/* GCC, Clang: fine under -pedantic */

/* Largest distance of a time from the first sample's: keeps products of
 * differences (< 2^62 each) below 2^125 in __int128. */
#define DT_HULL_SPAN ((int64_t)1 << 61)

struct pt {
	int64_t x, y;		/* B time, A time, relative to the origin */
};

/* A chain sorted by strictly increasing x, every vertex a strict turn. */
struct hull {
	struct pt *v;
	size_t n, cap;
	size_t samples;
	int sign;		/* +1: upper hull (A->B), -1: lower (B->A) */
};

struct dt_hull_pair {
	struct hull h[2];	/* indexed by DT_HULL_AB, DT_HULL_BA */
	int64_t ox, oy;		/* origin: the first sample's x and y */
	int has_origin;
};

/* A slope a = n / m (m > 0), or -/+infinity when inf is -1/+1. */
struct rat {
	int64_t n, m;
	int inf;
};

static const struct rat rat_neg_inf = { 0, 1, -1 };
static const struct rat rat_pos_inf = { 0, 1, 1 };
static const struct rat rat_one = { 1, 1, 0 };

const char *dt_sync_quality_name(enum dt_sync_quality q)
{
	switch (q) {
	case DT_SYNC_ABSENT:
		return "absent";
	case DT_SYNC_FAIL:
		return "fail";
	case DT_SYNC_APPROX:
		return "approximate";
	case DT_SYNC_ACCURATE:
		return "accurate";
	}
	return "?";
}

static int sgn(i128 v)
{
	return (v > 0) - (v < 0);
}

static int rat_cmp(struct rat a, struct rat b)
{
	if (a.inf || b.inf)
		return (a.inf > b.inf) - (a.inf < b.inf);
	return sgn((i128)a.n * b.m - (i128)b.n * a.m);
}

/* Slope of the line through p and q, p.x < q.x. */
static struct rat slope(struct pt p, struct pt q)
{
	struct rat r = { q.y - p.y, q.x - p.x, 0 };

	return r;
}

/*
 * __int128 to long double through int64 halves: exact within int64 (all
 * values here in practice), and unlike libgcc's own conversion correct
 * under valgrind, which emulates x87 long double with 53 bits.
 */
static long double ld(i128 v)
{
	if (v >= INT64_MIN && v <= INT64_MAX)
		return (long double)(int64_t)v;
	return (long double)(int64_t)(v >> 32) * 4294967296.0L +
	       (long double)(uint32_t)(v & 0xffffffff);
}

/* a - 1, the drift of slope a. */
static long double rat_drift(struct rat a)
{
	if (a.inf)
		return a.inf > 0 ? INFINITY : -INFINITY;
	return ld((i128)a.n - a.m) / (long double)a.m;
}

/*
 * Cross product (a - o) x (b - o): > 0 when o, a, b turn left
 * (counterclockwise). Going left to right along an upper hull every
 * vertex turns right; along a lower hull, left.
 */
static i128 cross(struct pt o, struct pt a, struct pt b)
{
	return (i128)(a.x - o.x) * (b.y - o.y) -
	       (i128)(a.y - o.y) * (b.x - o.x);
}

/* a, between o and b, is not a strict vertex of h's chain o, a, b. */
static int not_vertex(const struct hull *h, struct pt o, struct pt a,
		      struct pt b)
{
	return h->sign * sgn(cross(o, a, b)) >= 0;
}

/* y1 is strictly outside (above an upper hull, below a lower one) y2. */
static int beyond(const struct hull *h, int64_t y1, int64_t y2)
{
	return h->sign > 0 ? y1 > y2 : y1 < y2;
}

static int reserve(struct hull *h, size_t n)
{
	struct pt *v;
	size_t cap;

	if (n <= h->cap)
		return 0;
	cap = h->cap ? h->cap * 2 : 16;
	while (cap < n)
		cap *= 2;
	if (cap > SIZE_MAX / sizeof(*v))
		return -ENOMEM;
	v = realloc(h->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	h->v = v;
	h->cap = cap;
	return 0;
}

/*
 * Andrew's monotone chain step: q at or right of the last vertex. Of
 * points with equal x only the outermost counts; then vertices that q
 * leaves on or inside the chord from their left neighbour to q go.
 */
static void append(struct hull *h, struct pt q)
{
	if (h->n && h->v[h->n - 1].x == q.x) {
		if (!beyond(h, q.y, h->v[h->n - 1].y))
			return;
		h->n--;
	}
	while (h->n >= 2 && not_vertex(h, h->v[h->n - 2], h->v[h->n - 1], q))
		h->n--;
	h->v[h->n++] = q;
}

/* The chain again from its sorted points (after an insertion). */
static void rebuild(struct hull *h)
{
	size_t i, n = h->n;

	h->n = 0;
	for (i = 0; i < n; i++)
		append(h, h->v[i]);	/* h->n <= i: reads stay ahead */
}

/* First vertex with x >= x (h->n if none). */
static size_t lower_bound(const struct hull *h, int64_t x)
{
	size_t lo = 0, hi = h->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->v[mid].x < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * q left of the last vertex. The hull of the points seen so far plus q is
 * the hull of the old hull's vertices plus q: a point strictly inside x's
 * range and on or inside the chord around it changes nothing; otherwise
 * insert in order and run the chain again.
 */
static void insert(struct hull *h, struct pt q)
{
	size_t k = lower_bound(h, q.x);

	if (h->v[k].x == q.x) {
		if (!beyond(h, q.y, h->v[k].y))
			return;
		h->v[k].y = q.y;
	} else {
		if (k > 0 && not_vertex(h, h->v[k - 1], q, h->v[k]))
			return;
		memmove(h->v + k + 1, h->v + k, (h->n - k) * sizeof(*h->v));
		h->v[k] = q;
		h->n++;
	}
	rebuild(h);
}

struct dt_hull_pair *dt_hull_pair_new(void)
{
	struct dt_hull_pair *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->h[DT_HULL_AB].sign = 1;
	p->h[DT_HULL_BA].sign = -1;
	return p;
}

void dt_hull_pair_free(struct dt_hull_pair *p)
{
	if (!p)
		return;
	free(p->h[0].v);
	free(p->h[1].v);
	free(p);
}

static int hull_copy(struct hull *to, const struct hull *from)
{
	*to = *from;
	to->v = NULL;
	to->cap = 0;
	if (reserve(to, from->n ? from->n : 1))
		return -ENOMEM;
	memcpy(to->v, from->v, from->n * sizeof(*from->v));
	return 0;
}

struct dt_hull_pair *dt_hull_pair_copy(const struct dt_hull_pair *p)
{
	struct dt_hull_pair *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	*c = *p;
	c->h[0].v = c->h[1].v = NULL;
	if (hull_copy(&c->h[0], &p->h[0]) || hull_copy(&c->h[1], &p->h[1])) {
		dt_hull_pair_free(c);
		return NULL;
	}
	return c;
}

static int in_span(i128 d)
{
	return d >= -DT_HULL_SPAN && d <= DT_HULL_SPAN;
}

int dt_hull_add(struct dt_hull_pair *p, int dir, int64_t send_ns,
		int64_t recv_ns)
{
	int64_t x = dir == DT_HULL_AB ? recv_ns : send_ns;
	int64_t y = dir == DT_HULL_AB ? send_ns : recv_ns;
	struct hull *h;
	struct pt q;
	i128 dx, dy;

	if (!p || (dir != DT_HULL_AB && dir != DT_HULL_BA))
		return -EINVAL;
	if (!p->has_origin) {
		p->ox = x;
		p->oy = y;
		p->has_origin = 1;
	}
	dx = (i128)x - p->ox;
	dy = (i128)y - p->oy;
	if (!in_span(dx) || !in_span(dy))
		return -ERANGE;
	h = &p->h[dir];
	if (reserve(h, h->n + 1))
		return -ENOMEM;
	q.x = (int64_t)dx;
	q.y = (int64_t)dy;
	if (!h->n || q.x >= h->v[h->n - 1].x)
		append(h, q);
	else
		insert(h, q);
	h->samples++;
	return 0;
}

size_t dt_hull_size(const struct dt_hull_pair *p, int dir)
{
	if (!p || (dir != DT_HULL_AB && dir != DT_HULL_BA))
		return 0;
	return p->h[dir].n;
}

/*
 * One linear piece of g, slopes [s, e], where lower(a) comes from the
 * A->B vertex u and upper(a) from the B->A vertex l:
 *   g(a) = (l.y - u.y) - a * (l.x - u.x) = h - a*w,
 * >= 0 for a <= h/w if w > 0, a >= h/w if w < 0, everywhere or nowhere
 * if w = 0. Widens [lo, hi] by the part of [s, e] where g >= 0.
 */
static void piece(struct pt u, struct pt l, struct rat s, struct rat e,
		  int *found, struct rat *lo, struct rat *hi)
{
	int64_t w = l.x - u.x, h = l.y - u.y;

	if (w > 0) {
		struct rat z = { h, w, 0 };

		if (rat_cmp(z, s) < 0)
			return;
		if (rat_cmp(z, e) < 0)
			e = z;
	} else if (w < 0) {
		struct rat z = { -h, -w, 0 };

		if (rat_cmp(z, e) > 0)
			return;
		if (rat_cmp(z, s) > 0)
			s = z;
	} else if (h < 0) {
		return;
	}
	if (!*found)
		*lo = s;
	*hi = e;
	*found = 1;
}

/*
 * The feasible slopes [lo, hi]; 0 if there is none. Walks the pieces of
 * g in increasing a: the breakpoints are the A->B hull's edge slopes
 * (decreasing left to right, so taken right to left) merged with the
 * B->A hull's (increasing left to right). At a = -inf lower(a) is held
 * by the rightmost A->B vertex and upper(a) by the leftmost B->A one.
 * g is concave, so the feasible parts of the pieces are one interval.
 */
static int feasible_slopes(const struct dt_hull_pair *p, struct rat *lo,
			   struct rat *hi)
{
	const struct hull *U = &p->h[DT_HULL_AB], *L = &p->h[DT_HULL_BA];
	struct rat s = rat_neg_inf;
	size_t i, j = 0;
	int found = 0;

	*lo = rat_neg_inf;
	*hi = rat_pos_inf;
	if (!U->n || !L->n)
		return 1;
	i = U->n - 1;
	for (;;) {
		struct rat eu = i ? slope(U->v[i - 1], U->v[i]) : rat_pos_inf;
		struct rat el = j + 1 < L->n ? slope(L->v[j], L->v[j + 1]) :
					       rat_pos_inf;
		int c = rat_cmp(eu, el);
		struct rat e = c <= 0 ? eu : el;

		piece(U->v[i], L->v[j], s, e, &found, lo, hi);
		if (e.inf)
			break;
		if (c <= 0)
			i--;
		if (c >= 0)
			j++;
		s = e;
	}
	return found;
}

/*
 * t_A - t_B at B time t on the line of finite slope a that is lowest
 * above the A->B hull (dir AB: b = lower(a)) or highest below the B->A
 * hull (dir BA: b = upper(a)). The vertex holding the max (min) is found
 * exactly; the value, v - d*u with u = x - t, v = y - x and d = a - 1,
 * in long double from integers relative to t.
 */
static long double line_value(const struct dt_hull_pair *p, int dir,
			      struct rat a, int64_t t)
{
	const struct hull *h = &p->h[dir];
	size_t i, k = 0;
	i128 u, v;

	for (i = 1; i < h->n; i++) {
		/* (y_i - a x_i) - (y_k - a x_k), times m > 0 */
		i128 c = (i128)a.m * (h->v[i].y - h->v[k].y) -
			 (i128)a.n * (h->v[i].x - h->v[k].x);

		if (h->sign * sgn(c) > 0)
			k = i;
	}
	u = (i128)h->v[k].x + p->ox - t;
	v = ((i128)h->v[k].y + p->oy) - ((i128)h->v[k].x + p->ox);
	return ld(v) - rat_drift(a) * ld(u);
}

/*
 * A slope at which h's side reaches its best value at t: the smallest
 * lowest-line-above (A->B) or largest highest-line-below (B->A). That
 * best is the hull's own height at t, reached by the edge over t. Off
 * the hull's x range the value keeps improving as the slope goes to an
 * infinity: left of it the A->B value falls as a grows, the B->A value
 * rises as a falls, and the other way round on the right.
 */
static struct rat best_slope(const struct dt_hull_pair *p, int dir,
			     int64_t t)
{
	const struct hull *h = &p->h[dir];
	i128 tx = (i128)t - p->ox;
	struct rat r = { 0, 1, 0 };
	size_t k;

	if (tx < h->v[0].x) {
		r.inf = h->sign;
		return r;
	}
	if (tx > h->v[h->n - 1].x) {
		r.inf = -h->sign;
		return r;
	}
	if (h->n == 1)
		return rat_one;		/* t on the only point: any slope */
	k = lower_bound(h, (int64_t)tx);
	if (k == 0)
		k = 1;			/* t on the first vertex */
	return slope(h->v[k - 1], h->v[k]);
}

/*
 * Best value of dir's side at t over the slopes [lo, hi]: the side is
 * convex (A->B, minimised) or concave (B->A, maximised) in a, so its
 * optimum over an interval is at its free optimum clamped into it.
 */
static long double side_at(const struct dt_hull_pair *p, int dir,
			   struct rat lo, struct rat hi, int64_t t)
{
	long double open = dir == DT_HULL_AB ? -INFINITY : INFINITY;
	struct rat a;

	if (!p->h[dir].n)
		return open;
	a = best_slope(p, dir, t);
	if (rat_cmp(a, lo) < 0)
		a = lo;
	if (rat_cmp(a, hi) > 0)
		a = hi;
	return a.inf ? open : line_value(p, dir, a, t);
}

/* Middle of the B times of the hulls' ends (those of all samples). */
static int64_t anchor_of(const struct dt_hull_pair *p)
{
	i128 xmin = 0, xmax = 0;
	int d, any = 0;

	for (d = 0; d < 2; d++) {
		const struct hull *h = &p->h[d];

		if (!h->n)
			continue;
		if (!any || h->v[0].x < xmin)
			xmin = h->v[0].x;
		if (!any || h->v[h->n - 1].x > xmax)
			xmax = h->v[h->n - 1].x;
		any = 1;
	}
	xmin += p->ox;
	xmax += p->ox;
	return (int64_t)(xmin + (xmax - xmin) / 2);
}

static void fit_none(struct dt_sync_fit *fit, enum dt_sync_quality q)
{
	long double bound = q == DT_SYNC_ABSENT ? INFINITY : NAN;

	fit->quality = q;
	fit->offset = fit->drift = NAN;
	fit->offset_lo = fit->drift_lo = -bound;
	fit->offset_hi = fit->drift_hi = bound;
}

/*
 * Duda's estimate: the mean of the feasible lines of least and greatest
 * slope. Both pass through their intersection, so their mean is the
 * line of mean slope through it (their midline if they are parallel);
 * at the anchor its offset is the mean of theirs. Each is the unique
 * feasible line of its slope (g = 0 there).
 */
static void fit_accurate(const struct dt_hull_pair *p, struct rat lo,
			 struct rat hi, struct dt_sync_fit *fit)
{
	fit->quality = DT_SYNC_ACCURATE;
	fit->drift = (fit->drift_lo + fit->drift_hi) / 2;
	fit->offset = (line_value(p, DT_HULL_AB, lo, fit->anchor) +
		       line_value(p, DT_HULL_AB, hi, fit->anchor)) / 2;
}

/*
 * Too little to bound both: drift 0 if allowed, else the allowed slope
 * nearest to 1; the offset the middle of those allowed at that slope,
 * or, from one direction only, its one bound (the least latency).
 */
static void fit_approx(const struct dt_hull_pair *p, struct rat lo,
		       struct rat hi, struct dt_sync_fit *fit)
{
	int ab = p->h[DT_HULL_AB].n > 0, ba = p->h[DT_HULL_BA].n > 0;
	struct rat a = rat_one;
	long double b_lo = 0, b_hi = 0;

	if (rat_cmp(a, lo) < 0)
		a = lo;
	if (rat_cmp(a, hi) > 0)
		a = hi;
	if (ab)
		b_lo = line_value(p, DT_HULL_AB, a, fit->anchor);
	if (ba)
		b_hi = line_value(p, DT_HULL_BA, a, fit->anchor);
	fit->quality = DT_SYNC_APPROX;
	fit->drift = rat_drift(a);
	fit->offset = !ab ? b_hi : !ba ? b_lo : (b_lo + b_hi) / 2;
}

void dt_hull_fit(const struct dt_hull_pair *p, struct dt_sync_fit *fit)
{
	struct rat lo, hi;

	memset(fit, 0, sizeof(*fit));
	fit->n_ab = p->h[DT_HULL_AB].samples;
	fit->n_ba = p->h[DT_HULL_BA].samples;
	if (!p->h[DT_HULL_AB].n && !p->h[DT_HULL_BA].n) {
		fit_none(fit, DT_SYNC_ABSENT);
		return;
	}
	fit->anchor = anchor_of(p);
	if (!feasible_slopes(p, &lo, &hi)) {
		fit_none(fit, DT_SYNC_FAIL);
		return;
	}
	fit->drift_lo = rat_drift(lo);
	fit->drift_hi = rat_drift(hi);
	fit->offset_lo = side_at(p, DT_HULL_AB, lo, hi, fit->anchor);
	fit->offset_hi = side_at(p, DT_HULL_BA, lo, hi, fit->anchor);
	/* both slopes finite: both hulls hold points, so lower(a) and
	 * upper(a), hence the offsets, are finite too */
	if (!lo.inf && !hi.inf)
		fit_accurate(p, lo, hi, fit);
	else
		fit_approx(p, lo, hi, fit);
}

long double dt_sync_fit_apply(const struct dt_sync_fit *fit, int64_t t_b)
{
	long double dt = ld((i128)t_b - fit->anchor);

	if (fit->quality < DT_SYNC_APPROX)
		return NAN;
	return (long double)t_b + (fit->offset + fit->drift * dt);
}

/*
 * min (max) over F of t_A - t_B at t = b + (a - 1)*t: for each slope the
 * least b is lower(a), the greatest upper(a), so it is the best of the
 * A->B (B->A) side over the feasible slopes.
 */
void dt_sync_fit_range(const struct dt_hull_pair *p,
		       const struct dt_sync_fit *fit, int64_t t,
		       long double *lo, long double *hi)
{
	struct rat a_lo, a_hi;

	(void)fit;
	if (!p->h[DT_HULL_AB].n && !p->h[DT_HULL_BA].n) {
		*lo = -INFINITY;
		*hi = INFINITY;
	} else if (!feasible_slopes(p, &a_lo, &a_hi)) {
		*lo = *hi = NAN;
	} else {
		*lo = side_at(p, DT_HULL_AB, a_lo, a_hi, t);
		*hi = side_at(p, DT_HULL_BA, a_lo, a_hi, t);
	}
}
