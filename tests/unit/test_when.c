/* SPDX-License-Identifier: MIT */
/* The When character table (spec §7.3, T17). */
#include "stackview/view.h"
#include "stackview/when.h"
#include "unit.h"

static void test_t17(void **state)
{
	(void)state;
	/* Values as float32, as PerfView stores them. */
	static const float v[] = { 0,   .0005f, .0009f, .001f, .005f, .0099f, .01f, .0999f, .1f,    .15f, .95f,
				   .9999f, 1.0f, 1.05f, 1.1f, 2.0f, 3.4999f, 3.5f, 10,    -.0001f, -.05f, -.1f,
				   -.15f, -1.0f, -2.45f, -2.5f, -3, .5f,  .2f,   .3f,    .4f,  .6f };
	double b[SV_WHEN_LEN];
	for (int i = 0; i < SV_WHEN_LEN; i++)
		b[i] = v[i];
	char out[SV_WHEN_LEN + 1];
	sv_when_encode(out, b, 1.0);
	assert_string_equal(out, "_..oooo01199AABKY**aabbky@@52346");
}

static void test_scale(void **state)
{
	(void)state;
	assert_int_equal(sv_when_char(5, 0), '_');
	assert_int_equal(sv_when_char(2, 1), 'K');
	assert_int_equal(sv_when_char(-1.0, 1), 'k');
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_t17), cmocka_unit_test(test_scale) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
