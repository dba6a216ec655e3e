/*
 * dt_parse_switch (dtracer/parse.c, the file the module builds): what a
 * write to /sys/distributed-tracer/probe or inherit accepts. Checked
 * against the rule of parse.h: exactly "0" or "1", then at most one
 * newline; on refusal the value is left alone.
 */
#include "parse.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	size_t len = size && buf[size - 1] == '\n' ? size - 1 : size;
	int want = len == 1 && (buf[0] == '0' || buf[0] == '1');
	bool on = size & 1;
	bool before = on;
	int r = dt_parse_switch(buf, size, &on);

	FUZZ_CHECK(r == 0 || r == -EINVAL);
	FUZZ_CHECK((r == 0) == want);
	FUZZ_CHECK(r ? on == before : on == (buf[0] == '1'));
	return 0;
}
