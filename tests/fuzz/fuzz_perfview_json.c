/* SPDX-License-Identifier: MIT */
/* Fuzz target: the perfview_json importer, then the views on what it imported. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(&sv_fmt_perfview_json, data, size);
	return 0;
}
