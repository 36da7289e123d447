/* SPDX-License-Identifier: MIT */
/* Symbol tables (stackview/symbols.h): functions added by the readers (pdb.c, pe.c, the
 * ELF lister), finished into one sorted table, looked up by RVA. Opening a file by its
 * content is symbol_open.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/input.h"
#include "sv/array.h"
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

int sv_symtab_add_file(sv_symtab *t, const char *name, size_t n, uint32_t *out)
{
	size_t at;
	if (t->nfiles >= UINT32_MAX || add_name(t, name, n, &at) || SV_ARRAY_RESERVE(t->file_off, t->files_cap, t->nfiles + 1))
		return SV_ENOMEM;
	t->file_off[t->nfiles] = at;
	*out = (uint32_t)t->nfiles++;
	return 0;
}

int sv_symtab_add_line(sv_symtab *t, uint32_t rva, uint32_t size, uint32_t line, uint32_t file)
{
	if (SV_ARRAY_RESERVE(t->lines, t->lines_cap, t->nlines + 1))
		return SV_ENOMEM;
	t->lines[t->nlines++] = (struct sv_symtab_line){ rva, size, line, file };
	return 0;
}

static int line_cmp(const void *a, const void *b)
{
	const struct sv_symtab_line *x = a, *y = b;
	if (x->rva != y->rva)
		return x->rva < y->rva ? -1 : 1;
	if (x->size != y->size) /* at one address the lines with code last: the one a lookup finds */
		return x->size < y->size ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
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
	if (t->nlines)
		qsort(t->lines, t->nlines, sizeof(*t->lines), line_cmp);
}

void sv_symtab_free(sv_symtab *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->names);
	free(t->lines);
	free(t->file_off);
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

size_t sv_symtab_line_count(const sv_symtab *t) { return t->nlines; }

void sv_symtab_line_at(const sv_symtab *t, size_t i, uint32_t *rva, uint32_t *size, uint32_t *line, const char **file)
{
	const struct sv_symtab_line *l = &t->lines[i];
	*rva = l->rva;
	*size = l->size;
	*line = l->line;
	*file = t->names + t->file_off[l->file];
}

uint32_t sv_symtab_line_of(const sv_symtab *t, uint32_t rva, const char **file)
{
	*file = NULL;
	size_t lo = 0, hi = t->nlines;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->lines[mid].rva <= rva)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	const struct sv_symtab_line *l = &t->lines[lo - 1];
	if ((uint64_t)rva >= (uint64_t)l->rva + l->size)
		return 0;
	*file = t->names + t->file_off[l->file];
	return l->line;
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
