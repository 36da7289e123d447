/* SPDX-License-Identifier: MIT */
/* Sorting rows by their numbers, then their names: the order of a view's child lists and of
 * ByName (spec §6.1, §6.3), with the keys read once into the records instead of by every
 * comparison. Internal (not installed).
 *
 * Ownership: the caller owns the records and the scratch room; nothing is kept. */
#ifndef SV_INTERNAL_KEYSORT_H
#define SV_INTERNAL_KEYSORT_H

#include <stddef.h>
#include <stdint.h>

#define SV_KEYSORT_NO_RANK UINT64_MAX
/* A rank's top two bits name the set it is a place in: ranks compare only within one. */
#define SV_KEYSORT_SET(r) ((r) >> 62)

typedef struct sv_keyed {
	double k1;     /* larger first */
	double k2;     /* then smaller first */
	uint64_t rank; /* then the name: by rank when both have one in the same set, else by
			* strcmp of name(id) */
	uint32_t id;
} sv_keyed;

/* The text of name `id` (for records without a rank). */
typedef const char *sv_keysort_name_fn(const void *ctx, uint32_t id);

/* x before y in that order: < 0, 0 (the same name), > 0. */
int sv_keyed_cmp(const sv_keyed *x, const sv_keyed *y, sv_keysort_name_fn *name, const void *ctx);

/* Sort a[0, n) in that order; tmp: room for n records (unused when n <= 16: may be NULL).
 * Records must differ in their names (ids) for the order to be total. */
void sv_keysort(sv_keyed *a, size_t n, sv_keyed *tmp, sv_keysort_name_fn *name, const void *ctx);

/* Records whose k1 and k2 are equal and whose ranks are all of one set, in rank order:
 * radix passes over the ranks' bytes (a byte they all share is skipped), through tmp (room
 * for n). */
void sv_keysort_ranked(sv_keyed *a, size_t n, sv_keyed *tmp);

/* Where x goes in the sorted a[0, n): the first place whose record is not before it. */
size_t sv_keysort_place(const sv_keyed *a, size_t n, const sv_keyed *x, sv_keysort_name_fn *name, const void *ctx);

#endif
