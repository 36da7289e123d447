/* SPDX-License-Identifier: MIT */
/* Callers, Callees and Caller-Callee (see stackview/aggview.h). */
#include "stackview/aggview.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sv/idmap.h"
#include "sv/array.h"

struct sv_aggtree {
	sv_aggrow *rows;
	uint32_t n;
	size_t cap;
	uint32_t *children;
	double scale;
	const sv_view *v;
	sv_agg_kind kind;
};

static void stats_init(sv_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->first = INFINITY;
	s->max = -INFINITY;
	s->last = -INFINITY;
}

/* ---- sparse histograms: a node's row holds only the buckets its samples reach ---- */

/* Node n's buckets [lo[n], lo[n] + w[n]) at rows + off[n], float-rounded sums (§7.6). */
typedef struct hrows {
	float *rows;
	uint32_t *off;
	uint8_t *lo, *w;
} hrows;

static void hrows_free(hrows *h)
{
	free(h->rows);
	free(h->off);
	free(h->lo);
	free(h->w);
	memset(h, 0, sizeof(*h));
}

/* The rows' spans: each alive node's exclusive buckets, widened by those of its children
 * not named `apart` (UINT32_MAX: every child; children have higher ids than their parents:
 * one backward pass). */
static int hrows_span(hrows *h, const sv_view *v, sv_name_id apart)
{
	uint32_t nn = sv_view_node_count(v);
	h->off = malloc(((size_t)nn + 1) * sizeof(*h->off));
	h->lo = malloc((size_t)nn + 1);
	h->w = malloc((size_t)nn + 1);
	if (!h->off || !h->lo || !h->w)
		return SV_ENOMEM;
	/* lo and w hold the first and one past the last bucket until the widths */
	for (uint32_t i = 0; i < nn; i++) {
		const float *b;
		unsigned first, n = sv_view_node_alive(v, i) ? sv_view_node_exc_row(v, i, &first, &b) : 0;
		h->lo[i] = (uint8_t)(n ? first : SV_WHEN_LEN);
		h->w[i] = (uint8_t)(n ? first + n : 0);
	}
	for (uint32_t i = nn; i-- > 1;) {
		if (!sv_view_node_alive(v, i) || sv_view_node_name(v, i) == apart || h->lo[i] >= h->w[i])
			continue;
		uint32_t p = sv_view_node_parent(v, i);
		if (h->lo[i] < h->lo[p])
			h->lo[p] = h->lo[i];
		if (h->w[i] > h->w[p])
			h->w[p] = h->w[i];
	}
	for (uint32_t i = 0; i < nn; i++) {
		h->w[i] = (uint8_t)(h->lo[i] < h->w[i] ? h->w[i] - h->lo[i] : 0);
		if (!h->w[i])
			h->lo[i] = 0;
	}
	return sv_rows_place(&h->rows, h->off, h->w, nn);
}

/* dst[0, n) += w * src[0, n) as sv_hist_add adds (a float holds each sum exactly). */
static void row_add(float *dst, const float *src, unsigned n, double w)
{
	for (unsigned k = 0; k < n; k++)
		if (src[k] != 0)
			dst[k] = dst[k] + (float)(w * (double)src[k]);
}

/* Node n's exclusive buckets into its row, scaled by w. */
static void row_add_exc(hrows *h, const sv_view *v, uint32_t n, double w)
{
	const float *b;
	unsigned first, k = sv_view_node_exc_row(v, n, &first, &b);
	if (k)
		row_add(h->rows + h->off[n] + (first - h->lo[n]), b, k, w);
}

/* Child c's row into its parent p's. */
static void row_add_child(hrows *h, uint32_t p, uint32_t c)
{
	if (h->w[c])
		row_add(h->rows + h->off[p] + (h->lo[c] - h->lo[p]), h->rows + h->off[c], h->w[c], 1);
}

