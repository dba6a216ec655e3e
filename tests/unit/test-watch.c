/*
 * The watcher's model (collector/cmd/watch-model.c) fed hand-made events of
 * two hosts, b's clock 7 s ahead of a's: a request whose other host has
 * not come yet waits, prints at its timeout incomplete, and prints again
 * (updated, on both hosts) once b's events come and b's stream has
 * passed its end; a complete request waits until both hosts' streams
 * (their events, or the progress their sessions report while quiet)
 * have passed its end, then prints once; b's span is placed in a's
 * clock; b's span of a request whose root on a has not come is never
 * printed as a request of its own (no phantom); a host that stays
 * behind is named at the timeout, and the request prints once more when
 * it catches up, never again after; an event given again after an
 * attach is left out; --tree prints the tree; a request across the
 * gap a lost session leaves when followed again says which host's
 * events may be missing, one after it does not; a host that joins late
 * with its clock behind loses nothing; a span printed on its own at
 * the timeout (its root's host behind) is printed once more, updated,
 * when the root comes, not as a second request; a client's helper
 * thread that ran before its first send waits for it and prints in
 * that request. Then a long run of
 * requests on three hosts, a client flagged by hand across all of them:
 * the model that drops what was printed for good prints byte for byte
 * what the one that keeps every event prints, and holds a fraction of
 * it. Times in ns, the refresh's clock in us.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "watch-model.h"

#define OFF 7000000000LL	/* b's clock, ahead of a's */
#define TIMEOUT 5000000		/* us */

static struct dt_watch *w, *w2;	/* w2: fed the same, if not NULL */
static char *buf;
static size_t len, seen;

static struct dt_flow flow(int from, int to, int sport, int dport)
{
	struct dt_flow f;

	memset(&f, 0, sizeof(f));
	f.family = 2;
	f.saddr[0] = 10, f.saddr[3] = (uint8_t)(1 + from);
	f.daddr[0] = 10, f.daddr[3] = (uint8_t)(1 + to);
	f.sport = (uint16_t)sport;
	f.dport = (uint16_t)dport;
	return f;
}

static struct dt_flow rev(struct dt_flow f)
{
	return flow(f.daddr[3] - 1, f.saddr[3] - 1, f.dport, f.sport);
}

static const char *name(int h)
{
	return h == 2 ? "c" : h ? "b" : "a";
}

/* window(): events recorded here first, then fed in time order. */
static struct rec {
	int h;
	long i;
	struct dt_rq_event ev;
} *recs;
static long n_recs;

static void add(int h, struct dt_rq_event ev)
{
	if (recs) {
		recs[n_recs] = (struct rec){ h, n_recs, ev };
		n_recs++;
		return;
	}
	if (dt_watch_add(w, name(h), &ev) ||
	    (w2 && dt_watch_add(w2, name(h), &ev)))
		ok(0, "dt_watch_add accepts the event");
}

static void flag(int h, int64_t ts, int tid, int reason, struct dt_flow f)
{
	add(h, (struct dt_rq_event){ .kind = DT_RQ_EV_FLAG, .ts = ts,
				     .tid = tid, .pid = tid, .ctx_tid = tid,
				     .procname = "proc", .reason = reason,
				     .flow = f, .parent = -1 });
}

static void unflag(int h, int64_t ts, int tid, int reason)
{
	add(h, (struct dt_rq_event){ .kind = DT_RQ_EV_UNFLAG, .ts = ts,
				     .tid = tid, .pid = tid, .ctx_tid = tid,
				     .reason = reason, .duration_ns = 1 });
}

static void send(int h, int64_t ts, int tid, struct dt_flow f, uint32_t seq,
		 uint32_t n)
{
	add(h, (struct dt_rq_event){ .kind = DT_RQ_EV_MARK_SEND, .ts = ts,
				     .tid = tid, .pid = tid, .ctx_tid = tid,
				     .flow = f, .seq = seq,
				     .end_seq = seq + n });
}

static void recv(int h, int64_t ts, struct dt_flow f, uint32_t seq,
		 uint32_t n)
{
	add(h, (struct dt_rq_event){ .kind = DT_RQ_EV_MARK_RECV, .ts = ts,
				     .tid = -1, .ctx_tid = -1, .flow = f,
				     .seq = seq, .end_seq = seq + n });
}

static void sys(int h, int64_t ts, int tid, int entry)
{
	add(h, (struct dt_rq_event){ .kind = entry ? DT_RQ_EV_SYSCALL_ENTRY :
						     DT_RQ_EV_SYSCALL_EXIT,
				     .ts = ts, .tid = tid, .pid = tid,
				     .ctx_tid = tid, .name = "write",
				     .fd = entry ? 3 : -1 });
}

static void progress(int h, int64_t ts)
{
	dt_watch_progress(w, name(h), ts);
	if (w2)
		dt_watch_progress(w2, name(h), ts);
}

/* prev switched out (state: 0 preempted, 1 sleeping) for next. */
static void sw(int h, int64_t ts, int prev, int next, int state)
{
	add(h, (struct dt_rq_event){ .kind = DT_RQ_EV_SCHED_SWITCH, .ts = ts,
				     .tid = prev, .pid = prev, .ctx_tid = prev,
				     .next_tid = next, .prev_state = state });
}

static void other(int h, int64_t ts, int tid)
{
	add(h, (struct dt_rq_event){ .kind = DT_RQ_EV_OTHER, .ts = ts,
				     .tid = tid, .pid = tid, .ctx_tid = tid });
}

/* What the model printed since the last call (a static copy). */
static const char *printed(void)
{
	static char out[65536];
	size_t n;

	fflush(NULL);
	n = len - seen < sizeof(out) - 1 ? len - seen : sizeof(out) - 1;
	memcpy(out, buf + seen, n);
	out[n] = 0;
	seen = len;
	return out;
}

/* Rows of the table: an ID right-aligned in 4 columns, two spaces. */
static int rows(const char *s)
{
	int n = 0;

	for (const char *l = s; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l)
		n += l[0] == ' ' && l[3] >= '0' && l[3] <= '9' &&
		     l[4] == ' ' && l[5] == ' ';
	return n;
}

