/*
 * dtracer go: follow a Go program's goroutines (dtracer/goroutines.c).
 *
 *   dtracer go BINARY...            register each binary with dtracer
 *                                   (sysfs go: its path, the offsets of
 *                                   the scheduler's functions)
 *   dtracer go --remove BINARY...   stop following them
 *   dtracer go --print BINARY...    only print the line sysfs would get
 *   dtracer go --list               the registered binaries
 *
 * The binary must keep its symbol table (Go's default build does).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "go-elf.h"

#define GO_SYSFS "/sys/distributed-tracer/go"

static int go_usage(FILE *f)
{
	fprintf(f,
		"usage: dtracer go [--remove|--print] BINARY...\n"
		"       dtracer go --list\n"
		"Follow the goroutines of Go programs run from BINARY: dtracer's\n"
		"thread contexts then move with the goroutines, and a goroutine\n"
		"that wakes another hands it its request (root; the module loaded).\n"
		"  --remove   stop following them\n"
		"  --print    print the line for %s, change nothing\n"
		"  --list     the binaries followed\n", GO_SYSFS);
	return f == stdout ? 0 : 2;
}

/* The sysfs line for path (absolute) into line; 0, or -1 said. */
static int go_line(const char *path, char *line, size_t size)
{
	uint64_t off[DT_GO_FNS];
	unsigned char *img;
	char err[256];
	struct stat st;
	int fd, ret, n, k;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "dtracer go: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_size <= 0) {
		fprintf(stderr, "dtracer go: %s: not a regular file\n", path);
		close(fd);
		return -1;
	}
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED) {
		fprintf(stderr, "dtracer go: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ret = dt_go_offsets(img, (size_t)st.st_size, off, err, sizeof(err));
	munmap(img, (size_t)st.st_size);
	if (ret) {
		fprintf(stderr, "dtracer go: %s: %s\n", path, err);
		return -1;
	}
	n = snprintf(line, size, "%s", path);
	for (k = 0; k < DT_GO_FNS && n > 0 && (size_t)n < size; k++)
		n += snprintf(line + n, size - (size_t)n, " %#llx",
			      (unsigned long long)off[k]);
	if (n <= 0 || (size_t)n >= size) {
		fprintf(stderr, "dtracer go: %s: path too long\n", path);
		return -1;
	}
	return 0;
}

static int go_write(const char *line, const char *path)
{
	FILE *f = fopen(GO_SYSFS, "w");
	int err;

	if (!f) {
		fprintf(stderr, "dtracer go: %s: %s%s\n", GO_SYSFS,
			strerror(errno), errno == ENOENT ?
			" (is the dtracer module loaded?)" : "");
		return -1;
	}
	err = fputs(line, f) < 0;
	err |= fclose(f) != 0;
	if (err) {
		fprintf(stderr, "dtracer go: %s: %s%s\n", path, strerror(errno),
			errno == EEXIST ? " (already followed)" :
			errno == ENOSPC ? " (4 binaries are followed already)" :
			errno == ENOENT ? " (not followed)" :
			errno == EIO ? " (uprobes cannot read this file system's "
			"pages, 9p without a cache among them: run the program "
			"from a local disk or a tmpfs)" : "");
		return -1;
	}
	return 0;
}

static int go_list(void)
{
	FILE *f = fopen(GO_SYSFS, "r");
	char buf[4096];
	size_t n;

	if (!f) {
		fprintf(stderr, "dtracer go: %s: %s\n", GO_SYSFS,
			strerror(errno));
		return 1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
	return 0;
}

int dt_cmd_go(int argc, char **argv)
{
	int remove = 0, print = 0, i, bad = 0;
	char path[PATH_MAX], line[PATH_MAX + 128];

	if (argc < 2)
		return go_usage(stderr);
	i = 1;
	if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
		return go_usage(stdout);
	if (!strcmp(argv[i], "--list"))
		return argc == 2 ? go_list() : go_usage(stderr);
	if (!strcmp(argv[i], "--remove"))
		remove = ++i;
	else if (!strcmp(argv[i], "--print"))
		print = ++i;
	if (i >= argc)
		return go_usage(stderr);
	for (; i < argc; i++) {
		if (argv[i][0] == '-') {
			fprintf(stderr, "dtracer go: unknown option %s\n",
				argv[i]);
			return go_usage(stderr);
		}
		if (!realpath(argv[i], path)) {
			fprintf(stderr, "dtracer go: %s: %s\n", argv[i],
				strerror(errno));
			bad = 1;
			continue;
		}
		if (remove) {
			snprintf(line, sizeof(line), "-%s", path);
			bad |= go_write(line, path) != 0;
			continue;
		}
		if (go_line(path, line, sizeof(line))) {
			bad = 1;
			continue;
		}
		if (print)
			printf("%s\n", line);
		else if (go_write(line, path))
			bad = 1;
		else
			printf("following the goroutines of %s\n", path);
	}
	return bad;
}
