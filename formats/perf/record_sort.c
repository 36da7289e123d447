/* SPDX-License-Identifier: MIT */
/* perf.data reader: the record index put in time order (spec/perf.md §5), stably: the runs each
 * CPU's buffers make, merged in one pass. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "data_int.h"

/* The end of the run of records in time order that starts at i. */
static size_t run_end(const rec *v, size_t i, size_t n)
{
	while (++i < n && v[i - 1].time <= v[i].time)
		;
	return i < n ? i : n;
}

/* A run of records in time order: v[at, end), the at-th of the input's runs. */
typedef struct run {
	size_t at, end, index;
} run;

/* a before b: the earlier time, and on equal times the earlier run (so the earlier record) */
static bool run_before(const rec *v, const run *a, const run *b)
{
	uint64_t ta = v[a->at].time, tb = v[b->at].time;
	return ta < tb || (ta == tb && a->index < b->index);
}

static int run_cmp_start(const void *x, const void *y, void *v)
{
	const run *a = x, *b = y;
	return run_before(v, a, b) ? -1 : run_before(v, b, a) ? 1 : 0;
}

/* The heap's top moved on (its run's next record, or its run ended and the last took its
 * place): down to where it belongs. */
static void run_sift(const rec *v, run *h, size_t n)
{
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && run_before(v, &h[c + 1], &h[c]))
			c++;
		if (!run_before(v, &h[c], &h[i]))
			break;
		run t = h[i];
		h[i] = h[c], h[c] = t;
		i = c;
	}
}

static void run_push(const rec *v, run *h, size_t n, run x)
{
	size_t i = n;
	h[i] = x;
	while (i > 0 && run_before(v, &h[i], &h[(i - 1) / 2])) {
		run t = h[i];
		h[i] = h[(i - 1) / 2], h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/* The records come in runs already in time order (each CPU's buffers, flushed a round at a
 * time), and a run overlaps in time only the few runs of the rounds beside it. So the runs
 * are ordered by their first record and merged in one pass through a heap that holds only
 * the runs begun and not ended: a run joins it when its first record is the least left. Ties
 * keep their order: equal times come from the earlier run first, and in a run in order. */
int sv_pdr_sort_recs(rec *v, size_t n, rec *tmp)
{
	size_t nruns = 0;
	for (size_t i = 0; i < n; nruns++)
		i = run_end(v, i, n);
	if (nruns <= 1) /* in order already */
		return 0;
	run *runs = malloc(nruns * sizeof(*runs)), *heap = malloc(nruns * sizeof(*heap));
	if (!runs || !heap) {
		free(runs);
		free(heap);
		return SV_ENOMEM;
	}
	for (size_t i = 0, k = 0; i < n; k++) {
		size_t e = run_end(v, i, n);
		runs[k] = (run){ i, e, k };
		i = e;
	}
	qsort_r(runs, nruns, sizeof(*runs), run_cmp_start, v);
	size_t nheap = 0, next = 0;
	for (size_t k = 0; k < n; k++) {
		while (next < nruns && (!nheap || run_before(v, &runs[next], &heap[0])))
			run_push(v, heap, nheap++, runs[next++]);
		tmp[k] = v[heap[0].at++];
		if (heap[0].at == heap[0].end)
			heap[0] = heap[--nheap];
		run_sift(v, heap, nheap);
	}
	memcpy(v, tmp, n * sizeof(*v));
	free(runs);
	free(heap);
	return 0;
}
