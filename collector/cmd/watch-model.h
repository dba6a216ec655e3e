/*
 * The watcher's model (watch-model.c): events of live hosts as they
 * come, each host in its own clock; on refresh, the clocks aligned from
 * the marks so far and the requests built from the events not settled
 * yet and what the settled ones left (memory as the requests in flight,
 * not the session's length); each
 * request printed once settled (complete, and every aligned host's
 * stream past its end), or at its timeout and then once more if it
 * completes or changes. No babeltrace2 here: `dtracer watch` (watch.c) feeds it
 * decoded events, tests feed it hand-made ones.
 */
#ifndef DT_COLLECTOR_WATCH_MODEL_H
#define DT_COLLECTOR_WATCH_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "requests.h"

struct dt_watch_opts {
	bool tree;		/* each request's tree after its row */
	bool delays;		/* how long after its end it printed */
	int64_t timeout_us;	/* print an incomplete request after this */
	const char *reference;	/* the clock's host; NULL: the sync's */
	bool keep_all;		/* keep every event (tests compare) */
	bool page;		/* keep each printed request's model: the
				 * refresh's changed() gets them all */
};

struct dt_watch;

/* Rows, trees and notes ("# ...") go to out. NULL on ENOMEM. */
struct dt_watch *dt_watch_new(const struct dt_watch_opts *o, FILE *out);
void dt_watch_free(struct dt_watch *w);

/*
 * An event of host, in host's own clock (ev->host is ignored; strings
 * are copied). Per host in time order, except after a session started
 * again. Events not newer than host's newest when dt_watch_attached
 * was last called are left out (counted): given again. 0 or -ENOMEM.
 */
int dt_watch_add(struct dt_watch *w, const char *host,
		 const struct dt_rq_event *ev);
/*
 * host's session is followed (again) from now on; lost: it was lost
 * before, and what reached the relayd meanwhile will not come (lttng-live
 * attaches at the newest data): from host's position then to its first
 * event or progress after, and a live period (2 s) more, its events may
 * be missing, and each request printed across that gap says so. 0 or
 * -ENOMEM.
 */
int dt_watch_attached(struct dt_watch *w, const char *host, bool lost);
/*
 * host's session has nothing older than ts (host's own clock) to come:
 * its position while quiet (lttng-live's inactivity messages).
 */
void dt_watch_progress(struct dt_watch *w, const char *host, int64_t ts);
/* Events host's tracer discarded. */
void dt_watch_discarded(struct dt_watch *w, const char *host, uint64_t n);

/* A line "# TEXT" (each line of TEXT). */
void dt_watch_say(struct dt_watch *w, const char *text);

/*
 * Build and print what completed, timed out (now_us, a monotonic clock
 * in us, against when each request was first seen) or changed; final:
 * print every request still waiting. changed, if not NULL, gets the
 * model when something printed: with page, every request printed so
 * far (each as last printed, in the order first printed); else the
 * build's. 0, or -ENOMEM (said).
 */
int dt_watch_refresh(struct dt_watch *w, int64_t now_us, bool final,
		     void (*changed)(void *data, const struct dt_rq_model *m),
		     void *data);

/* New events since the last refresh; requests seen, not printed yet. */
bool dt_watch_dirty(const struct dt_watch *w);
int dt_watch_waiting(const struct dt_watch *w);

struct dt_watch_counts {
	uint64_t events, printed, timed_out, updated;
	uint64_t late;		/* settled requests that changed after */
	uint64_t maybe_missing;	/* printed across a host's gap */
	uint64_t joined;	/* printed pieces of another (not in printed) */
	uint64_t discarded, repeated;
	uint64_t late_events;	/* older than their host's cut: left out */
	uint64_t kept;		/* events and entries held (tests, bench) */
	unsigned hosts;
};

void dt_watch_counts(const struct dt_watch *w, struct dt_watch_counts *c);

#endif
