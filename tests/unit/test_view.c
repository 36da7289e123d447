/* SPDX-License-Identifier: MIT */
/* The view through the library API: time boxes, Drill Into, Flatten, Diff, errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/aggview.h"
#include "stackview/derive.h"
#include "stackview/grid.h"
#include "stackview/rows.h"
#include "stackview/view.h"
#include "unit.h"

/* S-fold of §14: Main→A→X 1, Main→B→X 9, Main→C 85, Main→C→Helper 5. */
static sv_source *s_fold(void)
{
	sv_source *s;
	assert_int_equal(sv_source_new(&s, "test"), 0);
	const char *p[][3] = { { "Main", "A", "X" }, { "Main", "B", "X" }, { "Main", "C", NULL }, { "Main", "C", "Helper" } };
	const double m[] = { 1, 9, 85, 5 };
	for (int i = 0; i < 4; i++) {
		sv_stack_id st;
		assert_int_equal(sv_source_intern_path(s, &st, p[i], p[i][2] ? 3 : 2), 0);
		assert_int_equal(sv_source_add_sample(s, st, i + 1, m[i], 1), 0);
	}
	return s;
}

static sv_view *view(sv_source *s, const char *box[SV_BOX_COUNT], int expect)
{
	sv_params p;
	assert_int_equal(sv_params_init(&p), 0);
	for (int i = 0; i < SV_BOX_COUNT; i++)
		if (box && box[i])
			assert_int_equal(sv_params_set(&p, (sv_box)i, box[i]), 0);
	sv_view *v = NULL;
	sv_error err;
	assert_int_equal(sv_view_new(&v, s, &p, &err), expect);
	sv_params_dispose(&p);
	return v;
}

static void test_time_boxes(void **state)
{
	(void)state;
	sv_source *s = s_fold();
	const char *box[SV_BOX_COUNT] = { 0 };
	box[SV_BOX_START] = "|3|2|"; /* two numbers in Start, swapped */
	sv_view *v = view(s, box, 0);
	assert_string_equal(sv_params_get(sv_view_params(v), SV_BOX_START), "2.000");
	assert_string_equal(sv_params_get(sv_view_params(v), SV_BOX_END), "3.000");
	assert_true(sv_view_node_stats(v, SV_NODE_ROOT)->inc == 94);
	sv_view_free(v);
	box[SV_BOX_START] = NULL;
	box[SV_BOX_END] = "soon";
	assert_null(view(s, box, SV_EINVAL));
	box[SV_BOX_END] = NULL;
	box[SV_BOX_GROUP] = "{x";
	assert_null(view(s, box, SV_EINVAL));
	sv_source_free(s);
}

static void test_drill_flatten(void **state)
{
	(void)state;
	sv_source *s = s_fold();
	sv_view *v = view(s, NULL, 0);
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
	sv_source *s = s_fold();
	sv_view *v = view(s, NULL, 0);
	sv_source *d;
	assert_int_equal(sv_diff(&d, v, v), 0);
	sv_view *dv = view(d, NULL, 0);
	assert_true(sv_view_node_stats(dv, SV_NODE_ROOT)->inc == 0);
	assert_true(sv_view_node_stats(dv, SV_NODE_ROOT)->inc_ct == 0);
	char w[SV_WHEN_LEN + 1];
	assert_int_equal(sv_view_node_when(w, dv, SV_NODE_ROOT), 0);
	assert_string_equal(w, "________________________________");
	sv_view_free(dv);
	sv_source_free(d);
	sv_view_free(v);
	sv_source_free(s);
}

static void test_summary_line(void **state)
{
	(void)state;
	sv_source *s = s_fold();
	sv_view *v = view(s, NULL, 0);
	char line[256];
	sv_view_summary_line(line, sizeof(line), v);
	assert_string_equal(line, "Totals Metric: 100.0  Count: 4.0  First: 1.000 Last: 4.000  Last-First: 3.000  "
				  "Metric/Interval: 33.33  TimeBucket: 0.1");
	sv_view_free(v);
	sv_source_free(s);
}

