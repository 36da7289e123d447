/* SPDX-License-Identifier: MIT */
/* Flame graph layout (see stackview/flame.h). One pass over the samples splits each node's
 * exclusive metric into its positive and negative parts (diffs); everything else is per node. */
#include "stackview/flame.h"

#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

static int child_by_name(const void *a, const void *b, void *payload)
{
	const sv_view *v = payload;
	return strcmp(sv_view_name(v, sv_view_node_name(v, *(const sv_node_id *)a)),
		      sv_view_name(v, sv_view_node_name(v, *(const sv_node_id *)b)));
}

int sv_flame_new(sv_flame **out, const sv_view *v, sv_node_id top, double min_width)
{
	uint32_t nn = sv_view_node_count(v);
	double *pos = calloc((size_t)nn + 1, sizeof(*pos)), *neg = calloc((size_t)nn + 1, sizeof(*neg));
	sv_flame *f = calloc(1, sizeof(*f));
	sv_node_id *kids = NULL;
	typedef struct item {
		sv_node_id node;
		uint32_t depth;
		double x;
	} item;
	item *stack = NULL;
	int rc = SV_ENOMEM;
	if (!pos || !neg || !f)
		goto out;
	size_t ns = sv_source_sample_count(sv_view_source(v));
	for (size_t i = 0; i < ns; i++) {
		sv_node_id n;
		double t, m;
		if (!sv_view_sample(v, i, &n, &t, &m))
			continue;
		if (m >= 0)
			pos[n] += m;
		else
			neg[n] -= m;
	}
	for (uint32_t i = nn; i-- > 1;) {
		if (!sv_view_node_alive(v, i))
			continue;
		uint32_t p = sv_view_node_parent(v, i);
		pos[p] += pos[i];
		neg[p] += neg[i];
	}
	f->diff = neg[SV_NODE_ROOT] > 0;
	/* Width: |inclusive|, or the test side (positive samples) in a diff. */
	f->total = f->diff ? pos[top] : fabs(sv_view_node_stats(v, top).inc);
	if (!(f->total > 0)) {
		*out = f;
		f = NULL;
		rc = 0;
		goto out;
	}
	f->box = malloc(((size_t)nn + 1) * sizeof(*f->box));
	kids = malloc(((size_t)nn + 1) * sizeof(*kids));
	stack = malloc(((size_t)nn + 1) * sizeof(*stack));
	if (!f->box || !kids || !stack)
		goto out;
	size_t sp = 0;
	stack[sp++] = (item){ top, 0, 0 };
	while (sp) {
		item it = stack[--sp];
		double width = (f->diff ? pos[it.node] : fabs(sv_view_node_stats(v, it.node).inc)) / f->total;
		if (width < min_width && it.node != top)
			continue;
		sv_flame_box *b = &f->box[f->n++];
		b->node = it.node;
		b->name = sv_view_node_name(v, it.node);
		b->depth = it.depth;
		b->x = it.x;
		b->w = width;
		b->inc = sv_view_node_stats(v, it.node).inc;
		b->pos = pos[it.node];
		b->neg = neg[it.node];
		if (it.depth > f->max_depth)
			f->max_depth = it.depth;
		const sv_node_id *ch;
		uint32_t nk = sv_view_node_children(v, it.node, &ch);
		memcpy(kids, ch, nk * sizeof(*kids));
		qsort_r(kids, nk, sizeof(*kids), child_by_name, (void *)(uintptr_t)v);
		/* Children from the left edge, in name order; pushed in reverse for pre-order. */
		double x = it.x;
		size_t first = sp;
		for (uint32_t k = 0; k < nk; k++) {
			double cw = (f->diff ? pos[kids[k]] : fabs(sv_view_node_stats(v, kids[k]).inc)) / f->total;
			stack[sp++] = (item){ kids[k], it.depth + 1, x };
			x += cw;
		}
		/* reverse the pushed range so the first child pops first */
		for (size_t a = first, z = sp; a + 1 < z; a++, z--) {
			item t = stack[a];
			stack[a] = stack[z - 1];
			stack[z - 1] = t;
		}
	}
	*out = f;
	f = NULL;
	rc = 0;
out:
	free(pos);
	free(neg);
	free(kids);
	free(stack);
	sv_flame_free(f);
	return rc;
}

void sv_flame_free(sv_flame *f)
{
	if (!f)
		return;
	free(f->box);
	free(f);
}
