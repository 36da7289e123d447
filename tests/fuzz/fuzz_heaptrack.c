/* SPDX-License-Identifier: MIT */
/* Fuzz target: the heaptrack importer (already decompressed, as the loader gives it), then the views and every writer. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(&sv_fmt_heaptrack, data, size);
	return 0;
}
