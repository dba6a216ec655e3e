/*
 * Retiming through the metadata's clock (collector/sync/retime.c): the new
 * clock gives map(t) for the same clock values, and the metadata
 * rewrite touches the clock blocks only.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "ctf-check.h"
#include "retime.h"
#include "tap.h"

/* Time (ns from origin) of clock value v under clock c, as babeltrace2
 * computes it (offset_s exact, cycles converted at freq). */
static long double time_of(const struct dt_ctf_clock *c, uint64_t v)
{
	return (long double)c->offset_s * 1e9L +
	       ((long double)c->offset + (long double)v) * 1e9L /
	       (long double)c->freq;
}

/*
 * Worst |time'(v) - map(time(v))| over v in [v0, v0 + span], less what
 * an integer frequency allows: half a cycle per freq' cycles away from
 * the anchor, plus one cycle and 1 ns of rounding. Above 0: wrong.
 */
static long double worst(const struct dt_ctf_clock *in,
			 const struct dt_clock_map *m, uint64_t v0,
			 uint64_t span)
{
	struct dt_ctf_clock out;
	long double w = -INFINITY;

	if (dt_ctf_clock_retime(in, m, &out))
		return INFINITY;
	for (int i = 0; i <= 100; i++) {
		uint64_t v = v0 + span / 100 * (uint64_t)i;
		long double t = time_of(in, v);
		long double want = t + m->offset + m->drift * (t - m->anchor);
		long double d = fabsl(time_of(&out, v) - want) -
				0.5L / out.freq * fabsl(t - m->anchor) -
				1e9L / out.freq - 1;

		if (d > w)
			w = d;
	}
	return w;
}

static void clocks(void)
{
	/* LTTng: freq 1 GHz, the boot time in offset (cycles), no offset_s */
	struct dt_ctf_clock lttng = { 1000000000, 0, 1795333400476382045ULL };
	/* sink.ctf.fs: the same clock, normalised */
	struct dt_ctf_clock norm = { 1000000000, 1795333400, 476382045 };
	/* a 100 MHz clock with a day of uptime */
	struct dt_ctf_clock slow = { 100000000, 1795333400, 12345678 };
	uint64_t up = 86400ULL * 1000000000ULL; /* a day, in ns */
	int64_t anchor = 1795333400476382045LL + (int64_t)up;
	struct dt_clock_map id = { 0, 0, anchor };
	struct dt_clock_map shift = { 7.3e9L, 50e-6L, anchor };
	struct dt_clock_map back = { -312441123.5L, -3.2e-6L, anchor };
	struct dt_ctf_clock out;

	ok(worst(&lttng, &id, up, 60000000000ULL) <= 0, "identity keeps every time");
	ok(dt_ctf_clock_retime(&lttng, &id, &out) == 0 && out.freq == 1000000000 &&
	   out.offset_s == 1795333400 && out.offset == 476382045,
	   "identity normalises offset into offset_s + offset (%lld, %llu)",
	   (long long)out.offset_s, (unsigned long long)out.offset);
	ok(worst(&lttng, &shift, up, 60000000000ULL) <= 0,
	   "+7.3 s, +50 ppm after a day of uptime: a minute of trace within the rounding (%.3Lf)",
	   worst(&lttng, &shift, up, 60000000000ULL));
	ok(worst(&norm, &back, up, 60000000000ULL) <= 0,
	   "-312 ms, -3.2 ppm on a normalised clock within the rounding (%.3Lf)",
	   worst(&norm, &back, up, 60000000000ULL));
	ok(worst(&slow, &shift, up / 10, 6000000000ULL) <= 0,
	   "100 MHz clock: within the rounding (%.3Lf ns)",
	   worst(&slow, &shift, up / 10, 6000000000ULL));
	ok(dt_ctf_clock_retime(&lttng, &shift, &out) == 0 &&
	   out.freq == 999950002, "drift +50 ppm is freq 999950002 (%llu)",
	   (unsigned long long)out.freq);
	ok(out.offset < out.freq, "offset stays below freq");
	{
		struct dt_clock_map bad = { 0, -1, anchor };
		struct dt_clock_map nan_map = { NAN, 0, anchor };
		struct dt_ctf_clock zero = { 0, 0, 0 };

		ok(dt_ctf_clock_retime(&lttng, &bad, &out) == -EINVAL,
		   "drift -100%% refused");
		ok(dt_ctf_clock_retime(&lttng, &nan_map, &out) == -EINVAL,
		   "NaN offset refused");
		ok(dt_ctf_clock_retime(&zero, &id, &out) == -EINVAL,
		   "freq 0 refused");
	}
}

