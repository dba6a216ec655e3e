/*
 * Matching marks across hosts and chaining pairs (collector/sync/sync.c) on
 * synthetic traffic with known clocks: a -> b -> c request chains, each
 * host's clock off the true time by a known offset and drift.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sync.h"
#include "tap.h"

#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

/* true time -> host h's clock */
struct clock {
	long double offset, drift;
};

static const struct clock clk[3] = {
	{ 0, 0 },			/* a */
	{ 1.2e9L, 30e-6L },		/* b: +1.2 s, +30 ppm */
	{ -7.3e9L, -50e-6L },		/* c: -7.3 s, -50 ppm */
};
static const int64_t T0 = 1795333400000000000LL;

static int64_t host_time(int h, long double t)
{
	return (int64_t)llroundl(t + clk[h].offset + clk[h].drift * (t - T0));
}

static uint64_t rng = 88172645463325252ULL;

static long double delay(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return 60000 + (long double)(rng % 1500000);	/* 60 us .. 1.56 ms */
}

struct conn {
	struct dt_mark fwd, rev;	/* a segment each way */
};

static void conn_init(struct conn *c, int from, int to, uint16_t sport,
		      uint16_t dport)
{
	memset(c, 0, sizeof(*c));
	c->fwd.family = AF_INET;
	c->fwd.alen = 4;
	memcpy(c->fwd.saddr, (uint8_t[]){ 192, 0, 2, (uint8_t)(11 + from) }, 4);
	memcpy(c->fwd.daddr, (uint8_t[]){ 192, 0, 2, (uint8_t)(11 + to) }, 4);
	c->fwd.sport = sport;
	c->fwd.dport = dport;
	c->fwd.seq = 4294967000u;	/* wraps within the test */
	c->rev.family = AF_INET;
	c->rev.alen = 4;
	memcpy(c->rev.saddr, c->fwd.daddr, 4);
	memcpy(c->rev.daddr, c->fwd.saddr, 4);
	c->rev.sport = dport;
	c->rev.dport = sport;
	c->rev.seq = 1000;
}

/* A segment of len bytes from host "from" to "to" at true time t. */
static long double segment(struct dt_sync *s, const int *idx, int from,
			   int to, struct dt_mark *m, uint32_t len,
			   long double t)
{
	long double arrive = t + delay();

	m->end_seq = m->seq + len;
	dt_sync_add_mark(s, idx[from], 1, m, host_time(from, t));
	dt_sync_add_mark(s, idx[to], 0, m, host_time(to, arrive));
	m->seq = m->end_seq;
	return arrive;
}

/* n requests a -> b -> c and back, one connection per hop. */
static struct dt_sync *chain(int n, int *idx)
{
	struct dt_sync *s = dt_sync_new();
	struct conn ab, bc;
	long double t = T0;
	static const char *const names[] = { "dt-a", "dt-b", "dt-c" };

	for (int h = 0; h < 3; h++)
		idx[h] = dt_sync_host_index(s, names[h]);
	conn_init(&ab, 0, 1, 40000, 7400);
	conn_init(&bc, 1, 2, 40001, 7401);
	for (int i = 0; i < n; i++) {
		t = segment(s, idx, 0, 1, &ab.fwd, 100, t) + 20000;
		t = segment(s, idx, 1, 2, &bc.fwd, 100, t) + 500000;
		t = segment(s, idx, 2, 1, &bc.rev, 3000, t) + 20000;
		t = segment(s, idx, 1, 0, &ab.rev, 3000, t) + 1e8L;
	}
	return s;
}

/*
 * Does host h's map take its time of true time t to the reference's time
 * of t, within its uncertainty?
 */
static int recovers(const struct dt_sync *s, int h, long double t)
{
	const struct dt_sync_host *x = dt_sync_host(s, h);
	long double got = dt_clock_map_apply(&x->map, host_time(h, t));
	int ref = 0;

	for (int i = 0; i < dt_sync_n_hosts(s); i++)
		if (dt_sync_host(s, i)->is_reference)
			ref = i;
	if (fabsl(got - host_time(ref, t)) > x->uncertainty + 2)
		diag("host %d: %.0Lf ns off, uncertainty %.0Lf", h,
		     got - host_time(ref, t), x->uncertainty);
	return fabsl(got - host_time(ref, t)) <= x->uncertainty + 2;
}

