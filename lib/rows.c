/* SPDX-License-Identifier: MIT */
/* Expansion sets and visible-row lists (see stackview/rows.h). */
#include "stackview/rows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sv/idmap.h"
#include "sv/array.h"

struct sv_expansion {
	sv_idmap set; /* id -> 1 (expanded) or 0 (collapsed again) */
};

int sv_expansion_new(sv_expansion **out)
{
	sv_expansion *e = calloc(1, sizeof(*e));
	if (!e)
		return SV_ENOMEM;
	sv_idmap_init(&e->set);
	*out = e;
	return 0;
}

void sv_expansion_free(sv_expansion *e)
{
	if (!e)
		return;
	sv_idmap_dispose(&e->set);
	free(e);
}

bool sv_expansion_has(const sv_expansion *e, uint32_t id)
{
	return sv_idmap_get(&e->set, id) == 1;
}

int sv_expansion_set(sv_expansion *e, uint32_t id, bool expanded)
{
	if (!expanded && sv_idmap_get(&e->set, id) == SV_IDMAP_NONE)
		return 0;
	return sv_idmap_put(&e->set, id, expanded ? 1 : 0);
}

void sv_expansion_clear(sv_expansion *e)
{
	sv_idmap_dispose(&e->set);
	sv_idmap_init(&e->set);
}

/* Children of a tree node or row, whatever the tree. */
typedef uint32_t (*children_fn)(const void *tree, uint32_t id, const uint32_t **out);

static uint32_t view_children(const void *tree, uint32_t id, const uint32_t **out)
{
	return sv_view_node_children(tree, id, out);
}

static uint32_t agg_children(const void *tree, uint32_t id, const uint32_t **out)
{
	return sv_aggtree_children(tree, id, out);
}

/* How many children, their order not needed (a view puts a list in order when first asked). */
typedef uint32_t (*count_fn)(const void *tree, uint32_t id);

static uint32_t view_child_count(const void *tree, uint32_t id)
{
	return sv_view_node_child_count(tree, id);
}

static uint32_t agg_child_count(const void *tree, uint32_t id)
{
	const uint32_t *kids;
	return sv_aggtree_children(tree, id, &kids);
}

static int expand_node(sv_expansion *e, const void *tree, children_fn kids_of, uint32_t n)
{
	for (;;) {
		int rc = sv_expansion_set(e, n, true);
		if (rc)
			return rc;
		const uint32_t *kids;
		if (kids_of(tree, n, &kids) != 1)
			return 0;
		n = kids[0];
	}
}

static int expand_subtree(sv_expansion *e, const void *tree, children_fn kids_of, uint32_t n)
{
	size_t cap = 64, sp = 0;
	uint32_t *stack = malloc(cap * sizeof(*stack));
	if (!stack)
		return SV_ENOMEM;
	stack[sp++] = n;
	int rc = 0;
	while (sp && !rc) {
		uint32_t x = stack[--sp];
		const uint32_t *kids;
		uint32_t nk = kids_of(tree, x, &kids);
		if (!nk)
			continue;
		if ((rc = sv_expansion_set(e, x, true)))
			break;
		if (SV_ARRAY_RESERVE(stack, cap, sp + nk)) {
			rc = SV_ENOMEM;
			break;
		}
		for (uint32_t i = 0; i < nk; i++)
			stack[sp++] = kids[i];
	}
	free(stack);
	return rc;
}

int sv_expansion_expand_node(sv_expansion *e, const sv_view *v, sv_node_id n)
{
	return expand_node(e, v, view_children, n);
}

int sv_expansion_expand_subtree(sv_expansion *e, const sv_view *v, sv_node_id n)
{
	return expand_subtree(e, v, view_children, n);
}

int sv_expansion_expand_hot(sv_expansion *e, const sv_view *v, double min_share)
{
	double total = fabs(sv_view_node_stats(v, SV_NODE_ROOT).inc);
	sv_node_id n = SV_NODE_ROOT;
	for (int depth = 0; depth < 256; depth++) {
		int rc = sv_expansion_expand_node(e, v, n);
		if (rc)
			return rc;
		const sv_node_id *kids;
		uint32_t nk = sv_view_node_children(v, n, &kids);
		sv_node_id best = UINT32_MAX;
		double bi = -1;
		for (uint32_t i = 0; i < nk; i++) {
			double inc = fabs(sv_view_node_stats(v, kids[i]).inc);
			if (inc > bi) {
				bi = inc;
				best = kids[i];
			}
		}
		if (best == UINT32_MAX || total == 0 || bi < min_share * total)
			return 0;
		n = best;
	}
	return 0;
}

int sv_expansion_expand_aggrow(sv_expansion *e, const sv_aggtree *t, uint32_t row)
{
	return expand_node(e, t, agg_children, row);
}

