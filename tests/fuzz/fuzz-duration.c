/*
 * dt_parse_duration (collector/cmd/options.c): the DURATION of `dtracer record
 * --slower-than` and `dtracer requests --slower-than`. The input is the
 * argument's text (up to its first NUL). Checked: a duration is accepted
 * only with a unit at the end and no sign in front, and lies in
 * [1 ns, 1e18 ns].
 */
#include "options.h"

#include "fuzz.h"

static int ends_with(const char *s, size_t n, const char *unit)
{
	size_t u = strlen(unit);

	return n > u && !strcmp(s + n - u, unit);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	uint64_t ns;
	size_t n;

	FUZZ_CHECK(s);
	memcpy(s, data, size);
	s[size] = '\0';
	n = strlen(s);
	ns = dt_parse_duration(s);
	if (ns) {
		FUZZ_CHECK(ns <= 1000000000000000000ull);
		FUZZ_CHECK(s[0] != '-' && s[0] != '+');
		FUZZ_CHECK(ends_with(s, n, "s"));
	}
	free(s);
	return 0;
}
