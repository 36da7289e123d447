/* SPDX-License-Identifier: MIT */
/* Flame graph layout of a view's call tree (formats.md "Flame graph SVG"): one box per tree
 * node, width proportional to |inclusive| (for a diff: to the test side's inclusive, the
 * positive samples), children ordered by name as FlameGraph orders them so that two graphs
 * of similar data look alike. The SVG writer and the TUI's Flame tab draw these boxes.
 *
 * Ownership: sv_flame_new returns a layout the caller frees with sv_flame_free; name ids
 * are the view's. */
#ifndef STACKVIEW_FLAME_H
#define STACKVIEW_FLAME_H

#include "stackview/view.h"

typedef struct sv_flame_box {
	sv_node_id node;
	sv_name_id name;
	uint32_t depth;   /* 0 = ROOT */
	double x, w;      /* left edge and width as fractions of the root's width */
	double inc;       /* inclusive metric (net, for a diff) */
	double pos, neg;  /* inclusive of the positive and negative samples (diffs) */
} sv_flame_box;

typedef struct sv_flame {
	sv_flame_box *box; /* pre-order: a box's children follow it */
	size_t n;
	uint32_t max_depth;
	double total;      /* the width basis */
	bool diff;         /* the view has negative samples */
} sv_flame;

/* The layout of the subtree at `top` (SV_NODE_ROOT for the whole tree; a zoomed box
 * otherwise), widths relative to it. Boxes narrower than min_width (a fraction, e.g.
 * 0.001) are left out with their subtrees. */
SV_API int sv_flame_new(sv_flame **out, const sv_view *v, sv_node_id top, double min_width) SV_MUST_USE;
SV_API void sv_flame_free(sv_flame *f);

#endif
