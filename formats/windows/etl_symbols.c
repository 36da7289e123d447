/* SPDX-License-Identifier: MIT */
/* ETL importer: native frames named from PDBs (issue 17). KernelTraceControl's
 * ImageID/DbgID_RSDS events give each image's PDB identity (GUID, age, PDB name); the symbol
 * path (`--symbol-path`, else _NT_SYMBOL_PATH, in PerfView's and WinDbg's syntax) says where
 * PDBs are: symbol stores (`srv*CACHE*URL`, `cache*DIR`: DIR/name.pdb/GUIDAGE/name.pdb) and
 * plain directories (the store layout, then DIR/name.pdb). A PDB is used only when its
 * identity is the image's: a wrong PDB gives wrong names. Each identity is looked for once. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "etl_int.h"
#include "symsrv.h"
#include "stackview/symbols.h"
#include "sv/array.h"

/* ImageID/DbgID_RSDS: ptr ImageBase, u32 ProcessId, GUID GuidSig, u32 Age, char PdbFileName[]. */
int sv_etl_on_rsds(etl_ctx *c, const etl_rec *r)
{
	unsigned P = c->ptr;
	const unsigned char *p = r->payload;
	if (r->plen < P + 24 + 1)
		return 0;
	ersds e = { .pid = rd32(p + P), .base = rdptr(p, P), .age = rd32(p + P + 20) };
	memcpy(e.guid, p + P + 4, 16);
	const char *nm = (const char *)p + P + 24;
	size_t nl = strnlen(nm, r->plen - P - 24);
	/* the PDB's file name: what follows the last path separator */
	for (size_t i = nl; i-- > 0;)
		if (nm[i] == '\\' || nm[i] == '/') {
			nl -= i + 1;
			nm += i + 1;
			break;
		}
	if (!nl || nl > 255)
		return 0;
	if (!(e.name = strndup(nm, nl)))
		return SV_ENOMEM;
	if (SV_ARRAY_PUSH(c->rsds, c->nrsds, c->rsdscap, e)) {
		free(e.name);
		return SV_ENOMEM;
	}
	return sv_idmap_put(&c->rsds_by_key, sv_hash_mix64(e.base) ^ e.pid, (uint32_t)c->nrsds);
}

/* ImageID: ptr ImageBase, ptr ImageSize, u32 ProcessId (often 0), u32 TimeDateStamp,
 * UTF-16 OriginalFileName. */
int sv_etl_on_imageid(etl_ctx *c, const etl_rec *r)
{
	unsigned P = c->ptr;
	const unsigned char *p = r->payload;
	if (r->plen < 2 * (size_t)P + 10)
		return 0;
	ersds e = { .pid = rd32(p + 2 * P), .base = rdptr(p, P), .image = true, .size = (uint32_t)rdptr(p + P, P),
		    .stamp = rd32(p + 2 * P + 4) };
	if (!(e.name = sv_etl_dup_utf16(p + 2 * P + 8, r->plen - 2 * P - 8, NULL)))
		return SV_ENOMEM;
	if (!e.name[0] || strlen(e.name) > 255 || strchr(e.name, '/') || strchr(e.name, '\\')) {
		free(e.name);
		return 0;
	}
	if (SV_ARRAY_PUSH(c->rsds, c->nrsds, c->rsdscap, e)) {
		free(e.name);
		return SV_ENOMEM;
	}
	return sv_idmap_put(&c->imageid_by_key, sv_hash_mix64(e.base) ^ e.pid, (uint32_t)c->nrsds);
}

/* The identity as a symbol store names it: for a PDB its GUID (Data1-3 as numbers, Data4
 * bytes) and age, for an image its TimeDateStamp and SizeOfImage (hex). */
static void store_key(const ersds *e, char *buf, size_t size)
{
	if (e->image) {
		snprintf(buf, size, "%08" PRIX32 "%" PRIX32, e->stamp, e->size);
		return;
	}
	const unsigned char *g = e->guid;
	snprintf(buf, size, "%08" PRIX32 "%04X%04X%02X%02X%02X%02X%02X%02X%02X%02X%" PRIX32, rd32(g), rd16(g + 4), rd16(g + 6),
		 g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15], e->age);
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Try one candidate: 1 found and matching, 0 absent, -1 present but not this image's (or
 * unreadable); *why says which for the notes. */
