/*
 * One read of each host's traces, the hosts side by side
 * (requests-hosts.c): the requests of the hosts' own traces, and merge's
 * pass 1.
 */
#ifndef DT_COLLECTOR_REQUESTS_HOSTS_H
#define DT_COLLECTOR_REQUESTS_HOSTS_H

#include <stdint.h>

#include <glib.h>

#include "requests.h"
#include "sync.h"

/*
 * The requests of the hosts' own traces (not merged: no sync.txt beside
 * them), each host read in a thread of its own, the clocks aligned from
 * the marks (requests-hosts.c). traces: their directories. 0, or -1
 * with *error set.
 */
int dt_rq_read_hosts(GPtrArray *traces, struct dt_rq_model **out,
		     GError **error);

/*
 * The same pass, with more (dtracer merge): ctf_out, if not NULL, gets
 * each host's trace as read (sink.ctf.fs, a graph per host), in its own
 * clock (merge then retimes the metadata); the sync solved against
 * reference (NULL: its choice), to the caller (dt_sync_free); the
 * events read and those the dedup filter left out, counted.
 */
struct dt_hosts_pass {
	const char *ctf_out;
	const char *reference;
	/* progress: the events taken so far, the slowest host's time */
	void (*progress)(void *data, uint64_t events, int64_t ts);
	void *data;
	struct dt_sync *sync;
	uint64_t events, dedup_dropped;
};

int dt_rq_hosts_pass(GPtrArray *traces, struct dt_hosts_pass *p,
		     struct dt_rq_model **out, GError **error);

/* From a signal handler: the pass running ends, "interrupted". */
void dt_rq_hosts_interrupt(void);

#endif
