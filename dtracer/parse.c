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
