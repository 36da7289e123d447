/* SPDX-License-Identifier: MIT */
/* Several runs per side (see stackview/compare.h). */
#include "stackview/compare.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/pattern.h"
#include "strtab_int.h"
#include "sv/boxtext.h"
#include "sv/copier.h"
#include "compare_int.h"

/* ---- construction ---- */

static int copy_run(sv_source **out, sv_view *v, const char *const *rename, double scale, sv_source *into)
{
	const sv_source *src = sv_view_source(v);
	sv_source *dst = into;
	int rc = 0;
	if (!dst) {
		if ((rc = sv_source_new(&dst, sv_source_format(src))))
			return rc;
		sv_source_set_scaling(dst, sv_view_scaling(v));
	}
	sv_copier cp = { 0 };
	rc = sv_copier_init(&cp, src, dst);
	cp.rename = rename;
	size_t ns = sv_source_sample_count(src);
	const sv_stack_id *stk = sv_source_sample_stacks(src);
	sv_samples smp = sv_source_samples(src);
	for (size_t i = 0; !rc && i < ns; i++) {
		sv_node_id n;
		double t, m;
		if (!sv_view_sample(v, i, &n, &t, &m))
			continue;
		sv_stack_id s;
		rc = sv_copier_stack(&cp, &s, stk[i]);
		if (!rc)
			rc = sv_source_add_sample(dst, s, t, scale * m, scale * sv_sample_count(&smp, i));
	}
	sv_copier_dispose(&cp);
	if (rc && !into)
		sv_source_free(dst);
	else if (!into)
		*out = dst;
	return rc;
}

