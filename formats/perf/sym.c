/* SPDX-License-Identifier: MIT */
/* Symbols for the perf.data reader (spec/perf.md §6–7): one sorted symbol table per ELF file,
 * read once through libdwfl (which also finds separate debug files by build id), with perf's
 * rules for aliases at one address and for zero-size symbols, names demangled as perf prints
 * them (libiberty, no parameters); kernel and JIT symbols are sym_maps.c. */
#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/debuginfod.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf_inline.h"
#include "sym_int.h"
#include "core/hold.h"
#include "core/net.h"
#include "core/side_file.h"


/* ---- growable byte buffer helpers ---- */

int sv_perf_names_add(char **buf, size_t *len, size_t *cap, const char *s, size_t n, uint32_t *out)
{
	if (*len + n + 1 > UINT32_MAX)
		return SV_ELIMIT;
	if (sv_array_reserve(buf, cap, *len + n + 1, 1))
		return SV_ENOMEM;
	memcpy(*buf + *len, s, n);
	(*buf)[*len + n] = '\0';
	*out = (uint32_t)*len;
	*len += n + 1;
	return 0;
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name);

/* ---- setup ---- */

int sv_perf_syms_new(sv_perf_syms **out, const sv_perf_sym_opts *opts)
{
	sv_perf_syms *s = calloc(1, sizeof(*s));
	if (!s)
		return SV_ENOMEM;
	s->opts = *opts;
	if (!s->opts.net) { /* the defaults' budget, for this table's life */
		sv_net_init(&s->own_net, NULL);
		s->opts.net = &s->own_net;
	}
	const char *user = opts->debug_dirs ? opts->debug_dirs : "";
	size_t n = strlen(user) + 64;
	if (!(s->debuginfo_path = malloc(n))) {
		free(s);
		return SV_ENOMEM;
	}
	/* libdwfl looks for DIR/.build-id/xx/rest.debug and debuglink targets in each entry. */
	snprintf(s->debuginfo_path, n, ":.debug%s%s:/usr/lib/debug", *user ? ":" : "", user);
	s->path_slot = s->debuginfo_path;
	s->cb.find_elf = dwfl_build_id_find_elf;
	s->cb.find_debuginfo = find_debuginfo;
	s->cb.debuginfo_path = &s->path_slot;
	sv_idmap_init(&s->dso_idx);
	*out = s;
	return 0;
}

static void dso_free(sv_perf_dso *d)
{
	if (!d)
		return;
	free(d->path);
	free(d->module);
	free(d->elf_path);
	free(d->loads);
	free(d->syms);
	sv_perf_keys_free(&d->starts);
	free(d->names);
	free(d->fids);
	if (d->inl_dwfl)
		dwfl_end(d->inl_dwfl);
	free(d);
}

int sv_perf_list_elf(const char *path, int (*add)(void *payload, uint64_t start, uint64_t end, const char *name),
		     void *payload)
{
	sv_perf_sym_opts so = { 0 };
	sv_perf_syms *s;
	char *abs = realpath(path, NULL); /* the symbolizer opens recorded, absolute paths */
	if (!abs)
		return SV_ENOTFOUND;
	if (sv_perf_syms_new(&s, &so)) {
		free(abs);
		return SV_ENOMEM;
	}
	sv_perf_dso *d = sv_perf_dso_get(s, abs, strlen(abs));
	free(abs);
	int rc = d ? 0 : SV_ENOMEM;
	if (!rc) {
		sv_perf_dso_load(s, d);
		if (!d->elf_path || !d->nsyms)
			rc = SV_ENOTFOUND;
	}
	for (size_t i = 0; !rc && i < d->nsyms; i++)
		rc = add(payload, d->syms[i].start, d->syms[i].end, sv_perf_dso_name(d, (long)i));
	sv_perf_syms_free(s);
	return rc;
}

void sv_perf_syms_debuginfod(const sv_perf_syms *s, size_t *asked, size_t *found, const char **why)
{
	*asked = s->dbgd_asked;
	*found = s->dbgd_found;
	*why = s->dbgd_watch.why;
}

