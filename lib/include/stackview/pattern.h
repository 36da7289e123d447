/* SPDX-License-Identifier: MIT */
/* PerfView's simplified patterns compiled to pcre2 (spec/semantics.md §2 with decision D1),
 * pattern lists (FoldPats, IncPats, ExcPats: §2.3) and GroupPats (§3.1–3.2).
 *
 * Ownership: sv_pattern_new / sv_patlist_new / sv_grouppats_new return objects the caller
 * frees with the matching _free (NULL accepted). Matching needs no allocation from the
 * caller but is not thread-safe on one object (it reuses one match-data block). */
#ifndef STACKVIEW_PATTERN_H
#define STACKVIEW_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

#include "stackview/status.h"

typedef struct sv_pattern sv_pattern;

/* Translate a simplified pattern into the regular expression text it stands for:
 * `%` -> `[-+.\w?]*` (D1), `*` -> `.*`, `{`/`}` -> groups, `^` and `|` kept, every other
 * character literal; a leading `@` passes the rest through as a raw regex. The result is
 * malloc'ed. */
SV_API int sv_pattern_translate(char **out, const char *pat, size_t len) SV_MUST_USE;

/* Compile (case-insensitive, unanchored, UTF-8 tolerant of invalid bytes). An invalid
 * pattern is SV_EINVAL with pcre2's message in err. */
SV_API int sv_pattern_new(sv_pattern **out, const char *pat, size_t len, sv_error *err) SV_MUST_USE;
SV_API void sv_pattern_free(sv_pattern *p);
/* True when the pattern occurs in text. */
SV_API bool sv_pattern_match(sv_pattern *p, const char *text, size_t len);
/* A match that needs more backtracking than any sane pattern (catastrophic patterns, e.g.
 * saved in an untrusted file) stops and counts as no match; these return the pattern's text
 * once that has happened (the first such entry of a list), else NULL. */
SV_API const char *sv_pattern_limit_hit(const sv_pattern *p);
/* Replace the part of text that the pattern matches first with repl ($1..$9 and $& expanded
 * as in GroupPats): 1 with *out the malloc'ed result, 0 when it does not match (*out NULL),
 * or SV_ENOMEM. */
SV_API int sv_pattern_replace(char **out, sv_pattern *p, const char *text, size_t len, const char *repl) SV_MUST_USE;

/* `;`-separated list: entries trimmed, empty ones dropped, no [comment] stripping. */
typedef struct sv_patlist sv_patlist;
/* An invalid entry is SV_EINVAL naming `box` and the entry. */
SV_API int sv_patlist_new(sv_patlist **out, const char *text, const char *box, sv_error *err) SV_MUST_USE;
SV_API void sv_patlist_free(sv_patlist *l);
SV_API size_t sv_patlist_count(const sv_patlist *l);
/* Bit i set when entry i matches (entries past 64 are not reported). */
SV_API unsigned long long sv_patlist_match_bits(sv_patlist *l, const char *text, size_t len);
SV_API bool sv_patlist_match_any(sv_patlist *l, const char *text, size_t len);
SV_API const char *sv_patlist_limit_hit(const sv_patlist *l);

/* GroupPats. */
typedef enum sv_group_kind {
	SV_GROUP_NONE,  /* ungrouped */
	SV_GROUP_PLAIN, /* `->` */
	SV_GROUP_ENTRY, /* `=>` */
} sv_group_kind;

typedef struct sv_grouppats sv_grouppats;
SV_API int sv_grouppats_new(sv_grouppats **out, const char *text, sv_error *err) SV_MUST_USE;
SV_API void sv_grouppats_free(sv_grouppats *g);
SV_API size_t sv_grouppats_count(const sv_grouppats *g);
SV_API const char *sv_grouppats_limit_hit(const sv_grouppats *g);
/* Evaluate the entries for one frame's full name (§3.2). On SV_GROUP_PLAIN/ENTRY, *out is a
 * malloc'ed group name; on SV_GROUP_NONE it is NULL. Returns the kind, or a negative
 * sv_status (SV_ENOMEM). */
SV_API int sv_grouppats_eval(char **out, sv_grouppats *g, const char *name, size_t len);
/* The same without a copy: *out (outlen bytes, NUL-terminated) is g's, valid until g's next
 * evaluation or sv_grouppats_free; NULL on SV_GROUP_NONE. For a name per frame of a big
 * profile (a view's build), where a copy each was a malloc and a free per frame. */
SV_API int sv_grouppats_eval_ref(sv_grouppats *g, const char *name, size_t len, const char **out, size_t *outlen);

#endif
