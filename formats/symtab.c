/* SPDX-License-Identifier: MIT */
/* Symbol tables (stackview/symbols.h): functions added by the readers, finished into one
 * sorted table, looked up by RVA; opening a file by its content (PDB, PE, or a .pd_
 * cabinet expanded first). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stackview/input.h"
#include "sv/array.h"
#include "perf_int.h"
#include "symsrv.h"
#include "symtab_int.h"

static inline uint16_t u16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

sv_symtab *sv_symtab_new_empty(void)
{
	return calloc(1, sizeof(sv_symtab));
}


static int add_name(sv_symtab *t, const char *s, size_t n, size_t *at)
{
	if (sv_array_reserve(&t->names, &t->names_cap, t->names_len + n + 1, 1))
		return SV_ENOMEM;
	memcpy(t->names + t->names_len, s, n);
	t->names[t->names_len + n] = '\0';
	*at = t->names_len;
	t->names_len += n + 1;
	return 0;
}

int sv_symtab_add(sv_symtab *t, uint32_t rva, uint32_t size, const char *name, size_t n, bool pub)
{
	size_t at;
	if (add_name(t, name, n, &at) || SV_ARRAY_RESERVE(t->syms, t->cap, t->n + 1))
		return SV_ENOMEM;
	/* the name's offset for now: names can move while the table grows */
	t->syms[t->n++] = (sv_symbol){ rva, size, (const char *)(uintptr_t)at, pub };
	return 0;
}


static int sym_cmp(const void *a, const void *b)
{
	const sv_symbol *x = a, *y = b;
	if (x->rva != y->rva)
		return x->rva < y->rva ? -1 : 1;
	if (x->is_public != y->is_public) /* at one address the procedures first */
		return x->is_public ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Point the names, sort, and keep one function per address: the first procedure by name
 * where identical code was folded into one (the linker's /OPT:ICF; Breakpad picks the same),
 * and a public only where no procedure covers it. */
void sv_symtab_finish(sv_symtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		t->syms[i].name = t->names + (uintptr_t)t->syms[i].name;
	if (t->n)
		qsort(t->syms, t->n, sizeof(*t->syms), sym_cmp);
	size_t w = 0;
	uint64_t cover_end = 0;
	for (size_t i = 0; i < t->n; i++) {
		sv_symbol s = t->syms[i];
		if (w && t->syms[w - 1].rva == s.rva) {
			t->covered += s.is_public;
			continue;
		}
		if (s.is_public && s.rva < cover_end) {
			t->covered++;
			continue;
		}
		if (!s.is_public && (uint64_t)s.rva + s.size > cover_end)
			cover_end = (uint64_t)s.rva + s.size;
		t->syms[w++] = s;
	}
	t->n = w;
}


typedef struct elf_add {
	sv_symtab *t;
	size_t beyond; /* addresses past 4 GiB, which an RVA cannot hold */
} elf_add;

static int add_elf(void *payload, uint64_t start, uint64_t end, const char *name)
{
	elf_add *a = payload;
	if (end > UINT32_MAX || end < start) {
		a->beyond++;
		return 0;
	}
	return sv_symtab_add(a->t, (uint32_t)start, (uint32_t)(end - start), name, strlen(name), false);
}

/* An ELF file: its functions as perf.data frames name them (perf_sym.c), at their ELF
 * addresses. */
static int read_elf(sv_symtab **out, const char *path, sv_error *err)
{
	sv_symtab *t = sv_symtab_new_empty();
	if (!t)
		return sv_error_set(err, SV_ENOMEM, NULL);
	elf_add a = { t, 0 };
	int rc = sv_perf_list_elf(path, add_elf, &a);
	if (rc) {
		sv_symtab_free(t);
		if (rc == SV_ENOTFOUND) {
			sv_error_set(err, SV_EFORMAT, "not an ELF file with symbols");
			sv_error_locate(err, path, -1, -1);
		} else {
			sv_error_set(err, rc, NULL);
		}
		return rc == SV_ENOTFOUND ? SV_EFORMAT : rc;
	}
	t->is_elf = true;
	t->procs = t->n;
	sv_symtab_finish(t);
	*out = t;
	return 0;
}

int sv_symtab_open(sv_symtab **out, const char *path, sv_error *err)
{
	sv_input in;
	int rc = sv_input_read(&in, path, err);
	if (rc)
		return rc;
	if (in.len >= 4 && !memcmp(in.data, "\x7f" "ELF", 4)) {
		sv_input_dispose(&in);
		return read_elf(out, path, err);
	}
	if (sv_input_is_compressed(&in))
		rc = sv_input_inflate(&in, err);
	if (!rc && in.len >= 4 && !memcmp(in.data, "MSCF", 4)) { /* a .pd_: the cabinet's one PDB */
		char tmp[] = "/tmp/stackview-pd_-XXXXXX", why[600] = "";
		int fd = mkstemp(tmp);
		if (fd < 0) {
			rc = sv_error_set(err, SV_EIO, "%s: cannot make a temporary file to expand it into", path);
		} else {
			close(fd);
			if (sv_symsrv_expand(path, tmp, why, sizeof(why))) {
				rc = sv_error_set(err, SV_EFORMAT, "%s", why);
				sv_error_locate(err, path, -1, -1);
			} else {
				sv_input_dispose(&in);
				rc = sv_input_read(&in, tmp, err);
				if (!rc)
					rc = sv_symtab_read_pdb(out, in.data, in.len, path, err);
			}
			unlink(tmp);
			sv_input_dispose(&in);
			return rc;
		}
	}
	if (!rc)
		rc = in.len >= 2 && in.data[0] == 'M' && in.data[1] == 'Z' ? sv_symtab_read_pe(out, in.data, in.len, path, err)
									     : sv_symtab_read_pdb(out, in.data, in.len, path, err);
	sv_input_dispose(&in);
	return rc;
}

void sv_symtab_free(sv_symtab *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->names);
	free(t);
}

size_t sv_symtab_count(const sv_symtab *t) { return t->n; }
const sv_symbol *sv_symtab_at(const sv_symtab *t, size_t i) { return &t->syms[i]; }

const sv_symbol *sv_symtab_lookup(const sv_symtab *t, uint32_t rva)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->syms[mid].rva <= rva)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const sv_symbol *s = &t->syms[lo - 1];
	if (s->is_public || s->size == 0 || (uint64_t)rva < (uint64_t)s->rva + s->size)
		return s; /* a public, or a procedure of unknown size: up to the next symbol */
	return NULL;
}

