/*
 * elf-read: the checks and mappings go-elf.c and pyqueue-elf.c share
 * (elf-read.h). Every offset and count read from the file is checked
 * against its length before use: the file is anything a user names.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "elf-read.h"

int dt_elf_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int dt_elf_within(uint64_t off, uint64_t n, uint64_t size, size_t len)
{
	return off <= len && (size == 0 || n <= (len - off) / size);
}

int dt_elf_header(const unsigned char *img, size_t len, Elf64_Ehdr *eh,
		  char *err, size_t errlen)
{
	if (len < sizeof(*eh) || memcmp(img, ELFMAG, SELFMAG))
		return dt_elf_fail(err, errlen, "not an ELF file");
	memcpy(eh, img, sizeof(*eh));
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_machine != EM_X86_64)
		return dt_elf_fail(err, errlen, "not an x86-64 ELF file (the "
				   "registers dtracer reads are x86-64's)");
	if (eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !dt_elf_within(eh->e_shoff, eh->e_shnum, sizeof(Elf64_Shdr), len) ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    !dt_elf_within(eh->e_phoff, eh->e_phnum, sizeof(Elf64_Phdr), len))
		return dt_elf_fail(err, errlen,
				   "corrupt or truncated ELF headers");
	return 0;
}

int dt_elf_file_offset(const unsigned char *img, const Elf64_Ehdr *eh,
		       uint64_t va, uint64_t n, int exec, uint64_t *off)
{
	int i;

	for (i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, img + eh->e_phoff + (size_t)i * sizeof(ph),
		       sizeof(ph));
		if (ph.p_type != PT_LOAD || (exec && !(ph.p_flags & PF_X)) ||
		    va < ph.p_vaddr || va - ph.p_vaddr >= ph.p_filesz ||
		    n > ph.p_filesz - (va - ph.p_vaddr))
			continue;
		*off = va - ph.p_vaddr + ph.p_offset;
		return 0;
	}
	return -1;
}
