/* SPDX-License-Identifier: MIT */
/* Row lists (lib/rows.c) and sorting them by a column (lib/grid.c): call tree with
 * expansion, ByName, Callers/Callees trees, Caller-Callee roles. */
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "stackview/aggview.h"
#include "stackview/formats.h"
#include "stackview/grid.h"
#include "stackview/rows.h"

static void test_rows(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
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
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
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

/* The Callees tree of Main as rows: expanding a row shows its callees, depths follow. */
static void test_rows_aggtree(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
	sv_aggtree *t;
	assert_int_equal(sv_aggtree_new(&t, v, SV_AGG_CALLEES, sv_view_name_find(v, "Main")), 0);
	sv_expansion *e;
	assert_int_equal(sv_expansion_new(&e), 0);
	assert_int_equal(sv_expansion_expand_aggrow(e, t, 0), 0);
	sv_rows r;
	assert_int_equal(sv_rows_aggtree(&r, t, e, -1), 0);
	assert_int_equal(r.kind, SV_ROWS_AGGTREE);
	assert_ptr_equal(r.agg, t);
	const char *want[] = { "Main", "C", "B", "A" };
	expect_rows(v, &r, want, 4);
	assert_int_equal(r.row[1].depth, 1);
	assert_true(r.row[1].has_children && !r.row[1].expanded);
	sv_rows_dispose(&r);
	assert_int_equal(sv_expansion_expand_aggsubtree(e, t, 0), 0);
	assert_int_equal(sv_rows_aggtree(&r, t, e, -1), 0);
	const char *all[] = { "Main", "C", "Helper", "B", "X", "A", "X" };
	expect_rows(v, &r, all, 7);
	sv_rows_dispose(&r);
	sv_expansion_free(e);
	sv_aggtree_free(t);
	sv_view_free(v);
	sv_source_free(s);
}

/* Caller-Callee rows: callers, then the focus, then callees, marked by role. */
static void test_rows_callercallee(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
	sv_callercallee *cc;
	assert_int_equal(sv_callercallee_new(&cc, v, "C"), 0);
	sv_rows r;
	assert_int_equal(sv_rows_callercallee(&r, cc), 0);
	assert_int_equal(r.kind, SV_ROWS_CALLERCALLEE);
	const char *want[] = { "Main", "C", "Helper" };
	expect_rows(v, &r, want, 3);
	assert_int_equal(r.row[0].role, SV_ROLE_CALLER);
	assert_int_equal(r.row[1].role, SV_ROLE_FOCUS);
	assert_int_equal(r.row[2].role, SV_ROLE_CALLEE);
	assert_true(r.row[1].st->inc == 90 && r.row[2].st->inc == 5);
	char w[SV_WHEN_LEN + 1];
	assert_int_equal(sv_rows_when(w, v, &r, 1), 0);
	assert_int_equal(strlen(w), SV_WHEN_LEN);
	sv_rows_dispose(&r);
	sv_callercallee_free(cc);
	sv_view_free(v);
	sv_source_free(s);
}

/* The hot path: ROOT -> Main -> C (90 %), not Helper (5 %) under a 10 % share. */
static void test_expand_hot(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
	sv_expansion *e;
	assert_int_equal(sv_expansion_new(&e), 0);
	assert_int_equal(sv_expansion_expand_hot(e, v, 0.1), 0);
	sv_rows r;
	assert_int_equal(sv_rows_calltree(&r, v, e, -1), 0);
	const char *want[] = { "ROOT", "Main", "C", "Helper", "B", "A" };
	expect_rows(v, &r, want, 6);
	assert_true(r.row[2].expanded && !r.row[4].expanded);
	sv_rows_dispose(&r);
	sv_expansion_free(e);
	sv_view_free(v);
	sv_source_free(s);
}

/* A collapsed row's child count is read without putting its list in order
 * (sv_view_node_child_count): every node's count is its list's, and a call tree's rows are
 * those of a view whose every list was put in order first. */
static void test_rows_counts(void **state)
{
	(void)state;
	sv_source *s;
	sv_error err;
	assert_int_equal(sv_load(&s, "examples/tutorial.perfView.xml", NULL, &err), 0);
	sv_view *v = fixture_view(s, NULL, 0), *w = fixture_view(s, NULL, 0);
	sv_node_id *all;
	size_t nall;
	assert_int_equal(sv_view_preorder(w, SV_NODE_ROOT, &all, &nall), 0); /* (every list in order) */
	free(all);
	for (sv_node_id n = 0; n < sv_view_node_count(v); n++) {
		const sv_node_id *k;
		assert_int_equal(sv_view_node_child_count(v, n), sv_view_node_children(w, n, &k));
	}
	sv_view_free(v);
	v = fixture_view(s, NULL, 0);
	sv_expansion *e;
	assert_int_equal(sv_expansion_new(&e), 0);
	assert_int_equal(sv_expansion_expand_hot(e, v, 0.05), 0);
	sv_rows a, b;
	assert_int_equal(sv_rows_calltree(&a, v, e, -1), 0);
	assert_int_equal(sv_rows_calltree(&b, w, e, -1), 0);
	assert_true(a.n > 20 && a.n == b.n);
	size_t collapsed = 0;
	for (size_t i = 0; i < a.n; i++) {
		assert_int_equal(a.row[i].id, b.row[i].id);
		assert_int_equal(a.row[i].depth, b.row[i].depth);
		assert_int_equal(a.row[i].has_children, b.row[i].has_children);
		assert_int_equal(a.row[i].expanded, b.row[i].expanded);
		assert_string_equal(sv_view_name(v, a.row[i].name), sv_view_name(w, b.row[i].name));
		assert_memory_equal(a.row[i].st, b.row[i].st, sizeof(sv_stats));
		collapsed += a.row[i].has_children && !a.row[i].expanded;
	}
	assert_true(collapsed > 0);
	sv_rows_dispose(&a);
	sv_rows_dispose(&b);
	sv_expansion_free(e);
	sv_view_free(v);
	sv_view_free(w);
	sv_source_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_rows), cmocka_unit_test(test_rows_sort),
					    cmocka_unit_test(test_rows_aggtree), cmocka_unit_test(test_rows_callercallee),
					    cmocka_unit_test(test_expand_hot), cmocka_unit_test(test_rows_counts) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