void sv_perf_syms_free(sv_perf_syms *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ndsos; i++)
		dso_free(s->dsos[i]);
	if (s->dbgd)
		debuginfod_end(s->dbgd);
	free(s->dsos);
	free(s->dso_next);
	sv_idmap_dispose(&s->dso_idx);
	free(s->ksyms);
	sv_perf_keys_free(&s->kstarts);
	free(s->knames);
	for (size_t i = 0; i < s->njits; i++) {
		free(s->jits[i].module);
		free(s->jits[i].syms);
		free(s->jits[i].names);
	}
	free(s->jits);
	free(s->debuginfo_path);
	free(s);
}

const void *sv_perf_syms_callbacks(const sv_perf_syms *s)
{
	return &s->cb;
}

/* ---- DSOs ---- */

static bool starts(const char *s, size_t n, const char *p)
{
	size_t l = strlen(p);
	return n >= l && memcmp(s, p, l) == 0;
}

/* The frame's module: file name after the last '/', one layer of [] removed. */
static char *module_of(const char *path, size_t len)
{
	if (starts(path, len, "[kernel.kallsyms]")) /* perf's "[kernel.kallsyms]_text" map */
		return strdup("kernel.kallsyms");
	const char *b = path;
	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			b = path + i + 1;
	size_t n = (size_t)(path + len - b);
	if (n >= 2 && b[0] == '[' && b[n - 1] == ']') {
		b++;
		n -= 2;
	}
	if (!n) {
		b = "unknown";
		n = 7;
	}
	return strndup(b, n);
}

sv_perf_dso *sv_perf_dso_get(sv_perf_syms *s, const char *path, size_t len)
{
	uint64_t h = sv_hash_bytes(path, len);
	uint32_t head = sv_idmap_get(&s->dso_idx, h);
	for (uint32_t i = head == SV_IDMAP_NONE ? 0 : head; i; i = s->dso_next[i - 1]) {
		sv_perf_dso *d = s->dsos[i - 1];
		if (strlen(d->path) == len && memcmp(d->path, path, len) == 0)
			return d;
	}
	if (s->ndsos >= SV_PERF_MAX_DSOS)
		return NULL;
	if (SV_ARRAY_RESERVE(s->dsos, s->dso_cap, s->ndsos + 1) ||
	    SV_ARRAY_RESERVE(s->dso_next, s->dso_next_cap, s->ndsos + 1))
		return NULL;
	sv_perf_dso *d = calloc(1, sizeof(*d));
	if (!d || !(d->path = strndup(path, len)) || !(d->module = module_of(path, len))) {
		dso_free(d);
		return NULL;
	}
	d->kernel = starts(path, len, "[kernel.kallsyms]") || (len > 3 && memcmp(path + len - 3, ".ko", 3) == 0) ||
		    (len > 6 && memcmp(path + len - 6, ".ko.xz", 6) == 0) ||
		    (len > 7 && memcmp(path + len - 7, ".ko.zst", 7) == 0);
	/* What perf takes for anonymous memory, whose symbols are in perf-PID.map. */
	d->jit = starts(path, len, "//anon") || starts(path, len, "/dev/zero") || starts(path, len, "/anon_hugepage");
	d->index = (uint32_t)s->ndsos;
	s->dsos[s->ndsos] = d;
	s->dso_next[s->ndsos] = head == SV_IDMAP_NONE ? 0 : head;
	if (sv_idmap_put(&s->dso_idx, h, (uint32_t)s->ndsos + 1)) {
		dso_free(d);
		return NULL;
	}
	s->ndsos++;
	return d;
}

int sv_perf_dso_set_build_id(sv_perf_syms *s, const char *path, size_t len, const unsigned char *id, size_t idlen)
{
	sv_perf_dso *d = sv_perf_dso_get(s, path, len);
	if (!d)
		return SV_ENOMEM;
	if (idlen > sizeof(d->build_id))
		idlen = sizeof(d->build_id);
	memcpy(d->build_id, id, idlen);
	d->build_id_len = (uint8_t)idlen;
	return 0;
}

size_t sv_perf_dso_count(const sv_perf_syms *s)
{
	return s->ndsos;
}

sv_perf_dso *sv_perf_dso_at(sv_perf_syms *s, size_t i)
{
	return s->dsos[i];
}

static bool regular_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Candidate files by build id in one directory: perf's cache (DIR/.build-id/xx/rest, a file
 * or a directory holding "elf" and "debug") and debug files (DIR/.build-id/xx/rest.debug). */
