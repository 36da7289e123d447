/* SPDX-License-Identifier: MIT */
/* Several runs per side (lib/compare.c): Student's t, Welch's interval, names lined up across
 * builds, per-row statistics in every view kind, the unmatched report. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "stackview/budget.h"
#include "stackview/compare.h"
#include "stackview/derive.h"

static void near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.9g, want %.9g (± %g)", got, want, tol);
}

static void test_t_quantile(void **state)
{
	(void)state;
	/* Student's t table, 97.5 % */
	near(sv_student_t_quantile(0.975, 1), 12.7062047, 1e-6);
	near(sv_student_t_quantile(0.975, 2), 4.30265273, 1e-7);
	near(sv_student_t_quantile(0.975, 4), 2.77644511, 1e-7);
	near(sv_student_t_quantile(0.975, 10), 2.22813885, 1e-7);
	near(sv_student_t_quantile(0.975, 30), 2.04227246, 1e-7);
	near(sv_student_t_quantile(0.975, 1e7), 1.95996398, 1e-5);
	near(sv_student_t_quantile(0.025, 4), -2.77644511, 1e-7);
	near(sv_student_t_quantile(0.95, 3.5), 2.2224335, 1e-6); /* fractional df (Welch): the density integrated numerically */
	assert_true(sv_student_t_quantile(0.5, 3) == 0);
	assert_true(isnan(sv_student_t_quantile(1, 3)));
	assert_true(isnan(sv_student_t_quantile(0.9, 0)));
}

static void test_intervals(void **state)
{
	(void)state;
	sv_cmpstat s;
	const double b[] = { 10, 11, 9 }, t[] = { 20, 21, 19 };
	/* equal spreads: pooled and Welch agree (se = sqrt(1/3 + 1/3), df = 4) */
	for (int welch = 0; welch < 2; welch++) {
		sv_compare_stats(&s, b, 3, t, 3, welch);
		near(s.base, 10, 1e-12);
		near(s.test, 20, 1e-12);
		near(s.delta, 10, 1e-12);
		double half = 2.77644511 * sqrt(2.0 / 3);
		near(s.lo, 10 - half, 1e-6);
		near(s.hi, 10 + half, 1e-6);
		assert_true(s.p < 0.001 && s.p > 0.0001); /* t = 12.25, df 4: p = 0.00025 */
		assert_int_equal(s.sig, 1);
	}
	/* unequal spreads, 3 and 2 runs (the recording in tests/data/compare): pooled
	 * variance (2 * 4/3 + 1 * 72) / 3, df 3; Welch's df falls to about 1 */
	const double b2[] = { 92, 92, 94 }, t2[] = { 132, 144 };
	sv_compare_stats(&s, b2, 3, t2, 2, false);
	double sp = sqrt((2 * 4.0 / 3 + 72) / 3), q3 = 3.18244631;
	near(s.hi - s.delta, q3 * sp * sqrt(1.0 / 3 + 1.0 / 2), 1e-6);
	assert_int_equal(s.sig, 1);
	sv_compare_stats(&s, b2, 3, t2, 2, true);
	assert_int_equal(s.sig, 0); /* the change is real, but Welch cannot tell with 2 runs */
	assert_true(s.hi - s.delta > 50);
	/* shrank */
	const double b4[] = { 30, 34, 26, 30 }, t4[] = { 20, 20.5, 19.5 };
	sv_compare_stats(&s, b4, 4, t4, 3, false);
	assert_int_equal(s.sig, -1);
	assert_true(s.hi < 0);
	/* noise only: the interval holds 0 */
	const double b3[] = { 10, 12, 8 }, t3[] = { 11, 9, 10.5 };
	sv_compare_stats(&s, b3, 3, t3, 3, false);
	assert_int_equal(s.sig, 0);
	assert_true(s.lo < 0 && s.hi > 0 && s.p > 0.05);
	/* no spread, no change */
	const double same[] = { 10, 10, 10 };
	sv_compare_stats(&s, same, 3, same, 3, false);
	assert_true(s.delta == 0 && s.lo == 0 && s.hi == 0 && s.p == 1 && s.sig == 0);
	/* one run a side: today's diff, no interval */
	sv_compare_stats(&s, b, 1, t, 1, false);
	assert_true(s.delta == 10 && isnan(s.lo) && isnan(s.p) && s.sig == 0);
	/* one base run: the test side's spread stands for both (df 2) */
	sv_compare_stats(&s, b, 1, t, 3, true);
	near(s.lo, 10 - 4.30265273 * sqrt(1 + 1.0 / 3), 1e-6);
	assert_int_equal(s.sig, 1);
}