static void test_rows(void **state)
{
	(void)state;
	sv_source *s = s_fold();
	sv_view *v = view(s, NULL, 0);
	sv_expansion *e;
	sv_rows r;
	assert_int_equal(sv_expansion_new(&e), 0);
	assert_int_equal(sv_rows_calltree(&r, v, e, -1), 0);
	assert_int_equal(r.n, 1); /* ROOT, collapsed */
	assert_true(r.row[0].has_children && !r.row[0].expanded);
	sv_rows_dispose(&r);
	/* Expanding ROOT auto-expands its only child Main (§6.1). */
	assert_int_equal(sv_expansion_expand_node(e, v, SV_NODE_ROOT), 0);
	assert_int_equal(sv_rows_calltree(&r, v, e, -1), 0);
	assert_int_equal(r.n, 5);
	const char *want[] = { "ROOT", "Main", "C", "B", "A" };
	for (int i = 0; i < 5; i++) {
		assert_string_equal(sv_view_name(v, r.row[i].name), want[i]);
		assert_int_equal(r.row[i].depth, i < 2 ? (unsigned)i : 2u);
	}
	uint32_t main_id = r.row[1].id, c_id = r.row[2].id;
	sv_rows_dispose(&r);
	assert_int_equal(sv_expansion_expand_subtree(e, v, main_id), 0);
	assert_int_equal(sv_rows_calltree(&r, v, e, -1), 0);
	assert_int_equal(r.n, 8);
	sv_rows_dispose(&r);
	assert_int_equal(sv_expansion_set(e, c_id, false), 0);
	assert_int_equal(sv_rows_calltree(&r, v, e, -1), 0);
	assert_int_equal(r.n, 7);
	sv_rows_dispose(&r);
	/* NULL = everything, cut by depth */
	assert_int_equal(sv_rows_calltree(&r, v, NULL, 1), 0);
	assert_int_equal(r.n, 2);
	assert_false(r.row[1].expanded);
	sv_rows_dispose(&r);
	assert_int_equal(sv_rows_byname(&r, v, 3), 0);
	assert_int_equal(r.n, 3);
	assert_string_equal(sv_view_name(v, r.row[0].name), "C");
	sv_rows_dispose(&r);
	sv_expansion_free(e);
	sv_view_free(v);
	sv_source_free(s);
}

static void expect_rows(const sv_view *v, const sv_rows *r, const char *const *want, size_t n)
{
	assert_int_equal(r->n, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(sv_view_name(v, r->row[i].name), want[i]);
}

/* Sorting by a column reorders siblings, each with its subtree; depths stay consistent. */
static void test_rows_sort(void **state)
{
	(void)state;
	sv_source *s = s_fold();
	sv_view *v = view(s, NULL, 0);
	sv_rows r;
	assert_int_equal(sv_rows_calltree(&r, v, NULL, -1), 0);
	const char *dflt[] = { "ROOT", "Main", "C", "Helper", "B", "X", "A", "X" };
	expect_rows(v, &r, dflt, 8);
	assert_int_equal(sv_rows_sort(&r, 0, r.n, v, SV_COL_NAME, true), 0);
	const char *byname[] = { "ROOT", "Main", "A", "X", "B", "X", "C", "Helper" };
	expect_rows(v, &r, byname, 8);
	const unsigned depth[] = { 0, 1, 2, 3, 2, 3, 2, 3 };
	for (int i = 0; i < 8; i++)
		assert_int_equal(r.row[i].depth, depth[i]);
	assert_int_equal(sv_rows_sort(&r, 0, r.n, v, SV_COL_INC, false), 0);
	expect_rows(v, &r, dflt, 8);
	assert_int_equal(sv_rows_sort(&r, 0, r.n, v, SV_COL_FIRST, true), 0);
	expect_rows(v, &r, byname, 8); /* A at 1, B at 2, C at 3 */
	/* only a range: rows outside stay */
	assert_int_equal(sv_rows_sort(&r, 4, 8, v, SV_COL_NAME, false), 0);
	const char *part[] = { "ROOT", "Main", "A", "X", "C", "Helper", "B", "X" };
	expect_rows(v, &r, part, 8);
	sv_rows_dispose(&r);
	/* ByName: one flat group; exclusive ascending puts the zero rows first, stably */
	assert_int_equal(sv_rows_byname(&r, v, 0), 0);
	assert_int_equal(sv_rows_sort(&r, 0, r.n, v, SV_COL_EXC, true), 0);
	for (size_t i = 1; i < r.n; i++)
		assert_true(r.row[i - 1].st->exc <= r.row[i].st->exc);
	assert_string_equal(sv_view_name(v, r.row[r.n - 1].name), "C");
	sv_rows_dispose(&r);
	sv_view_free(v);
	sv_source_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_time_boxes), cmocka_unit_test(test_drill_flatten),
					    cmocka_unit_test(test_diff_self), cmocka_unit_test(test_summary_line),
					    cmocka_unit_test(test_rows), cmocka_unit_test(test_rows_sort) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