static int by_build_id(char *buf, size_t size, const char *dir, const sv_perf_dso *d, int which)
{
	char hex[41];
	for (size_t i = 0; i < d->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", d->build_id[i]);
	static const char *const suffix[] = { "", "/elf", ".debug", "/debug" };
	int n = snprintf(buf, size, "%s/.build-id/%.2s/%s%s", dir, hex, hex + 2, suffix[which]);
	return n > 0 && (size_t)n < size && regular_file(buf) ? 0 : -1;
}

static size_t underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choice between two symbols at one address (perf.md §6.1): non-zero size, then not
 * weak, then global, then fewer leading underscores, then the longer name; a tie keeps the
 * first in table order. Returns true when b should replace a. */
bool sv_perf_sym_better(const cand *a, const cand *b)
{
	if ((a->size > 0) != (b->size > 0))
		return b->size > 0;
	bool wa = a->bind == STB_WEAK, wb = b->bind == STB_WEAK;
	if (wa != wb)
		return wa;
	bool ga = a->bind == STB_GLOBAL, gb = b->bind == STB_GLOBAL;
	if (ga != gb)
		return gb;
	size_t ua = underscores(a->name), ub = underscores(b->name);
	if (ua != ub)
		return ub < ua;
	size_t la = strlen(a->name), lb = strlen(b->name);
	return lb > la;
}

static int cmp_cand(const void *x, const void *y)
{
	const cand *a = x, *b = y;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Executable section? (labels count as symbols only there, as in perf). */
static bool exec_section(Elf *elf, GElf_Word shndx)
{
	Elf_Scn *scn = elf ? elf_getscn(elf, shndx) : NULL;
	GElf_Shdr sh;
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstr;
	if (elf_getshdrstrndx(elf, &shstr) != 0)
		return NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		if (!gelf_getshdr(scn, sh))
			continue;
		const char *n = elf_strptr(elf, shstr, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* perf's synthesized "name@plt" symbols: one per .rela.plt entry, in .plt after its header
 * entry (or in .plt.sec without one). Names go into one buffer the caller frees. */
static int plt_symbols(Elf *elf, cand **c, size_t *nc, size_t *cap, char **buf)
{
	GElf_Shdr plt, rel, symsh;
	Elf_Scn *pscn = section_named(elf, ".plt.sec", &plt);
	uint64_t first = 0;
	if (!pscn) {
		pscn = section_named(elf, ".plt", &plt);
		first = 1;
	}
	Elf_Scn *rscn = section_named(elf, ".rela.plt", &rel);
	if (!pscn || !rscn || plt.sh_type != SHT_PROGBITS || rel.sh_type != SHT_RELA)
		return 0;
	Elf_Scn *sscn = elf_getscn(elf, rel.sh_link);
	Elf_Data *rd = elf_getdata(rscn, NULL);
	Elf_Data *sd = sscn ? elf_getdata(sscn, NULL) : NULL;
	if (!sscn || !gelf_getshdr(sscn, &symsh) || !rd || !sd || !rd->d_buf || !sd->d_buf || !rel.sh_entsize)
		return 0;
	uint64_t ent = plt.sh_entsize ? plt.sh_entsize : 16;
	size_t nrel = rel.sh_size / rel.sh_entsize, len = 0, bcap = 0;
	if (nrel > (1u << 20))
		return 0;
	for (size_t i = 0; i < nrel; i++) {
		GElf_Rela ra;
		GElf_Sym sym;
		if (!gelf_getrela(rd, (int)i, &ra) || !gelf_getsym(sd, (int)GELF_R_SYM(ra.r_info), &sym))
			continue;
		const char *name = elf_strptr(elf, symsh.sh_link, sym.st_name);
		uint64_t start = plt.sh_addr + (first + i) * ent;
		if (!name || !*name || (first + i + 1) * ent > plt.sh_size)
			continue;
		size_t nl = strlen(name);
		if (sv_array_reserve(buf, &bcap, len + nl + 5, 1) || SV_ARRAY_RESERVE(*c, *cap, *nc + 1))
			return SV_ENOMEM;
		memcpy(*buf + len, name, nl);
		memcpy(*buf + len + nl, "@plt", 5);
		/* name holds an offset until the buffer stops moving */
		(*c)[(*nc)++] = (cand){ start, ent, (const char *)(uintptr_t)len, STB_GLOBAL, UINT32_MAX - (uint32_t)(nrel - i) };
		len += nl + 5;
	}
	return 0;
}

/* Read the module's symbols into d->syms: functions, labels in code, PLT entries. */
static int read_symbols(sv_perf_dso *d, Dwfl_Module *mod)
{
	int n = dwfl_module_getsymtab(mod);
	size_t cap = n > 0 ? (size_t)n : 0, nc = 0, nplt_from;
	cand *c = cap ? malloc(cap * sizeof(*c)) : NULL;
	char *pltbuf = NULL;
	if (cap && !c)
		return SV_ENOMEM;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *selif = NULL;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &selif, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !*name || shndx == SHN_UNDEF || shndx == SHN_ABS)
			continue;
		if (type != STT_FUNC && type != STT_GNU_IFUNC && !(type == STT_NOTYPE && exec_section(selif, shndx)))
			continue;
		c[nc++] = (cand){ addr, sym.st_size, name, GELF_ST_BIND(sym.st_info), (uint32_t)i };
	}
	nplt_from = nc;
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	int rc = elf ? plt_symbols(elf, &c, &nc, &cap, &pltbuf) : 0;
	for (size_t i = nplt_from; i < nc; i++)
		c[i].name = pltbuf + (uintptr_t)c[i].name;
	qsort(c, nc, sizeof(*c), cmp_cand);
	/* Collapse aliases: one symbol per address. */
	size_t m = 0;
	for (size_t i = 0; !rc && i < nc; i++) {
		if (m && c[m - 1].addr == c[i].addr) {
			if (sv_perf_sym_better(&c[m - 1], &c[i]))
				c[m - 1] = c[i];
			continue;
		}
		c[m++] = c[i];
	}
	if (!rc && m && !(d->syms = malloc(m * sizeof(*d->syms))))
		rc = SV_ENOMEM;
	for (size_t i = 0; !rc && i < m; i++) {
		sv_perf_sym *ps = &d->syms[i];
		ps->start = c[i].addr;
		/* Zero-size symbols reach the next symbol (perf's fixup). */
		ps->end = c[i].size ? c[i].addr + c[i].size : (i + 1 < m ? c[i + 1].addr : c[i].addr + 1);
		if (ps->end <= ps->start)
			ps->end = ps->start + 1;
		ps->demangled = UINT32_MAX;
		rc = sv_perf_names_add(&d->names, &d->names_len, &d->names_cap, c[i].name, strlen(c[i].name), &ps->name);
		d->nsyms = i + 1;
	}
	free(c);
	free(pltbuf);
	return rc;
}

static int read_loads(sv_perf_dso *d, Dwfl_Module *mod)
{
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t np = 0;
	if (!elf || elf_getphdrnum(elf, &np) != 0 || !np)
		return 0;
	if (!(d->loads = calloc(np, sizeof(*d->loads))))
		return SV_ENOMEM;
	for (size_t i = 0; i < np; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->loads[d->nloads++] = (sv_perf_load){ ph.p_offset, ph.p_vaddr + bias, ph.p_filesz };
	}
	return 0;
}

/* libdwfl's debuginfo search opens the files it finds itself: it runs only when none of the
 * places it looks (the module's directory, its .debug, the debug directories' build-id and
 * debuglink paths) holds something other than a regular file. */
static bool debug_candidates_safe(const sv_perf_syms *s, Dwfl_Module *mod, const char *file_name,
				  const char *debuglink)
{
	char buf[4096], dir[4096] = ".";
	if (file_name) {
		const char *slash = strrchr(file_name, '/');
		if (slash)
			snprintf(dir, sizeof(dir), "%.*s", (int)(slash - file_name), file_name);
	}
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int nb = dwfl_module_build_id(mod, &bits, &vaddr);
	char hex[2 * 64 + 1] = "";
	for (int i = 0; i < nb && i < 64; i++)
		snprintf(hex + 2 * i, 3, "%02x", bits[i]);
	const char *list = s ? s->debuginfo_path : ":.debug:/usr/lib/debug";
	for (const char *p = list, *e; p; p = e ? e + 1 : NULL) {
		e = strchr(p, ':');
		int dl = (int)(e ? (size_t)(e - p) : strlen(p));
		if (dl && p[0] == '/') {
			if (nb > 1 && snprintf(buf, sizeof(buf), "%.*s/.build-id/%.2s/%s.debug", dl, p, hex, hex + 2) > 0 &&
			    !sv_side_may_open(buf))
				return false;
			if (debuglink && snprintf(buf, sizeof(buf), "%.*s%s/%s", dl, p, dir, debuglink) > 0 &&
			    !sv_side_may_open(buf))
				return false;
		}
	}
	if (debuglink) {
		int n = snprintf(buf, sizeof(buf), "%s/%s", dir, debuglink);
		if (n < 0 || (size_t)n >= sizeof(buf) || !sv_side_may_open(buf))
			return false;
		n = snprintf(buf, sizeof(buf), "%s/.debug/%s", dir, debuglink);
		if (n < 0 || (size_t)n >= sizeof(buf) || !sv_side_may_open(buf))
			return false;
	}
	return true;
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	if (!debug_candidates_safe(userdata ? *userdata : NULL, mod, file_name, debuglink_file))
		return -1;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file, debuglink_crc,
					    debuginfo_file_name);
}

/* The module's userdata is the symbol tables' owner, for find_debuginfo. */
static void guard_debuginfo(Dwfl_Module *mod, sv_perf_syms *s)
{
	void **slot = NULL;
	if (dwfl_module_info(mod, &slot, NULL, NULL, NULL, NULL, NULL, NULL) && slot)
		*slot = s;
}

/* Report `path` in a fresh Dwfl; keep it when its build id matches the recorded one. */
static Dwfl_Module *try_file(sv_perf_syms *s, sv_perf_dso *d, const char *path, Dwfl **out)
{
	Dwfl *dwfl = dwfl_begin(&s->cb);
	if (!dwfl)
		return NULL;
	/* Opened here, not by libdwfl: a FIFO or device a recording names must not block or
	 * stream forever (side_file.h). libdwfl keeps the descriptor of a reported module. */
	int fd = sv_side_open(path, SV_MAX_SIDE_ELF);
	if (fd < 0) {
		dwfl_end(dwfl);
		return NULL;
	}
	dwfl_report_begin(dwfl);
	Dwfl_Module *mod = dwfl_report_elf(dwfl, d->module, path, fd, 0, true);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod)
		close(fd);
	else
		guard_debuginfo(mod, s);
	if (mod && d->build_id_len) {
		const unsigned char *bits;
		GElf_Addr vaddr;
		GElf_Addr bias;
		dwfl_module_getelf(mod, &bias);
		int n = dwfl_module_build_id(mod, &bits, &vaddr);
		if (n > 0 && ((size_t)n != d->build_id_len || memcmp(bits, d->build_id, (size_t)n) != 0))
			mod = NULL;
	}
	if (!mod) {
		dwfl_end(dwfl);
		return NULL;
	}
	*out = dwfl;
	return mod;
}

