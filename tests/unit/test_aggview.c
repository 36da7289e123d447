/* SPDX-License-Identifier: MIT */
/* Callers, Callees and Caller-Callee (lib/aggview.c) on S-fold and on recursion; their When
 * histograms against the call tree's. */
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "stackview/aggview.h"
#include "stackview/when.h"

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

/* The rows' When histograms, where no instance of the focus is nested (every weight 1): a
 * focus instance's or a callee's sum is its node's inclusive histogram, added in the order
 * the views add them, so bucket for bucket equal. Samples at random times over a tree whose
 * nodes' buckets differ from their parents' (a row placed at the wrong bucket shows). */
static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint32_t next(uint32_t n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

typedef struct want_row {
	sv_name_id name;
	double hist[SV_WHEN_LEN];
} want_row;

static void want_add(want_row *w, size_t *n, sv_name_id name, const double *h)
{
	size_t i = 0;
	while (i < *n && w[i].name != name)
		i++;
	if (i == *n) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].name = name;
		(*n)++;
	}
	sv_hist_add(w[i].hist, h, 1);
}

static const double *want_find(const want_row *w, size_t n, sv_name_id name)
{
	for (size_t i = 0; i < n; i++)
		if (w[i].name == name)
			return w[i].hist;
	fail_msg("no expected row for name %u", name);
	return NULL;
}

static void test_when_rows(void **state)
{
	(void)state;
	static const char *const mid[] = { "A", "B", "C" }, *const low[] = { "G", "H", "K" };
	sv_source *s;
	assert_int_equal(sv_source_new(&s, "test"), 0);
	for (int i = 0; i < 4000; i++) {
		const char *path[8];
		size_t d = 0;
		path[d++] = "Main";
		for (uint32_t k = next(3); k > 0; k--)
			path[d++] = mid[next(3)];
		if (next(4))
			path[d++] = "F";
		for (uint32_t k = next(3); k > 0; k--)
			path[d++] = low[next(3)];
		sv_stack_id st;
		assert_int_equal(sv_source_intern_path(s, &st, path, d), 0);
		assert_int_equal(sv_source_add_sample(s, st, (double)next(100000) / 10, 0.5 + (double)next(8) / 4, 1), 0);
	}
	sv_view *v = fixture_view(s, NULL, 0);
	sv_name_id f = sv_view_name_find(v, "F");
	want_row *callers = calloc(16, sizeof(*callers)), *callees = calloc(16, sizeof(*callees));
	size_t ncallers = 0, ncallees = 0;
	double focus[SV_WHEN_LEN] = { 0 }, h[SV_WHEN_LEN];
	assert_true(callers && callees);
	double scale;
	assert_int_equal(sv_view_when_scale(&scale, v), 0);
	for (uint32_t i = 0; i < sv_view_node_count(v); i++) {
		if (!sv_view_node_alive(v, i) || sv_view_node_name(v, i) != f)
			continue;
		sv_view_node_inc_hist(h, v, i);
		sv_hist_add(focus, h, 1);
		want_add(callers, &ncallers, sv_view_node_name(v, sv_view_node_parent(v, i)), h);
		const sv_node_id *kids;
		uint32_t nk = sv_view_node_children(v, i, &kids);
		for (uint32_t k = 0; k < nk; k++) {
			sv_view_node_inc_hist(h, v, kids[k]);
			want_add(callees, &ncallees, sv_view_node_name(v, kids[k]), h);
		}
	}
	assert_true(ncallers == 4 && ncallees == 3); /* Main A B C; G H K */
	int buckets = 0;
	for (int k = 0; k < SV_WHEN_LEN; k++)
		buckets += focus[k] != 0;
	assert_true(buckets > 20);

	sv_callercallee *cc;
	assert_int_equal(sv_callercallee_new(&cc, v, "F"), 0);
	assert_memory_equal(cc->focus.hist, focus, sizeof(focus));
	assert_int_equal(cc->ncallers, ncallers);
	for (uint32_t i = 0; i < cc->ncallers; i++)
		assert_memory_equal(cc->callers[i].hist, want_find(callers, ncallers, cc->callers[i].name), sizeof(h));
	assert_int_equal(cc->ncallees, ncallees);
	for (uint32_t i = 0; i < cc->ncallees; i++)
		assert_memory_equal(cc->callees[i].hist, want_find(callees, ncallees, cc->callees[i].name), sizeof(h));
	sv_callercallee_free(cc);

	const sv_agg_kind kinds[] = { SV_AGG_CALLERS, SV_AGG_CALLEES };
	for (int j = 0; j < 2; j++) {
		sv_aggtree *t;
		assert_int_equal(sv_aggtree_new(&t, v, kinds[j], f), 0);
		const uint32_t *kids;
		uint32_t nk = sv_aggtree_children(t, 0, &kids);
		assert_int_equal(nk, j ? ncallees : ncallers);
		for (uint32_t k = 0; k < nk; k++) {
			const sv_aggrow *r = sv_aggtree_row(t, kids[k]);
			assert_memory_equal(r->hist, want_find(j ? callees : callers, nk, r->name), sizeof(h));
		}
		sv_aggtree_free(t);
	}
	free(callers);
	free(callees);
	sv_view_free(v);
	sv_source_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_callers), cmocka_unit_test(test_callees),
					    cmocka_unit_test(test_recursion), cmocka_unit_test(test_caller_callee),
					    cmocka_unit_test(test_when_rows) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
