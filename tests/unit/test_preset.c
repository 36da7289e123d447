/* SPDX-License-Identifier: MIT */
/* GroupPats presets (lib/preset.c): PerfView's built-ins, the user's list in PerfView's
 * "$$$$" / "####" text form, and applying one to the boxes. */
#include <stdlib.h>
#include <string.h>

#include "stackview/params.h"
#include "stackview/preset.h"
#include "stackview/view.h"
#include "unit.h"

static void test_builtins(void **state)
{
	(void)state;
	assert_true(sv_builtin_preset_count() >= 7);
	assert_string_equal(sv_builtin_preset_name(0), "no grouping");
	assert_string_equal(sv_builtin_preset_group(0), "");
	bool found = false;
	for (size_t i = 0; i < sv_builtin_preset_count(); i++)
		if (!strcmp(sv_builtin_preset_name(i), "group module entries"))
			found = !strcmp(sv_builtin_preset_group(i), "{%}!=>module $1");
	assert_true(found);
}

static void test_list(void **state)
{
	(void)state;
	sv_presets ps = { 0 };
	assert_int_equal(sv_presets_put(&ps, "mine", "{%}!->$1", "1", "ntoskrnl", "a note"), 0);
	assert_int_equal(sv_presets_put(&ps, "other", "", "", "", ""), 0);
	assert_int_equal(ps.n, 2);
	/* put with an existing name replaces it in place */
	assert_int_equal(sv_presets_put(&ps, "mine", "x->y", "2", "", ""), 0);
	assert_int_equal(ps.n, 2);
	assert_int_equal(sv_presets_find(&ps, "mine"), 0);
	assert_string_equal(ps.p[0].group, "x->y");
	assert_int_equal(sv_presets_find(&ps, "absent"), -1);
	sv_presets_remove(&ps, 0);
	assert_int_equal(ps.n, 1);
	assert_string_equal(ps.p[0].name, "other");
	sv_presets_remove(&ps, 5); /* out of range: nothing */
	assert_int_equal(ps.n, 1);
	sv_presets_dispose(&ps);
	assert_int_equal(ps.n, 0);
	assert_null(ps.p);
}

/* The text form survives a round trip; comments are XML-name encoded as PerfView does. */
static void test_format_parse(void **state)
{
	(void)state;
	sv_presets ps = { 0 };
	assert_int_equal(sv_presets_put(&ps, "a", "{%}!->module $1", "2", "Thread", "two words"), 0);
	assert_int_equal(sv_presets_put(&ps, "b", "", "", "", ""), 0);
	char *text;
	assert_int_equal(sv_presets_format(&text, &ps), 0);
	assert_string_equal(text, "Name=a$$$$GroupPat={%}!->module $1$$$$FoldPercentage=2$$$$FoldPat=Thread$$$$"
				  "Comment=two_x0020_words####\n"
				  "Name=b$$$$GroupPat=$$$$FoldPercentage=$$$$FoldPat=$$$$Comment=\n");
	sv_presets back;
	assert_int_equal(sv_presets_parse(&back, text), 0);
	assert_int_equal(back.n, 2);
	assert_string_equal(back.p[0].group, "{%}!->module $1");
	assert_string_equal(back.p[0].fold, "Thread");
	assert_string_equal(back.p[0].comment, "two words");
	assert_string_equal(back.p[1].name, "b");
	free(text);
	sv_presets_dispose(&back);
	sv_presets_dispose(&ps);
	/* entries without a name are skipped; garbage is not an error */
	assert_int_equal(sv_presets_parse(&back, "GroupPat=x####nonsense####Name=ok"), 0);
	assert_int_equal(back.n, 1);
	assert_string_equal(back.p[0].name, "ok");
	sv_presets_dispose(&back);
}

static void test_apply_split(void **state)
{
	(void)state;
	sv_params p;
	assert_int_equal(sv_params_init(&p), 0);
	assert_int_equal(sv_preset_apply(&p, "mine", "{%}!->$1", "3", "Thread"), 0);
	assert_string_equal(sv_params_get(&p, SV_BOX_GROUP), "[mine] {%}!->$1");
	assert_string_equal(sv_params_get(&p, SV_BOX_FOLD_PCT), "3");
	assert_string_equal(sv_params_get(&p, SV_BOX_FOLD), "Thread");
	char *name, *pats;
	assert_int_equal(sv_preset_split_group(&name, &pats, sv_params_get(&p, SV_BOX_GROUP)), 0);
	assert_string_equal(name, "mine");
	assert_string_equal(pats, "{%}!->$1");
	free(name);
	free(pats);
	assert_int_equal(sv_preset_split_group(&name, &pats, "  plain->x"), 0);
	assert_string_equal(name, "");
	assert_string_equal(pats, "plain->x");
	free(name);
	free(pats);
	sv_params_dispose(&p);
}

/* The opening GroupPats of a perf profile: system code grouped, the program's modules kept
 * (exclusion entries first); names the pattern language cannot spell are left out. */
static void test_group_system(void **state)
{
	(void)state;
	sv_source *s;
	assert_int_equal(sv_source_new(&s, "test"), 0);
	char *g;
	assert_int_equal(sv_preset_group_system(&g, s), 0);
	assert_string_equal(g, "[group module entries] {%}!=>module $1");
	free(g);
	assert_int_equal(sv_source_add_user_module(s, "mt", 2), 0);
	assert_int_equal(sv_source_add_user_module(s, "mt", 2), 0); /* once */
	assert_int_equal(sv_source_add_user_module(s, "libmy.so.1", 10), 0);
	assert_int_equal(sv_source_add_user_module(s, "odd%name", 8), 0);
	assert_int_equal(sv_source_user_module_count(s), 3);
	assert_int_equal(sv_preset_group_system(&g, s), 0);
	assert_string_equal(g, "[group system modules] ^mt!->;^libmy.so.1!->;{%}!=>module $1");
	/* and the engine reads it so: mt!main stays, libc.so.6!write is grouped (entry group) */
	static const char *const p1[] = { "mt!main", "libc.so.6!write" };
	sv_stack_id st;
	assert_int_equal(sv_source_intern_path(s, &st, p1, 2), 0);
	assert_int_equal(sv_source_add_sample(s, st, 1, 1, 1), 0);
	sv_params p;
	assert_int_equal(sv_params_init(&p), 0);
	assert_int_equal(sv_params_set(&p, SV_BOX_GROUP, g), 0);
	sv_view *v;
	sv_error err;
	assert_int_equal(sv_view_new(&v, s, &p, &err), 0);
	assert_true(sv_view_name_find(v, "mt!main") != SV_NAME_NONE);
	assert_true(sv_view_name_find(v, "module libc.so.6 <<libc.so.6!write>>") != SV_NAME_NONE);
	sv_view_free(v);
	sv_params_dispose(&p);
	free(g);
	sv_source_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_builtins), cmocka_unit_test(test_list),
					    cmocka_unit_test(test_format_parse), cmocka_unit_test(test_apply_split),
					    cmocka_unit_test(test_group_system) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
