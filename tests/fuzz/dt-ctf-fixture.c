/*
 * dt-ctf-fixture DIR: write a small CTF 1.8 trace of two hosts, as
 * `dtracer record` would have collected it (DIR/dt-a/kernel/, DIR/dt-b/
 * kernel/: plain-text metadata and one stream of two packets each), with
 * the events dtracer's readers know: three requests from a client
 * thread on dt-a (flagged by hand) to a server thread on dt-b (flagged
 * by the marked bytes, unflagged when it answers), marked segments both
 * ways, scheduler switches and a system call. dt-b's clock runs 5 ms
 * ahead of dt-a's. Tests break copies of it (t-corrupt.sh); a valid one
 * merges, and its requests, view and exports work. Nothing here comes
 * from LTTng: the metadata is written for this fixture.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0 1000000000ull		/* first event, clock cycles (ns) */
#define SKEW 5000000ll			/* dt-b's clock ahead of dt-a's */
#define LATENCY 150000ull		/* one way on the wire */

static const char metadata_fmt[] =
"/* CTF 1.8 */\n"
"\n"
"/* dtracer's test fixture (tests/fuzz/dt-ctf-fixture.c) */\n"
"\n"
"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
"typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
"\n"
"trace {\n"
"\tmajor = 1;\n"
"\tminor = 8;\n"
"\tuuid = \"%s\";\n"
"\tbyte_order = le;\n"
"\tpacket.header := struct {\n"
"\t\tuint32_t magic;\n"
"\t\tuint8_t uuid[16];\n"
"\t\tuint32_t stream_id;\n"
"\t};\n"
"};\n"
"\n"
"env {\n"
"\thostname = \"%s\";\n"
"\tdomain = \"kernel\";\n"
"\ttracer_name = \"lttng-modules\";\n"
"\ttracer_major = 2;\n"
"\ttracer_minor = 13;\n"
"};\n"
"\n"
"clock {\n"
"\tname = \"monotonic\";\n"
"\tfreq = 1000000000;\n"
"\toffset_s = 1700000000;\n"
"\toffset = 0;\n"
"\tabsolute = true;\n"
"};\n"
"\n"
"typealias integer { size = 64; align = 8; signed = false;\n"
"\tmap = clock.monotonic.value; } := uint64_clock_t;\n"
"\n"
"stream {\n"
"\tid = 0;\n"
"\tpacket.context := struct {\n"
"\t\tuint64_clock_t timestamp_begin;\n"
"\t\tuint64_clock_t timestamp_end;\n"
"\t\tuint64_t content_size;\n"
"\t\tuint64_t packet_size;\n"
"\t\tuint64_t packet_seq_num;\n"
"\t\tuint64_t events_discarded;\n"
"\t\tuint32_t cpu_id;\n"
"\t};\n"
"\tevent.header := struct {\n"
"\t\tuint32_t id;\n"
"\t\tuint64_clock_t timestamp;\n"
"\t};\n"
"\tevent.context := struct {\n"
"\t\tint32_t _tid;\n"
"\t\tint32_t _pid;\n"
"\t\tstring _procname;\n"
"\t};\n"
"};\n"
"\n"
"event {\n"
"\tname = \"dtracer_flag\";\n"
"\tid = 0;\n"
"\tstream_id = 0;\n"
"\tfields := struct {\n"
"\t\tint32_t _tid;\n"
"\t\tint32_t _pid;\n"
"\t\tuint8_t _reason;\n"
"\t\tint32_t _parent;\n"
"\t\tuint8_t _family;\n"
"\t\tuint8_t __saddr_length;\n"
"\t\tuint8_t _saddr[__saddr_length];\n"
"\t\tuint8_t __daddr_length;\n"
"\t\tuint8_t _daddr[__daddr_length];\n"
"\t\tuint16_t _sport;\n"
"\t\tuint16_t _dport;\n"
"\t};\n"
"};\n"
"\n"
"event {\n"
"\tname = \"dtracer_unflag\";\n"
"\tid = 1;\n"
"\tstream_id = 0;\n"
"\tfields := struct {\n"
"\t\tint32_t _tid;\n"
"\t\tint32_t _pid;\n"
"\t\tuint8_t _reason;\n"
"\t\tuint64_t _duration_ns;\n"
"\t\tuint8_t _request;\n"
"\t};\n"
"};\n"
"\n"
"event {\n"
"\tname = \"dtracer_mark_send\";\n"
"\tid = 2;\n"
"\tstream_id = 0;\n"
"\tfields := struct {\n"
"\t\tint32_t _tid;\n"
"\t\tint32_t _pid;\n"
"\t\tuint8_t _family;\n"
"\t\tuint8_t __saddr_length;\n"
"\t\tuint8_t _saddr[__saddr_length];\n"
"\t\tuint8_t __daddr_length;\n"
"\t\tuint8_t _daddr[__daddr_length];\n"
"\t\tuint16_t _sport;\n"
"\t\tuint16_t _dport;\n"
"\t\tuint32_t _seq;\n"
"\t\tuint32_t _end_seq;\n"
"\t\tuint8_t _reason;\n"
"\t};\n"
"};\n"
"\n"
"event {\n"
"\tname = \"dtracer_mark_recv\";\n"
"\tid = 3;\n"
"\tstream_id = 0;\n"
"\tfields := struct {\n"
"\t\tuint8_t _family;\n"
"\t\tuint8_t __saddr_length;\n"
"\t\tuint8_t _saddr[__saddr_length];\n"
"\t\tuint8_t __daddr_length;\n"
"\t\tuint8_t _daddr[__daddr_length];\n"
"\t\tuint16_t _sport;\n"
"\t\tuint16_t _dport;\n"
"\t\tuint32_t _seq;\n"
"\t\tuint32_t _end_seq;\n"
"\t};\n"
"};\n"
"\n"
"event {\n"
"\tname = \"sched_switch\";\n"
"\tid = 4;\n"
"\tstream_id = 0;\n"
"\tfields := struct {\n"
"\t\tstring _prev_comm;\n"
"\t\tint32_t _prev_tid;\n"
"\t\tint32_t _prev_prio;\n"
"\t\tint64_t _prev_state;\n"
"\t\tstring _next_comm;\n"
"\t\tint32_t _next_tid;\n"
"\t\tint32_t _next_prio;\n"
"\t};\n"
"};\n"
"\n"
"event {\n"
"\tname = \"syscall_entry_recvfrom\";\n"
"\tid = 5;\n"
"\tstream_id = 0;\n"
"\tfields := struct {\n"
"\t\tint32_t _fd;\n"
"\t\tuint64_t _size;\n"
"\t};\n"
"};\n"
"\n"
"event {\n"
"\tname = \"syscall_exit_recvfrom\";\n"
"\tid = 6;\n"
"\tstream_id = 0;\n"
"\tfields := struct {\n"
"\t\tint64_t _ret;\n"
"\t};\n"
"};\n";

