/* SPDX-License-Identifier: MIT */
/* Views derived from a call tree around a focus name: Callers and Callees (aggregate trees
 * with the innermost-instance rule, spec §6.4 with D5) and Caller-Callee (1/k split, §6.5).
 *
 * Ownership: each _new returns an object the caller frees with the matching _free. It
 * borrows nothing after construction except name ids, which are the view's
 * (sv_view_name). Row 0 of an aggregate tree is the focus. */
#ifndef STACKVIEW_AGGVIEW_H
#define STACKVIEW_AGGVIEW_H

#include "stackview/view.h"
#include "stackview/when.h"

typedef struct sv_aggrow {
	sv_name_id name;
	sv_stats st;
	double hist[SV_WHEN_LEN];
	uint32_t parent;           /* UINT32_MAX for the focus row */
	uint32_t child_start, child_count;
} sv_aggrow;

typedef struct sv_aggtree sv_aggtree;

typedef enum sv_agg_kind { SV_AGG_CALLERS, SV_AGG_CALLEES } sv_agg_kind;

/* Callers or Callees of `focus` (a name id of the view). SV_ENOTFOUND when the name has no
 * ByName row. Computes the view's histograms. O(nodes + instances × depth). */
SV_API int sv_aggtree_new(sv_aggtree **out, sv_view *v, sv_agg_kind kind, sv_name_id focus) SV_MUST_USE;
SV_API void sv_aggtree_free(sv_aggtree *t);
SV_API uint32_t sv_aggtree_count(const sv_aggtree *t);
SV_API const sv_aggrow *sv_aggtree_row(const sv_aggtree *t, uint32_t row);
/* Children rows of a row, sorted by |inclusive| descending then name. */
SV_API uint32_t sv_aggtree_children(const sv_aggtree *t, uint32_t row, const uint32_t **out);
/* Histogram scale to encode the rows' When strings with sv_when_encode. */
SV_API double sv_aggtree_scale(const sv_aggtree *t);
SV_API sv_agg_kind sv_aggtree_kind(const sv_aggtree *t);

typedef struct sv_callercallee {
	sv_aggrow focus;
	sv_aggrow *callers, *callees; /* sorted by |inclusive| descending, then name */
	uint32_t ncallers, ncallees;
	double scale;
} sv_callercallee;

/* Caller-Callee of the display name `focus`; falls back to ROOT when the name is absent or
 * has zero inclusive (§6.5). */
SV_API int sv_callercallee_new(sv_callercallee **out, sv_view *v, const char *focus) SV_MUST_USE;
SV_API void sv_callercallee_free(sv_callercallee *cc);

#endif
