/*
 * What `dtracer watch` costs as a day of traffic goes by: its model
 * (collector/cmd/watch-model.c) fed the events of requests at a steady
 * rate, refreshed as the watcher refreshes (every 250 ms of trace time),
 * and measured at N requests: the processor time of one refresh (the
 * mean of the refreshes since the last point), the peak memory of the
 * process, and the events and entries the model holds (dt_watch_counts'
 * kept). No guest, no relayd: the events are made here, as a live
 * session delivers them (each host's in time order, a host's progress
 * while quiet), three hosts in a chain (client a, b, c), the clocks of b
 * and c off a's by seconds.
 *
 *   watch-replay [MAX_REQUESTS [MAX_SECONDS]]
 *
 * Points at 1,000, 10,000, 100,000 and 1,000,000 requests (those up to
 * MAX_REQUESTS, default 1,000,000), stopping early when one refresh
 * takes more than MAX_SECONDS (default 0.5) of processor time (a model
 * whose cost grew with the session's length would take days to reach
 * the later points). The last line compares the last point with the
 * first (the collector issue's target: within 1.2 times).
 */
#define _DEFAULT_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "watch-model.h"

#define RATE_NS 10000000LL	/* a request every 10 ms: 100 a second */
#define REFRESH_NS 250000000LL	/* the watcher's refresh */
#define OFF_B 7000000000LL
#define OFF_C (-3000000000LL)
#define SYSCALLS 6		/* a server span's system calls */

static struct dt_watch *w;

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static long peak_kib(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return u.ru_maxrss;
}

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

static const char *hosts[] = { "a", "b", "c" };
static const int64_t offs[] = { 0, OFF_B, OFF_C };

static void add(int h, struct dt_rq_event ev)
{
	ev.ts += offs[h];
	if (dt_watch_add(w, hosts[h], &ev)) {
		fprintf(stderr, "watch-replay: out of memory\n");
		exit(1);
	}
}

static void mark(int h, bool send, int64_t ts, int tid, struct dt_flow f,
		 uint32_t seq, uint32_t n)
{
	add(h, (struct dt_rq_event){
		.kind = send ? DT_RQ_EV_MARK_SEND : DT_RQ_EV_MARK_RECV,
		.ts = ts, .tid = send ? tid : -1, .pid = send ? tid : -1,
		.ctx_tid = send ? tid : -1, .flow = f, .seq = seq,
		.end_seq = seq + n });
}

static void sys(int h, int64_t ts, int tid, bool entry)
{
	add(h, (struct dt_rq_event){
		.kind = entry ? DT_RQ_EV_SYSCALL_ENTRY : DT_RQ_EV_SYSCALL_EXIT,
		.ts = ts, .tid = tid, .pid = tid, .ctx_tid = tid,
		.name = "read", .fd = entry ? 3 : -1 });
}

static void flag(int h, int64_t ts, int tid, int reason, struct dt_flow f)
{
	add(h, (struct dt_rq_event){ .kind = DT_RQ_EV_FLAG, .ts = ts,
				     .tid = tid, .pid = tid, .ctx_tid = tid,
				     .procname = h ? "server" : "client",
				     .reason = reason, .flow = f,
				     .parent = -1 });
}

static void unflag(int h, int64_t ts, int tid)
{
	add(h, (struct dt_rq_event){ .kind = DT_RQ_EV_UNFLAG, .ts = ts,
				     .tid = tid, .pid = tid, .ctx_tid = tid,
				     .reason = 2, .duration_ns = 1 });
}

/*
 * Request i at t0: a -> b -> c and back, each host's events in its
 * clock; a connection per request (ports from i).
 */