/* A 32-bucket histogram += node n's row, as sv_hist_add adds. */
static void hist_add_node(double *dst, const hrows *h, uint32_t n)
{
	const float *r = h->rows + h->off[n];
	for (unsigned k = 0; k < h->w[n]; k++)
		if (r[k] != 0)
			dst[h->lo[n] + k] = (double)((float)dst[h->lo[n] + k] + r[k]);
}

static int tree_row(sv_aggtree *t, sv_idmap *idx, uint32_t *out, uint32_t parent, sv_name_id name)
{
	uint64_t key = ((uint64_t)parent << 32) | name;
	uint32_t id = sv_idmap_get(idx, key);
	if (id != SV_IDMAP_NONE) {
		*out = id;
		return 0;
	}
	if (SV_ARRAY_RESERVE(t->rows, t->cap, (size_t)t->n + 1))
		return SV_ENOMEM;
	id = t->n++;
	sv_aggrow *r = &t->rows[id];
	memset(r, 0, sizeof(*r));
	stats_init(&r->st);
	r->name = name;
	r->parent = parent;
	int rc = sv_idmap_put(idx, key, id);
	if (rc)
		return rc;
	*out = id;
	return 0;
}

/* Attributed part of a node: what stays with it once nested instances of the focus below
 * it are taken away (innermost-instance rule, D5). */
typedef struct attr {
	double inc, inc_ct, first, last, max;
} attr;

static void add_attr(sv_aggrow *r, const attr *a, const hrows *h, uint32_t node, const sv_stats *excpart)
{
	r->st.inc += a->inc;
	r->st.inc_ct += a->inc_ct;
	if (excpart) {
		r->st.exc += excpart->exc;
		r->st.exc_ct += excpart->exc_ct;
		r->st.fold += excpart->fold;
		r->st.fold_ct += excpart->fold_ct;
	}
	if (a->first < r->st.first)
		r->st.first = a->first;
	if (a->last > r->st.last)
		r->st.last = a->last;
	if (a->max > r->st.max)
		r->st.max = a->max;
	hist_add_node(r->hist, h, node);
}

static int cmp_rows(const sv_aggrow *x, const sv_aggrow *y, const sv_view *v)
{
	double ax = fabs(x->st.inc), ay = fabs(y->st.inc);
	if (ax != ay)
		return ax > ay ? -1 : 1;
	return strcmp(sv_view_name(v, x->name), sv_view_name(v, y->name));
}

static int child_cmp(const void *a, const void *b, void *payload)
{
	const sv_aggtree *t = payload;
	return cmp_rows(&t->rows[*(const uint32_t *)a], &t->rows[*(const uint32_t *)b], t->v);
}

static int tree_link(sv_aggtree *t)
{
	t->children = malloc(((size_t)t->n + 1) * sizeof(uint32_t));
	if (!t->children)
		return SV_ENOMEM;
	for (uint32_t i = 0; i < t->n; i++)
		t->rows[i].child_count = 0;
	for (uint32_t i = 1; i < t->n; i++)
		t->rows[t->rows[i].parent].child_count++;
	uint32_t pos = 0;
	for (uint32_t i = 0; i < t->n; i++) {
		t->rows[i].child_start = pos;
		pos += t->rows[i].child_count;
		t->rows[i].child_count = 0;
	}
	for (uint32_t i = 1; i < t->n; i++) {
		sv_aggrow *p = &t->rows[t->rows[i].parent];
		t->children[p->child_start + p->child_count++] = i;
	}
	for (uint32_t i = 0; i < t->n; i++)
		if (t->rows[i].child_count > 1)
			qsort_r(t->children + t->rows[i].child_start, t->rows[i].child_count, sizeof(uint32_t), child_cmp, t);
	return 0;
}