static struct { int64_t start, end, b_start, b_end; int n; } last;

static void changed(void *data, const struct dt_rq_model *m)
{
	(void)data;
	last.n = m->n_requests;
	if (!m->n_requests)
		return;
	last.start = m->requests[0].start_ns;
	last.end = m->requests[0].end_ns;
	last.b_start = last.b_end = -1;
	for (int i = 0; i < m->n_spans; i++)
		if (m->spans[i].request == 0 &&
		    !strcmp(m->hosts[m->spans[i].host], "b")) {
			last.b_start = m->spans[i].start_ns;
			last.b_end = m->spans[i].end_ns;
		}
}

/* a 100 -> b 200 and back, b's part later. */
static void late_host(void)
{
	struct dt_flow f = flow(0, 1, 40000, 80);
	const char *s;

	flag(0, 1000, 100, 0, (struct dt_flow){ 0 });
	sys(0, 1100, 100, 1);
	send(0, 1200, 100, f, 1, 50);
	sys(0, 1300, 100, 0);
	ok(dt_watch_dirty(w), "new events: dirty");
	dt_watch_refresh(w, 0, false, changed, NULL);
	s = printed();
	ok(rows(s) == 0 && dt_watch_waiting(w) == 1 && !dt_watch_dirty(w),
	   "b's part missing: nothing printed, one request waits (%d)",
	   dt_watch_waiting(w));
	dt_watch_refresh(w, TIMEOUT - 1, false, changed, NULL);
	ok(rows(printed()) == 0, "... still just before its timeout");
	dt_watch_refresh(w, TIMEOUT, false, changed, NULL);
	s = printed();
	ok(rows(s) == 1 && strstr(s, "# request 0 incomplete after 5.0 s: 0 "
				     "spans still open, 1 message not received"),
	   "at its timeout: printed, incomplete, 1 message not received");
	ok(strstr(s, "   0  ") && strstr(s, "      1      1  a proc[100]"),
	   "its row: ID 0, 1 host, 1 span, root a proc[100]");

	/* b's events, in b's clock, then a's answer and later event */
	recv(1, 1500 + OFF, f, 1, 50);
	flag(1, 1700 + OFF, 200, 1, f);
	send(1, 2500 + OFF, 200, rev(f), 9000, 300);
	unflag(1, 2600 + OFF, 200, 2);
	recv(0, 2900, rev(f), 9000, 300);
	other(0, 3000, 100);
	dt_watch_refresh(w, TIMEOUT + 1, false, changed, NULL);
	s = printed();
	ok(rows(s) == 0,
	   "b's part came, b's stream not past the request's end: no update yet");
	ok(strstr(s, "# clocks: b aligned to a") != NULL,
	   "the clocks: b aligned to a, said");
	progress(1, 1000000 + OFF);
	dt_watch_refresh(w, TIMEOUT + 1, false, changed, NULL);
	s = printed();
	ok(rows(s) == 1 && strstr(s, "# request 0 updated: 2 spans on 2 "
				     "hosts, 2 messages (was 1, 1, 1)") &&
	   !strstr(s, "incomplete"),
	   "b's part came: printed again, updated, complete");
	ok(last.n == 1 && last.b_start > last.start &&
	   last.b_end < last.end,
	   "b's span placed inside the request in a's clock (%lld..%lld in "
	   "%lld..%lld)", (long long)last.b_start, (long long)last.b_end,
	   (long long)last.start, (long long)last.end);
	dt_watch_refresh(w, TIMEOUT + 2, false, changed, NULL);
	ok(rows(printed()) == 0, "built again: nothing printed twice");
}

/*
 * A second request, all there at once: printed once b's stream has
 * passed its end (b's last event is its span's end, before the
 * request's), at once then.
 */
static void complete(void)
{
	struct dt_flow f = flow(0, 1, 40002, 80);
	const char *s;

	sys(0, 1500000, 100, 1);
	send(0, 1500100, 100, f, 1, 60);
	sys(0, 1500200, 100, 0);
	recv(1, 1500400 + OFF, f, 1, 60);
	flag(1, 1500500 + OFF, 201, 1, f);
	send(1, 1501000 + OFF, 201, rev(f), 5000, 100);
	unflag(1, 1501100 + OFF, 201, 2);
	recv(0, 1501300, rev(f), 5000, 100);
	other(0, 1501400, 100);
	dt_watch_refresh(w, TIMEOUT + 3, false, changed, NULL);
	ok(rows(printed()) == 0 && dt_watch_waiting(w) == 1,
	   "complete, but b's stream not past its end: waits");
	progress(1, 2000000 + OFF);
	dt_watch_refresh(w, TIMEOUT + 3, false, changed, NULL);
	s = printed();
	ok(rows(s) == 1 && strstr(s, "   1  ") && !strstr(s, "incomplete") &&
	   !strstr(s, "updated"),
	   "b's session passed it: it prints, as request 1");
	ok(strstr(s, "request 1: a proc[100]") &&
	   strstr(s, "  b proc[201]  +") && strstr(s, "-> b proc[201]"),
	   "--tree: its tree, b's span under a's, the message to it");
	ok(dt_watch_waiting(w) == 0, "nothing waits");
}

/*
 * b's events first: a span on b of a request whose root (a's client)
 * has not come. It waits for a, and is never printed alone.
 */
static void phantom(void)
{
	struct dt_flow f = flow(0, 1, 40004, 80);
	const char *s;

	recv(1, 3000400 + OFF, f, 1, 70);
	flag(1, 3000500 + OFF, 202, 1, f);
	send(1, 3001000 + OFF, 202, rev(f), 7000, 100);
	unflag(1, 3001100 + OFF, 202, 2);
	progress(1, 4000000 + OFF);
	dt_watch_refresh(w, 2 * TIMEOUT, false, changed, NULL);
	ok(rows(printed()) == 0,
	   "b's span, a's root not come (a behind): nothing printed");
	sys(0, 3000000, 100, 1);
	send(0, 3000100, 100, f, 1, 70);
	sys(0, 3000200, 100, 0);
	recv(0, 3001300, rev(f), 7000, 100);
	other(0, 3001400, 100);
	progress(0, 4000000);
	dt_watch_refresh(w, 2 * TIMEOUT + 1, false, changed, NULL);
	s = printed();
	ok(rows(s) == 1 && strstr(s, "request 2: a proc[100]") &&
	   !strstr(s, "incomplete") && !strstr(s, "updated"),
	   "a's root came: one request, rooted on a, printed once (%d rows)",
	   rows(s));
}

