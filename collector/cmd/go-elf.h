/*
 * go-elf: where Go's scheduler functions that dtracer probes begin in a
 * Go binary's file (dtracer/goroutines.c says why): their symbols in the
 * ELF symbol table, mapped through the program headers to file offsets,
 * which uprobes take. x86-64 only (the registers dtracer reads are Go's
 * internal ABI there).
 */
#ifndef DT_GO_ELF_H
#define DT_GO_ELF_H

#include <stddef.h>
#include <stdint.h>

enum { DT_GO_FNS = 9 };

/* The functions, in the order of sysfs go's offsets. */
extern const char *const dt_go_fns[DT_GO_FNS];

/*
 * The file offsets of dt_go_fns in the ELF image img (len bytes) into
 * off. 0, or -1 with a message in err (a corrupt or truncated file, not
 * x86-64, no symbol table, a function missing).
 */
int dt_go_offsets(const unsigned char *img, size_t len,
		  uint64_t off[DT_GO_FNS], char *err, size_t errlen);

#endif