static int try_file(esymfile *f, const ersds *e, const char *path)
{
	if (!is_file(path))
		return 0;
	sv_symtab *t;
	sv_error err;
	sv_error_clear(&err);
	if (sv_symtab_open(&t, path, &err)) {
		snprintf(f->why, sizeof(f->why), "%s: %s", path, err.msg);
		return -1;
	}
	unsigned char guid[16];
	uint32_t age;
	uint16_t machine;
	sv_symtab_identity(t, guid, &age, &machine);
	char key[48];
	if (e->image)
		sv_symtab_image_key(t, key, sizeof(key));
	else
		sv_symtab_key(t, key, sizeof(key));
	bool same = e->image ? !strcmp(sv_symtab_kind(t), "PE") && !strcmp(key, f->key)
			     : !strcmp(sv_symtab_kind(t), "PDB") && !memcmp(guid, e->guid, 16) && age == e->age;
	if (!same) {
		snprintf(f->why, sizeof(f->why), "%s is %s, not the image's %s", path, key[0] ? key : sv_symtab_kind(t), f->key);
		sv_symtab_free(t);
		return -1;
	}
	f->t = t;
	free(f->path);
	f->path = strdup(path); /* NULL without memory: no code for annotate, nothing else lost */
	snprintf(f->why, sizeof(f->why), "%s", path);
	return 1;
}

/* Whether a server failed (could not be reached) earlier in this run: not asked again. */
static bool server_failed(const etl_ctx *c, const char *url)
{
	for (size_t i = 0; i < c->nfailed; i++)
		if (!strcmp(c->failed[i], url))
			return true;
	return false;
}

/* The next element of a symbol path (*p moves past it; false at the end): srv*CACHE*URL,
 * srv*URL, symsrv*symsrv.dll*CACHE*URL, cache*DIR give their cache (a store: *store_only)
 * and URL; a plain directory itself. *dir NULL or empty: nothing local to look in. */
bool sv_etl_symbol_dir(const char **p, char *el, size_t elcap, const char **dir, const char **url, bool *store_only)
{
	if (!*p || !**p)
		return false;
	const char *semi = strchr(*p, ';');
	size_t n = semi ? (size_t)(semi - *p) : strlen(*p);
	if (n >= elcap)
		n = elcap - 1;
	memcpy(el, *p, n);
	el[n] = '\0';
	*p = semi ? semi + 1 : *p + n;
	*dir = el, *url = NULL, *store_only = false;
	if (!strncasecmp(el, "srv*", 4) || !strncasecmp(el, "symsrv*", 7) || !strncasecmp(el, "cache*", 6)) {
		char *parts[4] = { 0 };
		int np = 0;
		for (char *q = el, *save = NULL, *tok; np < 4 && (tok = strtok_r(q, "*", &save)); q = NULL)
			parts[np++] = tok;
		if (!strncasecmp(el, "cache", 5))
			*dir = np > 1 ? parts[1] : NULL;
		else if (!strncasecmp(el, "symsrv", 6))
			*dir = np > 3 ? parts[2] : NULL, *url = np > 3 ? parts[3] : NULL;
		else if (np > 2) /* srv*CACHE*URL */
			*dir = parts[1], *url = parts[2];
		else if (np == 2 && strstr(parts[1], "://")) /* srv*URL: no cache to keep it in */
			*dir = NULL;
		else
			*dir = np == 2 ? parts[1] : NULL;
		*store_only = true;
	}
	return true;
}

/* Search the symbol path for an identity: each element's local copy, then the servers. */
static void search(etl_ctx *c, esymfile *f, const ersds *e)
{
	snprintf(f->why, sizeof(f->why), "not found");
	char path[4096];
	char el[2048];
	const char *dir, *url;
	bool store_only;
	for (const char *p = c->symbol_path; sv_etl_symbol_dir(&p, el, sizeof(el), &dir, &url, &store_only);) {
		if (!dir || !*dir)
			continue;
		if (!sv_symsrv_safe_name(e->name)) { /* a name from the trace never becomes a path */
			snprintf(f->why, sizeof(f->why), "the trace's PDB name '%.80s' is not one file's name", e->name);
			return;
		}
		snprintf(path, sizeof(path), "%s/%s/%s/%s", dir, e->name, f->key, e->name);
		if (try_file(f, e, path) > 0)
			return;
		bool http = url && (!strncasecmp(url, "http://", 7) || !strncasecmp(url, "https://", 8));
		if (http && !c->offline && server_failed(c, url))
			snprintf(f->why, sizeof(f->why), "not asked: %.300s failed earlier in this run", url);
		else if (http && !c->offline) {
			char why[600];
			int rc = sv_symsrv_fetch(&c->net, url, dir, e->name, f->key, path, sizeof(path), why, sizeof(why));
			if (rc == -2) { /* stopped: ask nothing more, look nowhere else */
				snprintf(f->why, sizeof(f->why), "%s", why);
				return;
			}
			if (rc == 0 && try_file(f, e, path) > 0) {
				snprintf(f->why, sizeof(f->why), "%.340s (downloaded from %.240s)", path, url);
				c->downloads++;
				return;
			}
			if (rc != 0)
				snprintf(f->why, sizeof(f->why), "%s", why);
			char *u = rc < 0 && !c->net.spent ? strdup(url) : NULL; /* spent: each says so */
			if (u && SV_ARRAY_PUSH(c->failed, c->nfailed, c->failedcap, u))
				free(u);
		}
		if (store_only)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->name);
		if (try_file(f, e, path) > 0)
			return;
	}
}