/*
 * b stays behind: a complete request prints at its timeout naming b,
 * then once more when b's stream passes its end, then never again.
 */
static void behind(void)
{
	struct dt_flow f = flow(0, 1, 40006, 80);
	const char *s;

	sys(0, 5000000, 100, 1);
	send(0, 5000100, 100, f, 1, 80);
	sys(0, 5000200, 100, 0);
	recv(1, 5000400 + OFF, f, 1, 80);
	flag(1, 5000500 + OFF, 203, 1, f);
	send(1, 5001000 + OFF, 203, rev(f), 8000, 100);
	unflag(1, 5001100 + OFF, 203, 2);
	recv(0, 5001300, rev(f), 8000, 100);
	other(0, 5001400, 100);
	progress(0, 6000000);
	dt_watch_refresh(w, 3 * TIMEOUT, false, changed, NULL);
	ok(rows(printed()) == 0 && dt_watch_waiting(w) == 1,
	   "b's stream stops short of the request's end: it waits");
	dt_watch_refresh(w, 4 * TIMEOUT, false, changed, NULL);
	s = printed();
	ok(rows(s) == 1 && strstr(s, "# request 3 printed after 5.0 s "
				     "without b past its end"),
	   "at its timeout: printed, naming b");
	dt_watch_refresh(w, 4 * TIMEOUT + 1, false, changed, NULL);
	ok(rows(printed()) == 0, "... not again while b is behind");
	progress(1, 6000000 + OFF);
	dt_watch_refresh(w, 4 * TIMEOUT + 2, false, changed, NULL);
	s = printed();
	ok(rows(s) == 1 && strstr(s, "# request 3 updated"),
	   "b caught up: printed once more (updated)");
	other(0, 7000000, 100);
	dt_watch_refresh(w, 4 * TIMEOUT + 3, false, changed, NULL);
	ok(rows(printed()) == 0, "... and never again");
}

/* After an attach, what is not newer than b's newest is a repeat. */
static void repeats(void)
{
	struct dt_watch_counts c;
	struct dt_flow f = flow(0, 1, 40002, 80);

	dt_watch_attached(w, "b", false);
	recv(1, 1500400 + OFF, f, 1, 60);
	unflag(1, 1501100 + OFF, 201, 2);
	dt_watch_counts(w, &c);
	ok(c.repeated == 2 && c.hosts == 2 && c.printed == 4 &&
	   c.timed_out == 2 && c.updated == 2 && c.late == 0,
	   "repeats left out (%llu); 2 hosts, 4 printed, 2 at their timeout, "
	   "2 updates, none late", (unsigned long long)c.repeated);
	dt_watch_refresh(w, TIMEOUT + 4, false, changed, NULL);
	ok(rows(printed()) == 0, "... and change nothing");
	dt_watch_refresh(w, TIMEOUT + 5, true, changed, NULL);
	ok(rows(printed()) == 0, "the last build prints nothing more");
}

/*
 * Request i at t on a (client 100 or, odd ones, 101: each flagged by
 * hand once) -> b (200 + i % 3) -> c (300 + i % 2) and back; b sleeps
 * in its call to c; every 7th takes 15 ms at c (while the next one
 * come: requests overlap), and the 8th, inside the 7th, waits for its
 * timeout (a message to a host not followed) while the 7th prints; b's
 * clock OFF ahead, c's 3 s behind; every 5 requests the hosts report
 * their progress and both models refresh.
 */
static void one(int i, int64_t t)
{
	struct dt_flow ab = flow(0, 1, 41000 + i, 80);
	struct dt_flow bc = flow(1, 2, 42000 + i, 8080);
	int tb = 200 + i % 3, tc = 300 + i % 2, ta = 100 + i % 2;
	int64_t c = -3000000000LL;

	int64_t d = i % 7 == 6 ? 15000000 : 0;

	sys(0, t, ta, 1);
	send(0, t + 10000, ta, ab, 1, 100);
	sys(0, t + 20000, ta, 0);
	sw(0, t + 30000, ta, 0, 1);
	recv(1, t + 100000 + OFF, ab, 1, 100);
	flag(1, t + 110000 + OFF, tb, 1, ab);
	sys(1, t + 120000 + OFF, tb, 1);
	send(1, t + 130000 + OFF, tb, bc, 1, 80);
	sw(1, t + 140000 + OFF, tb, 0, 1);
	recv(2, t + 200000 + c, bc, 1, 80);
	flag(2, t + 210000 + c, tc, 1, bc);
	sys(2, t + 220000 + c, tc, 1);
	if (i == 7)	/* to a host not followed: waits for its timeout */
		send(2, t + 225000 + c, tc, flow(2, 3, 43000, 9999), 1, 10);
	sys(2, t + 230000 + d + c, tc, 0);
	send(2, t + 300000 + d + c, tc, rev(bc), 1, 500);
	unflag(2, t + 310000 + d + c, tc, 2);
	recv(1, t + 400000 + d + OFF, rev(bc), 1, 500);
	sw(1, t + 410000 + d + OFF, 0, tb, 0);
	sys(1, t + 420000 + d + OFF, tb, 0);
	send(1, t + 500000 + d + OFF, tb, rev(ab), 1, 500);
	unflag(1, t + 510000 + d + OFF, tb, 2);
	recv(0, t + 600000 + d, rev(ab), 1, 500);
	sw(0, t + 610000 + d, 0, ta, 0);
	other(0, t + 620000 + d, ta);
}

