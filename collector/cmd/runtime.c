/*
 * dtracer go, dtracer python: a runtime's functions registered with
 * dtracer, which probes them (uprobes): Go's scheduler in a Go binary
 * (dtracer/goroutines.c), CPython's SimpleQueue in its _queue module
 * (dtracer/pyqueue.c).
 *
 *   dtracer go FILE...              register each file with dtracer
 *   dtracer python FILE...          (sysfs go, python: its path, the
 *                                   offsets of the functions)
 *   dtracer go|python --remove FILE...   stop following them
 *   dtracer go|python --print FILE...    only print the line sysfs would get
 *   dtracer go|python --list             the registered files
 *
 * A Go binary must keep its symbol table (Go's default build does);
 * CPython's module is found through its method table (stripped or not).
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
#include "pyqueue-elf.h"

enum { MAX_FNS = 16 };

struct runtime {
	const char *cmd;	/* the command: dtracer CMD */
	const char *sysfs;	/* the module's file */
	int nfns;
	int (*offsets)(const unsigned char *img, size_t len, uint64_t *off,
		       char *err, size_t errlen);
	const char *file;	/* what FILE is, in the usage */
	const char *does;	/* what following it does, in the usage */
	const char *doing;	/* said once a file is registered */
};

static const struct runtime go_runtime = {
	.cmd = "go",
	.sysfs = "/sys/distributed-tracer/go",
	.nfns = DT_GO_FNS,
	.offsets = dt_go_offsets,
	.file = "BINARY",
	.does = "Follow the goroutines of Go programs run from BINARY: dtracer's\n"
		"thread contexts then move with the goroutines, and a goroutine\n"
		"that wakes another hands it its request (root; the module loaded).\n",
	.doing = "following the goroutines of",
};

static const struct runtime python_runtime = {
	.cmd = "python",
	.sysfs = "/sys/distributed-tracer/python",
	.nfns = DT_PYQ_FNS,
	.offsets = dt_pyq_offsets,
	.file = "MODULE",
	.does = "Follow the jobs Python's pools (concurrent.futures) hand their\n"
		"threads, through CPython's queue.SimpleQueue: MODULE is its _queue\n"
		"module (python3 -c 'import _queue; print(_queue.__file__)'); the\n"
		"thread that takes a job works for the request it was put for\n"
		"(root; the module loaded).\n",
	.doing = "following the jobs queued through",
};

static int rt_usage(const struct runtime *rt, FILE *f)
{
	fprintf(f,
		"usage: dtracer %s [--remove|--print] %s...\n"
		"       dtracer %s --list\n"
		"%s"
		"  --remove   stop following them\n"
		"  --print    print the line for %s, change nothing\n"
		"  --list     the files followed\n", rt->cmd, rt->file, rt->cmd,
		rt->does, rt->sysfs);
	return f == stdout ? 0 : 2;
}

/* The sysfs line for path (absolute) into line; 0, or -1 said. */
static int rt_line(const struct runtime *rt, const char *path, char *line,
		   size_t size)
{
	uint64_t off[MAX_FNS];
	unsigned char *img;
	char err[256];
	struct stat st;
	int fd, ret, n, k;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "dtracer %s: %s: %s\n", rt->cmd, path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_size <= 0) {
		fprintf(stderr, "dtracer %s: %s: not a regular file\n",
			rt->cmd, path);
		close(fd);
		return -1;
	}
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED) {
		fprintf(stderr, "dtracer %s: %s: %s\n", rt->cmd, path,
			strerror(errno));
		return -1;
	}
	ret = rt->offsets(img, (size_t)st.st_size, off, err, sizeof(err));
	munmap(img, (size_t)st.st_size);
	if (ret) {
		fprintf(stderr, "dtracer %s: %s: %s\n", rt->cmd, path, err);
		return -1;
	}
	n = snprintf(line, size, "%s", path);
	for (k = 0; k < rt->nfns && n > 0 && (size_t)n < size; k++)
		n += snprintf(line + n, size - (size_t)n, " %#llx",
			      (unsigned long long)off[k]);
	if (n <= 0 || (size_t)n >= size) {
		fprintf(stderr, "dtracer %s: %s: path too long\n", rt->cmd,
			path);
		return -1;
	}
	return 0;
}

static int rt_write(const struct runtime *rt, const char *line,
		    const char *path)
{
	FILE *f = fopen(rt->sysfs, "w");
	int err;

	if (!f) {
		fprintf(stderr, "dtracer %s: %s: %s%s\n", rt->cmd, rt->sysfs,
			strerror(errno), errno == ENOENT ?
			" (is the dtracer module loaded?)" : "");
		return -1;
	}
	err = fputs(line, f) < 0;
	err |= fclose(f) != 0;
	if (err) {
		fprintf(stderr, "dtracer %s: %s: %s%s\n", rt->cmd, path,
			strerror(errno),
			errno == EEXIST ? " (already followed)" :
			errno == ENOSPC ? " (4 files are followed already)" :
			errno == ENOENT ? " (not followed)" :
			errno == EIO ? " (uprobes cannot read this file system's "
			"pages, 9p without a cache among them: use a copy on "
			"a local disk or a tmpfs)" : "");
		return -1;
	}
	return 0;
}

static int rt_list(const struct runtime *rt)
{
	FILE *f = fopen(rt->sysfs, "r");
	char buf[4096];
	size_t n;

	if (!f) {
		fprintf(stderr, "dtracer %s: %s: %s%s\n", rt->cmd, rt->sysfs,
			strerror(errno), errno == ENOENT ?
			" (is the dtracer module loaded?)" : "");
		return 1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
	return 0;
}

static int rt_cmd(const struct runtime *rt, int argc, char **argv)
{
	int remove = 0, print = 0, i, bad = 0;
	char path[PATH_MAX], line[PATH_MAX + 20 * MAX_FNS];

	if (argc < 2)
		return rt_usage(rt, stderr);
	i = 1;
	if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
		return rt_usage(rt, stdout);
	if (!strcmp(argv[i], "--list"))
		return argc == 2 ? rt_list(rt) : rt_usage(rt, stderr);
	if (!strcmp(argv[i], "--remove"))
		remove = ++i;
	else if (!strcmp(argv[i], "--print"))
		print = ++i;
	if (i >= argc)
		return rt_usage(rt, stderr);
	for (; i < argc; i++) {
		if (argv[i][0] == '-') {
			fprintf(stderr, "dtracer %s: unknown option %s\n",
				rt->cmd, argv[i]);
			return rt_usage(rt, stderr);
		}
		if (!realpath(argv[i], path)) {
			fprintf(stderr, "dtracer %s: %s: %s\n", rt->cmd,
				argv[i], strerror(errno));
			bad = 1;
			continue;
		}
		if (remove) {
			snprintf(line, sizeof(line), "-%s", path);
			bad |= rt_write(rt, line, path) != 0;
			continue;
		}
		if (rt_line(rt, path, line, sizeof(line))) {
			bad = 1;
			continue;
		}
		if (print)
			printf("%s\n", line);
		else if (rt_write(rt, line, path))
			bad = 1;
		else
			printf("%s %s\n", rt->doing, path);
	}
	return bad;
}

int dt_cmd_go(int argc, char **argv)
{
	return rt_cmd(&go_runtime, argc, argv);
}

int dt_cmd_python(int argc, char **argv)
{
	return rt_cmd(&python_runtime, argc, argv);
}
