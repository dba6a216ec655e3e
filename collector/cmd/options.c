/*
 * The commands' options (options.h): a table into getopt_long's two
 * forms, the loop's messages, and DURATION.
 */
#define _GNU_SOURCE
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dt_opts_start(struct dt_opts *o, const char *cmd, const char *mode,
		   const struct dt_option *table, int argc, char **argv)
{
	char *s = o->shortopts;
	int i;

	o->cmd = cmd;
	o->argc = argc;
	o->argv = argv;
	o->arg = NULL;
	s = stpcpy(s, mode);
	for (i = 0; i < DT_OPTS_MAX && table[i].name; i++) {
		o->longopts[i] = (struct option){ table[i].name, table[i].arg,
						  NULL, table[i].key };
		if (!table[i].letter)
			continue;
		*s++ = (char)table[i].key;
		if (table[i].arg != no_argument)
			*s++ = ':';
		if (table[i].arg == optional_argument)
			*s++ = ':';
	}
	/* A longer table is the program's error, never a silent cut. */
	if (i == DT_OPTS_MAX && table[i].name) {
		fprintf(stderr, "dtracer %s: more than %d options in its table\n",
			cmd, DT_OPTS_MAX);
		abort();
	}
	*s = '\0';
	o->longopts[i] = (struct option){ NULL, 0, NULL, 0 };
	opterr = 0;
	optind = 1;
	o->ind = optind;
}

int dt_opts_next(struct dt_opts *o)
{
	int c = getopt_long(o->argc, o->argv, o->shortopts, o->longopts, NULL);

	o->arg = optarg;
	o->ind = optind;
	return c;
}

const char *dt_opts_word(const struct dt_opts *o)
{
	return o->argv[o->ind - 1];
}

void dt_opts_bad(const struct dt_opts *o)
{
	fprintf(stderr, "dtracer %s: unknown option or missing argument: %s\n",
		o->cmd, dt_opts_word(o));
}

uint64_t dt_parse_duration(const char *s)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || *s == '-' || *s == '+')
		return 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit) && v * units[i].ns >= 1 &&
		    v * units[i].ns < 1e18)
			return (uint64_t)(v * units[i].ns + 0.5);
	return 0;
}