static int64_t host_off(int h)
{
	return h == 1 ? OFF : h == 2 ? -3000000000LL : 0;
}

/* By time in a's clock, then as made. */
static int by_time(const void *x, const void *y)
{
	const struct rec *p = x, *q = y;
	int64_t a = p->ev.ts - host_off(p->h), b = q->ev.ts - host_off(q->h);

	if (a != b)
		return a < b ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

/* The page's requests (o.page): their trees, as the last page has them. */
static char *page_buf;
static size_t page_len;
static int page_requests;

static void page_trees(void *data, const struct dt_rq_model *m)
{
	FILE *f;

	(void)data;
	free(page_buf);
	page_buf = NULL;
	f = open_memstream(&page_buf, &page_len);
	for (int i = 0; i < m->n_requests; i++) {
		dt_rq_print_tree_as(m, i, i, f);
		fputc('\n', f);
	}
	fclose(f);
	page_requests = m->n_requests;
}

/* The trees in a watcher's output: each "request N:" to its blank line. */
static char *trees_of(const char *out)
{
	char *t = calloc(1, strlen(out) + 1), *e = t;
	bool in = false;

	for (const char *l = out; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) + 1 : strlen(l);

		if (!strncmp(l, "request ", 8))
			in = true;
		if (in) {
			memcpy(e, l, n);
			e += n;
		}
		if (n == 1)
			in = false;
		l += n;
	}
	return t;
}

static void window(void)
{
	struct dt_watch_opts o = { .tree = true, .timeout_us = 200000,
				   .reference = "a" };
	char *kb = NULL, *db = NULL;
	size_t kl = 0, dl = 0;
	FILE *kf = open_memstream(&kb, &kl), *df = open_memstream(&db, &dl);
	struct dt_watch *saved = w, *keep, *drop;
	struct dt_watch_counts ck, cd;
	size_t half = 0;
	int64_t t = 1000000000LL;
	int n = 400;

	o.keep_all = true;
	keep = dt_watch_new(&o, kf);
	o.keep_all = false;
	o.page = true;
	drop = dt_watch_new(&o, df);
	w = keep;
	w2 = drop;
	recs = calloc((size_t)n * 32 + 2, sizeof(*recs));
	flag(0, t - 1000, 100, 0, (struct dt_flow){ 0 });
	flag(0, t - 900, 101, 0, (struct dt_flow){ 0 });
	for (int i = 0; i < n; i++)
		one(i, t + i * 10000000LL);
	qsort(recs, (size_t)n_recs, sizeof(*recs), by_time);
	{
		struct rec *all = recs;
		long k = 0;

		recs = NULL;
		/* every 50 ms of a's clock: what came, the hosts' progress,
		 * a refresh of both */
		for (int64_t now = t + 50000000; k < n_recs; now += 50000000) {
			for (; k < n_recs && all[k].ev.ts - host_off(all[k].h) < now; k++)
				add(all[k].h, all[k].ev);
			for (int h = 0; h < 3; h++)
				progress(h, now - 1 + host_off(h));
			dt_watch_refresh(keep, now / 1000, false, NULL, NULL);
			dt_watch_refresh(drop, now / 1000, false, page_trees,
					 NULL);
			if (!half && k >= n_recs / 2) {
				dt_watch_counts(drop, &cd);
				half = cd.kept;
			}
		}
		t = all[n_recs - 1].ev.ts;
		free(all);
		n_recs = 0;
	}
	dt_watch_refresh(keep, t / 1000, true, NULL, NULL);
	dt_watch_refresh(drop, t / 1000, true, page_trees, NULL);
	fclose(kf);
	fclose(df);
	dt_watch_counts(keep, &ck);
	dt_watch_counts(drop, &cd);
	ok(ck.printed == (uint64_t)n && cd.printed == (uint64_t)n &&
	   ck.timed_out == 1 && cd.timed_out == 1 && !ck.updated &&
	   !cd.updated && !cd.late_events,
	   "%d requests on 3 hosts: each printed once by both models "
	   "(%llu, %llu)", n, (unsigned long long)ck.printed,
	   (unsigned long long)cd.printed);
	ok(kl > 0 && kl == dl && !memcmp(kb, db, kl),
	   "the model that drops what was printed for good prints what the "
	   "one that keeps every event prints, byte for byte (%zu and %zu "
	   "bytes)", kl, dl);
	ok(cd.kept * 20 < ck.kept && cd.kept <= half + half / 10,
	   "... holding a twentieth of it or less, no more at the end than "
	   "halfway (%llu entries, %zu halfway; %llu kept by the other)",
	   (unsigned long long)cd.kept, half, (unsigned long long)ck.kept);
	{
		char *printed_trees = trees_of(db);

		ok(page_requests == n && page_buf &&
		   !strcmp(page_buf, printed_trees),
		   "--html's page (the model of every request printed, kept "
		   "without their events): its %d trees are the %d printed "
		   "(%zu bytes)", page_requests, n, page_len);
		free(printed_trees);
		free(page_buf);
		page_buf = NULL;
	}
	dt_watch_free(keep);
	dt_watch_free(drop);
	free(kb);
	free(db);
	w = saved;
	w2 = NULL;
}

/* a's client -> b at t and back, complete (b's part, if b_too). */
static void exchange_from(int client, int64_t t, int port, int tid,
			  bool b_too)
{
	struct dt_flow f = flow(0, 1, port, 80);

	sys(0, t, client, 1);
	send(0, t + 100, client, f, 1, 60);
	sys(0, t + 200, client, 0);
	if (b_too) {
		recv(1, t + 400 + OFF, f, 1, 60);
		flag(1, t + 500 + OFF, tid, 1, f);
		send(1, t + 1000 + OFF, tid, rev(f), 5000, 100);
		unflag(1, t + 1100 + OFF, tid, 2);
	}
	recv(0, t + 1300, rev(f), 5000, 100);
	other(0, t + 1400, client);
}

static void exchange(int64_t t, int port, int tid, bool b_too)
{
	exchange_from(100, t, port, tid, b_too);
}

