/*
 * Helpers shared by the libFuzzer targets of tests/fuzz/ (one target per
 * file, see README): reading structured values off the input, a file
 * holding the input for readers that take a path, and a check that
 * aborts (libFuzzer then saves the input as a crash).
 */
#ifndef DT_FUZZ_H
#define DT_FUZZ_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An invariant of the code under test: abort with a message if false. */
#define FUZZ_CHECK(cond)                                                \
	do {                                                            \
		if (!(cond)) {                                          \
			fprintf(stderr, "%s:%d: check failed: %s\n",    \
				__FILE__, __LINE__, #cond);             \
			abort();                                        \
		}                                                       \
	} while (0)

/* The input, consumed from the front; zeros once it runs out. */
struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

static inline uint64_t fuzz_take(struct fuzz_in *in, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++) {
		v <<= 8;
		if (in->n) {
			v |= *in->p++;
			in->n--;
		}
	}
	return v;
}

/*
 * A file in the temporary directory named after this process, holding
 * data (for readers that take a path). Its path, or NULL.
 */
static inline const char *fuzz_file(const char *name, const void *data,
				    size_t size)
{
	static char path[4096];
	const char *dir = getenv("TMPDIR");
	FILE *f;

	snprintf(path, sizeof(path), "%s/dt-fuzz-%ld-%s",
		 dir && *dir ? dir : "/tmp", (long)getpid(), name);
	f = fopen(path, "wb");
	if (!f)
		return NULL;
	if ((size && fwrite(data, 1, size, f) != size) | fclose(f)) {
		unlink(path);
		return NULL;
	}
	return path;
}

/* /dev/null as a stream, opened once: where outputs are written. */
static inline FILE *fuzz_null(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	FUZZ_CHECK(f);
	return f;
}

#endif
