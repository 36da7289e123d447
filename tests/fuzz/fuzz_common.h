/* SPDX-License-Identifier: MIT */
/* Shared by the fuzz targets: import bytes with one format, then run the pipeline on what was
 * imported. Any crash, leak, hang or undefined behaviour is a bug. */
#ifndef STACKVIEW_FUZZ_COMMON_H
#define STACKVIEW_FUZZ_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/aggview.h"
#include "stackview/formats.h"
#include "stackview/rows.h"
#include "stackview/save.h"
#include "stackview/view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Exercise the views a user would open on an imported source. */
static inline void fuzz_views(const sv_source *src)
{
	static const char *const groups[] = { "", "{%}!=>module $1", "[c] {%}!->m $1;^Thread->T" };
	for (size_t g = 0; g < 3; g++) {
		sv_params p;
		sv_view *v = NULL;
		sv_error err;
		if (sv_params_init(&p) || sv_params_set(&p, SV_BOX_GROUP, groups[g]) ||
		    (g == 2 && sv_params_set(&p, SV_BOX_FOLD_PCT, "5"))) {
			sv_params_dispose(&p);
			continue;
		}
		if (sv_view_new(&v, src, &p, &err) == 0) {
			char w[SV_WHEN_LEN + 1];
			for (uint32_t r = 0; r < sv_view_byname_count(v) && r < 4; r++)
				if (sv_view_byname_when(w, v, r))
					break;
			if (sv_view_byname_count(v) > 1) {
				sv_name_id n = sv_view_byname_name(v, 0);
				sv_aggtree *t;
				if (sv_aggtree_new(&t, v, SV_AGG_CALLERS, n) == 0)
					sv_aggtree_free(t);
				sv_callercallee *cc;
				if (sv_callercallee_new(&cc, v, sv_view_name(v, n)) == 0)
					sv_callercallee_free(cc);
			}
			sv_rows r;
			if (sv_rows_calltree(&r, v, NULL, 8) == 0)
				sv_rows_dispose(&r);
		}
		sv_view_free(v);
		sv_params_dispose(&p);
	}
}

/* Write what was imported in every format that has a writer (into memory): the writers see
 * whatever an importer lets through. Folded output that was written must read back with the
 * same total of stack samples. */
static inline void fuzz_writers(const sv_source *src)
{
	static const char *const names[] = { "folded", "perfview-xml", "perfview-json", "speedscope", "pprof" };
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		for (int style = 0; style < (k == 0 ? 2 : 1); style++) {
			const sv_format *fmt = sv_format_find(names[k]);
			char *buf = NULL;
			size_t len = 0;
			FILE *m = fmt && fmt->export ? open_memstream(&buf, &len) : NULL;
			if (!m)
				continue;
			sv_export_opts o = { style ? SV_FOLDED_FLAMEGRAPH : SV_FOLDED_PLAIN };
			sv_error err;
			int rc = fmt->export(m, src, &o, &err);
			fclose(m);
			if (rc == 0 && k == 0 && style == 0) {
				double want = 0;
				const sv_stack_id *st = sv_source_sample_stacks(src);
				sv_samples smp = sv_source_samples(src);
				for (size_t i = 0; i < sv_source_sample_count(src); i++)
					if (st[i] != SV_STACK_NONE)
						want += sv_sample_metric(&smp, i);
				sv_input in;
				memset(&in, 0, sizeof(in));
				in.fd = -1;
				in.name = (char *)(uintptr_t) "fuzz-folded";
				in.data = (unsigned char *)buf;
				in.len = len;
				sv_source *back = NULL;
				if (sv_source_new(&back, "folded") == 0) {
					sv_sink sink = sv_source_sink(back);
					if (fmt->import(&sink, &in, NULL, &err) != 0)
						abort(); /* we wrote what we cannot read */
					double got = sv_source_total_metric(back);
					if (!(fabs(got - want) <= 1e-9 * fabs(want) + 1e-9))
						abort(); /* the total changed on the way */
				}
				sv_source_free(back);
			}
			free(buf);
		}
}

/* Import `data` as `fmt` with import options (content, not name, decides nothing here). */
/* The bytes as an input held in memory (the caller frees in->data); false when out of memory. */
static inline bool fuzz_input(sv_input *in, const uint8_t *data, size_t size)
{
	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->name = (char *)(uintptr_t) "fuzz";
	in->data = malloc(size + 1);
	if (!in->data)
		return false;
	memcpy(in->data, data, size);
	in->len = size;
	return true;
}

static inline void fuzz_import_opts(const sv_format *fmt, const uint8_t *data, size_t size, const sv_import_opts *opts)
{
	sv_input in;
	if (!fuzz_input(&in, data, size))
		return;
	sv_source *src = NULL;
	sv_error err;
	sv_error_clear(&err);
	if (sv_source_new(&src, fmt->name) == 0) {
		sv_sink sink = sv_source_sink(src);
		if (fmt->import(&sink, &in, opts, &err) == 0) {
			fuzz_views(src);
			fuzz_writers(src);
		} else if (strncmp(err.msg, "internal error", 14) == 0) {
			abort(); /* a reader's own invariant broke, not the input's fault (a parser
				  * library's "internal error" comes inside our message, not first) */
		}
	}
	sv_source_free(src);
	free(in.data);
}

