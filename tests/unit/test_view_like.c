/* SPDX-License-Identifier: MIT */
/* A view refiltered from another (other IncPats or ExcPats on the same time range) keeps the
 * other's sums, own spans, Fold and When rows for the nodes whose stacks stay, and sums the
 * rest again: it must be, bit for bit, the view the same tree gives summed whole. (A view
 * sv_view_new makes has its own node ids, children summed in their order: with metrics no
 * float holds exactly its last bits may differ; test_view.c compares those on integral
 * metrics.) Checked on random trees (thousands of nodes, samples without a stack), grouped,
 * folded, clipped by a range or not, with and without the previous view's When rows, and
 * through ExcPats that take out more than the previous (the tree kept) or less (made again). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/source.h"
#include "stackview/view.h"
#include "stackview/when.h"
#include "fixtures.h"
#include "unit.h"
#include "view_asserts.h"

/* The view prev's tree gives with p summed whole: made through a view of another time range
 * (a range change keeps the tree; another range and other IncPats keep no sum). */
static sv_view *summed_whole(const sv_view *prev, const sv_params *p)
{
	sv_params q;
	sv_view *hop, *out;
	sv_error err;
	assert_int_equal(sv_params_copy(&q, sv_view_params(prev)), 0);
	assert_int_equal(sv_params_set(&q, SV_BOX_START, "1"), 0);
	assert_int_equal(sv_params_set(&q, SV_BOX_END, "2"), 0);
	assert_int_equal(sv_view_new_like(&hop, prev, &q, &err), 0);
	assert_int_equal(sv_view_new_like(&out, hop, p, &err), 0);
	sv_view_free(hop);
	sv_params_dispose(&q);
	return out;
}

/* 1,500 stacks over 60 frames "mM!fK" (M of 4 modules), each 1 to 4 frames below none or an
 * earlier one (so that subtrees hold many stacks), 12,000 samples at
 * random times in [0, 1000) ms (or all at `instant`) with metrics of many bits (or whole numbers,
 * whose sums are exact in any order), every 50th without a stack. */
static sv_source *random_source(sv_scaling scaling, unsigned seed, double instant, bool whole)
{
	sv_source *s;
	assert_int_equal(sv_source_new(&s, "random"), 0);
	sv_source_set_scaling(s, scaling);
	enum { NF = 60, NS = 1500, NSMP = 12000 };
	sv_frame_id f[NF];
	for (int k = 0; k < NF; k++) {
		char name[32];
		int len = snprintf(name, sizeof(name), "m%d!f%d", k % 4, k);
		assert_int_equal(sv_source_intern_frame(s, &f[k], name, (size_t)len), 0);
	}
	uint64_t r = 0x9E3779B97F4A7C15ull ^ seed;
#define NEXT() (r ^= r << 13, r ^= r >> 7, r ^= r << 17, r)
	sv_stack_id leaf[NS];
	for (int i = 0; i < NS; i++) {
		sv_stack_id st = i && NEXT() % 2 ? leaf[NEXT() % (uint64_t)i] : SV_STACK_NONE;
		int depth = 1 + (int)(NEXT() % 4);
		for (int d = 0; d < depth; d++)
			assert_int_equal(sv_source_intern_stack(s, &st, st, f[NEXT() % NF]), 0);
		leaf[i] = st;
	}
	for (int i = 0; i < NSMP; i++) {
		sv_stack_id st = i % 50 == 49 ? SV_STACK_NONE : leaf[NEXT() % NS];
		double t = instant >= 0 ? instant : (double)(NEXT() % 1000000) / 1000.0;
		double m = whole ? (double)(1 + NEXT() % 7) : 0.1 + (double)(NEXT() % 100000) / 70001.0;
		assert_int_equal(sv_source_add_sample(s, st, t, m, 1), 0);
	}
#undef NEXT
	return s;
}