/* PT_LOAD and symbol tables of a reported module; none on failure. */
static void read_tables(sv_perf_dso *d, Dwfl_Module *mod)
{
	if (read_loads(d, mod) || read_symbols(d, mod)) {
		free(d->syms);
		d->syms = NULL;
		d->nsyms = 0;
	}
	(void)sv_perf_keys_build(&d->starts, d->syms, d->nsyms, sizeof(*d->syms), offsetof(sv_perf_sym, start),
				 offsetof(sv_perf_sym, end));
}

/* The vdso of this process, as a file libdwfl can open, when it is the recorded one (same
 * build id: the same kernel). -1 when not. */
static int own_vdso(void)
{
	const unsigned char *img = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	if (!img || memcmp(img, ELFMAG, SELFMAG) != 0 || img[EI_CLASS] != ELFCLASS64)
		return -1;
	Elf64_Ehdr eh;
	memcpy(&eh, img, sizeof(eh));
	size_t size = (size_t)eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
	if (size < sizeof(eh) || size > (16u << 20))
		return -1;
	int fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, img, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	return fd;
}


/* debuginfod (its servers from DEBUGINFOD_URLS, its cache from DEBUGINFOD_CACHE_PATH): the
 * debug file by build id, else the executable; the file it caches is opened as any other.
 * Each request has what the load's network budget allows, and the signals that end the
 * program are held meanwhile so that Ctrl-C ends it within a second, its cache's temporary
 * file removed by libdebuginfod, before the signal takes effect. */