/* An image without a DbgID_RSDS event: counted once by its file name, for the notes. */
static void no_identity(etl_ctx *c, const char *path)
{
	const char *b = sv_etl_base_name(path);
	for (size_t i = 0; i < c->nnoid; i++)
		if (!strcasecmp(c->noid[i], b))
			return;
	char *d = c->nnoid < 1000 ? strdup(b) : NULL;
	if (d && SV_ARRAY_PUSH(c->noid, c->nnoid, c->noidcap, d))
		free(d);
}

static ersds *identity(etl_ctx *c, const sv_idmap *m, uint32_t pid, uint64_t base)
{
	uint32_t ri = sv_idmap_get(m, sv_hash_mix64(base) ^ pid);
	ersds *e = ri != SV_IDMAP_NONE && ri ? &c->rsds[ri - 1] : NULL;
	return e && e->pid == pid && e->base == base ? e : NULL; /* else none, or another image's key */
}

/* The table of an identity: looked for once, shared by every image with the same key. */
static const sv_symtab *resolve(etl_ctx *c, ersds *e)
{
	if (e->file) /* looked for already */
		return c->symfiles[e->file - 1].t;
	char key[48];
	store_key(e, key, sizeof(key));
	uint32_t fi = 0;
	for (size_t i = 0; i < c->nsymfiles && !fi; i++)
		if (c->symfiles[i].image == e->image && !strcmp(c->symfiles[i].key, key) &&
		    !strcasecmp(c->symfiles[i].name, e->name))
			fi = (uint32_t)i + 1;
	if (!fi) {
		esymfile f = { .image = e->image };
		snprintf(f.key, sizeof(f.key), "%s", key);
		if (!(f.name = strdup(e->name)))
			return NULL;
		search(c, &f, e);
		if (SV_ARRAY_PUSH(c->symfiles, c->nsymfiles, c->symfilecap, f)) {
			free(f.name);
			sv_symtab_free(f.t);
			return NULL;
		}
		fi = (uint32_t)c->nsymfiles;
	}
	e->file = fi;
	return c->symfiles[fi - 1].t;
}


/* Is the image's module one of the list's ("clr,ntdll": names without their extension, any
 * case)? */
static bool module_listed(const char *list, const char *path)
{
	const char *base = sv_etl_base_name(path);
	const char *dot = strrchr(base, '.');
	size_t bl = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ",");
		while (l && p[l - 1] == ' ')
			l--;
		if (l == bl && strncasecmp(p, base, bl) == 0)
			return true;
		p += strcspn(p, ",");
		while (*p == ',' || *p == ' ')
			p++;
	}
	return false;
}

const sv_symtab *sv_etl_symtab(etl_ctx *c, const eimage *im)
{
	if (!c->symbol_path)
		return NULL;
	if (c->symbol_modules && !module_listed(c->symbol_modules, im->path))
		return NULL; /* symbols on demand: only the modules asked for */
	/* its PDB; else the image itself for its exports (ImageID names it, often with pid 0) */
	ersds *pdb = identity(c, &c->rsds_by_key, im->pid, im->base);
	const sv_symtab *t = pdb ? resolve(c, pdb) : NULL;
	if (t)
		return t;
	ersds *img = identity(c, &c->imageid_by_key, im->pid, im->base);
	if (!img)
		img = identity(c, &c->imageid_by_key, 0, im->base);
	if (img)
		t = resolve(c, img);
	if (!pdb && !img)
		no_identity(c, im->path);
	return t;
}

