/* SPDX-License-Identifier: MIT */
/* Open-addressing hash map u64 key -> u32 value, used by the interners and importers.
 * Ownership: the map owns its slot arrays (caller storage for the struct); sv_idmap_dispose
 * frees them. */
#ifndef SV_INTERNAL_IDMAP_H
#define SV_INTERNAL_IDMAP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SV_IDMAP_NONE UINT32_MAX

/* A key and its value side by side: a probe reads one place (12 bytes, unaligned reads are
 * cheap where this runs). */
typedef struct __attribute__((packed)) sv_idmap_slot {
	uint64_t key;
	uint32_t val; /* SV_IDMAP_NONE = empty slot */
} sv_idmap_slot;

typedef struct sv_idmap {
	sv_idmap_slot *slots;
	size_t cap; /* power of two or 0 */
	size_t len;
} sv_idmap;

void sv_idmap_init(sv_idmap *m);
void sv_idmap_dispose(sv_idmap *m);
/* Value for key, or SV_IDMAP_NONE. */
uint32_t sv_idmap_get(const sv_idmap *m, uint64_t key);
/* Room for n keys without growing; 0 or SV_ENOMEM. */
int sv_idmap_reserve(sv_idmap *m, size_t n);
/* Insert or overwrite; 0 or SV_ENOMEM. `val` must not be SV_IDMAP_NONE. */
int sv_idmap_put(sv_idmap *m, uint64_t key, uint32_t val);
/* The value of key in *out; when key is new, `val` is put for it first (one probe for both:
 * interning looks up and adds in one go). 0 or SV_ENOMEM. `val` must not be SV_IDMAP_NONE. */
int sv_idmap_get_or_put(sv_idmap *m, uint64_t key, uint32_t val, uint32_t *out);

static inline uint64_t sv_hash_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* Bytes hashed eight at a time (a multiply and a shift per word), then mixed: interning
 * hashes every frame name and line it sees, so this is on the importers' hot path. Tables
 * compare the bytes in full; the hash only spreads them. */
static inline uint64_t sv_hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ len;
	for (; len >= 8; s += 8, len -= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	uint64_t w = 0;
	memcpy(&w, s, len);
	return sv_hash_mix64(h ^ w);
}

#endif
