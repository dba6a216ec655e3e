/*
 * Unit tests of dtracer/frames.c, the very file the module builds: how
 * many requests (streams) a server's read of an HTTP/2 connection
 * holds, from frame headers alone, across reads cut anywhere.
 */
#include <string.h>

#include "frames.h"
#include "tap.h"

static unsigned char conn[4096];
static unsigned int conn_len;
/* The bytes the copies asked for, and whether any was a payload's. */
static unsigned int copied;
static int fail_at = -1;

static int copy(void *dst, u32 off, u32 n, void *priv)
{
	const unsigned char *read = priv;

	if (fail_at >= 0 && copied + n > (unsigned int)fail_at)
		return -1;
	copied += n;
	memcpy(dst, read + off, n);
	return 0;
}

static void put(const void *b, unsigned int n)
{
	memcpy(conn + conn_len, b, n);
	conn_len += n;
}

/* A frame: its header, then size payload bytes (0xee). */
static void frame(unsigned int size, unsigned char type, unsigned char flags,
		  unsigned int stream)
{
	unsigned char h[9] = {
		(unsigned char)(size >> 16), (unsigned char)(size >> 8),
		(unsigned char)size, type, flags,
		(unsigned char)(stream >> 24), (unsigned char)(stream >> 16),
		(unsigned char)(stream >> 8), (unsigned char)stream,
	};

	put(h, 9);
	memset(conn + conn_len, 0xee, size);
	conn_len += size;
}

