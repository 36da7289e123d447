/* SPDX-License-Identifier: MIT */
/* Drill Into, Flatten, Diff and Overweight (see stackview/derive.h). */
#include "stackview/derive.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sv/copier.h"
#include "sv/idmap.h"

/* A source of samples copied from src's: src's quantum too (sv_source_set_metric_quantum;
 * a share cut by a time range ends it), so that its sums are src's. */
static void same_quantum(sv_source *dst, const sv_source *src)
{
	double qs = sv_source_metric_scale(src);
	if (qs != 1)
		sv_source_set_metric_quantum(dst, 1 / qs);
}

int sv_drill_into(sv_source **out, sv_params *out_params, const sv_view *v, sv_drill_what what, uint32_t id,
		  bool inclusive)
{
	const sv_source *src = sv_view_source(v);
	uint32_t nn = sv_view_node_count(v);
	uint8_t *sel = calloc((size_t)nn + 1, 1);
	sv_source *dst = NULL;
	sv_copier c = { 0 };
	int rc = SV_ENOMEM;
	if (!sel)
		goto out;
	for (uint32_t i = 0; i < nn; i++) {
		if (!sv_view_node_alive(v, i))
			continue;
		bool self = what == SV_DRILL_NODE ? i == id : sv_view_node_name(v, i) == id;
		uint32_t p = sv_view_node_parent(v, i);
		sel[i] = self || (inclusive && p != UINT32_MAX && sel[p]);
	}
	if ((rc = sv_source_new(&dst, sv_source_format(src))) || (rc = sv_copier_init(&c, src, dst)))
		goto out;
	sv_source_set_scaling(dst, sv_source_scaling(src));
	sv_source_set_limit_from_end(dst, true);
	same_quantum(dst, src);
	size_t ns = sv_source_sample_count(src);
	sv_samples smp = sv_source_samples(src);
	const sv_stack_id *stk = sv_source_sample_stacks(src);
	for (size_t i = 0; i < ns; i++) {
		sv_node_id n;
		double t, m;
		if (!sv_view_sample(v, i, &n, &t, &m) || !sel[n])
			continue;
		sv_stack_id s;
		if ((rc = sv_copier_stack(&c, &s, stk[i])) ||
		    (rc = sv_copier_sample(&c, i, s, sv_sample_time(&smp, i), sv_sample_metric(&smp, i),
					   sv_sample_count(&smp, i))))
			goto out;
	}
	if ((rc = sv_params_copy(out_params, sv_view_params(v))))
		goto out;
	if ((rc = sv_params_set(out_params, SV_BOX_INC, "")) || (rc = sv_params_set(out_params, SV_BOX_EXC, ""))) {
		sv_params_dispose(out_params);
		goto out;
	}
	*out = dst;
	dst = NULL;
out:
	free(sel);
	sv_copier_dispose(&c);
	sv_source_free(dst);
	return rc;
}

int sv_flatten(sv_source **out, sv_params *out_params, const sv_view *v)
{
	const sv_source *src = sv_view_source(v);
	uint32_t nn = sv_view_node_count(v);
	uint32_t *stack_of = malloc(((size_t)nn + 1) * sizeof(uint32_t));
	sv_source *dst = NULL;
	int rc = SV_ENOMEM;
	if (!stack_of || (rc = sv_source_new(&dst, sv_source_format(src))))
		goto out;
	memset(stack_of, 0xff, ((size_t)nn + 1) * sizeof(uint32_t));
	sv_source_set_scaling(dst, sv_source_scaling(src));
	same_quantum(dst, src);
	size_t ns = sv_source_sample_count(src);
	sv_samples smp = sv_source_samples(src);
	for (size_t i = 0; i < ns; i++) {
		sv_node_id n;
		double t, m;
		if (!sv_view_sample(v, i, &n, &t, &m))
			continue;
		if (n != SV_NODE_ROOT && stack_of[n] == UINT32_MAX) {
			const char *name = sv_view_name(v, sv_view_node_name(v, n));
			sv_frame_id f;
			if ((rc = sv_source_intern_frame(dst, &f, name, strlen(name))) ||
			    (rc = sv_source_intern_stack(dst, &stack_of[n], SV_STACK_NONE, f)))
				goto out;
		}
		if ((rc = sv_source_add_sample(dst, n == SV_NODE_ROOT ? SV_STACK_NONE : stack_of[n], t, m,
					       sv_sample_count(&smp, i))))
			goto out;
	}
	if ((rc = sv_params_init(out_params))) {
		sv_params_dispose(out_params);
		goto out;
	}
	*out = dst;
	dst = NULL;
out:
	free(stack_of);
	sv_source_free(dst);
	return rc;
}

