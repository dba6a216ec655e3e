/*
 * dt_h2_requests (dtracer/frames.c, the file the module builds): the
 * streams an HTTP/2 client opens in a server's reads. The first byte
 * says whether the client preface comes first, the next 8 where the
 * reads are cut (a byte each: a read's size), the rest is the
 * connection. Each read is handed over in a buffer of its own size (ASan
 * sees a copy past it); the total is checked against a plain reading of
 * the whole connection, a frame at a time, written apart from frames.c
 * (a stream counts once its header block ends, payload and all).
 */
#include "frames.h"

#include "fuzz.h"

static const char pri[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

static int copy(void *dst, u32 off, u32 n, void *priv)
{
	memcpy(dst, (const uint8_t *)priv + off, n);
	return 0;
}

/*
 * The plain reading: the streams opened in b, DT_H2_NOT or DT_H2_LOST;
 * *most: the most frame headers with a byte in one read (cuts[]).
 */
static int plain(const uint8_t *b, size_t n, const size_t *ends, int nends,
		 int *most)
{
	uint32_t last = 0, stream, size, per = 0;
	size_t at = 24, h;
	int opened = 0, r = 0, opening = 0;

	*most = 0;
	for (h = 0; h < n && h < 24; h++)
		if (b[h] != (uint8_t)pri[h])
			return DT_H2_NOT;
	while (at < n) {
		/* the frame header at [at, at + 9): in which reads */
		for (h = at; h < at + 9 && h < n; h++) {
			while (r < nends && ends[r] <= h) {
				r++;
				per = 0;
			}
			if (h == at || (r > 0 && ends[r - 1] == h))
				if ((int)++per > *most)
					*most = (int)per;
		}
		if (n - at < 9)
			break;
		size = (uint32_t)b[at] << 16 | (uint32_t)b[at + 1] << 8 | b[at + 2];
		stream = (uint32_t)b[at + 5] << 24 | (uint32_t)b[at + 6] << 16 |
			 (uint32_t)b[at + 7] << 8 | b[at + 8];
		if (stream >> 31)
			return DT_H2_LOST;
		if (b[at + 3] == 1) {
			if (stream % 2 == 0)
				return DT_H2_LOST;
			if (stream > last) {
				last = stream;
				opening = 1;
			}
		}
		/* a header block ends with its frame, payload and all */
		if ((b[at + 3] == 1 || b[at + 3] == 9) && (b[at + 4] & 4) &&
		    at + 9 + (size_t)size <= n) {
			opened += opening;
			opening = 0;
		}
		at += 9 + (size_t)size;
	}
	return opened;
}

/*
 * The plain reading of a server's write b (dt_h2_answers), asked about
 * n requests' streams (lo[k] to hi[k]): whole frames from its first
 * byte, each of a known type, no reserved bit, at most
 * DT_H2_ANSWER_FRAMES, up to the first that is not one; a frame that
 * answers a stream (not stream 0, not a WINDOW_UPDATE of 4 bytes or a
 * PRIORITY of 5) is the first request's whose streams hold it (mine[k]),
 * and ends one if it is a DATA or HEADERS with END_STREAM (ended[k]).
 * Mine if any request's; else others if all was read and a frame
 * answers a stream; else not known.
 */
static int plain_answer(const uint8_t *b, size_t n, const uint32_t *lo,
			const uint32_t *hi, int nk, int *mine, int *ended)
{
	int frames = 0, others = 0, any = 0, whole = 1, k;
	uint32_t size, stream;
	size_t at = 0;

	for (k = 0; k < nk; k++)
		mine[k] = ended[k] = 0;
	while (at < n) {
		if (++frames > DT_H2_ANSWER_FRAMES || n - at < 9) {
			whole = 0;
			break;
		}
		size = (uint32_t)b[at] << 16 | (uint32_t)b[at + 1] << 8 | b[at + 2];
		stream = (uint32_t)b[at + 5] << 24 | (uint32_t)b[at + 6] << 16 |
			 (uint32_t)b[at + 7] << 8 | b[at + 8];
		if (b[at + 3] > 9 || stream >> 31 || size > n - at - 9) {
			whole = 0;
			break;
		}
		if (stream && !(b[at + 3] == 8 && size == 4) &&
		    !(b[at + 3] == 2 && size == 5)) {
			for (k = 0; k < nk; k++)
				if (stream >= lo[k] && stream <= hi[k])
					break;
			if (k < nk) {
				mine[k] = any = 1;
				ended[k] += b[at + 3] <= 1 && (b[at + 4] & 1);
			} else {
				others = 1;
			}
		}
		at += 9 + size;
	}
	if (any)
		return DT_H2_ANSWER_MINE;
	return others && whole ? DT_H2_ANSWER_OTHERS : DT_H2_ANSWER_UNKNOWN;
}

/* b's n bytes as a server's write, asked about 3 requests' streams. */
static void check_answers(const uint8_t *b, size_t n, const uint8_t *cut)
{
	struct dt_h2_ask ask[3];
	uint32_t lo[3], hi[3];
	int mine[3], ended[3], k, want;
	uint8_t *w = malloc(n ? n : 1);

	FUZZ_CHECK(w);
	memcpy(w, b, n);
	for (k = 0; k < 3; k++) {
		lo[k] = cut[2 * k] % 8u;
		hi[k] = lo[k] + cut[2 * k + 1] % 8u;
		ask[k].lo = lo[k];
		ask[k].hi = hi[k];
		ask[k].mine = ask[k].ended = 7;
	}
	want = plain_answer(b, n, lo, hi, 3, mine, ended);
	FUZZ_CHECK((int)dt_h2_answers((u32)n, ask, 3, copy, w) == want);
	for (k = 0; k < 3; k++)
		FUZZ_CHECK(ask[k].mine == mine[k] && ask[k].ended == ended[k]);
	/* one ask alone: the same answer (its walk stops at its frame) */
	want = plain_answer(b, n, lo, hi, 1, mine, ended);
	FUZZ_CHECK((int)dt_h2_answers((u32)n, ask, 1, copy, w) == want &&
		   ask[0].mine == mine[0]);
	free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	int with_pri = (int)fuzz_take(&in, 1) & 1;
	uint8_t cut[8];
	size_t ends[4096], n = in.n + (with_pri ? 24 : 0), at, len;
	uint8_t *conn = malloc(n ? n : 1), *read;
	struct dt_h2 st = { 0 };
	int nends = 0, k = 0, want, most, c = 0;

	FUZZ_CHECK(conn);
	for (int i = 0; i < 8; i++)
		cut[i] = (uint8_t)fuzz_take(&in, 1);
	if (with_pri)
		memcpy(conn, pri, 24);
	memcpy(conn + (with_pri ? 24 : 0), in.p, in.n);
	for (at = 0; at < n && nends < 4096; at += len) {
		len = cut[c++ % 8] + 1;
		if (len > n - at)
			len = n - at;
		ends[nends++] = at + len;
	}
	if (at < n) {
		free(conn);
		return 0;
	}
	/* The same bytes as a server's write, in a buffer of their size. */
	check_answers(conn, n, cut);
	want = plain(conn, n, ends, nends, &most);
	for (at = 0, c = 0; at < n && k >= 0; at = ends[c++]) {
		len = ends[c] - at;
		read = malloc(len);
		FUZZ_CHECK(read);
		memcpy(read, conn + at, len);
		k = dt_h2_requests(&st, (u32)len, copy, read);
		free(read);
		if (k > 0)
			want = want >= 0 ? want - k : want;
	}
	if (k == DT_H2_NOT)
		FUZZ_CHECK(want == DT_H2_NOT);
	else if (k == DT_H2_LOST)
		FUZZ_CHECK(want == DT_H2_LOST || most > DT_H2_FRAMES);
	else
		FUZZ_CHECK(want == 0);
	free(conn);
	return 0;
}
