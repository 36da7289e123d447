/* SPDX-License-Identifier: MIT */
/* The perf.data record index's sort by time (formats/perf/records.c): a natural merge sort
 * over the runs each CPU's buffers make. Against a reference on in-order, reversed, random
 * and interleaved-run inputs with many equal times: sorted, and equal times in input order. */
#include <stdlib.h>
#include <string.h>

#include "perf/data_int.h"
#include "unit.h"

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

/* The reference: insertion sort, stable by construction. */
static void reference(rec *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		rec x = v[i];
		size_t j = i;
		while (j > 0 && v[j - 1].time > x.time) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

static void check(rec *v, size_t n)
{
	rec *a = malloc((n ? n : 1) * sizeof(*a)), *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	assert_true(a && tmp);
	for (size_t i = 0; i < n; i++)
		v[i].loc = i; /* the input order, to see that ties keep it */
	memcpy(a, v, n * sizeof(*a));
	reference(a, n);
	assert_int_equal(sv_pdr_sort_recs(v, n, tmp), 0);
	assert_memory_equal(v, a, n * sizeof(*v));
	free(a);
	free(tmp);
}

static void test_sort(void **state)
{
	(void)state;
	enum { N = 3000 };
	rec *v = malloc(N * sizeof(*v));
	assert_non_null(v);
	for (int shape = 0; shape < 6; shape++)
		for (size_t n = 0; n <= N; n = n < 40 ? n + 1 : n * 3 / 2 + 7) {
			size_t nn = n < N ? n : N;
			size_t cpus = 1 + next() % 8;
			for (size_t i = 0; i < nn; i++) {
				switch (shape) {
				case 0: v[i].time = i / 3; break;               /* in order, with ties */
				case 1: v[i].time = nn - i; break;              /* reversed */
				case 2: v[i].time = next() % 50; break;         /* random, many ties */
				case 3: v[i].time = next(); break;              /* random */
				case 4: v[i].time = (i % cpus) * 1000 + i / cpus; break; /* runs interleaved */
				default: v[i].time = i / 64 * 64 + (63 - i % 64) / 4; break; /* runs of blocks */
				}
			}
			check(v, nn);
		}
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_sort) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