static void test_like_keeps_clean_sums(void **state)
{
	(void)state;
	static const char *const groups[] = { "", "{m%}!->grp $1", "{m%}!=>ent $1" };
	static const char *const folds[] = { "", "f7;f13" };
	static const char *const ranges[][2] = { { "", "" }, { "250", "700" } };
	static const char *const changes[][2] = {
		/* IncPats, ExcPats: narrower, narrower, wider, all; every stack but not the
		 * samples without one, all; out, then in with it out */
		{ "f1", "" }, { "f1;f2", "" }, { "f1", "" },   { "", "" },    { "!", "" },	{ "", "" },
		{ "", "f5" }, { "f3", "f5" },  { "f3;m2!", "f5" }, { "", "f5" }, { "m2!", "f5" },
		/* more out (prev's tree holds what stays), then less (it does not: made again) */
		{ "m2!", "f5;f7" }, { "", "f5;f7;m3!" }, { "f1", "f7" }, { "", "" },
	};
	/* time, data, data at one instant; then with whole-number metrics, each stack's samples
	 * summed (as the terminal UI sums them: the nodes then take the stacks' sums, and the
	 * range's net and peak are made when asked for), time, and data at 0 (a heap snapshot:
	 * no range, no When rows) */
	for (int sc = 0; sc < 5; sc++) {
		sv_source *s = random_source(sc % 3 == 0 && sc != 4 ? SV_SCALING_TIME : SV_SCALING_DATA, (unsigned)sc,
					     sc == 2 ? 500 : sc == 4 ? 0 : -1, sc >= 3);
		if (sc >= 3) {
			assert_int_equal(sv_source_sum_stacks(s), 0);
			assert_non_null(sv_source_stack_sums(s));
		}
		for (size_t g = 0; g < 3; g++)
			for (size_t fo = 0; fo < 2; fo++)
				for (size_t rg = 0; rg < 2; rg++) {
					sv_params p0;
					sv_error err;
					assert_int_equal(sv_params_init(&p0), 0);
					assert_int_equal(sv_params_set(&p0, SV_BOX_GROUP, groups[g]), 0);
					assert_int_equal(sv_params_set(&p0, SV_BOX_FOLD, folds[fo]), 0);
					assert_int_equal(sv_params_set(&p0, SV_BOX_START, ranges[rg][0]), 0);
					assert_int_equal(sv_params_set(&p0, SV_BOX_END, ranges[rg][1]), 0);
					sv_view *prev;
					assert_int_equal(sv_view_new(&prev, s, &p0, &err), 0);
					for (size_t c = 0; c < sizeof(changes) / sizeof(changes[0]); c++) {
						sv_params p;
						assert_int_equal(sv_params_copy(&p, &p0), 0);
						assert_int_equal(sv_params_set(&p, SV_BOX_INC, changes[c][0]), 0);
						assert_int_equal(sv_params_set(&p, SV_BOX_EXC, changes[c][1]), 0);
						/* the previous view's When rows made (as a screen makes them),
						 * but every third time */
						double scale;
						if (c % 3 != 2)
							assert_int_equal(sv_view_when_scale(&scale, prev), 0);
						sv_view *like, *whole = summed_whole(prev, &p);
						bool remade = true;
						assert_int_equal(sv_view_new_like(&like, prev, &p, &err), 0);
						assert_same_nodes(like, whole, true);
						assert_int_equal(sv_view_renew(&prev, &p, &remade, &err), 0);
						assert_false(remade);
						assert_same_nodes(prev, whole, true);
						sv_view_free(like);
						sv_view_free(whole);
						sv_params_dispose(&p);
					}
					sv_view_free(prev);
					sv_params_dispose(&p0);
				}
		sv_source_free(s);
	}
}

/* *v made with p (none yet), or renewed to p. */
static void new_or_renew(sv_view **v, const sv_source *s, const sv_params *p)
{
	sv_error err;
	bool remade = true;
	if (!*v)
		assert_int_equal(sv_view_new(v, s, p, &err), 0);
	else
		assert_int_equal(sv_view_renew(v, p, &remade, &err), 0);
}

/* The view sv_view_new makes with v's params, checked to show v's tree (the caller frees it). */
static sv_view *fresh_same(sv_view *v, const sv_source *s)
{
	sv_view *fresh;
	sv_error err;
	assert_int_equal(sv_view_new(&fresh, s, sv_view_params(v), &err), 0);
	assert_same_tree(v, fresh);
	return fresh;
}

/* A frame ExcPats took out and the next ExcPats do not: it folds again as FoldPats say (a
 * root-most one stays itself and adds no IncPats entry, §4.1), as in a view made anew. */