static void chain3(void)
{
	int idx[3];
	struct dt_sync *s = chain(200, idx);
	const struct dt_sync_host *a, *b, *c;

	ok(dt_sync_solve(s, "dt-a") == 0, "three hosts solved");
	ok(dt_sync_matched(s) == 800 && dt_sync_unmatched(s) == 0,
	   "every receive matched its send (%llu, %llu unmatched)",
	   (unsigned long long)dt_sync_matched(s),
	   (unsigned long long)dt_sync_unmatched(s));
	a = dt_sync_host(s, idx[0]);
	b = dt_sync_host(s, idx[1]);
	c = dt_sync_host(s, idx[2]);
	ok(a->is_reference && a->quality == DT_SYNC_ACCURATE,
	   "dt-a is the reference");
	ok(b->quality == DT_SYNC_ACCURATE && b->via == idx[0],
	   "dt-b accurate, via dt-a");
	ok(c->quality == DT_SYNC_ACCURATE && c->via == idx[1],
	   "dt-c accurate, via dt-b (no pair with dt-a)");
	ok(recovers(s, idx[1], T0 + 1e9L) && recovers(s, idx[1], T0 + 1e10L),
	   "dt-b's map gives true time within its uncertainty (%.0Lf ns)",
	   b->uncertainty);
	ok(recovers(s, idx[2], T0 + 1e9L) && recovers(s, idx[2], T0 + 1e10L),
	   "dt-c's map, chained over dt-b, within its uncertainty (%.0Lf ns)",
	   c->uncertainty);
	/* 20 s of samples: drift known to about 2 * uncertainty / 20 s */
	ok(fabsl(c->map.drift - (1 / (1 - 50e-6L) - 1)) < 2 * c->uncertainty / 2e10L,
	   "dt-c's drift recovered (%.3Lf ppm, true %.3Lf)", c->map.drift * 1e6L,
	   (1 / (1 - 50e-6L) - 1) * 1e6L);
	ok(b->uncertainty < 1e6L && c->uncertainty > b->uncertainty,
	   "uncertainty grows along the chain (%.0Lf, %.0Lf ns)",
	   b->uncertainty, c->uncertainty);
	ok(dt_sync_n_pairs(s) == 3, "three pairs reported");
	for (int i = 0; i < dt_sync_n_pairs(s); i++) {
		const struct dt_sync_pair *p = dt_sync_pair(s, i);

		if ((p->a == idx[0] && p->b == idx[2]) ||
		    (p->a == idx[2] && p->b == idx[0]))
			ok(p->fit.quality == DT_SYNC_ABSENT,
			   "dt-a/dt-c: absent (no segment between them)");
	}
	ok(dt_sync_solve(s, "dt-z") == -ENOENT, "unknown reference: -ENOENT");
	ok(dt_sync_solve(s, NULL) == 0 &&
	   dt_sync_host(s, idx[1])->is_reference,
	   "default reference: the host with most accurate pairs (dt-b)");
	ok(recovers(s, idx[0], T0 + 5e9L) && recovers(s, idx[2], T0 + 5e9L),
	   "dt-a (inverse fit) and dt-c map into dt-b's clock");
	dt_sync_free(s);
}

static void unmatched_and_loopback(void)
{
	int idx[3];
	struct dt_sync *s = chain(20, idx);
	struct dt_mark m;
	struct conn lo;

	conn_init(&lo, 0, 0, 5000, 5001);
	m = lo.fwd;
	m.end_seq = m.seq + 10;
	/* loopback: sent and received on one host, no sample */
	dt_sync_add_mark(s, idx[0], 1, &m, T0);
	dt_sync_add_mark(s, idx[0], 0, &m, T0 + 1000);
	/* a receive nobody sent */
	m.sport = 9;
	dt_sync_add_mark(s, idx[1], 0, &m, T0);
	/* a pure ACK: no byte, ignored */
	m.end_seq = m.seq;
	dt_sync_add_mark(s, idx[1], 0, &m, T0);
	ok(dt_sync_solve(s, "dt-a") == 0 && dt_sync_matched(s) == 80 &&
	   dt_sync_unmatched(s) == 2,
	   "loopback and unknown receives unmatched (%llu), pure ACK ignored",
	   (unsigned long long)dt_sync_unmatched(s));
	ok(dt_sync_marks_unmatched(s) == 2,
	   "... both are marked receives with no mark_send on another host (%llu)",
	   (unsigned long long)dt_sync_marks_unmatched(s));
	dt_sync_free(s);
}

