/*
 * dt-uring: an HTTP/1.1 middle tier whose every socket operation goes
 * through io_uring (liburing), for the fidelity benchmark: one thread,
 * one ring, accepts, reads and writes submitted and completed there, and
 * each request forwarded to an upstream over a pool of kept-alive
 * connections, the calls deferred to when a pool connection is free.
 *
 *   dt-uring [-q | -a] PORT HOST:PORT CONNS LOG
 *
 * Serves GET requests on PORT (IPv4, keep-alive; one request per client
 * connection in flight, no body) by asking HOST:PORT the same path over
 * one of CONNS connections (connected at the start, kept alive; a
 * request that finds none free waits in a queue) and answering with the
 * upstream's body. With -q, the ring polls its submissions from a kernel
 * thread of the process (IORING_SETUP_SQPOLL, "iou-sqp-PID"): that
 * thread, not the program's, does every read and write. With -a, every
 * read and write is flagged IOSQE_ASYNC: done by the ring's io-wq
 * workers ("iou-wrk-PID"), threads the kernel makes for it.
 *
 * For every request, once read and before it is forwarded, the program
 * looks for its own thread id (and with -q or -a, the ring's threads')
 * in /sys/distributed-tracer/list_pid and appends "PATH traced|untraced
 * TID" to LOG: traced if one is flagged, TID the one that is (the
 * program's if none).
 */
#include <errno.h>
#include <dirent.h>
#include <liburing.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CLIENTS 1024
#define UPS_MAX 64
#define BUF 16384

enum op { OP_ACCEPT, OP_CREAD, OP_CWRITE, OP_UWRITE, OP_UREAD };

struct client {
	int fd;			/* -1: a free slot */
	size_t len;		/* bytes of a request read */
	size_t sent;		/* bytes of the answer written */
	size_t out_len;
	int next;		/* the next one waiting for an upstream, or -1 */
	char path[512];
	char in[BUF];
	char out[BUF];
};

struct upstream {
	int fd;
	int client;		/* the client it serves, or -1: free */
	size_t len;
	char buf[BUF];
	char req[1024];
	size_t req_len;
};

static struct io_uring ring;
static struct client clients[CLIENTS];
static struct upstream ups[UPS_MAX];
static int nups, listen_fd, wait_head = -1, wait_tail = -1;
static bool sqpoll, async;
static FILE *logf;

static int usage(void)
{
	fprintf(stderr, "usage: dt-uring [-q | -a] PORT HOST:PORT CONNS LOG\n");
	return 2;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "dt-uring: %s: %s\n", what, strerror(err));
	exit(1);
}

static struct io_uring_sqe *sqe_get(void)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

	if (!sqe) {
		io_uring_submit(&ring);
		sqe = io_uring_get_sqe(&ring);
	}
	if (!sqe)
		die("no submission queue entry", EBUSY);
	return sqe;
}

static void submit_op(enum op op, int idx, int fd, void *buf, size_t n,
		      bool out)
{
	struct io_uring_sqe *sqe = sqe_get();

	if (op == OP_ACCEPT)
		io_uring_prep_accept(sqe, fd, NULL, NULL, 0);
	else if (out)
		io_uring_prep_send(sqe, fd, buf, n, MSG_NOSIGNAL);
	else
		io_uring_prep_recv(sqe, fd, buf, n, 0);
	if (async && op != OP_ACCEPT)
		io_uring_sqe_set_flags(sqe, IOSQE_ASYNC);
	io_uring_sqe_set_data64(sqe, (unsigned long long)op << 32 |
				     (unsigned int)idx);
}

/* dtracer's list_pid: the flagged threads' ids (n of them, at most max). */
static size_t flagged_list(long *tids, size_t max)
{
	char line[256];
	size_t n = 0;
	FILE *f = fopen("/sys/distributed-tracer/list_pid", "r");

	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f))
		tids[n++] = strtol(line, NULL, 10);
	fclose(f);
	return n;
}

static bool in_list(long tid, const long *tids, size_t n)
{
	while (n--)
		if (tids[n] == tid)
			return true;
	return false;
}

/*
 * -q, -a: the first of the ring's threads (threads of this process named
 * iou-sqp-* or iou-wrk-*) in tids, or 0.
 */
