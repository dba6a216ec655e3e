/*
 * dt-httpd: an HTTP/1.1 backend for the fidelity tests that says, per
 * request, whether the thread that served it was flagged by dtracer
 * (its ground truth: was this request traced here?).
 *
 *   dt-httpd [-b BYTES | -f FILE] [-w CHUNK] [-p WORKERS] [-u HOST:PORT]
 *            [-n /SOCK] PORT|/PATH LOG
 *
 * Serves GET and POST requests on PORT (IPv4, every address; a PORT that
 * begins with "/" is the path of a UNIX stream socket instead; a POST's
 * body, of its Content-Length, is read and dropped) with keep-alive
 * (HTTP/1.1; "Connection: close" or HTTP/1.0 closes after the answer).
 * The answer is BYTES bytes (default 1000), written CHUNK bytes per
 * write() (default: all at once), or FILE sent with sendfile(), CHUNK
 * bytes per call. For every request, after reading it
 * and before answering (and before asking the store, see -u), the
 * serving thread looks for its own id in /sys/distributed-tracer/list_pid
 * (in a request it has not answered yet) and appends "PATH
 * traced|untraced TID" to LOG.
 *
 * Threads: one per connection by default. With -p, a pool: one thread
 * reads every connection's requests (epoll, one request per connection
 * in flight) and hands each to one of WORKERS worker threads through a
 * queue (a mutex and a condition variable: futex wake-ups); the worker
 * checks its own flag, answers, and gives the connection back to the
 * reader (a pipe).
 *
 * With -u, the serving thread asks a Redis store at HOST:PORT before
 * each answer (an inline PING on a connection of its own, kept alive;
 * "+PONG" back), and answers 502 if it cannot: the middle of a chain.
 *
 * With -n, a notification: dt-httpd listens on the UNIX stream socket
 * SOCK, and a thread of its own connects to it; after noting each
 * request, the serving thread writes its PATH and a newline on the
 * connection dt-httpd accepted there (its serving end), and the
 * connecting thread reads it, looks for its own id in list_pid (flagged
 * at all) and appends "PATH traced|untraced TID" to SOCK.log: bytes
 * written on a serving end are no request of the writer's context.
 */
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <netdb.h>
#include <sys/epoll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#define REQMAX 8192
#define QMAX 256

static long body_bytes = 1000, chunk_bytes;
static int body_file = -1;	/* -f: sendfile() from it */
static FILE *logf;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static struct addrinfo *store;	/* -u */
static __thread int store_fd = -1;	/* this thread's connection to it */
static int notify_fd = -1;	/* -n: the accepted end */
static pthread_mutex_t notify_lock = PTHREAD_MUTEX_INITIALIZER;

static int usage(void)
{
	fprintf(stderr,
		"usage: dt-httpd [-b BYTES | -f FILE] [-w CHUNK] [-p WORKERS] [-u HOST:PORT] [-n /SOCK] PORT|/PATH LOG\n");
	return 2;
}

static int parse_num(const char *s, long min, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	if (errno || *end || end == s || *out < min) {
		fprintf(stderr, "dt-httpd: not a number >= %ld: \"%s\"\n", min,
			s);
		return -1;
	}
	return 0;
}

/*
 * Whether this thread's id is in dtracer's list_pid: at all, or (unanswered)
 * in a request it has not answered yet (a worker listed "answered" is
 * still in its last request, which it answered: its next calls are no
 * marked calls).
 */
