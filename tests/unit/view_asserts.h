/* SPDX-License-Identifier: MIT */
/* Comparisons of two views the unit tests share. */
#ifndef STACKVIEW_TESTS_VIEW_ASSERTS_H
#define STACKVIEW_TESTS_VIEW_ASSERTS_H

#include <stdbool.h>

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

/* a and b, views on one tree (the same node ids), hold the same: each node's liveness, name,
 * stats and When characters, ByName, net and peak; with `bits` also each node's own span,
 * largest metric and When row, and net and peak byte for byte. */
static inline void assert_same_nodes(sv_view *a, sv_view *b, bool bits)
{
	assert_int_equal(sv_view_node_count(a), sv_view_node_count(b));
	char wa[SV_WHEN_LEN + 1], wb[SV_WHEN_LEN + 1];
	for (sv_node_id n = 0; n < sv_view_node_count(a); n++) {
		assert_int_equal(sv_view_node_alive(a, n), sv_view_node_alive(b, n));
		assert_int_equal(sv_view_node_name(a, n), sv_view_node_name(b, n));
		sv_stats sa = sv_view_node_stats(a, n), sb = sv_view_node_stats(b, n);
		assert_memory_equal(&sa, &sb, sizeof(sv_stats));
		if (bits) {
			double fa, la, fb, lb;
			sv_view_node_exc_span(a, n, &fa, &la);
			sv_view_node_exc_span(b, n, &fb, &lb);
			assert_memory_equal(&fa, &fb, sizeof(double));
			assert_memory_equal(&la, &lb, sizeof(double));
			double ma = sv_view_node_exc_max(a, n), mb = sv_view_node_exc_max(b, n);
			assert_memory_equal(&ma, &mb, sizeof(double));
		}
		assert_int_equal(sv_view_node_when(wa, a, n), 0); /* (the rows made first) */
		assert_int_equal(sv_view_node_when(wb, b, n), 0);
		assert_string_equal(wa, wb);
		if (bits) {
			double ha[SV_WHEN_LEN], hb[SV_WHEN_LEN];
			sv_view_node_inc_hist(ha, a, n);
			sv_view_node_inc_hist(hb, b, n);
			assert_memory_equal(ha, hb, sizeof(ha));
		}
	}
	assert_same_byname(a, b);
	sv_netpeak na, nb;
	assert_int_equal(sv_view_net_peak(a, &na), 0);
	assert_int_equal(sv_view_net_peak(b, &nb), 0);
	if (bits) {
		assert_memory_equal(&na.net, &nb.net, sizeof(double));
		assert_memory_equal(&na.peak, &nb.peak, sizeof(double));
		assert_memory_equal(&na.peak_time, &nb.peak_time, sizeof(double));
	} else {
		assert_true(na.net == nb.net && na.peak == nb.peak && na.peak_time == nb.peak_time);
	}
}

#endif
