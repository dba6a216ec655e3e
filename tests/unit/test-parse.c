/*
 * Unit tests of dtracer/parse.c, the very file the module builds: what a
 * write to /sys/distributed-tracer/probe accepts and refuses.
 */
#include <arpa/inet.h>
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

static int prefixes(const char *s, struct dt_prefix *p, size_t max)
{
	return dt_parse_prefixes(s, strlen(s), p, max);
}

/* s is one prefix: family, length and address as inet_pton reads ADDR. */
static void prefix_is(const char *s, int family, int bits, const char *addr)
{
	unsigned char want[16] = { 0 };
	struct dt_prefix p;
	int n = prefixes(s, &p, 1);

	inet_pton(family == 4 ? AF_INET : AF_INET6, addr, want);
	ok(n == 1 && p.family == family && p.bits == bits &&
	   !memcmp(p.addr, want, family == 4 ? 4 : 16),
	   "prefix \"%s\": IPv%d /%d", s, family, bits);
}

static void prefix_refused(const char *what, const char *s, size_t len)
{
	struct dt_prefix p[4];

	ok(dt_parse_prefixes(s, len, p, 4) == -EINVAL, "prefix list refuses %s", what);
}

/*
 * An address alone (no '/') is accepted exactly when inet_pton accepts
 * it, with the same bytes.
 */
static void same_as_inet_pton(const char *s)
{
	unsigned char want[16];
	struct dt_prefix p;
	int family = strchr(s, ':') ? AF_INET6 : AF_INET;
	int theirs = inet_pton(family, s, want) == 1;
	int n = dt_parse_prefixes(s, strlen(s), &p, 1);

	ok(theirs ? n == 1 && !memcmp(p.addr, want, family == AF_INET ? 4 : 16) :
		    n == -EINVAL,
	   "address \"%s\": %s, as inet_pton", s, theirs ? "accepted" : "refused");
}

static bool matches(const char *prefix, const char *addr)
{
	unsigned char a[16];
	struct dt_prefix p;
	int v6 = strchr(addr, ':') != NULL;

	if (prefixes(prefix, &p, 1) != 1 || inet_pton(v6 ? AF_INET6 : AF_INET, addr, a) != 1)
		return false;
	return dt_prefix_match(&p, v6 ? 6 : 4, a);
}

