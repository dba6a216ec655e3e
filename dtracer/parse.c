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
