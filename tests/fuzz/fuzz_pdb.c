/* SPDX-License-Identifier: MIT */
/* Fuzz target: the PDB reader (MSF container, directory, info and DBI streams, section
 * headers, OMAP, module and public symbol records), then every function looked up at its
 * own address and just before, and the identity formatted. */
#include "fuzz_common.h"
#include "stackview/symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sv_symtab *t;
	sv_error err;
	sv_error_clear(&err);
	if (sv_symtab_read_pdb(&t, data, size, "fuzz.pdb", &err))
		return 0;
	char key[48];
	sv_symtab_key(t, key, sizeof(key));
	for (size_t i = 0; i < sv_symtab_count(t); i++) {
		const sv_symbol *s = sv_symtab_at(t, i);
		if (sv_symtab_lookup(t, s->rva) != s || !s->name[0])
			abort();
		(void)sv_symtab_lookup(t, s->rva - 1);
	}
	sv_symtab_free(t);
	return 0;
}
