/*
 * dt-tcp: a small TCP request/response peer for the tests.
 *
 *   dt-tcp serve [-4|-6] [-m KEY] [-d MS [-e K]] [-U PORT] [-X|-Y|-L /SOCK] [-k] [-s|-n|-p MS] PORT [COUNT]
 *       accept COUNT connections (default 1, 0 = forever), one at a
 *       time; on each, answer every received chunk with "echo:" + chunk
 *       (after MS milliseconds with -d; with -e, only on every Kth
 *       connection: the Kth, 2Kth...; with -U PORT, after sending the
 *       chunk to 127.0.0.1:PORT over UDP and reading a datagram back;
 *       with -X /SOCK, after a call to userve on the UNIX socket /SOCK
 *       (one connection per TCP connection) written in two parts,
 *       "call:", then the chunk and a newline, with a read between
 *       them of untraced bytes (a byte written before anything was
 *       flagged, on a socket pair of its own), as an event loop reads
 *       another connection between a call's HEADERS and DATA, then
 *       reading its answer line; -Y /SOCK the same, the first part read
 *       by userve before the rest is written (the kernel says when:
 *       SIOCOUTQ); with -L /SOCK, COUNT pairs of connections, each as
 *       an event loop that calls userve on one UNIX connection for
 *       both: the first connection's request read, its call written,
 *       the second's request read, the first call's answer read, then
 *       the second call written and its answer read, then both answered
 *       ("echo:" + request); each call is two writes, "call:" and the
 *       request's line;
 *       with -k, followed by a write of its own: an HTTP/2 PING frame,
 *       17 bytes, as gRPC's server writes after answering),
 *       until the peer closes. With -s
 *       (sink), read until the peer shuts its side, then answer with the
 *       byte count and a newline. With -n (no answer), read until the
 *       peer shuts its side and close without a word. With -p MS (a
 *       stream), after the first chunk write "push:N\n" every MS ms
 *       until the peer goes.
 *   dt-tcp request [-w SECONDS] [-m KEY] [-k] HOST PORT MESSAGE [REPEAT]
 *       connect, send MESSAGE and read the answer, REPEAT times (default
 *       1); print the last answer; exit 0 only if every answer was right.
 *       With -k, each answer is followed by serve -k's PING frame.
 *       With -w, try again every 100 ms until that succeeds or SECONDS
 *       have passed (the name not resolving yet, nobody listening, a
 *       wrong answer): the guests' hand-shakes, which a shell loop
 *       would make by starting a process every time (under emulation,
 *       a processor's whole time while it waits); only the last
 *       attempt's error is printed.
 *   dt-tcp userve [-d MS] /SOCK LOG [COUNT]
 *       listen on the UNIX stream socket /SOCK; accept COUNT connections
 *       (default 1), one at a time; on each, for every line asked (each
 *       read MS milliseconds after the socket turns readable, so that
 *       a call written in parts is read whole), append to LOG whether
 *       this thread was then in a request of dtracer not answered yet
 *       ("traced" or "untraced", the line, "|" and, if traced, its
 *       list_pid line past the ids: the reason and the request's
 *       addresses), then answer "ok\n".
 *   dt-tcp udpecho PORT LOG [COUNT]
 *       on 127.0.0.1:PORT over UDP, answer COUNT datagrams (default 1)
 *       with the same bytes, each appended to LOG first (serve -U's
 *       peer: a DNS server's shape, with no process started per
 *       datagram).
 *   dt-tcp send HOST PORT BYTES
 *       connect, write BYTES bytes ('F') in one write(), shut the write
 *       side, read the answer of a sink; exit 0 if it is BYTES.
 *   dt-tcp duo HOST PORT ROUNDS CHUNK
 *       connect to an echo server; two threads take turns writing CHUNK
 *       bytes on the same socket, ROUNDS times each: the main thread
 *       'U's, the other 'F's. The other thread's id is printed first and
 *       nothing is written before a line arrives on standard input (time
 *       to flag that thread). Turns follow each other at once, so
 *       that the kernel could coalesce the two threads' bytes.
 *   dt-tcp rr HOST PORT SECONDS
 *       request/response rate: connect to an echo server, then send one
 *       byte and read its answer, again and again on that connection,
 *       for SECONDS seconds; print the round trips per second (and the
 *       count); exit 0 only if every answer was right.
 *   dt-tcp rrn HOST PORT COUNT
 *       the same for exactly COUNT round trips (a fixed amount of work,
 *       for bench/insn.sh's instruction counts).
 *   dt-tcp conns HOST PORT COUNT [K]
 *       short connections, one after the other: connect, send one byte,
 *       read its answer, close; COUNT times. With K, every Kth one is
 *       reset right after its byte is sent, without reading the answer
 *       (closed mid-request). Print "ANSWERED ABORTED RATE/s"; exit 0
 *       only if every connection connected and every answer read was
 *       right.
 *
 * With -m, the connections are signed with TCP-MD5 (RFC 2385) with KEY
 * (at most 80 bytes): serve's for any peer, request's for the server's
 * address.
 *
 * A peer that resets is no error for serve: SIGPIPE is ignored.
 *
 * Plain sockets and blocking I/O: the point is a real request that the
 * kernel sees.
 */
