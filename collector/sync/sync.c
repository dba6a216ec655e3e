/*
 * Clock synchronisation from marked segments: matching and the tree.
 * See sync.h.
 */
#include "sync.h"
#include "segments.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

/* One direction of one connection, as on the wire. */
struct flow {
	struct dt_flow key;
	struct dt_seq_base base;	/* first sequence number seen */
	GArray *sends, *recvs;	/* struct dt_seg */
};

struct dt_sync {
	GPtrArray *hosts;	/* struct dt_sync_host * */
	GHashTable *by_name;	/* name -> index + 1 */
	GHashTable *flows;	/* struct dt_flow * (key) -> struct flow * */
	GArray *pairs;		/* struct dt_sync_pair, after solve */
	uint64_t matched, matched_net, unmatched;
	uint64_t marks_unmatched;	/* dtracer_mark_recv, no mark_send */
	uint64_t discarded;		/* events the tracers discarded */
	/*
	 * dt_sync_retire: the samples of the segments it dropped, per pair
	 * (key: pair_key), and what they counted; solve starts from these.
	 */
	GHashTable *retired;
	uint64_t r_matched, r_matched_net, r_unmatched, r_marks_unmatched;
};

long double dt_clock_map_apply(const struct dt_clock_map *m, int64_t t)
{
	return (long double)t + m->offset +
	       m->drift * (long double)(t - m->anchor);
}

static void flow_free(gpointer p)
{
	struct flow *f = p;

	g_array_free(f->sends, TRUE);
	g_array_free(f->recvs, TRUE);
	g_free(f);
}

/*
 * Samples of hosts (a, b), a < b: the hull, and the offset range if the
 * clocks had no drift (what an approximate fit assumes): every A->B
 * sample says t_A - t_B >= s - r, every B->A one t_A - t_B <= r - s.
 */
struct pair_acc {
	int a, b;
	struct dt_hull_pair *hull;
	long double lo0, hi0;
	/* the same from dtracer's marks alone (no net event on either side) */
	struct dt_hull_pair *marks;
	long double mlo0, mhi0;
	size_t n_net;
};

static void pair_acc_free(gpointer p)
{
	struct pair_acc *acc = p;

	dt_hull_pair_free(acc->hull);
	dt_hull_pair_free(acc->marks);
	g_free(acc);
}

/* A pair's key in a table of them: hosts a < b. */
static gpointer pair_key(int a, int b)
{
	return GINT_TO_POINTER(a * 65536 + b + 1);
}

static struct pair_acc *pair_of_hosts(GHashTable *pairs, int a, int b)
{
	gpointer key = pair_key(a, b);
	struct pair_acc *p = g_hash_table_lookup(pairs, key);

	if (!p) {
		p = g_new0(struct pair_acc, 1);
		p->a = a;
		p->b = b;
		p->hull = dt_hull_pair_new();
		p->marks = dt_hull_pair_new();
		p->lo0 = p->mlo0 = -INFINITY;
		p->hi0 = p->mhi0 = INFINITY;
		if (!p->hull || !p->marks) {
			pair_acc_free(p);
			return NULL;
		}
		g_hash_table_insert(pairs, key, p);
	}
	return p;
}

static void host_free(gpointer p)
{
	struct dt_sync_host *h = p;

	g_free(h->name);
	g_free(h);
}

struct dt_sync *dt_sync_new(void)
{
	struct dt_sync *s = g_new0(struct dt_sync, 1);

	s->hosts = g_ptr_array_new_with_free_func(host_free);
	s->by_name = g_hash_table_new(g_str_hash, g_str_equal);
	s->flows = g_hash_table_new_full(dt_flow_hash, dt_flow_equal, NULL,
					 flow_free);
	s->pairs = g_array_new(FALSE, TRUE, sizeof(struct dt_sync_pair));
	s->retired = g_hash_table_new_full(g_direct_hash, g_direct_equal,
					   NULL, pair_acc_free);
	return s;
}

void dt_sync_free(struct dt_sync *s)
{
	if (!s)
		return;
	g_hash_table_destroy(s->flows);
	g_hash_table_destroy(s->by_name);
	g_ptr_array_free(s->hosts, TRUE);
	g_array_free(s->pairs, TRUE);
	g_hash_table_destroy(s->retired);
	g_free(s);
}

