/* SPDX-License-Identifier: MIT */
/* perf symbols that do not come from ELF files: the kernel's (kallsyms, read from the
 * recording's build-id cache, a given file or /proc/kallsyms with the relocation applied) and
 * JIT code's (perf-PID.map files). See sym_int.h. */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "sym_int.h"
#include "core/side_file.h"

/* ---- kallsyms ---- */

static int cmp_ksym(const void *x, const void *y)
{
	const ksym *a = x, *b = y;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Read "ADDR TYPE NAME [MODULE]" lines (plain or gzip); keep text symbols. */
static int read_kallsyms(sv_perf_syms *s, const char *path, uint64_t *text)
{
	int fd = sv_side_open(path, SV_MAX_SIDE_TEXT);
	gzFile f = fd >= 0 ? gzdopen(fd, "rb") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return SV_ENOTFOUND;
	}
	unsigned long long read_bytes = 0; /* a .gz one inflates to at most SV_MAX_SIDE_TEXT */
	char line[1024];
	size_t cap = 0, kcap = 0;
	int rc = 0;
	uint32_t none;
	rc = sv_perf_names_add(&s->knames, &s->knames_len, &kcap, "", 0, &none);
	*text = 0;
	bool nonzero = false;
	while (!rc && gzgets(f, line, sizeof(line))) {
		if ((read_bytes += strlen(line)) > SV_MAX_SIDE_TEXT)
			break;
		char *p = line, *end;
		uint64_t addr = strtoull(p, &end, 16);
		if (end == p || *end != ' ')
			continue;
		p = end + 1;
		char type = *p;
		if (!type || p[1] != ' ')
			continue;
		p += 2;
		size_t nl = strcspn(p, "\t \n");
		char *mod = p + nl;
		while (*mod == '\t' || *mod == ' ')
			mod++;
		size_t ml = 0;
		if (*mod == '[') {
			mod++;
			ml = strcspn(mod, "]\n");
		}
		if (addr)
			nonzero = true;
		if (nl == 5 && memcmp(p, "_text", 5) == 0 && !ml)
			*text = addr;
		char t = (char)toupper((unsigned char)type);
		if (t != 'T' && t != 'W')
			continue;
		if ((rc = SV_ARRAY_RESERVE(s->ksyms, cap, s->nksyms + 1)))
			break;
		ksym *k = &s->ksyms[s->nksyms];
		k->addr = addr;
		k->type = type;
		k->order = (uint32_t)s->nksyms;
		k->module = 0;
		rc = sv_perf_names_add(&s->knames, &s->knames_len, &kcap, p, nl, &k->name);
		if (!rc && ml)
			rc = sv_perf_names_add(&s->knames, &s->knames_len, &kcap, mod, ml, &k->module);
		if (!rc)
			s->nksyms++;
		if (s->nksyms >= 16u << 20)
			break;
	}
	gzclose(f);
	if (!rc && !nonzero) { /* kptr_restrict hides every address */
		s->nksyms = 0;
		return SV_ENOTFOUND;
	}
	return rc;
}

static void kallsyms_finish(sv_perf_syms *s, int64_t delta)
{
	for (size_t i = 0; i < s->nksyms; i++)
		if (!s->ksyms[i].module)
			s->ksyms[i].addr += (uint64_t)delta;
	qsort(s->ksyms, s->nksyms, sizeof(*s->ksyms), cmp_ksym);
	size_t m = 0;
	for (size_t i = 0; i < s->nksyms; i++) {
		ksym *k = &s->ksyms[i];
		if (m && s->ksyms[m - 1].addr == k->addr) {
			ksym *p = &s->ksyms[m - 1];
			cand a = { p->addr, 0, s->knames + p->name, p->type == 'w' || p->type == 'W' ? STB_WEAK : isupper((unsigned char)p->type) ? STB_GLOBAL : STB_LOCAL, p->order };
			cand b = { k->addr, 0, s->knames + k->name, k->type == 'w' || k->type == 'W' ? STB_WEAK : isupper((unsigned char)k->type) ? STB_GLOBAL : STB_LOCAL, k->order };
			if (sv_perf_sym_better(&a, &b))
				*p = *k;
			continue;
		}
		s->ksyms[m++] = *k;
	}
	s->nksyms = m;
	sv_perf_keys_free(&s->kstarts);
	/* (kallsyms gives no ends: the start stands in for one, unread) */
	(void)sv_perf_keys_build(&s->kstarts, s->ksyms, s->nksyms, sizeof(*s->ksyms), offsetof(ksym, addr),
				 offsetof(ksym, addr));
}