int sv_aggtree_new(sv_aggtree **out, sv_view *v, sv_agg_kind kind, sv_name_id focus)
{
	if (sv_view_byname_prepare(v))
		return SV_ENOMEM;
	uint32_t frow = sv_view_byname_find(v, focus);
	if (frow == UINT32_MAX)
		return SV_ENOTFOUND;
	double scale;
	int rc = sv_view_when_scale(&scale, v);
	if (!rc)
		rc = sv_view_when_exc(v);
	if (rc)
		return rc;
	uint32_t nn = sv_view_node_count(v);
	attr *at = malloc(((size_t)nn + 1) * sizeof(*at));
	hrows ah = { 0 };
	uint32_t *stack = malloc(((size_t)nn + 1) * sizeof(uint32_t));
	sv_aggtree *t = calloc(1, sizeof(*t));
	sv_idmap idx;
	sv_idmap_init(&idx);
	/* a nested instance of the focus keeps its own samples */
	if (!at || !t || !stack || hrows_span(&ah, v, focus)) {
		rc = SV_ENOMEM;
		goto out;
	}
	t->v = v;
	t->kind = kind;
	t->scale = scale;
	/* Bottom-up: attributed inclusive = own exclusive + attributed of children that are not
	 * the focus (a nested focus keeps its own samples). */
	for (uint32_t i = 0; i < nn; i++) {
		if (!sv_view_node_alive(v, i))
			continue;
		sv_stats s = sv_view_node_stats(v, i);
		at[i].inc = s.exc;
		at[i].inc_ct = s.exc_ct;
		sv_view_node_exc_span(v, i, &at[i].first, &at[i].last);
		at[i].max = sv_view_node_exc_max(v, i);
		row_add_exc(&ah, v, i, 1);
	}
	for (uint32_t i = nn; i-- > 1;) {
		if (!sv_view_node_alive(v, i) || sv_view_node_name(v, i) == focus)
			continue;
		uint32_t p = sv_view_node_parent(v, i);
		at[p].inc += at[i].inc;
		at[p].inc_ct += at[i].inc_ct;
		if (at[i].first < at[p].first)
			at[p].first = at[i].first;
		if (at[i].last > at[p].last)
			at[p].last = at[i].last;
		if (at[i].max > at[p].max)
			at[p].max = at[i].max;
		row_add_child(&ah, p, i);
	}
	uint32_t root;
	if ((rc = tree_row(t, &idx, &root, UINT32_MAX, focus)))
		goto out;
	t->rows[root].st = *sv_view_byname_stats(v, frow);
	for (uint32_t i = 0; i < nn; i++) {
		if (!sv_view_node_alive(v, i) || sv_view_node_name(v, i) != focus)
			continue;
		if (kind == SV_AGG_CALLERS) {
			uint32_t row = root;
			for (uint32_t p = sv_view_node_parent(v, i); p != UINT32_MAX; p = sv_view_node_parent(v, p)) {
				if ((rc = tree_row(t, &idx, &row, row, sv_view_node_name(v, p))))
					goto out;
				add_attr(&t->rows[row], &at[i], &ah, i, NULL);
			}
			continue;
		}
		/* Callees: walk the instance's subtree, stopping at nested instances. */
		size_t sp = 0;
		const sv_node_id *kids;
		uint32_t nk = sv_view_node_children(v, i, &kids);
		for (uint32_t k = nk; k-- > 0;)
			if (sv_view_node_name(v, kids[k]) != focus) {
				stack[sp++] = kids[k];
				stack[sp++] = root;
			}
		while (sp) {
			uint32_t prow = stack[--sp];
			uint32_t n = stack[--sp];
			uint32_t row;
			if ((rc = tree_row(t, &idx, &row, prow, sv_view_node_name(v, n))))
				goto out;
			sv_stats ns = sv_view_node_stats(v, n);
			add_attr(&t->rows[row], &at[n], &ah, n, &ns);
			nk = sv_view_node_children(v, n, &kids);
			for (uint32_t k = nk; k-- > 0;)
				if (sv_view_node_name(v, kids[k]) != focus) {
					stack[sp++] = kids[k];
					stack[sp++] = row;
				}
		}
	}
	/* The focus row's histogram is its ByName histogram. */
	{
		if ((rc = sv_view_byname_hist(t->rows[root].hist, v, frow)))
			goto out;
	}
	if ((rc = tree_link(t)))
		goto out;
	*out = t;
	t = NULL;
out:
	free(at);
	hrows_free(&ah);
	free(stack);
	sv_idmap_dispose(&idx);
	sv_aggtree_free(t);
	return rc;
}