static long ring_thread_in(const long *tids, size_t n)
{
	char path[300], comm[64];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/task");
	long tid = 0;

	if (!dir)
		return 0;
	while (!tid && (d = readdir(dir))) {
		FILE *f;
		long t;

		if (d->d_name[0] == '.')
			continue;
		t = strtol(d->d_name, NULL, 10);
		if (!in_list(t, tids, n))
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 d->d_name);
		f = fopen(path, "r");
		if (f && fgets(comm, sizeof(comm), f) &&
		    !strncmp(comm, "iou-", 4))
			tid = t;
		if (f)
			fclose(f);
	}
	closedir(dir);
	return tid;
}

static void note(const char *path)
{
	long tids[256], self = syscall(SYS_gettid), tid = self;
	size_t n = flagged_list(tids, 256);
	bool traced = in_list(self, tids, n);

	if (!traced && n && (sqpoll || async)) {
		tid = ring_thread_in(tids, n);
		traced = tid;
		if (!tid)
			tid = self;
	}
	fprintf(logf, "%s %s %ld\n", path, traced ? "traced" : "untraced",
		tid);
	fflush(logf);
}

static void client_close(int c)
{
	close(clients[c].fd);
	clients[c].fd = -1;
}

/* Client c's request goes to upstream u. */
static void forward(int c, int u)
{
	struct upstream *up = &ups[u];
	int n = snprintf(up->req, sizeof(up->req),
			 "GET %s HTTP/1.1\r\nHost: upstream\r\n\r\n",
			 clients[c].path);

	up->client = c;
	up->len = 0;
	up->req_len = (size_t)n;
	submit_op(OP_UWRITE, u, up->fd, up->req, up->req_len, true);
}

static void request_read(int c)
{
	struct client *cl = &clients[c];
	int u;

	if (sscanf(cl->in, "GET %511s ", cl->path) != 1) {
		client_close(c);
		return;
	}
	note(cl->path);
	cl->len = 0;
	for (u = 0; u < nups && ups[u].client >= 0; u++)
		;
	if (u < nups) {
		forward(c, u);
		return;
	}
	cl->next = -1;
	if (wait_tail >= 0)
		clients[wait_tail].next = c;
	else
		wait_head = c;
	wait_tail = c;
}

/* Upstream u's answer is whole: its body goes to its client. */
static void answered(int u, const char *body, size_t n)
{
	struct client *cl = &clients[ups[u].client];
	int h;

	h = snprintf(cl->out, sizeof(cl->out),
		     "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n"
		     "Connection: keep-alive\r\n\r\n", n);
	if ((size_t)h + n > sizeof(cl->out))
		n = sizeof(cl->out) - (size_t)h;
	memcpy(cl->out + h, body, n);
	cl->out_len = (size_t)h + n;
	cl->sent = 0;
	submit_op(OP_CWRITE, ups[u].client, cl->fd, cl->out, cl->out_len,
		  true);
	ups[u].client = -1;
	if (wait_head >= 0) {
		int c = wait_head;

		wait_head = clients[c].next;
		if (wait_head < 0)
			wait_tail = -1;
		forward(c, u);
	}
}

/* Upstream u read res more bytes: its answer, if whole. */
static void upstream_read(int u, int res)
{
	struct upstream *up = &ups[u];
	const char *end, *cl;
	size_t head;
	long len;

	if (res <= 0)
		die("upstream closed or failed", res < 0 ? -res : EPIPE);
	up->len += (size_t)res;
	up->buf[up->len] = 0;
	end = strstr(up->buf, "\r\n\r\n");
	cl = strcasestr(up->buf, "\r\nContent-Length:");
	if (end && cl && cl < end) {
		head = (size_t)(end + 4 - up->buf);
		len = strtol(cl + 17, NULL, 10);
		if (len < 0 || head + (size_t)len >= sizeof(up->buf))
			die("upstream answer too long", EMSGSIZE);
		if (up->len >= head + (size_t)len) {
			answered(u, up->buf + head, (size_t)len);
			return;
		}
	}
	if (up->len + 1 >= sizeof(up->buf))
		die("upstream answer too long", EMSGSIZE);
	submit_op(OP_UREAD, u, up->fd, up->buf + up->len,
		  sizeof(up->buf) - 1 - up->len, false);
}

