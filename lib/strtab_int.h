/* SPDX-License-Identifier: MIT */
/* String interner: text -> dense uint32 id, texts kept in an arena.
 * Ownership: the table owns its arena and arrays; sv_strtab_dispose frees all. Pointers returned
 * by sv_strtab_str stay valid until dispose (arena text never moves). */
#ifndef STACKVIEW_STRTAB_INT_H
#define STACKVIEW_STRTAB_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena_int.h"

typedef struct sv_strtab {
	arena text;
	const char **strs;
	uint32_t *lens;
	/* open addressing: the text's hash's high half << 32 | id + 1 (0: empty); that half
	 * places the text (its low bits) and tells most other texts from it without reading them */
	uint64_t *slots;
	uint32_t count, cap, slot_cap;
	bool dups; /* a rename left two ids with one text (the lowest id is the one found) */
} strtab;

void sv_strtab_init(strtab *t);
void sv_strtab_dispose(strtab *t);
/* Get-or-insert; 0 or SV_ENOMEM / SV_ELIMIT. */
int sv_strtab_intern(strtab *t, uint32_t *out, const char *s, size_t len);
/* The same, for a text whose sv_hash_bytes is h (sv_strtab_prefetch asked for its slot). */
int sv_strtab_intern_hashed(strtab *t, uint32_t *out, const char *s, size_t len, uint64_t h);
/* Give existing ids new texts, then rebuild the index once. 0 or SV_ENOMEM. A new text
 * equal to another id's text leaves both ids with that text (lookups find one of them). */
int sv_strtab_rename(strtab *t, const uint32_t *ids, const char *const *texts, const size_t *lens, size_t n);
/* dst (uninitialised) becomes a copy of src: the same ids for the same texts. 0 or SV_ENOMEM
 * (dst then empty). */
int sv_strtab_copy(strtab *dst, const strtab *src);
/* Id of text or UINT32_MAX. */
uint32_t sv_strtab_find(const strtab *t, const char *s, size_t len);

/* Ask ahead for the slot a text of hash h (sv_hash_bytes) is looked up in first: texts
 * interned a batch at a time each cost a random read of the index, which this overlaps. */
static inline void sv_strtab_prefetch(const strtab *t, uint64_t h)
{
	if (t->slot_cap)
		__builtin_prefetch(&t->slots[(uint32_t)(h >> 32) & (t->slot_cap - 1)]);
}

static inline const char *sv_strtab_str(const strtab *t, uint32_t id)
{
	return t->strs[id];
}

static inline uint32_t sv_strtab_len(const strtab *t, uint32_t id)
{
	return t->lens[id];
}

#endif
