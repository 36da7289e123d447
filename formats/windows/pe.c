/* SPDX-License-Identifier: MIT */
/* PE images (stackview/symbols.h): the export table as functions where no PDB is at hand
 * (named exports; forwarders left out), and the image's identity — its CodeView (RSDS)
 * record's PDB GUID, age and name, the machine, and the TimeDateStamp and SizeOfImage a
 * symbol store keys the image itself by. Bounds-checked like the PDB reader: every RVA is
 * mapped through the section table before it is read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/symbols.h"
#include "core/symtab_int.h"

static inline uint16_t u16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

typedef struct pe {
	const unsigned char *d;
	size_t n;
	const unsigned char *sect; /* the section table */
	uint16_t nsect;
} pe;

/* The file offset of n bytes at rva, or SIZE_MAX when no section holds them. */
static size_t at(const pe *p, uint32_t rva, size_t n)
{
	for (uint16_t i = 0; i < p->nsect; i++) {
		const unsigned char *s = p->sect + 40 * (size_t)i;
		uint32_t va = u32(s + 12), vsize = u32(s + 8), raw = u32(s + 16), off = u32(s + 20);
		uint32_t size = vsize > raw ? raw : vsize;
		if (!size)
			size = raw;
		if (rva >= va && (uint64_t)rva - va + n <= size) {
			uint64_t o = (uint64_t)off + (rva - va);
			return o + n <= p->n ? (size_t)o : SIZE_MAX;
		}
	}
	return SIZE_MAX;
}

static int fail(sv_error *err, const char *name, int code, size_t off, const char *msg)
{
	sv_error_set(err, code, "%s", msg);
	sv_error_locate(err, name, -1, (long long)off);
	return code;
}

/* The headers both readers stand on: the MZ header's PE signature, the COFF header, an
 * optional header of a known kind long enough for its fixed fields, the section table
 * inside the input. */
typedef struct pe_hdr {
	uint16_t machine, nsect, optsize, magic;
	uint32_t stamp;
	size_t opt; /* where the optional header starts */
	const unsigned char *sect;
} pe_hdr;

static int headers(const unsigned char *d, size_t n, const char *name, pe_hdr *h, sv_error *err)
{
	if (n < 64 || d[0] != 'M' || d[1] != 'Z')
		return fail(err, name, SV_EFORMAT, 0, "not a PE image (no MZ header)");
	uint32_t lfanew = u32(d + 0x3C);
	if ((uint64_t)lfanew + 24 > n || memcmp(d + lfanew, "PE\0\0", 4))
		return fail(err, name, SV_EFORMAT, 0x3C, "not a PE image (no PE signature where the MZ header points)");
	const unsigned char *coff = d + lfanew + 4;
	h->machine = u16(coff), h->nsect = u16(coff + 2), h->optsize = u16(coff + 16);
	h->stamp = u32(coff + 4);
	h->opt = (size_t)lfanew + 24;
	if (h->opt + h->optsize > n || h->optsize < 96)
		return fail(err, name, SV_EFORMAT, lfanew + 20, "corrupt PE image: optional header out of range");
	h->magic = u16(d + h->opt);
	if (h->magic != 0x10B && h->magic != 0x20B)
		return fail(err, name, SV_EFORMAT, h->opt, "corrupt PE image: unknown optional header magic");
	if (h->optsize < (h->magic == 0x20B ? 112 : 96)) /* PE32+'s fields before its data directories are longer */
		return fail(err, name, SV_EFORMAT, lfanew + 20, "corrupt PE image: optional header out of range");
	h->sect = d + h->opt + h->optsize;
	if ((size_t)(h->sect - d) + 40 * (size_t)h->nsect > n)
		return fail(err, name, SV_EFORMAT, h->opt + h->optsize, "corrupt PE image: the section table overruns the file");
	return 0;
}