/* Segments seen by LTTng's net events pair like marks, and are counted. */
static void net_segments(void)
{
	int idx[3];
	struct dt_sync *s = chain(10, idx);
	struct conn x;
	struct dt_mark m;
	long double t = T0 + 5e8L;

	conn_init(&x, 0, 1, 43000, 80);
	m = x.fwd;
	m.end_seq = m.seq + 1;	/* a SYN */
	dt_sync_add_segment(s, idx[0], 1, &m, host_time(0, t), 1);
	dt_sync_add_segment(s, idx[1], 0, &m, host_time(1, t + 90000), 1);
	/* a data segment: net event on the sender, dtracer's on the receiver */
	m.seq = m.end_seq;
	m.end_seq = m.seq + 700;
	dt_sync_add_segment(s, idx[0], 1, &m, host_time(0, t + 1e6L), 1);
	dt_sync_add_mark(s, idx[1], 0, &m, host_time(1, t + 1e6L + 70000));
	ok(dt_sync_solve(s, "dt-a") == 0 && dt_sync_matched(s) == 42 &&
	   dt_sync_matched_net(s) == 2,
	   "net segments matched and counted (%llu of %llu)",
	   (unsigned long long)dt_sync_matched_net(s),
	   (unsigned long long)dt_sync_matched(s));
	ok(recovers(s, idx[1], t), "and consistent with the marks");
	/* the marked receive matched a net event's send, not its mark_send */
	ok(dt_sync_marks_unmatched(s) == 1 && dt_sync_unmatched(s) == 0,
	   "a marked receive with only a net event's send lacks its mark_send "
	   "(%llu)", (unsigned long long)dt_sync_marks_unmatched(s));
	/* a net receive nobody sent: unmatched, but no mark was lost */
	m.seq = m.end_seq;
	m.end_seq = m.seq + 100;
	dt_sync_add_segment(s, idx[1], 0, &m, host_time(1, t + 2e6L), 1);
	ok(dt_sync_solve(s, "dt-a") == 0 && dt_sync_unmatched(s) == 1 &&
	   dt_sync_marks_unmatched(s) == 1,
	   "a net receive with no send is unmatched, not a lost mark "
	   "(%llu unmatched, %llu marks)",
	   (unsigned long long)dt_sync_unmatched(s),
	   (unsigned long long)dt_sync_marks_unmatched(s));
	dt_sync_free(s);
}

/* Every marked receive of a complete chain has its mark_send. */
static void marks_complete(void)
{
	int idx[3];
	struct dt_sync *s = chain(30, idx);

	ok(dt_sync_solve(s, "dt-a") == 0 && dt_sync_marks_unmatched(s) == 0 &&
	   dt_sync_discarded(s) == 0,
	   "a complete chain: no marked receive without its send, nothing "
	   "discarded");
	dt_sync_add_discarded(s, 3);
	dt_sync_add_discarded(s, 4);
	ok(dt_sync_discarded(s) == 7, "discarded events are summed (%llu)",
	   (unsigned long long)dt_sync_discarded(s));
	dt_sync_free(s);
}

/* A retransmission sent after the first copy arrived is not its send. */
static void retransmission(void)
{
	int idx[3];
	struct dt_sync *s = chain(50, idx);
	struct conn x;
	struct dt_mark m;
	long double t = T0 + 2.5e9L;	/* within the samples: the
					   uncertainty holds there */

	conn_init(&x, 0, 1, 41000, 7400);
	m = x.fwd;
	m.end_seq = m.seq + 500;
	dt_sync_add_mark(s, idx[0], 1, &m, host_time(0, t));
	dt_sync_add_mark(s, idx[1], 0, &m, host_time(1, t + 100000));
	/* spurious retransmission 5 ms later, received too */
	dt_sync_add_mark(s, idx[0], 1, &m, host_time(0, t + 5e6L));
	dt_sync_add_mark(s, idx[1], 0, &m, host_time(1, t + 5e6L + 80000));
	ok(dt_sync_solve(s, "dt-a") == 0 &&
	   dt_sync_host(s, idx[1])->quality == DT_SYNC_ACCURATE &&
	   recovers(s, idx[1], t),
	   "receives paired with the earliest covering send stay consistent");
	dt_sync_free(s);
}

