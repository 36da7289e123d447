/* SPDX-License-Identifier: MIT */
/* Fuzz target: the perf.data reader (header, attrs, features, records, zstd, ordering, maps,
 * samples, callchains), then the views on what it imported, and the Events listing. Symbol sources that would make
 * runs depend on this machine are pointed at nothing: no kallsyms, no perf maps, no debug
 * directories (recorded paths of real files are still opened, through libdwfl). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const sv_import_opts opts = { .kallsyms = "/nonexistent/kallsyms", .perf_map_dir = "/nonexistent" };
	static const sv_import_opts tt = { .kallsyms = "/nonexistent/kallsyms", .perf_map_dir = "/nonexistent",
					   .event = "thread-time-readied" };
	fuzz_import_opts(&sv_fmt_perf_data, data, size, &opts);
	/* Recordings that carry sched_switch's format: thread time with the wakers' frames too. */
	if (memmem(data, size, "sched_switch", 12))
		fuzz_import_opts(&sv_fmt_perf_data, data, size, &tt);
	/* The Events view's listing: tracepoint formats (libtraceevent) and their raw data. */
	fuzz_list_events_opts(&sv_fmt_perf_data, data, size, &opts);
	return 0;
}
