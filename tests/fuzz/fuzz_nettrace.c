/* SPDX-License-Identifier: MIT */
/* Fuzz target: the .nettrace importer (FastSerialization objects, compressed and plain event
 * headers, metadata, stacks, the runtime's method and module events), as thread time and as
 * one event kind the input picks, then the views and every writer; and its event listing
 * (payloads decoded by the metadata's field descriptions or the runtime's templates). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(&sv_fmt_nettrace, data, size);
	fuzz_list_events(&sv_fmt_nettrace, data, size);
	static const char *const kinds[] = { "Contoso-App/RequestStart", "Microsoft-DotNETCore-SampleProfiler/Thread/Sample",
					     "Microsoft-Windows-DotNETRuntime/Method/LoadVerbose" };
	sv_import_opts other = { .event = kinds[size ? data[size / 2] % 3 : 0] };
	fuzz_import_opts(&sv_fmt_nettrace, data, size, &other);
	return 0;
}
