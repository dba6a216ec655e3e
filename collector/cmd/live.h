/*
 * Following every session an lttng-relayd serves on its live port, and
 * those that appear later: babeltrace2's src.ctf.lttng-live, one graph
 * per session, driven a step at a time by the caller (live.c). A
 * session that ends or is lost is followed again when it comes back.
 */
#ifndef DT_COLLECTOR_LIVE_H
#define DT_COLLECTOR_LIVE_H

#include <stdint.h>

#include <babeltrace2/babeltrace.h>

#include "graph.h"

struct dt_live_ops {
	/* An event of host's session, in that session's time order:
	 * 0, or -errno to stop (dt_live_step fails). */
	int (*event)(void *data, const char *host, const bt_message *msg);
	/* Events the host's tracer discarded (n: 0 if it does not say). */
	void (*discarded)(void *data, const char *host, uint64_t n);
	/* One line for the user: a session followed, ended, lost. */
	void (*note)(void *data, const char *text);
	/* host's session is followed (again): its events from now on may
	 * repeat some already given, if the relayd sent them again; lost:
	 * it was lost (not ended) before, and what reached the relayd
	 * meanwhile is skipped (docs/limitations.md, "Live"). */
	void (*attached)(void *data, const char *host, bool lost);
	/* host's session has nothing older than ts (ns from its clock's
	 * origin, as its events') to come: it was quiet until then. */
	void (*progress)(void *data, const char *host, int64_t ts);
};

/* url: "net://HOST[:PORT]". NULL with *error if lttng-live is missing. */
struct dt_live *dt_live_new(const struct dt_classes *cls, const char *url,
			    const struct dt_live_ops *ops, void *data,
			    GError **error);
void dt_live_free(struct dt_live *l);

/*
 * Ask the relayd for new sessions (at most once a second) and run each
 * followed session's graph once: 1 if events came, 0 if none (sleep a
 * little then), -1 with *error if a callback failed.
 */
int dt_live_step(struct dt_live *l, GError **error);

/* Sessions being followed now. */
int dt_live_following(const struct dt_live *l);

/* Times a session was followed again after it was lost (not ended),
 * and the seconds it was not followed in all. */
void dt_live_gaps(const struct dt_live *l, uint64_t *lost, double *seconds);

#endif