static bool listed(bool unanswered)
{
	long tid = syscall(SYS_gettid);
	char line[256];
	bool found = false;
	FILE *f = fopen("/sys/distributed-tracer/list_pid", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strtol(line, NULL, 10) == tid &&
			!(unanswered && strstr(line, " answered"));
	fclose(f);
	return found;
}

static void note(const char *path, bool traced)
{
	pthread_mutex_lock(&log_lock);
	fprintf(logf, "%s %s %ld\n", path, traced ? "traced" : "untraced",
		(long)syscall(SYS_gettid));
	fflush(logf);
	pthread_mutex_unlock(&log_lock);
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

/* -n: path and a newline on the accepted end; a failure is said. */
static void notify(const char *path)
{
	char line[600];
	int n;

	if (notify_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%s\n", path);
	pthread_mutex_lock(&notify_lock);
	if (write_all(notify_fd, line, (size_t)n))
		perror("dt-httpd: notify");
	pthread_mutex_unlock(&notify_lock);
}

/* -n: the connecting end's thread: each line read, noted with its flag. */
static void *subscriber(void *arg)
{
	FILE *in = fdopen(*(int *)arg, "r"), *out = fdopen(((int *)arg)[1], "a");
	char line[600];

	if (!in || !out) {
		perror("dt-httpd: subscriber");
		return NULL;
	}
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = 0;
		fprintf(out, "%s %s %ld\n", line,
			listed(false) ? "traced" : "untraced",
			(long)syscall(SYS_gettid));
		fflush(out);
	}
	return NULL;
}

/* -u HOST:PORT: the store's address, or -1 (said why). */
static int parse_store(const char *arg)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM };
	char host[256];
	const char *colon = strrchr(arg, ':');
	int err;

	if (!colon || colon == arg || !colon[1] ||
	    (size_t)(colon - arg) >= sizeof(host)) {
		fprintf(stderr, "dt-httpd: -u wants HOST:PORT, not \"%s\"\n",
			arg);
		return -1;
	}
	memcpy(host, arg, (size_t)(colon - arg));
	host[colon - arg] = 0;
	err = getaddrinfo(host, colon + 1, &hints, &store);
	if (err) {
		fprintf(stderr, "dt-httpd: -u %s: %s\n", arg, gai_strerror(err));
		return -1;
	}
	return 0;
}

/*
 * -u: asks the store on this thread's connection (opened on first use,
 * kept): an inline PING, one line back. 0 if it said +PONG.
 */