int sv_expansion_expand_aggsubtree(sv_expansion *e, const sv_aggtree *t, uint32_t row)
{
	return expand_subtree(e, t, agg_children, row);
}

void sv_rows_dispose(sv_rows *r)
{
	if (!r)
		return;
	free(r->row);
	free(r->cmpbuf);
	free(r->stbuf);
	memset(r, 0, sizeof(*r));
}

static sv_row *rows_add(sv_rows *r)
{
	if (SV_ARRAY_RESERVE(r->row, r->cap, r->n + 1))
		return NULL;
	sv_row *row = &r->row[r->n++];
	memset(row, 0, sizeof(*row));
	return row;
}

typedef void (*row_fn)(const void *tree, uint32_t id, sv_row *row);

static void view_row(const void *tree, uint32_t id, sv_row *row)
{
	row->name = sv_view_node_name(tree, id); /* st: view_rows_stats, once the rows are made */
}

/* A node's sums are made when asked for (sv_view_node_stats): the call tree rows' are kept
 * with the rows, for their st to point at. */
static int view_rows_stats(sv_rows *r, const sv_view *v)
{
	if (!r->n)
		return 0;
	if (!(r->stbuf = malloc(r->n * sizeof(*r->stbuf))))
		return SV_ENOMEM;
	for (size_t i = 0; i < r->n; i++) {
		if (i + 8 < r->n)
			sv_view_node_prefetch(v, r->row[i + 8].id);
		r->stbuf[i] = sv_view_node_stats(v, r->row[i].id);
		r->row[i].st = &r->stbuf[i];
	}
	return 0;
}

static void agg_row(const void *tree, uint32_t id, sv_row *row)
{
	const sv_aggrow *a = sv_aggtree_row(tree, id);
	row->name = a->name;
	row->st = &a->st;
}

/* What flatten needs of a kind of tree: children in order, how many (order not needed), a
 * row's fields, and (NULL: nothing) a node asked for ahead of being read. */
typedef struct tree_kind {
	children_fn kids_of;
	count_fn count_of;
	row_fn fill;
	void (*ahead)(const void *tree, uint32_t id);
} tree_kind;

static void view_ahead(const void *tree, uint32_t id)
{
	sv_view_node_prefetch(tree, id);
}

static const tree_kind view_kind = { view_children, view_child_count, view_row, view_ahead };
static const tree_kind agg_kind = { agg_children, agg_child_count, agg_row, NULL };

/* Depth-first, children in display order; an explicit stack (trees can be deep). */
static int flatten(sv_rows *out, const void *tree, uint32_t top, const tree_kind *k, const sv_expansion *e,
		   int max_depth)
{
	typedef struct item {
		uint32_t id, depth;
	} item;
	size_t cap = 64, sp = 0;
	item *stack = malloc(cap * sizeof(*stack));
	if (!stack)
		return SV_ENOMEM;
	memset(out, 0, sizeof(*out));
	stack[sp++] = (item){ top, 0 };
	int rc = 0;
	while (sp) {
		item it = stack[--sp];
		/* an expanded node's many children are read one after another, each at random:
		 * asked for a few rows ahead */
		if (k->ahead && sp >= 8)
			k->ahead(tree, stack[sp - 8].id);
		const uint32_t *kids = NULL;
		uint32_t nk = k->count_of(tree, it.id); /* (a row shown collapsed needs no order) */
		bool open = nk && (max_depth < 0 || (int)it.depth < max_depth) && (!e || sv_expansion_has(e, it.id));
		if (open)
			nk = k->kids_of(tree, it.id, &kids);
		sv_row *r = rows_add(out);
		if (!r) {
			rc = SV_ENOMEM;
			break;
		}
		r->id = it.id;
		r->depth = it.depth;
		r->has_children = nk > 0;
		r->expanded = open;
		k->fill(tree, it.id, r);
		if (!open)
			continue;
		if (SV_ARRAY_RESERVE(stack, cap, sp + nk)) {
			rc = SV_ENOMEM;
			break;
		}
		for (uint32_t i = nk; i-- > 0;)
			stack[sp++] = (item){ kids[i], it.depth + 1 };
	}
	free(stack);
	if (rc)
		sv_rows_dispose(out);
	return rc;
}

int sv_rows_calltree(sv_rows *out, const sv_view *v, const sv_expansion *e, int max_depth)
{
	return sv_rows_calltree_at(out, v, SV_NODE_ROOT, e, max_depth);
}

int sv_rows_aggtree(sv_rows *out, const sv_aggtree *t, const sv_expansion *e, int max_depth)
{
	return sv_rows_aggtree_at(out, t, 0, e, max_depth);
}

