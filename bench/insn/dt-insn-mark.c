/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt-insn-mark: executes the marker instruction of bench/insn/dt-insn.c
 * once (under that QEMU plugin, a line with the guest's instruction
 * counts so far; elsewhere, nothing) and prints LABEL, if given, for the
 * guest's own log of what each mark was.
 */
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc > 2) {
		fprintf(stderr, "usage: dt-insn-mark [LABEL]\n");
		return 2;
	}
#if defined(__x86_64__)
	__asm__ volatile(".byte 0x48, 0x87, 0xc9" ::: "rcx", "memory");
#else
#error "dt-insn-mark: x86-64 only (the guests are)"
#endif
	if (argc == 2 && puts(argv[1]) == EOF)
		return 1;
	return 0;
}