static void request(long i, int64_t t0)
{
	struct dt_flow ab = flow(0, 1, 10000 + (int)(i % 50000), 80);
	struct dt_flow bc = flow(1, 2, 20000 + (int)(i % 40000), 8080);
	int tb = 2000 + (int)(i % 64), tc = 3000 + (int)(i % 64);
	int64_t t = t0;

	sys(0, t, 100, true);
	mark(0, true, t + 10000, 100, ab, 1, 100);
	sys(0, t + 20000, 100, false);
	mark(1, false, t + 100000, 0, ab, 1, 100);
	flag(1, t + 110000, tb, 1, ab);
	for (int k = 0; k < SYSCALLS; k++) {
		sys(1, t + 120000 + k * 10000, tb, true);
		sys(1, t + 125000 + k * 10000, tb, false);
	}
	mark(1, true, t + 200000, tb, bc, 1, 80);
	mark(2, false, t + 300000, 0, bc, 1, 80);
	flag(2, t + 310000, tc, 1, bc);
	for (int k = 0; k < SYSCALLS; k++) {
		sys(2, t + 320000 + k * 10000, tc, true);
		sys(2, t + 325000 + k * 10000, tc, false);
	}
	mark(2, true, t + 400000, tc, rev(bc), 1, 500);
	unflag(2, t + 410000, tc);
	mark(1, false, t + 500000, 0, rev(bc), 1, 500);
	mark(1, true, t + 600000, tb, rev(ab), 1, 500);
	unflag(1, t + 610000, tb);
	mark(0, false, t + 700000, 0, rev(ab), 1, 500);
	sys(0, t + 710000, 100, true);
	sys(0, t + 720000, 100, false);
}

int main(int argc, char **argv)
{
	static const long points[] = { 1000, 10000, 100000, 1000000 };
	long max = argc > 1 ? atol(argv[1]) : 1000000;
	double max_s = argc > 2 ? atof(argv[2]) : 0.5;
	struct dt_watch_opts o = { .timeout_us = 5000000, .reference = "a" };
	FILE *out = fopen("/dev/null", "w");
	double first = 0, last = 0, spent = 0, one;
	long refreshes = 0, p = 0, i;
	int64_t next_refresh = REFRESH_NS, t = 1000000000LL;
	long first_kib = 0, last_kib = 0;

	if (max < 1 || max_s <= 0 || !out) {
		fprintf(stderr, "usage: watch-replay [MAX_REQUESTS [MAX_SECONDS]]\n");
		return 2;
	}
	w = dt_watch_new(&o, out);
	if (!w)
		return 1;
	flag(0, t - 1000, 100, 0, (struct dt_flow){ 0 });
	printf("requests  per-update cpu ms  peak memory MiB  refreshes  "
	       "entries held\n");
	for (i = 1; p < 4 && points[p] <= max; i++, t += RATE_NS) {
		request(i, t);
		if (t < next_refresh + 1000000000LL)
			continue;
		next_refresh += REFRESH_NS;
		for (int h = 0; h < 3; h++)
			dt_watch_progress(w, hosts[h], t + 800000 + offs[h]);
		one = cpu_s();
		dt_watch_refresh(w, t / 1000, false, NULL, NULL);
		one = cpu_s() - one;
		spent += one;
		refreshes++;
		if (i >= points[p] || one > max_s) {
			double mean = spent / (double)refreshes;
			struct dt_watch_counts c;

			dt_watch_counts(w, &c);
			printf("%8ld  %17.3f  %15.1f  %9ld  %12llu\n", i,
			       mean * 1e3, peak_kib() / 1024.0, refreshes,
			       (unsigned long long)c.kept);
			fflush(stdout);
			if (!first) {
				first = mean;
				first_kib = peak_kib();
			}
			last = mean;
			last_kib = peak_kib();
			spent = 0;
			refreshes = 0;
			p++;
		}
		if (one > max_s) {
			printf("stopped at %ld requests: its last refresh took "
			       "%.2f s of processor time (over %.2f)\n", i, one,
			       max_s);
			break;
		}
	}
	if (first > 0)
		printf("per-update cpu ratio (last point / first): %.1f; "
		       "peak memory ratio: %.1f\n", last / first,
		       (double)last_kib / (double)first_kib);
	dt_watch_free(w);
	fclose(out);
	return 0;
}