/* A run: app!main -> app!work (w) and app!main -> app!idle (i), module names as given. */
static sv_source *run(const char *app, const char *lib, double w, double i)
{
	char main_[64], work[64], idle[64], f[64], proc[64];
	snprintf(proc, sizeof(proc), "Process %s (42)", app);
	snprintf(main_, sizeof(main_), "%s!main", app);
	snprintf(work, sizeof(work), "%s!work", app);
	snprintf(idle, sizeof(idle), "%s!idle", app);
	snprintf(f, sizeof(f), "%s!f", lib);
	const char *const p[][8] = { { proc, main_, work, f }, { proc, main_, idle } };
	const double m[] = { w, i };
	return fixture_source(p, m, 2);
}

static sv_compare *compare(sv_source **s, size_t nb, size_t nt, const char *match, bool auto_match, int expect)
{
	sv_view *v[8] = { 0 };
	for (size_t i = 0; i < nb + nt; i++)
		v[i] = fixture_view(s[i], NULL, 0);
	sv_compare_opts o = { .match = match, .auto_match = auto_match };
	sv_compare *c = NULL;
	sv_error err = { 0 };
	assert_int_equal(sv_compare_new(&c, v, nb, nt, &o, &err), expect);
	for (size_t i = 0; i < nb + nt; i++)
		sv_view_free(v[i]);
	if (c) {
		sv_params p;
		assert_int_equal(sv_params_init(&p), 0);
		assert_int_equal(sv_compare_set_params(c, &p, &err), 0);
		sv_params_dispose(&p);
	}
	return c;
}

static const sv_row *find_row(const sv_rows *r, sv_view *v, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(sv_view_name(v, r->row[i].name), name))
			return &r->row[i];
	fail_msg("no row %s", name);
	return NULL;
}

static void test_rows(void **state)
{
	(void)state;
	/* work grows from ~100 to ~150; idle is noise around 50 */
	sv_source *s[6] = { run("app", "libfoo.so", 100, 50), run("app", "libfoo.so", 104, 47),
			    run("app", "libfoo.so", 97, 53),  run("app", "libfoo.so", 151, 52),
			    run("app", "libfoo.so", 149, 48), run("app", "libfoo.so", 153, 51) };
	sv_compare *c = compare(s, 3, 3, NULL, true, 0);
	assert_int_equal(sv_compare_alias_count(c), 0);
	sv_source *d;
	assert_int_equal(sv_compare_diff_source(&d, c), 0);
	sv_view *dv = fixture_view(d, NULL, 0);
	/* the diff of the means */
	near(sv_view_node_stats(dv, SV_NODE_ROOT).inc, (151 + 149 + 153 + 52 + 48 + 51) / 3.0 - (100 + 104 + 97 + 50 + 47 + 53) / 3.0,
	     1e-9);
	sv_rows rows;
	assert_int_equal(sv_rows_calltree(&rows, dv, NULL, -1), 0);
	assert_int_equal(sv_compare_rows(c, dv, &rows), 0);
	const sv_row *w = find_row(&rows, dv, "app!work"), *i = find_row(&rows, dv, "app!idle");
	near(w->cmp->base, 301 / 3.0, 1e-9);
	near(w->cmp->test, 151, 1e-9);
	near(w->cmp->delta, w->st->inc, 1e-9);
	assert_int_equal(w->cmp->sig, 1);
	assert_int_equal(i->cmp->sig, 0);
	assert_int_equal(find_row(&rows, dv, "libfoo.so!f")->cmp->sig, 1);
	sv_rows_dispose(&rows);
	/* ByName */
	assert_int_equal(sv_rows_byname(&rows, dv, 0), 0);
	assert_int_equal(sv_compare_rows(c, dv, &rows), 0);
	assert_int_equal(find_row(&rows, dv, "app!work")->cmp->sig, 1);
	assert_int_equal(find_row(&rows, dv, "app!idle")->cmp->sig, 0);
	near(find_row(&rows, dv, "app!main")->cmp->test, 151 + 151 / 3.0, 1e-9);
	sv_rows_dispose(&rows);
	/* Callers of libfoo.so!f: f <- work <- main */
	sv_aggtree *t;
	assert_int_equal(sv_aggtree_new(&t, dv, SV_AGG_CALLERS, sv_view_name_find(dv, "libfoo.so!f")), 0);
	assert_int_equal(sv_rows_aggtree(&rows, t, NULL, -1), 0);
	assert_int_equal(sv_compare_rows(c, dv, &rows), 0);
	near(find_row(&rows, dv, "app!main")->cmp->base, 301 / 3.0, 1e-9);
	assert_int_equal(find_row(&rows, dv, "app!main")->cmp->sig, 1);
	sv_rows_dispose(&rows);
	sv_aggtree_free(t);
	/* Caller-Callee of app!main */
	sv_callercallee *cc;
	assert_int_equal(sv_callercallee_new(&cc, dv, "app!main"), 0);
	assert_int_equal(sv_rows_callercallee(&rows, cc), 0);
	assert_int_equal(sv_compare_rows(c, dv, &rows), 0);
	near(find_row(&rows, dv, "app!idle")->cmp->test, 151 / 3.0, 1e-9);
	assert_int_equal(find_row(&rows, dv, "app!work")->cmp->sig, 1);
	sv_rows_dispose(&rows);
	sv_callercallee_free(cc);
	/* the mean of a side */
	sv_source *m;
	assert_int_equal(sv_compare_mean_source(&m, c, true), 0);
	near(sv_source_total_metric(m), (151 + 149 + 153 + 52 + 48 + 51) / 3.0, 1e-9);
	sv_source_free(m);
	sv_view_free(dv);
	sv_source_free(d);
	sv_compare_free(c);
	for (int k = 0; k < 6; k++)
		sv_source_free(s[k]);
}

