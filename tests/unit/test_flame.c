/* SPDX-License-Identifier: MIT */
/* Flame graph layout (lib/flame.c): boxes in pre-order, children left to right in name
 * order, widths as fractions of the top box, narrow boxes pruned with their subtrees. */
#include <math.h>
#include <string.h>

#include "fixtures.h"
#include "stackview/flame.h"

static void expect_box(const sv_view *v, const sv_flame_box *b, const char *name, uint32_t depth, double x, double w)
{
	assert_string_equal(sv_view_name(v, b->name), name);
	assert_int_equal(b->depth, depth);
	assert_true(fabs(b->x - x) < 1e-12);
	assert_true(fabs(b->w - w) < 1e-12);
}

static void test_layout(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
	sv_flame *f;
	assert_int_equal(sv_flame_new(&f, v, SV_NODE_ROOT, 0), 0);
	assert_int_equal(f->n, 8);
	assert_int_equal(f->max_depth, 3);
	assert_true(f->total == 100);
	assert_false(f->diff);
	expect_box(v, &f->box[0], "ROOT", 0, 0, 1);
	expect_box(v, &f->box[1], "Main", 1, 0, 1);
	expect_box(v, &f->box[2], "A", 2, 0, 0.01);
	expect_box(v, &f->box[3], "X", 3, 0, 0.01);
	expect_box(v, &f->box[4], "B", 2, 0.01, 0.09);
	expect_box(v, &f->box[5], "X", 3, 0.01, 0.09);
	expect_box(v, &f->box[6], "C", 2, 0.10, 0.90);
	expect_box(v, &f->box[7], "Helper", 3, 0.10, 0.05);
	assert_true(f->box[6].inc == 90);
	sv_flame_free(f);
	/* A (1 %) and its X go below a 5 % minimum; Helper at exactly 5 % stays */
	assert_int_equal(sv_flame_new(&f, v, SV_NODE_ROOT, 0.05), 0);
	assert_int_equal(f->n, 6);
	assert_string_equal(sv_view_name(v, f->box[2].name), "B");
	sv_flame_free(f);
	sv_view_free(v);
	sv_source_free(s);
}

/* Zoomed on a node: it is the full width, its depth 0. */
static void test_zoom(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
	sv_flame *f;
	assert_int_equal(sv_flame_new(&f, v, SV_NODE_ROOT, 0), 0);
	sv_node_id c = f->box[6].node;
	sv_flame_free(f);
	assert_int_equal(sv_flame_new(&f, v, c, 0), 0);
	assert_int_equal(f->n, 2);
	assert_true(f->total == 90);
	expect_box(v, &f->box[0], "C", 0, 0, 1);
	expect_box(v, &f->box[1], "Helper", 1, 0, 5.0 / 90.0);
	sv_flame_free(f);
	sv_view_free(v);
	sv_source_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_layout), cmocka_unit_test(test_zoom) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
