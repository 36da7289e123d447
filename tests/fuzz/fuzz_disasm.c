/* SPDX-License-Identifier: MIT */
/* Fuzz target: a function's code for annotate (formats/perf/disasm.c) from an ELF file's
 * bytes: the symbol around an address (libdwfl), the executable section holding it, capstone
 * on its bytes, DWARF lines. The bytes go to a temporary file (the code reads files by path);
 * addresses tried: the entry point, every function symbol's start and the bytes' own first
 * words. */
#include <gelf.h>
#include <unistd.h>

#include "fuzz_common.h"

static void try_at(const char *path, uint64_t addr)
{
	sv_disasm d;
	sv_error err;
	sv_error_clear(&err);
	if (sv_disasm_function(&d, path, NULL, NULL, addr, &err))
		return;
	if (d.start > addr || addr >= d.end || d.n == 0 || d.insns[0].addr != d.start)
		abort();
	for (size_t i = 0; i < d.n; i++)
		if ((d.insns[i].file != UINT32_MAX && d.insns[i].file >= d.nfiles) || !d.insns[i].size)
			abort();
	sv_disasm_dispose(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/fuzz_disasm.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	uint64_t w[3] = { 0, 0, 0 };
	memcpy(w, data, size < sizeof(w) ? size : sizeof(w));
	for (int i = 0; i < 3; i++)
		try_at(path, w[i]);
	elf_version(EV_CURRENT);
	Elf *e = elf_memory((char *)(uintptr_t)data, size);
	GElf_Ehdr eh;
	if (e && gelf_getehdr(e, &eh)) {
		try_at(path, eh.e_entry);
		Elf_Scn *scn = NULL;
		int tried = 0;
		while ((scn = elf_nextscn(e, scn)) && tried < 16) {
			GElf_Shdr sh;
			Elf_Data *d;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
				continue;
			for (size_t k = 0; k < sh.sh_size / sh.sh_entsize && tried < 16; k++) {
				GElf_Sym s;
				if (gelf_getsym(d, (int)k, &s) && GELF_ST_TYPE(s.st_info) == STT_FUNC && s.st_size)
					try_at(path, s.st_value), tried++;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	unlink(path);
	return 0;
}