void sv_aggtree_free(sv_aggtree *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t->children);
	free(t);
}

uint32_t sv_aggtree_count(const sv_aggtree *t) { return t->n; }
const sv_aggrow *sv_aggtree_row(const sv_aggtree *t, uint32_t row) { return &t->rows[row]; }
double sv_aggtree_scale(const sv_aggtree *t) { return t->scale; }
sv_agg_kind sv_aggtree_kind(const sv_aggtree *t) { return t->kind; }

uint32_t sv_aggtree_children(const sv_aggtree *t, uint32_t row, const uint32_t **out)
{
	*out = t->children + t->rows[row].child_start;
	return t->rows[row].child_count;
}

/* ---- Caller-Callee (§6.5) ---- */

typedef struct wsum {
	double inc, inc_ct, w;
} wsum;

typedef struct cc_list {
	sv_aggrow *rows;
	uint32_t n;
	size_t cap;
	sv_idmap idx;
} cc_list;

static sv_aggrow *cc_row(cc_list *l, sv_name_id name)
{
	uint32_t id = sv_idmap_get(&l->idx, name);
	if (id != SV_IDMAP_NONE)
		return &l->rows[id];
	if (SV_ARRAY_RESERVE(l->rows, l->cap, (size_t)l->n + 1))
		return NULL;
	if (sv_idmap_put(&l->idx, name, l->n))
		return NULL;
	sv_aggrow *r = &l->rows[l->n++];
	memset(r, 0, sizeof(*r));
	stats_init(&r->st);
	r->name = name;
	r->parent = UINT32_MAX;
	return r;
}

/* Add a weighted summary: inclusive from S, exclusive part from the node scaled by w. */
static void cc_add(sv_aggrow *r, const wsum *S, const hrows *h, uint32_t node, const sv_stats *excnode, double w,
		   const sv_stats *span)
{
	r->st.inc += S->inc;
	r->st.inc_ct += S->inc_ct;
	r->st.exc += w * excnode->exc;
	r->st.exc_ct += w * excnode->exc_ct;
	r->st.fold += w * excnode->fold;
	r->st.fold_ct += w * excnode->fold_ct;
	if (span->first < r->st.first)
		r->st.first = span->first;
	if (span->last > r->st.last)
		r->st.last = span->last;
	if (span->max > r->st.max)
		r->st.max = span->max;
	hist_add_node(r->hist, h, node);
}

static int cc_cmp(const void *a, const void *b, void *payload)
{
	return cmp_rows(a, b, payload);
}

