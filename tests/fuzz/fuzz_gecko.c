/* SPDX-License-Identifier: MIT */
/* Fuzz target: the Firefox profiler importer (processed and raw Gecko tables), then the views
 * and every writer. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(&sv_fmt_gecko, data, size);
	return 0;
}
