/* SPDX-License-Identifier: MIT */
/* Fuzz target: the pprof importer (protocol buffers as protobuf-c decodes them, then the
 * tables' references), then the views and every writer. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(&sv_fmt_pprof, data, size);
	return 0;
}
