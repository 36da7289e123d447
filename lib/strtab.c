/* SPDX-License-Identifier: MIT */
/* String interner (see strtab_int.h). */
#include "strtab_int.h"

#include <stdlib.h>
#include <string.h>

#include "sv/idmap.h"
#include "stackview/status.h"

void sv_strtab_init(strtab *t)
{
	memset(t, 0, sizeof(*t));
	sv_arena_init(&t->text);
}

void sv_strtab_dispose(strtab *t)
{
	if (!t)
		return;
	sv_arena_dispose(&t->text);
	free(t->strs);
	free(t->lens);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

int sv_strtab_copy(strtab *dst, const strtab *src)
{
	sv_strtab_init(dst);
	if (!src->cap)
		return 0;
	dst->strs = malloc(src->cap * sizeof(*dst->strs));
	dst->lens = malloc(src->cap * sizeof(*dst->lens));
	dst->slots = malloc((size_t)src->slot_cap * sizeof(*dst->slots));
	if (!dst->strs || !dst->lens || !dst->slots)
		goto nomem;
	for (uint32_t i = 0; i < src->count; i++)
		if (!(dst->strs[i] = sv_arena_strndup(&dst->text, src->strs[i], src->lens[i])))
			goto nomem;
	memcpy(dst->lens, src->lens, src->count * sizeof(*dst->lens));
	memcpy(dst->slots, src->slots, (size_t)src->slot_cap * sizeof(*dst->slots));
	dst->count = src->count, dst->cap = src->cap, dst->slot_cap = src->slot_cap;
	return 0;
nomem:
	sv_strtab_dispose(dst);
	return SV_ENOMEM;
}

static uint32_t tag_of(uint64_t h) { return (uint32_t)(h >> 32); }

static uint32_t strtab_probe(const strtab *t, const char *s, size_t len, uint64_t h)
{
	uint32_t mask = t->slot_cap - 1, tag = tag_of(h);
	for (uint32_t i = tag & mask;; i = (i + 1) & mask) {
		uint64_t v = t->slots[i];
		if (!v)
			return i;
		if ((uint32_t)(v >> 32) != tag)
			continue;
		uint32_t id = (uint32_t)v - 1;
		if (t->lens[id] == len && memcmp(t->strs[id], s, len) == 0)
			return i;
	}
}

uint32_t sv_strtab_find(const strtab *t, const char *s, size_t len)
{
	if (!t->slot_cap)
		return UINT32_MAX;
	uint32_t i = strtab_probe(t, s, len, sv_hash_bytes(s, len));
	return t->slots[i] ? (uint32_t)t->slots[i] - 1 : UINT32_MAX;
}

/* Twice the room: each text placed again by the hash half its slot keeps (no text read). */
static int strtab_rehash(strtab *t)
{
	uint32_t ncap = t->slot_cap ? t->slot_cap * 2 : 256, mask = ncap - 1;
	uint64_t *slots = calloc(ncap, sizeof(*slots));
	if (!slots)
		return SV_ENOMEM;
	for (uint32_t k = 0; k < t->slot_cap; k++) {
		uint64_t v = t->slots[k];
		if (!v)
			continue;
		uint32_t i = (uint32_t)(v >> 32) & mask;
		while (slots[i])
			i = (i + 1) & mask;
		slots[i] = v;
	}
	free(t->slots);
	t->slots = slots;
	t->slot_cap = ncap;
	return 0;
}

int sv_strtab_intern(strtab *t, uint32_t *out, const char *s, size_t len)
{
	if (len > UINT32_MAX / 2)
		return SV_ELIMIT;
	if ((uint64_t)(t->count + 1) * 2 > t->slot_cap) {
		if (t->slot_cap >= (1u << 31))
			return SV_ELIMIT;
		int rc = strtab_rehash(t);
		if (rc)
			return rc;
	}
	uint64_t h = sv_hash_bytes(s, len);
	uint32_t i = strtab_probe(t, s, len, h);
	if (t->slots[i]) {
		*out = (uint32_t)t->slots[i] - 1;
		return 0;
	}
	if (t->count == t->cap) {
		uint32_t ncap = t->cap ? t->cap * 2 : 256;
		const char **strs = realloc(t->strs, ncap * sizeof(*strs));
		if (!strs)
			return SV_ENOMEM;
		t->strs = strs;
		uint32_t *lens = realloc(t->lens, ncap * sizeof(*lens));
		if (!lens)
			return SV_ENOMEM;
		t->lens = lens;
		t->cap = ncap;
	}
	char *copy = sv_arena_strndup(&t->text, s, len);
	if (!copy)
		return SV_ENOMEM;
	t->strs[t->count] = copy;
	t->lens[t->count] = (uint32_t)len;
	t->slots[i] = (uint64_t)tag_of(h) << 32 | (t->count + 1);
	*out = t->count++;
	return 0;
}

int sv_strtab_rename(strtab *t, const uint32_t *ids, const char *const *texts, const size_t *lens, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (lens[i] > UINT32_MAX / 2 || ids[i] >= t->count)
			return SV_EINVAL;
		char *copy = sv_arena_strndup(&t->text, texts[i], lens[i]);
		if (!copy)
			return SV_ENOMEM;
		t->strs[ids[i]] = copy;
		t->lens[ids[i]] = (uint32_t)lens[i];
	}
	if (!n)
		return 0;
	memset(t->slots, 0, (size_t)t->slot_cap * sizeof(*t->slots));
	for (uint32_t id = 0; id < t->count; id++) {
		uint64_t h = sv_hash_bytes(t->strs[id], t->lens[id]);
		uint32_t i = strtab_probe(t, t->strs[id], t->lens[id], h);
		if (!t->slots[i])
			t->slots[i] = (uint64_t)tag_of(h) << 32 | (id + 1);
	}
	return 0;
}
