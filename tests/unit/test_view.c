/* SPDX-License-Identifier: MIT */
/* The view through the library API: time boxes, their errors, the summary line (derived
 * sources, rows and the grid have their own tests). */
#include "fixtures.h"
#include "stackview/aggview.h"

static void test_time_boxes(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	const char *box[SV_BOX_COUNT] = { 0 };
	box[SV_BOX_START] = "|3|2|"; /* two numbers in Start, swapped */
	sv_view *v = fixture_view(s, box, 0);
	assert_string_equal(sv_params_get(sv_view_params(v), SV_BOX_START), "2.000");
	assert_string_equal(sv_params_get(sv_view_params(v), SV_BOX_END), "3.000");
	assert_true(sv_view_node_stats(v, SV_NODE_ROOT)->inc == 94);
	sv_view_free(v);
	box[SV_BOX_START] = NULL;
	box[SV_BOX_END] = "soon";
	assert_null(fixture_view(s, box, SV_EINVAL));
	box[SV_BOX_END] = NULL;
	box[SV_BOX_GROUP] = "{x";
	assert_null(fixture_view(s, box, SV_EINVAL));
	sv_source_free(s);
}

static void test_summary_line(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
	char line[256];
	sv_view_summary_line(line, sizeof(line), v);
	assert_string_equal(line, "Totals Metric: 100.0  Count: 4.0  First: 1.000 Last: 4.000  Last-First: 3.000  "
				  "Metric/Interval: 33.33  TimeBucket: 0.1");
	sv_view_free(v);
	sv_source_free(s);
}

/* Max: the largest single sample under a node (call tree), under every node of a name
 * (ByName), attributed to callers and callees, and kept by a node that folds its children. */
static void test_max(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
	assert_true(sv_view_node_stats(v, SV_NODE_ROOT)->max == 85);
	sv_name_id x = sv_view_name_find(v, "X"), c = sv_view_name_find(v, "C");
	assert_true(sv_view_byname_stats(v, sv_view_byname_find(v, x))->max == 9);
	assert_true(sv_view_byname_stats(v, sv_view_byname_find(v, c))->max == 85);
	sv_aggtree *t;
	assert_int_equal(sv_aggtree_new(&t, v, SV_AGG_CALLERS, x), 0);
	bool a = false, b = false;
	for (uint32_t i = 0; i < sv_aggtree_count(t); i++) {
		const sv_aggrow *r = sv_aggtree_row(t, i);
		a |= r->name == sv_view_name_find(v, "A") && r->st.max == 1;
		b |= r->name == sv_view_name_find(v, "B") && r->st.max == 9;
	}
	assert_true(a && b);
	sv_aggtree_free(t);
	sv_view_free(v);
	/* Fold% 10: Helper (5) and A (1) fold into their callers, which keep their largest sample */
	const char *box[SV_BOX_COUNT] = { 0 };
	box[SV_BOX_FOLD_PCT] = "10";
	v = fixture_view(s, box, 0);
	assert_true(sv_view_byname_stats(v, sv_view_byname_find(v, sv_view_name_find(v, "Main")))->max == 85);
	assert_true(sv_view_node_stats(v, SV_NODE_ROOT)->max == 85);
	sv_view_free(v);
	sv_source_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_time_boxes), cmocka_unit_test(test_summary_line),
					    cmocka_unit_test(test_max) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
