/*
 * One babeltrace2 event message as a struct dt_rq_event (requests.h):
 * what `dtracer requests` reads from a merged trace and what `dtracer
 * watch` reads live (requests-read.c).
 */
#ifndef DT_COLLECTOR_REQUESTS_READ_H
#define DT_COLLECTOR_REQUESTS_READ_H

#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "requests.h"
#include "sync.h"

/*
 * Decode msg (an event message) into ev: every field but ev->host, with
 * ts in the event's clock, ns from origin. kinds caches the event
 * classes' kinds: a table from dt_rq_kinds_new(), which holds a
 * reference on each class until it is destroyed.
 * Strings (procname, name) are borrowed from the message. 1 if decoded,
 * 0 if the event has no time or not the layout dtracer knows (skip it).
 */
GHashTable *dt_rq_kinds_new(void);
int dt_rq_decode(GHashTable *kinds, const bt_message *msg,
		 struct dt_rq_event *ev);

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
