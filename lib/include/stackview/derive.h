/* SPDX-License-Identifier: MIT */
/* New sources derived from views: Drill Into, Flatten, Diff (spec §8, §9.1 with D10), and
 * the Overweight report (§9.2).
 *
 * Ownership: sources are returned through *out and owned by the caller (sv_source_free);
 * parameter sets are written into caller storage that the caller disposes. The input views
 * and sources are only read. */
#ifndef STACKVIEW_DERIVE_H
#define STACKVIEW_DERIVE_H

#include <stdbool.h>

#include "stackview/source.h"
#include "stackview/view.h"

typedef enum sv_drill_what {
	SV_DRILL_NODE,   /* a call tree node */
	SV_DRILL_BYNAME, /* every instance of a name (not descending into nested ones) */
} sv_drill_what;

/* Drill Into: a source of exactly the original samples under the node / name (inclusive) or
 * on it (exclusive), and the parameters for its window: the current ones with IncPats and
 * ExcPats cleared (§8). `id` is a node id or a name id. */
SV_API int sv_drill_into(sv_source **out, sv_params *out_params, const sv_view *v, sv_drill_what what, uint32_t id,
		  bool inclusive) SV_MUST_USE;

/* Flatten: one-frame stacks (each kept sample's display leaf), all pattern boxes cleared. */
SV_API int sv_flatten(sv_source **out, sv_params *out_params, const sv_view *v) SV_MUST_USE;

/* Diff: the samples that survive `test` as they are, then those that survive `base` with
 * metric and count negated; names exactly as in the inputs (D10). Fold% of the input views
 * is ignored (only which samples survive matters). */
SV_API int sv_diff(sv_source **out, const sv_view *test, const sv_view *base) SV_MUST_USE;

/* The samples that survive a view (time range, IncPats, ExcPats; time-metric samples
 * prorated) as a new source: with their original stacks, or with `grouped` the stacks as
 * the view shows them (group names, folded frames gone, Fold% applied), so that importing
 * the result with empty boxes reproduces the view's ByName. Scaling policy, notes, the
 * events, the metric's unit and (when not grouped) the view's parameters go along. */
SV_API int sv_view_export_source(sv_source **out, const sv_view *v, bool grouped) SV_MUST_USE;

/* The GroupPats a diff window starts with when its inputs have process frames (§9.1). */
#define SV_DIFF_GROUPPATS "[Ignore PID/TID]          ^Process% {%}->$1;^Thread->Thread;"

typedef struct sv_overweight_row {
	const char *name; /* borrowed from the test view */
	double base, test, delta, responsibility_pct, overweight_pct;
	int interest;
} sv_overweight_row;

typedef struct sv_overweight {
	double base, test, delta, delta_pct;
	sv_overweight_row *rows; /* sorted and cut as §9.2 says */
	size_t nrows;
} sv_overweight;

/* Overweight of test against base (both views already filtered). Free with
 * sv_overweight_dispose. */
SV_API int sv_overweight_compute(sv_overweight *out, const sv_view *test, const sv_view *base) SV_MUST_USE;
SV_API void sv_overweight_dispose(sv_overweight *ow);

#endif
