/* SPDX-License-Identifier: MIT */
/* Fuzz target: the [MS-XCA] Plain LZ77 decompressor alone. The first two bytes choose the
 * output length, as a buffer header's fill level would. */
#include <stdint.h>
#include <stdlib.h>

#include "windows/etl_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t outlen = (size_t)data[0] | (size_t)data[1] << 8;
	unsigned char *out = malloc(outlen ? outlen : 1);
	if (!out)
		return 0;
	size_t bad = 0;
	if (sv_xpress_decompress(data + 2, size - 2, out, outlen, &bad) != 0 && bad > size - 2)
		abort(); /* the failure offset must lie inside the input */
	free(out);
	return 0;
}