enum { FLAG, UNFLAG, SEND, RECV, SWITCH, SYS_ENTRY, SYS_EXIT };

/* A growing byte buffer, little-endian writers. */
struct buf {
	unsigned char *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *data, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("dt-ctf-fixture");
			exit(1);
		}
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

static void le(struct buf *b, uint64_t v, int bytes)
{
	unsigned char x[8];

	for (int i = 0; i < bytes; i++)
		x[i] = (unsigned char)(v >> (8 * i));
	put(b, x, (size_t)bytes);
}

static void str(struct buf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
}

struct host {
	const char *name, *uuid;
	unsigned char uuid_bytes[16];
	int64_t skew;
	struct buf ev[2];	/* events of each packet */
	uint64_t first[2], last[2];
	int packet;		/* the one being filled */
};

static void header(struct host *h, int id, uint64_t ts, int32_t tid,
		   const char *procname)
{
	struct buf *b = &h->ev[h->packet];
	uint64_t t = (uint64_t)((int64_t)ts + h->skew);

	if (!b->n)
		h->first[h->packet] = t;
	h->last[h->packet] = t;
	le(b, (uint64_t)id, 4);
	le(b, t, 8);
	le(b, (uint64_t)tid, 4);
	le(b, (uint64_t)tid, 4);	/* pid: one thread per process */
	str(b, procname);
}

