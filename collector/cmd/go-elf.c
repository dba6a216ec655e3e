/*
 * go-elf: Go's scheduler functions' file offsets (go-elf.h). Every
 * offset and count read from the file is checked against its length
 * before use: the file is anything a user names.
 */
#include <string.h>

#include "elf-read.h"
#include "go-elf.h"

const char *const dt_go_fns[DT_GO_FNS] = {
	"runtime.execute", "runtime.stopm", "runtime.goready",
	"runtime.goexit0", "runtime.chansend", "runtime.chanrecv",
	"runtime.selectgo", "runtime.newproc1", "runtime.runqput",
};

int dt_go_offsets(const unsigned char *img, size_t len,
		  uint64_t off[DT_GO_FNS], char *err, size_t errlen)
{
	Elf64_Shdr symtab, strtab;
	uint64_t va[DT_GO_FNS] = { 0 };
	Elf64_Ehdr eh;
	int i, k, found = 0;

	if (dt_elf_header(img, len, &eh, err, errlen))
		return -1;
	for (i = 0; i < eh.e_shnum; i++) {
		memcpy(&symtab, img + eh.e_shoff + (size_t)i * sizeof(symtab),
		       sizeof(symtab));
		if (symtab.sh_type == SHT_SYMTAB)
			break;
	}
	if (i == eh.e_shnum)
		return dt_elf_fail(err, errlen, "no symbol table (a stripped binary: "
				   "build it without -ldflags=-s)");
	if (symtab.sh_link >= eh.e_shnum ||
	    symtab.sh_entsize != sizeof(Elf64_Sym) ||
	    !dt_elf_within(symtab.sh_offset, 1, symtab.sh_size, len))
		return dt_elf_fail(err, errlen, "corrupt symbol table");
	memcpy(&strtab, img + eh.e_shoff + (size_t)symtab.sh_link *
	       sizeof(strtab), sizeof(strtab));
	if (strtab.sh_type != SHT_STRTAB ||
	    !dt_elf_within(strtab.sh_offset, 1, strtab.sh_size, len) ||
	    !strtab.sh_size || img[strtab.sh_offset + strtab.sh_size - 1])
		return dt_elf_fail(err, errlen, "corrupt symbol names");
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
			return dt_elf_fail(err, errlen, "no %s in the symbol table "
					   "(not a Go program, or a Go version whose "
					   "scheduler differs)", dt_go_fns[k]);
		if (dt_elf_file_offset(img, &eh, va[k], 1, 1, &off[k]))
			return dt_elf_fail(err, errlen, "%s (%#llx) is in no "
					   "executable segment", dt_go_fns[k],
					   (unsigned long long)va[k]);
	}
	return found >= DT_GO_FNS ? 0 : -1;
}
