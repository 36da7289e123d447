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
#include <stdint.h>

/* Make room for `need` elements of `size` bytes in the array *pp of capacity *cap (both
 * updated). Capacity grows by doubling from 16. 0, or SV_ENOMEM when the allocation fails
 * or need * size would overflow. */
int sv_array_reserve(void *pp, size_t *cap, size_t need, size_t size);

/* Ask for huge pages (2 MiB) for the whole 2 MiB blocks of a large array (4 MiB and more):
 * a view of a million stacks writes a hundred MB of fresh memory, and a fault per 4 KiB page
 * costs more than the writes (a third of a view's build on a virtual machine). A hint
 * (madvise): nothing happens where the system does not give them. For arrays written whole
 * at once (an array that grows by doubling would get huge pages past its end). */
void sv_advise_huge(void *p, size_t bytes);
/* malloc, with that hint for a large block. */
void *sv_malloc_big(size_t bytes);
/* calloc, with that hint given before the block is first written (calloc may clear it
 * first: its pages are then faulted small). NULL when n * size overflows or memory ran out. */
void *sv_calloc_big(size_t n, size_t size);
/* Rows of w[i] floats (at most 255) laid end to end in one zeroed table (*rows): off[i] where
 * row i starts. 0, or SV_ENOMEM past 2^32 - 64 floats (16 GB: offsets stay 64 below
 * UINT32_MAX) or when memory ran out. */
int sv_rows_place(float **rows, uint32_t *off, const uint8_t *w, size_t n);
/* Move the array *pp (its first n elements of `size` bytes in use) to a new block of ncap
 * elements with that hint, given before the block is first written (realloc copies into
 * pages faulted before any hint can reach them): for large arrays read at random that grow.
 * 0, or SV_ENOMEM with *pp as it was. */
int sv_move_big(void *pp, size_t n, size_t ncap, size_t size);

/* Typed forms: `p` is an lvalue pointer to the element type, `cap` an lvalue size_t. */
#define SV_ARRAY_RESERVE(p, cap, need) sv_array_reserve(&(p), &(cap), (need), sizeof(*(p)))

/* Append `val` to p[0..n), growing it first; 0 or SV_ENOMEM (nothing appended). */
#define SV_ARRAY_PUSH(p, n, cap, val) \
	(SV_ARRAY_RESERVE(p, cap, (n) + 1) ? SV_ENOMEM : ((p)[(n)++] = (val), 0))

#endif
