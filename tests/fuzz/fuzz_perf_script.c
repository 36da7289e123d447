/* SPDX-License-Identifier: MIT */
/* Fuzz target: the perf_script importer, read by one thread and by two (the same source, code
 * locations included, or the same error), then the views on what it imported (and, for text
 * with sched_switch records, its thread time with the wakers' frames); and the same text
 * through stackcollapse-perf.pl's rules (every option, chosen by the input's first byte),
 * whose output must be sorted lines each ending in " COUNT". */
#include "fuzz_common.h"

static void fuzz_collapse(const uint8_t *data, size_t size)
{
	sv_input in;
	if (!fuzz_input(&in, data, size))
		return;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (m) {
		sv_error err;
		sv_error_clear(&err);
		unsigned flags = size ? data[0] & 31u : 0;
		int rc = sv_collapse_perf_script(m, &in, flags, NULL, &err);
		fclose(m);
		/* every line "STACK COUNT", in byte order, none twice */
		const char *prev = NULL;
		size_t prev_len = 0;
		for (const char *p = buf; rc == 0 && p && p < buf + len;) {
			const char *nl = memchr(p, '\n', (size_t)(buf + len - p));
			if (!nl)
				abort();
			const char *sp = nl;
			while (sp > p && sp[-1] != ' ')
				sp--;
			if (sp == p || sp == nl)
				abort();
			size_t kl = (size_t)(sp - 1 - p);
			if (prev) {
				size_t n = kl < prev_len ? kl : prev_len;
				int d = memcmp(prev, p, n);
				if (d > 0 || (d == 0 && prev_len >= kl))
					abort();
			}
			prev = p;
			prev_len = kl;
			p = nl + 1;
		}
	}
	free(buf);
	free(in.data);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the files frame lines name are looked for under a root holding one small program (the
	 * annotate fixture's, at its recorded path): the system's libraries are never read */
	static const sv_import_opts code = { .symfs = "tests/fuzz/symfs", .code_paths = true };
	fuzz_two_threads_opts(&sv_fmt_perf_script, data, size, &code);
	static const sv_import_opts tt = { .event = "thread-time-readied", .symfs = "tests/fuzz/symfs" };
	fuzz_import_opts(&sv_fmt_perf_script, data, size, &code);
	fuzz_list_events(&sv_fmt_perf_script, data, size); /* the Events view's listing */
	if (memmem(data, size, "sched_switch", 12))
		fuzz_import_opts(&sv_fmt_perf_script, data, size, &tt);
	fuzz_collapse(data, size);
	return 0;
}
