/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsers of what users write to /sys/distributed-tracer/. Plain C with
 * no kernel dependency, so that the userspace unit tests and fuzzers
 * build this very file.
 */
#ifndef _DTRACER_PARSE_H
#define _DTRACER_PARSE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <errno.h>
#endif

#define DT_PREFIXES_MAX 32	/* prefixes in one list */

/*
 * A switch: exactly "0" or "1", optionally followed by one newline.
 * Returns 0 and sets *on, or -EINVAL (and leaves *on alone).
 */
int dt_parse_switch(const char *buf, size_t len, bool *on);

/*
 * A decimal number in [min, max], optionally followed by one newline;
 * no sign, no spaces. Returns 0 and sets *val, or -EINVAL (and leaves
 * *val alone).
 */
int dt_parse_uint(const char *buf, size_t len, unsigned int min,
		  unsigned int max, unsigned int *val);

/*
 * A list of thread ids: decimal numbers from 1 to 2^31 - 1 separated by
 * spaces, tabs or newlines (leading and trailing ones allowed). Returns
 * the number of ids stored in ids[0..max), or -EINVAL if the list is
 * empty, has anything else in it (signs, letters, NULs, overflow, 0) or
 * holds more than max ids. ids may be written to even on failure.
 */
int dt_parse_tids(const char *buf, size_t len, int *ids, size_t max);

/*
 * An address prefix: the first "bits" bits of addr. mask has those bits
 * set (and no other), so that a match compares four bytes at a time.
 */
struct dt_prefix {
	unsigned char family;		/* 4 or 6 */
	unsigned char bits;		/* 0-32 or 0-128 */
	unsigned char addr[16];		/* network order; IPv4: addr[0..3] */
	unsigned char mask[16];		/* the prefix's bits of addr */
};

/*
 * A list of address prefixes, "ADDRESS[/BITS]" each, separated by spaces,
 * tabs, newlines or commas (leading and trailing ones allowed). ADDRESS
 * is an IPv4 or IPv6 address in the text forms inet_pton(3) accepts
 * (dotted quad without leading zeros; IPv6 with at most one "::" and an
 * optional dotted-quad tail); BITS is 0-32 or 0-128 and defaults to the
 * whole address; the bits after the prefix must be zero. Returns the
 * number of prefixes stored in out[0..max) (0 for an empty list), -EINVAL
 * if anything in the list is not such a prefix, or -E2BIG if it holds
 * more than max. out may be written to even on failure.
 */
int dt_parse_prefixes(const char *buf, size_t len, struct dt_prefix *out,
		      size_t max);

/*
 * Whether addr (4 or 16 bytes, network order, of the given family: 4 or
 * 6) starts with prefix p. A prefix never matches the other family.
 * Inline: the ingress hook asks it for every trusted prefix of every
 * marked segment. Four bytes at a time, only as far as the prefix goes.
 */
static inline bool dt_prefix_match(const struct dt_prefix *p,
				   unsigned char family,
				   const unsigned char *addr)
{
	unsigned int k, a, b, m;	/* 4 bytes on every Linux ABI */

	if (p->family != family)
		return false;
	for (k = 0; k * 8 < p->bits; k += sizeof(a)) {
		memcpy(&a, addr + k, sizeof(a));
		memcpy(&b, p->addr + k, sizeof(b));
		memcpy(&m, p->mask + k, sizeof(m));
		if ((a ^ b) & m)
			return false;
	}
	return true;
}

#endif /* _DTRACER_PARSE_H */