static void test_one_run_is_diff(void **state)
{
	(void)state;
	sv_source *s[2] = { run("app", "lib", 100, 50), run("app", "lib", 120, 40) };
	sv_compare *c = compare(s, 1, 1, NULL, true, 0);
	sv_source *d, *old;
	assert_int_equal(sv_compare_diff_source(&d, c), 0);
	sv_view *b = fixture_view(s[0], NULL, 0), *t = fixture_view(s[1], NULL, 0);
	assert_int_equal(sv_diff(&old, t, b), 0);
	assert_int_equal(sv_source_sample_count(d), sv_source_sample_count(old));
	sv_samples sd = sv_source_samples(d), so = sv_source_samples(old);
	for (size_t i = 0; i < sv_source_sample_count(d); i++) {
		assert_true(sv_sample_metric(&sd, i) == sv_sample_metric(&so, i));
		assert_true(sv_sample_count(&sd, i) == sv_sample_count(&so, i));
		assert_true(sv_sample_time(&sd, i) == sv_sample_time(&so, i));
	}
	sv_view_free(b);
	sv_view_free(t);
	sv_source_free(d);
	sv_source_free(old);
	sv_compare_free(c);
	sv_source_free(s[0]);
	sv_source_free(s[1]);
}

static void test_matching(void **state)
{
	(void)state;
	/* versions and hashes: lined up with no pattern, nothing unmatched */
	sv_source *s[2] = { run("app-3f2a", "libfoo.so.1.2", 100, 50), run("app-91c0", "libfoo.so.1.3", 120, 50) };
	sv_compare *c = compare(s, 1, 1, NULL, true, 0);
	assert_int_equal(sv_compare_alias_count(c), 2);
	sv_unmatched *u;
	size_t nu;
	assert_int_equal(sv_compare_unmatched(c, 0.01, &u, &nu), 0);
	assert_int_equal(nu, 0);
	free(u);
	sv_source *d;
	assert_int_equal(sv_compare_diff_source(&d, c), 0);
	sv_view *dv = fixture_view(d, NULL, 0);
	sv_name_id id = sv_view_name_find(dv, "app-3f2a!idle");
	assert_true(id != SV_NAME_NONE);
	assert_true(sv_view_byname_stats(dv, sv_view_byname_find(dv, id))->inc == 0);
	assert_true(sv_view_name_find(dv, "app-91c0!idle") == SV_NAME_NONE);
	assert_true(sv_view_name_find(dv, "Process app-3f2a (42)") != SV_NAME_NONE);
	sv_view_free(dv);
	sv_source_free(d);
	sv_compare_free(c);
	/* turned off: nothing aligned, both halves unmatched */
	c = compare(s, 1, 1, NULL, false, 0);
	assert_int_equal(sv_compare_alias_count(c), 0);
	assert_int_equal(sv_compare_unmatched(c, 0.01, &u, &nu), 0);
	assert_true(nu > 0);
	free(u);
	sv_compare_free(c);
	sv_source_free(s[0]);
	sv_source_free(s[1]);
	/* a genuine rename: reported, heaviest first; --match fixes it */
	sv_source *r[2] = { run("mt", "libc.so.6", 100, 50), run("mt2", "libc.so.6", 100, 50) };
	c = compare(r, 1, 1, NULL, true, 0);
	assert_int_equal(sv_compare_unmatched(c, 0.01, &u, &nu), 0);
	assert_int_equal(nu, 2); /* libc.so.6 is on both sides */
	assert_string_equal(u[0].name, "mt"); /* the heaviest; base first on a tie */
	assert_false(u[0].test);
	assert_string_equal(u[1].name, "mt2");
	assert_true(u[1].test);
	near(u[1].inc, 150, 1e-9);
	free(u);
	sv_compare_free(c);
	c = compare(r, 1, 1, "^mt2!=>mt!; ^Process mt2 =>Process mt ", true, 0);
	assert_int_equal(sv_compare_unmatched(c, 0.01, &u, &nu), 0);
	assert_int_equal(nu, 0);
	free(u);
	sv_compare_free(c);
	/* bad rules */
	assert_null(compare(r, 1, 1, "mt2->mt", true, SV_EINVAL));
	assert_null(compare(r, 1, 1, "=>mt", true, SV_EINVAL));
	assert_null(compare(r, 1, 1, "{mt=>x", true, SV_EINVAL));
	sv_source_free(r[0]);
	sv_source_free(r[1]);
}

