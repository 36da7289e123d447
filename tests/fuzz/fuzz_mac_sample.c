/* SPDX-License-Identifier: MIT */
/* Fuzz target: the macOS sample call-graph importer, then the views and every writer. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(&sv_fmt_mac_sample, data, size);
	return 0;
}