static Dwfl_Module *from_debuginfod(sv_perf_syms *s, sv_perf_dso *d, Dwfl **dwfl)
{
	sv_net *net = s->opts.net;
	if (!s->dbgd && (s->dbgd = debuginfod_begin())) {
		debuginfod_set_user_data(s->dbgd, &s->dbgd_watch);
		debuginfod_set_progressfn(s->dbgd, sv_dbgd_progress);
	}
	if (!s->dbgd)
		return NULL;
	Dwfl_Module *mod = NULL;
	for (int which = 0; which < 2 && !mod; which++) {
		double allow = sv_net_allow(net);
		if (allow <= 0)
			break;
		s->dbgd_asked += which == 0;
		s->dbgd_watch = (sv_dbgd_watch){ .net = net, .until = sv_net_now() + allow };
		char *path = NULL;
		sigset_t old;
		sv_hold_begin(&old);
		int fd = which == 0 ? debuginfod_find_debuginfo(s->dbgd, d->build_id, d->build_id_len, &path)
				    : debuginfod_find_executable(s->dbgd, d->build_id, d->build_id_len, &path);
		if (sv_hold_pending())
			net->stopped = true;
		sv_hold_end(&old);
		if (fd >= 0)
			close(fd); /* reopened through the side-file guard */
		if (fd >= 0 && path && (mod = try_file(s, d, path, dwfl)))
			d->elf_path = strdup(path);
		free(path);
		if (net->stopped)
			break;
	}
	s->dbgd_found += mod != NULL;
	return mod;
}

