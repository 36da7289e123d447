/* SPDX-License-Identifier: MIT */
/* Fuzz target: the speedscope importer (sampled and evented profiles), then the views. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(&sv_fmt_speedscope, data, size);
	return 0;
}
