/* SPDX-License-Identifier: MIT */
/* The When column: 32-bucket histograms and their characters (spec §7). Histograms are
 * built on first use: one pass over the samples into exclusive histograms, then one
 * backward pass over nodes for inclusive ones. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/view.h"
#include "stackview/when.h"
#include "view_int.h"

char sv_when_char(double v, double scale)
{
	if (v == 0 || isnan(v) || !(scale > 0))
		return '_';
	double r = v / scale;
	if (v > 0) {
		if (r < 0.001)
			return '.';
		if (r < 0.01)
			return 'o';
		double k = trunc(10 * r);
		if (k <= 9)
			return (char)('0' + (int)k);
		if (k <= 34)
			return (char)('A' + (int)k - 10);
		return '*';
	}
	double k = trunc(10 * fabs(r));
	if (k <= 24)
		return (char)('a' + (int)k);
	return '@';
}

void sv_when_encode(char out[SV_WHEN_LEN + 1], const double *b, double scale)
{
	for (int i = 0; i < SV_WHEN_LEN; i++)
		out[i] = sv_when_char(b[i], scale);
	out[SV_WHEN_LEN] = '\0';
}

void sv_view_when_bounds(const sv_view *v, double *start, double *bucket)
{
	*start = v->lo;
	*bucket = v->has_range ? (v->hi - v->lo) / SV_WHEN_LEN : 0;
}

/* Buckets use PerfView's float32 arithmetic (§7.6): each contribution and each running sum
 * is rounded to float. A full time-metric bucket then sits a hair below D and shows `9`
 * consistently, instead of flickering between `9` and `A` with double rounding noise. */
static inline double f32add(double acc, double x)
{
	return (double)((float)acc + (float)x);
}

void sv_hist_add(double *dst, const double *src, double w)
{
	for (int k = 0; k < SV_WHEN_LEN; k++)
		if (src[k] != 0)
			dst[k] = f32add(dst[k], w == 1 ? src[k] : w * src[k]);
}

/* Add one sample to a 32-bucket histogram (§7.1). */
static void hist_add(double *h, const sv_view *v, double t, double m, double D)
{
	double lo = v->lo;
	/* Clamp before converting: hostile times can be far outside any long. */
	double q = trunc((t - lo) / D);
	long b = !(q > 0) ? 0 : q >= SV_WHEN_LEN ? SV_WHEN_LEN : (long)q;
	if (v->scaling == SV_SCALING_DATA) {
		if (b > SV_WHEN_LEN - 1)
			b = SV_WHEN_LEN - 1;
		h[b] = f32add(h[b], m);
		return;
	}
	double sign = m < 0 ? -1 : 1;
	double end = t + fabs(m);
	double pos = t;
	while (b < SV_WHEN_LEN) {
		double next = lo + (double)(b + 1) * D;
		double upto = next < end ? next : end;
		if (upto > pos)
			h[b] = f32add(h[b], sign * (upto - pos));
		pos = upto;
		b++;
		if (lo + (double)b * D > end || pos >= end)
			break;
	}
}

/* Exclusive histograms: one pass over the samples into their nodes' buckets. */
static int exc_hists(const sv_view *v, double **out)
{
	size_t nn = v->nnodes;
	double *h = calloc(nn * SV_WHEN_LEN, sizeof(double));
	if (!h)
		return SV_ENOMEM;
	double start, D;
	sv_view_when_bounds(v, &start, &D);
	if (D > 0) {
		size_t ns = sv_source_sample_count(v->src);
		for (size_t i = 0; i < ns; i++) {
			sv_node_id n;
			double t, m;
			if (sv_view_sample(v, i, &n, &t, &m))
				hist_add(h + (size_t)n * SV_WHEN_LEN, v, t, m, D);
		}
	}
	*out = h;
	return 0;
}

/* Inclusive histograms are the exclusive ones summed up the tree in place (children before
 * parents); the exclusive ones are kept only when something asks for them
 * (sv_view_when_exc), so a call tree's or ByName's When touches one table, not two. */