int dt_sync_host_index(struct dt_sync *s, const char *name)
{
	gpointer v = g_hash_table_lookup(s->by_name, name);
	struct dt_sync_host *h;

	if (v)
		return GPOINTER_TO_INT(v) - 1;
	h = g_new0(struct dt_sync_host, 1);
	h->name = g_strdup(name);
	h->via = -1;
	g_ptr_array_add(s->hosts, h);
	g_hash_table_insert(s->by_name, h->name,
			    GINT_TO_POINTER((int)s->hosts->len));
	return (int)s->hosts->len - 1;
}

static struct dt_sync_host *host_at(const struct dt_sync *s, int i)
{
	return g_ptr_array_index(s->hosts, i);
}

int dt_sync_add_mark(struct dt_sync *s, int host, int is_send,
		     const struct dt_mark *m, int64_t t)
{
	return dt_sync_add_segment(s, host, is_send, m, t, 0);
}

/* The flow of a mark: its addresses (zero after alen) and ports. */
static struct dt_flow mark_flow(const struct dt_mark *m)
{
	struct dt_flow f = { .family = m->family, .sport = m->sport,
			     .dport = m->dport };

	memcpy(f.saddr, m->saddr, m->alen);
	memcpy(f.daddr, m->daddr, m->alen);
	return f;
}

int dt_sync_add_segment(struct dt_sync *s, int host, int is_send,
			const struct dt_mark *m, int64_t t, int net)
{
	struct dt_flow key;
	struct flow *f;
	struct dt_seg seg = { .t = t, .host = host, .net = net };

	if (m->alen != 4 && m->alen != 16)
		return -EINVAL;
	/* A pure ACK covers no byte: nothing to tell its copies apart. */
	if (m->seq == m->end_seq)
		return 0;
	key = mark_flow(m);
	f = g_hash_table_lookup(s->flows, &key);
	if (!f) {
		f = g_new0(struct flow, 1);
		f->key = key;
		f->sends = g_array_new(FALSE, FALSE, sizeof(struct dt_seg));
		f->recvs = g_array_new(FALSE, FALSE, sizeof(struct dt_seg));
		g_hash_table_insert(s->flows, &f->key, f);
	}
	/* Within 2 GiB of the first mark: unwrapped by a signed distance. */
	dt_seq_unwrap(&f->base, m->seq, m->end_seq, &seg.lo, &seg.hi);
	g_array_append_val(is_send ? f->sends : f->recvs, seg);
	return 0;
}

static int pair_add(struct pair_acc *p, int ab, int64_t send, int64_t recv,
		    int net)
{
	long double d = ab ? (long double)send - recv : (long double)recv - send;
	int err;

	if (ab && d > p->lo0)
		p->lo0 = d;
	if (!ab && d < p->hi0)
		p->hi0 = d;
	err = dt_hull_add(p->hull, ab ? DT_HULL_AB : DT_HULL_BA, send, recv);
	if (err || net) {
		p->n_net += !err;
		return err;
	}
	if (ab && d > p->mlo0)
		p->mlo0 = d;
	if (!ab && d < p->mhi0)
		p->mhi0 = d;
	return dt_hull_add(p->marks, ab ? DT_HULL_AB : DT_HULL_BA, send, recv);
}

/*
 * Each receive of the flow with its send (segments.c), as a sample of
 * the two hosts' clocks.
 */
static int match_flow(struct dt_sync *s, struct flow *f, GHashTable *hulls)
{
	const struct dt_seg *snd = (const struct dt_seg *)(void *)f->sends->data;
	const struct dt_seg *rcv = (const struct dt_seg *)(void *)f->recvs->data;
	struct dt_seg_match *match = g_new(struct dt_seg_match,
					   f->recvs->len ? f->recvs->len : 1);
	int err = 0;

	if (dt_segs_match(snd, f->sends->len, rcv, f->recvs->len, match,
			  NULL)) {
		g_free(match);
		return -ENOMEM;
	}
	for (guint i = 0; !err && i < f->recvs->len; i++) {
		const struct dt_seg *r = &rcv[i], *best;
		struct pair_acc *p;
		int a, b;

		/* A marked segment always has its dtracer_mark_send: if not,
		 * events were lost or the match is wrong. */
		if (!r->net && !match[i].mark_send)
			s->marks_unmatched++;
		if (match[i].send < 0) {
			s->unmatched++;
			continue;
		}
		best = &snd[match[i].send];
		s->matched++;
		s->matched_net += best->net || r->net;
		a = best->host < r->host ? best->host : r->host;
		b = best->host < r->host ? r->host : best->host;
		p = pair_of_hosts(hulls, a, b);
		if (!p)
			err = -ENOMEM;
		else	/* -ENOMEM, or -ERANGE: times 73 years apart */
			err = pair_add(p, best->host == a, best->t, r->t,
				       best->net || r->net);
	}
	g_free(match);
	return err;
}

