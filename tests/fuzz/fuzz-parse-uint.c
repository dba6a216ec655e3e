/*
 * dt_parse_uint (dtracer/parse.c, the file the module builds): the
 * numbers written to /sys/distributed-tracer/max_threads and friends.
 * The first 8 bytes are the bounds (min, max), the rest the text;
 * checked against a plain reading of parse.h's rule: digits only, at
 * most one trailing newline, in [min, max]; refused: value left alone.
 */
#include "parse.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	unsigned int min = (unsigned int)fuzz_take(&in, 4);
	unsigned int max = (unsigned int)fuzz_take(&in, 4);
	const char *buf = (const char *)in.p;
	size_t len = in.n, digits = len;
	unsigned long long v = 0;
	unsigned int val = 0xdeadbeef;
	int want, r;

	if (digits && buf[digits - 1] == '\n')
		digits--;
	want = digits > 0;
	for (size_t i = 0; i < digits && want; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			want = 0;
		else if ((v = v * 10 + (unsigned)(buf[i] - '0')) > max)
			want = 0;
	}
	want = want && v >= min;
	r = dt_parse_uint(buf, len, min, max, &val);
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	FUZZ_CHECK((r == 0) == want);
	FUZZ_CHECK(r ? val == 0xdeadbeef : val == v);
	return 0;
}
