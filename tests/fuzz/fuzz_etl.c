/* SPDX-License-Identifier: MIT */
/* Fuzz target: the ETL importer (buffers, Xpress, records, stack stitching, naming), then the
 * views on what it imported. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(&sv_fmt_etl, data, size);
	return 0;
}
