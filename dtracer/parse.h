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
#else
#include <stdbool.h>
#include <stddef.h>
#include <errno.h>
#endif

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

#endif /* _DTRACER_PARSE_H */
