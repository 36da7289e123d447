/* SPDX-License-Identifier: MIT */
/* A view's child lists in their order (spec §6.1): link_children (view_tree.c) makes them
 * unsorted, and each is sorted here the first time it is asked for, or all at once for a
 * walk of the whole tree: a change of boxes sorts only the lists the screen shows. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "sv/keysort.h"
#include "view_int.h"

static const char *node_name_of(const void *ctx, uint32_t node)
{
	const sv_view *v = ctx;
	return view_name_str(v, view_node(v, node)->name);
}

static sv_keyed node_key(const sv_view *v, uint32_t node)
{
	const vnode *c = view_node(v, node);
	return (sv_keyed){ fabs(c->st.inc), view_node_first(v, node), view_name_rank(v, c->name), node };
}

/* Node i's list sorted (§6.1: largest |inclusive| first, then earliest, then by name); rec:
 * room for twice its length. */
static void sort_with(const sv_view *v, uint32_t i, sv_keyed *rec)
{
	uint32_t len = v->kids[i + 1] - v->kids[i], *list = v->children + v->kids[i];
	for (uint32_t k = 0; k < len; k++)
		rec[k] = node_key(v, list[k]);
	sv_keysort(rec, len, rec + len, node_name_of, v);
	for (uint32_t k = 0; k < len; k++)
		list[k] = rec[k].id;
}

static bool node_before(const sv_view *v, uint32_t a, uint32_t b)
{
	sv_keyed x = node_key(v, a), y = node_key(v, b);
	return sv_keyed_cmp(&x, &y, node_name_of, v) < 0;
}

/* The same order without room for the keys (a getter cannot fail): a heap sort of the ids,
 * each comparison reading its two nodes. */
static void sort_in_place(const sv_view *v, uint32_t i)
{
	uint32_t len = v->kids[i + 1] - v->kids[i], *a = v->children + v->kids[i];
	for (uint32_t end = len, start = len / 2;;) {
		if (start > 0) {
			start--;
		} else {
			if (end <= 1)
				return;
			end--;
			uint32_t t = a[0];
			a[0] = a[end], a[end] = t;
		}
		for (uint32_t r = start;;) { /* sift down in a max-heap of "after" */
			uint32_t c = 2 * r + 1;
			if (c >= end)
				break;
			if (c + 1 < end && node_before(v, a[c], a[c + 1]))
				c++;
			if (!node_before(v, a[r], a[c]))
				break;
			uint32_t t = a[r];
			a[r] = a[c], a[c] = t;
			r = c;
		}
	}
}

/* Node i's list sorted now (its bit cleared): on the stack for a short one, else in room
 * asked for, or in place when there is none. */
static void sort_list(const sv_view *v, uint32_t i)
{
	uint32_t len = v->kids[i + 1] - v->kids[i];
	if (len <= KIDS_LAZY) {
		sv_keyed rec[2 * KIDS_LAZY];
		sort_with(v, i, rec);
	} else {
		sv_keyed *rec = malloc((size_t)len * 2 * sizeof(*rec));
		if (rec)
			sort_with(v, i, rec);
		else
			sort_in_place(v, i);
		free(rec);
	}
	v->unsorted[i >> 6] &= ~(1ull << (i & 63));
}

uint32_t view_children(const sv_view *v, uint32_t n, const uint32_t **out)
{
	if (v->unsorted && (v->unsorted[n >> 6] >> (n & 63) & 1))
		sort_list(v, n);
	*out = v->children + v->kids[n];
	return v->kids[n + 1] - v->kids[n];
}

void view_sort_children(const sv_view *v)
{
	if (!v->unsorted)
		return;
	for (size_t w = 0; w < (size_t)v->nnodes / 64 + 1; w++)
		for (uint64_t bits = v->unsorted[w]; bits; bits &= bits - 1) {
			uint32_t i = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
			/* the next list's first nodes (random reads) asked for while this one is sorted */
			uint64_t rest = bits & (bits - 1);
			if (rest) {
				uint32_t a = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(rest));
				for (uint32_t k = v->kids[a]; k < v->kids[a + 1] && k < v->kids[a] + 8; k++)
					__builtin_prefetch(&view_node(v, v->children[k])->st.inc);
			}
			sort_list(v, i);
		}
}
