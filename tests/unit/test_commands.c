/* SPDX-License-Identifier: MIT */
/* Command box edits (spec §8, T26, with D8). */
#include <stdlib.h>
#include <string.h>

#include "stackview/commands.h"
#include "unit.h"

#define EXPECT(call, want)                        \
	do {                                      \
		char *out_ = NULL;                \
		assert_int_equal((call), 0);      \
		assert_string_equal(out_, (want)); \
		free(out_);                       \
	} while (0)

static void test_ungroup(void **state)
{
	(void)state;
	EXPECT(sv_cmd_ungroup(&out_, "[group module entries]  {%}!=>module $1", "module ntdll <<ntdll!RtlUserThreadStart>>"),
	       "ntdll!RtlUserThreadStart->;{%}!=>module $1");
	EXPECT(sv_cmd_ungroup(&out_, "[group modules]           {%}!->module $1", "module ntdll"),
	       "ntdll!->;{%}!->module $1");
	EXPECT(sv_cmd_ungroup(&out_, "a!->LIB;{%}!->module $1", "LIB"), "{%}!->module $1");
	EXPECT(sv_cmd_ungroup_module(&out_, "[group module entries]  {%}!=>module $1",
				     "module ntdll <<ntdll!RtlUserThreadStart>>"),
	       "ntdll!->;{%}!=>module $1");
	char *o = NULL;
	assert_int_equal(sv_cmd_ungroup(&o, "{%}!->module $1", "plainname"), SV_EINVAL);
}

static void test_group_module(void **state)
{
	(void)state;
	/* D8: inserted after the comment */
	EXPECT(sv_cmd_group_module(&out_, "[group module entries]  {%}!=>module $1", "ntdll!RtlUserThreadStart", false),
	       "[group module entries] ntdll!->ntdll;{%}!=>module $1");
	EXPECT(sv_cmd_group_module(&out_, "", "ntdll!RtlUserThreadStart", true), "ntdll!=>ntdll");
	EXPECT(sv_cmd_group_module(&out_, "x->y", "ld-linux-x86-64.so.2!f", false),
	       "ld-linux-x86-64.so.2!->ld-linux-x86-64.so.2;x->y");
}

static void test_addset(void **state)
{
	(void)state;
	EXPECT(sv_cmd_addset(&out_, "", "Helper"), "Helper");
	EXPECT(sv_cmd_addset(&out_, "[my folds] A;B", "C"), "[my folds] A;B;C");
	EXPECT(sv_cmd_addset(&out_, "[my folds] A;B", "A"), "[my folds] A;B");
	EXPECT(sv_cmd_addset(&out_, "[my folds] A;B", "B"), "[my folds] A;B");
	EXPECT(sv_cmd_addset(&out_, "A;", "B"), "A;B");
}

static void test_items(void **state)
{
	(void)state;
	const char *p[] = { "Process myapp (100)" };
	EXPECT(sv_cmd_include_items(&out_, "", p, 1), "^Process myapp (100)");
	const char *q[] = { "libc.so.6!__libc_start_main" };
	EXPECT(sv_cmd_include_items(&out_, "Process% myapp (100)", q, 1),
	       "Process% myapp (100);libc.so.6!__libc_start_main");
	const char *t[] = { "Thread (101)" };
	EXPECT(sv_cmd_exclude_items(&out_, "", t, 1), "^Thread (101)");
	const char *two[] = { "a!f", "Thread (1)" };
	EXPECT(sv_cmd_exclude_items(&out_, "x", two, 2), "x;a!f|^Thread (1)");
	EXPECT(sv_cmd_fold_module(&out_, "", "module libc.so.6 <<libc.so.6!__libc_start_main>>"), "libc.so.6!");
	EXPECT(sv_cmd_fold_module(&out_, "", "module ntdll"), "ntdll!");
	EXPECT(sv_cmd_fold_item(&out_, "A", "Helper"), "A;Helper");
}

static void test_fold_pct(void **state)
{
	(void)state;
	const char *want[] = { "1.60", "2.56", "4.10", "6.56", "10.50" };
	char *cur = strdup("1");
	for (int i = 0; i < 5; i++) {
		char *next;
		assert_int_equal(sv_cmd_fold_pct(&next, cur, true), 0);
		assert_string_equal(next, want[i]);
		free(cur);
		cur = next;
	}
	free(cur);
	EXPECT(sv_cmd_fold_pct(&out_, "", true), "");
	EXPECT(sv_cmd_fold_pct(&out_, "1.6", false), "1.00");
}

static void test_priority(void **state)
{
	(void)state;
	/* a new entry goes first (first match wins) at +-1 */
	EXPECT(sv_cmd_priority(&out_, "[*local vars]->-1000;[other roots]->-2000000", "app!App.Cache", 1),
	       "app!App.Cache->1;[*local vars]->-1000;[other roots]->-2000000");
	/* an existing one moves to the front with its number changed; blank entries go */
	EXPECT(sv_cmd_priority(&out_, "a->1; ;[*local vars] -> -1000;b->2", "[*local vars]", -1),
	       "[*local vars]->-1001;a->1;b->2");
	EXPECT(sv_cmd_priority(&out_, "", "mscorlib!", -1), "mscorlib!->-1");
	EXPECT(sv_cmd_priority(&out_, "x->-1", "x", 1), "x->0");
	char *none = NULL;
	assert_int_equal(sv_cmd_priority(&none, "a->1", "", 1), SV_EINVAL);
	assert_null(none);
}

static void test_params_cmds(void **state)
{
	(void)state;
	sv_params p;
	assert_int_equal(sv_params_init(&p), 0);
	assert_int_equal(sv_params_set(&p, SV_BOX_FOLD, "x"), 0);
	assert_int_equal(sv_params_set(&p, SV_BOX_FOLD_PCT, "3"), 0);
	assert_int_equal(sv_cmd_remove_all_folding(&p), 0);
	assert_string_equal(sv_params_get(&p, SV_BOX_FOLD), "");
	assert_string_equal(sv_params_get(&p, SV_BOX_FOLD_PCT), "");
	assert_int_equal(sv_cmd_set_time_range(&p, 1234.5, 2000), 0);
	assert_string_equal(sv_params_get(&p, SV_BOX_START), "1,234.500");
	assert_string_equal(sv_params_get(&p, SV_BOX_END), "2,000.000");
	sv_params_dispose(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ungroup), cmocka_unit_test(test_group_module), cmocka_unit_test(test_addset),
		cmocka_unit_test(test_items),   cmocka_unit_test(test_fold_pct),     cmocka_unit_test(test_params_cmds),
		cmocka_unit_test(test_priority),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
