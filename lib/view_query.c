/* SPDX-License-Identifier: MIT */
/* What a built view answers (stackview/view.h): names, nodes, ByName rows, samples, the
 * summary, net and peak over time, timings. Nothing here changes the view. */
#include "stackview/view.h"
#include "stackview/when.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sv/idmap.h"
#include "stackview/pattern.h"
#include "view_int.h"
#include "sv/array.h"
#include "view_int.h"

/* ---- getters ---- */

const sv_source *sv_view_source(const sv_view *v) { return v->src; }
const sv_params *sv_view_params(const sv_view *v) { return &v->params; }
sv_scaling sv_view_scaling(const sv_view *v) { return v->scaling; }
const char *sv_view_name(const sv_view *v, sv_name_id id) { return view_name_str(v, id); }
uint32_t sv_view_name_count(const sv_view *v) { return view_name_count(v); }

sv_name_id sv_view_name_find(const sv_view *v, const char *name)
{
	return view_name_find(v, name, strlen(name));
}

sv_name_id sv_view_node_name(const sv_view *v, sv_node_id n) { return view_node(v, n)->name; }
sv_node_id sv_view_node_parent(const sv_view *v, sv_node_id n) { return v->parent[n]; }
sv_stats sv_view_node_stats(const sv_view *v, sv_node_id n)
{
	sv_stats s = view_node_stats(v, n);
	if (v->qs != 1) { /* whole quanta read back */
		s.inc /= v->qs;
		s.exc /= v->qs;
		s.fold /= v->qs;
	}
	return s;
}
uint32_t sv_view_node_count(const sv_view *v) { return v->nnodes; }
bool sv_view_node_alive(const sv_view *v, sv_node_id n) { return n < v->nnodes && v->alive[n]; }

void sv_view_node_exc_span(const sv_view *v, sv_node_id n, double *first, double *last)
{
	xspan x = view_node_xspan(v, n);
	*first = x.first;
	*last = x.last;
}

double sv_view_node_exc_max(const sv_view *v, sv_node_id n)
{
	return view_node_xspan(v, n).max;
}

uint32_t sv_view_node_children(const sv_view *v, sv_node_id n, const sv_node_id **out)
{
	return view_children(v, n, out);
}

uint32_t sv_view_node_child_count(const sv_view *v, sv_node_id n)
{
	return v->kids[n + 1] - v->kids[n];
}

void sv_view_node_prefetch(const sv_view *v, sv_node_id n)
{
	__builtin_prefetch(view_node(v, n));
	__builtin_prefetch(&v->kids[n]);
}

int sv_view_preorder(const sv_view *v, sv_node_id top, sv_node_id **out, size_t *n)
{
	/* the list is filled in order, each node's children reserved after it and written as
	 * their turn comes: an explicit stack of the ones still to write */
	*out = NULL;
	*n = 0;
	size_t cap = 0, sp = 0, scap = 0, len = 0;
	sv_node_id *ids = NULL, *stack = NULL;
	int rc = 0;
	if (top == SV_NODE_ROOT)
		view_sort_children(v); /* every list: at once, not one at a time as met */
	if (SV_ARRAY_RESERVE(stack, scap, 1))
		return SV_ENOMEM;
	stack[sp++] = top;
	while (sp) {
		sv_node_id x = stack[--sp];
		const sv_node_id *kids;
		uint32_t nk = sv_view_node_children(v, x, &kids);
		if (SV_ARRAY_RESERVE(ids, cap, len + 1) || SV_ARRAY_RESERVE(stack, scap, sp + nk)) {
			rc = SV_ENOMEM;
			break;
		}
		ids[len++] = x;
		for (uint32_t k = nk; k-- > 0;)
			stack[sp++] = kids[k];
	}
	free(stack);
	if (rc) {
		free(ids);
		return rc;
	}
	*out = ids;
	*n = len;
	return 0;
}

/* ByName is made the first time it is asked for: a view seen only as a call tree (the
 * terminal UI's after each box change) never pays for it. */
int sv_view_byname_prepare(const sv_view *v)
{
	return v->bn->byname_made ? 0 : sv_view_compute_byname(v);
}

