/*
 * dt_parse_tids (dtracer/parse.c, the file the module builds): the lists
 * written to /sys/distributed-tracer/add_pid and remove_pid. The first
 * byte is the room given (0 to 15 ids), the rest the text. Checked
 * against a plain reading of parse.h's rule: ids 1 to 2^31 - 1 between
 * spaces, tabs or newlines, at least one, at most the room given.
 */
#include <limits.h>

#include "parse.h"

#include "fuzz.h"

#define ROOM 16

/* The reference reading: the number of ids, or -1. */
static int reference(const char *buf, size_t len, int *ids, size_t max)
{
	size_t i = 0, n = 0;

	for (;;) {
		unsigned long long v = 0;
		size_t start;

		while (i < len && (buf[i] == ' ' || buf[i] == '\t' ||
				   buf[i] == '\n'))
			i++;
		if (i == len)
			return n ? (int)n : -1;
		for (start = i; i < len && buf[i] >= '0' && buf[i] <= '9'; i++)
			if ((v = v * 10 + (unsigned)(buf[i] - '0')) > INT_MAX)
				return -1;
		if (i == start || !v || n == max)
			return -1;
		if (i < len && buf[i] != ' ' && buf[i] != '\t' &&
		    buf[i] != '\n')
			return -1;
		ids[n++] = (int)v;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	size_t max = fuzz_take(&in, 1) % ROOM;
	int ids[ROOM], want[ROOM];
	int r = dt_parse_tids((const char *)in.p, in.n, ids, max);
	int w = reference((const char *)in.p, in.n, want, max);

	FUZZ_CHECK(r == -EINVAL || (r >= 1 && (size_t)r <= max));
	FUZZ_CHECK(r < 0 ? w < 0 : w == r);
	for (int i = 0; i < r; i++)
		FUZZ_CHECK(ids[i] == want[i] && ids[i] > 0);
	return 0;
}