/* The Events view's listing of the same bytes: every field of every event read (and its
 * text touched), no event kept. */
static inline int fuzz_event_seen(void *payload, const sv_trace_event *e)
{
	size_t *total = payload;
	*total += strlen(e->name) + (e->process ? strlen(e->process) : 0);
	for (size_t i = 0; i < e->nfields; i++)
		*total += strlen(e->field_names[i]) + strlen(e->field_values[i]);
	return 0;
}

static inline void fuzz_list_events_opts(const sv_format *fmt, const uint8_t *data, size_t size, const sv_import_opts *opts)
{
	sv_input in;
	if (!fmt->list_events || !fuzz_input(&in, data, size))
		return;
	sv_error err;
	sv_error_clear(&err);
	size_t total = 0;
	sv_event_lister l = { fuzz_event_seen, NULL, &total };
	int rc = fmt->list_events(&in, opts, &l, &err);
	if (rc && strncmp(err.msg, "internal error", 14) == 0)
		abort();
	/* in two parts (the TUI's first part read ahead): the same events, the same end */
	void *state = NULL;
	if (fmt->list_prepare && !fmt->list_prepare(&in, opts, &state, &err)) {
		size_t total2 = 0;
		sv_event_lister l2 = { fuzz_event_seen, NULL, &total2 };
		if (fmt->list_prepared(&in, state, opts, &l2, &err) != rc || total2 != total)
			abort();
	}
	free(in.data);
}

static inline void fuzz_list_events(const sv_format *fmt, const uint8_t *data, size_t size)
{
	fuzz_list_events_opts(fmt, data, size, NULL);
}

/* A text read by one thread and by two (perf script, folded): the same source, id for id
 * (only the note that says two threads read it may differ), or the same error. */
/* The code locations of two sources read from the same text: the same, id for id. */
static inline bool fuzz_same_code(const sv_source *a, const sv_source *b)
{
	if (sv_source_code_file_count(a) != sv_source_code_file_count(b) || sv_source_location_count(a) != sv_source_location_count(b) ||
	    sv_source_code_path_count(a) != sv_source_code_path_count(b))
		return false;
	for (uint32_t i = 0; i < sv_source_code_file_count(a); i++)
		if (strcmp(sv_source_code_file(a, i), sv_source_code_file(b, i)))
			return false;
	for (uint32_t i = 0; i < sv_source_location_count(a); i++) {
		sv_location x = sv_source_location(a, i), y = sv_source_location(b, i);
		if (x.frame != y.frame || x.file != y.file || x.addr != y.addr)
			return false;
	}
	uint32_t np = sv_source_code_path_count(a);
	const uint32_t *ca = np ? sv_source_code_path_callers(a) : NULL, *cb = np ? sv_source_code_path_callers(b) : NULL;
	const uint32_t *la = np ? sv_source_code_path_locs(a) : NULL, *lb = np ? sv_source_code_path_locs(b) : NULL;
	for (uint32_t i = 0; i < np; i++)
		if (ca[i] != cb[i] || la[i] != lb[i])
			return false;
	const uint32_t *pa = sv_source_sample_code_paths(a), *pb = sv_source_sample_code_paths(b);
	if (!pa != !pb)
		return false;
	for (size_t i = 0; pa && i < sv_source_sample_count(a); i++)
		if (pa[i] != pb[i])
			return false;
	return true;
}

/* The same, from import options (NULL: none) besides the threads. */
static inline void fuzz_two_threads_opts(const sv_format *fmt, const uint8_t *data, size_t size, const sv_import_opts *base)
{
	sv_source *src[2] = { NULL, NULL };
	sv_error err[2];
	int rc[2];
	for (int k = 0; k < 2; k++) {
		sv_input in;
		sv_import_opts o = { 0 };
		if (base)
			o = *base;
		o.threads = (unsigned)k + 1;
		sv_error_clear(&err[k]);
		if (!fuzz_input(&in, data, size) || sv_source_new(&src[k], fmt->name)) {
			free(in.data);
			sv_source_free(src[0]);
			sv_source_free(src[1]);
			return;
		}
		sv_sink sink = sv_source_sink(src[k]);
		rc[k] = fmt->import(&sink, &in, &o, &err[k]);
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
			double t1 = sv_sample_time(&x, i), t2 = sv_sample_time(&y, i);
			if (x.stack[i] != y.stack[i] || memcmp(&t1, &t2, sizeof(double)) ||
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
		if (!fuzz_same_code(a, b))
			abort();
	}
	sv_source_free(src[0]);
	sv_source_free(src[1]);
}

static inline void fuzz_two_threads(const sv_format *fmt, const uint8_t *data, size_t size)
{
	fuzz_two_threads_opts(fmt, data, size, NULL);
}

static inline void fuzz_import(const sv_format *fmt, const uint8_t *data, size_t size)
{
	fuzz_import_opts(fmt, data, size, NULL);
}

#endif
