/* SPDX-License-Identifier: MIT */
/* The symbol tables' search index (sv_perf_keys): for every table size around its lines of
 * four and eight, with repeated keys and gaps, it gives sv_perf_upper's answer and the end
 * of the record before it, for keys, the values beside them, and both ends. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf_int.h"
#include "unit.h"

typedef struct rec {
	uint32_t pad;
	uint64_t at; /* not at the start: the index takes the key's offset */
	uint64_t end;
} rec;

static uint64_t seed = 42;
static uint64_t next(void)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return seed >> 17;
}

static void check_at(const sv_perf_keys *k, const rec *v, size_t n, uint64_t addr)
{
	size_t want = sv_perf_upper(v, n, sizeof(*v), offsetof(rec, at), addr);
	uint64_t end = 0;
	assert_int_equal(sv_perf_keys_upper(k, addr, &end), want);
	if (want)
		assert_int_equal(end, v[want - 1].end);
}

static void test_keys(void **state)
{
	(void)state;
	static const size_t sizes[] = { 0, 1, 63, 64, 65, 71, 72, 73, 100, 512, 513, 1000, 4095, 4096, 4097, 30011, 262145 };
	rec *v = malloc(262145 * sizeof(*v));
	assert_non_null(v);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(*sizes); s++) {
		size_t n = sizes[s];
		uint64_t a = s % 2 ? 0xffffffff81000000ull : 1000; /* a kernel's addresses too */
		for (size_t i = 0; i < n; i++) {
			a += next() % 4 == 0 ? 0 : 1 + next() % 100; /* a quarter repeat the last */
			v[i] = (rec){ 7, a, a + 1 + next() % 50 };
		}
		sv_perf_keys k;
		assert_int_equal(sv_perf_keys_build(&k, v, n, sizeof(*v), offsetof(rec, at), offsetof(rec, end)), 0);
		if (n < 64) {
			assert_null(k.keys);
			sv_perf_keys_free(&k);
			continue;
		}
		assert_non_null(k.keys);
		assert_int_equal((uintptr_t)k.keys % 64, 0);
		assert_true(k.nlevels >= 2);
		check_at(&k, v, n, 0);
		check_at(&k, v, n, UINT64_MAX);
		for (size_t i = 0; i < n; i++) {
			check_at(&k, v, n, v[i].at);
			check_at(&k, v, n, v[i].at - 1);
			check_at(&k, v, n, v[i].at + 1);
		}
		sv_perf_keys_free(&k);
		assert_null(k.keys);
	}
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_keys) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
