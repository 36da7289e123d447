/* SPDX-License-Identifier: MIT */
/* A view's child lists in their order (spec §6.1): link_children (view_tree.c) sorts the long
 * ones as the tree is finished; the others are sorted here the first time they are asked
 * for, or all at once for a walk of the whole tree. */
#include <math.h>
#include <stdint.h>

#include "sv/keysort.h"
#include "view_int.h"

static const char *node_name_of(const void *ctx, uint32_t node)
{
	const sv_view *v = ctx;
	return view_name_str(v, v->nodes[node].name);
}

/* Node i's list sorted (§6.1: largest |inclusive| first, then earliest, then by name); rec:
 * room for twice its length. */
void view_sort_list(const sv_view *v, uint32_t i, sv_keyed *rec)
{
	uint32_t len = v->kids[i + 1] - v->kids[i], *list = v->children + v->kids[i];
	for (uint32_t k = 0; k < len; k++) {
		const vnode *c = &v->nodes[list[k]];
		rec[k] = (sv_keyed){ fabs(c->st.inc), c->st.first, view_name_rank(v, c->name), list[k] };
	}
	sv_keysort(rec, len, rec + len, node_name_of, v);
	for (uint32_t k = 0; k < len; k++)
		list[k] = rec[k].id;
}

uint32_t view_children(const sv_view *v, uint32_t n, const uint32_t **out)
{
	if (v->unsorted && (v->unsorted[n >> 6] >> (n & 63) & 1)) {
		sv_keyed rec[2 * KIDS_LAZY];
		view_sort_list(v, n, rec);
		v->unsorted[n >> 6] &= ~(1ull << (n & 63));
	}
	*out = v->children + v->kids[n];
	return v->kids[n + 1] - v->kids[n];
}

void view_sort_children(const sv_view *v)
{
	if (!v->unsorted)
		return;
	sv_keyed rec[2 * KIDS_LAZY];
	for (size_t w = 0; w < (size_t)v->nnodes / 64 + 1; w++)
		for (uint64_t bits = v->unsorted[w]; bits; bits &= bits - 1) {
			uint32_t i = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
			/* the next list's nodes (random reads) asked for while this one is sorted */
			uint64_t rest = bits & (bits - 1);
			if (rest) {
				uint32_t a = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(rest));
				for (uint32_t k = v->kids[a]; k < v->kids[a + 1]; k++)
					__builtin_prefetch(&v->nodes[v->children[k]].st.inc);
			}
			view_sort_list(v, i, rec);
			v->unsorted[w] &= ~(1ull << (i & 63));
		}
}
