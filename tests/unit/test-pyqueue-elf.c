/*
 * Unit tests of collector/cmd/pyqueue-elf.c: the file offsets of
 * CPython's SimpleQueue methods in its _queue module. A synthetic
 * x86-64 shared object with a method table filled by relocations (and
 * decoys) gives known offsets; every truncation of it, and corrupt
 * headers, fail with a message and read nothing outside the image
 * (t-sanitize runs this under ASan); a method missing, twice, or with
 * another calling convention is said. Then Debian's own module, when
 * this machine has it: found, each offset in the file.
 */
#include <elf.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyqueue-elf.h"
#include "tap.h"

#define TEXT 0x1000u	/* text: file offset = virtual address */
#define DATA 0x3000u	/* strings, then the method table (read-only) */
#define METHODS (DATA + 0x100u)
#define NMETH 6
#define END (METHODS + NMETH * 32u)

static const char names[] = "\0put\0put_nowait\0get\0get_nowait\0qsize";

static uint64_t str(const char *s)
{
	size_t i;

	for (i = 1; i < sizeof(names); i += strlen(names + i) + 1)
		if (!strcmp(names + i, s))
			return DATA + i;
	abort();
}

struct image {
	unsigned char *b;
	size_t len;
	size_t rela;		/* the relocations' file offset */
};

/*
 * Methods: qsize (+0x100), put (+0x200, 0x82), put_nowait (+0x300,
 * 0x82), get (+0x400, 0x282), get_nowait (+0x500, 0x282); and a decoy:
 * a pointer to "put" followed by no relocated function.
 */
static struct image make(void)
{
	static const struct {
		const char *name;
		uint32_t fn, flags;
	} m[NMETH - 1] = {
		{ "qsize", 0x100, 0x4 }, { "put", 0x200, 0x82 },
		{ "put_nowait", 0x300, 0x82 }, { "get", 0x400, 0x282 },
		{ "get_nowait", 0x500, 0x282 },
	};
	Elf64_Rela r[2 * (NMETH - 1) + 1];
	Elf64_Phdr ph[2] = { { 0 } };
	Elf64_Shdr sh[2] = { { 0 } };
	Elf64_Ehdr eh = { 0 };
	struct image im;
	int i, n = 0;

	im.rela = END;
	im.len = END + sizeof(r) + sizeof(sh);
	im.b = calloc(1, im.len);

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 2;
	eh.e_shoff = END + sizeof(r);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 2;

	ph[0].p_type = PT_LOAD;
	ph[0].p_flags = PF_R | PF_X;
	ph[0].p_offset = TEXT;
	ph[0].p_vaddr = TEXT;
	ph[0].p_filesz = DATA - TEXT;
	ph[1].p_type = PT_LOAD;
	ph[1].p_flags = PF_R | PF_W;
	ph[1].p_offset = DATA;
	ph[1].p_vaddr = DATA;
	ph[1].p_filesz = END - DATA;

	memcpy(im.b + DATA, names, sizeof(names));
	for (i = 0; i < NMETH - 1; i++) {
		uint64_t at = METHODS + (uint64_t)i * 32;

		r[n++] = (Elf64_Rela){ .r_offset = at,
			.r_info = ELF64_R_INFO(0, R_X86_64_RELATIVE),
			.r_addend = (int64_t)str(m[i].name) };
		r[n++] = (Elf64_Rela){ .r_offset = at + 8,
			.r_info = ELF64_R_INFO(0, R_X86_64_RELATIVE),
			.r_addend = TEXT + m[i].fn };
		memcpy(im.b + at + 16, &m[i].flags, 4);
	}
	/* The decoy, last: "put" with nothing relocated after it. */
	r[n++] = (Elf64_Rela){ .r_offset = METHODS + (NMETH - 1) * 32,
		.r_info = ELF64_R_INFO(0, R_X86_64_RELATIVE),
		.r_addend = (int64_t)str("put") };

	sh[1].sh_type = SHT_RELA;
	sh[1].sh_offset = im.rela;
	sh[1].sh_size = sizeof(r);
	sh[1].sh_entsize = sizeof(Elf64_Rela);

	memcpy(im.b, &eh, sizeof(eh));
	memcpy(im.b + sizeof(eh), ph, sizeof(ph));
	memcpy(im.b + im.rela, r, sizeof(r));
	memcpy(im.b + eh.e_shoff, sh, sizeof(sh));
	return im;
}

/* dt_pyq_offsets on a heap copy of exactly len bytes (ASan sees overreads). */
static int offsets(const unsigned char *b, size_t len, uint64_t *off,
		   char *err, size_t errlen)
{
	unsigned char *copy = malloc(len ? len : 1);
	int ret;

	memcpy(copy, b, len);
	ret = dt_pyq_offsets(copy, len, off, err, errlen);
	free(copy);
	return ret;
}

/* Method i's flags set to flags. */
static void set_flags(struct image *im, int i, uint32_t flags)
{
	memcpy(im->b + METHODS + i * 32 + 16, &flags, 4);
}

