/*
 * dt-retime METADATA OFFSET_NS DRIFT_PPM ANCHOR_NS: apply the clock map
 * t' = t + OFFSET + DRIFT * (t - ANCHOR) to a text CTF trace's clocks
 * (collector/sync/retime.c). The ground-truth test shifts a host with it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "retime.h"

static int number(const char *s, long double *v)
{
	char *end;

	errno = 0;
	*v = strtold(s, &end);
	return errno || end == s || *end;
}

int main(int argc, char **argv)
{
	struct dt_clock_map m;
	long double off, ppm, anchor;
	GError *error = NULL;

	if (argc != 5 || number(argv[2], &off) || number(argv[3], &ppm) ||
	    number(argv[4], &anchor)) {
		fprintf(stderr, "usage: dt-retime METADATA OFFSET_NS DRIFT_PPM ANCHOR_NS\n");
		return 2;
	}
	m.offset = off;
	m.drift = ppm / 1e6L;
	m.anchor = (int64_t)anchor;
	if (dt_metadata_retime(argv[1], &m, &error)) {
		dt_error_print("dt-retime", error);
		return 1;
	}
	return 0;
}