esymfile *sv_etl_pdb_file(etl_ctx *c, const eimage *im, bool look, char *image_key, size_t keycap)
{
	image_key[0] = '\0';
	if (!c->symbol_path || (c->symbol_modules && !module_listed(c->symbol_modules, im->path)))
		return NULL;
	ersds *pdb = identity(c, &c->rsds_by_key, im->pid, im->base);
	if (!pdb || (!pdb->file && !look) || !resolve(c, pdb) || !pdb->file)
		return NULL;
	ersds *img = identity(c, &c->imageid_by_key, im->pid, im->base);
	if (!img)
		img = identity(c, &c->imageid_by_key, 0, im->base);
	if (img)
		store_key(img, image_key, keycap);
	return &c->symfiles[pdb->file - 1];
}

int sv_etl_symbols_notes(etl_ctx *c)
{
	if (!c->symbol_path)
		return !c->unnamed_addrs ? 0
					 : sv_sink_note(c->sink, SV_NOTE_WARNING,
							"symbols: %zu addresses in %zu native modules are unnamed (MODULE!?): no symbol path "
							"is set; --symbol-path 'srv*CACHE*https://msdl.microsoft.com/download/symbols' (or "
							"_NT_SYMBOL_PATH, or a folder of PDBs) names them",
							c->unnamed_addrs, c->unnamed_nmods);
	size_t found = 0, npdbs = 0, images = 0, images_found = 0;
	char missing[600] = "";
	size_t ml = 0, nmissing = 0;
	int rc = 0;
	for (size_t i = 0; i < c->nsymfiles; i++) {
		const esymfile *f = &c->symfiles[i];
		char line[700];
		npdbs += !f->image;
		images += f->image;
		if (f->t && f->image) {
			images_found++;
			snprintf(line, sizeof(line), "symbols: %s %s (its exports: no PDB) from %s", f->name, f->key, f->why);
			rc = sv_sink_note(c->sink, SV_NOTE_INFO, "%s", line);
		} else if (f->t) {
			found++;
			snprintf(line, sizeof(line), "symbols: %s %s from %s", f->name, f->key, f->why);
			rc = sv_sink_note(c->sink, SV_NOTE_INFO, "%s", line);
			if (!rc && f->code > 0)
				rc = sv_sink_note(c->sink, SV_NOTE_INFO, "code for annotate: %s from %s", f->code_name,
						  sv_source_code_file(sv_sink_source(c->sink), f->code_file)
							  ? sv_source_code_file(sv_sink_source(c->sink), f->code_file)
							  : "the symbol path");
			else if (!rc && f->code < 0 && f->code_name[0])
				rc = sv_sink_note(c->sink, SV_NOTE_INFO,
						  "code for annotate: %s is not beside %s on the symbol path (annotate reads the "
						  "image built with that PDB from a folder or store of it)",
						  f->code_name, f->name);
		} else if (f->image) {
			continue; /* said in the count below */
		} else {
			nmissing++; /* each of the first ten with its reason; the rest in the summary */
			snprintf(line, sizeof(line), "symbols: %s %s: %s", f->name, f->key, f->why);
			if (nmissing <= 10)
				rc = sv_sink_note(c->sink, SV_NOTE_INFO, "%s", line);
			if (ml < sizeof(missing) - 1)
				ml += (size_t)snprintf(missing + ml, sizeof(missing) - ml, "%s%s", nmissing > 1 ? ", " : "", f->name);
		}
		if (rc)
			return rc;
	}
	if (c->nnoid) {
		char list[600] = "";
		size_t ll = 0;
		for (size_t i = 0; i < c->nnoid && ll < sizeof(list) - 1; i++)
			ll += (size_t)snprintf(list + ll, sizeof(list) - ll, "%s%s", i ? ", " : "", c->noid[i]);
		if ((rc = sv_sink_note(c->sink, SV_NOTE_INFO,
				       "symbols: %zu images have no PDB identity in the trace (no ImageID/DbgID_RSDS event): %s%s",
				       c->nnoid, list, ll >= sizeof(list) - 1 ? ", …" : "")))
			return rc;
	}
	if (images && (rc = sv_sink_note(c->sink, SV_NOTE_INFO,
					 "symbols: %zu of %zu images without their PDB were found for their exports",
					 images_found, images)))
		return rc;
	char line[800];
	snprintf(line, sizeof(line), "symbols: %zu of %zu PDBs the frames need were found on the symbol path%s%s%s", found,
		 npdbs, nmissing ? " (not: " : "", missing, nmissing ? ")" : "");
	return sv_sink_note(c->sink, found < npdbs ? SV_NOTE_WARNING : SV_NOTE_INFO, "%s", line);
}