static const char metadata[] =
	"/* CTF 1.8 */\n\ntrace {\n\tmajor = 1;\n};\n\n"
	"env {\n\thostname = \"dt-b\";\n\tdomain = \"kernel\";\n};\n\n"
	"clock {\n\tname = monotonic;\n\tfreq = 1000000000;\n"
	"\tprecision = 0;\n\toffset_s = 1795333400;\n\toffset = 476382045;\n"
	"\tabsolute = true;\n};\n\nstream {\n\tid = 0;\n};\n";

static char *write_tmp(const char *text)
{
	char *path = g_strdup("/tmp/test-retime-XXXXXX");
	int fd = g_mkstemp(path);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	return path;
}

/* Whether e is dtracer's error of that code, its message holding text. */
static int refused(const GError *e, int code, const char *text)
{
	return e && e->domain == DT_ERROR && e->code == code &&
	       strstr(e->message, text);
}

/* e's message for the test's line, freed by the next call. */
static const char *why(GError **e)
{
	static char *last;

	g_free(last);
	last = *e ? g_strdup((*e)->message) : g_strdup("none");
	g_clear_error(e);
	return last;
}

static void files(void)
{
	struct dt_clock_map m = { 7.3e9L, 50e-6L, 1795333401000000000LL };
	char *path = write_tmp(metadata), *text = NULL, *host;
	GError *e = NULL;
	int r = dt_metadata_retime(path, &m, &e);

	ok(r == 0 && !e, "a sink.ctf.fs metadata is retimed (%s)",
	   e ? e->message : "ok");
	g_clear_error(&e);
	g_file_get_contents(path, &text, NULL, NULL);
	ok(text && strstr(text, "\tfreq = 999950002;\n") &&
	   strstr(text, "\toffset_s = 1795333407;\n"),
	   "the clock block has the new freq and offset_s");
	ok(text && strstr(text, "\tname = monotonic;\n") &&
	   strstr(text, "\tabsolute = true;\n") &&
	   strstr(text, "env {\n\thostname = \"dt-b\";") &&
	   strstr(text, "stream {\n\tid = 0;\n};\n"),
	   "everything else is kept");
	ok(text && !strstr(text, "offset = 476382045;"), "the old offset is gone");
	host = dt_metadata_hostname(path);
	ok(host && !strcmp(host, "dt-b"), "hostname read from env (%s)",
	   host ? host : "none");
	g_free(host);
	g_free(text);
	unlink(path);
	g_free(path);

	path = write_tmp("/* CTF 1.8 */\ntrace {\n};\n");
	ok(dt_metadata_retime(path, &m, &e) == -1 &&
	   refused(e, DT_ERROR_INPUT, "no clock"), "no clock block: an error (%s)",
	   why(&e));
	unlink(path);
	g_free(path);
	path = write_tmp("/* CTF 1.8 */\nclock {\n\tfreq = 1000;\n");
	ok(dt_metadata_retime(path, &m, &e) == -1 &&
	   refused(e, DT_ERROR_INPUT, "unterminated"),
	   "unterminated clock block: an error (%s)", why(&e));
	unlink(path);
	g_free(path);
	path = write_tmp("\x57\x1d\xd1\x75 packetized");
	ok(dt_metadata_retime(path, &m, &e) == -1 &&
	   refused(e, DT_ERROR_INPUT, "plain-text"),
	   "packetized metadata: an error (%s)", why(&e));
	g_file_get_contents(path, &text, NULL, NULL);
	ok(text && !strcmp(text, "\x57\x1d\xd1\x75 packetized"),
	   "and the file is left as it was");
	g_free(text);
	unlink(path);
	g_free(path);
	path = write_tmp("/* CTF 1.8 */\nclock {\n\tfreq = 1x;\n};\n");
	ok(dt_metadata_retime(path, &m, &e) == -1 &&
	   refused(e, DT_ERROR_INPUT, "unreadable number"),
	   "unreadable freq: an error (%s)", why(&e));
	unlink(path);
	g_free(path);
	ok(dt_metadata_retime("/nonexistent/metadata", &m, &e) == -1 &&
	   refused(e, DT_ERROR_IO, "/nonexistent/metadata"),
	   "missing file: an error (%s)", why(&e));
}

