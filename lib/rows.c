/* SPDX-License-Identifier: MIT */
/* Expansion sets and visible-row lists (see stackview/rows.h). */
#include "stackview/rows.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "stackview/grid.h"
#include "stackview/idmap.h"

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
		if (sp + nk > cap) {
			while (sp + nk > cap)
				cap *= 2;
			uint32_t *ns = realloc(stack, cap * sizeof(*ns));
			if (!ns) {
				rc = SV_ENOMEM;
				break;
			}
			stack = ns;
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
	memset(r, 0, sizeof(*r));
}

static sv_row *rows_add(sv_rows *r)
{
	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 256;
		sv_row *p = realloc(r->row, ncap * sizeof(*p));
		if (!p)
			return NULL;
		r->row = p;
		r->cap = ncap;
	}
	sv_row *row = &r->row[r->n++];
	memset(row, 0, sizeof(*row));
	return row;
}

typedef void (*row_fn)(const void *tree, uint32_t id, sv_row *row);

static void view_row(const void *tree, uint32_t id, sv_row *row)
{
	row->name = sv_view_node_name(tree, id);
	row->st = sv_view_node_stats(tree, id);
}

static void agg_row(const void *tree, uint32_t id, sv_row *row)
{
	const sv_aggrow *a = sv_aggtree_row(tree, id);
	row->name = a->name;
	row->st = &a->st;
}

/* Depth-first, children in display order; an explicit stack (trees can be deep). */
static int flatten(sv_rows *out, const void *tree, uint32_t top, children_fn kids_of, row_fn fill,
		   const sv_expansion *e, int max_depth)
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
		const uint32_t *kids;
		uint32_t nk = kids_of(tree, it.id, &kids);
		bool open = nk && (max_depth < 0 || (int)it.depth < max_depth) && (!e || sv_expansion_has(e, it.id));
		sv_row *r = rows_add(out);
		if (!r) {
			rc = SV_ENOMEM;
			break;
		}
		r->id = it.id;
		r->depth = it.depth;
		r->has_children = nk > 0;
		r->expanded = open;
		fill(tree, it.id, r);
		if (!open)
			continue;
		if (sp + nk > cap) {
			while (sp + nk > cap)
				cap *= 2;
			item *ns = realloc(stack, cap * sizeof(*ns));
			if (!ns) {
				rc = SV_ENOMEM;
				break;
			}
			stack = ns;
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
	int rc = flatten(out, v, top, view_children, view_row, e, max_depth);
	if (!rc)
		out->kind = SV_ROWS_CALLTREE;
	return rc;
}

int sv_rows_aggtree_at(sv_rows *out, const sv_aggtree *t, uint32_t top, const sv_expansion *e, int max_depth)
{
	int rc = flatten(out, t, top, agg_children, agg_row, e, max_depth);
	if (!rc) {
		out->kind = SV_ROWS_AGGTREE;
		out->agg = t;
	}
	return rc;
}

int sv_rows_byname(sv_rows *out, const sv_view *v, size_t top)
{
	memset(out, 0, sizeof(*out));
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

/* ---- sorting ---- */

typedef struct block {
	size_t start, len;
	const sv_row *head;
} block;

typedef struct sort_ctx {
	const sv_view *v;
	sv_col col;
	int dir; /* 1 ascending, -1 descending */
} sort_ctx;

static int cmp_block(const sort_ctx *c, const block *a, const block *b)
{
	int r;
	if (c->col == SV_COL_NAME) {
		r = strcasecmp(sv_view_name(c->v, a->head->name), sv_view_name(c->v, b->head->name));
	} else {
		/* any positive basis orders percentages as their values */
		double x = sv_column_value(c->col, a->head->st, 1), y = sv_column_value(c->col, b->head->st, 1);
		r = x < y ? -1 : x > y ? 1 : 0;
	}
	r *= c->dir;
	if (!r) /* stable: the earlier row first */
		r = a->start < b->start ? -1 : a->start > b->start ? 1 : 0;
	return r;
}

/* Merge sort of blocks (the number of siblings can be large; recursion depth is log n). */
static void sort_blocks(const sort_ctx *c, block *b, block *tmp, size_t n)
{
	if (n < 2)
		return;
	size_t m = n / 2;
	sort_blocks(c, b, tmp, m);
	sort_blocks(c, b + m, tmp, n - m);
	size_t i = 0, j = m, k = 0;
	while (i < m && j < n)
		tmp[k++] = cmp_block(c, &b[j], &b[i]) < 0 ? b[j++] : b[i++];
	while (i < m)
		tmp[k++] = b[i++];
	while (j < n)
		tmp[k++] = b[j++];
	memcpy(b, tmp, n * sizeof(*b));
}

/* Sort the sibling blocks that start at `first` and tile [first, end): each is a row and its
 * subtree, len[i - lo] long. */
static void sort_children(sv_rows *r, size_t lo, const size_t *len, size_t first, size_t end, const sort_ctx *c,
			  block *kids, block *kt, sv_row *rows)
{
	size_t nk = 0;
	for (size_t i = first; i < end; i += len[i - lo])
		kids[nk++] = (block){ i, len[i - lo], &r->row[i] };
	if (nk < 2)
		return;
	sort_blocks(c, kids, kt, nk);
	size_t w = 0;
	for (size_t i = 0; i < nk; i++) {
		memcpy(rows + w, &r->row[kids[i].start], kids[i].len * sizeof(*rows));
		w += kids[i].len;
	}
	memcpy(&r->row[first], rows, w * sizeof(*rows));
}

int sv_rows_sort(sv_rows *r, size_t lo, size_t hi, const sv_view *v, int column, bool ascending)
{
	if (column < 0 || column >= SV_COL_COUNT || !sv_column_get((sv_col)column)->sortable)
		return SV_EINVAL;
	sv_col key = (sv_col)column;
	if (hi > r->n)
		hi = r->n;
	if (hi <= lo + 1)
		return 0;
	sort_ctx c = { v, key, ascending ? 1 : -1 };
	size_t n = hi - lo;
	size_t *len = malloc(n * sizeof(*len)), *open = malloc(n * sizeof(*open));
	block *kids = malloc(n * sizeof(*kids)), *kt = malloc(n * sizeof(*kt));
	sv_row *rows = malloc(n * sizeof(*rows));
	int rc = 0;
	if (!len || !open || !kids || !kt || !rows) {
		rc = SV_ENOMEM;
		goto out;
	}
	/* Each row's block (the row and its subtree) ends where a row no deeper begins. */
	size_t sp = 0;
	for (size_t i = lo; i < hi; i++) {
		while (sp && r->row[open[sp - 1]].depth >= r->row[i].depth) {
			sp--;
			len[open[sp] - lo] = i - open[sp];
		}
		open[sp++] = i;
	}
	while (sp) {
		sp--;
		len[open[sp] - lo] = hi - open[sp];
	}
	/* Children of each row, the last rows first: a subtree lies after its row, so sorting
	 * inside it moves neither that row nor the blocks its ancestors will read. Then the
	 * top-level rows themselves. */
	for (size_t k = hi; k-- > lo;)
		if (len[k - lo] > 2)
			sort_children(r, lo, len, k + 1, k + len[k - lo], &c, kids, kt, rows);
	sort_children(r, lo, len, lo, hi, &c, kids, kt, rows);
out:
	free(len);
	free(open);
	free(kids);
	free(kt);
	free(rows);
	return rc;
}