static void preface(void)
{
	conn_len = 0;
	put("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 24);
}

/* The connection's bytes read in reads of cut bytes: streams in all. */
static int read_by(unsigned int cut)
{
	struct dt_h2 st = { 0 };
	unsigned int at = 0, n;
	int all = 0, k;

	copied = 0;
	while (at < conn_len) {
		n = conn_len - at < cut ? conn_len - at : cut;
		k = dt_h2_requests(&st, n, copy, conn + at);
		if (k < 0)
			return k;
		all += k;
		at += n;
	}
	return all;
}

/* The frames put since conn_len was 0: what they answer of lo to hi. */
static enum dt_h2_answer answer(unsigned int lo, unsigned int hi)
{
	struct dt_h2_ask ask = { .lo = lo, .hi = hi };

	copied = 0;
	return dt_h2_answers(conn_len, &ask, 1, copy, conn);
}

/* The first len bytes from b asked about lo to hi alone. */
static enum dt_h2_answer answer_of(unsigned int len, unsigned char *b,
				   unsigned int lo, unsigned int hi)
{
	struct dt_h2_ask ask = { .lo = lo, .hi = hi };

	return dt_h2_answers(len, &ask, 1, copy, b);
}

/* Several requests' streams asked about one write, and their ends. */
static void asks(void)
{
	struct dt_h2_ask a[4] = {
		{ .lo = 7, .hi = 7 }, { .lo = 5, .hi = 5 },
		{ .lo = 1, .hi = 3 }, { .lo = 0, .hi = 0 },
	};
	unsigned int i;
	int bad;

	/* one write: stream 3's DATA ending it, 1's trailers, 9's HEADERS */
	conn_len = 0;
	frame(10, 0x0, 0x1, 3);
	frame(5, 0x1, 0x5, 1);
	frame(8, 0x1, 0x4, 9);
	ok(dt_h2_answers(conn_len, a, 4, copy, conn) == DT_H2_ANSWER_MINE &&
	   !a[0].mine && !a[1].mine && a[2].mine && !a[3].mine,
	   "frames of the third request's streams: its (mine), no other's");
	ok(a[2].ended == 2 && !a[0].ended && !a[1].ended,
	   "... both of its streams ended (END_STREAM on DATA and on trailers: %u)", a[2].ended);
	ok(dt_h2_streams_in(a[2].lo, a[2].hi) == 2 &&
	   dt_h2_streams_in(2, 3) == 1 && dt_h2_streams_in(5, 5) == 1 &&
	   dt_h2_streams_in(0, 0) == 0,
	   "streams a client can have opened: 1 to 3, 2; 2 to 3, 1; 5, 1; none, 0");
	/* a RST_STREAM, END_HEADERS alone, an END_STREAM on stream 0 */
	conn_len = 0;
	frame(4, 0x3, 0x1, 5);
	frame(8, 0x1, 0x4, 7);
	frame(0, 0x0, 0x1, 0);
	ok(dt_h2_answers(conn_len, a, 4, copy, conn) == DT_H2_ANSWER_MINE &&
	   !a[0].ended && !a[1].ended && a[0].mine && a[1].mine && !a[2].mine,
	   "a RST_STREAM and a HEADERS without END_STREAM: theirs, ending none");
	/* the same frames as the first write, the last one cut */
	conn_len = 0;
	frame(10, 0x0, 0x1, 3);
	frame(10, 0x0, 0x1, 7);
	bad = 0;
	for (i = 19; i < conn_len; i++)
		bad += dt_h2_answers(i, a, 4, copy, conn) != DT_H2_ANSWER_MINE ||
		       !a[2].mine || a[2].ended != 1 || a[0].mine || a[0].ended;
	ok(bad == 0, "a frame cut by the write's end counts for nobody; the whole ones before it do (%d wrong)", bad);
	bad = dt_h2_answers(9, a, 4, copy, conn) != DT_H2_ANSWER_UNKNOWN ||
	      a[2].mine;
	ok(!bad, "... cut in the first frame: not known, nobody's");
	for (i = 0; i < 4; i++)
		a[i].mine = a[i].ended = 9;
	conn_len = 0;
	frame(4, 0x8, 0x0, 0);
	ok(dt_h2_answers(conn_len, a, 4, copy, conn) == DT_H2_ANSWER_UNKNOWN &&
	   !a[0].mine && !a[1].ended && !a[3].ended,
	   "a WINDOW_UPDATE alone: not known, the asks' answers cleared");
	/* each end counted */
	conn_len = 0;
	for (i = 0; i < DT_H2_ANSWER_FRAMES; i++)
		frame(0, 0x0, 0x1, 5);
	ok(dt_h2_answers(conn_len, a, 4, copy, conn) == DT_H2_ANSWER_MINE &&
	   a[1].ended == DT_H2_ANSWER_FRAMES,
	   "%d frames ending stream 5: each counted (%u)", DT_H2_ANSWER_FRAMES, a[1].ended);
}

/* A server's writes: which streams they answer (dt_h2_answers). */
static void answers(void)
{
	unsigned int i;
	int bad;

	/* Go's server: a call's answer, HEADERS, DATA, trailers */
	conn_len = 0;
	frame(20, 0x1, 0x4, 3);
	frame(100, 0x0, 0x0, 3);
	frame(12, 0x1, 0x5, 3);
	ok(answer(1, 1) == DT_H2_ANSWER_OTHERS && copied == 3 * 9,
	   "another stream's answer, whole: others (only 3 headers copied)");
	ok(answer(3, 3) == DT_H2_ANSWER_MINE && answer(1, 5) == DT_H2_ANSWER_MINE,
	   "... the traced stream's, or one of those read with it: mine");
	frame(4, 0x8, 0x0, 0);
	frame(4, 0x8, 0x0, 1);
	frame(8, 0x6, 0x1, 0);
	ok(answer(1, 1) == DT_H2_ANSWER_OTHERS,
	   "a WINDOW_UPDATE of the traced stream and a PING beside it answer nothing");
	conn_len = 0;
	frame(4, 0x8, 0x0, 0);
	frame(8, 0x6, 0x1, 0);
	frame(0, 0x4, 0x1, 0);
	ok(answer(1, 1) == DT_H2_ANSWER_UNKNOWN,
	   "connection frames alone: not known (an interim answer's rule)");
	conn_len = 0;
	frame(4, 0x3, 0x0, 1);
	ok(answer(1, 1) == DT_H2_ANSWER_MINE, "an RST_STREAM of the traced stream: mine");
	/* a write that does not hold whole frames */
	conn_len = 0;
	frame(100, 0x0, 0x0, 3);
	bad = 0;
	for (i = 1; i < conn_len; i++)
		bad += answer_of(i, conn, 1, 1) != DT_H2_ANSWER_UNKNOWN;
	ok(bad == 0, "a frame cut by the write's end, anywhere: not known (%d wrong)", bad);
	ok(answer_of(conn_len - 9, conn + 9, 1, 1) == DT_H2_ANSWER_UNKNOWN,
	   "a write that starts in a payload (0xee...): not known");
	conn_len = 0;
	frame(0, 0x0, 0x0, 0x80000003u);
	ok(answer(1, 1) == DT_H2_ANSWER_UNKNOWN, "a stream id with its reserved bit: not known");
	conn_len = 0;
	frame(0, 0xa, 0x0, 3);
	ok(answer(1, 1) == DT_H2_ANSWER_UNKNOWN, "a type RFC 9113 does not define: not known");
	conn_len = 0;
	for (i = 0; i < DT_H2_ANSWER_FRAMES; i++)
		frame(0, 0x0, 0x0, 3);
	ok(answer(1, 1) == DT_H2_ANSWER_OTHERS, "%d frames: others", DT_H2_ANSWER_FRAMES);
	frame(0, 0x0, 0x0, 3);
	ok(answer(1, 1) == DT_H2_ANSWER_UNKNOWN, "one more: not known");
	fail_at = 9;
	conn_len = 0;
	frame(0, 0x0, 0x0, 3);
	frame(0, 0x0, 0x0, 5);
	ok(answer(1, 1) == DT_H2_ANSWER_UNKNOWN, "a frame header that cannot be copied: not known");
	fail_at = -1;
}

int main(void)
{
	unsigned int cut, i, bad;
	int n1, n2, n3, n4, n5;
	struct dt_h2 st = { 0 };

	/* curl: preface, SETTINGS, WINDOW_UPDATE, one request */
	preface();
	frame(18, 0x4, 0, 0);
	frame(4, 0x8, 0, 0);
	frame(30, 0x1, 0x5, 1);
	ok(read_by(conn_len) == 1 && copied == 24 + 3 * 9,
	   "curl's first write: one stream; only the preface and 3 headers copied (%u bytes)", copied);

	/* h2load -m 16: 16 requests at once, after the preface's frames */
	preface();
	frame(12, 0x4, 0, 0);
	for (i = 0; i < 16; i++)
		frame(i ? 8 : 40, 0x1, 0x5, 2 * i + 1);
	ok(read_by(conn_len) == 16, "16 HEADERS frames in one read: 16 streams");
	bad = 0;
	for (cut = 1; cut <= conn_len; cut++)
		if (read_by(cut) != 16)
			bad++;
	ok(bad == 0, "the same bytes in reads of 1 to %u bytes: 16 streams each time (%u cuts wrong)",
	   conn_len, bad);

	/* a request with a body, trailers, a CONTINUATION, control frames */
	preface();
	frame(0, 0x4, 0x1, 0);		/* SETTINGS ACK */
	frame(20, 0x1, 0x4, 3);		/* HEADERS, no END_STREAM */
	frame(100, 0x0, 0x0, 3);	/* DATA */
	frame(10, 0x1, 0x1, 3);		/* trailers: HEADERS again */
	frame(8, 0x6, 0, 0);		/* PING */
	frame(20, 0x1, 0x0, 5);		/* HEADERS ... */
	frame(5, 0x9, 0x4, 5);		/* ... CONTINUATION */
	frame(4, 0x8, 0, 5);		/* WINDOW_UPDATE */
	frame(3, 0xfa, 0, 0);		/* an extension's frame */
	bad = 0;
	for (cut = 1; cut <= conn_len; cut++)
		if (read_by(cut) != 2)
			bad++;
	ok(bad == 0, "trailers, CONTINUATION, DATA, control and unknown frames open no stream: 2 in all, any cut (%u wrong)", bad);

	/* a read of no new stream: a WINDOW_UPDATE alone */
	preface();
	frame(4, 0x8, 0, 0);
	ok(read_by(conn_len) == 0, "a read of a WINDOW_UPDATE alone: no stream");

	/* not HTTP/2 */
	conn_len = 0;
	put("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27);
	ok(read_by(conn_len) == DT_H2_NOT && read_by(3) == DT_H2_NOT,
	   "HTTP/1.1: not HTTP/2, however it is read");
	conn_len = 0;
	put("PRI * HTTP/2.0\r\n\r\nSX", 20);
	ok(read_by(conn_len) == DT_H2_NOT && read_by(19) == DT_H2_NOT,
	   "a preface wrong in its 20th byte: not HTTP/2");
	preface();
	ok(read_by(10) == 0, "the preface alone, in 3 reads: HTTP/2, no stream yet");

	/* out of step */
	preface();
	frame(20, 0x1, 0x5, 2);
	ok(read_by(conn_len) == DT_H2_LOST, "HEADERS on an even stream (the server's): lost");
	preface();
	frame(20, 0x1, 0x5, 0);
	ok(read_by(conn_len) == DT_H2_LOST, "HEADERS on stream 0: lost");
	preface();
	frame(4, 0x8, 0, 0x80000001u);
	ok(read_by(conn_len) == DT_H2_LOST, "a stream id with its reserved bit: lost");
	preface();
	for (i = 0; i <= DT_H2_FRAMES; i++)
		frame(0, 0x4, 0x1, 0);
	ok(read_by(conn_len) == DT_H2_LOST && read_by(9 * DT_H2_FRAMES) >= 0,
	   "more than %d frame headers in one read: lost; as many in two reads: counted",
	   DT_H2_FRAMES);

	/* nghttpx's upstream write at a burst: 40 calls, HEADERS and DATA */
	preface();
	frame(12, 0x4, 0, 0);
	for (i = 0; i < 40; i++) {
		frame(30, 0x1, 0x4, 2 * i + 1);
		frame(5, 0x0, 0x1, 2 * i + 1);
	}
	ok(read_by(conn_len) == 40, "a proxy's write of 40 calls (81 frames): 40 streams");

	/* a copy that fails (the reader's page gone) */
	preface();
	frame(30, 0x1, 0x5, 1);
	fail_at = 10;
	ok(read_by(conn_len) == DT_H2_NOT, "a preface that cannot be copied: not HTTP/2");
	fail_at = 24 + 4;
	ok(read_by(conn_len) == DT_H2_LOST, "a frame header that cannot be copied: lost");
	fail_at = -1;

	/* a request's HEADERS cut by a read: counted in the read after */
	preface();
	frame(30, 0x1, 0x5, 1);
	memset(&st, 0, sizeof(st));
	copied = 0;
	ok(dt_h2_requests(&st, 24 + 9 + 10, copy, conn) == 0 &&
	   dt_h2_requests(&st, 20, copy, conn + 24 + 9 + 10) == 1,
	   "a HEADERS frame cut in its payload: the stream counts in the read that ends it");
	preface();
	frame(10, 0x1, 0x1, 1);		/* HEADERS, END_STREAM, no END_HEADERS */
	frame(10, 0x9, 0x0, 1);		/* CONTINUATION */
	frame(10, 0x9, 0x4, 1);		/* CONTINUATION, END_HEADERS */
	memset(&st, 0, sizeof(st));
	ok(dt_h2_requests(&st, 24 + 19 + 19, copy, conn) == 0 &&
	   dt_h2_requests(&st, 19, copy, conn + 24 + 38) == 1,
	   "a header block in CONTINUATIONs: the stream counts with its END_HEADERS");

	/* a frame's payload spans reads: skipped, never copied */
	preface();
	frame(1000, 0x0, 0x0, 1);
	frame(30, 0x1, 0x5, 3);
	memset(&st, 0, sizeof(st));
	copied = 0;
	ok(dt_h2_requests(&st, 24 + 9 + 500, copy, conn) == 0 && st.skip == 500 &&
	   dt_h2_requests(&st, conn_len - (24 + 9 + 500), copy, conn + 24 + 9 + 500) == 1 &&
	   copied == 24 + 2 * 9,
	   "a DATA frame cut by a read: its payload skipped, the next HEADERS counted (%u bytes copied)",
	   copied);

	/* connection frames alone (ingress.c: they end no served request) */
	preface();
	frame(0, 0x4, 0x1, 0);		/* SETTINGS ACK */
	frame(8, 0x6, 0x1, 0);		/* PING ACK */
	frame(4, 0x8, 0x0, 0);		/* WINDOW_UPDATE, the connection's */
	frame(4, 0x8, 0x0, 1);		/* WINDOW_UPDATE, a stream's */
	frame(100, 0x0, 0x0, 1);	/* DATA */
	frame(8, 0x6, 0x0, 0);		/* PING */
	memset(&st, 0, sizeof(st));
	n1 = dt_h2_requests(&st, 24, copy, conn) == 0 && st.streamed;
	n2 = dt_h2_requests(&st, 9 + 17 + 13 + 13, copy, conn + 24) == 0 &&
	     !st.streamed;
	n3 = dt_h2_requests(&st, 9 + 50, copy, conn + 24 + 52) == 0 &&
	     st.streamed;
	n4 = dt_h2_requests(&st, 50, copy, conn + 24 + 52 + 59) == 0 &&
	     st.streamed;
	n5 = dt_h2_requests(&st, 17, copy, conn + 24 + 52 + 109) == 0 &&
	     !st.streamed;
	ok(n1 && n2 && n3 && n4 && n5,
	   "connection frames alone say so; the preface, a DATA frame and its rest do not (%d%d%d%d%d)",
	   n1, n2, n3, n4, n5);
	answers();
	asks();
	return tap_done();
}