static void test_prefixes(void)
{
	static const char *const pton[] = {
		"0.0.0.0", "255.255.255.255", "192.0.2.1", "1.2.3", "1.2.3.4.5",
		"01.2.3.4", "1.2.3.04", "256.1.1.1", "1..2.3", ".1.2.3", "1.2.3.",
		"0x1.2.3.4", "::", "::1", "1::", "1::2", ":1", "1:",
		":::", "1:::2", "1::2::3", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9",
		"1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "1:2:3:4::5:6:7:8",
		"12345::", "ffff::", "FFFF::AbCd", "::ffff:192.0.2.1",
		"::192.0.2.1", "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4",
		"1:2:3:4:5::1.2.3.4", "::1.2.3", "::1.2.3.04", "::1.2.3.4:1",
		"1.2.3.4::", "::g", "2001:db8::", "fe80::1%eth0", "::.1.2.3",
	};
	struct dt_prefix p[4];
	size_t i;

	for (i = 0; i < sizeof(pton) / sizeof(pton[0]); i++)
		same_as_inet_pton(pton[i]);

	prefix_is("192.0.2.0/24", 4, 24, "192.0.2.0");
	prefix_is("192.0.2.7", 4, 32, "192.0.2.7");
	prefix_is("0.0.0.0/0", 4, 0, "0.0.0.0");
	prefix_is("10.128.0.0/9", 4, 9, "10.128.0.0");
	prefix_is("2001:db8::/64", 6, 64, "2001:db8::");
	prefix_is("::1", 6, 128, "::1");
	prefix_is("::/0", 6, 0, "::");
	prefix_is("fe80::/10", 6, 10, "fe80::");
	prefix_is("::ffff:192.0.2.0/120", 6, 120, "::ffff:192.0.2.0");
	prefix_is("127.0.0.0/08", 4, 8, "127.0.0.0");

	ok(prefixes("127.0.0.0/8 ::1/128", p, 4) == 2 && p[0].family == 4 &&
	   p[1].family == 6, "prefix list: two prefixes");
	ok(prefixes(" 10.0.0.0/8,\t2001:db8::/32\n,,192.0.2.1 \n", p, 4) == 3 &&
	   p[2].bits == 32, "prefix list: spaces, tabs, newlines and commas separate");
	ok(prefixes("", p, 4) == 0, "prefix list: an empty write is the empty list");
	ok(prefixes("\n", p, 4) == 0, "prefix list: a lone newline is the empty list");
	ok(prefixes("1.0.0.0/8 2.0.0.0/8 3.0.0.0/8", p, 2) == -E2BIG,
	   "prefix list: more prefixes than room is refused (E2BIG)");

	prefix_refused("host bits after the prefix (IPv4)", "192.0.2.1/24", 12);
	prefix_refused("host bits after the prefix (IPv6)", "2001:db8::1/64", 14);
	prefix_refused("one host bit in a partial byte", "10.192.0.0/9", 12);
	prefix_refused("/33", "10.0.0.0/33", 11);
	prefix_refused("/129", "::/129", 6);
	prefix_refused("an empty length", "10.0.0.0/", 9);
	prefix_refused("a negative length", "10.0.0.0/-8", 11);
	prefix_refused("a length with letters", "10.0.0.0/8a", 11);
	prefix_refused("two slashes", "10.0.0.0/8/8", 12);
	prefix_refused("a lone slash", "/8", 2);
	prefix_refused("a host name", "localhost", 9);
	prefix_refused("a good prefix then garbage", "10.0.0.0/8 x", 12);
	prefix_refused("a NUL in an address", "10.0.0.0\0/8", 11);
	prefix_refused("a semicolon separator", "10.0.0.0/8;::1", 14);
	prefix_refused("a zone index", "fe80::1%1", 9);

	ok(matches("192.0.2.0/24", "192.0.2.200"), "match: 192.0.2.200 in 192.0.2.0/24");
	ok(!matches("192.0.2.0/24", "192.0.3.1"), "match: 192.0.3.1 not in 192.0.2.0/24");
	ok(matches("10.128.0.0/9", "10.255.1.1"), "match: 10.255.1.1 in 10.128.0.0/9");
	ok(!matches("10.128.0.0/9", "10.127.1.1"), "match: 10.127.1.1 not in 10.128.0.0/9");
	ok(matches("0.0.0.0/0", "203.0.113.9"), "match: /0 holds every IPv4 address");
	ok(!matches("0.0.0.0/0", "::1"), "match: an IPv4 prefix never holds an IPv6 address");
	ok(!matches("::/0", "127.0.0.1"), "match: an IPv6 prefix never holds an IPv4 address");
	ok(!matches("::ffff:0.0.0.0/96", "127.0.0.1"),
	   "match: an IPv4-mapped prefix does not hold the IPv4 address itself");
	ok(matches("2001:db8::/64", "2001:db8::c"), "match: 2001:db8::c in 2001:db8::/64");
	ok(!matches("2001:db8::/64", "2001:db8:0:1::c"), "match: 2001:db8:0:1::c not in 2001:db8::/64");
	ok(matches("fe80::/10", "febf::1") && !matches("fe80::/10", "fec0::1"),
	   "match: /10 splits a byte");
	ok(matches("192.0.2.7", "192.0.2.7") && !matches("192.0.2.7", "192.0.2.6"),
	   "match: a bare address is one host");
}

int main(void)
{
	test_tids();
	test_uint();
	test_prefixes();

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
