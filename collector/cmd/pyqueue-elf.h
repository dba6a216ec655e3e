/*
 * pyqueue-elf: where the functions of CPython's SimpleQueue that dtracer
 * probes begin in its _queue module's file (dtracer/pyqueue.c says
 * why). Debian's module is stripped: the functions are found through the
 * type's method table instead, whose entries (a PyMethodDef: the name,
 * the function, the calling convention, the doc string) a shared object
 * fills by relocations (R_X86_64_RELATIVE), then mapped through the
 * program headers to file offsets, which uprobes take. x86-64 only (the
 * registers dtracer reads are its calling convention's).
 */
#ifndef DT_PYQUEUE_ELF_H
#define DT_PYQUEUE_ELF_H

#include <stddef.h>
#include <stdint.h>

enum { DT_PYQ_FNS = 4 };

/* The methods, in the order of sysfs python's offsets. */
extern const char *const dt_pyq_fns[DT_PYQ_FNS];

/*
 * The file offsets of SimpleQueue's dt_pyq_fns in the ELF image img (len
 * bytes) into off. 0, or -1 with a message in err (a corrupt or
 * truncated file, not x86-64, a method missing, found twice, or with a
 * calling convention dtracer does not read).
 */
int dt_pyq_offsets(const unsigned char *img, size_t len,
		   uint64_t off[DT_PYQ_FNS], char *err, size_t errlen);

#endif
