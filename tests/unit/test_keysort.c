/* SPDX-License-Identifier: MIT */
/* Keyed records' sort (lib/keysort.c: child lists and ByName): against qsort with the
 * comparison the views used before it, on sizes around its runs of 16, with many ties in
 * both numbers (so the names decide), ranked and unranked names mixed, names that are
 * prefixes of one another, and inputs already sorted or reversed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv/keysort.h"
#include "unit.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

enum { N = 5000 };
static char names[N][16];

static const char *name_of(const void *ctx, uint32_t id)
{
	(void)ctx;
	return names[id];
}

/* The reference: each test spelled out as the views' comparators spelled it. */
static int reference_cmp(const void *a, const void *b)
{
	const sv_keyed *x = a, *y = b;
	if (x->k1 != y->k1)
		return x->k1 > y->k1 ? -1 : 1;
	if (x->k2 != y->k2)
		return x->k2 < y->k2 ? -1 : 1;
	if (x->rank != SV_KEYSORT_NO_RANK && y->rank != SV_KEYSORT_NO_RANK && x->rank >> 62 == y->rank >> 62)
		return x->rank < y->rank ? -1 : x->rank > y->rank;
	return strcmp(names[x->id], names[y->id]);
}

static void test_sort(void **state)
{
	(void)state;
	sv_keyed *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b)), *tmp = malloc(N * sizeof(*tmp));
	assert_true(a && b && tmp);
	for (int shape = 0; shape < 6; shape++)
		for (size_t n = 0; n <= N; n = n < 70 ? n + 1 : n * 3 / 2 + 5) {
			size_t nn = n < N ? n : N;
			for (size_t i = 0; i < nn; i++) {
				/* distinct names, some prefixes of others ("a1" < "a1x") */
				snprintf(names[i], sizeof(names[i]), "%c%u%s", 'a' + (int)(next() % 3), (unsigned)(i / 2),
					 i % 2 ? "x" : "");
				double k1 = shape == 0 ? (double)(next() % 3) : shape == 1 ? -(double)(next() % 1000) : (double)(next() % 2);
				double k2 = shape == 2 ? (double)(next() % 3) : 0;
				/* ranks: a place in strcmp order would be consistent; any distinct numbers do
				 * for the sort (shape 3: every name ranked, 4: none) */
				uint64_t rank = shape == 4 || (shape < 3 && next() % 3 == 0) ? SV_KEYSORT_NO_RANK
												 : 1ull << 62 | (uint32_t)i * 7 % 5003;
				a[i] = (sv_keyed){ shape == 3 ? (double)(i % 4) : k1, k2, rank, (uint32_t)i };
			}
			/* mixed ranked and unranked names compare by text: rank only what strcmp agrees with;
			 * shape 5: two sets, each ranked in strcmp order within itself only (a name of
			 * one set and one of the other compare by text) */
			if (shape < 3 || shape == 5) {
				uint32_t *ord = malloc((nn ? nn : 1) * sizeof(*ord));
				assert_non_null(ord);
				for (size_t i = 0; i < nn; i++)
					ord[i] = (uint32_t)i;
				for (size_t i = 1; i < nn; i++) /* insertion sort of ids by name: small n */
					for (size_t j = i; j > 0 && strcmp(names[ord[j - 1]], names[ord[j]]) > 0; j--) {
						uint32_t t = ord[j];
						ord[j] = ord[j - 1];
						ord[j - 1] = t;
					}
				uint64_t placed[2] = { 0, 0 };
				for (size_t r = 0; r < nn; r++) {
					sv_keyed *x = &a[ord[r]];
					if (shape == 5) { /* by the name's first letter: 'a' and 'c' one set, 'b' the other */
						int set = names[x->id][0] == 'b';
						x->k1 = (double)(x->id % 2);
						x->rank = (uint64_t)(1 + set) << 62 | placed[set]++;
					} else if (x->rank != SV_KEYSORT_NO_RANK) {
						x->rank = 1ull << 62 | r;
					}
				}
				free(ord);
				if (nn > 1200 && shape < 5)
					n = N; /* the quadratic ranking: enough sizes */
			}
			memcpy(b, a, nn * sizeof(*a));
			qsort(b, nn, sizeof(*b), reference_cmp);
			sv_keysort(a, nn, nn <= 16 && nn % 2 ? NULL : tmp, name_of, NULL);
			assert_memory_equal(a, b, nn * sizeof(*a));
			/* sorted input stays as it is; reversed comes out the same */
			sv_keysort(a, nn, tmp, name_of, NULL);
			assert_memory_equal(a, b, nn * sizeof(*a));
			for (size_t i = 0; i < nn; i++)
				a[i] = b[nn - 1 - i];
			sv_keysort(a, nn, tmp, name_of, NULL);
			assert_memory_equal(a, b, nn * sizeof(*a));
		}
	free(a);
	free(b);
	free(tmp);
}

/* Records of one set in rank order by radix passes (bytes they share skipped), as the
 * comparison sort orders them; and the place search. */
static void test_ranked(void **state)
{
	(void)state;
	sv_keyed *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b)), *tmp = malloc(N * sizeof(*tmp));
	assert_true(a && b && tmp);
	for (int shape = 0; shape < 3; shape++)
		for (size_t n = 0; n <= N; n = n < 40 ? n + 1 : n * 2 + 3) {
			for (size_t i = 0; i < n; i++) {
				/* shape 0: few distinct high parts; 1: random; 2: the low half shared by all
				 * (as the source's names' places are); the id keeps ranks distinct */
				uint64_t r = shape == 0 ? next() % 3 << 24 : next() & 0xFFFFFFull;
				a[i].rank = shape == 2 ? 1ull << 62 | r << 32 | 0xFFFFFFFFu
						       : 1ull << 62 | r << 16 | i;
				a[i] = (sv_keyed){ 0, 0, a[i].rank, (uint32_t)i };
			}
			if (shape == 2) /* distinct places */
				for (size_t i = 0; i < n; i++)
					a[i].rank = 1ull << 62 | (uint64_t)((i * 2654435761u) % 16777213u) << 32 | 0xFFFFFFFFu;
			memcpy(b, a, n * sizeof(*a));
			qsort(b, n, sizeof(*b), reference_cmp);
			sv_keysort_ranked(a, n, tmp);
			assert_memory_equal(a, b, n * sizeof(*a));
			for (size_t i = 0; i < n; i++) {
				sv_keyed x = b[i];
				assert_int_equal(sv_keysort_place(b, n, &x, name_of, NULL), i);
				x.rank++;
				assert_int_equal(sv_keysort_place(b, n, &x, name_of, NULL), i + 1);
			}
		}
	free(a);
	free(b);
	free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_sort), cmocka_unit_test(test_ranked) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
