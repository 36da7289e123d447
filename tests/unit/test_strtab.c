/* SPDX-License-Identifier: MIT */
/* The string interner behind frame and display names (lib/strtab.c). */
#include <stdio.h>
#include <string.h>

#include "stackview/status.h"
#include "strtab_int.h"
#include "unit.h"

static void test_intern(void **state)
{
	(void)state;
	strtab t;
	sv_strtab_init(&t);
	uint32_t a, b, c, d;
	assert_int_equal(sv_strtab_intern(&t, &a, "alpha", 5), 0);
	assert_int_equal(sv_strtab_intern(&t, &b, "beta", 4), 0);
	assert_int_equal(sv_strtab_intern(&t, &c, "alphabet", 5), 0); /* only the first 5 bytes */
	assert_int_equal(sv_strtab_intern(&t, &d, "", 0), 0);
	assert_int_equal(a, 0);
	assert_int_equal(b, 1);
	assert_int_equal(c, a);
	assert_int_equal(d, 2);
	assert_string_equal(sv_strtab_str(&t, b), "beta");
	assert_int_equal(sv_strtab_len(&t, a), 5);
	assert_int_equal(sv_strtab_find(&t, "beta", 4), b);
	assert_int_equal(sv_strtab_find(&t, "gamma", 5), UINT32_MAX);
	/* embedded NUL bytes are part of the text */
	uint32_t z;
	assert_int_equal(sv_strtab_intern(&t, &z, "a\0b", 3), 0);
	assert_int_not_equal(z, a);
	assert_int_equal(sv_strtab_len(&t, z), 3);
	sv_strtab_dispose(&t);
}

/* Many strings: ids stay dense and texts stable across growth. */
static void test_growth(void **state)
{
	(void)state;
	strtab t;
	sv_strtab_init(&t);
	const char *first = NULL;
	for (uint32_t i = 0; i < 50000; i++) {
		char buf[32];
		int n = snprintf(buf, sizeof(buf), "frame%u", i);
		uint32_t id;
		assert_int_equal(sv_strtab_intern(&t, &id, buf, (size_t)n), 0);
		assert_int_equal(id, i);
		if (i == 0)
			first = sv_strtab_str(&t, 0);
	}
	assert_ptr_equal(sv_strtab_str(&t, 0), first); /* arena text never moves */
	assert_int_equal(sv_strtab_find(&t, "frame49999", 10), 49999);
	sv_strtab_dispose(&t);
}

/* Renaming gives ids new texts and re-indexes them. */
static void test_rename(void **state)
{
	(void)state;
	strtab t;
	sv_strtab_init(&t);
	uint32_t p, q;
	assert_int_equal(sv_strtab_intern(&t, &p, "Process (7)", 11), 0);
	assert_int_equal(sv_strtab_intern(&t, &q, "Thread (8)", 10), 0);
	const uint32_t ids[] = { p };
	const char *const texts[] = { "Process a;b (7)" };
	const size_t lens[] = { 15 };
	assert_int_equal(sv_strtab_rename(&t, ids, texts, lens, 1), 0);
	assert_string_equal(sv_strtab_str(&t, p), "Process a;b (7)");
	assert_int_equal(sv_strtab_find(&t, "Process a;b (7)", 15), p);
	assert_int_equal(sv_strtab_find(&t, "Process (7)", 11), UINT32_MAX);
	assert_int_equal(sv_strtab_find(&t, "Thread (8)", 10), q);
	const uint32_t bad[] = { 99 };
	assert_int_equal(sv_strtab_rename(&t, bad, texts, lens, 1), SV_EINVAL);
	sv_strtab_dispose(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_intern), cmocka_unit_test(test_growth),
					    cmocka_unit_test(test_rename) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
