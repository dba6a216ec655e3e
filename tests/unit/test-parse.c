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

static int tids(const char *s, int *ids, size_t max)
{
	return dt_parse_tids(s, strlen(s), ids, max);
}

static void tids_refused(const char *what, const char *s, size_t len)
{
	int ids[8];

	ok(dt_parse_tids(s, len, ids, 8) == -EINVAL, "tid list refuses %s", what);
}

static void test_tids(void)
{
	int ids[8];

	ok(tids("42", ids, 8) == 1 && ids[0] == 42, "tid list: one id");
	ok(tids("42\n", ids, 8) == 1 && ids[0] == 42, "tid list: one id and a newline");
	ok(tids("1 22\n333\t4444 ", ids, 8) == 4 && ids[0] == 1 &&
	   ids[1] == 22 && ids[2] == 333 && ids[3] == 4444,
	   "tid list: spaces, newlines and tabs separate ids");
	ok(tids("  7\n\n", ids, 8) == 1 && ids[0] == 7,
	   "tid list: leading and repeated separators");
	ok(tids("2147483647", ids, 8) == 1 && ids[0] == 2147483647,
	   "tid list: 2^31 - 1 is the largest id");
	ok(tids("007", ids, 8) == 1 && ids[0] == 7, "tid list: leading zeros");
	ok(tids("1 2 3", ids, 2) == -EINVAL, "tid list: more ids than room is refused");
	tids_refused("an empty write", "", 0);
	tids_refused("only separators", " \n", 2);
	tids_refused("a negative id", "-1", 2);
	tids_refused("a plus sign", "+5", 2);
	tids_refused("0", "0", 1);
	tids_refused("2^31", "2147483648", 10);
	tids_refused("a 20-digit number", "99999999999999999999", 20);
	tids_refused("letters", "abc", 3);
	tids_refused("a number with letters", "12a", 3);
	tids_refused("commas", "1,2", 3);
	tids_refused("a good id then garbage", "12 x", 4);
	tids_refused("a good id then a negative one", "12 -1", 5);
	tids_refused("a NUL after an id", "12\0", 3);
	tids_refused("a carriage return", "12\r\n", 4);
}

static void test_uint(void)
{
	unsigned int v = 5;

	ok(dt_parse_uint("64", 2, 1, 100, &v) == 0 && v == 64, "number: 64");
	ok(dt_parse_uint("100\n", 4, 1, 100, &v) == 0 && v == 100,
	   "number: the maximum, with a newline");
	v = 5;
	ok(dt_parse_uint("101", 3, 1, 100, &v) == -EINVAL && v == 5,
	   "number: above the maximum is refused");
	ok(dt_parse_uint("0", 1, 1, 100, &v) == -EINVAL && v == 5,
	   "number: below the minimum is refused");
	ok(dt_parse_uint("", 0, 1, 100, &v) == -EINVAL, "number: empty is refused");
	ok(dt_parse_uint("\n", 1, 1, 100, &v) == -EINVAL, "number: a lone newline is refused");
	ok(dt_parse_uint("-1", 2, 1, 100, &v) == -EINVAL, "number: negative is refused");
	ok(dt_parse_uint("1 ", 2, 1, 100, &v) == -EINVAL, "number: a trailing space is refused");
	ok(dt_parse_uint("99999999999", 11, 1, 100, &v) == -EINVAL && v == 5,
	   "number: overflow is refused");
}

int main(void)
{
	test_tids();
	test_uint();

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
