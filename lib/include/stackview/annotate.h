/* SPDX-License-Identifier: MIT */
/* The cost of a function's code, address by address (annotate, Goto Source; issue 36): what a
 * view keeps (its filters and time range) of the samples whose leaf executed in the function,
 * for sources whose importer gave each sample's code location (sv_source_add_sample_at).
 * Ownership: sv_code_costs_new's list is the caller's, freed with sv_code_costs_free. */
#ifndef STACKVIEW_ANNOTATE_H
#define STACKVIEW_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackview/source.h"
#include "stackview/view.h"

typedef struct sv_addr_cost {
	uint64_t addr;
	double metric, count;
} sv_addr_cost;

/* One function in one code file: its frame, the file, the view's totals of its samples and
 * each address that has some, in address order. */
typedef struct sv_code_costs {
	sv_frame_id frame;
	uint32_t file;
	double metric, count;
	sv_addr_cost *at;
	size_t n;
} sv_code_costs;

/* The functions whose frame is `name` — the frame's full name, its short name, or the part
 * after its module's `!` (`cc1!foo`, `foo`) — with the cost the view gives their addresses,
 * heaviest first (*n = 0 when none has a sample in the view, or the source has no locations).
 * 0 or SV_ENOMEM. */
SV_API int sv_code_costs_new(sv_code_costs **out, size_t *n, const sv_view *v, const char *name) SV_MUST_USE;
/* fn (one of sv_code_costs_new's) again with every address of its file in [start, end) that
 * the view's samples executed at, whatever frame names them: the function's whole code as
 * perf annotate counts it, code inlined into it too (pprof names that by the inlined
 * function). 0 or SV_ENOMEM (fn as it was). */
SV_API int sv_code_costs_in(sv_code_costs *fn, const sv_view *v, uint64_t start, uint64_t end) SV_MUST_USE;
SV_API void sv_code_costs_free(sv_code_costs *c, size_t n);
/* Goto Source's numbers: each location has a key (`loc_key`, sv_source_location_count
 * entries: its source line as the caller numbers lines, or UINT32_MAX for none). Per key
 * (out: nkeys entries, filled here), what the view keeps of the samples whose leaf location
 * has it (exclusive) and of those whose code path passes a location that has it (inclusive,
 * once a sample however often its path passes the key). A location can have further keys
 * counted inclusively only — the lines its code was inlined at: location l's are
 * extra[extra_off[l], extra_off[l + 1]) (extra_off NULL: none). Inclusive figures need the
 * code paths of every caller (sv_import_opts.code_paths); otherwise only leaves count. 0 or
 * SV_ENOMEM. */
typedef struct sv_key_cost {
	double exc, inc, exc_ct, inc_ct;
} sv_key_cost;
SV_API int sv_view_key_costs(const sv_view *v, const uint32_t *loc_key, const uint32_t *extra_off, const uint32_t *extra,
			     uint32_t nkeys, sv_key_cost *out) SV_MUST_USE;
/* Whether frame f is `name` as sv_code_costs_new reads it. */
SV_API bool sv_frame_is(const sv_source *src, sv_frame_id f, const char *name);

#endif