int sv_symtab_read_pe(sv_symtab **out, const unsigned char *d, size_t n, const char *name, sv_error *err)
{
	pe_hdr h;
	int hrc = headers(d, n, name, &h, err);
	if (hrc)
		return hrc;
	size_t opt = h.opt, optsize = h.optsize;
	uint16_t magic = h.magic;
	size_t dd = opt + (magic == 0x20B ? 112 : 96);
	uint32_t ndd = u32(d + opt + (magic == 0x20B ? 108 : 92));
	if (ndd > 16)
		ndd = 16;
	if (dd + 8 * (size_t)ndd > opt + optsize)
		ndd = (uint32_t)((opt + optsize - dd) / 8);
	pe p = { d, n, h.sect, h.nsect };
	sv_symtab *t = sv_symtab_new_empty();
	if (!t)
		return sv_error_set(err, SV_ENOMEM, NULL);
	t->machine = h.machine;
	t->pe_stamp = h.stamp;
	t->pe_size = u32(d + opt + 56);
	t->is_pe = true;
	int rc = 0;
	/* the export table: names, their ordinals, the functions' RVAs */
	if (ndd > 0 && u32(d + dd) && u32(d + dd + 4)) {
		uint32_t erva = u32(d + dd), esize = u32(d + dd + 4);
		size_t e = at(&p, erva, 40);
		if (e == SIZE_MAX) {
			rc = fail(err, name, SV_EFORMAT, dd, "corrupt PE image: the export table is outside every section");
			goto out;
		}
		uint32_t nfunc = u32(d + e + 20), nnames = u32(d + e + 24);
		size_t funcs = at(&p, u32(d + e + 28), 4 * (size_t)nfunc), names = at(&p, u32(d + e + 32), 4 * (size_t)nnames),
		       ords = at(&p, u32(d + e + 36), 2 * (size_t)nnames);
		if (nfunc > (1u << 20) || nnames > (1u << 20) || (nnames && (funcs == SIZE_MAX || names == SIZE_MAX || ords == SIZE_MAX))) {
			rc = fail(err, name, SV_EFORMAT, e, "corrupt PE image: export arrays out of range");
			goto out;
		}
		for (uint32_t i = 0; i < nnames && !rc; i++) {
			uint16_t ord = u16(d + ords + 2 * (size_t)i);
			if (ord >= nfunc)
				continue;
			uint32_t frva = u32(d + funcs + 4 * (size_t)ord);
			if (!frva || (frva >= erva && frva < erva + esize))
				continue; /* no function, or a forwarder ("dll.name") */
			size_t no = at(&p, u32(d + names + 4 * (size_t)i), 1);
			if (no == SIZE_MAX)
				continue;
			size_t nl = strnlen((const char *)d + no, n - no < 4096 ? n - no : 4096);
			if (nl)
				rc = sv_symtab_add(t, frva, 0, (const char *)d + no, nl, true);
			t->publics++;
		}
	}
	/* the debug directory's CodeView record: "RSDS", GUID, age, PDB path */
	if (!rc && ndd > 6 && u32(d + dd + 48)) {
		uint32_t drva = u32(d + dd + 48), dsize = u32(d + dd + 52);
		size_t dir = at(&p, drva, dsize < 28 ? 28 : dsize);
		for (uint32_t k = 0; dir != SIZE_MAX && k + 28 <= dsize && k < 28 * 64; k += 28) {
			const unsigned char *de = d + dir + k;
			uint32_t type = u32(de + 12), size = u32(de + 16), ptr = u32(de + 24);
			if (type != 2 || size < 24 || (uint64_t)ptr + size > n || memcmp(d + ptr, "RSDS", 4))
				continue;
			memcpy(t->guid, d + ptr + 4, 16);
			t->age = u32(d + ptr + 20);
			size_t pl = strnlen((const char *)d + ptr + 24, size - 24);
			snprintf(t->pdb_name, sizeof(t->pdb_name), "%.*s", (int)pl, (const char *)d + ptr + 24);
			t->has_identity = true;
			break;
		}
	}
out:
	if (rc) {
		sv_symtab_free(t);
		return rc == SV_ENOMEM ? sv_error_set(err, SV_ENOMEM, NULL) : rc;
	}
	sv_symtab_finish(t);
	*out = t;
	return 0;
}

int sv_pe_code(const unsigned char *d, size_t n, const char *name, uint32_t rva, uint32_t size, sv_pe_code_info *out,
	       sv_error *err)
{
	memset(out, 0, sizeof(*out));
	pe_hdr h;
	int rc = headers(d, n, name, &h, err);
	if (rc)
		return rc;
	size_t opt = h.opt;
	out->machine = h.machine;
	out->is64 = h.magic == 0x20B;
	out->image_base = out->is64 ? (uint64_t)u32(d + opt + 24) | (uint64_t)u32(d + opt + 28) << 32 : u32(d + opt + 28);
	const unsigned char *sect = h.sect;
	uint16_t nsect = h.nsect;
	if (size == 0) /* the header's fields only */
		return 0;
	for (uint16_t i = 0; i < nsect; i++) {
		const unsigned char *s = sect + 40 * (size_t)i;
		uint32_t va = u32(s + 12), raw = u32(s + 16), off = u32(s + 20), flags = u32(s + 36);
		if (rva < va || (uint64_t)rva - va >= raw)
			continue;
		if (!(flags & 0x20000000u)) /* IMAGE_SCN_MEM_EXECUTE */
			return fail(err, name, SV_EFORMAT, (size_t)(s - d),
				    "the section holding the code is not executable");
		if ((uint64_t)rva - va + size > raw || (uint64_t)off + raw > n)
			return fail(err, name, SV_EFORMAT, (size_t)(s - d), "corrupt PE image: the code runs past its section's data");
		out->code = d + off + (rva - va);
		return 0;
	}
	return fail(err, name, SV_EFORMAT, (size_t)(sect - d), "no section of the image holds the code");
}