/*
 * b's session lost and followed again: what b sent the relayd meanwhile
 * never comes, until b's first news after (then a live period of
 * slack, 2 s). A request across that gap says b's events may be
 * missing; one after it does not.
 */
static void gap(void)
{
	int64_t t = 20000000, now = 10 * TIMEOUT;
	struct dt_watch_counts c;
	const char *s;

	exchange(t, 40010, 210, true);
	progress(0, t + 500000);
	progress(1, t + 500000 + OFF);
	dt_watch_refresh(w, now, false, changed, NULL);
	s = printed();
	ok(rows(s) == 1 && !strstr(s, "may lack"),
	   "before the drop: a request prints, nothing missing");
	dt_watch_attached(w, "b", true);
	exchange(t + 1000000, 40011, 211, false);	/* b's part skipped */
	progress(1, t + 2000000 + OFF);	/* b's first news: the gap's end */
	exchange(t + 3000000000LL, 40012, 212, true);
	progress(0, t + 3001000000LL);
	progress(1, t + 3001000000LL + OFF);
	dt_watch_refresh(w, now + 1, false, changed, NULL);
	s = printed();
	ok(rows(s) == 1 && !strstr(s, "may lack"),
	   "after the gap's end: a complete request prints, nothing said "
	   "missing");
	dt_watch_refresh(w, now + 1 + TIMEOUT, false, changed, NULL);
	s = printed();
	ok(rows(s) == 1 && strstr(s, "incomplete") &&
	   strstr(s, "may lack events of b: its session was lost and "
		     "followed again across it"),
	   "the request across the gap: printed at its timeout, saying b's "
	   "events may be missing");
	dt_watch_counts(w, &c);
	ok(c.maybe_missing == 1, "counted: 1 request that may lack a host's "
	   "events (%llu)", (unsigned long long)c.maybe_missing);
}

/*
 * c, followed but quiet while requests are printed for good and dropped,
 * then in one, its clock 3 s behind a's: none of its events is taken for
 * one older than what was dropped.
 */
static void late_join(void)
{
	struct dt_flow f = flow(0, 2, 40020, 80);
	int64_t t = 9000000000LL, c = -3000000000LL, now = 20 * TIMEOUT;
	struct dt_watch_counts c0, c1;
	const char *s;

	dt_watch_attached(w, "c", false);	/* no event, no progress */
	exchange(t - 500000000LL, 40021, 213, true);
	progress(0, t - 400000000LL);
	progress(1, t - 400000000LL + OFF);
	dt_watch_refresh(w, now, false, changed, NULL);
	dt_watch_refresh(w, now + 1, false, changed, NULL);
	ok(rows(printed()) == 1, "a request on a and b while c is quiet");
	dt_watch_counts(w, &c0);
	sys(0, t, 100, 1);
	send(0, t + 100, 100, f, 1, 60);
	sys(0, t + 200, 100, 0);
	recv(2, t + 400 + c, f, 1, 60);
	flag(2, t + 500 + c, 301, 1, f);
	send(2, t + 1000 + c, 301, rev(f), 5000, 100);
	unflag(2, t + 1100 + c, 301, 2);
	recv(0, t + 1300, rev(f), 5000, 100);
	other(0, t + 1400, 100);
	progress(0, t + 1000000);
	progress(1, t + 1000000 + OFF);
	progress(2, t + 1000000 + c);
	dt_watch_refresh(w, now + 2, false, changed, NULL);
	s = printed();
	dt_watch_counts(w, &c1);
	ok(c1.late_events == c0.late_events && rows(s) == 1 &&
	   strstr(s, "  c proc[301]  +"),
	   "then c's first request: none of its events left out (%llu), "
	   "its span in the request", (unsigned long long)
	   (c1.late_events - c0.late_events));
}

/*
 * a far behind: b's span of a request prints at the timeout as a
 * request of its own (a's root not come); when a's events come, the
 * request rooted at a is the same one, printed once more (updated),
 * not a second request.
 */
static void reroot(void)
{
	struct dt_flow f = flow(0, 1, 40030, 80);
	int64_t t = 12000000000LL, now = 30 * TIMEOUT;
	struct dt_watch_counts c0, c1;
	const char *s;

	dt_watch_counts(w, &c0);
	recv(1, t + 400 + OFF, f, 1, 60);
	flag(1, t + 500 + OFF, 220, 1, f);
	send(1, t + 1000 + OFF, 220, rev(f), 5000, 100);
	unflag(1, t + 1100 + OFF, 220, 2);
	progress(1, t + 1000000 + OFF);
	dt_watch_refresh(w, now, false, changed, NULL);
	ok(rows(printed()) == 0, "b's span first, a behind: it waits");
	dt_watch_refresh(w, now + TIMEOUT, false, changed, NULL);
	s = printed();
	ok(rows(s) == 1 && strstr(s, "  b proc[220]  ") &&
	   strstr(s, "incomplete after 5.0 s"),
	   "at the timeout: printed rooted at b, incomplete");
	sys(0, t, 100, 1);
	send(0, t + 100, 100, f, 1, 60);
	sys(0, t + 200, 100, 0);
	recv(0, t + 1300, rev(f), 5000, 100);
	other(0, t + 1400, 100);
	progress(0, t + 1000000);
	progress(2, t + 1000000 - 3000000000LL);	/* c, quiet */
	dt_watch_refresh(w, now + TIMEOUT + 1, false, changed, NULL);
	s = printed();
	dt_watch_counts(w, &c1);
	ok(rows(s) == 1 && strstr(s, "updated: 2 spans on 2 hosts") &&
	   strstr(s, "a proc[100]") && c1.printed == c0.printed + 1 &&
	   c1.updated == c0.updated + 1,
	   "a's root came: the same request printed once more, updated, "
	   "rooted at a (%llu printed, %llu updates since)",
	   (unsigned long long)(c1.printed - c0.printed),
	   (unsigned long long)(c1.updated - c0.updated));
}

/*
 * b behind while a and c are not: a's root prints at its timeout alone
 * (its message not received), and so does c's span (its sender not
 * come). When b's events come, the request rooted at a is whole: it
 * prints once more (updated), c's piece said to be part of it, one
 * request counted.
 */