/* Samples that contradict each other: fail, and the host is not mapped. */
static void contradiction(void)
{
	int idx[3];
	struct dt_sync *s = chain(30, idx);
	struct conn x;
	struct dt_mark m;

	conn_init(&x, 0, 1, 42000, 7400);
	m = x.fwd;
	m.end_seq = m.seq + 10;
	/* received by b 3 s before a sent it, in b's own terms */
	dt_sync_add_mark(s, idx[0], 1, &m, host_time(0, T0 + 2e10L));
	dt_sync_add_mark(s, idx[1], 0, &m, host_time(1, T0 + 2e10L - 3e9L));
	ok(dt_sync_solve(s, "dt-a") == 0 &&
	   dt_sync_host(s, idx[1])->quality == DT_SYNC_FAIL &&
	   dt_sync_host(s, idx[1])->via < 0,
	   "dt-b: fail, not aligned (%s)",
	   dt_sync_quality_name(dt_sync_host(s, idx[1])->quality));
	ok(dt_sync_host(s, idx[2])->via == idx[1] ||
	   dt_sync_host(s, idx[2])->quality <= DT_SYNC_FAIL,
	   "dt-c is not aligned through a failed pair");
	ok(dt_sync_host(s, idx[2])->quality == DT_SYNC_ABSENT,
	   "dt-c: absent (its only pair is with dt-b, unreachable)");
	dt_sync_free(s);
}

/*
 * The gate at `thread` recorded only a retransmission's net event, sent
 * from a timer after the first copy arrived: with it no map fits; the
 * marks alone do, and the net samples are counted as left out.
 */
static void net_late_retransmission(void)
{
	int idx[3];
	struct dt_sync *s = chain(30, idx);
	struct conn x;
	struct dt_mark m;
	long double t = T0 + 2.5e9L;
	const struct dt_sync_pair *ab = NULL;

	conn_init(&x, 0, 1, 44000, 8001);
	m = x.fwd;
	m.end_seq = m.seq + 300;
	dt_sync_add_segment(s, idx[1], 0, &m, host_time(1, t + 80000), 1);
	dt_sync_add_segment(s, idx[0], 1, &m, host_time(0, t + 2e8L), 1);
	ok(dt_sync_solve(s, "dt-a") == 0, "solved");
	for (int i = 0; i < dt_sync_n_pairs(s); i++)
		if (dt_sync_pair(s, i)->a == idx[0] && dt_sync_pair(s, i)->b == idx[1])
			ab = dt_sync_pair(s, i);
	ok(ab && ab->fit.quality == DT_SYNC_ACCURATE && ab->net_left_out == 1 &&
	   recovers(s, idx[1], t),
	   "a net sample no map fits is left out, the marks' map kept (%s, %zu left out)",
	   ab ? dt_sync_quality_name(ab->fit.quality) : "no pair",
	   ab ? ab->net_left_out : (size_t)0);
	dt_sync_free(s);
	/* The same sample from dtracer's marks: a real contradiction. */
	s = chain(30, idx);
	m = x.fwd;
	m.end_seq = m.seq + 300;
	dt_sync_add_mark(s, idx[1], 0, &m, host_time(1, t + 80000));
	dt_sync_add_mark(s, idx[0], 1, &m, host_time(0, t + 2e8L));
	ok(dt_sync_solve(s, "dt-a") == 0 &&
	   dt_sync_host(s, idx[1])->quality == DT_SYNC_FAIL,
	   "... while marks that contradict still fail (%s)",
	   dt_sync_quality_name(dt_sync_host(s, idx[1])->quality));
	dt_sync_free(s);
}

