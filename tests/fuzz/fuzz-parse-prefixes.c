/*
 * dt_parse_prefixes and dt_prefix_match (dtracer/parse.c, the file the
 * module builds): the lists written to /sys/distributed-tracer/trust.
 * The first byte is the room given (0 to 7 prefixes), the rest the text.
 * Checked against a reading built on glibc's inet_pton: each prefix's
 * address is what inet_pton makes of it, its length in range, its host
 * bits zero; and every parsed prefix matches its own address, not one
 * with a bit of the prefix flipped, and does one with a host bit flipped.
 */
#include <arpa/inet.h>

#include "parse.h"

#include "fuzz.h"

#define ROOM 8

static int is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ',';
}

/* One "ADDRESS[/BITS]" by inet_pton; 0 if it is a prefix. */
static int reference_one(const char *s, size_t len, struct dt_prefix *p)
{
	char text[64];
	size_t alen = 0, i;
	unsigned long bits;
	int v6;

	if (memchr(s, '\0', len))
		return -1;
	while (alen < len && s[alen] != '/')
		alen++;
	if (alen >= sizeof(text))
		return -1;
	memcpy(text, s, alen);
	text[alen] = '\0';
	v6 = strchr(text, ':') != NULL;
	memset(p, 0, sizeof(*p));
	if (inet_pton(v6 ? AF_INET6 : AF_INET, text, p->addr) != 1)
		return -1;
	p->family = v6 ? 6 : 4;
	bits = v6 ? 128 : 32;
	if (alen < len) {
		if (alen + 1 == len)
			return -1;
		bits = 0;
		for (i = alen + 1; i < len; i++) {
			if (s[i] < '0' || s[i] > '9')
				return -1;
			bits = bits * 10 + (unsigned long)(s[i] - '0');
			if (bits > (v6 ? 128u : 32u))
				return -1;
		}
	}
	p->bits = (unsigned char)bits;
	for (i = 0; i < (v6 ? 128u : 32u); i++)
		if (i >= bits && p->addr[i / 8] & (0x80 >> (i % 8)))
			return -1;
	return 0;
}

static int reference(const char *buf, size_t len, struct dt_prefix *out,
		     size_t max)
{
	size_t pos = 0, end, n = 0;

	for (;;) {
		while (pos < len && is_sep(buf[pos]))
			pos++;
		if (pos == len)
			return (int)n;
		for (end = pos; end < len && !is_sep(buf[end]); end++)
			;
		if (n == max)
			return -E2BIG;
		if (reference_one(buf + pos, end - pos, &out[n]))
			return -EINVAL;
		n++;
		pos = end;
	}
}

static void check_match(const struct dt_prefix *p)
{
	unsigned char a[16];
	unsigned int total = p->family == 4 ? 32 : 128, bit;

	memcpy(a, p->addr, sizeof(a));
	FUZZ_CHECK(dt_prefix_match(p, p->family, a));
	FUZZ_CHECK(!dt_prefix_match(p, p->family == 4 ? 6 : 4, a));
	if (p->bits) {
		bit = (unsigned int)(a[0] + a[total / 8 - 1]) % p->bits;
		a[bit / 8] ^= 0x80 >> (bit % 8);
		FUZZ_CHECK(!dt_prefix_match(p, p->family, a));
		a[bit / 8] ^= 0x80 >> (bit % 8);
	}
	if (p->bits < total) {
		bit = p->bits + (unsigned int)a[1] % (total - p->bits);
		a[bit / 8] ^= 0x80 >> (bit % 8);
		FUZZ_CHECK(dt_prefix_match(p, p->family, a));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	size_t max = fuzz_take(&in, 1) % ROOM;
	struct dt_prefix got[ROOM], want[ROOM];
	int r = dt_parse_prefixes((const char *)in.p, in.n, got, max);
	int w = reference((const char *)in.p, in.n, want, max);

	FUZZ_CHECK(r == w);
	for (int i = 0; i < r; i++) {
		FUZZ_CHECK(got[i].family == want[i].family);
		FUZZ_CHECK(got[i].bits == want[i].bits);
		FUZZ_CHECK(!memcmp(got[i].addr, want[i].addr,
				   got[i].family == 4 ? 4 : 16));
		check_match(&got[i]);
	}
	return 0;
}
