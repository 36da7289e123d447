/* SPDX-License-Identifier: MIT */
/* u64 -> u32 open-addressing map with linear probing (see stackview/idmap.h). */
#include "sv/idmap.h"

#include <stdlib.h>
#include <string.h>

#include "stackview/status.h"
#include "sv/array.h"

void sv_idmap_init(sv_idmap *m)
{
	memset(m, 0, sizeof(*m));
}

void sv_idmap_dispose(sv_idmap *m)
{
	if (!m)
		return;
	free(m->slots);
	sv_idmap_init(m);
}

uint32_t sv_idmap_get(const sv_idmap *m, uint64_t key)
{
	if (!m->cap)
		return SV_IDMAP_NONE;
	size_t mask = m->cap - 1;
	for (size_t i = sv_hash_mix64(key) & mask;; i = (i + 1) & mask) {
		const sv_idmap_slot *s = &m->slots[i];
		if (s->val == SV_IDMAP_NONE)
			return SV_IDMAP_NONE;
		if (s->key == key)
			return s->val;
	}
}

static int sv_idmap_rehash(sv_idmap *m, size_t ncap)
{
	sv_idmap_slot *slots = sv_malloc_big(ncap * sizeof(*slots));
	if (!slots)
		return SV_ENOMEM;
	for (size_t i = 0; i < ncap; i++)
		slots[i].val = SV_IDMAP_NONE;
	size_t mask = ncap - 1;
	for (size_t j = 0; j < m->cap; j++) {
		const sv_idmap_slot *o = &m->slots[j];
		if (o->val == SV_IDMAP_NONE)
			continue;
		size_t i = sv_hash_mix64(o->key) & mask;
		while (slots[i].val != SV_IDMAP_NONE)
			i = (i + 1) & mask;
		slots[i] = *o;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = ncap;
	return 0;
}

int sv_idmap_reserve(sv_idmap *m, size_t n)
{
	size_t ncap = m->cap ? m->cap : 64;
	while ((n + 1) * 4 > ncap * 3)
		ncap *= 2;
	return ncap > m->cap ? sv_idmap_rehash(m, ncap) : 0;
}

/* The slot of key, taken for it with `val` when key is new (room for one more made first). */
static int claim(sv_idmap *m, uint64_t key, uint32_t val, size_t *out)
{
	if ((m->len + 1) * 4 > m->cap * 3) {
		int rc = sv_idmap_rehash(m, m->cap ? m->cap * 2 : 64);
		if (rc)
			return rc;
	}
	size_t mask = m->cap - 1;
	size_t i = sv_hash_mix64(key) & mask;
	while (m->slots[i].val != SV_IDMAP_NONE && m->slots[i].key != key)
		i = (i + 1) & mask;
	if (m->slots[i].val == SV_IDMAP_NONE) {
		m->slots[i].key = key;
		m->slots[i].val = val;
		m->len++;
	}
	*out = i;
	return 0;
}

int sv_idmap_put(sv_idmap *m, uint64_t key, uint32_t val)
{
	size_t i;
	int rc = claim(m, key, val, &i);
	if (!rc)
		m->slots[i].val = val;
	return rc;
}

int sv_idmap_get_or_put(sv_idmap *m, uint64_t key, uint32_t val, uint32_t *out)
{
	size_t i;
	int rc = claim(m, key, val, &i);
	if (!rc)
		*out = m->slots[i].val;
	return rc;
}
