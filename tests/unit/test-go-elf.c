/*
 * Unit tests of collector/cmd/go-elf.c: the file offsets of Go's
 * scheduler functions in an ELF image. A synthetic x86-64 image with
 * the four symbols (and decoys) gives known offsets; every truncation
 * of it, and corrupt headers, fail with a message and read nothing
 * outside the image (t-sanitize runs this under ASan); images without
 * a symbol table or without the functions say so.
 */
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "go-elf.h"
#include "tap.h"

#define BASE 0x400000u
#define TEXT 0x1000u	/* file offset of the text segment */

struct image {
	unsigned char *b;
	size_t len;
	size_t sh_off;	/* section headers */
	size_t sym_off;	/* the symbol table */
	size_t str_off;	/* its names */
};

static const char names[] =
	"\0runtime.execute\0runtime.stopm\0runtime.goready\0runtime.goexit0"
	"\0runtime.chansend\0runtime.chanrecv\0runtime.selectgo"
	"\0runtime.newproc1\0runtime.runqput"
	"\0runtime.executeX\0main.main";

/* A symbol's name offset in names. */
static uint32_t name_at(const char *s)
{
	size_t i;

	for (i = 1; i < sizeof(names); i += strlen(names + i) + 1)
		if (!strcmp(names + i, s))
			return (uint32_t)i;
	abort();
}

/*
 * Text at file offset TEXT, virtual BASE + TEXT, 0x8000 bytes; symbols:
 * execute at +0x100, stopm +0x200, goready +0x300, goexit0 +0x400,
 * chansend +0x500, chanrecv +0x600, selectgo +0x700, newproc1 +0x800,
 * runqput +0x900, and decoys (a
 * longer name, an object, main.main).
 */
static struct image make(int with_symtab)
{
	struct image im;
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph[2] = { { 0 } };
	Elf64_Shdr sh[3] = { { 0 } };
	Elf64_Sym sym[13] = { { 0 } };
	int n = 0;

	im.len = TEXT + 0x8000 + sizeof(sym) + sizeof(names) + sizeof(sh);
	im.b = calloc(1, im.len);
	im.sym_off = TEXT + 0x8000;
	im.str_off = im.sym_off + sizeof(sym);
	im.sh_off = im.str_off + sizeof(names);

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 2;
	eh.e_shoff = im.sh_off;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = with_symtab ? 3 : 1;

	/* A read-only data segment first, then the text. */
	ph[0].p_type = PT_LOAD;
	ph[0].p_flags = PF_R;
	ph[0].p_vaddr = BASE;
	ph[0].p_filesz = TEXT;
	ph[1].p_type = PT_LOAD;
	ph[1].p_flags = PF_R | PF_X;
	ph[1].p_offset = TEXT;
	ph[1].p_vaddr = BASE + TEXT;
	ph[1].p_filesz = 0x8000;

	sym[++n] = (Elf64_Sym){ .st_name = name_at("main.main"),
		.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		.st_value = BASE + TEXT + 0x10 };
	sym[++n] = (Elf64_Sym){ .st_name = name_at("runtime.executeX"),
		.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		.st_value = BASE + TEXT + 0x20 };
	sym[++n] = (Elf64_Sym){ .st_name = name_at("runtime.stopm"),
		.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT),
		.st_value = BASE + TEXT + 0x30 };
	sym[++n] = (Elf64_Sym){ .st_name = name_at("runtime.execute"),
		.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		.st_value = BASE + TEXT + 0x100 };
	sym[++n] = (Elf64_Sym){ .st_name = name_at("runtime.stopm"),
		.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		.st_value = BASE + TEXT + 0x200 };
	sym[++n] = (Elf64_Sym){ .st_name = name_at("runtime.goready"),
		.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		.st_value = BASE + TEXT + 0x300 };
	sym[++n] = (Elf64_Sym){ .st_name = name_at("runtime.goexit0"),
		.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		.st_value = BASE + TEXT + 0x400 };
	sym[++n] = (Elf64_Sym){ .st_name = name_at("runtime.chansend"),
		.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		.st_value = BASE + TEXT + 0x500 };
	sym[++n] = (Elf64_Sym){ .st_name = name_at("runtime.chanrecv"),
		.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		.st_value = BASE + TEXT + 0x600 };
	sym[++n] = (Elf64_Sym){ .st_name = name_at("runtime.selectgo"),
		.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		.st_value = BASE + TEXT + 0x700 };
	sym[++n] = (Elf64_Sym){ .st_name = name_at("runtime.newproc1"),
		.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		.st_value = BASE + TEXT + 0x800 };
	sym[++n] = (Elf64_Sym){ .st_name = name_at("runtime.runqput"),
		.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		.st_value = BASE + TEXT + 0x900 };

	sh[1].sh_type = SHT_SYMTAB;
	sh[1].sh_offset = im.sym_off;
	sh[1].sh_size = sizeof(sym);
	sh[1].sh_entsize = sizeof(Elf64_Sym);
	sh[1].sh_link = 2;
	sh[2].sh_type = SHT_STRTAB;
	sh[2].sh_offset = im.str_off;
	sh[2].sh_size = sizeof(names);

	memcpy(im.b, &eh, sizeof(eh));
	memcpy(im.b + sizeof(eh), ph, sizeof(ph));
	memcpy(im.b + im.sym_off, sym, sizeof(sym));
	memcpy(im.b + im.str_off, names, sizeof(names));
	memcpy(im.b + im.sh_off, sh, sizeof(sh));
	return im;
}