static void two_pieces(void)
{
	struct dt_flow ab = flow(0, 1, 40050, 80), bc = flow(1, 2, 42050, 8080);
	int64_t t = 13000000000LL, c = -3000000000LL, now = 35 * TIMEOUT;
	struct dt_watch_counts c0, c1;
	const char *s;

	dt_watch_counts(w, &c0);
	sys(0, t, 100, 1);
	send(0, t + 100, 100, ab, 1, 60);
	sys(0, t + 200, 100, 0);
	recv(0, t + 3000, rev(ab), 5000, 100);
	other(0, t + 3100, 100);
	recv(2, t + 1000 + c, bc, 1, 50);
	flag(2, t + 1100 + c, 340, 1, bc);
	send(2, t + 1500 + c, 340, rev(bc), 7000, 40);
	unflag(2, t + 1600 + c, 340, 2);
	progress(0, t + 1000000);
	progress(2, t + 1000000 + c);
	dt_watch_refresh(w, now, false, changed, NULL);
	dt_watch_refresh(w, now + TIMEOUT, false, changed, NULL);
	s = printed();
	ok(rows(s) == 2 && strstr(s, "  a proc[100]  ") &&
	   strstr(s, "  c proc[340]  "),
	   "b behind: a's root and c's span print at their timeout, each "
	   "alone (%d rows)", rows(s));
	recv(1, t + 400 + OFF, ab, 1, 60);
	flag(1, t + 500 + OFF, 240, 1, ab);
	send(1, t + 600 + OFF, 240, bc, 1, 50);
	recv(1, t + 2000 + OFF, rev(bc), 7000, 40);
	send(1, t + 2500 + OFF, 240, rev(ab), 5000, 100);
	unflag(1, t + 2600 + OFF, 240, 2);
	progress(0, t + 2000000);
	progress(1, t + 2000000 + OFF);
	progress(2, t + 2000000 + c);
	dt_watch_refresh(w, now + TIMEOUT + 1, false, changed, NULL);
	s = printed();
	dt_watch_counts(w, &c1);
	ok(rows(s) == 1 && strstr(s, "updated: 3 spans on 3 hosts") &&
	   strstr(s, "was part of request") && c1.joined == c0.joined + 1 &&
	   c1.printed == c0.printed + 1,
	   "b came: printed once more, whole, rooted at a, c's piece said "
	   "to be part of it (%d rows, %llu joined, %llu printed since)",
	   rows(s), (unsigned long long)(c1.joined - c0.joined),
	   (unsigned long long)(c1.printed - c0.printed));
	dt_watch_refresh(w, now + 2 * TIMEOUT, false, changed, NULL);
	ok(rows(printed()) == 0, "... and not again");
}

/*
 * A client flagged by hand starts a helper thread (curl's resolver)
 * that runs and exits before its first send: the client's request so
 * far has no message. It waits (it is the start of the request to
 * come), then prints whole, the helper in it.
 */
static void prelude(void)
{
	int64_t t = 15000000000LL, now = 40 * TIMEOUT;
	const char *s;

	flag(0, t - 1000, 160, 0, (struct dt_flow){ 0 });
	add(0, (struct dt_rq_event){ .kind = DT_RQ_EV_FLAG, .ts = t,
				     .tid = 161, .pid = 160, .ctx_tid = 161,
				     .procname = "resolver", .reason = 2,
				     .parent = 160 });
	other(0, t + 1000, 161);
	unflag(0, t + 60000, 161, 1);
	other(0, t + 80000, 160);	/* the client goes on */
	progress(0, t + 100000);
	progress(1, t + 100000 + OFF);
	progress(2, t + 100000 - 3000000000LL);
	dt_watch_refresh(w, now, false, changed, NULL);
	ok(rows(printed()) == 0,
	   "the client's helper alone, nothing sent yet: it waits");
	progress(0, t + 200000);
	progress(1, t + 200000 + OFF);
	progress(2, t + 200000 - 3000000000LL);
	dt_watch_refresh(w, now + 3 * TIMEOUT, false, changed, NULL);
	s = printed();
	ok(rows(s) == 0,
	   "the client still flagged and nothing sent after 3 timeouts: "
	   "still no request (%d rows)", rows(s));
	exchange_from(160, t + 150000, 40040, 230, true);
	progress(0, t + 1000000);
	progress(1, t + 1000000 + OFF);
	progress(2, t + 1000000 - 3000000000LL);
	dt_watch_refresh(w, now + 3 * TIMEOUT + 1, false, changed, NULL);
	s = printed();
	ok(rows(s) == 1 && strstr(s, "2 hosts, 3 spans") &&
	   strstr(s, "a resolver[161]"),
	   "the send came: one request, the helper in it (%d rows)", rows(s));
}

/*
 * A client flagged by hand that never sends: while it is flagged it is
 * no request yet, whatever the wait; once remove_pid ends its flag it
 * is work of its own, printed at its timeout, saying so.
 */
static void prelude_removed(void)
{
	int64_t t = 17000000000LL, now = 60 * TIMEOUT;
	const char *s;

	flag(0, t, 170, 0, (struct dt_flow){ 0 });
	other(0, t + 1000, 170);
	other(0, t + 900000, 170);
	progress(0, t + 1000000);
	progress(1, t + 1000000 + OFF);
	progress(2, t + 1000000 - 3000000000LL);
	dt_watch_refresh(w, now, false, changed, NULL);
	dt_watch_refresh(w, now + 4 * TIMEOUT, false, changed, NULL);
	ok(rows(printed()) == 0,
	   "a client flagged by hand, nothing sent in 4 timeouts: no request");
	unflag(0, t + 1100000, 170, 0);
	progress(0, t + 2000000);
	progress(1, t + 2000000 + OFF);
	progress(2, t + 2000000 - 3000000000LL);
	dt_watch_refresh(w, now + 4 * TIMEOUT + 1, false, changed, NULL);
	s = printed();
	ok(rows(s) == 1 && strstr(s, "a proc[170]") &&
	   strstr(s, "flagged by hand, sent nothing") &&
	   strstr(s, "manual .. removed"),
	   "its flag removed: printed, as work of its own (%d rows)",
	   rows(s));
}

