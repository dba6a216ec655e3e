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

#endif /* _DTRACER_PARSE_H */