int sv_compare_new(sv_compare **out, sv_view *const *views, size_t nbase, size_t ntest, const sv_compare_opts *opts,
		   sv_error *err)
{
	*out = NULL;
	if (!nbase || !ntest)
		return sv_error_set(err, SV_EINVAL, "a comparison needs a run on each side");
	sv_compare *c = calloc(1, sizeof(*c));
	size_t n = nbase + ntest;
	if (!c)
		return sv_error_set(err, SV_ENOMEM, NULL);
	c->nbase = nbase;
	c->ntest = ntest;
	c->nruns = n;
	sv_strtab_init(&c->report);
	c->scaling = sv_view_scaling(views[nbase]);
	c->welch = opts && opts->welch;
	c->runs = calloc(n, sizeof(*c->runs));
	c->views = calloc(n, sizeof(*c->views));
	c->agg = calloc(n, sizeof(*c->agg));
	c->cc = calloc(n, sizeof(*c->cc));
	char ***names = calloc(n, sizeof(*names));
	const sv_source **srcs = calloc(n, sizeof(*srcs));
	match_rule *rules = NULL;
	size_t nrules = 0;
	int rc = 0;
	if (!c->runs || !c->views || !c->agg || !c->cc || !names || !srcs) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	if ((rc = sv_cmp_rules_parse(&rules, &nrules, opts ? opts->match : NULL, err)))
		goto out;
	for (size_t r = 0; r < n && !rc; r++) {
		srcs[r] = sv_view_source(views[r]);
		names[r] = calloc((size_t)sv_source_frame_count(srcs[r]) + 1, sizeof(char *));
		if (!names[r] || sv_cmp_apply_rules(names[r], srcs[r], rules, nrules))
			rc = sv_error_set(err, SV_ENOMEM, NULL);
	}
	if (!rc && opts && opts->auto_match && sv_cmp_find_aliases(c, names, srcs))
		rc = sv_error_set(err, SV_ENOMEM, NULL);
	for (size_t r = nbase; r < n && !rc && c->nalias; r++) {
		uint32_t nf = sv_source_frame_count(srcs[r]);
		for (uint32_t f = 0; f < nf; f++) {
			char *a = sv_cmp_apply_alias(c, names[r][f] ? names[r][f] : sv_source_frame_name(srcs[r], f));
			if (a) {
				free(names[r][f]);
				names[r][f] = a;
			}
		}
	}
	for (size_t r = 0; r < n && !rc; r++)
		if ((rc = copy_run(&c->runs[r], views[r], (const char *const *)names[r], 1.0, NULL)))
			sv_error_set(err, rc, NULL);
out:
	for (size_t r = 0; names && r < n; r++) {
		if (!names[r])
			continue;
		uint32_t nf = sv_source_frame_count(srcs[r]);
		for (uint32_t f = 0; f < nf; f++)
			free(names[r][f]);
		free(names[r]);
	}
	free(names);
	free(srcs);
	sv_cmp_rules_free(rules, nrules);
	if (rc) {
		sv_compare_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

static void drop_derived(sv_compare *c)
{
	for (size_t r = 0; r < c->nruns; r++) {
		sv_aggtree_free(c->agg[r]);
		sv_callercallee_free(c->cc[r]);
		c->agg[r] = NULL;
		c->cc[r] = NULL;
	}
	free(c->agg_focus);
	free(c->cc_focus);
	c->agg_focus = c->cc_focus = NULL;
}

void sv_compare_free(sv_compare *c)
{
	if (!c)
		return;
	if (c->agg && c->cc)
		drop_derived(c);
	for (size_t r = 0; r < c->nruns; r++) {
		if (c->views)
			sv_view_free(c->views[r]);
		if (c->runs)
			sv_source_free(c->runs[r]);
	}
	for (size_t i = 0; i < c->nalias; i++) {
		free(c->alias_from[i]);
		free(c->alias_to[i]);
	}
	free(c->alias_from);
	free(c->alias_to);
	if (c->have_params)
		sv_params_dispose(&c->params);
	sv_strtab_dispose(&c->report);
	free(c->runs);
	free(c->views);
	free(c->agg);
	free(c->cc);
	free(c);
}

size_t sv_compare_runs(const sv_compare *c, bool test)
{
	return test ? c->ntest : c->nbase;
}

size_t sv_compare_alias_count(const sv_compare *c)
{
	return c->nalias;
}

void sv_compare_alias(const sv_compare *c, size_t i, const char **test_name, const char **base_name)
{
	*test_name = c->alias_from[i];
	*base_name = c->alias_to[i];
}

char *sv_compare_alias_name(const sv_compare *c, const char *name)
{
	return sv_cmp_apply_alias(c, name);
}

/* All runs of the chosen sides into one source, each side's metrics scaled. */
static int combine(sv_source **out, const sv_compare *c, const char *format, bool base, double base_scale, bool test,
		   double test_scale)
{
	sv_source *dst;
	int rc = sv_source_new(&dst, format);
	if (rc)
		return rc;
	sv_source_set_scaling(dst, c->scaling);
	sv_source_set_limit_from_end(dst, base);
	sv_params empty;
	if ((rc = sv_params_init(&empty))) {
		sv_source_free(dst);
		return rc;
	}
	/* test first, as sv_diff adds them */
	for (int pass = 0; pass < 2 && !rc; pass++) {
		bool t = pass == 0;
		if ((t && !test) || (!t && !base))
			continue;
		size_t r0 = t ? c->nbase : 0, r1 = t ? c->nruns : c->nbase;
		for (size_t r = r0; r < r1 && !rc; r++) {
			sv_view *v;
			if ((rc = sv_view_new(&v, c->runs[r], &empty, NULL)))
				break;
			rc = copy_run(NULL, v, NULL, t ? test_scale : base_scale, dst);
			sv_view_free(v);
		}
	}
	sv_params_dispose(&empty);
	if (rc) {
		sv_source_free(dst);
		return rc;
	}
	*out = dst;
	return 0;
}

int sv_compare_diff_source(sv_source **out, const sv_compare *c)
{
	return combine(out, c, "diff", true, -1.0 / (double)c->nbase, true, 1.0 / (double)c->ntest);
}

int sv_compare_mean_source(sv_source **out, const sv_compare *c, bool test)
{
	sv_source *s;
	int rc = combine(&s, c, sv_source_format(c->runs[test ? c->nbase : 0]), !test, 1.0 / (double)c->nbase, test,
			 1.0 / (double)c->ntest);
	if (rc)
		return rc;
	sv_source_set_limit_from_end(s, false);
	*out = s;
	return 0;
}

int sv_compare_set_params(sv_compare *c, const sv_params *p, sv_error *err)
{
	sv_params np;
	if (sv_params_copy(&np, p) || sv_params_set(&np, SV_BOX_FOLD_PCT, "")) {
		sv_params_dispose(&np);
		return sv_error_set(err, SV_ENOMEM, NULL);
	}
	if (c->have_params && sv_params_equal(&np, &c->params)) {
		sv_params_dispose(&np);
		return 0;
	}
	drop_derived(c);
	for (size_t r = 0; r < c->nruns; r++) {
		sv_view_free(c->views[r]);
		c->views[r] = NULL;
	}
	for (size_t r = 0; r < c->nruns; r++) {
		int rc = sv_view_new(&c->views[r], c->runs[r], &np, err);
		if (rc) {
			for (size_t k = 0; k < r; k++) {
				sv_view_free(c->views[k]);
				c->views[k] = NULL;
			}
			sv_params_dispose(&np);
			if (c->have_params)
				sv_params_dispose(&c->params);
			c->have_params = false;
			return rc;
		}
	}
	if (c->have_params)
		sv_params_dispose(&c->params);
	c->params = np;
	c->have_params = true;
	return 0;
}

