/* SPDX-License-Identifier: MIT */
/* Fuzz target: the folded importer (one thread against two), then the views on what it imported. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_two_threads(&sv_fmt_folded, data, size);
	fuzz_import(&sv_fmt_folded, data, size);
	return 0;
}
