/* SPDX-License-Identifier: MIT */
/* A function of a Windows image decoded for annotate (pe_disasm.c), what
 * sv_disasm_function does when a PDB is given with the image. */
#ifndef SV_WINDOWS_PE_DISASM_H
#define SV_WINDOWS_PE_DISASM_H

#include "stackview/formats.h"

/* The procedure of pdb_path holding addr (the image's address: ImageBase + RVA) in the PE
 * image at path, decoded, with its lines; the image must name that PDB (GUID and age).
 * Errors as sv_disasm_function's; nothing is left to dispose on failure. */
int sv_disasm_pe(sv_disasm *out, const char *path, const char *pdb_path, uint64_t addr, sv_error *err);

#endif
