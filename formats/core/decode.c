/* SPDX-License-Identifier: MIT */
/* Machine code decoded for annotate (decode.h): capstone, whatever file the code came from
 * (ELF: formats/perf/disasm.c; PE: formats/windows/pe_disasm.c). */
#include "decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv/array.h"

/* A direct branch's or call's target (0 when the operand is not an immediate). */
static uint64_t branch_target(cs_arch arch, const cs_insn *in)
{
	if (!in->detail)
		return 0;
	if (arch == CS_ARCH_X86) {
		const cs_x86 *x = &in->detail->x86;
		return x->op_count == 1 && x->operands[0].type == X86_OP_IMM ? (uint64_t)x->operands[0].imm : 0;
	}
	const cs_arm64 *a = &in->detail->arm64;
	for (int i = a->op_count; i-- > 0;)
		if (a->operands[i].type == ARM64_OP_IMM)
			return (uint64_t)a->operands[i].imm;
	return 0;
}

/* A source file's index in out->files (files repeat: each is kept once); -1: no memory. */
long sv_disasm_file_index(sv_disasm *out, const char *file)
{
	size_t k = 0;
	while (k < out->nfiles && strcmp(out->files[k], file))
		k++;
	if (k == out->nfiles) {
		if (SV_ARRAY_RESERVE(out->files, out->files_cap, out->nfiles + 1) || !(out->files[k] = strdup(file)))
			return -1;
		out->nfiles++;
	}
	return (long)k;
}

int sv_disasm_decode(sv_disasm *out, cs_arch arch, cs_mode mode, const unsigned char *code, sv_error *err)
{
	csh h;
	if (cs_open(arch, mode, &h) != CS_ERR_OK)
		return sv_error_set(err, SV_ENOMEM, "capstone: cannot open a decoder for %s", out->arch);
	if (arch == CS_ARCH_X86)
		cs_option(h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	cs_insn *in = cs_malloc(h);
	int rc = in ? 0 : SV_ENOMEM;
	uint64_t addr = out->start;
	while (!rc && addr < out->end) {
		const uint8_t *p = code + (addr - out->start);
		size_t left = (size_t)(out->end - addr);
		uint64_t a = addr;
		if (SV_ARRAY_RESERVE(out->insns, out->insns_cap, out->n + 1)) {
			rc = SV_ENOMEM;
			break;
		}
		sv_insn *x = &out->insns[out->n];
		memset(x, 0, sizeof(*x));
		x->addr = addr;
		x->file = UINT32_MAX;
		if (cs_disasm_iter(h, &p, &left, &a, in)) {
			x->size = in->size;
			size_t ml = strnlen(in->mnemonic, sizeof(x->text) - 1);
			memcpy(x->text, in->mnemonic, ml);
			if (in->op_str[0] && ml + 2 < sizeof(x->text)) {
				x->text[ml++] = ' ';
				size_t ol = strnlen(in->op_str, sizeof(x->text) - 1 - ml);
				memcpy(x->text + ml, in->op_str, ol);
				ml += ol;
			}
			x->text[ml] = '\0';
			bool jump = cs_insn_group(h, in, CS_GRP_JUMP), call = cs_insn_group(h, in, CS_GRP_CALL);
			x->jump = jump;
			x->target = jump || call ? branch_target(arch, in) : 0;
		} else { /* not an instruction: a byte at a time, as objdump's (bad) */
			x->size = 1;
			snprintf(x->text, sizeof(x->text), "(bad)");
		}
		addr += x->size;
		out->n++;
	}
	cs_free(in, 1);
	cs_close(&h);
	return rc;
}

void sv_disasm_dispose(sv_disasm *d)
{
	free(d->symbol);
	free(d->insns);
	for (size_t i = 0; i < d->nfiles; i++)
		free(d->files[i]);
	free(d->files);
	free(d->sites);
	memset(d, 0, sizeof(*d));
}
