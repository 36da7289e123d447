/* SPDX-License-Identifier: MIT */
/* Visible rows: a tree view plus an expansion state, flattened into the list of rows a
 * screen or a printer shows (design.md "Views and row models"). The expansion state lives
 * with the caller (the TUI keeps one per tab), never inside the model.
 *
 * Ownership: sv_expansion_new returns a set the caller frees with sv_expansion_free. An
 * sv_rows list is caller storage; sv_rows_dispose frees its array. Rows hold ids into the
 * view or aggregate tree they came from, which must outlive them. */
#ifndef STACKVIEW_ROWS_H
#define STACKVIEW_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackview/aggview.h"
#include "stackview/view.h"
#include "stackview/when.h"

/* What a list of rows shows; it says what a row's id means. */
typedef enum sv_rows_kind {
	SV_ROWS_CALLTREE,    /* id: a call tree node */
	SV_ROWS_AGGTREE,     /* id: a row of the Callers or Callees tree */
	SV_ROWS_BYNAME,      /* id: a ByName row number */
	SV_ROWS_CALLERCALLEE /* id: an index into the callers or callees (see role) */
} sv_rows_kind;

/* A Caller-Callee row's part; every other row is SV_ROLE_ROW. */
typedef enum sv_row_role { SV_ROLE_ROW, SV_ROLE_CALLER, SV_ROLE_FOCUS, SV_ROLE_CALLEE } sv_row_role;

typedef struct sv_row {
	uint32_t id;    /* meaning set by the list's kind */
	uint32_t depth; /* 0 for the top row */
	sv_name_id name;
	const sv_stats *st; /* borrowed from the rows (call tree rows: stbuf) or their tree */
	bool has_children, expanded;
	sv_row_role role;
	/* A comparison of several runs (stackview/compare.h) per row, or NULL. */
	const struct sv_cmpstat *cmp;
} sv_row;

typedef struct sv_rows {
	sv_row *row;
	size_t n, cap;
	sv_rows_kind kind;
	const sv_aggtree *agg;       /* the tree of SV_ROWS_AGGTREE rows */
	const sv_callercallee *cc;   /* the Caller-Callee of SV_ROWS_CALLERCALLEE rows */
	struct sv_cmpstat *cmpbuf;   /* what the rows' cmp point into (sv_compare_rows) */
	sv_stats *stbuf;             /* what call tree rows' st point into */
} sv_rows;

SV_API void sv_rows_dispose(sv_rows *r);

/* A set of expanded ids. */
typedef struct sv_expansion sv_expansion;
SV_API int sv_expansion_new(sv_expansion **out) SV_MUST_USE;
SV_API void sv_expansion_free(sv_expansion *e);
SV_API bool sv_expansion_has(const sv_expansion *e, uint32_t id);
SV_API int sv_expansion_set(sv_expansion *e, uint32_t id, bool expanded) SV_MUST_USE;
SV_API void sv_expansion_clear(sv_expansion *e);
/* Expand a call tree node and, while the node reached has exactly one child, that child
 * too (PerfView's auto-expand, spec §6.1). */
SV_API int sv_expansion_expand_node(sv_expansion *e, const sv_view *v, sv_node_id n) SV_MUST_USE;
/* Expand a node's whole subtree (the `*` key). */
SV_API int sv_expansion_expand_subtree(sv_expansion *e, const sv_view *v, sv_node_id n) SV_MUST_USE;
/* The same two for a Callers / Callees tree's rows. */
/* Open the hot path: from ROOT down through the heaviest child while it carries at least
 * min_share of ROOT's inclusive metric (a profile opens on where the time goes). */
SV_API int sv_expansion_expand_hot(sv_expansion *e, const sv_view *v, double min_share) SV_MUST_USE;
SV_API int sv_expansion_expand_aggrow(sv_expansion *e, const sv_aggtree *t, uint32_t row) SV_MUST_USE;
SV_API int sv_expansion_expand_aggsubtree(sv_expansion *e, const sv_aggtree *t, uint32_t row) SV_MUST_USE;

/* The visible rows of the call tree from ROOT. `e` NULL means "everything expanded";
 * max_depth >= 0 stops below that depth either way. O(visible rows). */
SV_API int sv_rows_calltree(sv_rows *out, const sv_view *v, const sv_expansion *e, int max_depth) SV_MUST_USE;
/* The same for a Callers / Callees tree from its focus row. */
SV_API int sv_rows_aggtree(sv_rows *out, const sv_aggtree *t, const sv_expansion *e, int max_depth) SV_MUST_USE;
/* The same from another top node / row (a subtree, e.g. to copy it). */
SV_API int sv_rows_calltree_at(sv_rows *out, const sv_view *v, sv_node_id top, const sv_expansion *e, int max_depth) SV_MUST_USE;
SV_API int sv_rows_aggtree_at(sv_rows *out, const sv_aggtree *t, uint32_t top, const sv_expansion *e, int max_depth) SV_MUST_USE;
/* ByName rows in display order; `top` = 0 for all. */
SV_API int sv_rows_byname(sv_rows *out, const sv_view *v, size_t top) SV_MUST_USE;
/* Caller-Callee as one grid, like PerfView's three panes stacked: the callers (depth 0),
 * the focus (depth 0), the callees (depth 1). */
SV_API int sv_rows_callercallee(sv_rows *out, const sv_callercallee *cc) SV_MUST_USE;
/* The When string of row i (spec §7), from whichever view or tree the rows came from;
 * computes the view's histograms on first use. 0 or SV_ENOMEM (out is then empty). */
/* Drop the rows whose share of `basis` is under pct percent, as perf report's
 * --percent-limit: tree rows by |Inc| (with their subtrees), ByName rows when both |Exc| and
 * |Inc| are under it; Caller-Callee's focus row always stays. Rows keep their order. */
SV_API void sv_rows_min_pct(sv_rows *r, double basis, double pct);

SV_API int sv_rows_when(char out[SV_WHEN_LEN + 1], sv_view *v, const sv_rows *r, size_t i) SV_MUST_USE;
/* Every row's When will be asked (a printout): what they need is summed in one pass (ByName
 * sums names in batches otherwise, for a screen's rows). 0 or SV_ENOMEM. */
SV_API int sv_rows_when_ahead(sv_view *v, const sv_rows *r) SV_MUST_USE;

#endif
