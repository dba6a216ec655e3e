/*
 * dtracer collect / record / stop: a thin layer over lttng-relayd and
 * the lttng command. Every command run is printed first ("+ lttng ..."),
 * so that what was configured can be repeated, or done with `lttng`
 * directly.
 */
#define _DEFAULT_SOURCE
#include "cmd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "options.h"

extern char **environ;

#define SYSFS "/sys/distributed-tracer"
#define RELAYD_CONTROL_PORT 5342
#define RELAYD_LIVE_PORT 5344

/* Run argv (searched in PATH), print it first unless quiet; exit code. */
static int run(char *const argv[], int quiet, int discard_output)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, err;

	if (!quiet) {
		fputs("+", stdout);
		for (int i = 0; argv[i]; i++)
			printf(" %s", argv[i]);
		putchar('\n');
		fflush(stdout);
	}
	posix_spawn_file_actions_init(&fa);
	if (discard_output) {
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	}
	err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		fprintf(stderr, "dtracer: cannot run %s: %s%s\n", argv[0],
			strerror(err), err == ENOENT ?
			" (Debian package: lttng-tools)" : "");
		return 127;
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 127;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Is something accepting connections on 127.0.0.1:port? */
static int listening(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return 0;
	ok = !connect(fd, (struct sockaddr *)&a, sizeof(a));
	close(fd);
	return ok;
}

/* ----- collect -------------------------------------------------------- */

