/* SPDX-License-Identifier: MIT */
/* Shared by the benchmark programs. */
#ifndef STACKVIEW_BENCH_UTIL_H
#define STACKVIEW_BENCH_UTIL_H

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/source.h"

/* The heap as the stackview command sets it (cmd/main.c): big view tables reused, not
 * fresh pages at each refilter. */
static inline void bench_heap_like_cli(void)
{
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

/* A source with src's frames and stacks and its first n samples (same ids). */
static inline sv_source *bench_prefix(const sv_source *src, size_t n)
{
	sv_source *d;
	if (sv_source_new(&d, "prefix"))
		exit(1);
	sv_source_set_scaling(d, sv_source_scaling(src));
	if (sv_source_metric_scale(src) != 1) /* (perf's clock periods: summed in ns) */
		sv_source_set_metric_quantum(d, 1 / sv_source_metric_scale(src));
	for (uint32_t f = 0; f < sv_source_frame_count(src); f++) {
		sv_frame_id id;
		const char *name = sv_source_frame_name(src, f);
		if (sv_source_intern_frame(d, &id, name, strlen(name)))
			exit(1);
	}
	for (uint32_t s = 0; s < sv_source_stack_count(src); s++) {
		sv_stack_id id;
		if (sv_source_intern_stack(d, &id, sv_source_stack_caller(src, s), sv_source_stack_frame(src, s)))
			exit(1);
	}
	sv_samples smp = sv_source_samples(src);
	for (size_t i = 0; i < n && i < smp.n; i++) {
		double t = sv_sample_time(&smp, i), m = sv_sample_metric(&smp, i), c = sv_sample_count(&smp, i);
		if (sv_source_add_sample(d, smp.stack[i], t, m, c))
			exit(1);
	}
	return d;
}

#endif
