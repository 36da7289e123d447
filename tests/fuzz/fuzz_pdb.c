/* SPDX-License-Identifier: MIT */
/* Fuzz target: the PDB reader (MSF container, directory, info and DBI streams, section
 * headers, OMAP, module and public symbol records, the MSVC demangler) and the PE reader
 * (sections, export table, debug directory, the code annotate reads: every exported function's
 * bytes, which must lie inside the input) on the same bytes; then every function looked
 * up at its own address and just before, every source line (sorted by address, named, its
 * code within 32 bits) found at its own address, and the identity formatted. */
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
	uint32_t prev = 0;
	for (size_t i = 0; i < sv_symtab_line_count(t); i++) {
		uint32_t rva, size, line;
		const char *file, *at;
		sv_symtab_line_at(t, i, &rva, &size, &line, &file);
		if (!file || rva < prev || (uint64_t)rva + size > UINT32_MAX + 1ull)
			abort();
		if (size && !sv_symtab_line_of(t, rva, &at))
			abort();
		prev = rva;
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
	if (!sv_symtab_read_pe(&t, data, size, "fuzz.dll", &err)) {
		for (size_t i = 0; i < sv_symtab_count(t) && i < 64; i++) {
			const sv_symbol *s = sv_symtab_at(t, i);
			sv_pe_code_info pi;
			for (uint32_t len = 1; len <= 4096; len *= 64)
				if (!sv_pe_code(data, size, "fuzz.dll", s->rva, len, &pi, &err) &&
				    (pi.code < data || pi.code + len > data + size))
					abort();
		}
		check(t);
	}
	return 0;
}
