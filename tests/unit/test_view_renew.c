/* SPDX-License-Identifier: MIT */
/* sv_view_renew when it fails: before the old view is given up (a bad box, a pattern past its
 * backtracking limit) the old view itself is kept; after (memory: every allocation of the
 * build failed in turn, this program's own malloc) a view with the old parameters is made
 * again. Its successes are test_view.c's (like_checked). */
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "view_asserts.h"
#include "stackview/formats.h"

/* v is the view sv_view_new makes of s with p. */
static void assert_fresh(sv_view *v, const sv_source *s, const sv_params *p)
{
	sv_view *fresh;
	sv_error err;
	assert_int_equal(sv_view_new(&fresh, s, p, &err), 0);
	assert_same_tree(v, fresh);
	sv_view_free(fresh);
}

static sv_params params_with(const char *group, const char *fold, const char *inc, const char *exc)
{
	sv_params p;
	assert_int_equal(sv_params_init(&p), 0);
	assert_int_equal(sv_params_set(&p, SV_BOX_GROUP, group), 0);
	assert_int_equal(sv_params_set(&p, SV_BOX_FOLD, fold), 0);
	assert_int_equal(sv_params_set(&p, SV_BOX_INC, inc), 0);
	assert_int_equal(sv_params_set(&p, SV_BOX_EXC, exc), 0);
	return p;
}

/* Failures that come from the boxes keep the old view itself, whatever the new view would
 * have taken from it: other GroupPats (nothing), FoldPats (names), IncPats (the tree). */
