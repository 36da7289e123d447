/* SPDX-License-Identifier: MIT */
/* Fuzz target: the perf_script importer, then the views on what it imported. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(&sv_fmt_perf_script, data, size);
	return 0;
}
