/*
 * pyqueue-elf: CPython's SimpleQueue methods' file offsets
 * (pyqueue-elf.h). Every offset and count read from the file is checked
 * against its length before use: the file is anything a user names.
 */
#include <stdlib.h>
#include <string.h>

#include "elf-read.h"
#include "pyqueue-elf.h"

const char *const dt_pyq_fns[DT_PYQ_FNS] = {
	"put", "put_nowait", "get", "get_nowait",
};

/*
 * The calling conventions dtracer reads (CPython's METH_FASTCALL 0x80,
 * METH_KEYWORDS 0x2, METH_METHOD 0x200): put's items in a vector, get
 * with its defining class.
 */
static const int dt_pyq_flags[DT_PYQ_FNS] = { 0x82, 0x82, 0x282, 0x282 };

struct rel {
	uint64_t at;		/* where the pointer is (virtual address) */
	uint64_t to;		/* what it points to (the addend) */
};

static int rel_cmp(const void *a, const void *b)
{
	const struct rel *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

static const struct rel *rel_at(const struct rel *r, size_t n, uint64_t at)
{
	struct rel key = { .at = at };

	return bsearch(&key, r, n, sizeof(*r), rel_cmp);
}

/* The name at va, if it is a NUL-terminated string in the file. */
static const char *name_at(const unsigned char *img, size_t len,
			   const Elf64_Ehdr *eh, uint64_t va)
{
	uint64_t off;

	if (dt_elf_file_offset(img, eh, va, 1, 0, &off) ||
	    !memchr(img + off, 0, len - off))
		return NULL;
	return (const char *)img + off;
}

/* The image's R_X86_64_RELATIVE relocations, sorted; NULL: none or -1. */
static struct rel *relocations(const unsigned char *img, size_t len,
			       const Elf64_Ehdr *eh, size_t *n, char *err,
			       size_t errlen)
{
	struct rel *r = NULL, *more;
	size_t cap = 0;
	int i;

	*n = 0;
	for (i = 0; i < eh->e_shnum; i++) {
		Elf64_Shdr sh;
		uint64_t k;

		memcpy(&sh, img + eh->e_shoff + (size_t)i * sizeof(sh),
		       sizeof(sh));
		if (sh.sh_type != SHT_RELA)
			continue;
		if (sh.sh_entsize != sizeof(Elf64_Rela) ||
		    !dt_elf_within(sh.sh_offset, 1, sh.sh_size, len)) {
			free(r);
			dt_elf_fail(err, errlen, "corrupt relocations");
			return NULL;
		}
		for (k = 0; k < sh.sh_size / sizeof(Elf64_Rela); k++) {
			Elf64_Rela ra;

			memcpy(&ra, img + sh.sh_offset + k * sizeof(ra),
			       sizeof(ra));
			if (ELF64_R_TYPE(ra.r_info) != R_X86_64_RELATIVE)
				continue;
			if (*n == cap) {
				cap = cap ? 2 * cap : 256;
				more = realloc(r, cap * sizeof(*r));
				if (!more) {
					free(r);
					dt_elf_fail(err, errlen, "out of memory");
					return NULL;
				}
				r = more;
			}
			r[*n].at = ra.r_offset;
			r[(*n)++].to = (uint64_t)ra.r_addend;
		}
	}
	if (!*n)
		dt_elf_fail(err, errlen, "no relocations (not a shared object: "
			    "CPython's _queue module is one)");
	else
		qsort(r, *n, sizeof(*r), rel_cmp);
	return r;
}

/*
 * Each method def among the relocations: a pointer to one of the names
 * followed by a pointer to a function, then its flags. Sets va[k], or
 * says what is wrong.
 */
static int find_methods(const unsigned char *img, size_t len,
			const Elf64_Ehdr *eh, const struct rel *r, size_t n,
			uint64_t va[DT_PYQ_FNS], char *err, size_t errlen)
{
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		const struct rel *fn;
		const char *name;
		uint64_t off;
		int32_t flags;

		name = name_at(img, len, eh, r[i].to);
		if (!name)
			continue;
		for (k = 0; k < DT_PYQ_FNS; k++)
			if (!strcmp(name, dt_pyq_fns[k]))
				break;
		if (k == DT_PYQ_FNS)
			continue;
		fn = rel_at(r, n, r[i].at + 8);
		if (!fn || dt_elf_file_offset(img, eh, r[i].at + 16, 4, 0, &off))
			continue;
		memcpy(&flags, img + off, sizeof(flags));
		if (flags != dt_pyq_flags[k])
			return dt_elf_fail(err, errlen, "SimpleQueue.%s's calling "
					   "convention is %#x, not %#x (a CPython "
					   "dtracer does not read)", name,
					   (unsigned)flags, dt_pyq_flags[k]);
		if (va[k])
			return dt_elf_fail(err, errlen, "two methods named %s (not "
					   "CPython's _queue module)", name);
		va[k] = fn->to;
	}
	return 0;
}

int dt_pyq_offsets(const unsigned char *img, size_t len,
		   uint64_t off[DT_PYQ_FNS], char *err, size_t errlen)
{
	uint64_t va[DT_PYQ_FNS] = { 0 };
	struct rel *r;
	Elf64_Ehdr eh;
	size_t n;
	int k, ret;

	if (dt_elf_header(img, len, &eh, err, errlen))
		return -1;
	r = relocations(img, len, &eh, &n, err, errlen);
	if (!r)
		return -1;
	ret = find_methods(img, len, &eh, r, n, va, err, errlen);
	free(r);
	if (ret)
		return -1;
	for (k = 0; k < DT_PYQ_FNS; k++) {
		if (!va[k])
			return dt_elf_fail(err, errlen, "no method SimpleQueue.%s "
					   "(not CPython's _queue module)",
					   dt_pyq_fns[k]);
		if (dt_elf_file_offset(img, &eh, va[k], 1, 1, &off[k]))
			return dt_elf_fail(err, errlen, "SimpleQueue.%s (%#llx) is "
					   "in no executable segment", dt_pyq_fns[k],
					   (unsigned long long)va[k]);
	}
	return 0;
}