static int diff_add(sv_source *dst, const sv_view *v, double sign)
{
	const sv_source *src = sv_view_source(v);
	sv_copier c = { 0 };
	int rc = sv_copier_init(&c, src, dst);
	size_t ns = sv_source_sample_count(src);
	sv_samples smp = sv_source_samples(src);
	const sv_stack_id *stk = sv_source_sample_stacks(src);
	for (size_t i = 0; !rc && i < ns; i++) {
		sv_node_id n;
		double t, m;
		if (!sv_view_sample(v, i, &n, &t, &m))
			continue;
		sv_stack_id s;
		rc = sv_copier_stack(&c, &s, stk[i]);
		if (!rc)
			rc = sv_source_add_sample(dst, s, t, sign * m, sign * sv_sample_count(&smp, i));
	}
	sv_copier_dispose(&c);
	return rc;
}

int sv_diff(sv_source **out, const sv_view *test, const sv_view *base)
{
	sv_source *dst;
	int rc = sv_source_new(&dst, "diff");
	if (rc)
		return rc;
	sv_source_set_scaling(dst, sv_view_scaling(test));
	sv_source_set_limit_from_end(dst, true);
	if (sv_source_metric_scale(sv_view_source(test)) == sv_source_metric_scale(sv_view_source(base)))
		same_quantum(dst, sv_view_source(test));
	if ((rc = diff_add(dst, test, 1.0)) || (rc = diff_add(dst, base, -1.0))) {
		sv_source_free(dst);
		return rc;
	}
	*out = dst;
	return 0;
}

int sv_view_export_source(sv_source **out, const sv_view *v, bool grouped)
{
	const sv_source *src = sv_view_source(v);
	sv_source *dst;
	int rc = sv_source_new(&dst, sv_source_format(src));
	if (rc)
		return rc;
	sv_source_set_scaling(dst, sv_view_scaling(v));
	same_quantum(dst, src);
	if ((rc = sv_source_set_notes(dst, sv_source_notes(src))))
		goto fail;
	/* What the metric is (a writer such as pprof's names it) goes with the samples. */
	for (size_t i = 0; i < sv_source_event_count(src); i++) {
		const sv_event *e = sv_source_event(src, i);
		if ((rc = sv_source_add_event(dst, e->name, e->samples, e->selected)))
			goto fail;
	}
	if (sv_source_unit(src) && sv_source_scaling(src) == sv_view_scaling(v))
		sv_source_set_unit(dst, sv_source_unit(src));
	if (!grouped) {
		if ((rc = diff_add(dst, v, 1.0)) || (rc = sv_source_set_params(dst, sv_view_params(v))))
			goto fail;
		*out = dst;
		return 0;
	}
	/* One stack per tree node, root first, named as the view names it. */
	uint32_t nn = sv_view_node_count(v);
	uint32_t *stack_of = malloc(((size_t)nn + 1) * sizeof(*stack_of));
	if (!stack_of) {
		rc = SV_ENOMEM;
		goto fail;
	}
	stack_of[SV_NODE_ROOT] = SV_STACK_NONE;
	for (uint32_t i = 1; !rc && i < nn; i++) {
		if (!sv_view_node_alive(v, i))
			continue;
		const char *name = sv_view_name(v, sv_view_node_name(v, i));
		sv_frame_id f;
		rc = sv_source_intern_frame(dst, &f, name, strlen(name));
		if (!rc)
			rc = sv_source_intern_stack(dst, &stack_of[i], stack_of[sv_view_node_parent(v, i)], f);
	}
	size_t ns = sv_source_sample_count(src);
	sv_samples smp = sv_source_samples(src);
	for (size_t i = 0; !rc && i < ns; i++) {
		sv_node_id n;
		double t, m;
		if (sv_view_sample(v, i, &n, &t, &m))
			rc = sv_source_add_sample(dst, stack_of[n], t, m, sv_sample_count(&smp, i));
	}
	free(stack_of);
	if (rc)
		goto fail;
	*out = dst;
	return 0;
fail:
	sv_source_free(dst);
	return rc;
}

