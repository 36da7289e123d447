/* SPDX-License-Identifier: MIT */
/* ETL importer: the images samples executed in, found for annotate (etl_int.h
 * sv_etl_code_file). A trace holds addresses, not code: annotate reads the image itself,
 * which must be the build whose PDB named the frames (the image's CodeView record names
 * that PDB's GUID and age). It is looked for where the PDB was, on the symbol path's local
 * folders (DIR/NAME) and stores (STORE/NAME/KEY/NAME by the image's TimeDateStamp and
 * SizeOfImage, when the trace gives them): never downloaded, as a trace touches many large
 * images and annotate wants one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "etl_int.h"
#include "symsrv.h"
#include "stackview/input.h"
#include "stackview/symbols.h"

/* A regular file of a size an image can have (a FIFO or a device is never read). */
static bool is_image_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 64 && (uint64_t)st.st_size <= (4ull << 30);
}

/* 1: path is the image built with PDB f (its preferred base in *base), 0 otherwise. */
static int same_build(const char *path, const esymfile *f, uint64_t *base)
{
	sv_input in;
	sv_error err;
	sv_error_clear(&err);
	if (!is_image_file(path) || sv_input_read(&in, path, &err))
		return 0;
	sv_symtab *pe = NULL;
	sv_pe_code_info pi;
	int ok = 0;
	if (!sv_pe_code(in.data, in.len, path, 0, 0, &pi, &err) &&
	    !sv_symtab_read_pe(&pe, in.data, in.len, path, &err) && sv_symtab_pdb_name(pe)) {
		unsigned char g1[16], g2[16];
		uint32_t a1, a2;
		uint16_t m;
		sv_symtab_identity(pe, g1, &a1, &m);
		sv_symtab_identity(f->t, g2, &a2, &m);
		ok = !memcmp(g1, g2, 16) && a1 == a2;
		*base = pi.image_base;
	}
	sv_symtab_free(pe);
	sv_input_dispose(&in);
	return ok;
}

int sv_etl_code_file(etl_ctx *c, const eimage *im, uint32_t *file, uint64_t *file_base)
{
	*file = SV_LOC_NONE;
	char key[48];
	esymfile *f = sv_etl_pdb_file(c, im, true, key, sizeof(key));
	const sv_sink_ops *ops = c->sink->ops;
	if (!f || !f->t || !f->path || !ops->intern_code_file || f->code < 0)
		return 0;
	if (f->code > 0) {
		*file = f->code_file;
		*file_base = f->code_base;
		return 0;
	}
	f->code = -1;
	const char *name = sv_etl_base_name(im->path);
	snprintf(f->code_name, sizeof(f->code_name), "%s", name);
	if (!sv_symsrv_safe_name(name))
		return 0;
	char el[2048], path[4200];
	const char *dir, *url;
	bool store_only;
	for (const char *p = c->symbol_path; sv_etl_symbol_dir(&p, el, sizeof(el), &dir, &url, &store_only);) {
		if (!dir || !*dir)
			continue;
		bool hit = false;
		if (key[0]) {
			snprintf(path, sizeof(path), "%s/%s/%s/%s", dir, name, key, name);
			hit = same_build(path, f, &f->code_base);
		}
		if (!hit && !store_only) {
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			hit = same_build(path, f, &f->code_base);
		}
		if (!hit)
			continue;
		int rc = ops->intern_code_file(c->sink->self, &f->code_file, path);
		if (!rc && ops->set_code_symbols)
			rc = ops->set_code_symbols(c->sink->self, f->code_file, f->path);
		if (rc)
			return rc;
		f->code = 1;
		*file = f->code_file;
		*file_base = f->code_base;
		return 0;
	}
	return 0;
}

int sv_etl_code_notes(etl_ctx *c)
{
	char key[48];
	for (size_t i = 0; i < c->nimages; i++) {
		const eimage *im = &c->images[i];
		esymfile *f = sv_etl_pdb_file(c, im, false, key, sizeof(key));
		uint32_t file;
		uint64_t base;
		int rc = f && f->t && !f->code ? sv_etl_code_file(c, im, &file, &base) : 0;
		if (rc)
			return rc;
	}
	return 0;
}