/*
 * --delays: a request whole (its spans ended, its messages received)
 * while b's stream is not past its end prints once b's is, saying both
 * when it printed and when it was seen whole (the part of the delay
 * spent waiting for the hosts' positions is the difference).
 */
static void delays(void)
{
	struct dt_watch_opts o = { .timeout_us = 100 * TIMEOUT,
				   .reference = "a", .delays = true };
	char *b = NULL;
	size_t l = 0;
	FILE *f = open_memstream(&b, &l);
	struct dt_watch *saved = w;
	int64_t t = 95000000000LL, now = 80 * TIMEOUT;
	double printed = -1, whole = -1;
	const char *line;
	bool before;

	w = dt_watch_new(&o, f);
	flag(0, t - 1000, 100, 0, (struct dt_flow){ 0 });
	for (int i = 0; i < 3; i++)
		exchange(t + i * 1000000LL, 40060 + i, 250 + i, true);
	progress(0, t + 10000000LL);
	progress(1, t + 2000000LL + 500 + OFF);	/* b: not past the last */
	dt_watch_refresh(w, now, false, NULL, NULL);
	fflush(f);
	before = strstr(b, "request 2 printed") != NULL;
	usleep(50000);	/* this machine's clock moves: whole, then printed */
	progress(1, t + 10000000LL + OFF);
	dt_watch_refresh(w, now + 1, false, NULL, NULL);
	fflush(f);
	line = strstr(b, "# request 2 printed ");
	if (line)
		sscanf(line, "# request 2 printed %lf s after its end (this "
		       "machine's clock against the reference host's; seen "
		       "whole after %lf s)", &printed, &whole);
	ok(!before && line && whole > 0 && printed - whole >= 0.04,
	   "--delays: the last request, whole while b lagged, printed once "
	   "b passed it, 50 ms later, saying when it was seen whole and "
	   "printed (%.3f s apart)", printed - whole);
	dt_watch_free(w);
	fclose(f);
	free(b);
	w = saved;
}

/*
 * A kept-alive connection: b's span of each request ends at its answer,
 * but the kernel unflags it only when the next request comes (idle_ns
 * says since when it was idle). The cut must not fall between: the base
 * would keep b's span, open, and drop a's send that links it, and print
 * it as a request of its own. Two models, the same feed: the same output.
 */
static void kept_alive(void)
{
	struct dt_watch_opts o = { .tree = true, .timeout_us = TIMEOUT,
				   .reference = "a" };
	char *kb = NULL, *db = NULL;
	size_t kl = 0, dl = 0;
	FILE *kf = open_memstream(&kb, &kl), *df = open_memstream(&db, &dl);
	struct dt_watch *saved = w, *keep, *drop;
	struct dt_watch_counts ck, cd;
	struct dt_flow f = flow(0, 1, 40040, 80);
	int64_t t = 50000000000LL, step = 1000000000LL, last = 0, now;
	int n = 12;

	o.keep_all = true;
	keep = dt_watch_new(&o, kf);
	o.keep_all = false;
	drop = dt_watch_new(&o, df);
	w = keep;
	w2 = drop;
	flag(0, t - 1000, 100, 0, (struct dt_flow){ 0 });
	for (int i = 0; i <= n; i++) {
		int64_t r = t + i * step;

		if (i) {	/* the previous request's unflag, at last */
			add(1, (struct dt_rq_event){
				.kind = DT_RQ_EV_UNFLAG, .ts = r + 450 + OFF,
				.tid = 200, .pid = 200, .ctx_tid = 200,
				.reason = 2, .duration_ns = 1,
				.idle_ns = (uint64_t)(r + 450 - last) });
		}
		if (i == n)
			break;
		sys(0, r, 100, 1);
		send(0, r + 100, 100, f, 1 + 60 * i, 60);
		sys(0, r + 200, 100, 0);
		recv(1, r + 400 + OFF, f, 1 + 60 * i, 60);
		flag(1, r + 500 + OFF, 200, 1, f);
		send(1, r + 1000 + OFF, 200, rev(f), 1 + 100 * i, 100);
		last = r + 1000;
		recv(0, r + 1300, rev(f), 1 + 100 * i, 100);
		other(0, r + 1400, 100);
		/* a second later than each half second: both hosts' news */
		for (now = r + step / 4; now < r + step; now += step / 4) {
			progress(0, now);
			progress(1, now + OFF);
			dt_watch_refresh(keep, now / 1000, false, NULL, NULL);
			dt_watch_refresh(drop, now / 1000, false, NULL, NULL);
		}
	}
	dt_watch_refresh(keep, t / 1000 + n * step, true, NULL, NULL);
	dt_watch_refresh(drop, t / 1000 + n * step, true, NULL, NULL);
	fclose(kf);
	fclose(df);
	dt_watch_counts(keep, &ck);
	dt_watch_counts(drop, &cd);
	ok(ck.printed == (uint64_t)n && kl == dl && !memcmp(kb, db, kl),
	   "a kept-alive connection, each span unflagged at the next request: "
	   "the model that drops prints what the one that keeps prints (%llu "
	   "and %llu requests, %zu and %zu bytes)",
	   (unsigned long long)ck.printed, (unsigned long long)cd.printed,
	   kl, dl);
	dt_watch_free(keep);
	dt_watch_free(drop);
	free(kb);
	free(db);
	w = saved;
	w2 = NULL;
}

/* A recorded event, given to the models now. */
static void add_now(const struct rec *r)
{
	add(r->h, r->ev);
}

static struct rec *late[4];
static long late_n[4];

/*
 * b followed from the start, its first news 3 s late: a's part of the
 * requests must wait for it (the marks b's pair with, the sends b's
 * spans link to), not go with a's cut. Two models: the same output.
 */
