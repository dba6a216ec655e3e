/*
 * Structural check of CTF metadata files. See ctf-check.h.
 *
 * Packetized metadata (what LTTng writes) is a sequence of packets, each
 * a 37-byte header (magic 0x75d11d57, uuid[16], checksum, content_size
 * and packet_size in bits, five one-byte fields) then TSDL text. Every
 * packet must be whole and its sizes consistent; the text itself is
 * left to babeltrace2's parser, which reports its errors properly.
 */
#include "ctf-check.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

#define MAGIC 0x75d11d57u
#define HEADER 37

static uint32_t u32(const unsigned char *p, int swap)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap32(v) : v;
}

/* The error says the file and the offset: "PATH: WHAT at byte N". */
static int fail(GError **error, const char *path, const char *what, long off)
{
	g_set_error(error, DT_ERROR, DT_ERROR_INPUT, "%s: %s at byte %ld",
		    path, what, off);
	return -1;
}

static int refuse(GError **error, const char *path, const char *what)
{
	g_set_error(error, DT_ERROR, DT_ERROR_INPUT, "%s: %s", path, what);
	return -1;
}

static int check_packets(FILE *f, const char *path, GError **error)
{
	unsigned char h[HEADER];
	long off = 0, size;
	int swap;

	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		return fail(error, path, "cannot seek", 0);
	while (off < size) {
		uint32_t content, packet;

		if (size - off < HEADER || fread(h, 1, HEADER, f) != HEADER)
			return fail(error, path,
				    "truncated metadata packet header", off);
		swap = u32(h, 0) != MAGIC;
		if (u32(h, swap) != MAGIC)
			return fail(error, path, "no metadata packet magic",
				    off);
		content = u32(h + 24, swap);
		packet = u32(h + 28, swap);
		if (packet % 8 || content > packet || content < HEADER * 8)
			return fail(error, path,
				    "inconsistent metadata packet sizes", off);
		if ((long)(packet / 8) > size - off)
			return fail(error, path, "truncated metadata packet",
				    off);
		off += packet / 8;
		if (fseek(f, off, SEEK_SET))
			return fail(error, path, "cannot seek", off);
	}
	return 0;
}

int dt_ctf_check_metadata(const char *path, GError **error)
{
	FILE *f = fopen(path, "rb");
	unsigned char head[10];
	size_t n;
	int r;

	if (!f) {
		dt_error_errno(error, errno, "%s", path);
		return -1;
	}
	n = fread(head, 1, sizeof(head), f);
	if (n == sizeof(head) && !memcmp(head, "/* CTF 1.8", 10))
		r = 0;
	else if (n >= 4 && (u32(head, 0) == MAGIC || u32(head, 1) == MAGIC))
		r = check_packets(f, path, error);
	else
		r = refuse(error, path, n ? "not CTF 1.8 metadata" :
			   "empty metadata file");
	fclose(f);
	return r;
}