static void test_renew_keeps_old(void **state)
{
	(void)state;
	static const char *const path[][8] = { { "main", "work", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaab" }, { "main", "idle" } };
	static const double metric[] = { 3, 1 };
	sv_source *s = fixture_source(path, metric, 2);
	sv_params p0 = params_with("", "idle", "", "");
	sv_view *v;
	sv_error err;
	assert_int_equal(sv_view_new(&v, s, &p0, &err), 0);
	static const char *const bad[][5] = {
		/* GroupPats, FoldPats, IncPats, ExcPats, expected status */
		{ "{x", "idle", "", "", "EINVAL" },
		{ "@(a+)+$->X", "idle", "", "", "ELIMIT" },
		{ "", "{x", "", "", "EINVAL" },
		{ "", "@(a|aa)+$", "", "", "ELIMIT" },
		{ "", "idle", "{x", "", "EINVAL" },
		{ "", "idle", "@(a|aa)+$", "", "ELIMIT" },
		{ "", "idle", "", "@(a|aa)+$", "ELIMIT" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sv_params p = params_with(bad[i][0], bad[i][1], bad[i][2], bad[i][3]);
		sv_view *same = v;
		bool remade = true;
		int rc = sv_view_renew(&same, &p, &remade, &err);
		assert_int_equal(rc, strcmp(bad[i][4], "EINVAL") ? SV_ELIMIT : SV_EINVAL);
		assert_ptr_equal(same, v);
		assert_false(remade);
		assert_fresh(v, s, &p0);
		sv_params_dispose(&p);
	}
	sv_view_free(v);
	sv_params_dispose(&p0);
	sv_source_free(s);
}

#include "alloc_fail.h"

/* Each allocation of a renewal failing in turn (other GroupPats, FoldPats, IncPats and time
 * range, on the tutorial with the stacks' sums shared as the terminal UI has them; from a
 * view whose ByName and When rows were asked for, so that the new one makes ByName with its
 * tree and keeps the rows of nodes an IncPats change leaves whole, and from one whose were
 * not): the result is the new view, or SV_ENOMEM and a view with the old
 * parameters, the old one or one made again, and no block is left behind. Last, from a view
 * with ExcPats to ExcPats that take out more (its tree checked and kept). */
static void test_renew_out_of_memory(void **state)
{
	(void)state;
	ALLOC_FAIL_SKIP();
	sv_source *s;
	sv_error err;
	assert_int_equal(sv_load(&s, "examples/tutorial.perfView.xml", NULL, &err), 0);
	assert_int_equal(sv_source_sum_stacks(s), 0);
	sv_params p0 = params_with("{%}!=>module $1", "%!?", "", "");
	sv_params to[] = {
		params_with("{%}!->module $1", "%!?", "", ""),
		params_with("{%}!=>module $1", "ntdll", "", ""),
		params_with("{%}!=>module $1", "%!?", "Main", "KiInterrupt"),
		params_with("{%}!=>module $1", "%!?", "", ""),
		params_with("{%}!=>module $1", "%!?", "", "KiInterrupt;ntdll"), /* from below */
	};
	/* the last from a view with ExcPats: the new ones take out more (the tree kept) */
	sv_params px = params_with("{%}!=>module $1", "%!?", "", "KiInterrupt");
	assert_int_equal(sv_params_set(&to[3], SV_BOX_START, "200"), 0);
	size_t nto = sizeof(to) / sizeof(to[0]);
	int kept = 0, remade_n = 0;
	for (size_t k = 0; k < 2 * nto; k++) {
		const sv_params *from = k / 2 == nto - 1 ? &px : &p0;
		for (long n = 1;; n++) {
			long live0 = live;
			sv_view *v;
			assert_int_equal(sv_view_new(&v, s, from, &err), 0);
			double scale;
			if (k % 2) { /* (and its When rows: the IncPats change keeps the clean ones) */
				assert_int_equal(sv_view_byname_prepare(v), 0);
				assert_int_equal(sv_view_when_scale(&scale, v), 0);
			}
			sv_view *was = v;
			bool remade = false;
			alloc_fail_arm(n, false);
			int rc = sv_view_renew(&v, &to[k / 2], &remade, &err);
			bool done = alloc_fail_disarm(n);
			if (rc == 0) { /* the new view (a failed allocation may have been done without) */
				assert_false(remade);
				assert_fresh(v, s, &to[k / 2]);
				sv_view_free(v);
				assert_int_equal(live, live0); /* nothing left behind */
				if (done) /* every allocation passed */
					break;
				continue;
			}
			assert_int_equal(rc, SV_ENOMEM);
			assert_non_null(v); /* (one allocation failed: the old view's made again) */
			if (remade) {
				remade_n++;
			} else {
				assert_ptr_equal(v, was);
				kept++;
			}
			assert_fresh(v, s, from);
			sv_view_free(v);
			assert_int_equal(live, live0); /* nothing left behind on the way out */
		}
	}
	assert_true(kept > 0 && remade_n > 0);
	for (size_t k = 0; k < nto; k++)
		sv_params_dispose(&to[k]);
	sv_params_dispose(&px);
	sv_params_dispose(&p0);
	sv_source_free(s);
}

/* ByName is made when first asked for (its tables counted in the view's memory from then
 * on), and with the tree when the view renewed had been asked for it (a view shown by name
 * and changed); either way its rows are a fresh view's. Each allocation of making it failing
 * in turn: SV_ENOMEM and nothing left behind, then made when asked again. */
static void test_byname_when_asked(void **state)
{
	(void)state;
	sv_source *s;
	sv_error err;
	assert_int_equal(sv_load(&s, "examples/tutorial.perfView.xml", NULL, &err), 0);
	sv_params p0 = params_with("{%}!=>module $1", "%!?", "", "");
	sv_params p1 = params_with("{%}!->module $1", "%!?", "", "");
	assert_int_equal(sv_params_set(&p1, SV_BOX_FOLD_PCT, "1"), 0);
	sv_view *v, *w;
	assert_int_equal(sv_view_new(&v, s, &p0, &err), 0);
	size_t m0 = sv_view_memory(v);
	assert_int_equal(sv_view_byname_prepare(v), 0);
	assert_true(sv_view_memory(v) > m0); /* made now */
	assert_fresh(v, s, &p0);
	bool remade;
	assert_int_equal(sv_view_renew(&v, &p1, &remade, &err), 0); /* other GroupPats and Fold% */
	size_t m1 = sv_view_memory(v);
	assert_int_equal(sv_view_byname_prepare(v), 0);
	assert_int_equal(sv_view_memory(v), m1); /* made with the tree */
	assert_fresh(v, s, &p1);
	assert_int_equal(sv_view_new(&w, s, &p1, &err), 0); /* Fold% makes it for its own use */
	assert_int_equal(sv_view_renew(&w, &p0, &remade, &err), 0);
	m1 = sv_view_memory(w);
	assert_int_equal(sv_view_byname_prepare(w), 0);
	assert_true(sv_view_memory(w) > m1); /* never asked for: not made with the tree */
	sv_view_free(w);
	for (long n = 1;; n++) {
		long live0 = live;
		assert_int_equal(sv_view_new(&w, s, &p0, &err), 0);
		alloc_fail_arm(n, false);
		int rc = sv_view_byname_prepare(w);
		bool done = alloc_fail_disarm(n);
		if (rc)
			assert_int_equal(rc, SV_ENOMEM);
		assert_fresh(w, s, &p0); /* (asked again: made) */
		sv_view_free(w);
		assert_int_equal(live, live0);
		if (done)
			break;
	}
	sv_view_free(v);
	sv_params_dispose(&p0);
	sv_params_dispose(&p1);
	sv_source_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_renew_keeps_old), cmocka_unit_test(test_renew_out_of_memory),
					    cmocka_unit_test(test_byname_when_asked) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
