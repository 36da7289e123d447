/* SPDX-License-Identifier: MIT */
/* Box text as PerfView reads it (semantics §3.1): an optional leading `[comment]`, then
 * elements separated by `;`, each trimmed of blanks. The one tokenizer behind IncPats,
 * ExcPats, FoldPats, GroupPats and the box edits. Internal (not installed).
 *
 * Ownership: none; element spans point into the caller's text. */
#ifndef SV_INTERNAL_BOXTEXT_H
#define SV_INTERNAL_BOXTEXT_H

#include <stdbool.h>
#include <stddef.h>

static inline bool sv_box_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Length of a leading `[comment]` plus the blanks around it, or 0 when there is none. */
size_t sv_box_comment_len(const char *s);

/* The next element of box text: true with [*a, *z) the element trimmed (possibly empty, as
 * in "a;;b"), *s moved past its `;`; false when *s is at the end. */
bool sv_box_next(const char **s, const char **a, const char **z);
/* The same without trimming, for edits that must keep an element byte for byte. */
bool sv_box_next_raw(const char **s, const char **a, const char **z);

#endif