int sv_rows_calltree_at(sv_rows *out, const sv_view *v, sv_node_id top, const sv_expansion *e, int max_depth)
{
	int rc = flatten(out, v, top, &view_kind, e, max_depth);
	if (!rc && (rc = view_rows_stats(out, v)))
		sv_rows_dispose(out);
	if (!rc)
		out->kind = SV_ROWS_CALLTREE;
	return rc;
}

int sv_rows_aggtree_at(sv_rows *out, const sv_aggtree *t, uint32_t top, const sv_expansion *e, int max_depth)
{
	int rc = flatten(out, t, top, &agg_kind, e, max_depth);
	if (!rc) {
		out->kind = SV_ROWS_AGGTREE;
		out->agg = t;
	}
	return rc;
}

int sv_rows_byname(sv_rows *out, const sv_view *v, size_t top)
{
	memset(out, 0, sizeof(*out));
	if (sv_view_byname_prepare(v))
		return SV_ENOMEM;
	size_t n = sv_view_byname_count(v);
	if (top && top < n)
		n = top;
	for (size_t i = 0; i < n; i++) {
		sv_row *r = rows_add(out);
		if (!r) {
			sv_rows_dispose(out);
			return SV_ENOMEM;
		}
		r->id = (uint32_t)i;
		r->depth = 0;
		r->name = sv_view_byname_name(v, (uint32_t)i);
		r->st = sv_view_byname_stats(v, (uint32_t)i);
	}
	out->kind = SV_ROWS_BYNAME;
	return 0;
}

int sv_rows_callercallee(sv_rows *out, const sv_callercallee *cc)
{
	memset(out, 0, sizeof(*out));
	out->kind = SV_ROWS_CALLERCALLEE;
	out->cc = cc;
	size_t n = (size_t)cc->ncallers + 1 + cc->ncallees;
	for (size_t i = 0; i < n; i++) {
		sv_row *r = rows_add(out);
		if (!r) {
			sv_rows_dispose(out);
			return SV_ENOMEM;
		}
		const sv_aggrow *a;
		if (i < cc->ncallers) {
			r->role = SV_ROLE_CALLER;
			r->id = (uint32_t)i;
			a = &cc->callers[i];
		} else if (i == cc->ncallers) {
			r->role = SV_ROLE_FOCUS;
			a = &cc->focus;
		} else {
			r->role = SV_ROLE_CALLEE;
			r->id = (uint32_t)(i - cc->ncallers - 1);
			r->depth = 1;
			a = &cc->callees[r->id];
		}
		r->name = a->name;
		r->st = &a->st;
	}
	return 0;
}

int sv_rows_when(char out[SV_WHEN_LEN + 1], sv_view *v, const sv_rows *r, size_t i)
{
	out[0] = '\0';
	if (i >= r->n)
		return 0;
	const sv_row *row = &r->row[i];
	switch (r->kind) {
	case SV_ROWS_CALLTREE: return sv_view_node_when(out, v, row->id);
	case SV_ROWS_BYNAME: return sv_view_byname_when(out, v, row->id);
	case SV_ROWS_AGGTREE:
		sv_when_encode(out, sv_aggtree_row(r->agg, row->id)->hist, sv_aggtree_scale(r->agg));
		return 0;
	case SV_ROWS_CALLERCALLEE: {
		const sv_callercallee *cc = r->cc;
		const sv_aggrow *a = row->role == SV_ROLE_FOCUS    ? &cc->focus
				     : row->role == SV_ROLE_CALLEE ? &cc->callees[row->id]
								   : &cc->callers[row->id];
		sv_when_encode(out, a->hist, cc->scale);
		return 0;
	}
	}
	return 0;
}

int sv_rows_when_ahead(sv_view *v, const sv_rows *r)
{
	if (r->kind != SV_ROWS_BYNAME || !r->n)
		return 0;
	uint32_t top = 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->row[i].id > top)
			top = r->row[i].id;
	double h[SV_WHEN_LEN];
	int rc = sv_view_byname_hist(h, v, top);
	return rc == SV_ENOMEM ? rc : 0;
}

void sv_rows_min_pct(sv_rows *r, double basis, double pct)
{
	if (!(pct > 0) || basis == 0)
		return;
	double limit = pct * fabs(basis) / 100.0;
	size_t out = 0;
	for (size_t i = 0; i < r->n;) {
		const sv_row *row = &r->row[i];
		bool small = fabs(row->st->inc) < limit &&
			     (r->kind != SV_ROWS_BYNAME || fabs(row->st->exc) < limit) && row->role != SV_ROLE_FOCUS;
		if (!small) {
			r->row[out++] = r->row[i++];
			continue;
		}
		/* a dropped tree row takes its subtree along */
		uint32_t d = row->depth;
		i++;
		if (r->kind == SV_ROWS_CALLTREE || r->kind == SV_ROWS_AGGTREE)
			while (i < r->n && r->row[i].depth > d)
				i++;
	}
	r->n = out;
}
