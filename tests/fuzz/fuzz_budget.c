/* SPDX-License-Identifier: MIT */
/* Fuzz target: budgets and comparisons. The input is split on the first NUL byte into budget
 * text and a --match text; two base and two test runs of a small fixed profile (names that
 * differ by version and hash suffixes) are compared with those rules, the budget is
 * evaluated, and the comparison attached to every view kind's rows. */
#include "fuzz_common.h"
#include "stackview/budget.h"
#include "stackview/compare.h"

static sv_source *run(const char *app, const char *lib, double w)
{
	char p[64], m[64], f[64], g[64];
	snprintf(p, sizeof(p), "Process %s (7)", app);
	snprintf(m, sizeof(m), "%s!main", app);
	snprintf(f, sizeof(f), "%s!f", lib);
	snprintf(g, sizeof(g), "%s!g", lib);
	const char *const st[][4] = { { p, "Thread (7) x", m, f }, { p, "Thread (7) x", m, g }, { p, m, g, f } };
	sv_source *s;
	if (sv_source_new(&s, "fuzz"))
		return NULL;
	for (int i = 0; i < 3; i++) {
		sv_stack_id id;
		if (sv_source_intern_path(s, &id, st[i], 4) || sv_source_add_sample(s, id, i, w + i, 1)) {
			sv_source_free(s);
			return NULL;
		}
	}
	return s;
}

/* A comparison attached to rows leaves none without its statistics. */
static void attach(sv_compare *c, sv_view *dv, sv_rows *r)
{
	if (sv_compare_rows(c, dv, r) == 0)
		for (size_t i = 0; i < r->n; i++)
			if (!r->row[i].cmp)
				abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	size_t blen = strlen(text);
	const char *match = blen < size ? text + blen + 1 : NULL;
	sv_source *src[4] = { run("app-3f2a", "libx.so.1.2", 10), run("app-3f2a", "libx.so.1.2", 11),
			      run("app-91c0", "libx.so.1.3", 15), run("app-91c0", "libx.so.1.3", 16) };
	sv_view *v[4] = { 0 };
	sv_params p;
	sv_compare *c = NULL;
	sv_budget *b = NULL;
	sv_error err;
	if (sv_params_init(&p))
		goto out;
	for (int i = 0; i < 4; i++)
		if (!src[i] || sv_view_new(&v[i], src[i], &p, &err))
			goto out;
	sv_compare_opts o = { .match = match, .auto_match = true, .welch = size & 1 };
	if (sv_compare_new(&c, v, 2, 2, &o, &err))
		c = NULL;
	if (sv_budget_parse(&b, text, blen, &err) == 0) {
		size_t failed;
		if (sv_budget_eval(b, (const sv_source *const *)src + 2, 2, c, &failed, &err) == 0 &&
		    failed > sv_budget_count(b))
			abort(); /* more failures than rules */
	}
	if (c && sv_compare_set_params(c, &p, &err) == 0) {
		sv_source *d;
		if (sv_compare_diff_source(&d, c) == 0) {
			sv_view *dv;
			if (sv_view_new(&dv, d, &p, &err) == 0) {
				sv_rows r;
				if (sv_rows_calltree(&r, dv, NULL, -1) == 0) {
					attach(c, dv, &r);
					sv_rows_dispose(&r);
				}
				if (sv_rows_byname(&r, dv, 0) == 0) {
					attach(c, dv, &r);
					sv_rows_dispose(&r);
				}
				sv_aggtree *t;
				if (sv_view_byname_count(dv) > 1 &&
				    sv_aggtree_new(&t, dv, SV_AGG_CALLERS, sv_view_byname_name(dv, 1)) == 0) {
					if (sv_rows_aggtree(&r, t, NULL, -1) == 0) {
						attach(c, dv, &r);
						sv_rows_dispose(&r);
					}
					sv_aggtree_free(t);
				}
				sv_callercallee *cc;
				if (sv_view_byname_count(dv) > 1 &&
				    sv_callercallee_new(&cc, dv, sv_view_name(dv, sv_view_byname_name(dv, 1))) == 0) {
					if (sv_rows_callercallee(&r, cc) == 0) {
						attach(c, dv, &r);
						sv_rows_dispose(&r);
					}
					sv_callercallee_free(cc);
				}
				sv_unmatched *u;
				size_t nu;
				if (sv_compare_unmatched(c, 0.01, &u, &nu) == 0)
					free(u);
				sv_view_free(dv);
			}
			sv_source_free(d);
		}
	}
out:
	sv_budget_free(b);
	sv_compare_free(c);
	for (int i = 0; i < 4; i++) {
		sv_view_free(v[i]);
		sv_source_free(src[i]);
	}
	sv_params_dispose(&p);
	free(text);
	return 0;
}
