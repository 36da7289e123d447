/* SPDX-License-Identifier: MIT */
/* Fuzz target: the V8 CPU profile importer (.cpuprofile and Trace Event JSON with
 * Profile/ProfileChunk events), then the views and every writer. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(&sv_fmt_chrome, data, size);
	return 0;
}
