/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt-insn: a QEMU TCG plugin that counts the instructions a guest
 * executes, for benchmarks whose figures must not depend on how busy the
 * host is (wall and CPU time under TCG do).
 *
 * Every translated block adds its instruction count, inline, to one of
 * two counters: kernel (the block starts in the upper half of the
 * address space) or user. When a guest thread executes the marker
 * instruction (xchg %rcx,%rcx: 48 87 c9, which compilers never emit;
 * bench/insn/dt-insn-mark runs it), one line is appended to the output
 * file:
 *
 *     MARK-INDEX KERNEL-INSNS USER-INSNS
 *
 * so that the guest, which logs its own labels in the same order, can
 * take differences between two marks. A guest's instructions include
 * whatever ran between the marks: the workload, the kernel on its
 * behalf, interrupts and other tasks.
 *
 * With profile=PREFIX, the plugin also counts how often each kernel
 * block ran, and at each mark writes PREFIX.MARK-INDEX, the blocks that
 * ran since the previous mark: "ADDRESS INSNS EXECUTIONS" (address in 16
 * hex digits, as /proc/kallsyms has them; bench/insn/profile.sh adds
 * them up by kernel function).
 *
 * Usage: qemu-system-x86_64 -smp 1 -plugin file=dt-insn.so,out=PATH ...
 * One vCPU only (the plugin refuses more): the counters are plain
 * additions, and with one vCPU they count one CPU's work.
 *
 * Built against qemu-plugin.h from Debian's QEMU source, downloaded at
 * build time (bench/insn/qemu-plugin-h.sh): no QEMU code in this repo.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static const unsigned char dt_marker[] = { 0x48, 0x87, 0xc9 };

/* Guest kernel text lives in the upper half (x86-64 canonical). */
#define DT_KERNEL_HALF 0xffff800000000000ULL

static uint64_t dt_kernel_insns, dt_user_insns;
static uint64_t dt_marks;
static FILE *dt_out;

/*
 * The profile: one entry per translation of a kernel block (a block
 * translated again gets another entry), in blocks of entries that never
 * move (the inline additions hold their addresses).
 */
struct dt_tb {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t execs;
};

#define DT_CHUNK 4096

struct dt_chunk {
	struct dt_chunk *next;
	size_t used;
	struct dt_tb tb[DT_CHUNK];
};

static const char *dt_profile;
static struct dt_chunk *dt_chunks;

static struct dt_tb *dt_tb_new(uint64_t vaddr, uint64_t insns)
{
	struct dt_chunk *c = dt_chunks;

	if (!c || c->used == DT_CHUNK) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		c->next = dt_chunks;
		dt_chunks = c;
	}
	c->tb[c->used] = (struct dt_tb){ .vaddr = vaddr, .insns = insns };
	return &c->tb[c->used++];
}

/* PREFIX.MARK: the blocks that ran since the last mark; counts reset. */
static void dt_profile_dump(uint64_t mark)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.%" PRIu64, dt_profile, mark);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "dt-insn: %s: %s\n", path, strerror(errno));
	for (struct dt_chunk *c = dt_chunks; c; c = c->next) {
		for (size_t i = 0; i < c->used; i++) {
			struct dt_tb *tb = &c->tb[i];

			if (tb->execs && f)
				fprintf(f, "%016" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
					tb->vaddr, tb->insns, tb->execs);
			tb->execs = 0;
		}
	}
	if (f)
		fclose(f);
}

static void dt_on_mark(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	fprintf(dt_out, "%" PRIu64 " %" PRIu64 " %" PRIu64 "\n", dt_marks,
		dt_kernel_insns, dt_user_insns);
	fflush(dt_out);
	if (dt_profile)
		dt_profile_dump(dt_marks);
	dt_marks++;
}

static bool dt_is_marker(const struct qemu_plugin_insn *insn)
{
	return qemu_plugin_insn_size(insn) == sizeof(dt_marker) &&
	       !memcmp(qemu_plugin_insn_data(insn), dt_marker,
		       sizeof(dt_marker));
}

static void dt_on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t *counter = qemu_plugin_tb_vaddr(tb) >= DT_KERNEL_HALF ?
				    &dt_kernel_insns : &dt_user_insns;

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 counter, n);
	if (counter == &dt_kernel_insns) {
		struct dt_tb *p;

		if (!dt_profile)
			return;
		p = dt_tb_new(qemu_plugin_tb_vaddr(tb), n);
		if (p)
			qemu_plugin_register_vcpu_tb_exec_inline(
				tb, QEMU_PLUGIN_INLINE_ADD_U64, &p->execs, 1);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (dt_is_marker(insn))
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, dt_on_mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void dt_on_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	fclose(dt_out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info, int argc,
					   char **argv)
{
	const char *path = NULL;

	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
		} else if (!strncmp(argv[i], "profile=", 8) && argv[i][8]) {
			dt_profile = argv[i] + 8;
		} else {
			fprintf(stderr, "dt-insn: unknown argument '%s' (want out=PATH [profile=PREFIX])\n",
				argv[i]);
			return -1;
		}
	}
	if (!path) {
		fprintf(stderr, "dt-insn: no output file (want out=PATH)\n");
		return -1;
	}
	if (strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "dt-insn: guest is %s, not x86_64\n",
			info->target_name);
		return -1;
	}
	if (!info->system_emulation || info->system.smp_vcpus > 1) {
		fprintf(stderr, "dt-insn: want system emulation with one vCPU (have %d)\n",
			info->system_emulation ? info->system.smp_vcpus : 0);
		return -1;
	}
	dt_out = fopen(path, "w");
	if (!dt_out) {
		fprintf(stderr, "dt-insn: %s: %s\n", path, strerror(errno));
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, dt_on_translate);
	qemu_plugin_register_atexit_cb(id, dt_on_exit, NULL);
	return 0;
}
