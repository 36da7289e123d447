/* SPDX-License-Identifier: MIT */
/* Bump allocator (see arena_int.h). */
#include "arena_int.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK (256u * 1024u)

struct arena_chunk {
	arena_chunk *next;
	size_t size;
	max_align_t data[];
};

void sv_arena_init(arena *a)
{
	a->head = NULL;
	a->used = 0;
	a->total = 0;
}

void sv_arena_dispose(arena *a)
{
	if (!a)
		return;
	arena_chunk *c = a->head;
	while (c) {
		arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	sv_arena_init(a);
}

void *sv_arena_alloc(arena *a, size_t size)
{
	size = (size + 7) & ~(size_t)7;
	if (size == 0)
		size = 8;
#ifdef SV_ARENA_DEBUG
	arena_chunk *d = malloc(sizeof(*d) + size);
	if (!d)
		return NULL;
	d->size = size;
	/* Insert behind the head so the bump chunk stays first. */
	if (a->head) {
		d->next = a->head->next;
		a->head->next = d;
	} else {
		d->next = NULL;
		a->head = d;
		a->used = size;
	}
	a->total += size;
	return d->data;
#else
	if (!a->head || a->used + size > a->head->size) {
		size_t want = size > ARENA_CHUNK / 4 ? size : ARENA_CHUNK;
		arena_chunk *c = malloc(sizeof(*c) + want);
		if (!c)
			return NULL;
		c->size = want;
		if (want == size && a->head) {
			/* Oversized block: keep the current bump chunk in front. */
			c->next = a->head->next;
			a->head->next = c;
			a->total += size;
			return c->data;
		}
		c->next = a->head;
		a->head = c;
		a->used = 0;
	}
	void *p = (char *)a->head->data + a->used;
	a->used += size;
	a->total += size;
	return p;
#endif
}

char *sv_arena_strndup(arena *a, const char *s, size_t len)
{
	char *p = sv_arena_alloc(a, len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}
