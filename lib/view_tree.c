/* SPDX-License-Identifier: MIT */
/* A view's tree once the stacks have made it (view.c): the samples into its nodes (one by
 * one, or each stack's sums), inclusive totals, child lists (sorted in view_kids.c), ByName and
 * Fold% (spec §4.2, §5.3, §6.1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "source_int.h"
#include "sv/array.h"
#include "view_int.h"

/* ---- samples ---- */

/* The node a stack's samples go to (NONE32: dropped), and whether its leaf was folded there;
 * SV_STACK_NONE: ROOT when IncPats is empty. */
static inline uint32_t stack_target(const sv_view *v, sv_stack_id s, bool *folded)
{
	*folded = false;
	if (s == SV_STACK_NONE)
		return v->inc_empty ? SV_NODE_ROOT : NONE32;
	*folded = v->stack_folded[s];
	return v->stack_node[s];
}

/* The view's Fold table, made (zeroed) the first time something folds into a node. */
static int fold_table(sv_view *v)
{
	if (!v->fold && !(v->fold = calloc((size_t)v->nnodes + 1, sizeof(*v->fold))))
		return SV_ENOMEM;
	return 0;
}

/* Whether a kept stack's leaf folded (then the Fold table is made before the samples). */
static bool any_folded(const sv_view *v)
{
	uint32_t nst = sv_source_stack_count(v->src);
	for (uint32_t s = 0; s < nst; s++)
		if (v->stack_folded[s] && v->stack_node[s] != NONE32)
			return true;
	return false;
}

/* k samples of metric m and count c into node's own sums (the inclusive ones start as
 * these: accumulate adds the children's), spanning first..end, the largest metric max. */
static inline void node_add(sv_view *v, uint32_t node, double m, double c, bool folded, uint32_t k, double first,
			    double end, double max)
{
	vnode *n = view_node(v, node);
	n->st.exc += m;
	n->st.exc_ct += c;
	n->st.inc += m;
	n->st.inc_ct += c;
	if (folded) { /* (the table is there: any_folded) */
		v->fold[node].fold += m;
		v->fold[node].fold_ct += c;
	}
	n->nsamp += k;
	if (max > n->st.max)
		n->st.max = max;
	if (!v->one_time) {
		vspan *sp = view_node_span(v, node);
		if (first < sp->first)
			sp->first = first;
		if (end > sp->last)
			sp->last = end;
	}
}

/* The samples by stack, from the source's sums (sv_source_sum_stacks), when the time range
 * takes every stack's samples whole or not at all (a stack with some inside and some not:
 * false, nothing done). Every sum is exact in any order (what the sums promise), so nodes
 * get the bits add_samples would give them. With `marks`, only marked nodes get theirs. */
static bool add_stack_sums(sv_view *v, const uint64_t *marks)
{
	const sv_stack_sums *ss = sv_source_stack_sums(v->src);
	if (!ss)
		return false;
	uint32_t nst = sv_source_stack_count(v->src);
	bool tm = v->scaling == SV_SCALING_TIME;
	/* every kept stack whole or outside (view_clip's rules, by the stack's extremes); all
	 * whole when the range holds every sum's (no pass over them then: 56 bytes a stack) */
	const sv_source *src = v->src;
	bool all_whole = src->sums_first >= v->lo && (tm ? src->sums_last_end : src->sums_last) <= v->hi;
	for (uint32_t s = 0; s <= nst && !all_whole; s++) {
		const sv_stack_sums *x = &ss[s];
		double end = tm ? x->last_end : x->last;
		bool whole = !x->n || (x->first >= v->lo && end <= v->hi);
		bool out = x->first > v->hi || end < v->lo;
		bool folded;
		if (!whole && !out && stack_target(v, s == nst ? SV_STACK_NONE : s, &folded) != NONE32)
			return false;
	}
	if (marks) {
		/* only the marked nodes' stacks are read (the clean nodes have their sums); the
		 * range's net and peak are made when asked for (sv_view_net_peak, from the
		 * samples: the same bits, these sums being exact in any order) */
		for (uint32_t s = 0; s <= nst; s++) {
			bool folded;
			uint32_t node = stack_target(v, s == nst ? SV_STACK_NONE : s, &folded);
			if (node == NONE32 || !view_marked(marks, node))
				continue;
			const sv_stack_sums *x = &ss[s];
			double end = tm ? x->last_end : x->last;
			if (x->n && x->first <= v->hi && end >= v->lo)
				node_add(v, node, x->metric, x->count, folded, (uint32_t)x->n, x->first, end, x->max);
		}
		v->np_known = false;
		return true;
	}
	bool any = false;
	double latest = 0;
	memset(&v->np, 0, sizeof(v->np));
	for (uint32_t s = 0; s <= nst; s++) {
		const sv_stack_sums *x = &ss[s];
		double end = tm ? x->last_end : x->last;
		if (!x->n || x->first > v->hi || end < v->lo)
			continue;
		bool folded;
		uint32_t node = stack_target(v, s == nst ? SV_STACK_NONE : s, &folded);
		if (node == NONE32)
			continue;
		v->np.net += x->metric;
		latest = !any || x->last > latest ? x->last : latest;
		any = true;
		node_add(v, node, x->metric, x->count, folded, (uint32_t)x->n, x->first, end, x->max);
	}
	/* no metric is below 0 (no sums otherwise): the peak is the net, at the last sample */
	v->np.peak = v->np.net;
	v->np.peak_time = any ? latest : 0;
	v->np_known = true;
	return true;
}

