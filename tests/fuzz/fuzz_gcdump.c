/* SPDX-License-Identifier: MIT */
/* Fuzz target: the .gcdump importer (the heap snapshot, its graph and spanning tree), then the views and every writer. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(&sv_fmt_gcdump, data, size);
	return 0;
}