/* Inverse of a pair's fit (b -> a) as a map a -> b. */
static struct dt_clock_map fit_map(const struct dt_sync_fit *fit, int inverse)
{
	struct dt_clock_map m = {
		.offset = fit->offset, .drift = fit->drift,
		.anchor = fit->anchor,
	};

	if (inverse) {
		m.anchor = fit->anchor + (int64_t)llroundl(fit->offset);
		m.offset = -fit->offset;
		m.drift = -fit->drift / (1 + fit->drift);
	}
	return m;
}

/* outer(inner(t)), anchored at inner's anchor. */
static struct dt_clock_map compose(const struct dt_clock_map *outer,
				   const struct dt_clock_map *inner)
{
	struct dt_clock_map m;
	long double at = inner->anchor + inner->offset;

	m.anchor = inner->anchor;
	m.offset = inner->offset + outer->offset +
		   outer->drift * (at - outer->anchor);
	m.drift = inner->drift + outer->drift + inner->drift * outer->drift;
	return m;
}

/* Cost of an edge: accurate first, then the narrowest. */
static long double edge_cost(const struct dt_sync_pair *p)
{
	long double w = p->half_width;

	if (p->fit.quality == DT_SYNC_ACCURATE)
		return w;
	if (!isfinite(w))
		w = 1e15L;
	return 1e18L + w;
}

static const struct dt_sync_pair *pair_of(const struct dt_sync *s, int x,
					  int y)
{
	for (guint i = 0; i < s->pairs->len; i++) {
		const struct dt_sync_pair *p =
			&g_array_index(s->pairs, struct dt_sync_pair, i);

		if ((p->a == x && p->b == y) || (p->a == y && p->b == x))
			return p;
	}
	return NULL;
}

static int pick_reference(const struct dt_sync *s, const char *reference)
{
	int n = (int)s->hosts->len, best = -1, best_n = -1;

	if (reference) {
		gpointer v = g_hash_table_lookup(s->by_name, reference);

		return v ? GPOINTER_TO_INT(v) - 1 : -1;
	}
	for (int i = 0; i < n; i++) {
		int k = 0;

		for (int j = 0; j < n; j++) {
			const struct dt_sync_pair *p = pair_of(s, i, j);

			k += j != i && p && p->fit.quality == DT_SYNC_ACCURATE;
		}
		if (k > best_n || (k == best_n &&
				   strcmp(host_at(s, i)->name,
					  host_at(s, best)->name) < 0)) {
			best = i;
			best_n = k;
		}
	}
	return best;
}

/* Dijkstra over usable pairs from the reference; maps composed on the way. */
static void build_tree(struct dt_sync *s, int ref)
{
	int n = (int)s->hosts->len;
	long double *cost = g_new(long double, n);
	gboolean *done = g_new0(gboolean, n);

	for (int i = 0; i < n; i++)
		cost[i] = INFINITY;
	cost[ref] = 0;
	host_at(s, ref)->quality = DT_SYNC_ACCURATE;
	host_at(s, ref)->is_reference = 1;
	for (;;) {
		int u = -1;

		for (int i = 0; i < n; i++)
			if (!done[i] && isfinite(cost[i]) &&
			    (u < 0 || cost[i] < cost[u]))
				u = i;
		if (u < 0)
			break;
		done[u] = TRUE;
		for (int v = 0; v < n; v++) {
			const struct dt_sync_pair *p = pair_of(s, u, v);
			struct dt_sync_host *hu = host_at(s, u), *hv;
			struct dt_clock_map step;

			struct dt_clock_map map;

			if (v == u || done[v] || !p ||
			    p->fit.quality < DT_SYNC_APPROX ||
			    cost[u] + edge_cost(p) >= cost[v])
				continue;
			/* the fit maps b into a: from v into u when u is a */
			step = fit_map(&p->fit, p->a != u);
			map = compose(&hu->map, &step);
			/*
			 * A map must keep time going forwards: a fit of slope
			 * 0 or less (drift <= -1, from a handful of absurd
			 * samples) has no inverse, and would give NaN.
			 */
			if (!(1 + p->fit.drift > 0) || !isfinite(map.offset) ||
			    !isfinite(map.drift) || !(1 + map.drift > 0))
				continue;
			cost[v] = cost[u] + edge_cost(p);
			hv = host_at(s, v);
			hv->via = u;
			hv->map = map;
			hv->quality = hu->quality < p->fit.quality ?
				      hu->quality : p->fit.quality;
			hv->uncertainty = hu->uncertainty + p->half_width;
		}
	}
	g_free(cost);
	g_free(done);
}