/* Every kept sample into its node, the range's net and peak from them all; with `was`, only
 * those of marked nodes (the clean ones have theirs), the net and peak then made when asked for
 * (sv_view_net_peak). */
static void add_samples(sv_view *v, const view_was *was)
{
	if (add_stack_sums(v, was ? was->marks : NULL))
		return;
	const sv_source *src = v->src;
	size_t ns = sv_source_sample_count(src);
	const sv_stack_id *stk = sv_source_sample_stacks(src);
	sv_samples smp = sv_source_samples(src);
	bool tm = v->scaling == SV_SCALING_TIME;
	if (was && was->smarks) { /* (a sample of a clean node's stack reads nothing but its bit) */
		uint32_t nst = sv_source_stack_count(src);
		for (size_t i = 0; i < ns; i++) {
			sv_stack_id st = stk[i];
			if (!view_marked(was->smarks, st == SV_STACK_NONE ? nst : st))
				continue;
			bool folded;
			uint32_t node = stack_target(v, st, &folded);
			double t = sv_sample_time(&smp, i), whole = sv_sample_metric(&smp, i), m = whole;
			if (!view_clip(v, &t, &m))
				continue;
			node_add(v, node, view_qmetric(v, m, whole), sv_sample_count(&smp, i), folded, 1, t, tm ? t + fabs(m) : t,
				 m);
		}
		v->np_known = false;
		return;
	}
	bool any = false;
	double latest = 0;
	memset(&v->np, 0, sizeof(v->np));
	for (size_t i = 0; i < ns; i++) {
		/* A sample's node is a random read: ask for the ones a few samples ahead. */
		if (i + 16 < ns && stk[i + 16] != SV_STACK_NONE)
			__builtin_prefetch(&v->stack_node[stk[i + 16]]);
		if (i + 8 < ns && stk[i + 8] != SV_STACK_NONE && v->stack_node[stk[i + 8]] != NONE32)
			__builtin_prefetch(&view_node(v, v->stack_node[stk[i + 8]])->st, 1);
		bool folded;
		uint32_t node = stack_target(v, stk[i], &folded);
		if (node == NONE32)
			continue;
		double t = sv_sample_time(&smp, i), whole = sv_sample_metric(&smp, i), m = whole;
		if (!view_clip(v, &t, &m))
			continue;
		double c = sv_sample_count(&smp, i), qm = view_qmetric(v, m, whole);
		double end = tm ? t + fabs(m) : t;
		/* the net of the range, in sample order as sv_view_net_peak sums it */
		v->np.net += qm;
		v->np.signed_metric |= m < 0;
		latest = !any || t > latest ? t : latest;
		any = true;
		if (!was || view_marked(was->marks, node))
			node_add(v, node, qm, c, folded, 1, t, end, m);
	}
	if (!v->np.signed_metric) { /* running sums only grow: the peak is the net, at the last sample */
		v->np.peak = v->np.net;
		v->np.peak_time = any ? latest : 0;
		v->np_known = true;
	}
}

/* x as node's own span, in xs_max and xs_span (fewer entries than nodes: a place below
 * XS_NONE). */
static int xs_add(sv_view *v, uint32_t node, xspan x)
{
	if (SV_ARRAY_RESERVE(v->xs_max, v->xs_cap, v->nxs + 1) ||
	    (!v->one_time && SV_ARRAY_RESERVE(v->xs_span, v->xs_span_cap, v->nxs + 1)))
		return SV_ENOMEM;
	v->xs_max[v->nxs] = x.max;
	if (v->xs_span)
		v->xs_span[v->nxs] = (vspan){ x.first, x.last };
	v->xidx[node] = (uint32_t)v->nxs++;
	return 0;
}