#include <errno.h>
#include <linux/sockios.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define PREFIX "echo:"
#define BUFSZ 4096

/* -k: an HTTP/2 PING frame (RFC 9113, 6.7) after each answer. */
static const char ping_frame[17] = { 0, 0, 8, 6, 0, 0, 0, 0, 0,
				     'd', 't', '-', 't', 'c', 'p', '!', '!' };
static bool ping_after;

static int usage(void)
{
	fprintf(stderr,
		"usage: dt-tcp serve [-4|-6] [-m KEY] [-d MS [-e K]] [-U PORT] [-X /SOCK] [-k] [-s|-n|-p MS] PORT [COUNT]\n"
		"       dt-tcp request [-w SECONDS] [-m KEY] [-k] HOST PORT MESSAGE [REPEAT]\n"
		"       dt-tcp userve [-d MS] /SOCK LOG [COUNT]\n"
		"       dt-tcp udpecho PORT LOG [COUNT]\n"
		"       dt-tcp send HOST PORT BYTES\n"
		"       dt-tcp duo HOST PORT ROUNDS CHUNK\n"
		"       dt-tcp rr HOST PORT SECONDS\n"
		"       dt-tcp rrn HOST PORT COUNT\n"
		"       dt-tcp conns HOST PORT COUNT [K]\n");
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

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static long delay_ms, delay_every = 1;
static long lookup_port;	/* -U: a UDP exchange before each answer */

/*
 * -U PORT: send the chunk to 127.0.0.1:PORT over UDP and wait (30 s at
 * most; the tests' peer is udpecho) for a datagram back: a DNS lookup in
 * the middle of a request.
 */
static int udp_lookup(const char *p, size_t n)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)lookup_port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { .tv_sec = 30 };
	char back[BUFSZ];
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ok;

	ok = fd >= 0 &&
	     !setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) &&
	     sendto(fd, p, n, 0, (struct sockaddr *)&a, sizeof(a)) ==
		     (ssize_t)n &&
	     recv(fd, back, sizeof(back), 0) > 0;
	if (fd >= 0)
		close(fd);
	if (!ok)
		fprintf(stderr, "dt-tcp: no answer over UDP from port %ld\n",
			lookup_port);
	return ok ? 0 : -1;
}

/* -X, -Y: the UNIX socket of a call in two parts, or NULL. */
static const char *split_path;
/* -Y: the second part once the first one is read. */
static bool split_wait;
/* -L: pairs of connections, calls made as an event loop would. */
static bool pairs;
/* Untraced bytes to read between a call's parts, one a call. */
static int leave_fd = -1;
#define LEAVE_BYTES 4096

/*
 * -X: a socket pair holding LEAVE_BYTES bytes written now, before
 * anything is flagged: reading one of them later is a read of untraced
 * bytes, which takes a thread working for a request out of it
 * (dtracer's unix.c).
 */