static int valid_name(const char *s)
{
	if (!*s || strlen(s) > 200)
		return 0;
	for (; *s; s++)
		if (!(*s == '-' || *s == '_' || *s == '.' || *s == ':' ||
		      (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z')))
			return 0;
	return 1;
}

static const struct dt_option collect_options[] = {
	{ "output", required_argument, 'o', 1 },
	{ "live-address", required_argument, 'L', 0 },
	{ "help", no_argument, 'h', 1 },
	{ NULL, 0, 0, 0 },
};

int dt_cmd_collect(int argc, char **argv)
{
	char *args[7] = { "lttng-relayd", "-d" };
	char live[300];
	const char *out = NULL, *live_addr = NULL;
	struct dt_opts p;
	int c, n = 2;

	dt_opts_start(&p, "collect", "+", collect_options, argc, argv);
	while ((c = dt_opts_next(&p)) != -1) {
		if (c == 'o') {
			out = p.arg;
		} else if (c == 'L') {
			live_addr = p.arg;
			if (!valid_name(p.arg) || strchr(p.arg, ':')) {
				fprintf(stderr, "dtracer collect: --live-address: "
					"`%s` is not a host name or IPv4 "
					"address\n", p.arg);
				return 2;
			}
		} else if (c == 'h') {
			printf("usage: dtracer collect [-o DIR] [--live-address ADDR]\n"
			       "  Run lttng-relayd here unless one runs already; hosts then\n"
			       "  stream to it with `dtracer record --collector THIS-HOST`.\n"
			       "  Traces land in DIR/HOSTNAME/SESSION-DATE/ (relayd's layout;\n"
			       "  default DIR: relayd's, $LTTNG_HOME/lttng-traces).\n"
			       "  --live-address ADDR: the live port (%d, for `dtracer watch`)\n"
			       "  listens on ADDR (0.0.0.0: every interface) instead of relayd's\n"
			       "  default, this host only (localhost).\n", RELAYD_LIVE_PORT);
			return 0;
		} else {
			dt_opts_bad(&p);
			return 2;
		}
	}
	if (p.ind != argc) {
		fprintf(stderr, "dtracer collect: unexpected argument `%s`\n",
			argv[p.ind]);
		return 2;
	}
	if (listening(RELAYD_CONTROL_PORT)) {
		printf("lttng-relayd is already running here (port %d)%s%s\n",
		       RELAYD_CONTROL_PORT, out ?
		       "; -o ignored: its output directory is its own" : "",
		       live_addr ? "; --live-address ignored: its live port "
		       "is its own" : "");
		return 0;
	}
	if (out) {
		args[n++] = "-o";
		args[n++] = (char *)out;
	}
	if (live_addr) {
		snprintf(live, sizeof(live), "--live-port=tcp://%s:%d",
			 live_addr, RELAYD_LIVE_PORT);
		args[n++] = live;
	}
	if (run(args, 0, 0))
		return 1;
	for (int i = 0; i < 100 && !listening(RELAYD_CONTROL_PORT); i++)
		usleep(100000);
	if (!listening(RELAYD_CONTROL_PORT)) {
		fprintf(stderr, "dtracer collect: lttng-relayd started but does "
			"not listen on port %d\n", RELAYD_CONTROL_PORT);
		return 1;
	}
	printf("collecting%s%s; on each host: dtracer record --collector "
	       "<this host's address>\n", out ? " into " : "", out ? out : "");
	return 0;
}

/* ----- record --------------------------------------------------------- */

struct profile {
	const char *name;
	const char *const *events[5];	/* enable-event argument lists */
};

static const char *const ev_dtracer[] = { "-k", "dtracer_*", NULL };
static const char *const ev_sched[] = { "-k",
	"sched_switch,sched_wakeup,sched_waking,sched_process_fork,"
	"sched_process_exec,sched_process_exit", NULL };
static const char *const ev_syscalls[] = { "-k", "--syscall", "-a", NULL };
/* TCP headers of every segment: more samples for the clock alignment */
static const char *const ev_net[] = { "-k", "net_dev_queue,net_if_receive_skb",
				      NULL };
static const char *const ev_all[] = { "-k", "-a", NULL };

static const struct profile profiles[] = {
	{ "minimal", { ev_dtracer } },
	{ "default", { ev_dtracer, ev_sched, ev_syscalls, ev_net } },
	{ "full", { ev_all } },
};

static int lttng(const char *a, const char *b, const char *c, const char *d,
		 const char *e)
{
	char *argv[] = { "lttng", (char *)a, (char *)b, (char *)c, (char *)d,
			 (char *)e, NULL };

	return run(argv, 0, 0);
}

static int dtracer_probes_available(void)
{
	char *argv[] = { "sh", "-c",
		"lttng list -k 2>/dev/null | grep -q dtracer_mark_send", NULL };

	return run(argv, 1, 0) == 0;
}

static int sessiond_running(void)
{
	char *argv[] = { "pgrep", "-x", "lttng-sessiond", NULL };

	return run(argv, 1, 1) == 0;
}

static int start_sessiond(void)
{
	char *argv[] = { "env", "LTTNG_EXTRA_KMOD_PROBES=dtracer",
			 "lttng-sessiond", "-d", NULL };

	return run(argv, 0, 0);
}

static int write_gate(const char *mode)
{
	FILE *f = fopen(SYSFS "/gate", "w");
	int err;

	printf("+ echo %s > " SYSFS "/gate\n", mode);
	if (!f) {
		fprintf(stderr, "dtracer record: " SYSFS "/gate: %s\n",
			strerror(errno));
		return -1;
	}
	err = fputs(mode, f) < 0;
	err |= fclose(f) != 0;
	if (err) {
		fprintf(stderr, "dtracer record: " SYSFS "/gate: cannot set "
			"`%s`: %s\n", mode, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The flight recorder's triggers: LTTng's own (event notifiers, which
 * dtracer's gate does not filter). Two ends of a request fire them:
 *   dtracer-SESSION         a server's flag ends (dtracer_unflag of a
 *                           request's flag, request == 1);
 *   dtracer-SESSION-answer  a client reads an answer (dtracer_answer).
 * The client's own unflag (request == 0, e.g. remove_pid after many
 * requests) is no request's end and fires nothing.
 */
static const struct trigger {
	const char *suffix, *event, *filter;
} triggers[] = {
	{ "", "dtracer_unflag", "request == 1 && duration_ns >= %llu" },
	{ "-answer", "dtracer_answer", "duration_ns >= %llu" },
};
#define NTRIGGERS (sizeof(triggers) / sizeof(triggers[0]))

static void trigger_name(char *name, size_t len, const char *session,
			 const struct trigger *t)
{
	snprintf(name, len, "dtracer-%s%s", session, t->suffix);
}

/* Removes the first n triggers of session (those that were added). */
static void remove_triggers(const char *session, size_t n)
{
	char name[256];

	for (size_t i = 0; i < n; i++) {
		trigger_name(name, sizeof(name), session, &triggers[i]);
		lttng("remove-trigger", name, NULL, NULL, NULL);
	}
}

/* Adds every trigger, or none; returns how many were added. */
static size_t add_triggers(const char *session, uint64_t ns)
{
	char name[256], rule[64], fexpr[96], filter[112];
	char *argv[] = { "lttng", "add-trigger", "--name", name,
			 "--condition=event-rule-matches", "--type=kernel",
			 rule, filter, "--action=snapshot-session",
			 (char *)session, NULL };

	for (size_t i = 0; i < NTRIGGERS; i++) {
		const struct trigger *t = &triggers[i];

		trigger_name(name, sizeof(name), session, t);
		snprintf(rule, sizeof(rule), "--name=%s", t->event);
		snprintf(fexpr, sizeof(fexpr), t->filter,
			 (unsigned long long)ns);
		snprintf(filter, sizeof(filter), "--filter=%s", fexpr);
		if (run(argv, 0, 0)) {
			remove_triggers(session, i);
			return 0;
		}
	}
	return NTRIGGERS;
}

static int record_usage(FILE *f)
{
	fprintf(f, "usage: dtracer record --collector HOST [--session NAME] "
		"[--profile minimal|default|full] [--gate global|thread|off]\n"
		"       [--slower-than DURATION] [--subbuf-size SIZE] "
		"[--num-subbuf COUNT]\n"
		"       [--live[=PERIOD]]\n"
		"  Create an LTTng kernel session streaming to HOST's lttng-relayd\n"
		"  (lttng create --set-url=net://HOST), enable the profile's events\n"
		"  (minimal: dtracer's; default: + scheduling, system calls and\n"
		"  the network device queue/receive events with their TCP headers;\n"
		"  full: every kernel event), add the tid, pid and procname contexts\n"
		"  and start it. Needs dtracer.ko loaded; starts lttng-sessiond with\n"
		"  dtracer's probes if none runs. Session name default: dtracer.\n"
		"  --slower-than DURATION (e.g. 50ms, 1.5s; units ns, us, ms, s):\n"
		"  flight recorder: a snapshot session (lttng create --snapshot,\n"
		"  ring buffers overwritten in memory) and two LTTng triggers that\n"
		"  send a snapshot to HOST whenever a request took DURATION or more:\n"
		"  dtracer-NAME on a server (dtracer_unflag of a request's flag) and\n"
		"  dtracer-NAME-answer on a client (dtracer_answer).\n"
		"  --subbuf-size SIZE, --num-subbuf COUNT: the kernel channel's\n"
		"  ring buffers (per CPU; LTTng's default 4 x 1M), e.g. to keep a\n"
		"  longer past in a flight recorder's snapshots.\n"
		"  --live[=PERIOD]: a live session (lttng create --live): the\n"
		"  tracers flush to HOST at least every PERIOD (default 1s), so\n"
		"  that `dtracer watch HOST` follows it as it records. Not with\n"
		"  --slower-than: snapshots are not live.\n");
	return f == stdout ? 0 : 2;
}

/*
 * A sub-buffer size (digits, then k, M or G if unit) or count (digits):
 * positive, at most 9 digits. lttng rounds both up to a power of two.
 */
static int valid_size(const char *s, int unit)
{
	size_t n = strspn(s, "0123456789");

	if (!n || n > 9 || strspn(s, "0") == n)
		return 0;
	return !s[n] || (unit && strchr("kMG", s[n]) && !s[n + 1]);
}

/* What `dtracer record` was asked for. */
struct record_opts {
	const char *collector, *session, *gate, *subbuf, *nsubbuf;
	const struct profile *prof;
	uint64_t slower;	/* --slower-than in ns; 0: streaming */
	uint64_t live_us;	/* --live: the live timer; 0: not live */
};

static const struct dt_option record_options[] = {
	{ "collector", required_argument, 'c', 1 },
	{ "session", required_argument, 's', 1 },
	{ "profile", required_argument, 'p', 1 },
	{ "gate", required_argument, 'g', 1 },
	{ "slower-than", required_argument, 't', 1 },
	{ "subbuf-size", required_argument, 'S', 0 },
	{ "num-subbuf", required_argument, 'N', 0 },
	{ "live", optional_argument, 'L', 0 },
	{ "help", no_argument, 'h', 1 },
	{ NULL, 0, 0, 0 },
};

/* One option's value into o; 0, or 2 (usage) after saying why. */
static int record_option(struct record_opts *o, int c, const char *arg)
{
	switch (c) {
	case 't':
		o->slower = dt_parse_duration(arg);
		if (!o->slower) {
			fprintf(stderr, "dtracer record: --slower-than: `%s` is "
				"not a duration (e.g. 50ms, 1.5s; units ns, us, "
				"ms, s)\n", arg);
			return 2;
		}
		return 0;
	case 'S':
		o->subbuf = arg;
		if (!valid_size(arg, 1)) {
			fprintf(stderr, "dtracer record: --subbuf-size: `%s` is "
				"not a size (bytes, or with k, M, G: e.g. 4M)\n",
				arg);
			return 2;
		}
		return 0;
	case 'N':
		o->nsubbuf = arg;
		if (!valid_size(arg, 0)) {
			fprintf(stderr, "dtracer record: --num-subbuf: `%s` is "
				"not a count (e.g. 8)\n", arg);
			return 2;
		}
		return 0;
	case 'L':
		o->live_us = arg ? dt_parse_duration(arg) / 1000 : 1000000;
		if (!o->live_us) {
			fprintf(stderr, "dtracer record: --live=PERIOD: `%s` is "
				"not a duration of 1us or more (e.g. 1s, "
				"200ms)\n", arg);
			return 2;
		}
		return 0;
	case 'c':
		o->collector = arg;
		return 0;
	case 's':
		o->session = arg;
		return 0;
	case 'p':
		o->prof = NULL;
		for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
			if (!strcmp(arg, profiles[i].name))
				o->prof = &profiles[i];
		if (!o->prof) {
			fprintf(stderr, "dtracer record: --profile: `%s` is not "
				"minimal, default or full\n", arg);
			return 2;
		}
		return 0;
	case 'g':
		o->gate = arg;
		if (strcmp(arg, "global") && strcmp(arg, "thread") &&
		    strcmp(arg, "off")) {
			fprintf(stderr, "dtracer record: --gate: `%s` is not "
				"global, thread or off\n", arg);
			return 2;
		}
		return 0;
	}
	return 2;
}

/*
 * The command line into o: -1 to go on, else the exit code (0 for
 * --help, 2 for a usage error, said on stderr).
 */
static int record_parse(int argc, char **argv, struct record_opts *o)
{
	struct dt_opts p;
	int c, r;

	*o = (struct record_opts){ .session = "dtracer",
				   .prof = &profiles[1] };
	dt_opts_start(&p, "record", "+", record_options, argc, argv);
	while ((c = dt_opts_next(&p)) != -1) {
		if (c == 'h')
			return record_usage(stdout);
		if (c == '?' || c == ':') {
			dt_opts_bad(&p);
			return record_usage(stderr);
		}
		r = record_option(o, c, p.arg);
		if (r)
			return r;
	}
	if (p.ind != argc) {
		fprintf(stderr, "dtracer record: unexpected argument `%s`\n",
			argv[p.ind]);
		return 2;
	}
	return -1;
}

/* What the options must be together: 0, or 2 after saying why. */
static int record_validate(const struct record_opts *o)
{
	if (!o->collector || !valid_name(o->collector)) {
		fprintf(stderr, "dtracer record: --collector HOST is required "
			"(a host name or address)\n");
		return 2;
	}
	if (o->live_us && o->slower) {
		fprintf(stderr, "dtracer record: --live and --slower-than "
			"together: a flight recorder's snapshots are not "
			"live (LTTng has no live snapshot session); `dtracer "
			"watch` does not see them\n");
		return 2;
	}
	if (!valid_name(o->session)) {
		fprintf(stderr, "dtracer record: --session: `%s` is not a valid "
			"session name\n", o->session);
		return 2;
	}
	return 0;
}

/*
 * What must run on this host before a session: dtracer.ko, and an
 * lttng-sessiond that has loaded dtracer's probes (started if none
 * runs). 0, or 1 after saying why.
 */
static int record_preflight(void)
{
	struct stat st;

	if (stat(SYSFS, &st)) {
		fprintf(stderr, "dtracer record: dtracer.ko is not loaded (no "
			SYSFS "): modprobe dtracer\n");
		return 1;
	}
	if (!sessiond_running() && start_sessiond())
		return 1;
	if (!dtracer_probes_available()) {
		fprintf(stderr, "dtracer record: the running lttng-sessiond has "
			"not loaded dtracer's probes: restart it as "
			"`LTTNG_EXTRA_KMOD_PROBES=dtracer lttng-sessiond -d`\n");
		return 1;
	}
	return 0;
}

static int custom_channel(const struct record_opts *o)
{
	return o->subbuf || o->nsubbuf;
}

/* lttng enable-channel channel0 with the ring buffer options. */
static int record_channel(const struct record_opts *o)
{
	char size[64], count[64];
	char *ch[10] = { "lttng", "enable-channel", "--session",
			 (char *)o->session, "-k" };
	int k = 5;

	if (o->subbuf) {
		snprintf(size, sizeof(size), "--subbuf-size=%s", o->subbuf);
		ch[k++] = size;
	}
	if (o->nsubbuf) {
		snprintf(count, sizeof(count), "--num-subbuf=%s", o->nsubbuf);
		ch[k++] = count;
	}
	ch[k++] = "channel0";
	return run(ch, 0, 0);
}

/* lttng enable-event for each of the profile's event lists. */
static int record_events(const struct record_opts *o)
{
	for (int i = 0; i < 5 && o->prof->events[i]; i++) {
		const char *const *e = o->prof->events[i];
		char *args[10] = { "lttng", "enable-event", "--session",
				   (char *)o->session };
		int k = 4;

		if (custom_channel(o)) {	/* record_channel's */
			args[k++] = "--channel";
			args[k++] = "channel0";
		}
		for (int j = 0; e[j]; j++)
			args[k++] = (char *)e[j];
		if (run(args, 0, 0))
			return 1;
	}
	return 0;
}

static int record_contexts(const struct record_opts *o)
{
	char *ctx[] = { "lttng", "add-context", "--session",
			(char *)o->session, "-k", "-t", "tid", "-t", "pid",
			"-t", "procname", NULL };

	return run(ctx, 0, 0);
}

static void record_say(const struct record_opts *o)
{
	if (o->slower)
		printf("recording: flight recorder: session %s (profile %s, "
		       "snapshot mode) keeps the recent trace in memory; "
		       "triggers dtracer-%s (a served request's dtracer_unflag) "
		       "and dtracer-%s-answer (a client's dtracer_answer) send "
		       "a snapshot to %s whenever duration_ns >= %llu; `dtracer "
		       "stop --session %s` ends it\n", o->session, o->prof->name,
		       o->session, o->session, o->collector,
		       (unsigned long long)o->slower, o->session);
	else
		printf("recording: session %s (profile %s) streams to %s%s; "
		       "`dtracer stop --session %s` ends it\n", o->session,
		       o->prof->name, o->collector, o->live_us ?
		       " live (`dtracer watch` there shows its requests)" : "",
		       o->session);
}

/*
 * The session's steps, in order: create, channel, events, contexts,
 * triggers, then the gate and start. The gate is written last, so that
 * nothing of the host is changed if an lttng step failed; a failed step
 * destroys the session and the triggers added. 0 or 1.
 */
static int record_session(const struct record_opts *o)
{
	char url[256];
	size_t triggered = 0;
	char live[64];

	snprintf(url, sizeof(url), "--set-url=net://%s", o->collector);
	snprintf(live, sizeof(live), "--live=%llu",
		 (unsigned long long)o->live_us);
	if (lttng("create", o->session,
		  o->slower ? "--snapshot" : o->live_us ? live : url,
		  o->slower || o->live_us ? url : NULL, NULL))
		return 1;
	if ((custom_channel(o) && record_channel(o)) || record_events(o) ||
	    record_contexts(o))
		goto undo;
	if (o->slower) {
		triggered = add_triggers(o->session, o->slower);
		if (!triggered)
			goto undo;
	}
	if ((o->gate && write_gate(o->gate)) ||
	    lttng("start", o->session, NULL, NULL, NULL))
		goto undo;
	record_say(o);
	return 0;
undo:
	fprintf(stderr, "dtracer record: failed; destroying session %s\n",
		o->session);
	remove_triggers(o->session, triggered);
	lttng("destroy", o->session, NULL, NULL, NULL);
	return 1;
}

int dt_cmd_record(int argc, char **argv)
{
	struct record_opts o;
	int r = record_parse(argc, argv, &o);

	if (r >= 0)
		return r;
	r = record_validate(&o);
	if (r)
		return r;
	if (record_preflight())
		return 1;
	return record_session(&o);
}

/* ----- stop ----------------------------------------------------------- */

/* record --slower-than's triggers, those there are. */
static int remove_trigger(const char *session)
{
	char cmd[512];
	char *list[] = { "sh", "-c", cmd, NULL };
	char name[256];

	for (size_t i = 0; i < NTRIGGERS; i++) {
		trigger_name(name, sizeof(name), session, &triggers[i]);
		snprintf(cmd, sizeof(cmd), "lttng list-triggers 2>/dev/null "
			 "| grep -qx -- '- name: %s'", name);
		if (run(list, 1, 0))
			continue;
		if (lttng("remove-trigger", name, NULL, NULL, NULL))
			return -1;
	}
	return 0;
}

static const struct dt_option stop_options[] = {
	{ "session", required_argument, 's', 1 },
	{ "help", no_argument, 'h', 1 },
	{ NULL, 0, 0, 0 },
};

int dt_cmd_stop(int argc, char **argv)
{
	const char *session = "dtracer";
	struct dt_opts p;
	int c;

	dt_opts_start(&p, "stop", "+", stop_options, argc, argv);
	while ((c = dt_opts_next(&p)) != -1) {
		if (c == 's') {
			session = p.arg;
		} else if (c == 'h') {
			printf("usage: dtracer stop [--session NAME]\n"
			       "  lttng remove-trigger dtracer-NAME and "
			       "dtracer-NAME-answer (record --slower-than's,\n"
			       "  if any), lttng stop NAME,\n"
			       "  then lttng destroy NAME: the trace is complete "
			       "on the collector.\n");
			return 0;
		} else {
			dt_opts_bad(&p);
			return 2;
		}
	}
	if (p.ind != argc || !valid_name(session)) {
		fprintf(stderr, "dtracer stop: usage: dtracer stop [--session NAME]\n");
		return 2;
	}
	if (remove_trigger(session))
		return 1;
	if (lttng("stop", session, NULL, NULL, NULL))
		return 1;
	return lttng("destroy", session, NULL, NULL, NULL) ? 1 : 0;
}