static bool kernel_build_id(unsigned char *id, size_t *len)
{
	/* /sys/kernel/notes: ELF notes; the GNU build-id note is type 3 named "GNU". */
	int fd = open("/sys/kernel/notes", O_RDONLY);
	if (fd < 0)
		return false;
	unsigned char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	for (size_t o = 0; n > 0 && o + 12 <= (size_t)n;) {
		uint32_t nsz, dsz, type;
		memcpy(&nsz, buf + o, 4);
		memcpy(&dsz, buf + o + 4, 4);
		memcpy(&type, buf + o + 8, 4);
		size_t name_off = o + 12, desc_off = name_off + ((nsz + 3u) & ~3u);
		if (nsz > 4096 || dsz > 4096 || desc_off + dsz > (size_t)n)
			break;
		if (type == 3 && nsz == 4 && memcmp(buf + name_off, "GNU", 4) == 0 && dsz <= 20) {
			memcpy(id, buf + desc_off, dsz);
			*len = dsz;
			return true;
		}
		o = desc_off + ((dsz + 3u) & ~3u);
	}
	return false;
}

void sv_perf_kallsyms_load(sv_perf_syms *s, const unsigned char *bid, size_t idlen, uint64_t text_addr, const char *osrelease,
		      char *note, size_t notesize)
{
	const char *path = s->opts.kallsyms;
	const char *why = "given";
	if (!path) {
		unsigned char mine[20];
		size_t mlen = 0;
		if (idlen && kernel_build_id(mine, &mlen) && mlen == idlen && memcmp(mine, bid, idlen) == 0) {
			path = "/proc/kallsyms";
			why = "the running kernel's build id matches the recording's";
		} else if (!idlen && osrelease) {
			char rel[256] = "";
			int fd = open("/proc/sys/kernel/osrelease", O_RDONLY);
			if (fd >= 0) {
				ssize_t n = read(fd, rel, sizeof(rel) - 1);
				rel[n > 0 ? n : 0] = '\0';
				rel[strcspn(rel, "\n")] = '\0';
				close(fd);
			}
			if (!strcmp(rel, osrelease)) {
				path = "/proc/kallsyms";
				why = "no kernel build id recorded; the running kernel has the same release";
			}
		}
	}
	if (!path) {
		snprintf(note, notesize, "no kernel symbols: %s (use --kallsyms FILE)",
			 idlen ? "the recording's kernel is not the running one" : "the recording names no kernel build id");
		return;
	}
	uint64_t text = 0;
	int rc = read_kallsyms(s, path, &text);
	if (rc) {
		s->nksyms = 0;
		snprintf(note, notesize, "no kernel symbols: %s %s", path,
			 rc == SV_ENOTFOUND ? "cannot be read or hides its addresses" : "could not be loaded");
		return;
	}
	int64_t delta = text && text_addr ? (int64_t)(text_addr - text) : 0;
	kallsyms_finish(s, delta);
	snprintf(note, notesize, "kernel symbols: %zu from %s (%s)%s", s->nksyms, path, why,
		 delta ? ", relocated to the recording's _text" : "");
}

