/* SPDX-License-Identifier: MIT */
/* Box texts, number parsing and n0/n1/n3 formatting. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stackview/params.h"
#include "unit.h"

static void test_parse(void **state)
{
	(void)state;
	double v;
	assert_true(sv_parse_number(" 1,234.5 ", &v));
	assert_true(v == 1234.5);
	assert_true(sv_parse_number("Infinity", &v) && isinf(v));
	assert_false(sv_parse_number("", &v));
	assert_false(sv_parse_number("12abc", &v));
	assert_false(sv_parse_number("1 2", &v));
}

static void test_format(void **state)
{
	(void)state;
	char b[64];
	sv_format_number(b, sizeof(b), 2000, 3);
	assert_string_equal(b, "2,000.000");
	sv_format_number(b, sizeof(b), -1000, 1);
	assert_string_equal(b, "-1,000.0");
	sv_format_number(b, sizeof(b), -0.0001, 1);
	assert_string_equal(b, "0.0");
	sv_format_number(b, sizeof(b), 1234567, 0);
	assert_string_equal(b, "1,234,567");
	/* ties round away from zero, as .NET's n1 does */
	sv_format_number(b, sizeof(b), 1.25, 1);
	assert_string_equal(b, "1.3");
	sv_format_number(b, sizeof(b), -0.125, 2);
	assert_string_equal(b, "-0.13");
	sv_format_number(b, sizeof(b), 2.675, 2); /* 2.67499999... in binary: not a tie */
	assert_string_equal(b, "2.67");
	/* the largest doubles fit (found by fuzzing) */
	char big[1024];
	sv_format_number(big, sizeof(big), -1.7976931348623157e308, 3);
	assert_int_equal(strlen(big), 1 + 309 + 102 + 4);
	assert_memory_equal(big, "-179,769,313", 12);
}

/* The digits are printf's "%.*f" (ties away from zero, as .NET), whichever way they are made:
 * random values of the kinds profiles have (ms of sampled periods, counts, halves and
 * eighths, any double) at 0-4 decimals, separators taken out. */
static void test_format_like_printf(void **state)
{
	(void)state;
	uint64_t s = 88172645463325252ull;
	for (long i = 0; i < 400000; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		double v, d;
		switch (i % 4) {
		case 0: v = (double)(s % 100000000) / 1000.0; break;
		case 1: v = (double)(s % 1000000) * 0.020408; break;
		case 2: memcpy(&d, &s, sizeof(d)); v = isfinite(d) ? fmod(fabs(d), 1e12) : 0.5; break;
		default: v = ((double)(s % 2000000) - 1000000) / 8.0; break;
		}
		int dec = (int)(i % 5);
		char got[512], want[512], tie[512], g[512];
		sv_format_number(got, sizeof(got), v, dec);
		size_t o = 0;
		for (const char *p = got; *p; p++)
			if (*p != ',')
				g[o++] = *p;
		g[o] = '\0';
		snprintf(want, sizeof(want), "%.*f", dec, v);
		snprintf(tie, sizeof(tie), "%.*f", dec, nextafter(v, v < 0 ? -INFINITY : INFINITY));
		/* "-0.0" prints without its sign */
		const char *w = want[0] == '-' && !strpbrk(want, "123456789") ? want + 1 : want;
		const char *t = tie[0] == '-' && !strpbrk(tie, "123456789") ? tie + 1 : tie;
		if (strcmp(g, w) && strcmp(g, t))
			fail_msg("%.17g at %d decimals: %s, printf %s", v, dec, g, want);
	}
}

static void test_copy_equal(void **state)
{
	(void)state;
	sv_params a, b;
	assert_int_equal(sv_params_init(&a), 0);
	assert_int_equal(sv_params_set(&a, SV_BOX_INC, "x"), 0);
	assert_int_equal(sv_params_copy(&b, &a), 0);
	assert_true(sv_params_equal(&a, &b));
	assert_int_equal(sv_params_set(&b, SV_BOX_INC, "y"), 0);
	assert_false(sv_params_equal(&a, &b));
	assert_string_equal(sv_box_name(SV_BOX_FOLD_PCT), "Fold%");
	sv_params_dispose(&a);
	sv_params_dispose(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_parse), cmocka_unit_test(test_format),
					    cmocka_unit_test(test_format_like_printf),
					    cmocka_unit_test(test_copy_equal) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