int sv_perf_dso_for(sv_perf_syms **s, const sv_import_opts *opts, const char *path, size_t len, const unsigned char *id,
		    size_t idlen, sv_perf_dso **out)
{
	*out = NULL;
	int rc;
	if (!*s) {
		sv_perf_sym_opts so = { .debug_dirs = opts->debug_dirs, .symfs = opts->symfs };
		if ((rc = sv_perf_syms_new(s, &so)))
			return rc;
	}
	if (idlen && (rc = sv_perf_dso_set_build_id(*s, path, len, id, idlen)))
		return rc;
	sv_perf_dso *d = sv_perf_dso_get(*s, path, len);
	if (!d)
		return SV_ENOMEM;
	sv_perf_dso_load(*s, d);
	if (d->elf_path && d->nloads)
		*out = d;
	return 0;
}

void sv_perf_dso_load(sv_perf_syms *s, sv_perf_dso *d)
{
	if (d->tried)
		return;
	d->tried = true;
	if (!strcmp(d->path, "[vdso]") && d->build_id_len) {
		int fd = own_vdso();
		char p[64];
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		Dwfl *dwfl = NULL;
		Dwfl_Module *mod = fd >= 0 ? try_file(s, d, p, &dwfl) : NULL;
		if (fd >= 0)
			close(fd);
		if (mod) {
			d->elf_path = strdup("[vdso] (this kernel's)");
			read_tables(d, mod);
			dwfl_end(dwfl);
		}
		return;
	}
	/* Never open devices or kernel files a hostile recording names (/proc/kcore…). */
	if (d->jit || d->kernel || d->path[0] == '[' || starts(d->path, strlen(d->path), "/proc/") ||
	    starts(d->path, strlen(d->path), "/sys/") || starts(d->path, strlen(d->path), "/dev/"))
		return;
	/* The recorded file when it is still there (and matches) — under --symfs when given, as
	 * perf looks — else perf's build-id cache or a debug file found by build id in the debug
	 * directories, else debuginfod. */
	char buf[4096];
	Dwfl *dwfl = NULL;
	Dwfl_Module *mod = NULL;
	if (s->opts.symfs && d->path[0] == '/' && snprintf(buf, sizeof(buf), "%s%s", s->opts.symfs, d->path) < (int)sizeof(buf) &&
	    regular_file(buf) && (mod = try_file(s, d, buf, &dwfl)))
		d->elf_path = strdup(buf);
	if (!mod && !s->opts.symfs && d->path[0] == '/' && regular_file(d->path) && (mod = try_file(s, d, d->path, &dwfl)))
		d->elf_path = strdup(d->path);
	if (!mod && d->build_id_len) {
		const char *dirs = s->opts.debug_dirs ? s->opts.debug_dirs : "";
		char list[4096];
		snprintf(list, sizeof(list), "%s%s/usr/lib/debug", dirs, *dirs ? ":" : "");
		for (int which = 0; !mod && which < 4; which++)
			for (char *p = list, *e; !mod && p && *p; p = e ? e + 1 : NULL) {
				e = strchr(p, ':');
				char dir[4096];
				size_t dl = e ? (size_t)(e - p) : strlen(p);
				if (!dl || dl >= sizeof(dir))
					continue;
				memcpy(dir, p, dl);
				dir[dl] = '\0';
				if (by_build_id(buf, sizeof(buf), dir, d, which) == 0 && (mod = try_file(s, d, buf, &dwfl)))
					d->elf_path = strdup(buf);
			}
	}
	if (!mod && d->build_id_len && s->opts.debuginfod)
		mod = from_debuginfod(s, d, &dwfl);
	if (!mod)
		return;
	read_tables(d, mod);
	dwfl_end(dwfl); /* the tables are copies: no file stays open */
}