static void few(void)
{
	int idx[3];
	struct dt_sync *s = chain(1, idx);

	ok(dt_sync_solve(s, "dt-a") == 0 &&
	   dt_sync_host(s, idx[1])->quality == DT_SYNC_APPROX &&
	   dt_sync_host(s, idx[2])->quality == DT_SYNC_APPROX,
	   "one request: approximate");
	ok(recovers(s, idx[1], T0), "approximate but within its uncertainty");
	dt_sync_free(s);
	s = dt_sync_new();
	dt_sync_host_index(s, "lonely");
	ok(dt_sync_solve(s, NULL) == 0 && dt_sync_host(s, 0)->is_reference &&
	   dt_sync_n_pairs(s) == 0, "one host: its own reference, no pair");
	dt_sync_free(s);
}

/*
 * dtracer watch retires the marks before its cut: a send just before the
 * cut whose receive comes after it (a transit longer than the watcher's
 * margin) still pairs as it does with every mark kept; a send older than
 * the cut by more than the grace, that nothing received, goes.
 */
static void retire_in_flight(void)
{
	int idx[3], idx2[3];
	uint64_t seed = rng;
	struct dt_sync *keep = chain(20, idx), *drop;
	struct conn x;
	struct dt_mark m;
	long double t = T0 + 5e9L;	/* the chain's end + the grace */
	int64_t cut[3];
	size_t before;

	rng = seed;
	drop = chain(20, idx2);
	conn_init(&x, 0, 1, 42000, 7400);
	m = x.fwd;
	m.end_seq = m.seq + 300;
	dt_sync_add_mark(keep, idx[0], 1, &m, host_time(0, t));
	dt_sync_add_mark(drop, idx2[0], 1, &m, host_time(0, t));
	for (int h = 0; h < 3; h++)
		cut[idx2[h]] = host_time(h, t + 1e6L);
	before = dt_sync_kept(drop);
	ok(dt_sync_retire(drop, cut) == 0 && dt_sync_kept(drop) == 1 &&
	   before == 161,
	   "retired: the chain's 160 marks went, the send in flight stayed "
	   "(%zu of %zu kept)", dt_sync_kept(drop), before);
	/* its receive, 5 ms later: after the cut on b */
	dt_sync_add_mark(keep, idx[1], 0, &m, host_time(1, t + 5e6L));
	dt_sync_add_mark(drop, idx2[1], 0, &m, host_time(1, t + 5e6L));
	ok(dt_sync_solve(keep, "dt-a") == 0 &&
	   dt_sync_solve(drop, "dt-a") == 0 &&
	   dt_sync_matched(keep) == dt_sync_matched(drop) &&
	   dt_sync_unmatched(drop) == 0 &&
	   dt_sync_host(keep, idx[1])->map.offset ==
	   dt_sync_host(drop, idx2[1])->map.offset &&
	   dt_sync_host(keep, idx[1])->uncertainty ==
	   dt_sync_host(drop, idx2[1])->uncertainty,
	   "a receive after the cut pairs with the send kept in flight: the "
	   "same map as with every mark kept (%llu and %llu matched)",
	   (unsigned long long)dt_sync_matched(keep),
	   (unsigned long long)dt_sync_matched(drop));
	/* a send nothing receives: gone once older than the grace */
	m.seq = m.end_seq;
	m.end_seq = m.seq + 300;
	dt_sync_add_mark(drop, idx2[0], 1, &m, host_time(0, t + 1e7L));
	for (int h = 0; h < 3; h++)
		cut[idx2[h]] = host_time(h, t + 1e7L + 1e6L);
	ok(dt_sync_retire(drop, cut) == 0 && dt_sync_kept(drop) == 2,
	   "the sends within the grace stay, received or not (%zu kept)",
	   dt_sync_kept(drop));
	for (int h = 0; h < 3; h++)
		cut[idx2[h]] = host_time(h, t + 1e7L) +
			       DT_SYNC_RETIRE_GRACE_NS + 1;
	ok(dt_sync_retire(drop, cut) == 0 && dt_sync_kept(drop) == 0,
	   "... and goes once older than it (%zu kept)", dt_sync_kept(drop));
	dt_sync_free(keep);
	dt_sync_free(drop);
}

int main(void)
{
	chain3();
	net_late_retransmission();
	unmatched_and_loopback();
	retransmission();
	net_segments();
	marks_complete();
	contradiction();
	few();
	retire_in_flight();
	return tap_done();
}
