/* SPDX-License-Identifier: MIT */
/* stackview symbols FILE: the functions a symbol file gives stackview, one per line
 * "RVA SIZE NAME" (hex), after a header naming the file's identity; --lines: its source lines
 * instead, "RVA SIZE LINE FILE" (RVA and size hex, as Breakpad's line records); --lookup ADDR
 * answers which function (and line) holds an address (an RVA in the image, hex with or
 * without 0x). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stackview/symbols.h"

static bool parse_addr(const char *s, size_t n, uint32_t *out)
{
	char buf[32];
	if (!n || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	const char *p = buf;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (!*p)
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p, &end, 16);
	if (*end || errno || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

static void print_symbol(const sv_symtab *t, const sv_symbol *s, bool json, jw *w, uint32_t addr, bool lookup)
{
	const char *file = NULL;
	uint32_t line = lookup ? sv_symtab_line_of(t, addr, &file) : 0;
	if (json) {
		jw_begin_obj(w);
		if (lookup) {
			char a[16];
			snprintf(a, sizeof(a), "%x", addr);
			jw_key(w, "address"); jw_str(w, a);
		}
		if (s) {
			char r[16];
			snprintf(r, sizeof(r), "%x", s->rva);
			jw_key(w, "rva"); jw_str(w, r);
			jw_key(w, "size"); jw_int(w, s->size);
			jw_key(w, "name"); jw_str(w, s->name);
			jw_key(w, "public"); jw_bool(w, s->is_public);
			if (line) {
				jw_key(w, "source"); jw_str(w, file);
				jw_key(w, "line"); jw_int(w, line);
			}
		} else {
			jw_key(w, "name"); jw_null(w);
		}
		jw_end_obj(w);
		return;
	}
	if (lookup && !s)
		printf("%x -\n", addr);
	else if (lookup && line)
		printf("%x %x+%x %s %s:%u\n", addr, s->rva, addr - s->rva, s->name, file, line);
	else if (lookup)
		printf("%x %x+%x %s\n", addr, s->rva, addr - s->rva, s->name);
	else
		printf("%x %x %s\n", s->rva, s->size, s->name);
}

int cmd_symbols(const cli_opts *o)
{
	sv_symtab *t;
	sv_error err;
	sv_error_clear(&err);
	int rc = sv_symtab_open(&t, o->files[0], &err);
	if (rc) {
		cli_report(&err);
		return rc == SV_EINVAL ? EXIT_USAGE : EXIT_INPUT;
	}
	/* the addresses first: a bad one is a usage error before anything is printed */
	uint32_t *addrs = malloc(((size_t)o->nlookup * 64 + 1) * sizeof(*addrs));
	size_t na = 0;
	if (!addrs) {
		sv_symtab_free(t);
		fprintf(stderr, "stackview: out of memory\n");
		return EXIT_INPUT;
	}
	for (int i = 0; i < o->nlookup; i++) {
		for (const char *p = o->lookup[i];;) {
			const char *c = strchr(p, ',');
			size_t n = c ? (size_t)(c - p) : strlen(p);
			if (na >= (size_t)o->nlookup * 64 || !parse_addr(p, n, &addrs[na])) {
				fprintf(stderr, "stackview: --lookup: '%.*s' is not an address (hex RVA, e.g. 0x1a2b)\n", (int)n, p);
				free(addrs);
				sv_symtab_free(t);
				return EXIT_USAGE;
			}
			na++;
			if (!c)
				break;
			p = c + 1;
		}
	}
	unsigned char guid[16];
	uint32_t age;
	uint16_t machine;
	size_t procs, publics, covered;
	sv_symtab_identity(t, guid, &age, &machine);
	sv_symtab_counts(t, &procs, &publics, &covered);
	char key[48];
	sv_symtab_key(t, key, sizeof(key));
	const char *arch = machine == 0x14C ? "x86" : machine == 0x8664 ? "x64" : machine == 0xAA64 ? "arm64" : "?";
	bool json = o->out == OUT_JSON;
	jw w = { .o.f = stdout };
	bool pe = !strcmp(sv_symtab_kind(t), "PE");
	char ikey[32];
	sv_symtab_image_key(t, ikey, sizeof(ikey));
	const char *pdb = sv_symtab_pdb_name(t);
	if (json) {
		jw_begin_obj(&w);
		jw_key(&w, "file"); jw_str(&w, o->files[0]);
		jw_key(&w, "kind"); jw_str(&w, sv_symtab_kind(t));
		if (pe) {
			jw_key(&w, "image_key"); jw_str(&w, ikey);
			jw_key(&w, "pdb"); if (pdb) jw_str(&w, pdb); else jw_null(&w);
		}
		jw_key(&w, "key"); jw_str(&w, key);
		jw_key(&w, "age"); jw_int(&w, age);
		jw_key(&w, "machine"); jw_str(&w, arch);
		jw_key(&w, "procedures"); jw_int(&w, (long long)procs);
		jw_key(&w, "publics"); jw_int(&w, (long long)publics);
		jw_key(&w, "lines"); jw_int(&w, (long long)sv_symtab_line_count(t));
		jw_key(&w, na ? "lookups" : o->lines ? "source_lines" : "functions");
		jw_begin_arr(&w);
	} else if (!na && !strcmp(sv_symtab_kind(t), "ELF")) {
		printf("# %s: ELF, %zu functions as perf.data frames name them (ELF addresses)\n", o->files[0], procs);
	} else if (!na && pe) {
		printf("# %s: PE image %s (%s), %zu exports; its PDB: %s%s%s\n", o->files[0], ikey, arch, publics,
		       pdb ? pdb : "none named", pdb ? " " : "", pdb ? key : "");
	} else if (!na) {
		printf("# %s: PDB %s (%s), %zu procedures, %zu publics (%zu inside them), %zu source lines\n", o->files[0], key,
		       arch, procs, publics, covered, sv_symtab_line_count(t));
	}
	if (na) {
		for (size_t i = 0; i < na; i++)
			print_symbol(t, sv_symtab_lookup(t, addrs[i]), json, &w, addrs[i], true);
	} else if (o->lines) {
		for (size_t i = 0; i < sv_symtab_line_count(t); i++) {
			uint32_t rva, size, line;
			const char *file;
			sv_symtab_line_at(t, i, &rva, &size, &line, &file);
			if (json) {
				char r[16];
				snprintf(r, sizeof(r), "%x", rva);
				jw_begin_obj(&w);
				jw_key(&w, "rva"); jw_str(&w, r);
				jw_key(&w, "size"); jw_int(&w, size);
				jw_key(&w, "line"); jw_int(&w, line);
				jw_key(&w, "source"); jw_str(&w, file);
				jw_end_obj(&w);
			} else {
				printf("%x %x %u %s\n", rva, size, line, file);
			}
		}
	} else {
		for (size_t i = 0; i < sv_symtab_count(t); i++)
			print_symbol(t, sv_symtab_at(t, i), json, &w, 0, false);
	}
	if (json) {
		jw_end_arr(&w);
		jw_end_obj(&w);
		fputc('\n', stdout);
	}
	free(addrs);
	sv_symtab_free(t);
	return fflush(stdout) == 0 && !ferror(stdout) ? EXIT_OK : EXIT_OUTPUT;
}
