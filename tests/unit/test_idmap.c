/* SPDX-License-Identifier: MIT */
/* The u64 -> u32 hash map every interner and importer uses (lib/idmap.c). */
#include "sv/idmap.h"
#include "unit.h"

static void test_put_get(void **state)
{
	(void)state;
	sv_idmap m;
	sv_idmap_init(&m);
	assert_int_equal(sv_idmap_get(&m, 42), SV_IDMAP_NONE); /* empty map, no slots yet */
	assert_int_equal(sv_idmap_put(&m, 42, 7), 0);
	assert_int_equal(sv_idmap_put(&m, 0, 1), 0); /* key 0 is an ordinary key */
	assert_int_equal(sv_idmap_put(&m, UINT64_MAX, 2), 0);
	assert_int_equal(sv_idmap_get(&m, 42), 7);
	assert_int_equal(sv_idmap_get(&m, 0), 1);
	assert_int_equal(sv_idmap_get(&m, UINT64_MAX), 2);
	assert_int_equal(sv_idmap_put(&m, 42, 9), 0); /* overwrite */
	assert_int_equal(sv_idmap_get(&m, 42), 9);
	assert_int_equal(m.len, 3);
	sv_idmap_dispose(&m);
}

/* Growth keeps every entry, with keys that collide in the low bits. */
static void test_growth(void **state)
{
	(void)state;
	sv_idmap m;
	sv_idmap_init(&m);
	for (uint32_t i = 0; i < 100000; i++)
		assert_int_equal(sv_idmap_put(&m, (uint64_t)i << 32, i), 0);
	assert_int_equal(m.len, 100000);
	assert_true(m.cap > m.len && (m.cap & (m.cap - 1)) == 0); /* a power of two with room */
	for (uint32_t i = 0; i < 100000; i++)
		assert_int_equal(sv_idmap_get(&m, (uint64_t)i << 32), i);
	assert_int_equal(sv_idmap_get(&m, 100000ULL << 32), SV_IDMAP_NONE);
	sv_idmap_dispose(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_put_get), cmocka_unit_test(test_growth) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
