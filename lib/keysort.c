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

int sv_keyed_cmp(const sv_keyed *x, const sv_keyed *y, sv_keysort_name_fn *name, const void *ctx)
{
	return keyed_cmp(x, y, name, ctx);
}

void sv_keysort(sv_keyed *a, size_t n, sv_keyed *tmp, sv_keysort_name_fn *name, const void *ctx)
{
	msort(a, tmp, n, name, ctx);
}

void sv_keysort_ranked(sv_keyed *a, size_t n, sv_keyed *tmp)
{
	sv_keyed *src = a, *dst = tmp;
	for (int shift = 0; shift < 64; shift += 8) {
		size_t count[256] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[(src[i].rank >> shift) & 255]++;
		if (n && count[(src[0].rank >> shift) & 255] == n)
			continue; /* a byte they all share */
		size_t at = 0;
		for (int b = 0; b < 256; b++) {
			size_t c = count[b];
			count[b] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i].rank >> shift) & 255]++] = src[i];
		sv_keyed *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

size_t sv_keysort_place(const sv_keyed *a, size_t n, const sv_keyed *x, sv_keysort_name_fn *name, const void *ctx)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (keyed_cmp(&a[mid], x, name, ctx) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
