/*
 * A structural check of a trace's metadata file before babeltrace2 reads
 * it: babeltrace2 2.0's src.ctf.fs loops forever on packetized metadata
 * whose last packet is truncated (a copy cut short, a full disk), so
 * dtracer refuses such a file first, naming it and the offset.
 */
#ifndef DT_COLLECTOR_CTF_CHECK_H
#define DT_COLLECTOR_CTF_CHECK_H

#include "error.h"

/*
 * 0 if path looks like whole CTF 1.8 metadata; else -1 and *error says
 * why ("PATH: truncated metadata packet at byte N", DT_ERROR_INPUT;
 * DT_ERROR_IO if it cannot be read).
 */
int dt_ctf_check_metadata(const char *path, GError **error);

#endif