/* A packetized metadata file: packets of 37-byte headers + text. */
static char *packets(int n, size_t cut)
{
	static const char text[] = "typealias integer { size = 8; } := u8;\n";
	GString *g = g_string_new(NULL);
	char *path = g_strdup("/tmp/test-ctf-check-XXXXXX");
	int fd = g_mkstemp(path);

	for (int i = 0; i < n; i++) {
		unsigned char h[37] = { 0 };
		uint32_t magic = 0x75d11d57u;
		uint32_t content = (uint32_t)(37 + sizeof(text) - 1) * 8;
		uint32_t packet = content + 64;	/* 8 bytes of padding */

		memcpy(h, &magic, 4);
		memcpy(h + 24, &content, 4);
		memcpy(h + 28, &packet, 4);
		g_string_append_len(g, (const char *)h, 37);
		g_string_append_len(g, text, sizeof(text) - 1);
		g_string_append_len(g, "\0\0\0\0\0\0\0\0", 8);
	}
	if (fd < 0 || write(fd, g->str, g->len - cut) != (ssize_t)(g->len - cut))
		abort();
	close(fd);
	g_string_free(g, TRUE);
	return path;
}

static void check(void)
{
	GError *e = NULL;
	char *p;

	p = packets(3, 0);
	ok(dt_ctf_check_metadata(p, &e) == 0 && !e,
	   "three whole metadata packets pass");
	unlink(p);
	g_free(p);
	p = packets(3, 20);
	ok(dt_ctf_check_metadata(p, &e) == -1 &&
	   refused(e, DT_ERROR_INPUT, "truncated metadata packet at byte") &&
	   refused(e, DT_ERROR_INPUT, p),
	   "last packet cut short: refused, the file named (%s)", why(&e));
	unlink(p);
	g_free(p);
	p = packets(3, 64);
	ok(dt_ctf_check_metadata(p, &e) == -1 &&
	   refused(e, DT_ERROR_INPUT, "header"),
	   "cut inside a header: refused (%s)", why(&e));
	unlink(p);
	g_free(p);
	p = write_tmp("");
	ok(dt_ctf_check_metadata(p, &e) == -1 &&
	   refused(e, DT_ERROR_INPUT, "empty"), "empty file: refused (%s)",
	   why(&e));
	unlink(p);
	g_free(p);
	p = write_tmp("hello, not a trace");
	ok(dt_ctf_check_metadata(p, &e) == -1 &&
	   refused(e, DT_ERROR_INPUT, "not CTF"),
	   "other content: refused (%s)", why(&e));
	unlink(p);
	g_free(p);
	p = write_tmp(metadata);
	ok(dt_ctf_check_metadata(p, &e) == 0 && !e,
	   "text metadata is left to babeltrace2's parser");
	unlink(p);
	g_free(p);
	ok(dt_ctf_check_metadata("/nonexistent/metadata", &e) == -1 &&
	   refused(e, DT_ERROR_IO, "No such file"),
	   "missing file: refused (%s)", why(&e));
}

int main(void)
{
	clocks();
	files();
	check();
	return tap_done();
}