uint32_t sv_view_byname_count(const sv_view *v)
{
	return sv_view_byname_prepare(v) ? 0 : v->bn->nbyname;
}

sv_name_id sv_view_byname_name(const sv_view *v, uint32_t row) { return v->bn->byname[row]; }
const sv_stats *sv_view_byname_stats(const sv_view *v, uint32_t row) { return &v->bn->byname_st[v->bn->byname[row]]; }

uint32_t sv_view_byname_find(const sv_view *v, sv_name_id name)
{
	return !sv_view_byname_prepare(v) && name < view_name_count(v) ? v->bn->byname_row[name] : NONE32;
}

bool sv_view_sample(const sv_view *v, size_t i, sv_node_id *node, double *time, double *metric)
{
	const sv_source *src = v->src;
	sv_stack_id s = sv_source_sample_stacks(src)[i];
	uint32_t n;
	if (s == SV_STACK_NONE) {
		if (!v->inc_empty)
			return false;
		n = SV_NODE_ROOT;
	} else {
		n = v->stack_node[s];
		if (n == NONE32)
			return false;
	}
	sv_samples smp = sv_source_samples(src);
	double t = sv_sample_time(&smp, i), m = sv_sample_metric(&smp, i);
	if (!view_clip(v, &t, &m))
		return false;
	*node = view_remap(v, n);
	*time = t;
	*metric = m;
	return true;
}

int sv_view_location_sums(const sv_view *v, double **metric, double **count)
{
	const sv_source *src = v->src;
	const uint32_t *path = sv_source_sample_code_paths(src), *leaf = sv_source_code_path_locs(src);
	uint32_t nl = sv_source_location_count(src), np = sv_source_code_path_count(src);
	*metric = *count = NULL;
	if (!path || !nl)
		return 0;
	double *m = calloc(nl, sizeof(*m)), *c = calloc(nl, sizeof(*c));
	if (!m || !c) {
		free(m);
		free(c);
		return SV_ENOMEM;
	}
	sv_samples smp = sv_source_samples(src);
	for (size_t i = 0; i < smp.n; i++) {
		sv_node_id node;
		double t, x;
		if (path[i] < np && sv_view_sample(v, i, &node, &t, &x)) {
			m[leaf[path[i]]] += x;
			c[leaf[path[i]]] += sv_sample_count(&smp, i);
		}
	}
	*metric = m;
	*count = c;
	return 0;
}

void sv_view_summary(sv_summary *out, const sv_view *v)
{
	const vnode *r = view_node(v, SV_NODE_ROOT);
	out->metric = r->st.inc / v->qs;
	out->count = r->st.inc_ct;
	double first = view_node_first(v, SV_NODE_ROOT), last = view_node_last(v, SV_NODE_ROOT);
	out->first = isfinite(first) ? first : 0;
	out->last = isfinite(last) ? last : 0;
	double span = out->last - out->first;
	out->metric_per_interval = span != 0 ? out->metric / span : 0;
	out->time_bucket = v->has_range ? (v->hi - v->lo) / SV_WHEN_LEN : 0;
	out->start = v->lo + SLACK;
	out->end = isfinite(v->hi) ? v->hi - SLACK : 0;
	out->scaling = v->scaling;
}

typedef struct np_pair {
	double t, m;
	size_t i;
} np_pair;

static int np_cmp(const void *x, const void *y)
{
	const np_pair *a = x, *b = y;
	return a->t < b->t ? -1 : a->t > b->t ? 1 : (a->i > b->i) - (a->i < b->i);
}

