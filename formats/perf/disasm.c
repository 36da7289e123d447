/* SPDX-License-Identifier: MIT */
/* A function's machine code for annotate (stackview/formats.h sv_disasm_function): the ELF
 * symbol around an address (libdwfl), its bytes from the executable section that holds them
 * (libelf), decoded by capstone (x86-64, x86, AArch64; AT&T syntax on x86 as perf annotate
 * and objdump print it), each instruction's source line from DWARF when the file or its
 * debug file has line tables. The file is untrusted: sizes are bounded, bad bytes are shown
 * as `(bad)` one byte at a time and decoding goes on. */
#include "stackview/formats.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/decode.h"
#include "../core/side_file.h"
#include "../windows/pe_disasm.h"
#include "dwarf_inline.h"
#include "sv/array.h"

#define MAX_FUNCTION_BYTES (4u << 20) /* a function's code past this is not decoded */

/* The bytes of [start, end) from the executable section holding them; NULL with err set. */
static const unsigned char *code_bytes(Elf *elf, const char *path, uint64_t start, uint64_t end, sv_error *err)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || start < sh.sh_addr ||
		    start >= sh.sh_addr + sh.sh_size)
			continue;
		if (sh.sh_type == SHT_NOBITS) {
			sv_error_set(err, SV_EFORMAT,
				     "%s: holds no code (a debug-only file): give the binary itself (--symfs, or the path it "
				     "was run from)",
				     path);
			return NULL;
		}
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || end > sh.sh_addr + d->d_size) {
			sv_error_set(err, SV_EFORMAT, "%s: the code of 0x%llx..0x%llx is outside its section", path,
				     (unsigned long long)start, (unsigned long long)end);
			return NULL;
		}
		return (const unsigned char *)d->d_buf + (start - sh.sh_addr);
	}
	sv_error_set(err, SV_EFORMAT, "%s: no executable section holds 0x%llx", path, (unsigned long long)start);
	return NULL;
}

/* capstone's architecture for an ELF machine; false when it is not one we decode. */
static bool arch_of(int machine, bool is64, cs_arch *arch, cs_mode *mode, const char **name)
{
	switch (machine) {
	case EM_X86_64:
		*arch = CS_ARCH_X86, *mode = is64 ? CS_MODE_64 : CS_MODE_32, *name = "x86-64";
		return true;
	case EM_386:
		*arch = CS_ARCH_X86, *mode = CS_MODE_32, *name = "x86";
		return true;
	case EM_AARCH64:
		*arch = CS_ARCH_ARM64, *mode = CS_MODE_ARM, *name = "aarch64";
		return true;
	default:
		return false;
	}
}

/* The lines where the code at `pc` was inlined, innermost first: the call file and line of
 * each inlined instance holding pc (dwarf_inline.h). */
static int add_sites(sv_disasm *out, sv_insn *in, Dwfl_Module *mod, Dwarf_Addr pc)
{
	Dwarf_Die *cu, chain[64];
	int n = sv_perf_inline_chain(mod, pc, &cu, chain, 64);
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	int rc = 0;
	in->site = (uint32_t)out->nsites;
	for (int s = 0; s < n && !rc; s++) {
		Dwarf_Attribute a;
		Dwarf_Word fi, line;
		if (dwarf_formudata(dwarf_attr(&chain[s], DW_AT_call_file, &a), &fi) ||
		    dwarf_formudata(dwarf_attr(&chain[s], DW_AT_call_line, &a), &line) || !line || line > UINT32_MAX)
			continue;
		if (!files && dwarf_getsrcfiles(cu, &files, &nfiles))
			break;
		const char *name = fi < nfiles ? dwarf_filesrc(files, fi, NULL, NULL) : NULL;
		if (!name)
			continue;
		long k = sv_disasm_file_index(out, name);
		if (k < 0 || SV_ARRAY_RESERVE(out->sites, out->sites_cap, out->nsites + 1))
			rc = SV_ENOMEM;
		else
			out->sites[out->nsites++] = (sv_callsite){ (uint32_t)k, (uint32_t)line }, in->nsite++;
	}
	return rc;
}

/* Each instruction's source line, and the lines its code was inlined at, from the module's
 * DWARF when it has line tables. */