/* A node's own span kept apart (xs_max, xs_span) before its children's are added to its
 * stats: in the place it had (a view kept from another, view_was), else a new one. */
static int keep_xspan(sv_view *v, uint32_t node)
{
	xspan x = { view_node_first(v, node), view_node_last(v, node), view_node(v, node)->st.max };
	uint32_t at = v->xidx[node];
	if (x.first == INFINITY && x.last == -INFINITY && x.max == -INFINITY) {
		v->xidx[node] = XS_NONE; /* (a place it had is left unused) */
		return 0;
	}
	if (at >= XS_NONE)
		return xs_add(v, node, x);
	v->xs_max[at] = x.max;
	if (v->xs_span)
		v->xs_span[at] = (vspan){ x.first, x.last };
	return 0;
}

/* Inclusive totals by one backward pass (a parent's id is below its children's); each node's
 * own samples are in them already (add_samples). A parent is met first at its last child,
 * before anything is added to it: its own span is kept then. A node's totals are whole when
 * the pass reaches it (its children came before): whether it is alive is set then. */
static int accumulate(sv_view *v, const view_was *was)
{
	/* with `was`, whether each node is alive and its own span are the other view's already
	 * (view_like): a clean node's stay, a marked one's are made again when the pass meets it
	 * (was->dirty 1, then 2) */
	if (!was) {
		v->alive = malloc((size_t)v->nnodes + 1);
		if (!v->alive || !(v->xidx = sv_malloc_big(((size_t)v->nnodes + 1) * sizeof(*v->xidx))))
			return SV_ENOMEM;
		memset(v->xidx, 0xff, ((size_t)v->nnodes + 1) * sizeof(*v->xidx)); /* XS_INCLUSIVE */
	}
	bool spans = !v->one_time;
	for (uint32_t i = v->nnodes; i-- > 1;) {
		/* a parent's node and (under a marked parent, most nodes far apart) its child's:
		 * asked for ahead (not those of a clean parent, which are not read) */
		if (i > 16 && (!was || view_marked(was->marks, v->parent[i - 16]))) {
			__builtin_prefetch(&view_node(v, v->parent[i - 16])->st, 1);
			if (was)
				__builtin_prefetch(view_node(v, i - 16));
		}
		uint32_t pi = v->parent[i];
		if (was && !view_marked(was->marks, pi)) /* (then i is clean too: its node is not read) */
			continue;
		vnode *n = view_node(v, i);
		v->alive[i] = n->nsamp > 0;
		bool first = was ? was->dirty[pi] == 1 : v->xidx[pi] == XS_INCLUSIVE; /* (pi met first) */
		if (first && was)
			was->dirty[pi] = 2;
		if (first && keep_xspan(v, pi))
			return SV_ENOMEM;
		vnode *p = view_node(v, pi);
		p->st.inc += n->st.inc;
		p->st.inc_ct += n->st.inc_ct;
		p->nsamp += n->nsamp;
		if (n->st.max > p->st.max)
			p->st.max = n->st.max;
		if (spans) {
			const vspan *cs = view_node_span(v, i);
			vspan *ps = view_node_span(v, pi);
			if (cs->first < ps->first)
				ps->first = cs->first;
			if (cs->last > ps->last)
				ps->last = cs->last;
		}
	}
	if (v->nnodes)
		v->alive[SV_NODE_ROOT] = 1;
	return 0;
}

/* Child lists of alive nodes: counted into kids[p + 2], summed so kids[p + 1] is where p's
 * list starts, then filled, which moves kids[p + 1] to its end. Each list of two or more is
 * sorted when first asked for (view_kids.c). */
static int link_children(sv_view *v)
{
	uint32_t n = v->nnodes;
	if (!v->children)
		v->children = sv_malloc_big(((size_t)n + 1) * sizeof(*v->children));
	if (!v->kids)
		v->kids = sv_malloc_big(((size_t)n + 2) * sizeof(*v->kids));
	free(v->unsorted);
	v->unsorted = calloc((size_t)n / 64 + 1, sizeof(*v->unsorted));
	if (!v->children || !v->kids || !v->unsorted)
		return SV_ENOMEM;
	uint32_t *kids = v->kids;
	memset(kids, 0, ((size_t)n + 2) * sizeof(*kids));
	for (uint32_t i = 1; i < n; i++)
		if (v->alive[i])
			kids[v->parent[i] + 2]++;
	for (uint32_t i = 2; i < n + 2; i++)
		kids[i] += kids[i - 1];
	for (uint32_t i = 1; i < n; i++)
		if (v->alive[i])
			v->children[kids[v->parent[i] + 1]++] = i;
	for (uint32_t i = 0; i < n; i++)
		if (kids[i + 1] - kids[i] > 1)
			v->unsorted[i >> 6] |= 1ull << (i & 63);
	return 0;
}

