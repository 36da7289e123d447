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
	/* source lines (a PDB's C13 line tables): each line's code [rva, rva + size), its line
	 * number and file (an index into file_off, offsets of NUL-terminated names in names);
	 * sorted by rva when finished */
	struct sv_symtab_line { uint32_t rva, size, line, file; } *lines;
	size_t nlines, lines_cap;
	size_t *file_off;
	size_t nfiles, files_cap;
};

sv_symtab *sv_symtab_new_empty(void);
/* One function (a public: size 0); SV_ENOMEM. */
int sv_symtab_add(sv_symtab *t, uint32_t rva, uint32_t size, const char *name, size_t n, bool pub);
/* A source file's name (its index into *out) and a line of code in it. SV_ENOMEM. */
int sv_symtab_add_file(sv_symtab *t, const char *name, size_t n, uint32_t *out);
int sv_symtab_add_line(sv_symtab *t, uint32_t rva, uint32_t size, uint32_t line, uint32_t file);
/* Sort, one function per address, publics only where no procedure covers them; the lines
 * by address. */
void sv_symtab_finish(sv_symtab *t);

#endif