static void test_budget_parse(void **state)
{
	(void)state;
	const char *text = "# a budget\n\nIncPats: Process% app\n"
			   "inc Process app (42)  <=  12.5%  # a name with blanks, a trailing comment\n"
			   "exc ~mall{o}c > 3\t\n"
			   "GroupPats: {%}!->m $1 # kept: a box's text is whole\n"
			   "growth m app >= -2%\n";
	sv_budget *b;
	sv_error err = { 0 };
	assert_int_equal(sv_budget_parse(&b, text, strlen(text), &err), 0);
	assert_int_equal(sv_budget_count(b), 3);
	const sv_rule *r = sv_budget_rule(b, 0);
	assert_int_equal(r->line, 4);
	assert_int_equal(r->kind, SV_RULE_INC);
	assert_string_equal(r->name, "Process app (42)");
	assert_false(r->pattern);
	assert_int_equal(r->op, SV_OP_LE);
	assert_true(r->limit == 12.5 && r->pct);
	assert_string_equal(sv_params_get(r->params, SV_BOX_INC), "Process% app");
	assert_false(r->group_set);
	r = sv_budget_rule(b, 1);
	assert_true(r->pattern && r->kind == SV_RULE_EXC && r->op == SV_OP_GT && r->limit == 3 && !r->pct);
	assert_string_equal(r->name, "mall{o}c");
	r = sv_budget_rule(b, 2);
	assert_true(r->kind == SV_RULE_GROWTH && r->limit == -2 && r->group_set);
	assert_string_equal(sv_params_get(r->params, SV_BOX_GROUP), "{%}!->m $1 # kept: a box's text is whole");
	assert_string_equal(sv_rule_op_text(r->op), ">=");
	sv_budget_free(b);
	/* errors name the line */
	static const struct {
		const char *text;
		long line;
		const char *msg;
	} bad[] = {
		{ "inc a <= 1\nfoo bar < 1\n", 2, "expected a box" },
		{ "inc a <= many\n", 1, "the limit is a number" },
		{ "inc a == 1\n", 1, "the operator" },
		{ "inc <= 1\n", 1, "names no row" },
		{ "inc ~ <= 1\n", 1, "names no row" },
		{ "exc ~{x <= 1\n", 1, "invalid pattern" },
		{ "inc 1%\n", 1, "a rule is" },
		{ "# only\nIncPats: x\n", 0, "no rules" },
		{ "inc a <= 1\n\0\n", 2, "NUL" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sv_error_clear(&err);
		size_t len = strlen(bad[i].text) + (strstr(bad[i].msg, "NUL") ? 2 : 0);
		if (sv_budget_parse(&b, bad[i].text, len, &err) != SV_EINVAL)
			fail_msg("case %zu parsed", i);
		assert_null(b);
		if (!strstr(err.msg, bad[i].msg) || (bad[i].line && err.line != bad[i].line))
			fail_msg("case %zu: line %ld: %s", i, err.line, err.msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_t_quantile), cmocka_unit_test(test_intervals),
					    cmocka_unit_test(test_rows), cmocka_unit_test(test_one_run_is_diff),
					    cmocka_unit_test(test_matching), cmocka_unit_test(test_budget_parse) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
