/*
 * dt_answer_of (dtracer/interim.c, the file the module builds): what a
 * server's write is from its first bytes, which egress.c copies from the
 * writer's memory. The first 2 bytes are how many bytes the write has
 * past its head, the rest (64 bytes at most, in a buffer of its size:
 * ASan sees a read past it) the head; checked against a plain reading
 * of interim.h's rules, written apart from it.
 */
#include "interim.h"

#include "fuzz.h"

/* HTTP/2 connection frames only, whole (interim.h), one frame a call. */
static int ref_h2(const uint8_t *b, size_t n)
{
	size_t size;
	uint32_t stream;

	if (n == 0)
		return 1;
	if (n < 9)
		return 0;
	size = (size_t)b[0] * 65536 + (size_t)b[1] * 256 + b[2];
	if (size + 9 > n)
		return 0;
	stream = ((uint32_t)b[5] & 0x7f) << 24 | (uint32_t)b[6] << 16 |
		 (uint32_t)b[7] << 8 | b[8];
	if (b[3] == 4) {
		if (stream || size % 6 || ((b[4] & 1) && size))
			return 0;
	} else if (b[3] == 6) {
		if (stream || size != 8)
			return 0;
	} else if (b[3] == 8) {
		if (size != 4)
			return 0;
	} else if (b[3] == 2) {
		if (size != 5 || !stream)
			return 0;
	} else {
		return 0;
	}
	return ref_h2(b + 9 + size, n - 9 - size);
}

/* A whole HTTP/1.0 or 1.1 1xx head (not 101) of n bytes. */
static int ref_http(const uint8_t *b, size_t n, size_t len)
{
	size_t i;

	if (n != len || n < 12 || memcmp(b, "HTTP/1.", 7) ||
	    (b[7] != '0' && b[7] != '1') || b[8] != ' ' || b[9] != '1' ||
	    b[10] < '0' || b[10] > '9' || b[11] < '0' || b[11] > '9' ||
	    (b[10] == '0' && b[11] == '1'))
		return 0;
	for (i = 0; i + 4 <= n; i++)
		if (!memcmp(b + i, "\r\n\r\n", 4))
			return i + 4 == n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	size_t more = (size_t)fuzz_take(&in, 2);
	size_t n = in.n < DT_ANSWER_HEAD ? in.n : DT_ANSWER_HEAD;
	size_t len = n + more;
	uint8_t *b = malloc(n ? n : 1);
	enum dt_answer want, got;
	u32 next = 0xdeadbeef, want_next = 0xdeadbeef;

	FUZZ_CHECK(b);
	memcpy(b, in.p, n);
	if (n >= 5 && b[1] == 3 && b[2] <= 4 && b[0] == 0x16) {
		want = n > 5 && b[5] == 2 ? DT_ANSWER_HELLO : DT_ANSWER_INTERIM;
		if (want == DT_ANSWER_HELLO)
			want_next = 5 + (u32)b[3] * 256 + b[4];
	} else if (n >= 5 && b[1] == 3 && b[2] <= 4 && b[0] == 0x14) {
		want = DT_ANSWER_INTERIM;
	} else if (n >= 5 && b[1] == 3 && b[2] <= 4 && b[0] == 0x17) {
		want = DT_ANSWER_TLS_DATA;
		want_next = 5 + (u32)b[3] * 256 + b[4];
	} else if (n && n == len && ref_h2(b, n)) {
		want = DT_ANSWER_CONTROL;
	} else if (ref_http(b, n, len)) {
		want = DT_ANSWER_INTERIM;
	} else {
		want = DT_ANSWER_FINAL;
	}
	got = dt_answer_of(b, (unsigned int)n, len, &next);
	FUZZ_CHECK(got == want);
	FUZZ_CHECK(next == want_next);
	free(b);
	return 0;
}
