/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HTTP/2 frames a server reads: how many requests (streams its client
 * opens) a read holds, from the 9-byte frame headers alone (RFC 9113,
 * section 4.1: length, type, flags, stream id). Payloads are skipped,
 * HPACK is never read. Plain C with no kernel dependency (the userspace
 * unit tests and the fuzz target build this very file); the bytes come
 * through a copy callback, so that the module copies a frame's header
 * and nothing else from the reader's memory (h2.c).
 */
#ifndef _DTRACER_FRAMES_H
#define _DTRACER_FRAMES_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "kernel-types.h"	/* tests/unit/: u8, u32, bool */
#endif

#define DT_H2_PREFACE_LEN 24	/* "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" */
#define DT_H2_FRAME_HEADER 9
/*
 * Frame headers walked in one read or write at most: past them, out of
 * step. A proxy writes a call in two frames (HEADERS, DATA), and nghttpx
 * writes the calls of every client it read in one loop's turn upstream
 * together: with 64, a burst of 33 calls would lose the connection.
 */
#define DT_H2_FRAMES 256
/* Frame headers of a server's write walked at most (dt_h2_answers). */
#define DT_H2_ANSWER_FRAMES 64

/* A frame header h's fields (RFC 9113, section 4.1). */
static inline u32 dt_h2_frame_size(const u8 *h)
{
	return (u32)h[0] << 16 | (u32)h[1] << 8 | h[2];
}

/* ... its stream id, the reserved bit included. */
static inline u32 dt_h2_frame_stream(const u8 *h)
{
	return (u32)h[5] << 24 | (u32)h[6] << 16 | (u32)h[7] << 8 | h[8];
}

/* Frame types (RFC 9113, section 6). */
#define DT_H2_DATA 0x0
#define DT_H2_HEADERS 0x1
#define DT_H2_PRIORITY 0x2
#define DT_H2_SETTINGS 0x4
#define DT_H2_PING 0x6
#define DT_H2_WINDOW_UPDATE 0x8
#define DT_H2_CONTINUATION 0x9
#define DT_H2_END_HEADERS 0x4	/* a HEADERS or CONTINUATION flag */
#define DT_H2_END_STREAM 0x1	/* a DATA or HEADERS flag */

/*
 * Whether the frame header h, of a frame of size bytes, is a connection
 * frame that answers no stream and asks nothing, well formed: SETTINGS
 * and PING on stream 0 (a SETTINGS' size a multiple of 6, none for its
 * ACK; PING's 8), WINDOW_UPDATE's 4 bytes and PRIORITY's 5 on any
 * stream.
 */
static inline bool dt_h2_control(const u8 *h, u32 size)
{
	u32 stream = dt_h2_frame_stream(h) & 0x7fffffff;
	u8 ack = h[4] & 0x1;

	switch (h[3]) {
	case DT_H2_SETTINGS:
		return !stream && size % 6 == 0 && (!ack || !size);
	case DT_H2_PING:
		return !stream && size == 8;
	case DT_H2_WINDOW_UPDATE:
		return size == 4;
	case DT_H2_PRIORITY:
		return size == 5 && stream;
	}
	return false;
}

/* Where a connection's reads stand in its client's bytes. */
struct dt_h2 {
	u32 skip;		/* payload bytes before the next header */
	u32 last_stream;	/* the highest stream a HEADERS opened */
	u8 preface;		/* bytes of the client preface matched */
	u8 opening;		/* a new stream's header block is being read */
	u8 ends;		/* ... and the frame being read ends it */
	u8 control;		/* the frame being read is a connection frame */
	u8 streamed;		/* out: the last bytes held more than those */
	u8 have;		/* bytes of hdr read (a header cut by a read) */
	u8 hdr[DT_H2_FRAME_HEADER];
};

/* Copies n bytes at off of the read into dst: 0, or not 0 if it cannot. */
typedef int (*dt_h2_copy_t)(void *dst, u32 off, u32 n, void *priv);

enum {
	DT_H2_NOT = -1,		/* not HTTP/2: no client preface */
	DT_H2_LOST = -2,	/* out of step (a bad header, too many frames) */
};

/*
 * The next len bytes of a connection read, st its state (zeroed at the
 * connection's first byte): how many streams are opened in them: a
 * HEADERS frame's stream id above every earlier one (trailers open
 * none), counted in the read that ends its header block (the frame,
 * or its last CONTINUATION, with END_HEADERS, payload and all: where a
 * server can start the request, so a stream cut by a read counts in the
 * read that completes it); or
 * DT_H2_NOT or DT_H2_LOST (st is left unusable: the caller forgets it).
 * st->streamed says whether the bytes held anything but connection
 * frames (dt_h2_control: a read of those alone asks nothing), the
 * preface included.
 * copy(dst, off, n, priv) gives bytes off to off + n of the read; it is
 * called for the preface and each frame's header only.
 */
int dt_h2_requests(struct dt_h2 *st, u32 len, dt_h2_copy_t copy, void *priv);

/*
 * The lowest stream id the next bytes of a connection (st, as above)
 * can open: the one whose header block they may end, or the next.
 */
static inline u32 dt_h2_next_stream(const struct dt_h2 *st)
{
	return st->opening ? st->last_stream : st->last_stream + 1;
}

/* What a server's write answers (dt_h2_answers). */
enum dt_h2_answer {
	DT_H2_ANSWER_UNKNOWN,	/* not whole frames, or connection frames only */
	DT_H2_ANSWER_MINE,	/* a frame of one of the streams asked about */
	DT_H2_ANSWER_OTHERS,	/* frames of other streams only */
};

/*
 * A request's streams, from lo to hi, asked about a server's write
 * (dt_h2_answers): whether it holds a frame of them, and how many of
 * them it ends.
 */
struct dt_h2_ask {
	u32 lo, hi;		/* in (hi 0: no stream) */
	u8 mine;		/* out: a frame of one of them */
	u8 ended;		/* out: frames ending one (END_STREAM) */
};

/*
 * How many streams a client can have opened from lo to hi: the odd ones
 * (RFC 9113, section 5.1.1).
 */
static inline u32 dt_h2_streams_in(u32 lo, u32 hi)
{
	return hi ? (hi + 1) / 2 - lo / 2 : 0;
}

/*
 * A server's write of len bytes on an HTTP/2 connection, read as whole
 * frames from its first byte (at most DT_H2_ANSWER_FRAMES headers, each
 * of a type RFC 9113 defines, no stream id with its reserved bit, each
 * frame's payload within the write) up to the first that is not one:
 * for each of the n asks, whether a frame of its streams is among them
 * (connection frames, dt_h2_control, are no stream's) and how many of
 * them end one of its streams (a DATA or HEADERS frame with END_STREAM;
 * a server writes that once a stream). Returns MINE if a frame of some
 * ask's streams was read, else OTHERS if the whole write was read and
 * holds frames of other streams, else UNKNOWN. A frame of two asks'
 * streams is the first's. With one ask alone (n 1), the walk stops at
 * its first frame: MINE, no end counted (a traced request's own answer,
 * the common write, costs one header). copy as above, for the frame
 * headers only.
 */
enum dt_h2_answer dt_h2_answers(u32 len, struct dt_h2_ask *ask,
				unsigned int n, dt_h2_copy_t copy, void *priv);

#endif
