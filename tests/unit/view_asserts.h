/* SPDX-License-Identifier: MIT */
/* Comparisons of two views the unit tests share. */
#ifndef STACKVIEW_TESTS_VIEW_ASSERTS_H
#define STACKVIEW_TESTS_VIEW_ASSERTS_H

#include "stackview/view.h"
#include "stackview/when.h"
#include "unit.h"

/* The same ByName rows: names, stats and When. */
static inline void assert_same_byname(sv_view *a, sv_view *b)
{
	char wa[SV_WHEN_LEN + 1], wb[SV_WHEN_LEN + 1];
	assert_int_equal(sv_view_byname_count(a), sv_view_byname_count(b));
	for (uint32_t r = 0; r < sv_view_byname_count(a); r++) {
		assert_string_equal(sv_view_name(a, sv_view_byname_name(a, r)), sv_view_name(b, sv_view_byname_name(b, r)));
		assert_memory_equal(sv_view_byname_stats(a, r), sv_view_byname_stats(b, r), sizeof(sv_stats));
		assert_int_equal(sv_view_byname_when(wa, a, r), 0);
		assert_int_equal(sv_view_byname_when(wb, b, r), 0);
		assert_string_equal(wa, wb);
	}
}

/* Two views show the same tree: from the root, each alive node's name, stats and When, its
 * children in order (a view made from another's tree may hold more nodes, dead ones), and
 * the same ByName rows. */
static inline void assert_same_tree_at(sv_view *a, sv_node_id x, sv_view *b, sv_node_id y)
{
	char wa[SV_WHEN_LEN + 1], wb[SV_WHEN_LEN + 1];
	assert_string_equal(sv_view_name(a, sv_view_node_name(a, x)), sv_view_name(b, sv_view_node_name(b, y)));
	sv_stats sa = sv_view_node_stats(a, x), sb = sv_view_node_stats(b, y);
	assert_memory_equal(&sa, &sb, sizeof(sv_stats));
	assert_int_equal(sv_view_node_when(wa, a, x), 0);
	assert_int_equal(sv_view_node_when(wb, b, y), 0);
	assert_string_equal(wa, wb);
	const sv_node_id *ka, *kb;
	uint32_t na = sv_view_node_children(a, x, &ka), nb = sv_view_node_children(b, y, &kb);
	assert_int_equal(na, nb);
	for (uint32_t i = 0; i < na; i++)
		assert_same_tree_at(a, ka[i], b, kb[i]);
}

static inline void assert_same_tree(sv_view *a, sv_view *b)
{
	assert_same_tree_at(a, SV_NODE_ROOT, b, SV_NODE_ROOT);
	assert_same_byname(a, b);
}

#endif
