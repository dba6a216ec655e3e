/*
 * dt_metadata_retime and dt_metadata_hostname (collector/sync/retime.c): the
 * text metadata `dtracer merge` rewrites with each host's clock map. The
 * first 24 bytes are the map (offset in ns and drift as doubles, anchor),
 * the rest the metadata file. Checked: refusals say why; a rewritten
 * file is still CTF 1.8 text whose clocks can be rewritten again (with
 * the identity map).
 */
#include <math.h>

#include <glib.h>

#include "retime.h"

#include "fuzz.h"

static double take_double(struct fuzz_in *in)
{
	uint64_t bits = fuzz_take(in, 8);
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct dt_clock_map map, id = { 0, 0, 0 };
	const char *path;
	GError *error = NULL;
	char *once = NULL, *twice = NULL;
	int r;

	map.offset = take_double(&in);
	map.drift = take_double(&in);
	map.anchor = (int64_t)fuzz_take(&in, 8);
	path = fuzz_file("metadata", in.p, in.n);
	FUZZ_CHECK(path);
	g_free(dt_metadata_hostname(path));
	r = dt_metadata_retime(path, &map, &error);
	FUZZ_CHECK(r == 0 || r == -1);
	FUZZ_CHECK(r ? error && error->domain == DT_ERROR && *error->message :
		   !error);
	g_clear_error(&error);
	if (!r) {
		FUZZ_CHECK(g_file_get_contents(path, &once, NULL, NULL));
		FUZZ_CHECK(!strncmp(once, "/* CTF 1.8", 10));
		r = dt_metadata_retime(path, &id, &error);
		if (r)
			fprintf(stderr, "retimed file refused: %s\n",
				error->message);
		g_clear_error(&error);
		FUZZ_CHECK(r == 0);
		FUZZ_CHECK(g_file_get_contents(path, &twice, NULL, NULL));
		g_free(dt_metadata_hostname(path));
	}
	g_free(once);
	g_free(twice);
	unlink(path);
	return 0;
}