void sv_symtab_identity(const sv_symtab *t, unsigned char guid[16], uint32_t *age, uint16_t *machine)
{
	memcpy(guid, t->guid, 16);
	*age = t->age;
	*machine = t->machine;
}

void sv_symtab_counts(const sv_symtab *t, size_t *procs, size_t *publics, size_t *covered)
{
	*procs = t->procs;
	*publics = t->publics;
	*covered = t->covered;
}

const char *sv_symtab_kind(const sv_symtab *t) { return t->is_pe ? "PE" : t->is_elf ? "ELF" : "PDB"; }

const char *sv_symtab_pdb_name(const sv_symtab *t)
{
	return t->is_pe && t->has_identity ? t->pdb_name : NULL;
}

void sv_symtab_image_key(const sv_symtab *t, char *buf, size_t size)
{
	if (t->is_pe)
		snprintf(buf, size, "%08X%X", t->pe_stamp, t->pe_size);
	else if (size)
		buf[0] = '\0';
}

void sv_symtab_key(const sv_symtab *t, char *buf, size_t size)
{
	if (t->is_pe && !t->has_identity) {
		if (size)
			buf[0] = '\0';
		return;
	}
	const unsigned char *g = t->guid;
	snprintf(buf, size, "%08X%04X%04X%02X%02X%02X%02X%02X%02X%02X%02X%X", u32(g), u16(g + 4), u16(g + 6), g[8], g[9],
		 g[10], g[11], g[12], g[13], g[14], g[15], t->age);
}
