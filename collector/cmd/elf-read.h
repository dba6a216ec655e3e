/*
 * elf-read: what go-elf.c and pyqueue-elf.c both need of a file a user
 * names, read in memory: its ELF header checked (64-bit, little-endian,
 * x86-64, its section and program header tables inside the file),
 * ranges checked against the file's length, virtual addresses mapped to
 * file offsets through the PT_LOAD segments, and a message on failure.
 */
#ifndef DT_ELF_READ_H
#define DT_ELF_READ_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

/* Writes the message into err (errlen bytes); returns -1. */
int dt_elf_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Whether [off, off + n * size) lies in a file of len bytes. */
int dt_elf_within(uint64_t off, uint64_t n, uint64_t size, size_t len);

/* img's header into *eh, checked as above: 0, or -1 said. */
int dt_elf_header(const unsigned char *img, size_t len, Elf64_Ehdr *eh,
		  char *err, size_t errlen);

/*
 * The file offset of n bytes at virtual address va, through the PT_LOAD
 * segments (executable ones only if exec) of a header dt_elf_header
 * checked: 0, or -1 if no segment holds them.
 */
int dt_elf_file_offset(const unsigned char *img, const Elf64_Ehdr *eh,
		       uint64_t va, uint64_t n, int exec, uint64_t *off);

#endif
