/*
 * dtracer: the collector side of distributed kernel tracing.
 *
 *   dtracer collect   run (or check) lttng-relayd on the collector
 *   dtracer record    start streaming this host's trace to a collector
 *   dtracer stop      stop and close that session
 *   dtracer sync      print the hosts' clock alignment
 *   dtracer merge     align the clocks and merge the hosts' traces
 *   dtracer requests  the traced requests of a merged trace
 *   dtracer view      them as one HTML page
 *   dtracer export    them as Perfetto or OpenTelemetry JSON
 *   dtracer watch     the requests of live sessions, as they complete
 *   dtracer go        follow a Go program's goroutines
 *   dtracer python    follow the jobs Python's pools queue
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static int usage(FILE *f)
{
	fprintf(f,
		"usage: dtracer COMMAND [OPTION]... (dtracer COMMAND --help)\n"
		"  collect [-o DIR] [--live-address ADDR]\n"
		"                                      run lttng-relayd here (the collector)\n"
		"  record --collector HOST [--session NAME] [--profile minimal|default|full]\n"
		"         [--gate global|thread|off] [--slower-than DURATION]\n"
		"                                      stream this host's trace to HOST\n"
		"                                      (or, slower-than: snapshots of slow requests)\n"
		"  stop [--session NAME]               stop and close that session\n"
		"  sync [--reference HOST] DIR...      clock alignment of the traces' hosts\n"
		"  merge -o OUT [--reference HOST] [--no-text] DIR...\n"
		"                                      align and merge into one timeline\n"
		"  requests [--tree ID] MERGED         the traced requests, or one's tree\n"
		"  view -o PAGE.html [--title TEXT] MERGED\n"
		"                                      the requests as one HTML page\n"
		"  export --format perfetto|otlp [--request ID] [-o FILE] MERGED\n"
		"                                      Perfetto or OpenTelemetry JSON\n"
		"  watch [--tree] [--timeout DURATION] [--html FILE] COLLECTOR[:PORT]\n"
		"                                      the requests of live sessions, as they end\n"
		"  go [--remove|--print] BINARY... | go --list\n"
		"                                      follow Go programs' goroutines\n"
		"  python [--remove|--print] MODULE... | python --list\n"
		"                                      follow Python pools' jobs\n");
	return f == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "merge"))
		return dt_cmd_merge(argc - 1, argv + 1, 0);
	if (!strcmp(cmd, "sync"))
		return dt_cmd_merge(argc - 1, argv + 1, 1);
	if (!strcmp(cmd, "collect"))
		return dt_cmd_collect(argc - 1, argv + 1);
	if (!strcmp(cmd, "record"))
		return dt_cmd_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "stop"))
		return dt_cmd_stop(argc - 1, argv + 1);
	if (!strcmp(cmd, "requests"))
		return dt_cmd_requests(argc - 1, argv + 1);
	if (!strcmp(cmd, "view"))
		return dt_cmd_view(argc - 1, argv + 1);
	if (!strcmp(cmd, "watch"))
		return dt_cmd_watch(argc - 1, argv + 1);
	if (!strcmp(cmd, "go"))
		return dt_cmd_go(argc - 1, argv + 1);
	if (!strcmp(cmd, "python"))
		return dt_cmd_python(argc - 1, argv + 1);
	if (!strcmp(cmd, "export"))
		return dt_cmd_export(argc - 1, argv + 1);
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help"))
		return usage(stdout);
	if (*cmd)
		fprintf(stderr, "dtracer: unknown command `%s`\n", cmd);
	return usage(stderr);
}
