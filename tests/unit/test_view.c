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

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_time_boxes), cmocka_unit_test(test_summary_line) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
