/* SPDX-License-Identifier: MIT */
/* u64 -> u32 open-addressing map with linear probing (see stackview/idmap.h). */
#include "sv/idmap.h"

#include <stdlib.h>
#include <string.h>

#include "stackview/status.h"

void sv_idmap_init(sv_idmap *m)
{
	memset(m, 0, sizeof(*m));
}

void sv_idmap_dispose(sv_idmap *m)
{
	if (!m)
		return;
	free(m->keys);
	free(m->vals);
	sv_idmap_init(m);
}

uint32_t sv_idmap_get(const sv_idmap *m, uint64_t key)
{
	if (!m->cap)
		return SV_IDMAP_NONE;
	size_t mask = m->cap - 1;
	for (size_t i = sv_hash_mix64(key) & mask;; i = (i + 1) & mask) {
		if (m->vals[i] == SV_IDMAP_NONE)
			return SV_IDMAP_NONE;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}

static int sv_idmap_rehash(sv_idmap *m, size_t ncap)
{
	uint64_t *keys = malloc(ncap * sizeof(*keys));
	uint32_t *vals = malloc(ncap * sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return SV_ENOMEM;
	}
	memset(vals, 0xff, ncap * sizeof(*vals));
	size_t mask = ncap - 1;
	for (size_t j = 0; j < m->cap; j++) {
		if (m->vals[j] == SV_IDMAP_NONE)
			continue;
		size_t i = sv_hash_mix64(m->keys[j]) & mask;
		while (vals[i] != SV_IDMAP_NONE)
			i = (i + 1) & mask;
		keys[i] = m->keys[j];
		vals[i] = m->vals[j];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
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
	while (m->vals[i] != SV_IDMAP_NONE && m->keys[i] != key)
		i = (i + 1) & mask;
	if (m->vals[i] == SV_IDMAP_NONE) {
		m->keys[i] = key;
		m->vals[i] = val;
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
		m->vals[i] = val;
	return rc;
}

int sv_idmap_get_or_put(sv_idmap *m, uint64_t key, uint32_t val, uint32_t *out)
{
	size_t i;
	int rc = claim(m, key, val, &i);
	if (!rc)
		*out = m->vals[i];
	return rc;
}
