/* SPDX-License-Identifier: MIT */
/* Fuzz target: the PDB reader (MSF container, directory, info and DBI streams, section
 * headers, OMAP, module and public symbol records, the MSVC demangler) and the PE reader
 * (sections, export table, debug directory) on the same bytes; then every function looked
 * up at its own address and just before, and the identity formatted. */
#include "fuzz_common.h"
#include "stackview/symbols.h"

static void check(sv_symtab *t)
{
	char key[48];
	sv_symtab_key(t, key, sizeof(key));
	for (size_t i = 0; i < sv_symtab_count(t); i++) {
		const sv_symbol *s = sv_symtab_at(t, i);
		if (sv_symtab_lookup(t, s->rva) != s || !s->name[0])
			abort();
		(void)sv_symtab_lookup(t, s->rva - 1);
	}
	sv_symtab_image_key(t, key, sizeof(key));
	sv_symtab_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sv_symtab *t;
	sv_error err;
	sv_error_clear(&err);
	if (!sv_symtab_read_pdb(&t, data, size, "fuzz.pdb", &err))
		check(t);
	sv_error_clear(&err);
	if (!sv_symtab_read_pe(&t, data, size, "fuzz.dll", &err))
		check(t);
	return 0;
}
