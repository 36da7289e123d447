/* SPDX-License-Identifier: MIT */
/* Internals of stackview/symbols.h shared by its readers (windows/pdb.c, windows/pe.c, symbol_open.c) and the table
 * (symtab.c): the table being built, one function at a time, then finished.
 *
 * Ownership: the table owns its symbols and names; sv_symtab_free frees both. */
#ifndef STACKVIEW_FORMATS_SYMTAB_INT_H
#define STACKVIEW_FORMATS_SYMTAB_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackview/symbols.h"

struct sv_symtab {
	sv_symbol *syms;
	size_t n, cap;
	char *names; /* NUL-separated; sv_symbol.name points in here once finished */
	size_t names_len, names_cap;
	unsigned char guid[16];
	uint32_t age;
	uint16_t machine;
	size_t procs, publics, covered;
	bool is_pe, has_identity; /* a PE image; its CodeView record named a PDB */
	bool is_elf;
	uint32_t pe_stamp, pe_size;
	char pdb_name[260];
};

sv_symtab *sv_symtab_new_empty(void);
/* One function (a public: size 0); SV_ENOMEM. */
int sv_symtab_add(sv_symtab *t, uint32_t rva, uint32_t size, const char *name, size_t n, bool pub);
/* Sort, one function per address, publics only where no procedure covers them. */
void sv_symtab_finish(sv_symtab *t);

#endif
