/*
 * dt-crowd: many threads and many TCP connections, for the scale
 * benchmark (bench/guest-scale.sh).
 *
 *   dt-crowd THREADS CONNECTIONS
 *       start THREADS - 1 threads that only sleep (the main thread is
 *       the first of THREADS), open CONNECTIONS TCP connections over the
 *       loopback to a listener of its own (both ends stay open, nothing
 *       is read), print "ready THREADS CONNECTIONS", then obey commands,
 *       one a line, on standard input, each answered by one line on
 *       standard output ("ok ..." or "error ..."):
 *
 *       ids K FILE   write the ids of the first K threads (the main
 *                    thread's first) to FILE, space-separated, in writes
 *                    of at most 4000 bytes that end between two ids
 *                    (/sys/distributed-tracer/add_pid or remove_pid take
 *                    at most a page per write);
 *       mark K       the main thread writes one byte on each of the
 *                    first K connections (flag it first: dtracer then
 *                    follows 2 K sockets, both ends).
 *
 *       The crowd ends at the end of its standard input.
 *
 * The open-file limit is raised to its hard limit first (raise that
 * with ulimit -n: 2 CONNECTIONS + a few descriptors are needed).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#define STACK_SIZE (64 * 1024)
#define CHUNK 4000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t started = PTHREAD_COND_INITIALIZER;
static long *tids;
static long nstarted;

static int parse_count(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	if (errno || *end || end == s || *out < 0) {
		fprintf(stderr, "dt-crowd: not a count: \"%s\"\n", s);
		return -1;
	}
	return 0;
}

static void *sleeper(void *arg)
{
	long i = (long)arg;

	pthread_mutex_lock(&lock);
	tids[i] = (long)syscall(SYS_gettid);
	nstarted++;
	pthread_cond_signal(&started);
	pthread_mutex_unlock(&lock);
	for (;;)
		pause();
	return NULL;
}

static int start_threads(long n)
{
	pthread_attr_t attr;
	pthread_t t;
	long i;

	tids[0] = (long)syscall(SYS_gettid);
	if (pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, STACK_SIZE) ||
	    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED))
		return -1;
	for (i = 1; i < n; i++) {
		int err = pthread_create(&t, &attr, sleeper, (void *)i);

		if (err) {
			fprintf(stderr, "dt-crowd: thread %ld of %ld: %s\n",
				i + 1, n, strerror(err));
			return -1;
		}
	}
	pthread_attr_destroy(&attr);
	pthread_mutex_lock(&lock);
	while (nstarted < n - 1)
		pthread_cond_wait(&started, &lock);
	pthread_mutex_unlock(&lock);
	return 0;
}

/* Opens n connections to a listener of its own; fds[i]: client ends. */
static int open_connections(long n, int *fds)
{
	struct sockaddr_in a = { 0 };
	socklen_t len = sizeof(a);
	int l, one = 1;
	long i;

	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 64) ||
	    getsockname(l, (struct sockaddr *)&a, &len)) {
		perror("dt-crowd: listen");
		return -1;
	}
	for (i = 0; i < n; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0), s;

		if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a))) {
			fprintf(stderr, "dt-crowd: connection %ld of %ld: %s\n",
				i + 1, n, strerror(errno));
			return -1;
		}
		s = accept(l, NULL, NULL);
		if (s < 0) {
			fprintf(stderr, "dt-crowd: accept %ld of %ld: %s\n",
				i + 1, n, strerror(errno));
			return -1;
		}
		/* The server ends stay open, unread: nothing to keep. */
		fds[i] = c;
	}
	close(l);
	return 0;
}

static int write_ids(long k, const char *path)
{
	char buf[CHUNK + 32];
	size_t len = 0;
	long i;
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return -1;
	for (i = 0; i < k && !err; i++) {
		char id[24];
		int n = snprintf(id, sizeof(id), "%s%ld", len ? " " : "",
				 tids[i]);

		if (len + (size_t)n > CHUNK) {
			if (write(fd, buf, len) != (ssize_t)len)
				err = 1;
			len = 0;
			n = snprintf(id, sizeof(id), "%ld", tids[i]);
		}
		memcpy(buf + len, id, (size_t)n);
		len += (size_t)n;
	}
	if (!err && len && write(fd, buf, len) != (ssize_t)len)
		err = 1;
	if (close(fd))
		err = 1;
	return err ? -1 : 0;
}

static int mark(long k, const int *fds)
{
	long i;

	for (i = 0; i < k; i++)
		if (write(fds[i], "m", 1) != 1)
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	long nthreads, nconns, k;
	char line[4096], path[4096];
	struct rlimit rl;
	int *fds;

	if (argc != 3 || parse_count(argv[1], &nthreads) ||
	    parse_count(argv[2], &nconns) || nthreads < 1) {
		fprintf(stderr, "usage: dt-crowd THREADS CONNECTIONS\n");
		return 2;
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	tids = calloc((size_t)nthreads, sizeof(*tids));
	fds = calloc((size_t)nconns + 1, sizeof(*fds));
	if (!tids || !fds)
		return 1;
	if (start_threads(nthreads) || open_connections(nconns, fds))
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %ld %ld\n", nthreads, nconns);
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "ids %ld %4095s", &k, path) == 2) {
			if (k > nthreads)
				printf("error: only %ld threads\n", nthreads);
			else if (write_ids(k, path))
				printf("error: ids to %s: %s\n", path,
				       strerror(errno));
			else
				printf("ok ids %ld\n", k);
		} else if (sscanf(line, "mark %ld", &k) == 1) {
			if (k > nconns)
				printf("error: only %ld connections\n", nconns);
			else if (mark(k, fds))
				printf("error: mark: %s\n", strerror(errno));
			else
				printf("ok mark %ld\n", k);
		} else {
			printf("error: unknown command\n");
		}
	}
	return 0;
}
