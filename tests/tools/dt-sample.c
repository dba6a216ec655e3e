/*
 * dt-sample: a file's contents, every few milliseconds, until killed.
 *
 *   dt-sample MS FILE
 *       read FILE (a sysfs file such as /sys/distributed-tracer/list_pid)
 *       from its start every MS milliseconds and write what it held to
 *       standard output, each reading as it came; a file that cannot be
 *       read is skipped that time. Runs until a signal ends it.
 *
 * What a shell loop of cat and sleep would do, in one process: under
 * emulation, starting two processes ten times a second took the
 * guest's whole processor, and the tests that sample share two cores
 * with the guests they measure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int copy(const char *path)
{
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n) {
			close(fd);
			return -2;
		}
	}
	close(fd);
	return fflush(stdout) ? -2 : 0;
}

int main(int argc, char **argv)
{
	struct timespec ts;
	char *end;
	long ms;

	if (argc != 3) {
		fprintf(stderr, "usage: dt-sample MS FILE\n");
		return 2;
	}
	errno = 0;
	ms = strtol(argv[1], &end, 10);
	if (errno || *end || end == argv[1] || ms < 1 || ms > 60000) {
		fprintf(stderr, "dt-sample: not a period of 1 to 60000 ms: \"%s\"\n",
			argv[1]);
		return 2;
	}
	for (;;) {
		if (copy(argv[2]) == -2) {
			fprintf(stderr, "dt-sample: write: %s\n", strerror(errno));
			return 1;
		}
		ts.tv_sec = ms / 1000;
		ts.tv_nsec = (ms % 1000) * 1000000L;
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
}