int sv_view_when_scale(double *out, sv_view *v)
{
	if (v->inc_hist) {
		*out = v->scale;
		return 0;
	}
	size_t nn = v->nnodes;
	double *inc;
	int rc = exc_hists(v, &inc);
	if (rc)
		return rc;
	double start, D;
	sv_view_when_bounds(v, &start, &D);
	for (size_t i = nn; i-- > 1;) {
		if (!v->alive[i])
			continue;
		double *p = inc + (size_t)v->nodes[i].parent * SV_WHEN_LEN, *c = inc + i * SV_WHEN_LEN;
		sv_hist_add(p, c, 1);
	}
	double scale = 0;
	if (v->scaling == SV_SCALING_TIME) {
		scale = D;
	} else {
		for (int k = 0; k < SV_WHEN_LEN; k++)
			if (fabs(inc[k]) > scale)
				scale = fabs(inc[k]);
		scale /= 2;
	}
	v->inc_hist = inc;
	v->scale = scale;
	*out = scale;
	return 0;
}

int sv_view_when_exc(sv_view *v)
{
	return v->exc_hist ? 0 : exc_hists(v, &v->exc_hist);
}

const double *sv_view_node_inc_hist(const sv_view *v, sv_node_id n) { return v->inc_hist + (size_t)n * SV_WHEN_LEN; }
const double *sv_view_node_exc_hist(const sv_view *v, sv_node_id n) { return v->exc_hist + (size_t)n * SV_WHEN_LEN; }

int sv_view_node_when(char out[SV_WHEN_LEN + 1], sv_view *v, sv_node_id n)
{
	double scale;
	int rc = sv_view_when_scale(&scale, v);
	if (rc)
		return rc;
	sv_when_encode(out, v->inc_hist + (size_t)n * SV_WHEN_LEN, scale);
	return 0;
}

/* ByName histograms: sum of inclusive histograms of first-on-path nodes (§7.5). */
static int name_hists(sv_view *v)
{
	double scale;
	int rc = sv_view_when_scale(&scale, v);
	if (rc)
		return rc;
	uint32_t nn = v->names.count;
	double *h = calloc((size_t)nn * SV_WHEN_LEN, sizeof(double));
	uint32_t *onpath = calloc(nn, sizeof(uint32_t));
	uint32_t *stack = malloc(((size_t)v->nnodes + 1) * sizeof(uint32_t));
	uint32_t *iter = malloc(((size_t)v->nnodes + 1) * sizeof(uint32_t));
	if (!h || !onpath || !stack || !iter) {
		free(h);
		free(onpath);
		free(stack);
		free(iter);
		return SV_ENOMEM;
	}
	size_t sp = 0;
	stack[sp] = SV_NODE_ROOT;
	iter[sp++] = 0;
	sv_hist_add(h + (size_t)v->nodes[0].name * SV_WHEN_LEN, v->inc_hist, 1);
	onpath[v->nodes[0].name]++;
	while (sp) {
		vnode *node = &v->nodes[stack[sp - 1]];
		if (iter[sp - 1] < node->child_count) {
			uint32_t c = v->children[node->child_start + iter[sp - 1]++];
			uint32_t name = v->nodes[c].name;
			if (!onpath[name])
				sv_hist_add(h + (size_t)name * SV_WHEN_LEN, v->inc_hist + (size_t)c * SV_WHEN_LEN, 1);
			onpath[name]++;
			stack[sp] = c;
			iter[sp++] = 0;
		} else {
			onpath[node->name]--;
			sp--;
		}
	}
	free(onpath);
	free(stack);
	free(iter);
	v->name_hist = h;
	return 0;
}

const double *sv_view_byname_hist(sv_view *v, uint32_t row)
{
	if (!v->name_hist && name_hists(v))
		return NULL;
	return v->name_hist + (size_t)v->byname[row] * SV_WHEN_LEN;
}

int sv_view_byname_when(char out[SV_WHEN_LEN + 1], sv_view *v, uint32_t row)
{
	const double *h = sv_view_byname_hist(v, row);
	if (!h)
		return SV_ENOMEM;
	sv_when_encode(out, h, v->scale);
	return 0;
}
