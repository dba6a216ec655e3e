// SPDX-License-Identifier: GPL-2.0
/*
 * Parsers of sysfs input, shared with userspace tests (see parse.h).
 */
#include "parse.h"

int dt_parse_switch(const char *buf, size_t len, bool *on)
{
	if (len == 2 && buf[1] == '\n')
		len = 1;
	if (len != 1 || (buf[0] != '0' && buf[0] != '1'))
		return -EINVAL;
	*on = buf[0] == '1';
	return 0;
}

static bool dt_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool dt_is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/*
 * Reads the digits at buf[*pos..len) into *val, refusing values above
 * max. Returns 0 or -EINVAL (no digit, or too large).
 */
static int dt_parse_digits(const char *buf, size_t len, size_t *pos,
			   unsigned int max, unsigned int *val)
{
	unsigned long long v = 0;
	size_t i = *pos;

	if (i >= len || !dt_is_digit(buf[i]))
		return -EINVAL;
	for (; i < len && dt_is_digit(buf[i]); i++) {
		v = v * 10 + (unsigned int)(buf[i] - '0');
		if (v > max)
			return -EINVAL;
	}
	*pos = i;
	*val = (unsigned int)v;
	return 0;
}

int dt_parse_uint(const char *buf, size_t len, unsigned int min,
		  unsigned int max, unsigned int *val)
{
	unsigned int v;
	size_t pos = 0;

	if (len && buf[len - 1] == '\n')
		len--;
	if (dt_parse_digits(buf, len, &pos, max, &v) || pos != len || v < min)
		return -EINVAL;
	*val = v;
	return 0;
}

int dt_parse_tids(const char *buf, size_t len, int *ids, size_t max)
{
	size_t pos = 0, n = 0;
	unsigned int v;

	for (;;) {
		while (pos < len && dt_is_sep(buf[pos]))
			pos++;
		if (pos == len)
			break;
		if (n == max)
			return -EINVAL;
		if (dt_parse_digits(buf, len, &pos, 0x7fffffff, &v) || !v)
			return -EINVAL;
		if (pos < len && !dt_is_sep(buf[pos]))
			return -EINVAL;
		ids[n++] = (int)v;
	}
	return n ? (int)n : -EINVAL;
}

static bool dt_is_list_sep(char c)
{
	return dt_is_sep(c) || c == ',';
}

static int dt_hex_value(char c)
{
	if (dt_is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The mask of the byte starting at bit at, in a prefix of length bits. */
static unsigned char dt_prefix_mask(unsigned int bits, unsigned int at)
{
	if (bits >= at + 8)
		return 0xff;
	if (bits <= at)
		return 0;
	return (0xff << (8 - (bits - at))) & 0xff;
}

/* inet_pton's dotted quad: four numbers 0-255, no leading zeros. */
static bool dt_parse_ipv4(const char *s, size_t len, unsigned char *out)
{
	unsigned char tmp[4] = { 0 };
	unsigned int parts = 0, v = 0;
	bool digit = false;
	size_t i;

	for (i = 0; i < len; i++) {
		if (dt_is_digit(s[i])) {
			if (digit && !v)
				return false;
			v = v * 10 + (unsigned int)(s[i] - '0');
			if (v > 255)
				return false;
			if (!digit && ++parts > 4)
				return false;
			digit = true;
			tmp[parts - 1] = (unsigned char)v;
		} else if (s[i] == '.' && digit && parts < 4) {
			digit = false;
			v = 0;
		} else {
			return false;
		}
	}
	if (parts < 4)
		return false;
	for (i = 0; i < 4; i++)
		out[i] = tmp[i];
	return true;
}

/*
 * inet_pton's IPv6 text: groups of 1-4 hex digits separated by ':', at
 * most one "::" standing for one or more zero groups, and an optional
 * dotted quad as the last 32 bits.
 */
static bool dt_parse_ipv6(const char *s, size_t len, unsigned char *out)
{
	unsigned char tmp[16] = { 0 };
	unsigned int tp = 0, val = 0, xdigits = 0, n, k;
	size_t i = 0, tok;
	int colon = -1, d;

	if (len && s[0] == ':') {
		if (len < 2 || s[1] != ':')
			return false;
		i = 1;
	}
	for (tok = i; i < len;) {
		char c = s[i++];

		d = dt_hex_value(c);
		if (d >= 0) {
			if (xdigits == 4)
				return false;
			val = val << 4 | (unsigned int)d;
			xdigits++;
		} else if (c == ':') {
			tok = i;
			if (!xdigits) {
				if (colon >= 0)
					return false;
				colon = (int)tp;
				continue;
			}
			if (i == len || tp + 2 > 16)
				return false;
			tmp[tp++] = (unsigned char)(val >> 8);
			tmp[tp++] = (unsigned char)val;
			xdigits = 0;
			val = 0;
		} else {
			/* Only a dotted quad may follow, up to the end. */
			if (c != '.' || tp + 4 > 16 ||
			    !dt_parse_ipv4(s + tok, len - tok, tmp + tp))
				return false;
			tp += 4;
			xdigits = 0;
			break;
		}
	}
	if (xdigits) {
		if (tp + 2 > 16)
			return false;
		tmp[tp++] = (unsigned char)(val >> 8);
		tmp[tp++] = (unsigned char)val;
	}
	if (colon >= 0) {
		if (tp == 16)
			return false;
		/* Slide the groups after "::" to the end; zeros between. */
		n = tp - (unsigned int)colon;
		for (k = 1; k <= n; k++) {
			tmp[16 - k] = tmp[tp - k];
			tmp[tp - k] = 0;
		}
		tp = 16;
	}
	if (tp != 16)
		return false;
	for (k = 0; k < 16; k++)
		out[k] = tmp[k];
	return true;
}

/* One "ADDRESS[/BITS]" in buf[0..len). */
static int dt_parse_prefix(const char *buf, size_t len, struct dt_prefix *p)
{
	size_t alen = 0, pos, k;
	unsigned int bits, max, size;
	bool v6 = false;

	while (alen < len && buf[alen] != '/')
		v6 |= buf[alen++] == ':';
	if (v6 ? !dt_parse_ipv6(buf, alen, p->addr) :
		 !dt_parse_ipv4(buf, alen, p->addr))
		return -EINVAL;
	p->family = v6 ? 6 : 4;
	size = v6 ? 16 : 4;
	max = size * 8;
	bits = max;
	if (alen < len) {
		pos = alen + 1;
		if (dt_parse_digits(buf, len, &pos, max, &bits) || pos != len)
			return -EINVAL;
	}
	p->bits = (unsigned char)bits;
	for (k = 0; k < 16; k++)
		p->mask[k] = k < size ? dt_prefix_mask(bits, (unsigned int)k * 8) : 0;
	for (k = 0; k < size; k++)
		if (p->addr[k] & ~p->mask[k])
			return -EINVAL;
	return 0;
}

int dt_parse_prefixes(const char *buf, size_t len, struct dt_prefix *out,
		      size_t max)
{
	size_t pos = 0, end, n = 0;

	for (;;) {
		while (pos < len && dt_is_list_sep(buf[pos]))
			pos++;
		if (pos == len)
			break;
		for (end = pos; end < len && !dt_is_list_sep(buf[end]); end++)
			;
		if (n == max)
			return -E2BIG;
		if (dt_parse_prefix(buf + pos, end - pos, &out[n]))
			return -EINVAL;
		n++;
		pos = end;
	}
	return (int)n;
}

