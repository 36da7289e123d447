/* SPDX-License-Identifier: MIT */
/* Fuzz target: the ETL importer (buffers, Xpress, records, stack stitching, naming), then the
 * views on what it imported; the same bytes again with the CLR's allocation ticks and then
 * image loads as the stack source (event decoding, ClrStackWalk attachment), and as thread
 * time with the wakers' frames (CSwitch, ReadyThread). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(&sv_fmt_etl, data, size);
	sv_import_opts alloc = { .event = "Microsoft-Windows-DotNETRuntime/GC/AllocationTick" };
	fuzz_import_opts(&sv_fmt_etl, data, size, &alloc);
	sv_import_opts image = { .event = "Windows Kernel/Image/Load" };
	fuzz_import_opts(&sv_fmt_etl, data, size, &image);
	sv_import_opts tt = { .event = "thread-time-readied" };
	fuzz_import_opts(&sv_fmt_etl, data, size, &tt);
	return 0;
}
