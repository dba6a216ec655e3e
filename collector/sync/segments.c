/*
 * Segments: flows, unwrapping, and the match of receives with sends.
 * See segments.h.
 */
#include "segments.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

guint dt_flow_hash(gconstpointer p)
{
	const struct dt_flow *f = p;
	guint h = f->family * 31u + f->sport * 65599u + f->dport;

	for (int i = 0; i < 16; i++)
		h = h * 33u + f->saddr[i] * 7u + f->daddr[i];
	return h;
}

gboolean dt_flow_equal(gconstpointer a, gconstpointer b)
{
	const struct dt_flow *x = a, *y = b;

	return x->family == y->family && x->sport == y->sport &&
	       x->dport == y->dport && !memcmp(x->saddr, y->saddr, 16) &&
	       !memcmp(x->daddr, y->daddr, 16);
}

struct dt_flow dt_flow_reverse(const struct dt_flow *f)
{
	struct dt_flow r = *f;

	memcpy(r.saddr, f->daddr, 16);
	memcpy(r.daddr, f->saddr, 16);
	r.sport = f->dport;
	r.dport = f->sport;
	return r;
}

void dt_seq_unwrap(struct dt_seq_base *b, uint32_t seq, uint32_t end_seq,
		   int64_t *lo, int64_t *hi)
{
	if (!b->set) {
		b->set = true;
		b->base = seq;
	}
	*lo = (int32_t)(seq - b->base);
	*hi = *lo + (uint32_t)(end_seq - seq);
}

/* The sends by where they start; equal starts in their given order. */
struct by_lo {
	int64_t lo;
	int i;
};

static int cmp_lo(const void *x, const void *y)
{
	const struct by_lo *a = x, *b = y;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* The index in order of the first send starting at or after end. */
static size_t first_from(const struct dt_seg *sends, const int *order,
			 size_t n, int64_t end)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sends[order[mid]].lo < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * One receive: the sends starting before its end, back to the longest
 * send's length before its start; of those overlapping it from another
 * host, the earliest (on a tie, the one starting last).
 */
static struct dt_seg_match match_one(const struct dt_seg *sends,
				     const int *order, size_t n,
				     int64_t maxlen, const struct dt_seg *r)
{
	struct dt_seg_match m = { .send = -1, .mark_send = false };
	size_t k = first_from(sends, order, n, r->hi);

	while (k-- > 0) {
		const struct dt_seg *s = &sends[order[k]];

		if (s->lo + maxlen <= r->lo)
			break;
		if (s->hi <= r->lo || s->host == r->host)
			continue;
		m.mark_send |= !s->net;
		if (m.send < 0 || s->t < sends[m.send].t)
			m.send = order[k];
	}
	return m;
}

int dt_segs_match(const struct dt_seg *sends, size_t n_sends,
		  const struct dt_seg *recvs, size_t n_recvs,
		  struct dt_seg_match *match, int *first)
{
	struct by_lo *key = malloc((n_sends ? n_sends : 1) * sizeof(*key));
	int *order = malloc((n_sends ? n_sends : 1) * sizeof(*order));
	int64_t maxlen = 0;

	if (!key || !order) {
		free(key);
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n_sends; i++) {
		key[i] = (struct by_lo){ sends[i].lo, (int)i };
		if (sends[i].hi - sends[i].lo > maxlen)
			maxlen = sends[i].hi - sends[i].lo;
	}
	qsort(key, n_sends, sizeof(*key), cmp_lo);
	for (size_t i = 0; i < n_sends; i++)
		order[i] = key[i].i;
	free(key);
	for (size_t i = 0; i < n_recvs; i++)
		match[i] = match_one(sends, order, n_sends, maxlen, &recvs[i]);
	free(order);
	if (!first)
		return 0;
	for (size_t i = 0; i < n_sends; i++)
		first[i] = -1;
	for (size_t i = 0; i < n_recvs; i++) {
		int s = match[i].send;

		if (s >= 0 && (first[s] < 0 || recvs[i].t < recvs[first[s]].t))
			first[s] = (int)i;
	}
	return 0;
}
