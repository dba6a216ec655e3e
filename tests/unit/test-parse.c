/*
 * Unit tests of dtracer/parse.c, the very file the module builds: what a
 * write to /sys/distributed-tracer/probe accepts and refuses.
 */
#include <string.h>

#include "parse.h"
#include "tap.h"

static int parse(const char *s, bool *on)
{
	return dt_parse_switch(s, strlen(s), on);
}

static void accepted(const char *s, bool want)
{
	bool on = !want;
	int ret = parse(s, &on);

	ok(ret == 0 && on == want, "switch accepts \"%s\" as %d",
	   s[0] == '\n' ? "\\n" : s, want);
}

static void refused(const char *what, const char *s, size_t len)
{
	bool on = true;
	int ret = dt_parse_switch(s, len, &on);

	ok(ret == -EINVAL && on, "switch refuses %s and leaves the value alone",
	   what);
}

int main(void)
{
	accepted("0", false);
	accepted("1", true);
	accepted("0\n", false);
	accepted("1\n", true);

	refused("an empty write", "", 0);
	refused("a lone newline", "\n", 1);
	refused("2", "2", 1);
	refused("abc", "abc", 3);
	refused("\"10\"", "10", 2);
	refused("\"01\"", "01", 2);
	refused("two newlines", "1\n\n", 3);
	refused("a leading space", " 1", 2);
	refused("a trailing space", "1 ", 2);
	refused("a NUL after the digit", "1\0", 2);
	refused("\"-1\"", "-1", 2);
	refused("\"y\" (kstrtobool would take it)", "y", 1);
	refused("\"on\"", "on", 2);
	return tap_done();
}