static int split_prepare(void)
{
	static const char bytes[LEAVE_BYTES];
	int sp[2], size = 2 * LEAVE_BYTES;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) ||
	    setsockopt(sp[1], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)) ||
	    write_all(sp[1], bytes, sizeof(bytes))) {
		perror("dt-tcp: socketpair");
		return -1;
	}
	close(sp[1]);
	leave_fd = sp[0];
	return 0;
}

static int unix_connect(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(a.sun_path)) {
		fprintf(stderr, "dt-tcp: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(a.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a)))
		return fd;
	fprintf(stderr, "dt-tcp: cannot connect to %s: %s\n", path,
		strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Read exactly want bytes into buf: 0, or -1 (an error, or the end). */
static int read_full(int fd, char *buf, size_t want)
{
	size_t got = 0;

	while (got < want) {
		ssize_t n = read(fd, buf + got, want - got);

		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* -Y: wait (30 s at most) until the peer has read all ux's bytes. */
static int split_read(int ux)
{
	int i, queued = 1;

	for (i = 0; i < 3000; i++) {
		if (ioctl(ux, SIOCOUTQ, &queued))
			return -1;
		if (!queued)
			return 0;
		sleep_ms(10);
	}
	return -1;
}

/*
 * -X: the call for chunk p (n bytes) on ux, in two parts with a read of
 * untraced bytes between them, and its answer "ok\n".
 */
static int split_call(int ux, const char *p, size_t n)
{
	char c, ok[3], rest[BUFSZ + 1];

	memcpy(rest, p, n);
	rest[n] = '\n';
	if (write_all(ux, "call:", 5) || (split_wait && split_read(ux)) ||
	    read(leave_fd, &c, 1) != 1 ||
	    write_all(ux, rest, n + 1) ||
	    read_full(ux, ok, sizeof(ok)) || memcmp(ok, "ok\n", 3)) {
		fprintf(stderr, "dt-tcp: the call over %s failed\n",
			split_path);
		return -1;
	}
	return 0;
}

/* -L: a pair of connections served as an event loop would (usage). */
static int pair_loop(int ls)
{
	char in[2][BUFSZ], out[BUFSZ + sizeof(PREFIX)];
	int k[2], i, ux = -1, ok = -1;
	ssize_t n[2];

	k[0] = accept(ls, NULL, NULL);
	k[1] = k[0] < 0 ? -1 : accept(ls, NULL, NULL);
	if (k[1] < 0)
		goto out;
	ux = unix_connect(split_path);
	if (ux < 0 || (n[0] = read(k[0], in[0], sizeof(in[0]) - 1)) <= 0)
		goto out;
	in[0][n[0]] = '\n';
	if (write_all(ux, "call:", 5) ||
	    write_all(ux, in[0], (size_t)n[0] + 1) ||
	    (n[1] = read(k[1], in[1], sizeof(in[1]) - 1)) <= 0 ||
	    read_full(ux, out, 3) || memcmp(out, "ok\n", 3))
		goto out;
	in[1][n[1]] = '\n';
	if (write_all(ux, "call:", 5) ||
	    write_all(ux, in[1], (size_t)n[1] + 1) ||
	    read_full(ux, out, 3) || memcmp(out, "ok\n", 3))
		goto out;
	for (i = 0; i < 2; i++) {
		memcpy(out, PREFIX, strlen(PREFIX));
		memcpy(out + strlen(PREFIX), in[i], (size_t)n[i]);
		if (write_all(k[i], out, strlen(PREFIX) + (size_t)n[i]))
			goto out;
	}
	ok = 0;
out:
	if (ok)
		perror("dt-tcp: a pair of connections");
	for (i = 0; i < 2; i++)
		if (k[i] >= 0)
			close(k[i]);
	if (ux >= 0)
		close(ux);
	return ok;
}

/* -m: the TCP-MD5 key, or NULL. */
static const char *md5_key;

static int check_key(const char *key)
{
	if (!*key || strlen(key) > TCP_MD5SIG_MAXKEYLEN) {
		fprintf(stderr, "dt-tcp: a TCP-MD5 key is 1 to %d bytes\n",
			TCP_MD5SIG_MAXKEYLEN);
		return -1;
	}
	md5_key = key;
	return 0;
}

/*
 * Signs fd's segments to and from addr (len bytes; NULL: any peer, a
 * prefix of length 0 of family) with md5_key, if there is one.
 */
static int set_md5(int fd, int family, const struct sockaddr *addr,
		   socklen_t len)
{
	struct tcp_md5sig sig = { 0 };
	int opt = TCP_MD5SIG;

	if (!md5_key)
		return 0;
	if (addr) {
		memcpy(&sig.tcpm_addr, addr, len);
	} else {
		sig.tcpm_addr.ss_family = (sa_family_t)family;
		sig.tcpm_flags = TCP_MD5SIG_FLAG_PREFIX;
		sig.tcpm_prefixlen = 0;
		opt = TCP_MD5SIG_EXT;
	}
	sig.tcpm_keylen = (uint16_t)strlen(md5_key);
	memcpy(sig.tcpm_key, md5_key, sig.tcpm_keylen);
	if (setsockopt(fd, IPPROTO_TCP, opt, &sig, sizeof(sig))) {
		perror("dt-tcp: TCP_MD5SIG");
		return -1;
	}
	return 0;
}

static int echo_connection(int fd, long delay)
{
	char in[BUFSZ], out[BUFSZ + sizeof(PREFIX)];
	int ux = split_path ? unix_connect(split_path) : -1;
	ssize_t n;

	if (split_path && ux < 0)
		return -1;
	while ((n = read(fd, in, sizeof(in))) > 0) {
		if (lookup_port && udp_lookup(in, (size_t)n))
			break;
		if (split_path && split_call(ux, in, (size_t)n))
			break;
		if (delay)
			sleep_ms(delay);
		memcpy(out, PREFIX, strlen(PREFIX));
		memcpy(out + strlen(PREFIX), in, (size_t)n);
		if (write_all(fd, out, strlen(PREFIX) + (size_t)n))
			return -1;
		if (ping_after && write_all(fd, ping_frame, sizeof(ping_frame)))
			break;
	}
	if (ux >= 0)
		close(ux);
	return n != 0 ? -1 : 0;
}

/*
 * A stream (-p MS): after the first chunk read (a subscription), write
 * "push:N\n" every MS ms until the peer goes.
 */
static int push_connection(int fd, long ms)
{
	char in[BUFSZ], out[32];
	long n;

	if (read(fd, in, sizeof(in)) <= 0)
		return -1;
	for (n = 1;; n++) {
		snprintf(out, sizeof(out), "push:%ld\n", n);
		if (write_all(fd, out, strlen(out)))
			return 0;	/* the subscriber went */
		sleep_ms(ms);
	}
}

/* sink > 0: answer with the byte count; sink < 0: no answer. */
static int sink_connection(int fd, int sink)
{
	static char in[65536];
	char out[32];
	long long total = 0;
	ssize_t n;

	while ((n = read(fd, in, sizeof(in))) > 0)
		total += n;
	if (n < 0)
		return -1;
	if (sink < 0)
		return 0;
	snprintf(out, sizeof(out), "%lld\n", total);
	return write_all(fd, out, strlen(out));
}

static int serve(int argc, char **argv)
{
	int family = AF_INET6, one = 1, fd, i = 0, sink = 0;
	long count = 1, port, push = 0;
	struct addrinfo hints = { 0 }, *ai;

	while (argc > 0 && argv[0][0] == '-') {
		if (!strcmp(argv[0], "-4") || !strcmp(argv[0], "-6")) {
			family = argv[0][1] == '4' ? AF_INET : AF_INET6;
		} else if (!strcmp(argv[0], "-s")) {
			sink = 1;
		} else if (!strcmp(argv[0], "-n")) {
			sink = -1;
		} else if (!strcmp(argv[0], "-k")) {
			ping_after = true;
		} else if (!strcmp(argv[0], "-m") && argc > 1) {
			if (check_key(argv[1]))
				return 2;
			argc--, argv++;
		} else if (!strcmp(argv[0], "-U") && argc > 1) {
			if (parse_count(argv[1], &lookup_port) ||
			    !lookup_port || lookup_port > 65535)
				return 2;
			argc--, argv++;
		} else if ((!strcmp(argv[0], "-X") || !strcmp(argv[0], "-Y") ||
			    !strcmp(argv[0], "-L")) && argc > 1) {
			if (argv[1][0] != '/' || split_prepare())
				return usage();
			split_path = argv[1];
			split_wait = argv[0][1] == 'Y';
			pairs = argv[0][1] == 'L';
			argc--, argv++;
		} else if (!strcmp(argv[0], "-p") && argc > 1) {
			if (parse_count(argv[1], &push) || !push)
				return 2;
			argc--, argv++;
		} else if (!strcmp(argv[0], "-d") && argc > 1) {
			if (parse_count(argv[1], &delay_ms))
				return 2;
			argc--, argv++;
		} else if (!strcmp(argv[0], "-e") && argc > 1) {
			if (parse_count(argv[1], &delay_every) || !delay_every)
				return 2;
			argc--, argv++;
		} else {
			return usage();
		}
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
	    set_md5(fd, ai->ai_family, NULL, 0) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 16)) {
		perror("dt-tcp: listen");
		freeaddrinfo(ai);
		return 1;
	}
	freeaddrinfo(ai);
	for (; pairs && (count == 0 || i < count); i++)
		if (pair_loop(fd))
			return 1;
	while (!pairs && (count == 0 || i < count)) {
		int c = accept(fd, NULL, NULL);

		i++;	/* this connection's number, from 1 */
		if (c < 0) {
			perror("dt-tcp: accept");
			return 1;
		}
		if (push ? push_connection(c, push) :
		    sink ? sink_connection(c, sink) :
		    echo_connection(c, i % delay_every ? 0 : delay_ms))
			perror("dt-tcp: connection");
		close(c);
	}
	close(fd);
	return 0;
}

/* Errors of attempts that will be retried are not printed. */
static bool quiet;

static int connect_to(const char *host, const char *port)
{
	struct addrinfo hints = { 0 }, *ai, *p;
	int fd = -1, err;

	hints.ai_socktype = SOCK_STREAM;
	err = getaddrinfo(host, port, &hints, &ai);
	if (err) {
		if (!quiet)
			fprintf(stderr, "dt-tcp: %s: %s\n", host, gai_strerror(err));
		return -1;
	}
	for (p = ai; p; p = p->ai_next) {
		fd = socket(p->ai_family, SOCK_STREAM, 0);
		if (fd >= 0 && !set_md5(fd, p->ai_family, p->ai_addr, p->ai_addrlen) &&
		    !connect(fd, p->ai_addr, p->ai_addrlen))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0 && !quiet)
		fprintf(stderr, "dt-tcp: cannot connect to %s port %s: %s\n",
			host, port, strerror(errno));
	return fd;
}

/* Read exactly the expected answer's length; 0 if it is the answer. */
static int read_answer(int fd, const char *msg, char *buf, size_t want)
{
	if (read_full(fd, buf, want))
		return -1;
	buf[want] = '\0';
	return strncmp(buf, PREFIX, strlen(PREFIX)) ||
	       strcmp(buf + strlen(PREFIX), msg);
}

/* serve -k's PING frame, read whole: 0 if it is that. */
static int read_ping(int fd)
{
	char got[sizeof(ping_frame)];

	if (read_full(fd, got, sizeof(got)))
		return -1;
	return memcmp(got, ping_frame, sizeof(got)) ? -1 : 0;
}

/* One request: 0 and the last answer printed, or 1. */
static int request_once(char **argv, long repeat)
{
	size_t len = strlen(argv[2]), want = strlen(PREFIX) + len;
	char *buf;
	long i;
	int fd, bad = 0;

	fd = connect_to(argv[0], argv[1]);
	if (fd < 0)
		return 1;
	buf = malloc(want + 1);
	if (!buf) {
		close(fd);
		return 1;
	}
	for (i = 0; i < repeat && !bad; i++) {
		if (write_all(fd, argv[2], len) ||
		    read_answer(fd, argv[2], buf, want) ||
		    (ping_after && read_ping(fd)))
			bad = 1;
	}
	if (!bad)
		printf("%s\n", buf);
	else if (!quiet)
		fprintf(stderr, "dt-tcp: wrong or missing answer\n");
	free(buf);
	close(fd);
	return bad;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int request(int argc, char **argv)
{
	long repeat = 1, wait_s = -1;
	size_t len;
	double end;

	while (argc >= 1 && (!strcmp(argv[0], "-k") || (argc >= 2 &&
	       (!strcmp(argv[0], "-w") || !strcmp(argv[0], "-m"))))) {
		if (argv[0][1] == 'k') {
			ping_after = true;
			argc--, argv++;
			continue;
		}
		if (argv[0][1] == 'w' ? parse_count(argv[1], &wait_s) :
		    check_key(argv[1]))
			return 2;
		argc -= 2;
		argv += 2;
	}
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
	if (wait_s < 0)
		return request_once(argv, repeat);
	end = now_s() + (double)wait_s;
	quiet = true;
	while (request_once(argv, repeat)) {
		if (now_s() >= end) {
			quiet = false;
			return request_once(argv, repeat);
		}
		sleep_ms(100);
	}
	return 0;
}

static int send_bytes(int argc, char **argv)
{
	char answer[32] = "", *buf;
	long bytes;
	size_t got = 0;
	ssize_t n;
	int fd, bad;

	if (argc != 3 || parse_count(argv[2], &bytes) || bytes < 1)
		return usage();
	buf = malloc((size_t)bytes);
	if (!buf)
		return 1;
	memset(buf, 'F', (size_t)bytes);
	fd = connect_to(argv[0], argv[1]);
	if (fd < 0) {
		free(buf);
		return 1;
	}
	bad = write_all(fd, buf, (size_t)bytes) || shutdown(fd, SHUT_WR);
	while (!bad && got < sizeof(answer) - 1 &&
	       (n = read(fd, answer + got, sizeof(answer) - 1 - got)) > 0)
		got += (size_t)n;
	free(buf);
	close(fd);
	if (bad || atol(answer) != bytes) {
		fprintf(stderr, "dt-tcp: the sink counted '%s', not %ld\n",
			answer, bytes);
		return 1;
	}
	printf("%ld\n", bytes);
	return 0;
}

/* duo: two writers taking turns on one socket. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t turned;
	int fd, turn, failed;
	long rounds, chunk;
} duo_state = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.turned = PTHREAD_COND_INITIALIZER,
};

static void duo_write(int me, char letter)
{
	char *buf = malloc((size_t)duo_state.chunk);
	long i;

	if (!buf) {
		duo_state.failed = 1;
		return;
	}
	memset(buf, letter, (size_t)duo_state.chunk);
	for (i = 0; i < duo_state.rounds; i++) {
		pthread_mutex_lock(&duo_state.lock);
		while (duo_state.turn != me)
			pthread_cond_wait(&duo_state.turned, &duo_state.lock);
		pthread_mutex_unlock(&duo_state.lock);
		if (write_all(duo_state.fd, buf, (size_t)duo_state.chunk))
			duo_state.failed = 1;
		pthread_mutex_lock(&duo_state.lock);
		duo_state.turn = !me;
		pthread_cond_broadcast(&duo_state.turned);
		pthread_mutex_unlock(&duo_state.lock);
	}
	free(buf);
}

static void *duo_flagged(void *arg)
{
	(void)arg;
	printf("%ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	duo_write(1, 'F');
	return NULL;
}

static int duo(int argc, char **argv)
{
	char line[64], drain[BUFSZ];
	pthread_t t;

	if (argc != 4 || parse_count(argv[2], &duo_state.rounds) ||
	    parse_count(argv[3], &duo_state.chunk) || duo_state.chunk < 1)
		return usage();
	duo_state.fd = connect_to(argv[0], argv[1]);
	if (duo_state.fd < 0)
		return 1;
	duo_state.turn = -1;
	if (pthread_create(&t, NULL, duo_flagged, NULL))
		return 1;
	if (!fgets(line, sizeof(line), stdin))
		fprintf(stderr, "dt-tcp: no go on standard input; going anyway\n");
	pthread_mutex_lock(&duo_state.lock);
	duo_state.turn = 0;
	pthread_cond_broadcast(&duo_state.turned);
	pthread_mutex_unlock(&duo_state.lock);
	duo_write(0, 'U');
	pthread_join(t, NULL);
	shutdown(duo_state.fd, SHUT_WR);
	while (read(duo_state.fd, drain, sizeof(drain)) > 0)
		;
	close(duo_state.fd);
	return duo_state.failed;
}

/*
 * rr, rrn: round trips of one byte on one connection, as many as fit in
 * seconds (rr) or exactly count (rrn).
 */
static int rr(int argc, char **argv, bool by_count)
{
	char buf[sizeof(PREFIX) + 1];
	double start, end, t;
	long limit, n = 0;
	int fd, bad = 0;

	if (argc != 3 || parse_count(argv[2], &limit) || limit < 1)
		return usage();
	fd = connect_to(argv[0], argv[1]);
	if (fd < 0)
		return 1;
	start = now_s();
	end = start + (double)limit;
	do {
		if (write_all(fd, "r", 1) ||
		    read_answer(fd, "r", buf, strlen(PREFIX) + 1)) {
			bad = 1;
			break;
		}
		n++;
		t = now_s();
	} while (by_count ? n < limit : t < end);
	close(fd);
	if (bad) {
		fprintf(stderr, "dt-tcp: wrong or missing answer after %ld\n", n);
		return 1;
	}
	printf("%.1f %ld\n", (double)n / (t - start), n);
	return 0;
}

/* conns: short connections, some reset mid-request. */
static int conns(int argc, char **argv)
{
	struct linger rst = { .l_onoff = 1, .l_linger = 0 };
	char buf[sizeof(PREFIX) + 1];
	long count, every = 0, i, answered = 0, aborted = 0;
	double start = now_s();
	int fd;

	if (argc < 3 || argc > 4 || parse_count(argv[2], &count) ||
	    (argc == 4 && parse_count(argv[3], &every)))
		return usage();
	for (i = 1; i <= count; i++) {
		fd = connect_to(argv[0], argv[1]);
		if (fd < 0)
			break;
		if (write_all(fd, "c", 1)) {
			close(fd);
			break;
		}
		if (every && i % every == 0) {
			setsockopt(fd, SOL_SOCKET, SO_LINGER, &rst, sizeof(rst));
			aborted++;
		} else if (read_answer(fd, "c", buf, strlen(PREFIX) + 1)) {
			close(fd);
			break;
		} else {
			answered++;
		}
		close(fd);
	}
	printf("%ld %ld %.1f\n", answered, aborted,
	       (double)(answered + aborted) / (now_s() - start));
	if (i <= count) {
		fprintf(stderr, "dt-tcp: connection %ld of %ld failed\n", i, count);
		return 1;
	}
	return 0;
}

/*
 * Whether this thread is in dtracer's list_pid in a request it has not
 * answered yet; if so, what (size bytes) gets its line past the ids.
 */
static bool in_request(char *what, size_t size)
{
	long tid = syscall(SYS_gettid);
	char line[256], *rest;
	bool found = false;
	FILE *f = fopen("/sys/distributed-tracer/list_pid", "r");

	*what = '\0';
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strtol(line, &rest, 10) == tid &&
			!strstr(line, " answered");
	fclose(f);
	if (found) {
		/* Past "TID PID ": the reason and the request's addresses. */
		strtol(rest, &rest, 10);
		snprintf(what, size, "%s", rest + strspn(rest, " "));
		what[strcspn(what, "\n")] = '\0';
	}
	return found;
}

/* userve: one connection's lines, each read delay ms after it came. */
static int line_connection(int fd, long delay, FILE *log)
{
	char line[BUFSZ], what[256];
	size_t got = 0;
	ssize_t n;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char *nl;

		if (poll(&p, 1, -1) < 0)
			return errno == EINTR ? 0 : -1;
		sleep_ms(delay);
		n = read(fd, line + got, sizeof(line) - 1 - got);
		if (n <= 0)
			return n < 0 ? -1 : 0;
		got += (size_t)n;
		line[got] = '\0';
		/* Every whole line read: a peer may send the next unasked. */
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			fprintf(log, "%s %s | %s\n",
				in_request(what, sizeof(what)) ? "traced" :
								 "untraced",
				line, what);
			fflush(log);
			if (write_all(fd, "ok\n", 3))
				return -1;
			got -= (size_t)(nl + 1 - line);
			memmove(line, nl + 1, got + 1);
		}
		if (got == sizeof(line) - 1)
			return -1;	/* no line in BUFSZ bytes */
	}
}

static int userve(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	long delay = 0, count = 1, i;
	FILE *log;
	int ls;

	if (argc >= 2 && !strcmp(argv[0], "-d")) {
		if (parse_count(argv[1], &delay))
			return 2;
		argc -= 2, argv += 2;
	}
	if (argc < 2 || argc > 3 || argv[0][0] != '/' ||
	    strlen(argv[0]) >= sizeof(a.sun_path))
		return usage();
	if (argc == 3 && (parse_count(argv[2], &count) || !count))
		return 2;
	log = fopen(argv[1], "a");
	if (!log) {
		perror(argv[1]);
		return 1;
	}
	strcpy(a.sun_path, argv[0]);
	unlink(argv[0]);
	ls = socket(AF_UNIX, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(ls, 16)) {
		perror("dt-tcp: listen");
		return 1;
	}
	for (i = 0; i < count; i++) {
		int c = accept(ls, NULL, NULL);

		if (c < 0) {
			perror("dt-tcp: accept");
			return 1;
		}
		if (line_connection(c, delay, log))
			perror("dt-tcp: connection");
		close(c);
	}
	close(ls);
	fclose(log);
	return 0;
}

static int udpecho(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	long port, count = 1, i;
	char buf[BUFSZ];
	FILE *log;
	int fd;

	if (argc < 2 || argc > 3 || parse_count(argv[0], &port) || !port ||
	    port > 65535 || (argc == 3 && (parse_count(argv[2], &count) ||
					   !count)))
		return usage();
	log = fopen(argv[1], "a");
	if (!log) {
		perror(argv[1]);
		return 1;
	}
	a.sin_port = htons((uint16_t)port);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("dt-tcp: udp bind");
		return 1;
	}
	for (i = 0; i < count; i++) {
		struct sockaddr_in from;
		socklen_t len = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0,
				     (struct sockaddr *)&from, &len);

		if (n < 0) {
			perror("dt-tcp: recvfrom");
			return 1;
		}
		fwrite(buf, 1, (size_t)n, log);
		fputc('\n', log);
		fflush(log);
		if (sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&from,
			   len) != n) {
			perror("dt-tcp: sendto");
			return 1;
		}
	}
	fclose(log);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc >= 2 && !strcmp(argv[1], "conns"))
		return conns(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "serve"))
		return serve(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "request"))
		return request(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "udpecho"))
		return udpecho(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "userve"))
		return userve(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "send"))
		return send_bytes(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "duo"))
		return duo(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "rr"))
		return rr(argc - 2, argv + 2, false);
	if (argc >= 2 && !strcmp(argv[1], "rrn"))
		return rr(argc - 2, argv + 2, true);
	return usage();
}