static int add_lines(sv_disasm *out, Dwfl_Module *mod, GElf_Addr bias)
{
	for (size_t i = 0; i < out->n; i++) {
		Dwfl_Line *l = dwfl_module_getsrc(mod, out->insns[i].addr + bias);
		int line = 0;
		const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
		if (!file || line <= 0)
			continue;
		out->insns[i].line = (uint32_t)line;
		long k = sv_disasm_file_index(out, file);
		if (k < 0 || add_sites(out, &out->insns[i], mod, out->insns[i].addr + bias))
			return SV_ENOMEM;
		out->insns[i].file = (uint32_t)k;
	}
	return 0;
}

int sv_disasm_function(sv_disasm *out, const char *path, const char *symbols, const char *debug_dirs, uint64_t addr,
		       sv_error *err)
{
	if (symbols)
		return sv_disasm_pe(out, path, symbols, addr, err);
	memset(out, 0, sizeof(*out));
	int fd = sv_side_open(path, SV_MAX_SIDE_ELF);
	if (fd < 0)
		return sv_error_set(err, SV_EIO, "%s: cannot open: %s", path, strerror(errno));
	/* the debug file (symbols, lines) where libdwfl finds one: beside the file (its debuglink),
	 * by build id in the given directories and under /usr/lib/debug; the callbacks outlive
	 * nothing past this call */
	char dpath[4200];
	snprintf(dpath, sizeof(dpath), ":.debug%s%s:/usr/lib/debug", debug_dirs && *debug_dirs ? ":" : "",
		 debug_dirs && strlen(debug_dirs) < 4096 ? debug_dirs : "");
	char *debuginfo_path = dpath;
	const Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &debuginfo_path,
	};
	Dwfl *dwfl = dwfl_begin(&cb);
	if (!dwfl) {
		close(fd);
		return sv_error_set(err, SV_ENOMEM, NULL);
	}
	int rc = 0;
	dwfl_report_begin(dwfl);
	Dwfl_Module *mod = dwfl_report_elf(dwfl, "code", path, fd, 0, true);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod) {
		close(fd);
		rc = sv_error_set(err, SV_EFORMAT, "%s: not an ELF file (%s)", path, dwfl_errmsg(-1));
		goto out;
	}
	const unsigned char *bid;
	GElf_Addr bid_at;
	int bl = dwfl_module_build_id(mod, &bid, &bid_at);
	if (bl > 0 && (size_t)bl <= sizeof(out->build_id)) {
		memcpy(out->build_id, bid, (size_t)bl);
		out->build_id_len = (size_t)bl;
	}
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	GElf_Ehdr eh;
	if (!elf || !gelf_getehdr(elf, &eh)) {
		rc = sv_error_set(err, SV_EFORMAT, "%s: not an ELF file", path);
		goto out;
	}
	cs_arch arch;
	cs_mode mode;
	if (!arch_of(eh.e_machine, eh.e_ident[EI_CLASS] == ELFCLASS64, &arch, &mode, &out->arch)) {
		rc = sv_error_set(err, SV_EINVAL, "%s: machine %d is not one annotate decodes (x86-64, x86, AArch64)",
				  path, eh.e_machine);
		goto out;
	}
	GElf_Sym sym;
	GElf_Off off = 0;
	const char *name = dwfl_module_addrinfo(mod, addr + bias, &off, &sym, NULL, NULL, NULL);
	if (!name || !sym.st_size) {
		rc = sv_error_set(err, SV_EINVAL, "%s: no function symbol holds 0x%llx", path, (unsigned long long)addr);
		goto out;
	}
	out->start = addr - off;
	out->end = out->start + sym.st_size;
	if (sym.st_size > MAX_FUNCTION_BYTES) {
		rc = sv_error_set(err, SV_ELIMIT, "%s: %s is %llu bytes of code, more than annotate decodes (%u)", path, name,
				  (unsigned long long)sym.st_size, MAX_FUNCTION_BYTES);
		goto out;
	}
	if (!(out->symbol = strdup(name))) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	const unsigned char *code = code_bytes(elf, path, out->start, out->end, err);
	if (!code) {
		rc = err ? err->code : SV_EFORMAT;
		goto out;
	}
	if ((rc = sv_disasm_decode(out, arch, mode, code, err)) || (rc = add_lines(out, mod, bias))) {
		if (rc == SV_ENOMEM)
			sv_error_set(err, rc, NULL);
		goto out;
	}
out:
	dwfl_end(dwfl);
	if (rc)
		sv_disasm_dispose(out);
	return rc;
}
