/* SPDX-License-Identifier: MIT */
/* Filter parameters: the texts of PerfView's boxes GroupPats, FoldPats, Fold%, IncPats,
 * ExcPats, Start and End (spec/semantics.md §0).
 *
 * Ownership: an sv_params owns its strings (heap, NUL-terminated, never NULL after
 * sv_params_init). Setters copy their argument. sv_params_dispose frees them. */
#ifndef STACKVIEW_PARAMS_H
#define STACKVIEW_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "stackview/status.h"

typedef enum sv_box {
	SV_BOX_GROUP,
	SV_BOX_FOLD,
	SV_BOX_FOLD_PCT,
	SV_BOX_INC,
	SV_BOX_EXC,
	SV_BOX_START,
	SV_BOX_END,
	SV_BOX_COUNT
} sv_box;

typedef struct sv_params {
	char *box[SV_BOX_COUNT];
} sv_params;

/* Box names as the user sees them: "GroupPats", "FoldPats", "Fold%", ... */
SV_API const char *sv_box_name(sv_box box);

/* All boxes empty. 0 or SV_ENOMEM (then the params are still safe to dispose). */
SV_API int sv_params_init(sv_params *p) SV_MUST_USE;
SV_API void sv_params_dispose(sv_params *p);
/* Deep copy into uninitialised storage. */
SV_API int sv_params_copy(sv_params *out, const sv_params *src) SV_MUST_USE;
/* Replace one box's text (copied). */
SV_API int sv_params_set(sv_params *p, sv_box box, const char *text) SV_MUST_USE;
static inline const char *sv_params_get(const sv_params *p, sv_box box)
{
	return p->box[box];
}
SV_API bool sv_params_equal(const sv_params *a, const sv_params *b);

/* Parse a number the way the Start/End/Fold% boxes do: blanks trimmed, `,` accepted as a
 * thousands separator, "Infinity" accepted. Returns false when the text is not one number. */
SV_API bool sv_parse_number(const char *text, double *out);

/* Format like .NET's n0/n1/n3: `decimals` digits, thousands separators ("1,234.5"). */
SV_API void sv_format_number(char *buf, size_t size, double value, int decimals);

#endif
