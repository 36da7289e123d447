/* SPDX-License-Identifier: MIT */
/* A function's machine code in a Windows image for annotate (stackview/formats.h
 * sv_disasm_function with a PDB): the procedure around the address and its extent from the
 * PDB, its bytes from the image's executable section, decoded as the ELF reader decodes
 * (core/decode.h), each instruction's source line from the PDB's line tables. The image and
 * the PDB must be one build: the image's CodeView record names the PDB's GUID and age.
 * Addresses are the image's own (ImageBase + RVA), as dumpbin and objdump print them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pe_disasm.h"

#include "core/decode.h"
#include "stackview/input.h"
#include "stackview/symbols.h"

#define MAX_FUNCTION_BYTES (4u << 20) /* as the ELF reader's */

static bool arch_of(uint16_t machine, cs_arch *arch, cs_mode *mode, const char **name)
{
	switch (machine) {
	case 0x14c: /* IMAGE_FILE_MACHINE_I386 */
		*arch = CS_ARCH_X86, *mode = CS_MODE_32, *name = "x86";
		return true;
	case 0x8664: /* AMD64 */
		*arch = CS_ARCH_X86, *mode = CS_MODE_64, *name = "x86-64";
		return true;
	case 0xAA64: /* ARM64 */
		*arch = CS_ARCH_ARM64, *mode = CS_MODE_ARM, *name = "aarch64";
		return true;
	default:
		return false;
	}
}

/* The extent of the symbol holding rva: a procedure's own size, a public's up to the next
 * symbol (the table is in address order). 0 when none holds it. */
static uint32_t extent(const sv_symtab *t, uint32_t rva, const sv_symbol **out)
{
	const sv_symbol *s = sv_symtab_lookup(t, rva);
	*out = s;
	if (!s || s->size)
		return s ? s->size : 0;
	for (size_t i = (size_t)(s - sv_symtab_at(t, 0)) + 1, n = sv_symtab_count(t); i < n; i++) {
		uint64_t next = sv_symtab_at(t, i)->rva;
		if (next > s->rva)
			return next - s->rva <= MAX_FUNCTION_BYTES ? (uint32_t)(next - s->rva) : 0;
	}
	return 0;
}

static int lines_of(sv_disasm *out, const sv_symtab *pdb, uint64_t image_base)
{
	for (size_t i = 0; i < out->n; i++) {
		const char *file = NULL;
		uint32_t line = sv_symtab_line_of(pdb, (uint32_t)(out->insns[i].addr - image_base), &file);
		if (!line || !file)
			continue;
		long k = sv_disasm_file_index(out, file);
		if (k < 0)
			return SV_ENOMEM;
		out->insns[i].line = line;
		out->insns[i].file = (uint32_t)k;
	}
	return 0;
}

int sv_disasm_pe(sv_disasm *out, const char *path, const char *pdb_path, uint64_t addr, sv_error *err)
{
	memset(out, 0, sizeof(*out));
	sv_input in;
	sv_symtab *pe = NULL, *pdb = NULL;
	int rc = sv_input_read(&in, path, err);
	if (rc)
		return rc;
	sv_pe_code_info pi;
	if ((rc = sv_pe_code(in.data, in.len, path, 0, 0, &pi, err)) ||
	    (rc = sv_symtab_read_pe(&pe, in.data, in.len, path, err)) || (rc = sv_symtab_open(&pdb, pdb_path, err)))
		goto out;
	unsigned char g1[16], g2[16];
	uint32_t a1, a2;
	uint16_t m;
	sv_symtab_identity(pe, g1, &a1, &m);
	sv_symtab_identity(pdb, g2, &a2, &m);
	char k1[48], k2[48];
	sv_symtab_key(pe, k1, sizeof(k1));
	sv_symtab_key(pdb, k2, sizeof(k2));
	if (strcmp(sv_symtab_kind(pdb), "PDB") || !sv_symtab_pdb_name(pe) || memcmp(g1, g2, 16) || a1 != a2) {
		rc = sv_error_set(err, SV_EINVAL, "%s names the PDB %s, not %s (%s)", path,
				  sv_symtab_pdb_name(pe) ? k1 : "of no build", pdb_path, k2);
		goto out;
	}
	cs_arch arch;
	cs_mode mode;
	if (!arch_of(pi.machine, &arch, &mode, &out->arch)) {
		rc = sv_error_set(err, SV_EINVAL, "%s: machine 0x%x is not one annotate decodes (x86-64, x86, ARM64)", path,
				  pi.machine);
		goto out;
	}
	const sv_symbol *s;
	uint32_t size = addr >= pi.image_base && addr - pi.image_base < UINT32_MAX
				? extent(pdb, (uint32_t)(addr - pi.image_base), &s)
				: (s = NULL, 0);
	if (!size) {
		rc = sv_error_set(err, SV_EINVAL, "%s: no function of %s holds 0x%llx", path, pdb_path,
				  (unsigned long long)addr);
		goto out;
	}
	if (size > MAX_FUNCTION_BYTES) {
		rc = sv_error_set(err, SV_ELIMIT, "%s: %s is %u bytes of code, more than annotate decodes (%u)", path,
				  s->name, size, MAX_FUNCTION_BYTES);
		goto out;
	}
	out->start = pi.image_base + s->rva;
	out->end = out->start + size;
	if (!(out->symbol = strdup(s->name))) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	if ((rc = sv_pe_code(in.data, in.len, path, s->rva, size, &pi, err)) ||
	    (rc = sv_disasm_decode(out, arch, mode, pi.code, err)))
		goto out;
	if ((rc = lines_of(out, pdb, pi.image_base)))
		sv_error_set(err, rc, NULL);
out:
	sv_symtab_free(pe);
	sv_symtab_free(pdb);
	sv_input_dispose(&in);
	if (rc)
		sv_disasm_dispose(out);
	return rc;
}
