/*
 * Retiming a CTF trace without touching its data: the times of a CTF 1.8
 * trace are clock values turned into time by the metadata's clock
 * declaration (freq, offset_s, offset), so a linear map of the clock
 * (sync.h's struct dt_clock_map) is a new frequency and offset in the
 * metadata. The data streams are left as they are; babeltrace2 and
 * Trace Compass read the result like any trace.
 *
 * Works on plain-text metadata (what sink.ctf.fs writes); LTTng's own
 * packetized metadata goes through sink.ctf.fs first.
 */
#ifndef DT_COLLECTOR_RETIME_H
#define DT_COLLECTOR_RETIME_H

#include "error.h"
#include "sync.h"

/* A clock declaration's parameters. */
struct dt_ctf_clock {
	uint64_t freq;
	int64_t offset_s;
	uint64_t offset;	/* cycles, < freq once normalised */
};

/*
 * The clock that maps the same clock values to map(t), exact at the
 * map's anchor (the frequency is an integer: elsewhere off by at most
 * half a cycle per freq cycles from the anchor). -EINVAL if the map
 * makes no sense (drift <= -1, non-finite numbers).
 */
int dt_ctf_clock_retime(const struct dt_ctf_clock *in,
			const struct dt_clock_map *map,
			struct dt_ctf_clock *out);

/*
 * Rewrite every clock block of the metadata file at path (text TSDL)
 * with the map, atomically (a temporary file renamed over it).
 * 0, or -1 with *error set: DT_ERROR_INPUT (not text CTF, no or a
 * broken clock block: the file is left as it was), DT_ERROR_IO.
 */
int dt_metadata_retime(const char *path, const struct dt_clock_map *map,
		       GError **error);

/* The env block's hostname of a text metadata file (g_free it), or NULL. */
char *dt_metadata_hostname(const char *path);

#endif