/* Hosts the tree did not reach: fail if a pair of theirs failed. */
static void mark_unreached(struct dt_sync *s)
{
	int n = (int)s->hosts->len;

	for (int v = 0; v < n; v++) {
		struct dt_sync_host *h = host_at(s, v);

		if (h->is_reference || h->via >= 0)
			continue;
		h->quality = DT_SYNC_ABSENT;
		h->uncertainty = INFINITY;
		for (int u = 0; u < n; u++) {
			const struct dt_sync_pair *p = pair_of(s, u, v);

			if (u != v && p && p->fit.quality == DT_SYNC_FAIL)
				h->quality = DT_SYNC_FAIL;
		}
	}
}

static int fit_pairs(struct dt_sync *s, GHashTable *hulls)
{
	int n = (int)s->hosts->len;

	g_array_set_size(s->pairs, 0);
	for (int a = 0; a < n; a++)
		for (int b = a + 1; b < n; b++) {
			struct dt_sync_pair p = { .a = a, .b = b };
			struct pair_acc *h = g_hash_table_lookup(hulls,
							pair_key(a, b));

			p.half_width = INFINITY;
			if (h) {
				long double lo0 = h->lo0, hi0 = h->hi0;

				dt_hull_fit(h->hull, &p.fit);
				if (p.fit.quality == DT_SYNC_FAIL && h->n_net) {
					struct dt_sync_fit m;

					/* see net_left_out in sync.h */
					dt_hull_fit(h->marks, &m);
					if (m.quality >= DT_SYNC_APPROX) {
						p.fit = m;
						p.net_left_out = h->n_net;
						lo0 = h->mlo0;
						hi0 = h->mhi0;
					}
				}
				p.half_width = (p.fit.offset_hi -
						p.fit.offset_lo) / 2;
				/* approximate, no drift assumed: its range */
				if (p.fit.quality == DT_SYNC_APPROX &&
				    p.fit.drift == 0 && lo0 <= hi0 &&
				    isfinite(hi0 - lo0))
					p.half_width = (hi0 - lo0) / 2;
			} else {
				p.fit.quality = DT_SYNC_ABSENT;
				p.fit.offset = p.fit.drift = NAN;
				p.fit.offset_lo = p.fit.drift_lo = -INFINITY;
				p.fit.offset_hi = p.fit.drift_hi = INFINITY;
			}
			g_array_append_val(s->pairs, p);
		}
	return 0;
}

/* A copy of what dt_sync_retire kept of each pair: where solve starts. */
static int start_from_retired(struct dt_sync *s, GHashTable *hulls)
{
	GHashTableIter it;
	gpointer v;

	s->matched = s->r_matched;
	s->matched_net = s->r_matched_net;
	s->unmatched = s->r_unmatched;
	s->marks_unmatched = s->r_marks_unmatched;
	g_hash_table_iter_init(&it, s->retired);
	while (g_hash_table_iter_next(&it, NULL, &v)) {
		const struct pair_acc *r = v;
		struct pair_acc *p = g_new0(struct pair_acc, 1);

		*p = *r;
		p->hull = dt_hull_pair_copy(r->hull);
		p->marks = dt_hull_pair_copy(r->marks);
		g_hash_table_insert(hulls, pair_key(r->a, r->b), p);
		if (!p->hull || !p->marks)
			return -ENOMEM;
	}
	return 0;
}

