/* SPDX-License-Identifier: MIT */
/* Derived sources (lib/derive.c): Drill Into, Flatten, Diff, the view as a source, and the
 * Overweight report (semantics §8, §9). */
#include <string.h>

#include "fixtures.h"
#include "stackview/derive.h"
#include "stackview/when.h"

static void test_drill_flatten(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
	sv_name_id x = sv_view_name_find(v, "X");
	sv_source *d;
	sv_params dp;
	assert_int_equal(sv_drill_into(&d, &dp, v, SV_DRILL_BYNAME, x, true), 0);
	assert_int_equal(sv_source_sample_count(d), 2);
	assert_true(sv_source_total_metric(d) == 10);
	sv_params_dispose(&dp);
	sv_source_free(d);
	/* exclusive on the C node: only the sample that stops at C */
	sv_name_id main_name = sv_view_name_find(v, "Main");
	const sv_node_id *kids;
	uint32_t nk = sv_view_node_children(v, SV_NODE_ROOT, &kids);
	assert_int_equal(nk, 1);
	assert_int_equal(sv_view_node_name(v, kids[0]), main_name);
	const sv_node_id *mk;
	sv_view_node_children(v, kids[0], &mk);
	assert_string_equal(sv_view_name(v, sv_view_node_name(v, mk[0])), "C");
	assert_int_equal(sv_drill_into(&d, &dp, v, SV_DRILL_NODE, mk[0], false), 0);
	assert_true(sv_source_total_metric(d) == 85);
	sv_params_dispose(&dp);
	sv_source_free(d);
	assert_int_equal(sv_flatten(&d, &dp, v), 0);
	assert_int_equal(sv_source_stack_count(d), 3); /* X, C, Helper */
	assert_true(sv_source_total_metric(d) == 100);
	sv_params_dispose(&dp);
	sv_source_free(d);
	sv_view_free(v);
	sv_source_free(s);
}

static void test_diff_self(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
	sv_source *d;
	assert_int_equal(sv_diff(&d, v, v), 0);
	sv_view *dv = fixture_view(d, NULL, 0);
	assert_true(sv_view_node_stats(dv, SV_NODE_ROOT).inc == 0);
	assert_true(sv_view_node_stats(dv, SV_NODE_ROOT).inc_ct == 0);
	char w[SV_WHEN_LEN + 1];
	assert_int_equal(sv_view_node_when(w, dv, SV_NODE_ROOT), 0);
	assert_string_equal(w, "________________________________");
	sv_view_free(dv);
	sv_source_free(d);
	sv_view_free(v);
	sv_source_free(s);
}

/* The view as a source keeps what the filters kept: grouped names when asked for. */
static void test_export_source(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	const char *box[SV_BOX_COUNT] = { 0 };
	box[SV_BOX_GROUP] = "{A|B}->AB";
	box[SV_BOX_EXC] = "Helper";
	sv_view *v = fixture_view(s, box, 0);
	sv_source *out;
	assert_int_equal(sv_view_export_source(&out, v, true), 0);
	assert_true(sv_source_total_metric(out) == 95); /* Helper's 5 excluded */
	sv_view *ov = fixture_view(out, NULL, 0);
	assert_true(sv_view_name_find(ov, "AB") != SV_NAME_NONE);
	assert_true(sv_view_name_find(ov, "Helper") == SV_NAME_NONE);
	sv_view_free(ov);
	sv_source_free(out);
	assert_int_equal(sv_view_export_source(&out, v, false), 0);
	ov = fixture_view(out, NULL, 0);
	assert_true(sv_view_name_find(ov, "A") != SV_NAME_NONE); /* ungrouped names */
	sv_view_free(ov);
	sv_source_free(out);
	sv_view_free(v);
	sv_source_free(s);
}

/* T21 of semantics §9.2: base 100, test 110; app!x and app!f 200 % overweight, g hidden. */
static void test_overweight(void **state)
{
	(void)state;
	static const char *const p[][8] = { { "app!main", "app!f" }, { "app!main", "app!g" },
					    { "app!main", "app!f", "app!x" } };
	static const double tm[] = { 30, 50, 30 }, bm[] = { 25, 50, 25 };
	sv_source *ts = fixture_source(p, tm, 3), *bs = fixture_source(p, bm, 3);
	sv_view *tv = fixture_view(ts, NULL, 0), *bv = fixture_view(bs, NULL, 0);
	sv_overweight ow;
	assert_int_equal(sv_overweight_compute(&ow, tv, bv), 0);
	assert_true(ow.base == 100 && ow.test == 110 && ow.delta == 10);
	assert_true(ow.delta_pct > 9.999 && ow.delta_pct < 10.001);
	assert_int_equal(ow.nrows, 4);
	const char *names[] = { "app!x", "app!f", "ROOT", "app!main" };
	const double delta[] = { 5, 10, 10, 10 }, resp[] = { 50, 100, 100, 100 }, over[] = { 200, 200, 100, 100 };
	const int interest[] = { 5, 5, 2, 2 };
	for (int i = 0; i < 4; i++) {
		assert_string_equal(ow.rows[i].name, names[i]);
		assert_true(ow.rows[i].delta == delta[i]);
		assert_true(ow.rows[i].responsibility_pct > resp[i] - 1e-9 && ow.rows[i].responsibility_pct < resp[i] + 1e-9);
		assert_true(ow.rows[i].overweight_pct > over[i] - 1e-9 && ow.rows[i].overweight_pct < over[i] + 1e-9);
		assert_int_equal(ow.rows[i].interest, interest[i]);
	}
	sv_overweight_dispose(&ow);
	sv_view_free(tv);
	sv_view_free(bv);
	sv_source_free(ts);
	sv_source_free(bs);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_drill_flatten), cmocka_unit_test(test_diff_self),
					    cmocka_unit_test(test_export_source), cmocka_unit_test(test_overweight) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
