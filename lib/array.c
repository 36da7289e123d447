/* SPDX-License-Identifier: MIT */
/* Growable arrays (sv/array.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "stackview/status.h"
#include "sv/array.h"

int sv_array_reserve(void *pp, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return SV_ENOMEM;
		ncap *= 2;
	}
	if (size && ncap > SIZE_MAX / size)
		return SV_ENOMEM;
	void *n = realloc(*(void **)pp, ncap * size);
	if (!n)
		return SV_ENOMEM;
	*(void **)pp = n;
	*cap = ncap;
	return 0;
}

void *sv_malloc_big(size_t bytes)
{
	void *p = malloc(bytes);
	sv_advise_huge(p, bytes);
	return p;
}

void *sv_calloc_big(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	void *p = sv_malloc_big(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

int sv_rows_place(float **rows, uint32_t *off, const uint8_t *w, size_t n)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		if (total > UINT32_MAX - 64)
			return SV_ENOMEM;
		off[i] = (uint32_t)total;
		total += w[i];
	}
	*rows = calloc(total ? total : 1, sizeof(float));
	return *rows ? 0 : SV_ENOMEM;
}

int sv_move_big(void *pp, size_t n, size_t ncap, size_t size)
{
	if (size && ncap > SIZE_MAX / size)
		return SV_ENOMEM;
	void *b = sv_malloc_big(ncap * size);
	if (!b)
		return SV_ENOMEM;
	if (n)
		memcpy(b, *(void **)pp, n * size);
	free(*(void **)pp);
	*(void **)pp = b;
	return 0;
}

void sv_advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t)2 << 20;
	if (!p || bytes < 2 * huge)
		return;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), b = ((uintptr_t)p + bytes) & ~(huge - 1);
	if (b > a)
		(void)madvise((void *)a, b - a, MADV_HUGEPAGE); /* a hint: where it is refused, pages stay small */
#else
	(void)p;
	(void)bytes;
#endif
}
