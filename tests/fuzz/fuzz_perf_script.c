/* SPDX-License-Identifier: MIT */
/* Fuzz target: the perf_script importer, read by one thread and by two (the same source or
 * the same error), then the views on what it imported (and, for text
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

/* One text read by one thread and by two: the same source, id for id (only the note that
 * says two threads read it may differ), or the same error. */
static void fuzz_two_threads(const uint8_t *data, size_t size)
{
	sv_source *src[2] = { NULL, NULL };
	sv_error err[2];
	int rc[2];
	for (int k = 0; k < 2; k++) {
		sv_input in;
		sv_import_opts o = { .threads = (unsigned)k + 1 };
		sv_error_clear(&err[k]);
		if (!fuzz_input(&in, data, size) || sv_source_new(&src[k], "perf-script")) {
			free(in.data);
			sv_source_free(src[0]);
			sv_source_free(src[1]);
			return;
		}
		sv_sink sink = sv_source_sink(src[k]);
		rc[k] = sv_fmt_perf_script.import(&sink, &in, &o, &err[k]);
		free(in.data);
	}
	if (rc[0] != rc[1] || (rc[0] && (strcmp(err[0].msg, err[1].msg) || err[0].line != err[1].line)))
		abort();
	if (!rc[0]) {
		const sv_source *a = src[0], *b = src[1];
		if (sv_source_frame_count(a) != sv_source_frame_count(b) || sv_source_stack_count(a) != sv_source_stack_count(b) ||
		    sv_source_sample_count(a) != sv_source_sample_count(b) || sv_source_event_count(a) != sv_source_event_count(b) ||
		    sv_source_user_module_count(a) != sv_source_user_module_count(b) || sv_source_scaling(a) != sv_source_scaling(b))
			abort();
		for (uint32_t f = 0; f < sv_source_frame_count(a); f++)
			if (strcmp(sv_source_frame_name(a, f), sv_source_frame_name(b, f)))
				abort();
		for (uint32_t t = 0; t < sv_source_stack_count(a); t++)
			if (sv_source_stack_caller(a, t) != sv_source_stack_caller(b, t) ||
			    sv_source_stack_frame(a, t) != sv_source_stack_frame(b, t))
				abort();
		sv_samples x = sv_source_samples(a), y = sv_source_samples(b);
		for (size_t i = 0; i < x.n; i++) {
			double m1 = sv_sample_metric(&x, i), m2 = sv_sample_metric(&y, i);
			if (x.stack[i] != y.stack[i] || memcmp(&x.time[i], &y.time[i], sizeof(double)) ||
			    memcmp(&m1, &m2, sizeof(double)) || sv_sample_count(&x, i) != sv_sample_count(&y, i))
				abort();
		}
		for (size_t i = 0; i < sv_source_event_count(a); i++) {
			const sv_event *e1 = sv_source_event(a, i), *e2 = sv_source_event(b, i);
			if (strcmp(e1->name, e2->name) || e1->samples != e2->samples || e1->selected != e2->selected)
				abort();
		}
		for (size_t i = 0; i < sv_source_user_module_count(a); i++)
			if (strcmp(sv_source_user_module(a, i), sv_source_user_module(b, i)))
				abort();
	}
	sv_source_free(src[0]);
	sv_source_free(src[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_two_threads(data, size);
	static const sv_import_opts tt = { .event = "thread-time-readied" };
	fuzz_import(&sv_fmt_perf_script, data, size);
	if (memmem(data, size, "sched_switch", 12))
		fuzz_import_opts(&sv_fmt_perf_script, data, size, &tt);
	fuzz_collapse(data, size);
	return 0;
}
