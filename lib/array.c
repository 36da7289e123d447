/* SPDX-License-Identifier: MIT */
/* Growable arrays (sv/array.h). */
#include <stdint.h>
#include <stdlib.h>

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
