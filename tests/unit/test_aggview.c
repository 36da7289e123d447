/* SPDX-License-Identifier: MIT */
/* Callers, Callees and Caller-Callee (lib/aggview.c) on S-fold and on recursion. */
#include <string.h>

#include "fixtures.h"
#include "stackview/aggview.h"

static const char *row_name(const sv_view *v, const sv_aggtree *t, uint32_t row)
{
	return sv_view_name(v, sv_aggtree_row(t, row)->name);
}

static void test_callers(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
	sv_aggtree *t;
	assert_int_equal(sv_aggtree_new(&t, v, SV_AGG_CALLERS, sv_view_name_find(v, "X")), 0);
	/* focus X (inc 10); its callers B 9 and A 1, largest first; each called by Main */
	assert_string_equal(row_name(v, t, 0), "X");
	assert_true(sv_aggtree_row(t, 0)->st.inc == 10 && sv_aggtree_row(t, 0)->st.exc == 10);
	assert_int_equal(sv_aggtree_row(t, 0)->parent, UINT32_MAX);
	const uint32_t *kids;
	assert_int_equal(sv_aggtree_children(t, 0, &kids), 2);
	assert_string_equal(row_name(v, t, kids[0]), "B");
	assert_true(sv_aggtree_row(t, kids[0])->st.inc == 9);
	assert_string_equal(row_name(v, t, kids[1]), "A");
	assert_true(sv_aggtree_row(t, kids[1])->st.inc == 1);
	const uint32_t *gk;
	assert_int_equal(sv_aggtree_children(t, kids[0], &gk), 1);
	assert_string_equal(row_name(v, t, gk[0]), "Main");
	assert_int_equal(sv_aggtree_row(t, gk[0])->parent, kids[0]);
	sv_aggtree_free(t);
	/* a name the view does not have */
	assert_int_equal(sv_aggtree_new(&t, v, SV_AGG_CALLERS, (sv_name_id)1000000), SV_ENOTFOUND);
	sv_view_free(v);
	sv_source_free(s);
}

static void test_callees(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
	sv_aggtree *t;
	assert_int_equal(sv_aggtree_new(&t, v, SV_AGG_CALLEES, sv_view_name_find(v, "Main")), 0);
	assert_true(sv_aggtree_row(t, 0)->st.inc == 100 && sv_aggtree_row(t, 0)->st.exc == 0);
	const uint32_t *kids;
	assert_int_equal(sv_aggtree_children(t, 0, &kids), 3);
	const char *want[] = { "C", "B", "A" };
	const double inc[] = { 90, 9, 1 };
	for (int i = 0; i < 3; i++) {
		assert_string_equal(row_name(v, t, kids[i]), want[i]);
		assert_true(sv_aggtree_row(t, kids[i])->st.inc == inc[i]);
	}
	/* C: exc 85 of its 90; its callee Helper 5 */
	assert_true(sv_aggtree_row(t, kids[0])->st.exc == 85);
	const uint32_t *ck;
	assert_int_equal(sv_aggtree_children(t, kids[0], &ck), 1);
	assert_string_equal(row_name(v, t, ck[0]), "Helper");
	assert_true(sv_aggtree_row(t, ck[0])->st.inc == 5);
	sv_aggtree_free(t);
	sv_view_free(v);
	sv_source_free(s);
}

/* Recursion counts the innermost instance only (§6.4): f→f→g 10 gives Callees of f: f 10, g 10
 * under the focus, not 20. */
static void test_recursion(void **state)
{
	(void)state;
	static const char *const p[][8] = { { "main", "f", "f", "g" } };
	static const double m[] = { 10 };
	sv_source *s = fixture_source(p, m, 1);
	sv_view *v = fixture_view(s, NULL, 0);
	sv_aggtree *t;
	assert_int_equal(sv_aggtree_new(&t, v, SV_AGG_CALLEES, sv_view_name_find(v, "f")), 0);
	assert_true(sv_aggtree_row(t, 0)->st.inc == 10);
	sv_aggtree_free(t);
	sv_callercallee *cc;
	assert_int_equal(sv_callercallee_new(&cc, v, "f"), 0);
	assert_true(cc->focus.st.inc == 10);
	/* f's callers: main and f, split 1/k among the k instances' callers (§6.5) */
	double callers = 0;
	for (uint32_t i = 0; i < cc->ncallers; i++)
		callers += cc->callers[i].st.inc;
	assert_true(callers == 10);
	sv_callercallee_free(cc);
	sv_view_free(v);
	sv_source_free(s);
}

static void test_caller_callee(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
	sv_callercallee *cc;
	assert_int_equal(sv_callercallee_new(&cc, v, "C"), 0);
	assert_string_equal(sv_view_name(v, cc->focus.name), "C");
	assert_true(cc->focus.st.inc == 90 && cc->focus.st.exc == 85);
	assert_int_equal(cc->ncallers, 1);
	assert_string_equal(sv_view_name(v, cc->callers[0].name), "Main");
	assert_true(cc->callers[0].st.inc == 90);
	assert_int_equal(cc->ncallees, 1);
	assert_string_equal(sv_view_name(v, cc->callees[0].name), "Helper");
	assert_true(cc->callees[0].st.inc == 5);
	sv_callercallee_free(cc);
	sv_view_free(v);
	sv_source_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_callers), cmocka_unit_test(test_callees),
					    cmocka_unit_test(test_recursion), cmocka_unit_test(test_caller_callee) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
