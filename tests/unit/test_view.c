/* SPDX-License-Identifier: MIT */
/* The view through the library API: time boxes, their errors, the summary line (derived
 * sources, rows and the grid have their own tests). */
#include "fixtures.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_time_boxes), cmocka_unit_test(test_summary_line) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
