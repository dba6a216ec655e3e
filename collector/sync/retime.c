/*
 * Retiming a CTF trace through its metadata's clock. See retime.h.
 */
#include "retime.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#define NS 1000000000.0L

/*
 * CTF: time(v) = offset_s * 1e9 + (offset + v) * 1e9 / freq  (ns).
 * Wanted: time'(v) = time(v) + o + d * (time(v) - k). With freq' =
 * freq / (1 + d) the slope is right up to freq' being an integer; the
 * constant is chosen so that time'(v_k) is exact where time(v_k) = k.
 */
int dt_ctf_clock_retime(const struct dt_ctf_clock *in,
			const struct dt_clock_map *map,
			struct dt_ctf_clock *out)
{
	long double f, vk, tk, base, s;
	uint64_t freq;
	long double c;

	if (!in->freq || !isfinite(map->offset) || !isfinite(map->drift) ||
	    map->drift <= -1)
		return -EINVAL;
	f = (long double)in->freq / (1 + map->drift);
	if (f < 1 || f > 1e18L)
		return -EINVAL;
	freq = (uint64_t)llroundl(f);
	/* clock value at the anchor, and the time it must map to */
	vk = ((long double)map->anchor - (long double)in->offset_s * NS) *
	     in->freq / NS - (long double)in->offset;
	tk = (long double)map->anchor + map->offset;
	/* time'(v) = base + v * 1e9 / freq */
	base = tk - vk * NS / freq;
	s = floorl(base / NS);
	/* the origin must stay within int64 ns (babeltrace2's range) */
	if (!(fabsl(s) <= (long double)(INT64_MAX / 1000000000)))
		return -EINVAL;
	c = (base - s * NS) * freq / NS;
	if (llroundl(c) >= (long long)freq) {
		s += 1;
		c -= freq;
	}
	out->freq = freq;
	out->offset_s = (int64_t)s;
	out->offset = (uint64_t)llroundl(c < 0 ? 0 : c);
	return 0;
}

/* Value of "name = N;" inside a clock block, if that line is one. */
static int assignment(const char *line, const char *name, long long *v)
{
	size_t n = strlen(name);
	char *end;

	while (*line == ' ' || *line == '\t')
		line++;
	if (strncmp(line, name, n))
		return 0;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line++ != '=')
		return 0;
	errno = 0;
	*v = strtoll(line, &end, 0);
	if (errno || end == line)
		return -1;
	while (*end == ' ' || *end == '\t')
		end++;
	return *end == ';' ? 1 : -1;
}

/* Is this line the start ("clock {") or end ("};") of a clock block? */
static int clock_start(const char *l)
{
	while (*l == ' ' || *l == '\t')
		l++;
	if (strncmp(l, "clock", 5))
		return 0;
	l += 5;
	while (*l == ' ' || *l == '\t')
		l++;
	return *l == '{';
}

static int block_end(const char *l)
{
	while (*l == ' ' || *l == '\t')
		l++;
	return !strncmp(l, "};", 2);
}

/*
 * Retime one clock block (lines [from, to) of lines), appending to out.
 * 0, or -1 with *error set (DT_ERROR_INPUT, without the file's name).
 */
static int retime_block(char **lines, int from, int to,
			const struct dt_clock_map *map, GString *out,
			GError **error)
{
	struct dt_ctf_clock in = { .freq = 1000000000 }, o;
	long long v;

	for (int i = from; i < to; i++) {
		int r;

		if ((r = assignment(lines[i], "freq", &v)) == 1)
			in.freq = (uint64_t)v;
		else if (!r && (r = assignment(lines[i], "offset_s", &v)) == 1)
			in.offset_s = v;
		else if (!r && (r = assignment(lines[i], "offset", &v)) == 1)
			in.offset = (uint64_t)v;
		if (r < 0) {
			g_set_error(error, DT_ERROR, DT_ERROR_INPUT,
				    "unreadable number in a clock block");
			return -1;
		}
	}
	if (dt_ctf_clock_retime(&in, map, &o)) {
		g_set_error(error, DT_ERROR, DT_ERROR_INPUT,
			    "clock map out of range");
		return -1;
	}
	g_string_append_printf(out, "%s\n", lines[from]);
	g_string_append_printf(out,
		"\t/* retimed by dtracer merge: t' = t + %.1Lf ns + %.6Lf ppm * (t - %lld) */\n",
		map->offset, map->drift * 1e6L, (long long)map->anchor);
	g_string_append_printf(out, "\tfreq = %llu;\n\toffset_s = %lld;\n\toffset = %llu;\n",
			       (unsigned long long)o.freq, (long long)o.offset_s,
			       (unsigned long long)o.offset);
	for (int i = from + 1; i < to; i++) {
		if (assignment(lines[i], "freq", &v) ||
		    assignment(lines[i], "offset_s", &v) ||
		    assignment(lines[i], "offset", &v))
			continue;
		g_string_append_printf(out, "%s\n", lines[i]);
	}
	return 0;
}