static int net_peak(const sv_view *v, sv_netpeak *out)
{
	memset(out, 0, sizeof(*out));
	size_t ns = sv_source_sample_count(v->src), kept = 0;
	sv_samples smp = sv_source_samples(v->src); /* (with a quantum, sums in whole quanta) */
	bool sorted = true, any = false;
	double last = 0, latest = 0;
	for (size_t i = 0; i < ns; i++) {
		sv_node_id n;
		double t, m;
		if (!sv_view_sample(v, i, &n, &t, &m))
			continue;
		m = view_qmetric(v, m, sv_sample_metric(&smp, i));
		out->net += m;
		out->signed_metric |= m < 0;
		sorted = sorted && (!any || t >= last);
		last = t;
		latest = !any || t > latest ? t : latest;
		any = true;
		kept++;
	}
	if (!out->signed_metric) { /* running sums only grow */
		out->peak = out->net;
		out->peak_time = any ? latest : 0;
		return 0;
	}
	np_pair *p = sorted ? NULL : malloc(kept * sizeof(*p));
	if (!sorted && !p)
		return SV_ENOMEM;
	double run = 0;
	size_t k = 0;
	out->peak = 0;
	out->peak_time = v->lo + SLACK;
	for (size_t i = 0; i < ns; i++) {
		sv_node_id n;
		double t, m;
		if (!sv_view_sample(v, i, &n, &t, &m))
			continue;
		m = view_qmetric(v, m, sv_sample_metric(&smp, i));
		if (p) {
			p[k++] = (np_pair){ t, m, i };
			continue;
		}
		run += m;
		if (run > out->peak) {
			out->peak = run;
			out->peak_time = t;
		}
	}
	if (p) {
		qsort(p, k, sizeof(*p), np_cmp);
		for (size_t j = 0; j < k; j++) {
			run += p[j].m;
			if (run > out->peak) {
				out->peak = run;
				out->peak_time = p[j].t;
			}
		}
		free(p);
	}
	return 0;
}

int sv_view_net_peak(sv_view *v, sv_netpeak *out)
{
	if (!v->np_known) {
		int rc = net_peak(v, &v->np);
		if (rc)
			return rc;
		v->np_known = true;
	}
	*out = v->np;
	out->net /= v->qs; /* (whole quanta read back) */
	out->peak /= v->qs;
	return 0;
}

void sv_view_summary_line(char *buf, size_t size, const sv_view *v)
{
	sv_summary s;
	char a[64], b[64], c[64], d[64], e[64], f[64], g[64];
	sv_view_summary(&s, v);
	sv_format_number(a, sizeof(a), s.metric, 1);
	sv_format_number(b, sizeof(b), s.count, 1);
	if (s.last == 0) {
		snprintf(buf, size, "Totals Metric: %s  Count: %s", a, b);
		return;
	}
	sv_format_number(c, sizeof(c), s.first, 3);
	sv_format_number(d, sizeof(d), s.last, 3);
	sv_format_number(e, sizeof(e), s.last - s.first, 3);
	sv_format_number(f, sizeof(f), s.metric_per_interval, 2);
	sv_format_number(g, sizeof(g), s.time_bucket, 1);
	snprintf(buf, size,
		 "Totals Metric: %s  Count: %s  First: %s Last: %s  Last-First: %s  Metric/Interval: %s  TimeBucket: %s",
		 a, b, c, d, e, f, g);
}

void sv_view_timing(const sv_view *v, double *filter_ms, double *tree_ms)
{
	*filter_ms = v->ms_filter;
	*tree_ms = v->ms_tree;
}

size_t sv_view_memory(const sv_view *v)
{
	uint32_t nst = sv_source_stack_count(v->src);
	/* per node besides it (and its span unless one_time) and its parent: child list (8), own
	 * span's place (4), alive (1), Fold%'s remap (4), the Fold table once something folded;
	 * the own spans as many as there are (their table's room past them, doubled as it grew,
	 * is never touched) */
	size_t per_node = v->node_size + 4;
	return (size_t)v->node_cap * per_node + (size_t)v->nnodes * (v->remap ? 17 : 13) +
	       (v->fold ? ((size_t)v->nnodes + 1) * sizeof(vfold) : 0) +
	       v->nxs * (sizeof(double) + (v->xs_span ? sizeof(vspan) : 0)) +
	       (size_t)nst * (v->stack_pre ? 9 : 5) +
	       (size_t)v->nfm * sizeof(frame_memo) +
	       v->names.text.total + (size_t)v->names.cap * 12 +
	       (v->bn->byname_st ? (size_t)view_name_count(v) * (sizeof(sv_stats) + 8) : 0);
}