static void first_late(void)
{
	struct dt_watch_opts o = { .tree = true, .timeout_us = TIMEOUT,
				   .reference = "a" };
	char *kb = NULL, *db = NULL;
	size_t kl = 0, dl = 0;
	FILE *kf = open_memstream(&kb, &kl), *df = open_memstream(&db, &dl);
	struct dt_watch *saved = w, *keep, *drop;
	struct dt_watch_counts ck, cd;
	int64_t t = 90000000000LL, step = 250000000LL, now;
	int n = 4;

	o.keep_all = true;
	keep = dt_watch_new(&o, kf);
	o.keep_all = false;
	drop = dt_watch_new(&o, df);
	dt_watch_attached(keep, "a", false);
	dt_watch_attached(drop, "a", false);
	dt_watch_attached(keep, "b", false);
	dt_watch_attached(drop, "b", false);
	w = keep;
	w2 = drop;
	for (now = t; now < t + 16 * step; now += step) {
		int i = (int)((now - t) / step);

		/* a's requests and news at once; b's 3 s later */
		if (i < n) {
			recs = calloc(16, sizeof(*recs));
			exchange(now, 40050 + i, 220 + i, true);
			late[i] = recs;
			late_n[i] = n_recs;
			recs = NULL;
			n_recs = 0;
			for (long k = 0; k < late_n[i]; k++)
				if (late[i][k].h == 0)
					add_now(&late[i][k]);
		}
		if (i >= 12 && i - 12 < n) {
			for (long k = 0; k < late_n[i - 12]; k++)
				if (late[i - 12][k].h == 1)
					add_now(&late[i - 12][k]);
			free(late[i - 12]);
		}
		progress(0, now + step / 2);
		if (i >= 12)
			progress(1, now - 12 * step + step / 2 + OFF);
		dt_watch_refresh(keep, now / 1000, false, NULL, NULL);
		dt_watch_refresh(drop, now / 1000, false, NULL, NULL);
	}
	dt_watch_refresh(keep, now / 1000, true, NULL, NULL);
	dt_watch_refresh(drop, now / 1000, true, NULL, NULL);
	fclose(kf);
	fclose(df);
	dt_watch_counts(keep, &ck);
	dt_watch_counts(drop, &cd);
	ok(ck.printed == (uint64_t)n && kl == dl && !memcmp(kb, db, kl),
	   "a host followed whose first news comes 3 s late: the model that "
	   "drops waits for it, and prints what the one that keeps prints "
	   "(%llu and %llu requests, %zu and %zu bytes)",
	   (unsigned long long)ck.printed, (unsigned long long)cd.printed,
	   kl, dl);
	dt_watch_free(keep);
	dt_watch_free(drop);
	free(kb);
	free(db);
	w = saved;
	w2 = NULL;
}

/*
 * a's request to b, read by b 50 ms later (queued in its socket), b's
 * stream past a's part of it meanwhile, then held up longer than the
 * timeout: a's part prints at its timeout, and must be kept (not
 * forgotten as done) until every host is a timeout past its end, so
 * that b's part, when it comes, makes it whole (updated). The model
 * that drops forgot it while b's read was still to come (a replay's
 * schedule, dt-watch-replay -t 3000, seed 620 of a t-live trace).
 */
static void queued(void)
{
	struct dt_flow ab = flow(0, 1, 40070, 80);
	int64_t t = 100000000000LL, c = -3000000000LL, ms = 1000000;
	int64_t now = 90 * TIMEOUT;
	char out[4096];
	const char *s;

	sys(0, t, 100, 1);
	send(0, t + 100, 100, ab, 1, 60);
	sys(0, t + 200, 100, 0);
	other(0, t + 300, 100);
	progress(0, t + 10 * ms);
	progress(1, t + 10 * ms + OFF);
	progress(2, t + 10 * ms + c);
	dt_watch_refresh(w, now, false, changed, NULL);
	dt_watch_refresh(w, now + TIMEOUT, false, changed, NULL);
	s = printed();
	ok(rows(s) == 1 && strstr(s, "incomplete"),
	   "a's request, b not reading it yet: printed at its timeout "
	   "(%d rows)", rows(s));
	progress(0, t + 2000 * ms);
	progress(2, t + 2000 * ms + c);
	dt_watch_refresh(w, now + TIMEOUT + 1, false, changed, NULL);
	dt_watch_refresh(w, now + 2 * TIMEOUT, false, changed, NULL);
	ok(rows(printed()) == 0, "... not again while b is held up");
	recv(1, t + 50 * ms + OFF, ab, 1, 60);
	flag(1, t + 50 * ms + 100 + OFF, 250, 1, ab);
	send(1, t + 51 * ms + OFF, 250, rev(ab), 5000, 100);
	unflag(1, t + 51 * ms + 100 + OFF, 250, 2);
	progress(1, t + 2000 * ms + OFF);
	dt_watch_refresh(w, now + 2 * TIMEOUT + 1, false, changed, NULL);
	ok(rows(printed()) == 0, "b's part came: not printed alone");
	/* the last refresh: what is left prints */
	dt_watch_refresh(w, now + 3 * TIMEOUT, true, changed, NULL);
	snprintf(out, sizeof(out), "%s", printed());
	ok(rows(out) == 1 && strstr(out, "updated: 2 spans on 2 hosts") &&
	   strstr(out, "  b proc[250]  "),
	   "b read it 50 ms after a's part ended: a's request printed once "
	   "more, whole, b's part in it (%d rows)", rows(out));
}

int main(void)
{
	struct dt_watch_opts o = { .tree = true, .timeout_us = TIMEOUT,
				   .reference = "a" };
	FILE *out = open_memstream(&buf, &len);

	w = dt_watch_new(&o, out);
	ok(w != NULL, "dt_watch_new");
	late_host();
	complete();
	phantom();
	behind();
	repeats();
	gap();
	late_join();
	reroot();
	two_pieces();
	prelude();
	prelude_removed();
	delays();
	window();
	kept_alive();
	first_late();
	queued();
	dt_watch_free(w);
	fclose(out);
	free(buf);
	return tap_done();
}
