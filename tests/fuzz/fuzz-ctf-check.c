/*
 * dt_ctf_check_metadata (collector/plugin/ctf-check.c): the check every command
 * that reads traces runs on each `metadata` file before babeltrace2 sees
 * it. The input is the file. Checked: a reason is given on refusal; an
 * accepted packetized file really is a chain of whole packets (walked
 * here in memory, independently).
 */
#include "ctf-check.h"

#include "fuzz.h"

#define MAGIC 0x75d11d57u

static uint32_t get32(const uint8_t *p, int swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/* 1 if data is whole packets, each with the magic and sane sizes. */
static int whole_packets(const uint8_t *data, size_t size)
{
	size_t off = 0;

	while (off < size) {
		int swap;
		uint32_t content, packet;

		if (size - off < 37)
			return 0;
		swap = get32(data + off, 0) != MAGIC;
		if (get32(data + off, swap) != MAGIC)
			return 0;
		content = get32(data + off + 24, swap);
		packet = get32(data + off + 28, swap);
		if (packet % 8 || content > packet || content < 37 * 8 ||
		    packet / 8 > size - off)
			return 0;
		off += packet / 8;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("metadata", data, size);
	GError *error = NULL;
	int r;

	FUZZ_CHECK(path);
	r = dt_ctf_check_metadata(path, &error);
	unlink(path);
	FUZZ_CHECK(r == 0 || r == -1);
	FUZZ_CHECK(r ? error && error->domain == DT_ERROR &&
		   error->code == DT_ERROR_INPUT && *error->message : !error);
	if (r) {
		g_error_free(error);
		return 0;
	}
	FUZZ_CHECK(size >= 10);
	if (memcmp(data, "/* CTF 1.8", 10))
		FUZZ_CHECK(whole_packets(data, size));
	return 0;
}
