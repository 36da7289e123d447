/* SPDX-License-Identifier: MIT */
/* When (spec §7): the 32-character time histogram of a row. Bucket bounds and the scale
 * come from the view; the strings of call-tree nodes and ByName rows are computed on first
 * use. Callers, Callees and Caller-Callee rows carry theirs (stackview/aggview.h).
 *
 * Ownership: histogram pointers are borrowed from the view and live as long as it does;
 * strings are written into caller storage. */
#ifndef STACKVIEW_WHEN_H
#define STACKVIEW_WHEN_H

#include "stackview/status.h"
#include "stackview/view.h"

#define SV_WHEN_LEN 32

/* When string of a node (32 chars + NUL). Computes histograms on first use: 0 or SV_ENOMEM. */
SV_API int sv_view_node_when(char out[SV_WHEN_LEN + 1], sv_view *v, sv_node_id n) SV_MUST_USE;
SV_API int sv_view_byname_when(char out[SV_WHEN_LEN + 1], sv_view *v, uint32_t row) SV_MUST_USE;
/* The 32 bucket values behind a ByName row's When string into out: 0, SV_EINVAL (no such
 * row) or SV_ENOMEM. */
SV_API int sv_view_byname_hist(double out[SV_WHEN_LEN], sv_view *v, uint32_t row) SV_MUST_USE;
/* The character for a When bucket value v at scale (§7.3). */
SV_API char sv_when_char(double value, double scale);
/* Encode 32 bucket values (§7). */
SV_API void sv_when_encode(char out[SV_WHEN_LEN + 1], const double *buckets, double scale);
/* dst += w * src over 32 buckets, in the float32 arithmetic every When sum uses (§7.6), so
 * that equal data gives equal characters in every view. */
SV_API void sv_hist_add(double *dst, const double *src, double w);
/* Histogram scale of this view (§7.2); 0 before histograms exist. Computes them. */
SV_API int sv_view_when_scale(double *out, sv_view *v) SV_MUST_USE;
/* Bucket bounds: Start' and bucket duration D (§7.1). */
SV_API void sv_view_when_bounds(const sv_view *v, double *start, double *bucket);
/* Raw histogram access for derived views: the inclusive histogram of a node, copied into 32
 * doubles (all 0 before sv_view_when_scale succeeded); the exclusive one, borrowed, after
 * sv_view_when_exc succeeded (built only when asked for: a call tree's or ByName's When
 * needs one table, not two): only the buckets the node's own samples can reach, *first the
 * first of them and their count returned (0: none), float-rounded sums (§7.6). */
SV_API void sv_view_node_inc_hist(double out[SV_WHEN_LEN], const sv_view *v, sv_node_id n);
SV_API int sv_view_when_exc(sv_view *v) SV_MUST_USE;
SV_API unsigned sv_view_node_exc_row(const sv_view *v, sv_node_id n, unsigned *first, const float **buckets);

#endif