static int ask_store(void)
{
	char line[64];
	size_t len = 0;
	ssize_t n;

	if (!store)
		return 0;
	if (store_fd < 0) {
		store_fd = socket(AF_INET, SOCK_STREAM, 0);
		if (store_fd < 0)
			return -1;
		if (connect(store_fd, store->ai_addr, store->ai_addrlen))
			goto fail;
	}
	if (write_all(store_fd, "PING\r\n", 6))
		goto fail;
	while (!memchr(line, '\n', len)) {
		if (len == sizeof(line))
			goto fail;
		n = read(store_fd, line + len, sizeof(line) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		len += (size_t)n;
	}
	if (len >= 5 && !memcmp(line, "+PONG", 5))
		return 0;
fail:
	perror("dt-httpd: the store");
	close(store_fd);
	store_fd = -1;
	return -1;
}

/* The body: BYTES of filler, CHUNK per write(), or the file by sendfile(). */
static int write_body(int fd)
{
	static const char fill[4096] = { 'x' };
	off_t off = 0;
	long left, n;
	ssize_t w;

	for (left = body_bytes; left > 0; left -= n) {
		n = chunk_bytes ? chunk_bytes : left;
		if (n > left)
			n = left;
		if (body_file >= 0) {
			w = sendfile(fd, body_file, &off, (size_t)n);
			if (w < 0 && errno == EINTR)
				w = 0;
			if (w < 0)
				return -1;
			n = w;
			continue;
		}
		if (n > (long)sizeof(fill))
			n = sizeof(fill);
		if (write_all(fd, fill, (size_t)n))
			return -1;
	}
	return 0;
}

/* One connection's read state: bytes of requests not yet served. */
struct conn {
	int fd;
	size_t len;
	char buf[REQMAX];
};

/*
 * The length of the request at the head of c's buffer, head and body
 * (its Content-Length), if the buffer holds it whole; 0 if not yet; -1
 * if it cannot fit (or says no length a number).
 */
static long request_len(const struct conn *c)
{
	const char *end = memmem(c->buf, c->len, "\r\n\r\n", 4), *p;
	long head, body = 0;
	char *num_end;

	if (!end)
		return c->len == sizeof(c->buf) ? -1 : 0;
	head = end + 4 - c->buf;
	for (p = c->buf; p < end; p++) {
		if (p != c->buf && p[-1] != '\n')
			continue;
		if (end - p > 15 && !strncasecmp(p, "Content-Length:", 15)) {
			body = strtol(p + 15, &num_end, 10);
			if (num_end == p + 15 || body < 0 ||
			    (*num_end != '\r' && !isspace((unsigned char)*num_end)))
				return -1;
		}
	}
	if (head + body > (long)sizeof(c->buf))
		return -1;
	return (long)c->len >= head + body ? head + body : 0;
}

/*
 * Reads until conn holds a whole request (request_len()); 1 if so, 0 at
 * the peer's end, -1 on error or a request too long.
 */
static int read_request(struct conn *c)
{
	ssize_t n;
	long want;

	while (!(want = request_len(c))) {
		n = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : 0;
		c->len += (size_t)n;
	}
	return want > 0 ? 1 : -1;
}

/*
 * Serves the request at the head of c's buffer: notes it, answers it,
 * drops it from the buffer. 1: keep the connection, 0: close it.
 */
static int serve_request(struct conn *c)
{
	char path[512] = "?", head[128], method[8];
	size_t used = (size_t)request_len(c);
	bool keep, ok, traced;
	long n;

	if (sscanf(c->buf, "%7s %511s", method, path) != 2 ||
	    (strcmp(method, "GET") && strcmp(method, "POST")))
		strcpy(path, "?");
	keep = memmem(c->buf, used, "HTTP/1.1", 8) &&
	       !memmem(c->buf, used, "Connection: close", 17);
	/*
	 * Whether this thread is flagged, then the store asked, before the
	 * log's mutex: a sibling that releases it may hand this thread its
	 * request (dtracer's hand-off guess), and the store's request must
	 * be asked under the state noted.
	 */
	traced = listed(true);
	ok = !ask_store();
	note(path, traced);
	notify(path);
	n = snprintf(head, sizeof(head),
		     "HTTP/1.1 %s\r\nContent-Length: %ld\r\n%s\r\n",
		     ok ? "200 OK" : "502 Bad Gateway", ok ? body_bytes : 0,
		     keep ? "" : "Connection: close\r\n");
	if (write_all(c->fd, head, (size_t)n) || (ok && write_body(c->fd)))
		return 0;
	memmove(c->buf, c->buf + used, c->len - used);
	c->len -= used;
	return keep;
}

static void *per_connection(void *arg)
{
	struct conn *c = arg;

	while (read_request(c) > 0 && serve_request(c))
		;
	close(c->fd);
	free(c);
	return NULL;
}

/* The pool: a queue of connections whose request was read. */
static struct conn *queue[QMAX];
static int q_head, q_len;
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;
static int back[2];		/* workers -> reader: connections to watch */

static void *worker(void *arg)
{
	struct conn *c;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&q_lock);
		while (!q_len)
			pthread_cond_wait(&q_cond, &q_lock);
		c = queue[q_head];
		q_head = (q_head + 1) % QMAX;
		q_len--;
		pthread_mutex_unlock(&q_lock);
		if (serve_request(c)) {
			if (write_all(back[1], (char *)&c, sizeof(c)) == 0)
				continue;
		}
		close(c->fd);
		free(c);
	}
	return NULL;
}

static void hand_over(struct conn *c)
{
	pthread_mutex_lock(&q_lock);
	if (q_len == QMAX) {
		pthread_mutex_unlock(&q_lock);
		close(c->fd);
		free(c);
		return;
	}
	queue[(q_head + q_len++) % QMAX] = c;
	pthread_cond_signal(&q_cond);
	pthread_mutex_unlock(&q_lock);
}

static int watch(int ep, struct conn *c)
{
	struct epoll_event e = { .events = EPOLLIN | EPOLLONESHOT,
				 .data.ptr = c };

	if (!epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &e))
		return 0;
	return epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &e);
}

/* The pool's reader: accepts, reads requests, hands them over. */
static int pool(int ls, long workers)
{
	struct epoll_event e = { .events = EPOLLIN }, got[16];
	pthread_t t;
	struct conn *c;
	int ep, i, n;

	ep = epoll_create1(0);
	if (ep < 0 || pipe(back) || epoll_ctl(ep, EPOLL_CTL_ADD, ls, &e))
		return perror("dt-httpd: epoll"), 1;
	e.data.ptr = back;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, back[0], &e))
		return perror("dt-httpd: epoll"), 1;
	for (i = 0; i < workers; i++)
		if (pthread_create(&t, NULL, worker, NULL))
			return perror("dt-httpd: pthread_create"), 1;
	for (;;) {
		n = epoll_wait(ep, got, 16, -1);
		for (i = 0; i < n; i++) {
			if (!got[i].data.ptr) {
				c = calloc(1, sizeof(*c));
				if (!c || (c->fd = accept(ls, NULL, NULL)) < 0) {
					free(c);
					continue;
				}
			} else if (got[i].data.ptr == back) {
				if (read(back[0], &c, sizeof(c)) != sizeof(c))
					continue;
			} else {
				c = got[i].data.ptr;
				if (read_request(c) <= 0) {
					close(c->fd);
					free(c);
					continue;
				}
			}
			/* A request already read waits for no new bytes. */
			if (request_len(c) > 0)
				hand_over(c);
			else if (watch(ep, c))
				close(c->fd), free(c);
		}
	}
}