/*
 * A flow's receives older than their host's cut, with their sends, go
 * into the retired pairs (their samples) and counts; the sends older
 * than their host's cut by DT_SYNC_RETIRE_GRACE_NS that no receive left
 * needs go too. The grace: a send just before the cut may still be in
 * flight to a host whose stream has passed the cut (a transit longer
 * than the watcher's margin: 9.5 ms seen on a loaded TCG guest, or a
 * retransmission after the minimum RTO), and its receive must find it
 * there as it would with every mark kept.
 */
static int retire_flow(struct dt_sync *s, struct flow *f, const int64_t *cut)
{
	struct dt_seg *snd = (struct dt_seg *)(void *)f->sends->data;
	struct dt_seg *rcv = (struct dt_seg *)(void *)f->recvs->data;
	struct dt_seg_match *match = g_new(struct dt_seg_match,
					   f->recvs->len ? f->recvs->len : 1);
	bool *needed = g_new0(bool, f->sends->len ? f->sends->len : 1);
	guint i, n = 0;
	int err = 0;

	if (dt_segs_match(snd, f->sends->len, rcv, f->recvs->len, match,
			  NULL)) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < f->recvs->len; i++) {
		const struct dt_seg *r = &rcv[i], *best;
		struct pair_acc *p;
		int a, b;

		if (r->t >= cut[r->host] ||
		    (match[i].send >= 0 &&
		     snd[match[i].send].t >= cut[snd[match[i].send].host])) {
			if (match[i].send >= 0)
				needed[match[i].send] = true;
			rcv[n++] = *r;
			continue;
		}
		s->r_marks_unmatched += !r->net && !match[i].mark_send;
		if (match[i].send < 0) {
			s->r_unmatched++;
			continue;
		}
		best = &snd[match[i].send];
		s->r_matched++;
		s->r_matched_net += best->net || r->net;
		a = MIN(best->host, r->host);
		b = MAX(best->host, r->host);
		p = pair_of_hosts(s->retired, a, b);
		err = p ? pair_add(p, best->host == a, best->t, r->t,
				   best->net || r->net) : -ENOMEM;
		if (err)
			break;
	}
	g_array_set_size(f->recvs, n);
	for (i = n = 0; i < f->sends->len; i++)
		if (needed[i] || snd[i].t >= cut[snd[i].host] ||
		    cut[snd[i].host] - snd[i].t <= DT_SYNC_RETIRE_GRACE_NS)
			snd[n++] = snd[i];
	g_array_set_size(f->sends, n);
out:
	g_free(match);
	g_free(needed);
	return err;
}

int dt_sync_retire(struct dt_sync *s, const int64_t *cut)
{
	GHashTableIter it;
	gpointer v;
	int err = 0;

	g_hash_table_iter_init(&it, s->flows);
	while (!err && g_hash_table_iter_next(&it, NULL, &v)) {
		struct flow *f = v;

		err = retire_flow(s, f, cut);
		if (!f->sends->len && !f->recvs->len)
			g_hash_table_iter_remove(&it);
	}
	return err;
}

size_t dt_sync_kept(const struct dt_sync *s)
{
	GHashTableIter it;
	gpointer v;
	size_t n = 0;

	g_hash_table_iter_init(&it, s->flows);
	while (g_hash_table_iter_next(&it, NULL, &v)) {
		const struct flow *f = v;

		n += f->sends->len + f->recvs->len;
	}
	return n;
}

int dt_sync_solve(struct dt_sync *s, const char *reference)
{
	GHashTable *hulls = g_hash_table_new_full(g_direct_hash,
		g_direct_equal, NULL, pair_acc_free);
	GHashTableIter it;
	gpointer v;
	int ref, err;

	err = start_from_retired(s, hulls);
	g_hash_table_iter_init(&it, s->flows);
	while (!err && g_hash_table_iter_next(&it, NULL, &v))
		err = match_flow(s, v, hulls);
	if (!err)
		err = fit_pairs(s, hulls);
	g_hash_table_destroy(hulls);
	if (err)
		return err;
	for (guint i = 0; i < s->hosts->len; i++) {
		struct dt_sync_host *h = host_at(s, (int)i);

		h->via = -1;
		h->is_reference = 0;
		h->uncertainty = 0;
		h->map = (struct dt_clock_map){ 0 };	/* identity */
	}
	if (!s->hosts->len)
		return 0;
	ref = pick_reference(s, reference);
	if (ref < 0)
		return -ENOENT;
	build_tree(s, ref);
	mark_unreached(s);
	return 0;
}

