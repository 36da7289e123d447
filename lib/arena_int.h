/* SPDX-License-Identifier: MIT */
/* Bump allocator for interned text: one arena per source or view, freed as a whole.
 * Built with SV_ARENA_DEBUG every allocation is a separate malloc so ASan sees each one. */
#ifndef STACKVIEW_ARENA_INT_H
#define STACKVIEW_ARENA_INT_H

#include <stddef.h>

typedef struct arena_chunk arena_chunk;

typedef struct sv_arena {
	arena_chunk *head;
	size_t used;  /* bytes used in head */
	size_t total; /* bytes handed out, for memory reports */
} arena;

void sv_arena_init(arena *a);
void sv_arena_dispose(arena *a);
/* Returns NULL when out of memory. Alignment 8. */
void *sv_arena_alloc(arena *a, size_t size);
/* Copies len bytes and a terminating NUL. */
char *sv_arena_strndup(arena *a, const char *s, size_t len);

#endif
