/* SPDX-License-Identifier: MIT */
/* Opening a symbol file by its content (stackview/symbols.h): an ELF file through the perf
 * family's ELF lister, a PE image or a PDB through the Windows readers, a .pd_ cabinet
 * expanded first. The table they fill is symtab.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stackview/input.h"
#include "perf/perf_int.h"
#include "symtab_int.h"
#include "windows/symsrv.h"

typedef struct elf_add {
	sv_symtab *t;
	size_t beyond; /* addresses past 4 GiB, which an RVA cannot hold */
} elf_add;

static int add_elf(void *payload, uint64_t start, uint64_t end, const char *name)
{
	elf_add *a = payload;
	if (end > UINT32_MAX || end < start) {
		a->beyond++;
		return 0;
	}
	return sv_symtab_add(a->t, (uint32_t)start, (uint32_t)(end - start), name, strlen(name), false);
}

/* An ELF file: its functions as perf.data frames name them (sym.c), at their ELF
 * addresses. */
static int read_elf(sv_symtab **out, const char *path, sv_error *err)
{
	sv_symtab *t = sv_symtab_new_empty();
	if (!t)
		return sv_error_set(err, SV_ENOMEM, NULL);
	elf_add a = { t, 0 };
	int rc = sv_perf_list_elf(path, add_elf, &a);
	if (rc) {
		sv_symtab_free(t);
		if (rc == SV_ENOTFOUND) {
			sv_error_set(err, SV_EFORMAT, "not an ELF file with symbols");
			sv_error_locate(err, path, -1, -1);
		} else {
			sv_error_set(err, rc, NULL);
		}
		return rc == SV_ENOTFOUND ? SV_EFORMAT : rc;
	}
	t->is_elf = true;
	t->procs = t->n;
	sv_symtab_finish(t);
	*out = t;
	return 0;
}

int sv_symtab_open(sv_symtab **out, const char *path, sv_error *err)
{
	sv_input in;
	int rc = sv_input_read(&in, path, err);
	if (rc)
		return rc;
	if (in.len >= 4 && !memcmp(in.data, "\x7f" "ELF", 4)) {
		sv_input_dispose(&in);
		return read_elf(out, path, err);
	}
	if (sv_input_is_compressed(&in))
		rc = sv_input_inflate(&in, err);
	if (!rc && in.len >= 4 && !memcmp(in.data, "MSCF", 4)) { /* a .pd_: the cabinet's one PDB */
		char tmp[] = "/tmp/stackview-pd_-XXXXXX", why[600] = "";
		int fd = mkstemp(tmp);
		if (fd < 0) {
			rc = sv_error_set(err, SV_EIO, "%s: cannot make a temporary file to expand it into", path);
		} else {
			close(fd);
			if (sv_symsrv_expand(path, tmp, why, sizeof(why))) {
				rc = sv_error_set(err, SV_EFORMAT, "%s", why);
				sv_error_locate(err, path, -1, -1);
			} else {
				sv_input_dispose(&in);
				rc = sv_input_read(&in, tmp, err);
				if (!rc)
					rc = sv_symtab_read_pdb(out, in.data, in.len, path, err);
			}
			unlink(tmp);
			sv_input_dispose(&in);
			return rc;
		}
	}
	if (!rc)
		rc = in.len >= 2 && in.data[0] == 'M' && in.data[1] == 'Z' ? sv_symtab_read_pe(out, in.data, in.len, path, err)
									     : sv_symtab_read_pdb(out, in.data, in.len, path, err);
	sv_input_dispose(&in);
	return rc;
}
