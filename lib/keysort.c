/* SPDX-License-Identifier: MIT */
/* Sorting keyed records (see sv/keysort.h): a merge sort, insertion sort below 16. */
#include "sv/keysort.h"

#include <string.h>

#define RUN 16

static inline int keyed_cmp(const sv_keyed *x, const sv_keyed *y, sv_keysort_name_fn *name, const void *ctx)
{
	if (x->k1 != y->k1)
		return x->k1 > y->k1 ? -1 : 1;
	if (x->k2 != y->k2)
		return x->k2 < y->k2 ? -1 : 1;
	if (x->rank != SV_KEYSORT_NO_RANK && y->rank != SV_KEYSORT_NO_RANK &&
	    SV_KEYSORT_SET(x->rank) == SV_KEYSORT_SET(y->rank))
		return x->rank < y->rank ? -1 : x->rank > y->rank;
	return strcmp(name(ctx, x->id), name(ctx, y->id));
}

static void insertion(sv_keyed *a, size_t n, sv_keysort_name_fn *name, const void *ctx)
{
	for (size_t i = 1; i < n; i++) {
		sv_keyed t = a[i];
		size_t j = i;
		while (j > 0 && keyed_cmp(&t, &a[j - 1], name, ctx) < 0) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = t;
	}
}

/* a[0, n) sorted through tmp[0, n): the halves first (depth first, so the names a merge
 * reads were read by the merges below it a moment before), then merged. */
static void msort(sv_keyed *a, sv_keyed *tmp, size_t n, sv_keysort_name_fn *name, const void *ctx)
{
	if (n <= RUN) {
		insertion(a, n, name, ctx);
		return;
	}
	size_t h = n / 2, i = 0, j = h, k = 0;
	msort(a, tmp, h, name, ctx);
	msort(a + h, tmp + h, n - h, name, ctx);
	if (keyed_cmp(&a[h - 1], &a[h], name, ctx) <= 0) /* already in order */
		return;
	while (i < h && j < n)
		tmp[k++] = keyed_cmp(&a[j], &a[i], name, ctx) < 0 ? a[j++] : a[i++];
	memcpy(tmp + k, a + i, (h - i) * sizeof(*tmp));
	k += h - i;
	memcpy(a, tmp, k * sizeof(*a)); /* a[j, n) is in place */
}

void sv_keysort(sv_keyed *a, size_t n, sv_keyed *tmp, sv_keysort_name_fn *name, const void *ctx)
{
	msort(a, tmp, n, name, ctx);
}
