/* SPDX-License-Identifier: MIT */
/* Symbol files (issue 17): the functions a Windows PDB gives stackview, as relative virtual
 * addresses (RVAs) in the image, sizes and names, and the PDB's identity (GUID and age, what
 * an image's debug directory and ETL's DbgID_RSDS name). `stackview symbols FILE` prints them;
 * the ETL importer will look addresses up in them.
 *
 * A PDB's functions are its modules' procedures (S_GPROC32/S_LPROC32 and their _ID forms:
 * undecorated names, exact extents) and, where no procedure covers an address, its public
 * symbols (S_PUB32), C names undecorated for x86 (`_f`, `_f@8`, `@f@8` -> `f`), C++ names
 * demangled to their qualified name (msvc_demangle.h; kept decorated where it cannot). Section offsets become RVAs through the PDB's section headers (and OMAP,
 * for images rewritten after linking).
 *
 * Ownership: sv_symtab_open returns a table the caller frees with sv_symtab_free; symbols and
 * names are borrowed from it. */
#ifndef STACKVIEW_SYMBOLS_H
#define STACKVIEW_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackview/status.h"

typedef struct sv_symbol {
	uint32_t rva, size; /* size 0: a public symbol, up to the next symbol */
	const char *name;
	bool is_public;
} sv_symbol;

typedef struct sv_symtab sv_symtab;

/* Read a PDB (MSF 7.00) from memory; `name` names it in errors (byte offsets included).
 * SV_EFORMAT for a damaged or foreign file, SV_EUNSUPPORTED for old (MSF 2.00) PDBs,
 * SV_ENOMEM. */
SV_API int sv_symtab_read_pdb(sv_symtab **out, const unsigned char *data, size_t len, const char *name,
			      sv_error *err) SV_MUST_USE;
/* Read a PE image's export table (named exports, forwarders left out) and its identity:
 * the PDB its CodeView record names, the TimeDateStamp and SizeOfImage a store keys it by. */
SV_API int sv_symtab_read_pe(sv_symtab **out, const unsigned char *data, size_t len, const char *name,
			     sv_error *err) SV_MUST_USE;
/* Read a symbol file by path (plain or gzip), by its content: a PDB, a PE image, or a
 * CAB-compressed .pd_ (expanded into a temporary file first). */
SV_API int sv_symtab_open(sv_symtab **out, const char *path, sv_error *err) SV_MUST_USE;
SV_API void sv_symtab_free(sv_symtab *t);

/* The functions sorted by RVA. */
SV_API size_t sv_symtab_count(const sv_symtab *t);
SV_API const sv_symbol *sv_symtab_at(const sv_symtab *t, size_t i);
/* The function containing rva (a public, or a procedure of size 0: up to the next symbol),
 * or NULL. */
SV_API const sv_symbol *sv_symtab_lookup(const sv_symtab *t, uint32_t rva);
/* A PDB's source lines (its modules' C13 line tables; none for other files), sorted by RVA:
 * the i-th line's code [rva, rva + size), its number and file (as the PDB names it, borrowed
 * from the table); the line holding an RVA (0, *file NULL: none). */
SV_API size_t sv_symtab_line_count(const sv_symtab *t);
SV_API void sv_symtab_line_at(const sv_symtab *t, size_t i, uint32_t *rva, uint32_t *size, uint32_t *line,
			      const char **file);
SV_API uint32_t sv_symtab_line_of(const sv_symtab *t, uint32_t rva, const char **file);
/* The PDB's GUID (16 bytes as stored) and age, its machine (0x14C x86, 0x8664 x64, 0xAA64
 * ARM64; 0 when unknown) and what it held: procedures, publics, publics covered by one. */
SV_API void sv_symtab_identity(const sv_symtab *t, unsigned char guid[16], uint32_t *age, uint16_t *machine);
SV_API void sv_symtab_counts(const sv_symtab *t, size_t *procs, size_t *publics, size_t *covered);
/* The symbol-store key of the identity: GUID as 32 hex digits (Data1-3 as numbers) and the
 * age in hex, e.g. "3249D99D0C4049318610F4E4FB0B69361" (buf: at least 41 bytes). */
SV_API void sv_symtab_key(const sv_symtab *t, char *buf, size_t size);
/* "PDB", "PE" or "ELF" (an ELF file lists its functions as perf.data frames name them, at
 * their ELF addresses); for a PE image the PDB it names (NULL: none) and its own store key
 * (TimeDateStamp and SizeOfImage, "5AB3807790000"). */
SV_API const char *sv_symtab_kind(const sv_symtab *t);
SV_API const char *sv_symtab_pdb_name(const sv_symtab *t);
SV_API void sv_symtab_image_key(const sv_symtab *t, char *buf, size_t size);

/* A PE image's code for annotate: the function at [rva, rva + size) from the executable
 * section whose file data holds it (code: borrowed from d), the image's machine, its
 * preferred load address (what its addresses are printed from: ImageBase + RVA) and whether
 * it is PE32+ (size 0: only these, code NULL). SV_EFORMAT with the byte offset for a damaged image, code outside every
 * section or in one that is not executable. */
typedef struct sv_pe_code_info {
	const unsigned char *code;
	uint64_t image_base;
	uint16_t machine; /* IMAGE_FILE_MACHINE_*: 0x14c x86, 0x8664 x64, 0xaa64 ARM64 */
	bool is64;
} sv_pe_code_info;
SV_API int sv_pe_code(const unsigned char *d, size_t n, const char *name, uint32_t rva, uint32_t size,
		      sv_pe_code_info *out, sv_error *err) SV_MUST_USE;

#endif