long sv_perf_kallsyms_find(const sv_perf_syms *s, uint64_t addr)
{
	uint64_t end;
	size_t lo = s->kstarts.keys ? sv_perf_keys_upper(&s->kstarts, addr, &end)
				    : sv_perf_upper(s->ksyms, s->nksyms, sizeof(*s->ksyms), offsetof(ksym, addr), addr);
	if (!lo)
		return -1;
	/* The last symbol does not reach past the end of kernel text. */
	if (lo == s->nksyms && addr - s->ksyms[lo - 1].addr > (1u << 20))
		return -1;
	return (long)lo - 1;
}

void sv_perf_kallsyms_sym(const sv_perf_syms *s, long i, const char **sym, const char **module)
{
	const ksym *k = &s->ksyms[i];
	*sym = s->knames + k->name;
	*module = k->module ? s->knames + k->module : "kernel.kallsyms";
}

uint64_t sv_perf_kallsyms_addr(const sv_perf_syms *s, long i)
{
	return s->ksyms[i].addr;
}

size_t sv_perf_kallsyms_count(const sv_perf_syms *s)
{
	return s->nksyms;
}

/* ---- JIT perf maps ---- */

static int cmp_jit(const void *x, const void *y)
{
	const jit_sym *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->name < b->name ? -1 : a->name > b->name; /* file order: later lines win */
}

static jit_map *jit_get(sv_perf_syms *s, int pid)
{
	for (size_t i = 0; i < s->njits; i++)
		if (s->jits[i].pid == pid)
			return &s->jits[i];
	if (s->njits >= 4096)
		return NULL;
	if (SV_ARRAY_RESERVE(s->jits, s->jit_cap, s->njits + 1))
		return NULL;
	jit_map *m = &s->jits[s->njits];
	memset(m, 0, sizeof(*m));
	m->pid = pid;
	char name[64], path[4096];
	snprintf(name, sizeof(name), "perf-%d.map", pid);
	if (!(m->module = strdup(name)))
		return NULL;
	s->njits++;
	snprintf(path, sizeof(path), "%s/%s", s->opts.perf_map_dir ? s->opts.perf_map_dir : "/tmp", name);
	/* A FIFO, a device or a huge file there is not read (side_file.h). */
	int fd = sv_side_open(path, SV_MAX_SIDE_TEXT);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return m;
	}
	/* "START SIZE name" in hex; later lines win for the same start (re-JIT). */
	size_t cap = 0, ncap = 0, nlen = 0;
	char *line = NULL;
	size_t lcap = 0;
	ssize_t len;
	while ((len = getline(&line, &lcap, f)) > 0) {
		char *p = line, *e;
		uint64_t start = strtoull(p, &e, 16);
		if (e == p || *e != ' ')
			continue;
		p = e + 1;
		uint64_t size = strtoull(p, &e, 16);
		if (e == p || *e != ' ')
			continue;
		p = e + 1;
		size_t nl = strcspn(p, "\r\n");
		if (nl > 4096 || m->nsyms >= (4u << 20))
			continue;
		if (SV_ARRAY_RESERVE(m->syms, cap, m->nsyms + 1))
			break;
		jit_sym *js = &m->syms[m->nsyms];
		js->start = start;
		js->end = start + (size ? size : 1);
		if (sv_perf_names_add(&m->names, &nlen, &ncap, p, nl, &js->name))
			break;
		m->nsyms++;
	}
	free(line);
	fclose(f);
	qsort(m->syms, m->nsyms, sizeof(*m->syms), cmp_jit);
	return m;
}

bool sv_perf_jit_find(sv_perf_syms *s, int pid, uint64_t addr, const char **sym, const char **module)
{
	jit_map *m = jit_get(s, pid);
	if (!m)
		return false;
	*module = m->module;
	/* The last entry starting at or before addr that covers it. */
	size_t lo = sv_perf_upper(m->syms, m->nsyms, sizeof(*m->syms), offsetof(jit_sym, start), addr);
	for (size_t i = lo; i-- > 0 && lo - i <= 8;)
		if (addr < m->syms[i].end) {
			*sym = m->names + m->syms[i].name;
			return true;
		}
	return false;
}