/* ---- Fold% (§4.2) ---- */

double view_fold_pct(const sv_view *v)
{
	double pct;
	return sv_parse_number(v->params.box[SV_BOX_FOLD_PCT], &pct) && pct > 0 ? pct : 0;
}

static int fold_percent(sv_view *v)
{
	double pct = view_fold_pct(v);
	if (!(pct > 0))
		return 0;
	int rc = v->bn->byname_made ? 0 : sv_view_compute_byname(v); /* a name's inclusive share keeps its nodes */
	if (rc)
		return rc;
	if (!(v->remap = sv_malloc_big(((size_t)v->nnodes + 1) * sizeof(*v->remap))))
		return SV_ENOMEM;
	for (uint32_t i = 0; i < v->nnodes; i++)
		v->remap[i] = i;
	double threshold = pct * view_node(v, SV_NODE_ROOT)->st.inc / 100.0;
	uint32_t broken = view_name_find(v, "BROKEN", 6);
	/* Top-down over ROOT's descendants; ROOT's own children are never folded. Node ids are
	 * in parent-before-child order, so one forward pass sees every parent first. */
	for (uint32_t i = 1; i < v->nnodes; i++) {
		if (!v->alive[i])
			continue;
		vnode *n = view_node(v, i);
		uint32_t p = v->parent[i];
		if (p == SV_NODE_ROOT) {
			v->remap[i] = i;
			continue;
		}
		if (v->remap[p] != p) { /* inside a folded subtree */
			v->remap[i] = v->remap[p];
			v->alive[i] = 0;
			continue;
		}
		double byname_inc = v->bn->byname_st[n->name].inc * v->qs; /* (ByName's: read back) */
		if (fabs(n->st.inc) < threshold && n->name != broken && fabs(byname_inc) < threshold) {
			vnode *pn = view_node(v, p);
			pn->st.exc += n->st.inc;
			pn->st.exc_ct += n->st.inc_ct;
			if (fold_table(v))
				return SV_ENOMEM;
			v->fold[p].fold += n->st.inc;
			v->fold[p].fold_ct += n->st.inc_ct;
			/* p has a child: its own span is kept apart, or it had none */
			if (v->xidx[p] == XS_NONE && xs_add(v, p, (xspan){ INFINITY, -INFINITY, -INFINITY }))
				return SV_ENOMEM;
			uint32_t x = v->xidx[p];
			if (v->xs_span) {
				double first = view_node_first(v, i), last = view_node_last(v, i);
				if (first < v->xs_span[x].first)
					v->xs_span[x].first = first;
				if (last > v->xs_span[x].last)
					v->xs_span[x].last = last;
			}
			if (n->st.max > v->xs_max[x])
				v->xs_max[x] = n->st.max;
			v->remap[i] = p;
			v->alive[i] = 0;
		} else {
			v->remap[i] = i;
		}
	}
	v->bn->byname_made = false; /* made again from the folded tree when asked for */
	return link_children(v);
}

/* ---- the finished view ---- */

double sv_view_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The samples into the nodes, then totals, children and Fold% (t0: when the view's build
 * began, for its timings). ByName is made when first asked for (sv_view_byname_prepare), or
 * here with `byname`. */
int sv_view_finish(sv_view *v, double t0, bool byname, const view_was *was)
{
	free(v->fold); /* (a tree taken from another view: made again if anything folds) */
	v->fold = NULL;
	if (any_folded(v) && fold_table(v))
		return SV_ENOMEM;
	/* a clean node's Fold is the other view's (what folded into it is the same) */
	for (uint32_t i = 0; was && was->fold && v->fold && i < v->nnodes; i++)
		if (!was->dirty[i])
			v->fold[i] = was->fold[i];
	add_samples(v, was);
	double t1 = sv_view_now_ms();
	if (accumulate(v, was))
		return SV_ENOMEM;
	int rc = link_children(v);
	if (!rc)
		rc = fold_percent(v);
	if (!rc && byname && !v->bn->byname_made)
		rc = sv_view_compute_byname(v);
	if (rc)
		return rc;
	v->ms_filter = t1 - t0;
	v->ms_tree = sv_view_now_ms() - t1;
	return 0;
}