uint64_t sv_perf_dso_addr(const sv_perf_dso *d, uint64_t off)
{
	for (size_t i = 0; i < d->nloads; i++)
		if (off >= d->loads[i].offset && off - d->loads[i].offset < d->loads[i].filesz)
			return off - d->loads[i].offset + d->loads[i].vaddr;
	return off;
}

long sv_perf_dso_find(const sv_perf_dso *d, uint64_t addr)
{
	uint64_t end = 0;
	size_t lo;
	if (d->starts.keys) {
		lo = sv_perf_keys_upper(&d->starts, addr, &end);
	} else {
		lo = sv_perf_upper(d->syms, d->nsyms, sizeof(*d->syms), offsetof(sv_perf_sym, start), addr);
		end = lo ? d->syms[lo - 1].end : 0;
	}
	if (!lo || addr >= end)
		return -1;
	return (long)lo - 1;
}

const char *sv_perf_dso_name(sv_perf_dso *d, long i)
{
	sv_perf_sym *ps = &d->syms[i];
	if (ps->demangled == UINT32_MAX) {
		ps->demangled = ps->name;
		const char *raw = d->names + ps->name;
		if (raw[0] == '_' && (raw[1] == 'Z' || raw[1] == 'R')) {
			char *dm = cplus_demangle(raw, DMGL_NO_OPTS);
			uint32_t off;
			if (dm && sv_perf_names_add(&d->names, &d->names_len, &d->names_cap, dm, strlen(dm), &off) == 0)
				d->syms[i].demangled = off;
			free(dm);
		}
	}
	return d->names + d->syms[i].demangled;
}

/* ---- inline frames ---- */

/* Name of an inlined subroutine: its origin's linkage name demangled as perf prints symbols,
 * else its DW_AT_name. */
static size_t inline_name(Dwarf_Die *die, char *buf, size_t size)
{
	Dwarf_Attribute at;
	const char *ln = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &at) || dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at))
		ln = dwarf_formstring(&at);
	if (ln && ln[0] == '_' && (ln[1] == 'Z' || ln[1] == 'R')) {
		char *dm = cplus_demangle(ln, DMGL_NO_OPTS);
		if (dm) {
			int n = snprintf(buf, size, "%s", dm);
			free(dm);
			return n > 0 ? (size_t)n : 0;
		}
	}
	const char *nm = dwarf_attr_integrate(die, DW_AT_name, &at) ? dwarf_formstring(&at) : NULL;
	if (!nm)
		nm = ln;
	if (!nm)
		return 0;
	int n = snprintf(buf, size, "%s", nm);
	return n > 0 ? (size_t)n : 0;
}

size_t sv_perf_dso_inlines(sv_perf_syms *s, sv_perf_dso *d, uint64_t addr, const char **names, size_t max, char *buf,
			   size_t bufsize)
{
	if (!d->inl_tried) {
		d->inl_tried = true;
		/* The file the symbols came from; libdwfl finds a separate debug file itself. */
		if (d->elf_path && d->elf_path[0] != '[') { /* not the vdso: its memfd is gone */
			Dwfl *dwfl = NULL;
			Dwfl_Module *mod = try_file(s, d, d->elf_path, &dwfl);
			if (mod) {
				d->inl_dwfl = dwfl;
				d->inl_mod = mod;
			}
		}
	}
	if (!d->inl_mod || !max)
		return 0;
	Dwarf_Die *cu, scopes[64];
	int ns = sv_perf_inline_chain(d->inl_mod, addr, &cu, scopes, 64);
	size_t n = 0, used = 0;
	for (int i = 0; i < ns && n < max; i++) {
		if (used + 2 > bufsize)
			break;
		size_t l = inline_name(&scopes[i], buf + used, bufsize - used);
		if (!l || used + l + 1 > bufsize)
			continue;
		names[n++] = buf + used;
		used += l + 1;
	}
	return n;
}