/* ---- Overweight (§9.2) ---- */

static int ow_cmp(const void *a, const void *b)
{
	const sv_overweight_row *x = a, *y = b;
	if (x->interest != y->interest)
		return x->interest > y->interest ? -1 : 1;
	if (x->overweight_pct != y->overweight_pct)
		return x->overweight_pct > y->overweight_pct ? -1 : 1;
	if (x->delta != y->delta)
		return x->delta < y->delta ? -1 : 1;
	return strcmp(x->name, y->name);
}

static double view_total(const sv_view *v)
{
	double t = 0;
	for (uint32_t r = 0; r < sv_view_byname_count(v); r++)
		t += sv_view_byname_stats(v, r)->exc;
	return t;
}

int sv_overweight_compute(sv_overweight *out, const sv_view *test, const sv_view *base)
{
	memset(out, 0, sizeof(*out));
	if (sv_view_byname_prepare(test) || sv_view_byname_prepare(base))
		return SV_ENOMEM;
	out->base = view_total(base);
	out->test = view_total(test);
	out->delta = out->test - out->base;
	out->delta_pct = out->base != 0 ? out->delta / out->base * 100 : 0;
	if (out->base == out->test)
		return 0;
	uint32_t n = sv_view_byname_count(test);
	out->rows = calloc((size_t)n + 1, sizeof(*out->rows));
	if (!out->rows)
		return SV_ENOMEM;
	for (uint32_t r = 0; r < n; r++) {
		const sv_stats *ts = sv_view_byname_stats(test, r);
		const char *name = sv_view_name(test, sv_view_byname_name(test, r));
		sv_name_id bn = sv_view_name_find(base, name);
		uint32_t brow = bn == UINT32_MAX ? UINT32_MAX : sv_view_byname_find(base, bn);
		if (brow == UINT32_MAX || ts->inc == 0)
			continue;
		double bv = sv_view_byname_stats(base, brow)->inc;
		if (bv == 0)
			continue;
		sv_overweight_row *w = &out->rows[out->nrows];
		w->name = name;
		w->base = bv;
		w->test = ts->inc;
		w->delta = w->test - w->base;
		/* expected = base × (growth − 1), written so that exact ratios stay exact. */
		double expected = out->base != 0 ? w->base * (out->test - out->base) / out->base : 0;
		w->overweight_pct = expected != 0 ? w->delta / expected * 100 : 0;
		w->responsibility_pct = w->delta / (out->test - out->base) * 100;
		double ar = fabs(w->responsibility_pct);
		w->interest = (fabs(w->overweight_pct) > 110) + (ar > 5) + (ar > 20) + (ar > 100) +
			      (w->test / out->test < 0.95) + (w->test / out->test < 0.75);
		if (ar < 2)
			continue;
		out->nrows++;
	}
	qsort(out->rows, out->nrows, sizeof(*out->rows), ow_cmp);
	return 0;
}

void sv_overweight_dispose(sv_overweight *ow)
{
	if (!ow)
		return;
	free(ow->rows);
	ow->rows = NULL;
	ow->nrows = 0;
}