static void test_exc_then_not(void **state)
{
	(void)state;
	static const char *const path[][8] = { { "X" }, { "X", "a" }, { "Y", "X" }, { "Y", "b" }, { "Y", "X", "c" } };
	static const double metric[] = { 1, 2, 4, 8, 16 };
	sv_source *s = fixture_source(path, metric, 5);
	static const char *const steps[][3] = {
		/* FoldPats, IncPats, ExcPats */
		{ "X", "", "" },
		{ "X", "", "X" },
		{ "X", "X", "" },
		{ "X", "", "b" },
		{ "X", "X", "" },
	};
	sv_params p;
	sv_view *v = NULL;
	for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
		assert_int_equal(sv_params_init(&p), 0);
		assert_int_equal(sv_params_set(&p, SV_BOX_FOLD, steps[k][0]), 0);
		assert_int_equal(sv_params_set(&p, SV_BOX_INC, steps[k][1]), 0);
		assert_int_equal(sv_params_set(&p, SV_BOX_EXC, steps[k][2]), 0);
		new_or_renew(&v, s, &p);
		sv_view_free(fresh_same(v, s));
		sv_params_dispose(&p);
	}
	sv_view_free(v);
	sv_source_free(s);
}

/* A tree made with ExcPats, then other ExcPats (tree_holds): more (each stack the tree lacks
 * is taken out by its own frame again), others that take out the callers of every stack it
 * lacks (each carried from its caller), then some that keep a stack it lacks (the tree made
 * again). Each view is the one sv_view_new makes. */
static void test_exc_tree_lacks(void **state)
{
	(void)state;
	static const char *const path[][8] = { { "A", "B" }, { "A", "X" }, { "C", "X" }, { "C", "D", "X" }, { "C", "D" } };
	static const double metric[] = { 1, 2, 4, 8, 16 };
	sv_source *s = fixture_source(path, metric, 5);
	static const char *const excs[] = { "X", "X;B", "A;C", "A;D", "A", "X", "" };
	sv_params p;
	sv_view *v = NULL;
	for (size_t k = 0; k < sizeof(excs) / sizeof(excs[0]); k++) {
		assert_int_equal(sv_params_init(&p), 0);
		assert_int_equal(sv_params_set(&p, SV_BOX_EXC, excs[k]), 0);
		new_or_renew(&v, s, &p);
		sv_view *fresh = fresh_same(v, s);
		assert_true(sv_view_node_stats(v, SV_NODE_ROOT).inc == sv_view_node_stats(fresh, SV_NODE_ROOT).inc);
		sv_view_free(fresh);
		sv_params_dispose(&p);
	}
	sv_view_free(v);
	sv_source_free(s);
}

/* Random IncPats and ExcPats, one box change after another (each view renewed from the one
 * before), grouped or not, folded: each view is the one sv_view_new makes (whole-number
 * metrics: the same bits whatever the node ids). */
static void test_random_changes_fresh(void **state)
{
	(void)state;
	static const char *const incs[] = { "", "f1", "f2;m1!", "m3!", "!", "f4", "grp 2", "f1;f3" };
	static const char *const excs[] = { "", "f5", "f5;f7", "f7", "m2!", "f5;m2!", "f13", "grp 1" };
	static const char *const groups[] = { "", "{m%}!->grp $1", "{m%}!=>grp $1" };
	sv_source *s = random_source(SV_SCALING_TIME, 7, -1, true);
	uint64_t r = 12345;
	for (size_t g = 0; g < 3; g++) {
		sv_params p;
		sv_view *v = NULL;
		for (int step = 0; step < 30; step++) {
			r = r * 6364136223846793005ull + 1442695040888963407ull;
			assert_int_equal(sv_params_init(&p), 0);
			assert_int_equal(sv_params_set(&p, SV_BOX_GROUP, groups[g]), 0);
			assert_int_equal(sv_params_set(&p, SV_BOX_FOLD, "f7;f13;m1!f2"), 0);
			assert_int_equal(sv_params_set(&p, SV_BOX_INC, incs[(r >> 33) % 8]), 0);
			assert_int_equal(sv_params_set(&p, SV_BOX_EXC, excs[(r >> 40) % 8]), 0);
			new_or_renew(&v, s, &p);
			sv_params_dispose(&p);
			if (step % 4 == 3) /* (now and then one not shown: no When rows to keep) */
				continue;
			sv_view_free(fresh_same(v, s));
		}
		sv_view_free(v);
	}
	sv_source_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_like_keeps_clean_sums), cmocka_unit_test(test_exc_then_not),
					    cmocka_unit_test(test_exc_tree_lacks),
					    cmocka_unit_test(test_random_changes_fresh) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
