/* SPDX-License-Identifier: MIT */
/* Internals of stackview/source.h shared by its files: source.c (interning, samples,
 * getters), source_sink.c (the builder interface importers push into), source_sums.c (each
 * stack's samples summed) and source_meta.c (events, notes, renames, processes).
 * Ownership: the source owns everything here; sv_source_free frees it. */
#ifndef STACKVIEW_LIB_SOURCE_INT_H
#define STACKVIEW_LIB_SOURCE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "stackview/source.h"
#include "strtab_int.h"
#include "sv/idmap.h"

typedef struct st_link {
	sv_stack_id kid, last, next;
	uint32_t mask;
} st_link;
#define LINK_INDEXED (UINT32_MAX - 1) /* st_link.last: the callees are in st_index (never an id:
				       * a source holds fewer than UINT32_MAX - 1 stacks) */

struct sv_source {
	char *format;
	strtab frames;          /* full names; frame id = string id */
	uint32_t *short_off;    /* per frame: offset of the short name inside the full name */
	uint32_t short_cap;

	sv_stack_id *st_caller; /* per stack */
	sv_frame_id *st_frame;
	/* per stack as a caller, while the source is read: its first callee (a stack made with
	 * it as caller), the latest of the others (linked back through their `next`) and a bit
	 * (frame & 31) for each of the others' frames. A frame whose bit is not there makes a new
	 * callee without st_index (most do: a heap snapshot's objects are new paths); a caller
	 * whose bit is met again has its callees put in st_index, `last` LINK_INDEXED. */
	st_link *st_link;
	sv_stack_id *st_kid;    /* per stack once trimmed (st_link is then let go): its first
				 * callee, or NONE */
	uint32_t nstacks, st_cap;
	sv_idmap st_index;      /* (caller+1) << 32 | frame -> stack id, for the stacks without a
				 * caller and the callees of LINK_INDEXED callers but their first; once
				 * trimmed and made again, every stack but a caller's first */
	bool trimmed;           /* st_index let go (sv_source_trim) */
	bool kid_only;          /* st_kid, not st_link (sv_source_trim) */

	sv_stack_id *s_stack;   /* per sample */
	double *s_time;
	/* metric and count: per distinct (metric, count) pair (ncodes of them, code_cap room),
	 * s_code[i] being sample i's pair, until `wide`: then per sample */
	uint16_t *s_code;
	bool wide; /* s_code is given up */
	double *s_metric;
	float *s_count;
	uint32_t ncodes, code_cap;
	sv_idmap code_index; /* hash of a pair's bits -> its code */
	uint64_t last_key;   /* the last pair coded: most samples repeat it */
	uint16_t last_code;
	size_t nsamples, s_cap;
	/* aggregating: one sample per stack; agg_slot[stack] = its sample index + 1 */
	bool aggregate;
	uint32_t *agg_slot, agg_cap;
	uint32_t agg_none; /* sample index + 1 of the stackless one */
	sv_stack_sums *sums; /* sv_source_sum_stacks: per stack, then the stackless samples */
	uint32_t sums_nstacks; /* the stacks there were then (a stack made since: no sums) */
	double sums_first, sums_last, sums_last_end; /* over every sum: the earliest first, the latest last and last_end */

	sv_scaling scaling;
	bool limit_by_end;
	double max_time, max_end, min_time;
	char refusal[160]; /* why the last sample was refused, "" when none was */
	double total_metric, total_count;
	double abs_metric; /* sum of |metric|: every view sum stays below it */
	/* sv_source_set_metric_quantum: 1 / the quantum while every metric is a whole number of
	 * it (0: none), and the sums of those whole numbers and of their magnitudes */
	double qscale, qsum, qabs;

	sv_params *saved;
	char *notes;
	bool negative; /* some sample's metric is below 0 */
	char unit[32]; /* the metric's unit when the input named one ("" = derive it) */
	bool intervals; /* each sample is one interval of a thread's time (thread time) */
	sv_event *events;
	size_t nevents, event_cap;
	sv_note *inotes;
	size_t ninotes, inote_cap;
	char *user_mods[SV_MAX_USER_MODULES];
	size_t nuser_mods;
	/* code locations (source_loc.c): files, locations, code paths, and per sample its path */
	strtab code_files;
	uint32_t *code_syms; /* per code file (code_syms_cap of them): its symbol file's id in src_files + 1, 0: none */
	size_t code_syms_cap;
	sv_location *locs;
	uint32_t nlocs;
	size_t loc_cap;
	sv_idmap loc_index; /* hash of (frame, file, addr) -> location, checked against locs */
	uint32_t *cp_caller, *cp_loc; /* per code path */
	uint32_t ncps;
	bool cp_callers; /* some code path has a caller */
	size_t cp_cap, cp_loc_cap;
	sv_idmap cp_index; /* (caller + 1) << 32 | loc -> code path */
	bool loc_trimmed;  /* loc_index and cp_index let go (sv_source_trim) */
	uint32_t *s_loc;    /* per sample (s_cap of them) once a sample has one: its code path */
	strtab src_files;   /* source files the input named for its locations' lines */
	struct sv_loc_line {
		uint32_t file, line; /* line 0: none */
	} *loc_lines;       /* per location, the first nloc_lines of them, once one has a line */
	size_t nloc_lines, loc_lines_cap;
	/* the frames' short names interned once (sv_source_sum_stacks), for views to share: the
	 * first nshort_id frames' ids in `shorts` */
	strtab shorts;
	uint32_t *short_id, nshort_id;
	uint32_t *short_rank; /* per name in `shorts`: its place in strcmp order */
	uint32_t *short_entry_rank; /* per name: the place of name + ">>" in strcmp order */
	bool shorts_entry_like; /* a short name has " <<" in it (as entry groups' names do) */
};

/* The short names' table (NULL until sv_source_sum_stacks), each frame's id in it, each
 * name's place in strcmp order and the place of the name + ">>" (an entry group's display
 * name "G <<name>>" after its "G <<"); entry_like: a name in it has " <<" (else no entry
 * group's display name is in it). Views start their names from it instead of interning
 * every frame's again. */
typedef struct sv_short_names {
	const strtab *t;
	const uint32_t *ids;
	uint32_t nids;
	const uint32_t *rank, *entry_rank;
	bool entry_like;
} sv_short_names;
void sv_source_short_names(const sv_source *src, sv_short_names *out);

/* sv_source_trim's part in source_loc.c: the locations' and code paths' indexes let go
 * (made again by the next intern there). */
void sv_source_loc_trim(sv_source *src);

/* Room for the per-sample locations when the sample arrays grow to `ncap`. */
int sv_source_loc_grow(sv_source *src, size_t ncap);
void sv_source_loc_free(sv_source *src);

uint32_t sv_source_short_offset(const char *name, size_t len);

#endif
