/* SPDX-License-Identifier: MIT */
/* The in-place fast paths of the JSON cursor (numbers, integers, integer arrays) against
 * json-c: whatever they accept, they read as json-c reads it; what they decline, json-c
 * reads (or refuses) in their place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_stream.h"
#include "unit.h"

static char name[] = "test.json", buf[256];

/* An input over a copy of text (the cursor never writes it). */
static sv_input input_of(const char *text)
{
	sv_input in;
	memset(&in, 0, sizeof(in));
	snprintf(buf, sizeof(buf), "%s", text);
	in.name = name;
	in.data = (unsigned char *)buf;
	in.len = strlen(buf);
	return in;
}

static void test_numbers(void **state)
{
	(void)state;
	static const char *const ok[] = { "0,", "-0]", "7 ", "12.5,", "-3.25e2]", "1E-3}", "123456789012345,", "0.1,",
					  "1.7976931348623157e308,", "4.9e-324," };
	static const char *const declined[] = { "01,", "1.,", ".5,", "+1,", "1e,", "1234567890123456,", "1e400,", "x,",
						"\"1\",", "1" /* no delimiter: the input ends */ };
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		sv_input in = input_of(ok[i]);
		sv_jcur c, d;
		sv_jc_init(&c, &in);
		sv_jc_init(&d, &in);
		double fast;
		assert_int_equal(sv_jc_number(&c, &fast), 1);
		json_object *o = NULL;
		sv_error err;
		assert_int_equal(sv_jc_value(&d, &o, &err), 0);
		double slow;
		assert_true(sv_json_number(o, &slow));
		assert_true(memcmp(&fast, &slow, sizeof(double)) == 0);
		sv_jc_peek(&c); /* json-c may have taken the white space after the number too */
		sv_jc_peek(&d);
		assert_int_equal(c.pos, d.pos);
		json_object_put(o);
	}
	for (size_t i = 0; i < sizeof(declined) / sizeof(declined[0]); i++) {
		sv_input in = input_of(declined[i]);
		sv_jcur c;
		sv_jc_init(&c, &in);
		double v;
		assert_int_equal(sv_jc_number(&c, &v), 0);
		assert_int_equal(c.pos, 0);
	}
}

static void test_integers(void **state)
{
	(void)state;
	uint64_t *vals = NULL, u;
	size_t n = 0, cap = 0;
	sv_input in = input_of(" [ 3, 0,12 ,9007199254740992] ,");
	sv_jcur c;
	sv_jc_init(&c, &in);
	assert_int_equal(sv_jc_uint_array(&c, &vals, &n, &cap), 1);
	assert_int_equal(n, 4);
	assert_true(vals[0] == 3 && vals[1] == 0 && vals[2] == 12 && vals[3] == 9007199254740992ULL);
	assert_int_equal(in.data[c.pos], ' ');
	in = input_of("[]");
	sv_jc_init(&c, &in);
	assert_int_equal(sv_jc_uint_array(&c, &vals, &n, &cap), 1);
	assert_int_equal(n, 0);
	static const char *const declined[] = { "[1,]", "[-1]", "[1.0]", "[01]", "[9007199254740993]", "[1 2]", "[1", "{}",
						"[[1]]", "[\"1\"]" };
	for (size_t i = 0; i < sizeof(declined) / sizeof(declined[0]); i++) {
		in = input_of(declined[i]);
		sv_jc_init(&c, &in);
		assert_int_equal(sv_jc_uint_array(&c, &vals, &n, &cap), 0);
		assert_int_equal(c.pos, 0);
	}
	in = input_of("42]");
	sv_jc_init(&c, &in);
	assert_int_equal(sv_jc_uint(&c, &u), 1);
	assert_true(u == 42 && c.pos == 2);
	in = input_of("42.0]");
	sv_jc_init(&c, &in);
	assert_int_equal(sv_jc_uint(&c, &u), 0);
	free(vals);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_numbers), cmocka_unit_test(test_integers) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