static int write_atomically(const char *path, const GString *text,
			    GError **error)
{
	char *tmp = g_strdup_printf("%s.dtracer-tmp", path);
	GError *gerr = NULL;
	int err = 0;

	if (!g_file_set_contents(tmp, text->str, (gssize)text->len, &gerr)) {
		g_set_error(error, DT_ERROR, DT_ERROR_IO,
			    "%s: cannot write the metadata: %s", path,
			    gerr->message);
		g_error_free(gerr);
		err = -1;
	} else if (rename(tmp, path)) {
		dt_error_errno(error, errno, "%s: cannot write the metadata",
			       path);
		unlink(tmp);
		err = -1;
	}
	g_free(tmp);
	return err;
}

/*
 * The metadata's text with every clock block retimed; NULL with *error
 * set (DT_ERROR_INPUT, without the file's name).
 */
static GString *retime_text(char **lines, const struct dt_clock_map *map,
			    GError **error)
{
	GString *out = g_string_new(NULL);
	int n = (int)g_strv_length(lines), blocks = 0, err = 0;

	for (int i = 0; i < n && !err; i++) {
		int j = i + 1;

		if (!clock_start(lines[i])) {
			if (i < n - 1 || lines[i][0])
				g_string_append_printf(out, "%s%s", lines[i],
						       i < n - 1 ? "\n" : "");
			continue;
		}
		while (j < n && !block_end(lines[j]))
			j++;
		if (j == n) {
			g_set_error(error, DT_ERROR, DT_ERROR_INPUT,
				    "unterminated clock block");
			err = -1;
			break;
		}
		err = retime_block(lines, i, j, map, out, error);
		g_string_append_printf(out, "%s\n", lines[j]);
		blocks++;
		i = j;
	}
	if (!err && !blocks) {
		g_set_error(error, DT_ERROR, DT_ERROR_INPUT, "no clock block");
		err = -1;
	}
	if (err) {
		g_string_free(out, TRUE);
		return NULL;
	}
	return out;
}

int dt_metadata_retime(const char *path, const struct dt_clock_map *map,
		       GError **error)
{
	char *text = NULL, **lines;
	GError *gerr = NULL;
	GString *out;
	int err;

	if (!g_file_get_contents(path, &text, NULL, &gerr)) {
		g_set_error(error, DT_ERROR, DT_ERROR_IO,
			    "cannot read the metadata: %s", gerr->message);
		g_error_free(gerr);
		return -1;
	}
	if (strncmp(text, "/* CTF 1.8", 10)) {
		g_free(text);
		g_set_error(error, DT_ERROR, DT_ERROR_INPUT,
			    "%s: not plain-text CTF 1.8 metadata", path);
		return -1;
	}
	lines = g_strsplit(text, "\n", -1);
	g_free(text);
	out = retime_text(lines, map, &gerr);
	g_strfreev(lines);
	if (!out) {
		g_propagate_prefixed_error(error, gerr, "%s: ", path);
		return -1;
	}
	err = write_atomically(path, out, error);
	g_string_free(out, TRUE);
	return err;
}

char *dt_metadata_hostname(const char *path)
{
	char *text = NULL, *env, *h, *name = NULL;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		return NULL;
	env = strstr(text, "\nenv {");
	h = env ? strstr(env, "\thostname = \"") : NULL;
	if (h) {
		char *end;

		h += strlen("\thostname = \"");
		end = strchr(h, '"');
		if (end)
			name = g_strndup(h, (gsize)(end - h));
	}
	g_free(text);
	return name;
}
