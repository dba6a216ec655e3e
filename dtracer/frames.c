// SPDX-License-Identifier: GPL-2.0
/*
 * HTTP/2 frames a server reads (see frames.h).
 */
#include "frames.h"

static const u8 dt_h2_preface[DT_H2_PREFACE_LEN] = {
	'P', 'R', 'I', ' ', '*', ' ', 'H', 'T', 'T', 'P', '/', '2',
	'.', '0', '\r', '\n', '\r', '\n', 'S', 'M', '\r', '\n', '\r', '\n',
};

static u32 dt_h2_min(u32 a, u32 b)
{
	return a < b ? a : b;
}

/*
 * The client preface, matched from st->preface on with the read's bytes
 * from *off: 0 (all of it, or the read ended first), or DT_H2_NOT.
 */
static int dt_h2_match_preface(struct dt_h2 *st, u32 *off, u32 len,
			       dt_h2_copy_t copy, void *priv)
{
	u8 b[DT_H2_PREFACE_LEN];
	u32 n = dt_h2_min(DT_H2_PREFACE_LEN - st->preface, len - *off);
	u32 i;

	if (copy(b, *off, n, priv))
		return DT_H2_NOT;
	for (i = 0; i < n; i++)
		if (b[i] != dt_h2_preface[st->preface + i])
			return DT_H2_NOT;
	st->preface += n;
	*off += n;
	return 0;
}

/*
 * st->hdr is a whole frame header: its payload is skipped next. Returns
 * 0, or DT_H2_LOST: a stream id with its reserved bit set, a HEADERS
 * frame on stream 0 or on an even stream (the server's).
 */
static int dt_h2_header(struct dt_h2 *st)
{
	const u8 *h = st->hdr;
	u32 stream = dt_h2_frame_stream(h);

	st->skip = dt_h2_frame_size(h);
	st->have = 0;
	st->control = dt_h2_control(h, st->skip);
	if (!st->control)
		st->streamed = 1;
	st->ends = (h[3] == DT_H2_HEADERS || h[3] == DT_H2_CONTINUATION) &&
		   (h[4] & DT_H2_END_HEADERS);
	if (stream & 0x80000000u)
		return DT_H2_LOST;
	if (h[3] != DT_H2_HEADERS)
		return 0;
	if (!(stream & 1))
		return DT_H2_LOST;
	/* trailers, or a stream opened already: no new one */
	if (stream > st->last_stream) {
		st->last_stream = stream;
		st->opening = 1;
	}
	return 0;
}

/* A frame read whole: whether it ended a new stream's header block. */
static int dt_h2_frame_done(struct dt_h2 *st)
{
	int opened = st->ends && st->opening;

	if (st->ends)
		st->opening = 0;
	st->ends = 0;
	return opened;
}

int dt_h2_requests(struct dt_h2 *st, u32 len, dt_h2_copy_t copy, void *priv)
{
	u32 off = 0, n, frames = 0;
	int opened = 0, r;

	/* The rest of a frame begun before, or the preface. */
	st->streamed = (st->skip && !st->control) ||
		       st->preface < DT_H2_PREFACE_LEN;
	if (st->preface < DT_H2_PREFACE_LEN &&
	    dt_h2_match_preface(st, &off, len, copy, priv))
		return DT_H2_NOT;
	while (off < len) {
		if (st->skip) {
			n = dt_h2_min(st->skip, len - off);
			st->skip -= n;
			off += n;
			if (!st->skip)
				opened += dt_h2_frame_done(st);
			continue;
		}
		if (++frames > DT_H2_FRAMES)
			return DT_H2_LOST;
		n = dt_h2_min(DT_H2_FRAME_HEADER - st->have, len - off);
		if (copy(st->hdr + st->have, off, n, priv))
			return DT_H2_LOST;
		st->have += n;
		off += n;
		if (st->have < DT_H2_FRAME_HEADER)
			break;
		r = dt_h2_header(st);
		if (r < 0)
			return r;
		if (!st->skip)
			opened += dt_h2_frame_done(st);
	}
	return opened;
}

/* A whole frame h of size bytes of a stream: the first ask it is of. */
static bool dt_h2_asked(const u8 *h, u32 stream, struct dt_h2_ask *ask,
			unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (stream < ask[i].lo || stream > ask[i].hi)
			continue;
		ask[i].mine = 1;
		/* at most DT_H2_ANSWER_FRAMES: no overflow */
		if ((h[3] == DT_H2_DATA || h[3] == DT_H2_HEADERS) &&
		    (h[4] & DT_H2_END_STREAM))
			ask[i].ended++;
		return true;
	}
	return false;
}

enum dt_h2_answer dt_h2_answers(u32 len, struct dt_h2_ask *ask,
				unsigned int n, dt_h2_copy_t copy, void *priv)
{
	enum dt_h2_answer a = DT_H2_ANSWER_OTHERS;
	bool mine = false, others = false;
	u8 h[DT_H2_FRAME_HEADER];
	u32 off = 0, frames = 0, size, stream;
	unsigned int i;

	for (i = 0; i < n; i++) {
		ask[i].mine = 0;
		ask[i].ended = 0;
	}
	while (off < len) {
		if (++frames > DT_H2_ANSWER_FRAMES ||
		    len - off < DT_H2_FRAME_HEADER ||
		    copy(h, off, DT_H2_FRAME_HEADER, priv)) {
			a = DT_H2_ANSWER_UNKNOWN;
			break;
		}
		off += DT_H2_FRAME_HEADER;
		size = dt_h2_frame_size(h);
		stream = dt_h2_frame_stream(h);
		if (h[3] > DT_H2_CONTINUATION || stream & 0x80000000u ||
		    size > len - off) {
			a = DT_H2_ANSWER_UNKNOWN;
			break;
		}
		off += size;
		if (!stream || dt_h2_control(h, size))
			continue;
		if (!dt_h2_asked(h, stream, ask, n)) {
			others = true;
			continue;
		}
		mine = true;
		/* One ask alone: its first frame says all it is asked. */
		if (n == 1)
			break;
	}
	if (mine)
		return DT_H2_ANSWER_MINE;
	return others ? a : DT_H2_ANSWER_UNKNOWN;
}