/* Debian's module, if this machine has it: found, within the file. */
static void debian_module(void)
{
	uint64_t off[DT_PYQ_FNS];
	unsigned char *b;
	char err[256];
	glob_t g;
	long len;
	FILE *f;
	int ret, k, inside = 1;

	if (glob("/usr/lib/python3*/lib-dynload/_queue.cpython-*-x86_64-linux-gnu.so",
		 0, NULL, &g) || !g.gl_pathc) {
		printf("ok %d - Debian's _queue module # SKIP not on this "
		       "machine\n", ++tap_n);
		return;
	}
	f = fopen(g.gl_pathv[0], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET)) {
		ok(0, "%s: readable", g.gl_pathv[0]);
		if (f)
			fclose(f);
		globfree(&g);
		return;
	}
	b = malloc((size_t)len);
	ok(fread(b, 1, (size_t)len, f) == (size_t)len, "%s read",
	   g.gl_pathv[0]);
	fclose(f);
	ret = offsets(b, (size_t)len, off, err, sizeof(err));
	for (k = 0; !ret && k < DT_PYQ_FNS; k++)
		inside &= off[k] > 0 && off[k] < (uint64_t)len;
	ok(ret == 0 && inside, "Debian's %s: put, put_nowait, get, get_nowait "
	   "found in its text (%s)", g.gl_pathv[0], ret ? err : "ok");
	free(b);
	globfree(&g);
}

int main(void)
{
	struct image im = make();
	uint64_t off[DT_PYQ_FNS];
	char err[256];
	int ret, bad;
	size_t len;

	ret = offsets(im.b, im.len, off, err, sizeof(err));
	ok(ret == 0, "a synthetic module: found (%s)", ret ? err : "ok");
	ok(!ret && off[0] == TEXT + 0x200 && off[1] == TEXT + 0x300 &&
	   off[2] == TEXT + 0x400 && off[3] == TEXT + 0x500,
	   "file offsets of put, put_nowait, get, get_nowait (decoys: another "
	   "method, a name with no function after it)");

	ret = offsets((const unsigned char *)"#!/bin/sh\n", 10, off, err,
		      sizeof(err));
	ok(ret == -1 && strstr(err, "not an ELF"), "not ELF: said (%s)", err);

	bad = 0;
	for (len = 0; len < im.len; len++)
		if (offsets(im.b, len, off, err, sizeof(err)) != -1 || !*err)
			bad++;
	ok(bad == 0, "every truncation (%zu) fails with a message (%d did not)",
	   im.len, bad);

	set_flags(&im, 3, 0x82);
	ret = offsets(im.b, im.len, off, err, sizeof(err));
	ok(ret == -1 && strstr(err, "calling convention"),
	   "get with another calling convention: said (%s)", err);
	set_flags(&im, 3, 0x282);

	/* get_nowait renamed get: two gets, no get_nowait. */
	{
		Elf64_Rela r;
		size_t at = im.rela + 8 * sizeof(r);

		memcpy(&r, im.b + at, sizeof(r));
		r.r_addend = (int64_t)str("get");
		memcpy(im.b + at, &r, sizeof(r));
		ret = offsets(im.b, im.len, off, err, sizeof(err));
		ok(ret == -1 && strstr(err, "two methods named get"),
		   "a method twice: said (%s)", err);
		r.r_addend = (int64_t)str("qsize");
		memcpy(im.b + at, &r, sizeof(r));
		ret = offsets(im.b, im.len, off, err, sizeof(err));
		ok(ret == -1 && strstr(err, "no method SimpleQueue.get_nowait"),
		   "a method missing: named (%s)", err);
		r.r_addend = (int64_t)str("get_nowait");
		memcpy(im.b + at, &r, sizeof(r));
	}

	/* A function outside the text. */
	{
		Elf64_Rela r;
		size_t at = im.rela + 3 * sizeof(r);

		memcpy(&r, im.b + at, sizeof(r));
		r.r_addend = DATA + 0x10;
		memcpy(im.b + at, &r, sizeof(r));
		ret = offsets(im.b, im.len, off, err, sizeof(err));
		ok(ret == -1 && strstr(err, "no executable segment"),
		   "a function outside the text: said (%s)", err);
		r.r_addend = TEXT + 0x200;
		memcpy(im.b + at, &r, sizeof(r));
	}

	/* Relocations past the end; a 32-bit image. */
	{
		Elf64_Shdr sh;
		Elf64_Ehdr eh;
		size_t at;

		memcpy(&eh, im.b, sizeof(eh));
		at = eh.e_shoff + sizeof(sh);
		memcpy(&sh, im.b + at, sizeof(sh));
		sh.sh_size += im.len;
		memcpy(im.b + at, &sh, sizeof(sh));
		ret = offsets(im.b, im.len, off, err, sizeof(err));
		ok(ret == -1 && strstr(err, "corrupt relocations"),
		   "relocations past the end: said (%s)", err);
		sh.sh_size -= im.len;
		memcpy(im.b + at, &sh, sizeof(sh));
		eh.e_ident[EI_CLASS] = ELFCLASS32;
		memcpy(im.b, &eh, sizeof(eh));
		ret = offsets(im.b, im.len, off, err, sizeof(err));
		ok(ret == -1 && strstr(err, "x86-64"), "32-bit: said (%s)", err);
	}
	free(im.b);
	debian_module();
	return tap_done();
}
