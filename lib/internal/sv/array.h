/* SPDX-License-Identifier: MIT */
/* Growable arrays: one reserve function behind typed macros, for every layer's
 * "array + count + capacity" triples. Internal (not installed).
 *
 * What does not use it, on purpose: sv_source's sample and stack columns (parallel arrays
 * sharing one capacity, grown by half), the string table's u32 columns, and the byte buffers
 * of input reading and text editing.
 *
 * Ownership: the caller owns the array (free it with free()); on failure the array and its
 * capacity are left as they were, so the caller's cleanup path stays valid. */
#ifndef SV_INTERNAL_ARRAY_H
#define SV_INTERNAL_ARRAY_H

#include <stddef.h>

/* Make room for `need` elements of `size` bytes in the array *pp of capacity *cap (both
 * updated). Capacity grows by doubling from 16. 0, or SV_ENOMEM when the allocation fails
 * or need * size would overflow. */
int sv_array_reserve(void *pp, size_t *cap, size_t need, size_t size);

/* Typed forms: `p` is an lvalue pointer to the element type, `cap` an lvalue size_t. */
#define SV_ARRAY_RESERVE(p, cap, need) sv_array_reserve(&(p), &(cap), (need), sizeof(*(p)))

/* Append `val` to p[0..n), growing it first; 0 or SV_ENOMEM (nothing appended). */
#define SV_ARRAY_PUSH(p, n, cap, val) \
	(SV_ARRAY_RESERVE(p, cap, (n) + 1) ? SV_ENOMEM : ((p)[(n)++] = (val), 0))

#endif