int sv_callercallee_new(sv_callercallee **out, sv_view *v, const char *focus_name)
{
	double scale;
	int rc = sv_view_when_scale(&scale, v);
	if (!rc)
		rc = sv_view_when_exc(v);
	if (!rc)
		rc = sv_view_byname_prepare(v);
	if (rc)
		return rc;
	sv_name_id focus = sv_view_name_find(v, focus_name);
	uint32_t frow = focus == UINT32_MAX ? UINT32_MAX : sv_view_byname_find(v, focus);
	if (frow == UINT32_MAX || sv_view_byname_stats(v, frow)->inc == 0)
		focus = SV_NAME_ROOT;
	uint32_t nn = sv_view_node_count(v);
	uint32_t *k = calloc((size_t)nn + 1, sizeof(uint32_t));
	wsum *S = calloc((size_t)nn + 1, sizeof(wsum));
	hrows H = { 0 };
	sv_callercallee *cc = calloc(1, sizeof(*cc));
	cc_list callers = { 0 }, callees = { 0 };
	sv_idmap_init(&callers.idx);
	sv_idmap_init(&callees.idx);
	if (!k || !S || !cc || hrows_span(&H, v, UINT32_MAX)) { /* every child's weighted sum */
		rc = SV_ENOMEM;
		goto out;
	}
	/* k top-down (parents have smaller ids), then S bottom-up. */
	for (uint32_t i = 0; i < nn; i++) {
		if (!sv_view_node_alive(v, i))
			continue;
		uint32_t p = sv_view_node_parent(v, i);
		k[i] = (p == UINT32_MAX ? 0 : k[p]) + (sv_view_node_name(v, i) == focus);
		S[i].w = k[i] ? 1.0 / k[i] : 1.0;
		sv_stats st = sv_view_node_stats(v, i);
		S[i].inc = S[i].w * st.exc;
		S[i].inc_ct = S[i].w * st.exc_ct;
		row_add_exc(&H, v, i, S[i].w);
	}
	for (uint32_t i = nn; i-- > 1;) {
		if (!sv_view_node_alive(v, i))
			continue;
		uint32_t p = sv_view_node_parent(v, i);
		S[p].inc += S[i].inc;
		S[p].inc_ct += S[i].inc_ct;
		row_add_child(&H, p, i);
	}
	memset(&cc->focus, 0, sizeof(cc->focus));
	stats_init(&cc->focus.st);
	cc->focus.name = focus;
	cc->focus.parent = UINT32_MAX;
	for (uint32_t i = 0; i < nn; i++) {
		if (!sv_view_node_alive(v, i) || sv_view_node_name(v, i) != focus)
			continue;
		sv_stats st = sv_view_node_stats(v, i);
		cc_add(&cc->focus, &S[i], &H, i, &st, S[i].w, &st);
		uint32_t p = sv_view_node_parent(v, i);
		if (p != UINT32_MAX) {
			sv_aggrow *r = cc_row(&callers, sv_view_node_name(v, p));
			if (!r) {
				rc = SV_ENOMEM;
				goto out;
			}
			cc_add(r, &S[i], &H, i, &st, S[i].w, &st);
		}
		const sv_node_id *kids;
		uint32_t nk = sv_view_node_children(v, i, &kids);
		for (uint32_t j = 0; j < nk; j++) {
			sv_aggrow *r = cc_row(&callees, sv_view_node_name(v, kids[j]));
			if (!r) {
				rc = SV_ENOMEM;
				goto out;
			}
			sv_stats cs = sv_view_node_stats(v, kids[j]);
			cc_add(r, &S[kids[j]], &H, kids[j], &cs, S[kids[j]].w, &cs);
		}
	}
	if (callers.n > 1)
		qsort_r(callers.rows, callers.n, sizeof(sv_aggrow), cc_cmp, v);
	if (callees.n > 1)
		qsort_r(callees.rows, callees.n, sizeof(sv_aggrow), cc_cmp, v);
	cc->callers = callers.rows;
	cc->ncallers = callers.n;
	cc->callees = callees.rows;
	cc->ncallees = callees.n;
	cc->scale = scale;
	callers.rows = callees.rows = NULL;
	*out = cc;
	cc = NULL;
out:
	free(k);
	free(S);
	hrows_free(&H);
	free(callers.rows);
	free(callees.rows);
	sv_idmap_dispose(&callers.idx);
	sv_idmap_dispose(&callees.idx);
	sv_callercallee_free(cc);
	return rc;
}

void sv_callercallee_free(sv_callercallee *cc)
{
	if (!cc)
		return;
	free(cc->callers);
	free(cc->callees);
	free(cc);
}