static int listen_on(long port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 128)) {
		perror("dt-httpd: listen");
		return -1;
	}
	return fd;
}

/* A UNIX stream socket at path (made anew), listening. */
static int listen_unix(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(a.sun_path)) {
		fprintf(stderr, "dt-httpd: %s: path too long\n", path);
		return -1;
	}
	strcpy(a.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || (unlink(path) && errno != ENOENT) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 128)) {
		perror("dt-httpd: listen");
		return -1;
	}
	return fd;
}

/*
 * -n SOCK: listens there (the listener stays open: an accepted end tells
 * itself by the listener's address, dtracer's unix.c), connects a
 * subscriber thread, keeps the accepted end. 0, or -1 (said why).
 */
static int notify_start(const char *sock)
{
	static int ends[2];	/* the subscriber's: its socket, SOCK.log */
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char path[sizeof(a.sun_path) + 4];
	pthread_t t;
	int ls = listen_unix(sock);

	if (ls < 0)
		return -1;
	strcpy(a.sun_path, sock);
	snprintf(path, sizeof(path), "%s.log", sock);
	ends[0] = socket(AF_UNIX, SOCK_STREAM, 0);
	ends[1] = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (ends[0] < 0 || ends[1] < 0 ||
	    connect(ends[0], (struct sockaddr *)&a, sizeof(a)) ||
	    (notify_fd = accept(ls, NULL, NULL)) < 0 ||
	    pthread_create(&t, NULL, subscriber, ends)) {
		perror("dt-httpd: -n");
		return -1;
	}
	pthread_detach(t);
	return 0;
}

int main(int argc, char **argv)
{
	long port, workers = 0;
	pthread_t t;
	struct conn *c;
	const char *notify_sock = NULL;
	int opt, ls;

	struct stat st;

	while ((opt = getopt(argc, argv, "b:f:w:p:u:n:")) != -1) {
		if (opt == 'n') {
			if (optarg[0] != '/')
				return usage();
			notify_sock = optarg;
			continue;
		}
		if (opt == 'f') {
			body_file = open(optarg, O_RDONLY);
			if (body_file < 0 || fstat(body_file, &st))
				return perror("dt-httpd: -f"), 1;
			body_bytes = (long)st.st_size;
			continue;
		}
		if ((opt == 'u' && parse_store(optarg)) ||
		    (opt == 'b' && parse_num(optarg, 0, &body_bytes)) ||
		    (opt == 'w' && parse_num(optarg, 1, &chunk_bytes)) ||
		    (opt == 'p' && parse_num(optarg, 1, &workers)) ||
		    opt == '?')
			return usage();
	}
	if (argc - optind != 2 ||
	    (argv[optind][0] != '/' &&
	     (parse_num(argv[optind], 1, &port) || port > 65535)))
		return usage();
	logf = fopen(argv[optind + 1], "a");
	if (!logf)
		return perror("dt-httpd: log"), 1;
	signal(SIGPIPE, SIG_IGN);
	ls = argv[optind][0] == '/' ? listen_unix(argv[optind]) :
				      listen_on(port);
	if (ls < 0 || (notify_sock && notify_start(notify_sock)))
		return 1;
	if (workers)
		return pool(ls, workers);
	for (;;) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return perror("dt-httpd"), 1;
		c->fd = accept(ls, NULL, NULL);
		if (c->fd < 0 || pthread_create(&t, NULL, per_connection, c)) {
			if (c->fd >= 0)
				close(c->fd);
			free(c);
			continue;
		}
		pthread_detach(t);
	}
}
