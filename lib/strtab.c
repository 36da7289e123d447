/* SPDX-License-Identifier: MIT */
/* String interner (see strtab_int.h). */
#include "strtab_int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sv/array.h"
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
	dst->dups = src->dups;
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
	/* on huge pages where large: each probe is a random read, and a TLB miss per probe
	 * cost more than the read */
	uint64_t *slots = sv_calloc_big(ncap, sizeof(*slots));
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
	return sv_strtab_intern_hashed(t, out, s, len, sv_hash_bytes(s, len));
}

int sv_strtab_intern_hashed(strtab *t, uint32_t *out, const char *s, size_t len, uint64_t h)
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

/* Take id's entry out of the index, found by its text's hash (text, len: what it was
 * indexed by); the entries after it in its run move back where their places allow (no
 * tombstones). False when the index does not hold it there. */
static bool unindex(strtab *t, uint32_t id, const char *text, size_t len)
{
	uint32_t mask = t->slot_cap - 1, i = tag_of(sv_hash_bytes(text, len)) & mask;
	for (;; i = (i + 1) & mask) {
		uint64_t v = t->slots[i];
		if (!v)
			return false;
		if ((uint32_t)v == id + 1)
			break;
	}
	for (uint32_t j = i;;) {
		j = (j + 1) & mask;
		uint64_t v = t->slots[j];
		if (!v)
			break;
		uint32_t home = (uint32_t)(v >> 32) & mask;
		/* v may fill the hole at i unless its place lies cyclically in (i, j] */
		bool stays = i <= j ? home > i && home <= j : home > i || home <= j;
		if (!stays) {
			t->slots[i] = v;
			i = j;
		}
	}
	t->slots[i] = 0;
	return true;
}

/* The renamed ids' index entries changed one by one: false (the index then rebuilt whole)
 * when an old text was not indexed by its id or a new text is another id's too, where
 * which id a lookup finds depends on the order the whole index is built in. */
static bool reindex_some(strtab *t, const uint32_t *ids, const char *const *old, const uint32_t *old_lens, size_t n)
{
	if (t->dups) /* an id whose text another id has: taking one out would leave it out */
		return false;
	for (size_t i = 0; i < n; i++)
		if (!unindex(t, ids[i], old[i], old_lens[i]))
			return false;
	for (size_t i = 0; i < n; i++) {
		uint32_t id = ids[i];
		uint64_t h = sv_hash_bytes(t->strs[id], t->lens[id]);
		uint32_t at = strtab_probe(t, t->strs[id], t->lens[id], h);
		if (t->slots[at])
			return false;
		t->slots[at] = (uint64_t)tag_of(h) << 32 | (id + 1);
	}
	return true;
}

int sv_strtab_rename(strtab *t, const uint32_t *ids, const char *const *texts, const size_t *lens, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (lens[i] > UINT32_MAX / 2 || ids[i] >= t->count)
			return SV_EINVAL;
	if (!n)
		return 0;
	/* a few among many: their entries changed, not the whole index made again */
	bool few = n * 16 < t->count;
	const char **old = few ? malloc(n * sizeof(*old)) : NULL;
	uint32_t *old_lens = few ? malloc(n * sizeof(*old_lens)) : NULL;
	few = old && old_lens;
	for (size_t i = 0; i < n; i++) {
		char *copy = sv_arena_strndup(&t->text, texts[i], lens[i]);
		if (!copy) {
			free(old);
			free(old_lens);
			return SV_ENOMEM;
		}
		if (few) {
			old[i] = t->strs[ids[i]];
			old_lens[i] = t->lens[ids[i]];
		}
		t->strs[ids[i]] = copy;
		t->lens[ids[i]] = (uint32_t)lens[i];
	}
	bool done = few && reindex_some(t, ids, old, old_lens, n);
	free(old);
	free(old_lens);
	if (done)
		return 0;
	memset(t->slots, 0, (size_t)t->slot_cap * sizeof(*t->slots));
	t->dups = false;
	for (uint32_t id = 0; id < t->count; id++) {
		uint64_t h = sv_hash_bytes(t->strs[id], t->lens[id]);
		uint32_t i = strtab_probe(t, t->strs[id], t->lens[id], h);
		if (!t->slots[i])
			t->slots[i] = (uint64_t)tag_of(h) << 32 | (id + 1);
		else
			t->dups = true;
	}
	return 0;
}
