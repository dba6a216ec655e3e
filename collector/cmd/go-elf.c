/*
 * go-elf: Go's scheduler functions' file offsets (go-elf.h). Every
 * offset and count read from the file is checked against its length
 * before use: the file is anything a user names.
 */
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "go-elf.h"

const char *const dt_go_fns[DT_GO_FNS] = {
	"runtime.execute", "runtime.stopm", "runtime.goready",
	"runtime.goexit0", "runtime.chansend", "runtime.chanrecv",
	"runtime.selectgo", "runtime.newproc1", "runtime.runqput",
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Whether [off, off + n * size) lies in a file of len bytes. */
static int within(uint64_t off, uint64_t n, uint64_t size, size_t len)
{
	return off <= len && (size == 0 || n <= (len - off) / size);
}

/* The file offset of virtual address va, through the PT_LOAD segments. */
static int file_offset(const unsigned char *img, const Elf64_Ehdr *eh,
		       uint64_t va, uint64_t *off)
{
	int i;

	for (i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, img + eh->e_phoff + (size_t)i * sizeof(ph),
		       sizeof(ph));
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    va >= ph.p_vaddr && va - ph.p_vaddr < ph.p_filesz) {
			*off = va - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -1;
}

int dt_go_offsets(const unsigned char *img, size_t len,
		  uint64_t off[DT_GO_FNS], char *err, size_t errlen)
{
	Elf64_Shdr symtab, strtab;
	uint64_t va[DT_GO_FNS] = { 0 };
	Elf64_Ehdr eh;
	int i, k, found = 0;

	if (len < sizeof(eh) || memcmp(img, ELFMAG, SELFMAG))
		return fail(err, errlen, "not an ELF file");
	memcpy(&eh, img, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64)
		return fail(err, errlen, "not an x86-64 ELF file "
			    "(Go's internal ABI is read on x86-64 only)");
	if (eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    !within(eh.e_shoff, eh.e_shnum, sizeof(Elf64_Shdr), len) ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    !within(eh.e_phoff, eh.e_phnum, sizeof(Elf64_Phdr), len))
		return fail(err, errlen, "corrupt or truncated ELF headers");
	for (i = 0; i < eh.e_shnum; i++) {
		memcpy(&symtab, img + eh.e_shoff + (size_t)i * sizeof(symtab),
		       sizeof(symtab));
		if (symtab.sh_type == SHT_SYMTAB)
			break;
	}
	if (i == eh.e_shnum)
		return fail(err, errlen, "no symbol table (a stripped binary: "
			    "build it without -ldflags=-s)");
	if (symtab.sh_link >= eh.e_shnum ||
	    symtab.sh_entsize != sizeof(Elf64_Sym) ||
	    !within(symtab.sh_offset, 1, symtab.sh_size, len))
		return fail(err, errlen, "corrupt symbol table");
	memcpy(&strtab, img + eh.e_shoff + (size_t)symtab.sh_link *
	       sizeof(strtab), sizeof(strtab));
	if (strtab.sh_type != SHT_STRTAB ||
	    !within(strtab.sh_offset, 1, strtab.sh_size, len) ||
	    !strtab.sh_size || img[strtab.sh_offset + strtab.sh_size - 1])
		return fail(err, errlen, "corrupt symbol names");
	for (i = 0; (uint64_t)i < symtab.sh_size / sizeof(Elf64_Sym); i++) {
		const char *name;
		Elf64_Sym sym;

		memcpy(&sym, img + symtab.sh_offset + (size_t)i * sizeof(sym),
		       sizeof(sym));
		if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_name >= strtab.sh_size || !sym.st_value)
			continue;
		name = (const char *)img + strtab.sh_offset + sym.st_name;
		for (k = 0; k < DT_GO_FNS; k++)
			if (!va[k] && !strcmp(name, dt_go_fns[k])) {
				va[k] = sym.st_value;
				found++;
			}
	}
	for (k = 0; k < DT_GO_FNS; k++) {
		if (!va[k])
			return fail(err, errlen, "no %s in the symbol table "
				    "(not a Go program, or a Go version whose "
				    "scheduler differs)", dt_go_fns[k]);
		if (file_offset(img, &eh, va[k], &off[k]))
			return fail(err, errlen, "%s (%#llx) is in no "
				    "executable segment", dt_go_fns[k],
				    (unsigned long long)va[k]);
	}
	return found >= DT_GO_FNS ? 0 : -1;
}
