/* SPDX-License-Identifier: MIT */
/* Presets (spec/semantics.md §12): a named GroupPats with its Fold% and FoldPats, PerfView's
 * built-ins and the user's own. The text form is PerfView's: presets joined by "####", each
 * "Name=…$$$$GroupPat=…$$$$FoldPercentage=…$$$$FoldPat=…$$$$Comment=…" (the comment
 * XmlConvert.EncodeName-encoded). Pure string functions: reading and writing the file is the
 * caller's business.
 *
 * Ownership: an sv_presets owns its presets and their strings; sv_presets_dispose frees
 * them. Built-ins are static. */
#ifndef STACKVIEW_PRESET_H
#define STACKVIEW_PRESET_H

#include <stdbool.h>
#include <stddef.h>

#include "stackview/params.h"
#include "stackview/source.h"
#include "stackview/status.h"

typedef struct sv_preset {
	char *name, *group, *fold_pct, *fold, *comment;
} sv_preset;

typedef struct sv_presets {
	sv_preset *p;
	size_t n, cap;
} sv_presets;

/* PerfView's built-in GroupPats presets (name, patterns; Fold% and FoldPats empty). */
SV_API size_t sv_builtin_preset_count(void);
SV_API const char *sv_builtin_preset_name(size_t i);
SV_API const char *sv_builtin_preset_group(size_t i);
/* The patterns as a list shows them: "group system modules" is made per profile. */
SV_API const char *sv_builtin_preset_describe(size_t i);
/* Built-in i's GroupPats (without its "[name]" comment) for a profile: "group system
 * modules" keeps src's own modules by function (sv_preset_group_system); *out is malloc'ed. */
SV_API int sv_builtin_preset_for(char **out, size_t i, const sv_source *src) SV_MUST_USE;

/* Parse the text form (blanks around "####" ignored; records without a Name skipped). */
SV_API int sv_presets_parse(sv_presets *out, const char *text) SV_MUST_USE;
/* The text form, one preset per line ("####\n" between them); *out is malloc'ed. */
SV_API int sv_presets_format(char **out, const sv_presets *ps) SV_MUST_USE;
SV_API void sv_presets_dispose(sv_presets *ps);
/* Add or replace (by name, case-sensitive) a preset; strings are copied. */
SV_API int sv_presets_put(sv_presets *ps, const char *name, const char *group, const char *fold_pct, const char *fold,
		   const char *comment) SV_MUST_USE;
/* Remove the preset at index i. */
SV_API void sv_presets_remove(sv_presets *ps, size_t i);
/* The index of a preset by name, or -1. */
SV_API long sv_presets_find(const sv_presets *ps, const char *name);

/* Apply: GroupPats = "[name] group", Fold% and FoldPats replaced (PerfView's Preset menu). */
SV_API int sv_preset_apply(sv_params *p, const char *name, const char *group, const char *fold_pct,
		    const char *fold) SV_MUST_USE;
/* What "Save As Preset" proposes: the `[...]` comment that starts GroupPats (or ""), and the
 * patterns without it. Both malloc'ed. */
/* The opening GroupPats for a profile of whole programs: system code grouped by module entry,
 * the profiled program's own modules (sv_source_user_module) kept by function —
 * "[group system modules] ^mt!->;{%}!=>module $1". Without known user modules: PerfView's
 * "[group module entries] {%}!=>module $1". Modules whose names the pattern language cannot
 * spell (%, *, ^, |, {, }, ;) are left to the grouping. *out is malloc'ed. */
SV_API int sv_preset_group_system(char **out, const sv_source *src) SV_MUST_USE;
/* PerfView's Just My App from the same modules: "[Just My App] ^prog!->;...;!=>OTHER" (every
 * other frame grouped as OTHER where it is entered); "[group module entries] ..." when the
 * source names none. */
SV_API int sv_preset_just_my_app(char **out, const sv_source *src) SV_MUST_USE;

SV_API int sv_preset_split_group(char **name, char **pats, const char *group) SV_MUST_USE;

#endif
