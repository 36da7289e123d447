/* SPDX-License-Identifier: MIT */
/* Fuzz target: the ETL importer (buffers, Xpress, records, stack stitching, naming), then the
 * views on what it imported; the same bytes again with the CLR's allocation ticks as the
 * stack source (ClrStackWalk attachment), then with another decoded kind the input picks
 * (image loads, disk and file I/O, hard faults, VirtualAlloc/VirtualFree, the OS heap, exceptions: each
 * row of the decoder table), and as thread time with the wakers' frames (CSwitch,
 * ReadyThread); and its event listing (TraceLogging schemas, the runtime's templates). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(&sv_fmt_etl, data, size);
	fuzz_list_events(&sv_fmt_etl, data, size);
	sv_import_opts alloc = { .event = "Microsoft-Windows-DotNETRuntime/GC/AllocationTick" };
	fuzz_import_opts(&sv_fmt_etl, data, size, &alloc);
	static const char *const kinds[] = {
		"Windows Kernel/Image/Load",	      "Windows Kernel/DiskIO/Read",	    "Windows Kernel/FileIO/Write",
		"Windows Kernel/Memory/VirtualAlloc", "Windows Kernel/Memory/VirtualFree", "Windows Kernel/Memory/HardFault",
		"Microsoft-Windows-DotNETRuntime/Exception/Start", "net-virtualalloc", "disk-io-time",
		"Windows Kernel/Heap/Alloc", "Windows Kernel/Heap/Free", "net-os-heap",
	};
	sv_import_opts other = { .event = kinds[size ? data[size / 2] % (sizeof(kinds) / sizeof(kinds[0])) : 0] };
	fuzz_import_opts(&sv_fmt_etl, data, size, &other);
	sv_import_opts tt = { .event = "thread-time-readied" };
	fuzz_import_opts(&sv_fmt_etl, data, size, &tt);
	return 0;
}
