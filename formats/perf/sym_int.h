/* SPDX-License-Identifier: MIT */
/* Internals of the perf symbol tables shared by sym.c (ELF files through libdwfl,
 * inline frames) and sym_maps.c (kallsyms, JIT perf maps). formats/ only.
 *
 * Ownership: sv_perf_syms owns every table and name below (sv_perf_syms_free). */
#ifndef STACKVIEW_FORMATS_PERF_SYM_INT_H
#define STACKVIEW_FORMATS_PERF_SYM_INT_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/net.h"
#include "perf_int.h"
#include "sv/idmap.h"

typedef struct ksym {
	uint64_t addr;
	uint32_t name, module; /* offsets into knames; module 0 = the kernel itself */
	char type;
	uint32_t order;
} ksym;

typedef struct jit_sym {
	uint64_t start, end;
	uint32_t name;
} jit_sym;

typedef struct jit_map {
	int pid;
	char *module; /* "perf-PID.map" */
	jit_sym *syms;
	size_t nsyms;
	char *names;
} jit_map;

struct sv_perf_syms {
	sv_perf_sym_opts opts;
	struct debuginfod_client *dbgd; /* made when first needed */
	sv_dbgd_watch dbgd_watch;       /* the current request's deadline; why the last stopped early */
	struct sv_net own_net;          /* when the caller gives none */
	size_t dbgd_found, dbgd_asked;
	char *debuginfo_path; /* for libdwfl's standard find_debuginfo */
	char *path_slot;
	Dwfl_Callbacks cb;

	sv_perf_dso **dsos;
	size_t ndsos, dso_cap, dso_next_cap;
	sv_idmap dso_idx; /* hash of path -> index+1 chain head (collisions checked by compare) */
	uint32_t *dso_next; /* next index+1 in the same hash chain */

	ksym *ksyms;
	size_t nksyms;
	sv_perf_keys kstarts; /* their addresses, searched (empty: search ksyms) */
	char *knames;
	size_t knames_len;

	jit_map *jits;
	size_t njits, jit_cap;
};

/* A symbol read from a table, before aliases at one address are resolved. */
typedef struct cand {
	uint64_t addr, size;
	const char *name;
	int bind;
	uint32_t order;
} cand;

/* perf's choice between two symbols at one address (sym.c): true when b replaces a. */
bool sv_perf_sym_better(const cand *a, const cand *b);
/* Append n bytes of s and a NUL to the name buffer *buf (*len used of *cap); *out = offset. */
int sv_perf_names_add(char **buf, size_t *len, size_t *cap, const char *s, size_t n, uint32_t *out);

#endif
