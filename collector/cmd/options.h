/*
 * The commands' options: each command's table of them, and the one
 * parse of a table (getopt_long underneath, its short and long forms
 * built from the table), and the values more than one command takes.
 */
#ifndef DT_COLLECTOR_OPTIONS_H
#define DT_COLLECTOR_OPTIONS_H

#include <getopt.h>
#include <stdint.h>

/*
 * One option: --NAME, and -KEY too if letter; its value none, required
 * or optional (getopt's no_argument, required_argument,
 * optional_argument). dt_opts_next() returns KEY for it. A table ends
 * with a NULL name.
 */
struct dt_option {
	const char *name;
	int arg;
	int key;
	int letter;
};

#define DT_OPTS_MAX 12	/* options in a table, at the most */

/* One command line's parse. */
struct dt_opts {
	const char *cmd;	/* "merge": messages say "dtracer merge: " */
	int argc;
	char **argv;
	const char *arg;	/* the last option's value; NULL if none */
	int ind;		/* the next word; at the end, the first operand */
	struct option longopts[DT_OPTS_MAX + 1];
	char shortopts[2 + 3 * DT_OPTS_MAX + 1];
};

/*
 * Start parsing argv (argv[0] is the command's name) by table. mode:
 * getopt's leading characters: "" (options anywhere, argv permuted so
 * that the operands come last), "+" (options end at the first operand),
 * ":" (a missing value returned as ':', not '?').
 */
void dt_opts_start(struct dt_opts *o, const char *cmd, const char *mode,
		   const struct dt_option *table, int argc, char **argv);
/*
 * The next option's key (its value in o->arg), or -1 at the end (the
 * operands from o->ind); '?' for an unknown option or (without ":") a
 * missing value, ':' for a missing value (with ":").
 */
int dt_opts_next(struct dt_opts *o);
/* The word the last option came in (the option itself, or its value). */
const char *dt_opts_word(const struct dt_opts *o);
/* Say "dtracer CMD: unknown option or missing argument: WORD". */
void dt_opts_bad(const struct dt_opts *o);

/* "50ms", "1.5s", "800us", "20000ns" -> ns; 0 if not that. */
uint64_t dt_parse_duration(const char *s);

#endif