int dt_sync_n_hosts(const struct dt_sync *s)
{
	return (int)s->hosts->len;
}

const struct dt_sync_host *dt_sync_host(const struct dt_sync *s, int i)
{
	return host_at(s, i);
}

int dt_sync_n_pairs(const struct dt_sync *s)
{
	return (int)s->pairs->len;
}

const struct dt_sync_pair *dt_sync_pair(const struct dt_sync *s, int i)
{
	return &g_array_index(s->pairs, struct dt_sync_pair, i);
}

uint64_t dt_sync_matched(const struct dt_sync *s)
{
	return s->matched;
}

uint64_t dt_sync_matched_net(const struct dt_sync *s)
{
	return s->matched_net;
}

uint64_t dt_sync_unmatched(const struct dt_sync *s)
{
	return s->unmatched;
}

uint64_t dt_sync_marks_unmatched(const struct dt_sync *s)
{
	return s->marks_unmatched;
}

void dt_sync_add_discarded(struct dt_sync *s, uint64_t n)
{
	s->discarded += n;
}

uint64_t dt_sync_discarded(const struct dt_sync *s)
{
	return s->discarded;
}

void dt_sync_report(const struct dt_sync *s, FILE *f)
{
	int ref = -1;

	for (int i = 0; i < dt_sync_n_hosts(s); i++)
		if (host_at(s, i)->is_reference)
			ref = i;
	fprintf(f, "# dtracer clock sync (convex hull): %d hosts, reference %s, "
		"%llu matched segments (%llu from net events), "
		"%llu received segments unmatched, "
		"%llu marked received with no mark_send, "
		"%llu events discarded by the tracers\n",
		dt_sync_n_hosts(s), ref >= 0 ? host_at(s, ref)->name : "none",
		(unsigned long long)s->matched,
		(unsigned long long)s->matched_net,
		(unsigned long long)s->unmatched,
		(unsigned long long)s->marks_unmatched,
		(unsigned long long)s->discarded);
	fprintf(f, "# pair A B QUALITY samples N_AB N_BA anchor_ns T "
		"offset_ns O [LO HI] drift_ppm D [LO HI] halfwidth_ns W "
		"net_left_out L   "
		"(t_A = t_B + O + D * (t_B - T); approximate: W assumes D = 0)\n");
	for (int i = 0; i < dt_sync_n_pairs(s); i++) {
		const struct dt_sync_pair *p = dt_sync_pair(s, i);
		const struct dt_sync_fit *ft = &p->fit;

		fprintf(f, "pair %s %s %s samples %zu %zu anchor_ns %lld "
			"offset_ns %.1Lf [%.1Lf %.1Lf] drift_ppm %.4Lf [%.4Lf %.4Lf] "
			"halfwidth_ns %.1Lf net_left_out %zu\n",
			host_at(s, p->a)->name, host_at(s, p->b)->name,
			dt_sync_quality_name(ft->quality), ft->n_ab, ft->n_ba,
			(long long)ft->anchor, ft->offset, ft->offset_lo,
			ft->offset_hi, ft->drift * 1e6L, ft->drift_lo * 1e6L,
			ft->drift_hi * 1e6L, p->half_width, p->net_left_out);
	}
	fprintf(f, "# host H QUALITY via V anchor_ns T offset_ns O drift_ppm D "
		"uncertainty_ns U   (t_ref = t_H + O + D * (t_H - T))\n");
	for (int i = 0; i < dt_sync_n_hosts(s); i++) {
		const struct dt_sync_host *h = host_at(s, i);

		fprintf(f, "host %s %s via %s anchor_ns %lld offset_ns %.1Lf "
			"drift_ppm %.4Lf uncertainty_ns %.1Lf\n", h->name,
			h->is_reference ? "reference" :
			dt_sync_quality_name(h->quality),
			h->via >= 0 ? host_at(s, h->via)->name : "-",
			(long long)h->map.anchor, h->map.offset,
			h->map.drift * 1e6L, h->uncertainty);
	}
}
