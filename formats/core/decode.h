/* SPDX-License-Identifier: MIT */
/* What the annotate readers of ELF (formats/perf/disasm.c) and PE images
 * (formats/windows/pe_disasm.c) share: the function's bytes decoded by capstone into
 * sv_disasm's instructions, and its source files each kept once. */
#ifndef SV_CORE_DECODE_H
#define SV_CORE_DECODE_H

#include <capstone/capstone.h>

#include "stackview/formats.h"

/* out->start..out->end of `code` (out->arch named) into out->insns: AT&T syntax on x86 as
 * perf annotate and objdump print it, jumps and direct targets marked, bytes that are no
 * instruction as `(bad)` one at a time. SV_ENOMEM, or an error when capstone has no decoder. */
int sv_disasm_decode(sv_disasm *out, cs_arch arch, cs_mode mode, const unsigned char *code, sv_error *err);
/* A source file's index in out->files (each kept once); -1: no memory. */
long sv_disasm_file_index(sv_disasm *out, const char *file);

#endif
