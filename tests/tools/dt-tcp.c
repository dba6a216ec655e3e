/*
 * dt-tcp: a small TCP request/response peer for the tests.
 *
 *   dt-tcp serve [-4|-6] PORT [COUNT]
 *       accept COUNT connections (default 1, 0 = forever), one at a
 *       time; on each, answer every received chunk with "echo:" + chunk,
 *       until the peer closes.
 *   dt-tcp request HOST PORT MESSAGE [REPEAT]
 *       connect, send MESSAGE and read the answer, REPEAT times (default
 *       1); print the last answer; exit 0 only if every answer was right.
 *
 * Plain sockets and blocking I/O: the point is a real request that the
 * kernel sees, one thread per side.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#define PREFIX "echo:"
#define BUFSZ 4096

static int usage(void)
{
	fprintf(stderr,
		"usage: dt-tcp serve [-4|-6] PORT [COUNT]\n"
		"       dt-tcp request HOST PORT MESSAGE [REPEAT]\n");
	return 2;
}

static int parse_count(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	if (errno || *end || end == s || *out < 0) {
		fprintf(stderr, "dt-tcp: not a count: \"%s\"\n", s);
		return -1;
	}
	return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int echo_connection(int fd)
{
	char in[BUFSZ], out[BUFSZ + sizeof(PREFIX)];
	ssize_t n;

	while ((n = read(fd, in, sizeof(in))) > 0) {
		memcpy(out, PREFIX, strlen(PREFIX));
		memcpy(out + strlen(PREFIX), in, (size_t)n);
		if (write_all(fd, out, strlen(PREFIX) + (size_t)n))
			return -1;
	}
	return n < 0 ? -1 : 0;
}

static int serve(int argc, char **argv)
{
	int family = AF_INET6, one = 1, fd, i = 0;
	long count = 1, port;
	struct addrinfo hints = { 0 }, *ai;

	if (argc > 0 && (!strcmp(argv[0], "-4") || !strcmp(argv[0], "-6"))) {
		family = argv[0][1] == '4' ? AF_INET : AF_INET6;
		argc--, argv++;
	}
	if (argc < 1 || argc > 2 || parse_count(argv[0], &port) ||
	    port < 1 || port > 65535)
		return usage();
	if (argc == 2 && parse_count(argv[1], &count))
		return 2;

	hints.ai_family = family;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	if (getaddrinfo(NULL, argv[0], &hints, &ai)) {
		fprintf(stderr, "dt-tcp: cannot resolve the listening address\n");
		return 1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 16)) {
		perror("dt-tcp: listen");
		freeaddrinfo(ai);
		return 1;
	}
	freeaddrinfo(ai);
	while (count == 0 || i++ < count) {
		int c = accept(fd, NULL, NULL);

		if (c < 0) {
			perror("dt-tcp: accept");
			return 1;
		}
		if (echo_connection(c))
			perror("dt-tcp: connection");
		close(c);
	}
	close(fd);
	return 0;
}

static int connect_to(const char *host, const char *port)
{
	struct addrinfo hints = { 0 }, *ai, *p;
	int fd = -1, err;

	hints.ai_socktype = SOCK_STREAM;
	err = getaddrinfo(host, port, &hints, &ai);
	if (err) {
		fprintf(stderr, "dt-tcp: %s: %s\n", host, gai_strerror(err));
		return -1;
	}
	for (p = ai; p; p = p->ai_next) {
		fd = socket(p->ai_family, SOCK_STREAM, 0);
		if (fd >= 0 && !connect(fd, p->ai_addr, p->ai_addrlen))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		fprintf(stderr, "dt-tcp: cannot connect to %s port %s: %s\n",
			host, port, strerror(errno));
	return fd;
}

/* Read exactly the expected answer's length; 0 if it is the answer. */
static int read_answer(int fd, const char *msg, char *buf, size_t want)
{
	size_t got = 0;

	while (got < want) {
		ssize_t n = read(fd, buf + got, want - got);

		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	buf[got] = '\0';
	return strncmp(buf, PREFIX, strlen(PREFIX)) ||
	       strcmp(buf + strlen(PREFIX), msg);
}

static int request(int argc, char **argv)
{
	long repeat = 1, i;
	size_t len, want;
	char *buf;
	int fd, bad = 0;

	if (argc < 3 || argc > 4)
		return usage();
	if (argc == 4 && parse_count(argv[3], &repeat))
		return 2;
	len = strlen(argv[2]);
	if (len == 0 || len > BUFSZ) {
		fprintf(stderr, "dt-tcp: the message must be 1 to %d bytes\n",
			BUFSZ);
		return 2;
	}
	fd = connect_to(argv[0], argv[1]);
	if (fd < 0)
		return 1;
	want = strlen(PREFIX) + len;
	buf = malloc(want + 1);
	if (!buf) {
		close(fd);
		return 1;
	}
	for (i = 0; i < repeat && !bad; i++) {
		if (write_all(fd, argv[2], len) ||
		    read_answer(fd, argv[2], buf, want))
			bad = 1;
	}
	if (!bad)
		printf("%s\n", buf);
	else
		fprintf(stderr, "dt-tcp: wrong or missing answer\n");
	free(buf);
	close(fd);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "serve"))
		return serve(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "request"))
		return request(argc - 2, argv + 2);
	return usage();
}