/* The flow: the client's port and ip, the server's. */
static const unsigned char ip_a[4] = { 192, 0, 2, 11 };
static const unsigned char ip_b[4] = { 192, 0, 2, 12 };

static void flow(struct buf *b, int to_b)
{
	le(b, 2, 1);		/* AF_INET */
	le(b, 4, 1);
	put(b, to_b ? ip_a : ip_b, 4);
	le(b, 4, 1);
	put(b, to_b ? ip_b : ip_a, 4);
	le(b, to_b ? 40000 : 8080, 2);
	le(b, to_b ? 8080 : 40000, 2);
}

static void flag(struct host *h, uint64_t ts, int32_t tid, const char *comm,
		 int reason, int to_b)
{
	struct buf *b = &h->ev[h->packet];

	header(h, FLAG, ts, tid, comm);
	le(b, (uint64_t)tid, 4);
	le(b, (uint64_t)tid, 4);
	le(b, (uint64_t)reason, 1);
	le(b, (uint64_t)-1, 4);
	if (reason == 1) {
		flow(b, to_b);
	} else {		/* manual: no flow */
		le(b, 0, 1);
		le(b, 0, 1);
		le(b, 0, 1);
		le(b, 0, 2);
		le(b, 0, 2);
	}
}

static void unflag(struct host *h, uint64_t ts, int32_t tid,
		   const char *comm, int reason, uint64_t duration)
{
	struct buf *b = &h->ev[h->packet];

	header(h, UNFLAG, ts, tid, comm);
	le(b, (uint64_t)tid, 4);
	le(b, (uint64_t)tid, 4);
	le(b, (uint64_t)reason, 1);
	le(b, duration, 8);
	le(b, reason == 2, 1);
}

static void mark(struct host *h, int send, uint64_t ts, int32_t tid,
		 const char *comm, int to_b, uint32_t seq, uint32_t len)
{
	struct buf *b = &h->ev[h->packet];

	header(h, send ? SEND : RECV, ts, send ? tid : 0,
	       send ? comm : "swapper/0");
	if (send) {
		le(b, (uint64_t)tid, 4);
		le(b, (uint64_t)tid, 4);
	}
	flow(b, to_b);
	le(b, seq, 4);
	le(b, seq + len, 4);
	if (send)
		le(b, 0, 1);
}

static void sched_switch(struct host *h, uint64_t ts, int32_t prev,
			 const char *prev_comm, int64_t state, int32_t next,
			 const char *next_comm)
{
	struct buf *b = &h->ev[h->packet];

	header(h, SWITCH, ts, prev, prev_comm);
	str(b, prev_comm);
	le(b, (uint64_t)prev, 4);
	le(b, 120, 4);
	le(b, (uint64_t)state, 8);
	str(b, next_comm);
	le(b, (uint64_t)next, 4);
	le(b, 120, 4);
}

static void recvfrom(struct host *h, uint64_t ts, uint64_t dt, int32_t tid,
		     const char *comm, int64_t ret)
{
	struct buf *b = &h->ev[h->packet];

	header(h, SYS_ENTRY, ts, tid, comm);
	le(b, 3, 4);
	le(b, 4096, 8);
	b = &h->ev[h->packet];
	header(h, SYS_EXIT, ts + dt, tid, comm);
	le(b, (uint64_t)ret, 8);
}

static int write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "dt-ctf-fixture: %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int mkdirs(const char *dir, const char *host)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, host);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	snprintf(path, sizeof(path), "%s/%s/kernel", dir, host);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

