/* SPDX-License-Identifier: MIT */
/* Profiles the unit tests share, built through the library API. */
#ifndef STACKVIEW_TESTS_FIXTURES_H
#define STACKVIEW_TESTS_FIXTURES_H

#include "stackview/params.h"
#include "stackview/source.h"
#include "stackview/view.h"
#include "unit.h"

/* A source from root-first paths (NULL-terminated rows of at most 8 frames) with metrics;
 * sample i has time i + 1. */
static inline sv_source *fixture_source(const char *const paths[][8], const double *metric, size_t n)
{
	sv_source *s;
	assert_int_equal(sv_source_new(&s, "test"), 0);
	for (size_t i = 0; i < n; i++) {
		size_t depth = 0;
		while (depth < 8 && paths[i][depth])
			depth++;
		sv_stack_id st;
		assert_int_equal(sv_source_intern_path(s, &st, paths[i], depth), 0);
		assert_int_equal(sv_source_add_sample(s, st, (double)i + 1, metric[i], 1), 0);
	}
	return s;
}

/* S-fold of semantics §14: Main→A→X 1, Main→B→X 9, Main→C 85, Main→C→Helper 5. */
static inline sv_source *fixture_s_fold(void)
{
	static const char *const p[][8] = { { "Main", "A", "X" }, { "Main", "B", "X" }, { "Main", "C" },
					     { "Main", "C", "Helper" } };
	static const double m[] = { 1, 9, 85, 5 };
	return fixture_source(p, m, 4);
}

/* A view of s with the given boxes (NULL = none); `expect` is sv_view_new's status. */
static inline sv_view *fixture_view(sv_source *s, const char *const box[SV_BOX_COUNT], int expect)
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

#endif