static void completed(struct io_uring_cqe *cqe)
{
	enum op op = (enum op)(io_uring_cqe_get_data64(cqe) >> 32);
	int i = (int)(io_uring_cqe_get_data64(cqe) & 0xffffffffu);
	int res = cqe->res, c;
	struct client *cl = &clients[i];

	switch (op) {
	case OP_ACCEPT:
		submit_op(OP_ACCEPT, 0, listen_fd, NULL, 0, false);
		if (res < 0)
			return;
		for (c = 0; c < CLIENTS && clients[c].fd >= 0; c++)
			;
		if (c == CLIENTS) {
			close(res);
			return;
		}
		clients[c].fd = res;
		clients[c].len = 0;
		submit_op(OP_CREAD, c, res, clients[c].in, BUF - 1, false);
		return;
	case OP_CREAD:
		if (res <= 0) {
			client_close(i);
			return;
		}
		cl->len += (size_t)res;
		cl->in[cl->len] = 0;
		if (strstr(cl->in, "\r\n\r\n")) {
			request_read(i);
			return;
		}
		if (cl->len + 1 >= BUF) {
			client_close(i);
			return;
		}
		submit_op(OP_CREAD, i, cl->fd, cl->in + cl->len,
			  BUF - 1 - cl->len, false);
		return;
	case OP_CWRITE:
		if (res <= 0) {
			client_close(i);
			return;
		}
		cl->sent += (size_t)res;
		if (cl->sent < cl->out_len)
			submit_op(OP_CWRITE, i, cl->fd, cl->out + cl->sent,
				  cl->out_len - cl->sent, true);
		else
			submit_op(OP_CREAD, i, cl->fd, cl->in, BUF - 1, false);
		return;
	case OP_UWRITE:
		if (res != (int)ups[i].req_len)
			die("upstream write", res < 0 ? -res : EIO);
		submit_op(OP_UREAD, i, ups[i].fd, ups[i].buf,
			  sizeof(ups[i].buf) - 1, false);
		return;
	case OP_UREAD:
		upstream_read(i, res);
		return;
	}
}

static int connect_to(const char *arg)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM }, *ai;
	char host[256];
	const char *colon = strrchr(arg, ':');
	int fd, one = 1, err;

	if (!colon || colon == arg || (size_t)(colon - arg) >= sizeof(host)) {
		fprintf(stderr, "dt-uring: HOST:PORT, not \"%s\"\n", arg);
		exit(2);
	}
	memcpy(host, arg, (size_t)(colon - arg));
	host[colon - arg] = 0;
	err = getaddrinfo(host, colon + 1, &hints, &ai);
	if (err) {
		fprintf(stderr, "dt-uring: %s: %s\n", arg, gai_strerror(err));
		exit(1);
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen))
		die(arg, errno);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	freeaddrinfo(ai);
	return fd;
}

static int listen_on(const char *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char *end;
	long p = strtol(port, &end, 10);
	int fd, one = 1;

	if (*end || p < 1 || p > 65535) {
		fprintf(stderr, "dt-uring: not a port: \"%s\"\n", port);
		exit(2);
	}
	a.sin_port = htons((unsigned short)p);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket", errno);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 128))
		die(port, errno);
	return fd;
}

int main(int argc, char **argv)
{
	struct io_uring_params params = { 0 };
	struct io_uring_cqe *cqe;
	char *end;
	long n;
	int i, err;

	if (argc > 1 && (!strcmp(argv[1], "-q") || !strcmp(argv[1], "-a"))) {
		sqpoll = argv[1][1] == 'q';
		async = argv[1][1] == 'a';
		argv++;
		argc--;
	}
	if (argc != 5)
		return usage();
	n = strtol(argv[3], &end, 10);
	if (*end || n < 1 || n > UPS_MAX) {
		fprintf(stderr, "dt-uring: CONNS is 1 to %d, not \"%s\"\n",
			UPS_MAX, argv[3]);
		return 2;
	}
	logf = fopen(argv[4], "a");
	if (!logf)
		die(argv[4], errno);
	for (i = 0; i < CLIENTS; i++)
		clients[i].fd = -1;
	listen_fd = listen_on(argv[1]);
	for (nups = 0; nups < n; nups++) {
		ups[nups].fd = connect_to(argv[2]);
		ups[nups].client = -1;
	}
	if (sqpoll) {
		params.flags = IORING_SETUP_SQPOLL;
		params.sq_thread_idle = 1000;
	}
	err = io_uring_queue_init_params(512, &ring, &params);
	if (err < 0)
		die("io_uring_queue_init_params", -err);
	submit_op(OP_ACCEPT, 0, listen_fd, NULL, 0, false);
	for (;;) {
		unsigned int head, seen = 0;

		err = io_uring_submit_and_wait(&ring, 1);
		if (err < 0 && err != -EINTR)
			die("io_uring_submit_and_wait", -err);
		io_uring_for_each_cqe(&ring, head, cqe) {
			completed(cqe);
			seen++;
		}
		io_uring_cq_advance(&ring, seen);
	}
}