static int write_host(const char *dir, struct host *h)
{
	char path[4096], text[sizeof(metadata_fmt) + 256];
	struct buf s = { 0 };
	int n;

	if (mkdirs(dir, h->name)) {
		fprintf(stderr, "dt-ctf-fixture: %s/%s: %s\n", dir, h->name,
			strerror(errno));
		return -1;
	}
	n = snprintf(text, sizeof(text), metadata_fmt, h->uuid, h->name);
	snprintf(path, sizeof(path), "%s/%s/kernel/metadata", dir, h->name);
	if (write_file(path, text, (size_t)n))
		return -1;
	for (int p = 0; p < 2; p++) {
		/* header 24 bytes, context 52, then the events */
		uint64_t bits = (24 + 52 + h->ev[p].n) * 8;

		le(&s, 0xc1fc1fc1, 4);
		put(&s, h->uuid_bytes, 16);
		le(&s, 0, 4);
		le(&s, h->first[p], 8);
		le(&s, h->last[p], 8);
		le(&s, bits, 8);
		le(&s, bits, 8);
		le(&s, (uint64_t)p, 8);
		le(&s, 0, 8);
		le(&s, 0, 4);
		put(&s, h->ev[p].p, h->ev[p].n);
	}
	snprintf(path, sizeof(path), "%s/%s/kernel/channel0_0", dir, h->name);
	n = write_file(path, s.p, s.n);
	free(s.p);
	return n;
}

static void uuid_bytes(struct host *h)
{
	for (int i = 0, k = 0; i < 16; k++) {
		unsigned v;

		if (h->uuid[k] == '-')
			continue;
		sscanf(h->uuid + k, "%2x", &v);
		h->uuid_bytes[i++] = (unsigned char)v;
		k++;
	}
}

int main(int argc, char **argv)
{
	struct host a = { .name = "dt-a",
			  .uuid = "6c0a2f9e-3b1d-4c55-9e21-0d7a3f1b2c01" };
	struct host b = { .name = "dt-b", .skew = SKEW,
			  .uuid = "6c0a2f9e-3b1d-4c55-9e21-0d7a3f1b2c02" };
	uint64_t t = T0;
	uint32_t seq_a = 1000, seq_b = 5000;
	int r;

	if (argc != 2) {
		fprintf(stderr, "usage: dt-ctf-fixture DIR\n");
		return 2;
	}
	if (mkdir(argv[1], 0755) && errno != EEXIST) {
		fprintf(stderr, "dt-ctf-fixture: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	uuid_bytes(&a);
	uuid_bytes(&b);
	flag(&a, t, 1001, "curl", 0, 0);
	for (int i = 0; i < 3; i++) {
		uint64_t send = t + 100000, arrive = send + LATENCY;
		uint64_t answer = arrive + 400000, back = answer + LATENCY;

		if (i == 2)
			a.packet = b.packet = 1;
		mark(&a, 1, send, 1001, "curl", 1, seq_a, 120);
		sched_switch(&a, send + 20000, 1001, "curl", 1, 0, "swapper/0");
		mark(&b, 0, arrive, 0, NULL, 1, seq_a, 120);
		sched_switch(&b, arrive + 10000, 0, "swapper/0", 0, 2001,
			     "server");
		flag(&b, arrive + 30000, 2001, "server", 1, 1);
		recvfrom(&b, arrive + 20000 + 20000, 15000, 2001, "server",
			 120);
		mark(&b, 1, answer, 2001, "server", 0, seq_b, 300);
		unflag(&b, answer + 10000, 2001, "server", 2,
		       answer + 10000 - (arrive + 30000));
		sched_switch(&b, answer + 20000, 2001, "server", 1, 0,
			     "swapper/0");
		mark(&a, 0, back, 0, NULL, 0, seq_b, 300);
		sched_switch(&a, back + 10000, 0, "swapper/0", 0, 1001, "curl");
		seq_a += 120;
		seq_b += 300;
		t = back + 200000;
	}
	unflag(&a, t, 1001, "curl", 0, t - T0);
	r = write_host(argv[1], &a) || write_host(argv[1], &b);
	for (int p = 0; p < 2; p++) {
		free(a.ev[p].p);
		free(b.ev[p].p);
	}
	return r ? 1 : 0;
}