/* dt_go_offsets on a heap copy of exactly len bytes (ASan sees overreads). */
static int offsets(const unsigned char *b, size_t len, uint64_t *off,
		   char *err, size_t errlen)
{
	unsigned char *copy = malloc(len ? len : 1);
	int ret;

	memcpy(copy, b, len);
	ret = dt_go_offsets(copy, len, off, err, errlen);
	free(copy);
	return ret;
}

int main(void)
{
	struct image im = make(1), bare = make(0);
	uint64_t off[DT_GO_FNS];
	char err[256];
	int ret, bad;
	size_t len;

	ret = offsets(im.b, im.len, off, err, sizeof(err));
	ok(ret == 0, "a synthetic Go image: found (%s)", ret ? err : "ok");
	ok(!ret && off[0] == TEXT + 0x100 && off[1] == TEXT + 0x200 &&
	   off[2] == TEXT + 0x300 && off[3] == TEXT + 0x400 &&
	   off[4] == TEXT + 0x500 && off[5] == TEXT + 0x600 &&
	   off[6] == TEXT + 0x700 && off[7] == TEXT + 0x800 &&
	   off[8] == TEXT + 0x900,
	   "file offsets of execute, stopm, goready, goexit0, chansend, "
	   "chanrecv, selectgo, newproc1, runqput (decoys: a longer name, an "
	   "object of the "
	   "same name)");

	ret = offsets(bare.b, bare.len, off, err, sizeof(err));
	ok(ret == -1 && strstr(err, "no symbol table"),
	   "without a symbol table: said (%s)", err);

	ret = offsets((const unsigned char *)"#!/bin/sh\n", 10, off, err,
		      sizeof(err));
	ok(ret == -1 && strstr(err, "not an ELF"), "not ELF: said (%s)", err);

	bad = 0;
	for (len = 0; len < im.len; len++)
		if (offsets(im.b, len, off, err, sizeof(err)) != -1 || !*err)
			bad++;
	ok(bad == 0, "every truncation (%zu) fails with a message (%d did not)",
	   im.len, bad);

	/* No execute: its name changed in the strings. */
	im.b[im.str_off + name_at("runtime.execute") + 8] = 'E';
	ret = offsets(im.b, im.len, off, err, sizeof(err));
	ok(ret == -1 && strstr(err, "no runtime.execute"),
	   "a function missing: named (%s)", err);
	im.b[im.str_off + name_at("runtime.execute") + 8] = 'e';

	/* The strings not terminated. */
	im.b[im.str_off + sizeof(names) - 1] = 'x';
	ret = offsets(im.b, im.len, off, err, sizeof(err));
	ok(ret == -1 && strstr(err, "corrupt"), "names not terminated: said (%s)",
	   err);
	im.b[im.str_off + sizeof(names) - 1] = 0;

	/* A symbol past the text. */
	{
		Elf64_Sym s;
		size_t at = im.sym_off + 4 * sizeof(s);

		memcpy(&s, im.b + at, sizeof(s));
		s.st_value = BASE + TEXT + 0x9000;
		memcpy(im.b + at, &s, sizeof(s));
		ret = offsets(im.b, im.len, off, err, sizeof(err));
		ok(ret == -1 && strstr(err, "no executable segment"),
		   "a function outside the text: said (%s)", err);
	}

	/* Section headers pointing past the end; a 32-bit image. */
	{
		Elf64_Ehdr eh;

		memcpy(&eh, im.b, sizeof(eh));
		eh.e_shoff = im.len - 10;
		memcpy(im.b, &eh, sizeof(eh));
		ret = offsets(im.b, im.len, off, err, sizeof(err));
		ok(ret == -1 && strstr(err, "corrupt"),
		   "section headers past the end: said (%s)", err);
		eh.e_ident[EI_CLASS] = ELFCLASS32;
		memcpy(im.b, &eh, sizeof(eh));
		ret = offsets(im.b, im.len, off, err, sizeof(err));
		ok(ret == -1 && strstr(err, "x86-64"), "32-bit: said (%s)", err);
	}
	free(im.b);
	free(bare.b);
	return tap_done();
}
