/* SPDX-License-Identifier: MIT */
/* The view through the library API: time boxes, their errors, the summary line (derived
 * sources, rows and the grid have their own tests). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "view_asserts.h"
#include "stackview/aggview.h"
#include "stackview/formats.h"
#include "stackview/rows.h"
#include "stackview/when.h"
#include "alloc_fail.h"

static void test_time_boxes(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	const char *box[SV_BOX_COUNT] = { 0 };
	box[SV_BOX_START] = "|3|2|"; /* two numbers in Start, swapped */
	sv_view *v = fixture_view(s, box, 0);
	assert_string_equal(sv_params_get(sv_view_params(v), SV_BOX_START), "2.000");
	assert_string_equal(sv_params_get(sv_view_params(v), SV_BOX_END), "3.000");
	assert_true(sv_view_node_stats(v, SV_NODE_ROOT).inc == 94);
	sv_view_free(v);
	box[SV_BOX_START] = NULL;
	box[SV_BOX_END] = "soon";
	assert_null(fixture_view(s, box, SV_EINVAL));
	box[SV_BOX_END] = NULL;
	box[SV_BOX_GROUP] = "{x";
	assert_null(fixture_view(s, box, SV_EINVAL));
	sv_source_free(s);
}

static void test_summary_line(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
	char line[256];
	sv_view_summary_line(line, sizeof(line), v);
	assert_string_equal(line, "Totals Metric: 100.0  Count: 4.0  First: 1.000 Last: 4.000  Last-First: 3.000  "
				  "Metric/Interval: 33.33  TimeBucket: 0.1");
	sv_view_free(v);
	sv_source_free(s);
}

/* Max: the largest single sample under a node (call tree), under every node of a name
 * (ByName), attributed to callers and callees, and kept by a node that folds its children. */
/* A profile of one instant (a heap snapshot's: every sample at time 0, metric as data) has
 * no time range: every When is empty, made without tables, in every view. */
static void test_when_no_range(void **state)
{
	(void)state;
	sv_source *s;
	assert_int_equal(sv_source_new(&s, "test"), 0);
	sv_source_set_scaling(s, SV_SCALING_DATA);
	static const char *const p[][3] = { { "Main", "A", "X" }, { "Main", "B", "X" }, { "Main", "C", NULL } };
	for (int i = 0; i < 3; i++) {
		sv_stack_id st;
		assert_int_equal(sv_source_intern_path(s, &st, p[i], p[i][2] ? 3 : 2), 0);
		assert_int_equal(sv_source_add_sample(s, st, 0, 10.0 * (i + 1), 1), 0);
	}
	sv_view *v = fixture_view(s, NULL, 0);
	char w[SV_WHEN_LEN + 1];
	const char *none = "________________________________";
	assert_int_equal(sv_view_node_when(w, v, SV_NODE_ROOT), 0);
	assert_string_equal(w, none);
	assert_int_equal(sv_view_byname_when(w, v, 0), 0);
	assert_string_equal(w, none);
	sv_aggtree *t;
	assert_int_equal(sv_aggtree_new(&t, v, SV_AGG_CALLERS, sv_view_name_find(v, "X")), 0);
	assert_true(sv_aggtree_row(t, 0)->st.inc == 30);
	sv_aggtree_free(t);
	sv_callercallee *cc;
	assert_int_equal(sv_callercallee_new(&cc, v, "X"), 0);
	assert_true(cc->focus.st.inc == 30);
	sv_callercallee_free(cc);
	sv_view_free(v);
	sv_source_free(s);
}

/* sv_view_preorder: the call tree's rows with every node expanded, as ids; from a node, its
 * subtree's. */
static void test_preorder(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
	sv_rows r;
	sv_node_id *ids;
	size_t n;
	assert_int_equal(sv_rows_calltree(&r, v, NULL, -1), 0);
	assert_int_equal(sv_view_preorder(v, SV_NODE_ROOT, &ids, &n), 0);
	assert_true(n == r.n && n > 3);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ids[i], r.row[i].id);
	sv_node_id top = r.row[2].id;
	free(ids);
	sv_rows_dispose(&r);
	assert_int_equal(sv_rows_calltree_at(&r, v, top, NULL, -1), 0);
	assert_int_equal(sv_view_preorder(v, top, &ids, &n), 0);
	assert_true(n == r.n && ids[0] == top);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ids[i], r.row[i].id);
	free(ids);
	sv_rows_dispose(&r);
	sv_view_free(v);
	sv_source_free(s);
}

static void test_max(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
	assert_true(sv_view_node_stats(v, SV_NODE_ROOT).max == 85);
	sv_name_id x = sv_view_name_find(v, "X"), c = sv_view_name_find(v, "C");
	assert_true(sv_view_byname_stats(v, sv_view_byname_find(v, x))->max == 9);
	assert_true(sv_view_byname_stats(v, sv_view_byname_find(v, c))->max == 85);
	sv_aggtree *t;
	assert_int_equal(sv_aggtree_new(&t, v, SV_AGG_CALLERS, x), 0);
	bool a = false, b = false;
	for (uint32_t i = 0; i < sv_aggtree_count(t); i++) {
		const sv_aggrow *r = sv_aggtree_row(t, i);
		a |= r->name == sv_view_name_find(v, "A") && r->st.max == 1;
		b |= r->name == sv_view_name_find(v, "B") && r->st.max == 9;
	}
	assert_true(a && b);
	sv_aggtree_free(t);
	sv_view_free(v);
	/* Fold% 10: Helper (5) and A (1) fold into their callers, which keep their largest sample */
	const char *box[SV_BOX_COUNT] = { 0 };
	box[SV_BOX_FOLD_PCT] = "10";
	v = fixture_view(s, box, 0);
	assert_true(sv_view_byname_stats(v, sv_view_byname_find(v, sv_view_name_find(v, "Main")))->max == 85);
	assert_true(sv_view_node_stats(v, SV_NODE_ROOT).max == 85);
	sv_view_free(v);
	sv_source_free(s);
}

/* Two views are the same: nodes, their stats and When, ByName rows and their When. */
static void assert_same_view(sv_view *a, sv_view *b)
{
	assert_same_nodes(a, b, false);
}

/* The views new_like and sv_view_renew make from prev with p, each checked by `same` against
 * the one sv_view_new makes; prev is taken, one of the two returned (each change starts from a
 * reused view, every other one from a renewed one). */
static sv_view *like_checked(sv_view *prev, const sv_source *s, sv_params *p, void (*same)(sv_view *, sv_view *))
{
	static unsigned calls;
	sv_error err;
	sv_view *like, *fresh;
	bool remade = true;
	assert_int_equal(sv_view_new_like(&like, prev, p, &err), 0);
	assert_int_equal(sv_view_new(&fresh, s, p, &err), 0);
	same(like, fresh);
	assert_int_equal(sv_view_renew(&prev, p, &remade, &err), 0);
	assert_false(remade);
	same(prev, fresh);
	sv_view_free(fresh);
	sv_params_dispose(p);
	if (calls++ % 2) {
		sv_view_free(like);
		return prev;
	}
	sv_view_free(prev);
	return like;
}

/* A bad box (box, text) fails new_like as sv_view_new fails. */
static void like_fails(sv_view *prev, const sv_params *p0, sv_box box, const char *text)
{
	sv_error err;
	sv_params p;
	assert_int_equal(sv_params_copy(&p, p0), 0);
	assert_int_equal(sv_params_set(&p, box, text), 0);
	sv_view *bad = NULL;
	assert_int_equal(sv_view_new_like(&bad, prev, &p, &err), SV_EINVAL);
	assert_null(bad);
	/* sv_view_renew keeps the old view itself */
	sv_view *same = prev;
	bool remade = true;
	assert_int_equal(sv_view_renew(&same, &p, &remade, &err), SV_EINVAL);
	assert_ptr_equal(same, prev);
	assert_false(remade);
	sv_params_dispose(&p);
}

/* sv_view_new_like: a new time range or Fold% reuses the previous view's stack work and gives
 * exactly the view sv_view_new gives; new patterns build from scratch. */
static void test_new_like(void **state)
{
	(void)state;
	sv_source *s;
	sv_error err;
	assert_int_equal(sv_load(&s, "examples/tutorial.perfView.xml", NULL, &err), 0);
	static const char *const changes[][SV_BOX_COUNT] = {
		{ [SV_BOX_START] = "200", [SV_BOX_END] = "900" },
		{ [SV_BOX_FOLD_PCT] = "3" },
		{ [SV_BOX_START] = "1000" },
		{ [SV_BOX_GROUP] = "{%}!=>module $1" }, /* patterns differ: built anew */
		{ 0 },
	};
	sv_params p0;
	assert_int_equal(sv_params_init(&p0), 0);
	assert_int_equal(sv_params_set(&p0, SV_BOX_FOLD, "%!?"), 0);
	assert_int_equal(sv_params_set(&p0, SV_BOX_EXC, "BROKEN"), 0);
	sv_view *prev;
	assert_int_equal(sv_view_new(&prev, s, &p0, &err), 0);
	for (size_t c = 0; c < sizeof(changes) / sizeof(changes[0]); c++) {
		sv_params p;
		assert_int_equal(sv_params_copy(&p, &p0), 0);
		for (int b = 0; b < SV_BOX_COUNT; b++)
			if (changes[c][b])
				assert_int_equal(sv_params_set(&p, (sv_box)b, changes[c][b]), 0);
		prev = like_checked(prev, s, &p, assert_same_view);
	}
	/* a bad box still fails as sv_view_new fails */
	like_fails(prev, &p0, SV_BOX_END, "soon");
	sv_params_dispose(&p0);
	sv_view_free(prev);
	sv_source_free(s);
}

/* sv_view_new_like with other IncPats and ExcPats (the same GroupPats and FoldPats, the
 * previous ExcPats empty, or taking out less than these): the previous tree is kept, each
 * stack's entries are carried again,
 * and the view is the one sv_view_new makes. On the tutorial and on a real perf recording,
 * grouped (entry groups and plain groups) and folded, each view made from the one before,
 * every other one trimmed first (sv_view_trim: made from scratch, the same view). */
static void test_new_like_inc_exc(void **state)
{
	(void)state;
	static const char *const inputs[] = { "examples/tutorial.perfView.xml", "tests/data/mt.fp.txt.gz" };
	static const char *const groups[] = { "{%}!=>module $1", "{%}!->module $1;[system] kernel%->kernel" };
	static const char *const changes[][2] = {
		/* IncPats, ExcPats */
		{ "Main", "" },
		{ "DateTime;ntdll", "" },
		{ "", "RtlGetSystemTimePrecise" },
		{ "", "RtlGetSystemTimePrecise;KiInterrupt" }, /* more out: the tree kept */
		{ "module mscorlib", "KiInterrupt" },          /* less: made again */
		{ "leaf_math", "" },
		{ "worker;leaf", "leaf_mem" },
		{ "module libc", "" },
		{ "Thread", "nothing matches this" },
		{ "", "" },
	};
	for (size_t in = 0; in < sizeof(inputs) / sizeof(inputs[0]); in++) {
		for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
			sv_source *s;
			sv_error err;
			assert_int_equal(sv_load(&s, inputs[in], NULL, &err), 0);
			sv_params p0;
			assert_int_equal(sv_params_init(&p0), 0);
			assert_int_equal(sv_params_set(&p0, SV_BOX_GROUP, groups[g]), 0);
			assert_int_equal(sv_params_set(&p0, SV_BOX_FOLD, "%!?;clone"), 0);
			sv_view *prev;
			assert_int_equal(sv_view_new(&prev, s, &p0, &err), 0);
			for (size_t c = 0; c < sizeof(changes) / sizeof(changes[0]); c++) {
				sv_params p;
				assert_int_equal(sv_params_copy(&p, &p0), 0);
				assert_int_equal(sv_params_set(&p, SV_BOX_INC, changes[c][0]), 0);
				assert_int_equal(sv_params_set(&p, SV_BOX_EXC, changes[c][1]), 0);
				if (c % 2) /* a trimmed view: what new_like reuses is gone */
					sv_view_trim(prev);
				prev = like_checked(prev, s, &p, assert_same_tree);
			}
			/* a bad IncPats fails as sv_view_new fails */
			like_fails(prev, &p0, SV_BOX_INC, "{x");
			sv_params_dispose(&p0);
			sv_view_free(prev);
			sv_source_free(s);
		}
	}
}

/* sv_view_new_like with other FoldPats (the same GroupPats): the frames' groups and names
 * taken from the previous view, the tree made again; the view sv_view_new makes, with the
 * source's names shared or not, through fold, IncPats and ExcPats changes in a row. */
static void test_new_like_fold(void **state)
{
	(void)state;
	static const char *const inputs[] = { "examples/tutorial.perfView.xml", "tests/data/mt.fp.txt.gz" };
	static const char *const changes[][3] = {
		/* FoldPats, IncPats, ExcPats */
		{ "ntdll;clone", "", "" },
		{ "module mscorlib", "Main", "" },
		{ "leaf", "", "KiInterrupt" },
		{ "", "", "" },
		{ "%!?;module libc", "worker", "leaf_mem" },
	};
	for (size_t in = 0; in < 2; in++)
		for (int shared = 0; shared < 2; shared++) {
			sv_source *s;
			sv_error err;
			assert_int_equal(sv_load(&s, inputs[in], NULL, &err), 0);
			if (shared)
				assert_int_equal(sv_source_sum_stacks(s), 0);
			sv_params p0;
			assert_int_equal(sv_params_init(&p0), 0);
			assert_int_equal(sv_params_set(&p0, SV_BOX_GROUP, shared ? "^ntdll!->;{%}!=>module $1" : "{%}!->module $1"), 0);
			sv_view *prev;
			assert_int_equal(sv_view_new(&prev, s, &p0, &err), 0);
			for (size_t c = 0; c < sizeof(changes) / sizeof(changes[0]); c++) {
				sv_params p;
				assert_int_equal(sv_params_copy(&p, &p0), 0);
				assert_int_equal(sv_params_set(&p, SV_BOX_FOLD, changes[c][0]), 0);
				assert_int_equal(sv_params_set(&p, SV_BOX_INC, changes[c][1]), 0);
				assert_int_equal(sv_params_set(&p, SV_BOX_EXC, changes[c][2]), 0);
				prev = like_checked(prev, s, &p, assert_same_tree);
			}
			like_fails(prev, &p0, SV_BOX_FOLD, "{x");
			sv_params_dispose(&p0);
			sv_view_free(prev);
			sv_source_free(s);
		}
}

/* A child of `n` by name (NONE when it has none). */
static sv_node_id child_named(const sv_view *v, sv_node_id n, const char *name)
{
	const sv_node_id *k;
	uint32_t nk = sv_view_node_children(v, n, &k), found = 0;
	sv_node_id at = (sv_node_id)-1;
	for (uint32_t i = 0; i < nk; i++)
		if (!strcmp(sv_view_name(v, sv_view_node_name(v, k[i])), name))
			at = k[i], found++;
	assert_true(found <= 1); /* a name once among a node's children */
	return at;
}

/* Child lists are sorted when first asked for (on the stack up to 64 children, in memory
 * asked for past that, in place when there is none): each list is in §6.1's order (largest
 * |inclusive| first, then earliest, then by name), and the same whether lists are read one at
 * a time or all sorted at once first (a whole-tree preorder, ByName). Main has 100 children
 * and K00 10, with ties in both. */
static void test_child_order(void **state)
{
	(void)state;
	enum { N = 110 };
	static char names[N][16];
	const char *paths[N][8] = { { 0 } };
	double m[N];
	for (int i = 0; i < N; i++) {
		paths[i][0] = "Main";
		if (i < 100) {
			snprintf(names[i], sizeof(names[i]), "K%02d", (i * 37) % 100);
			paths[i][1] = names[i];
		} else {
			snprintf(names[i], sizeof(names[i]), "L%d", (i * 7) % 10);
			paths[i][1] = "K00";
			paths[i][2] = names[i];
		}
		m[i] = 1 + (i % 4); /* ties everywhere: first and then the name decide */
	}
	sv_source *s = fixture_source((const char *const(*)[8])paths, m, N);
	sv_view *v[2] = { fixture_view(s, NULL, 0), fixture_view(s, NULL, 0) };
	sv_node_id *ids;
	size_t n;
	assert_int_equal(sv_view_preorder(v[1], SV_NODE_ROOT, &ids, &n), 0); /* every list sorted at once */
	free(ids);
	sv_node_id main_ = child_named(v[0], SV_NODE_ROOT, "Main");
	sv_node_id k00 = child_named(v[0], main_, "K00");
	sv_node_id lists[] = { main_, k00 };
	uint32_t want[] = { 100, 10 };
	for (int l = 0; l < 2; l++) {
		const sv_node_id *a, *b;
		uint32_t na = sv_view_node_children(v[0], lists[l], &a);
		uint32_t nb = sv_view_node_children(v[1], lists[l], &b);
		assert_int_equal(na, want[l]);
		assert_int_equal(nb, na);
		for (uint32_t k = 0; k < na; k++)
			assert_int_equal(a[k], b[k]);
		for (uint32_t k = 1; k < na; k++) {
			sv_stats x = sv_view_node_stats(v[0], a[k - 1]), y = sv_view_node_stats(v[0], a[k]);
			assert_true(fabs(x.inc) > fabs(y.inc) ||
				    (fabs(x.inc) == fabs(y.inc) &&
				     (x.first < y.first ||
				      (x.first == y.first && strcmp(sv_view_name(v[0], sv_view_node_name(v[0], a[k - 1])),
							       sv_view_name(v[0], sv_view_node_name(v[0], a[k]))) < 0))));
		}
	}
	/* Main's list (longer than the stack's room) with no memory for its keys: sorted in
	 * place, the same order (not under AddressSanitizer, whose allocator cannot be failed) */
#if defined(__SANITIZE_ADDRESS__)
	bool can_fail = false;
#else
	bool can_fail = true;
#endif
	if (can_fail) {
		long live0 = live;
		sv_view *w = fixture_view(s, NULL, 0);
		const sv_node_id *a, *b;
		alloc_fail_arm(1, true);
		uint32_t na = sv_view_node_children(w, child_named(w, SV_NODE_ROOT, "Main"), &a);
		alloc_fail_disarm(1);
		uint32_t nb = sv_view_node_children(v[1], main_, &b);
		assert_int_equal(na, nb);
		for (uint32_t k = 0; k < na; k++)
			assert_int_equal(a[k], b[k]);
		sv_view_free(w);
		assert_int_equal(live, live0); /* nothing left behind */
	}
	sv_view_free(v[0]);
	sv_view_free(v[1]);
	sv_source_free(s);
}

/* Nodes that meet: a frame that folds into its caller after the caller's other children
 * were made (their calls found under the caller, whether the caller has one child or
 * several), and two frames that group to one name under one caller. */
static void test_children_meet(void **state)
{
	(void)state;
	static const char *const p[][8] = {
		{ "Main", "A", "C" }, { "Main", "A", "E" }, { "Main", "A", "F", "C" }, { "Main", "A", "F", "E", "G" },
		{ "Main", "A", "P1" }, { "Main", "A", "P2" }, { "Main", "B", "C" }, { "Main", "B", "F", "C" },
		{ "Main", "D", "P1" }, { "Main", "D", "P2" },
	};
	static const double m[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512 };
	sv_source *s = fixture_source(p, m, 10);
	const char *box[SV_BOX_COUNT] = { 0 };
	box[SV_BOX_FOLD] = "F";
	box[SV_BOX_GROUP] = "P%->P";
	sv_view *v = fixture_view(s, box, 0);
	sv_node_id main = child_named(v, SV_NODE_ROOT, "Main"), a = child_named(v, main, "A");
	sv_node_id b = child_named(v, main, "B");
	const sv_node_id *k;
	assert_int_equal(sv_view_node_children(v, a, &k), 3); /* C, E, P */
	assert_true(sv_view_node_stats(v, child_named(v, a, "C")).inc == 1 + 4);
	assert_true(sv_view_node_stats(v, child_named(v, a, "E")).inc == 2 + 8);
	assert_true(sv_view_node_stats(v, child_named(v, child_named(v, a, "E"), "G")).inc == 8);
	assert_true(sv_view_node_stats(v, child_named(v, a, "P")).inc == 16 + 32);
	assert_int_equal(sv_view_node_children(v, b, &k), 1);
	assert_true(sv_view_node_stats(v, child_named(v, b, "C")).inc == 64 + 128);
	sv_node_id d = child_named(v, main, "D");
	assert_int_equal(sv_view_node_children(v, d, &k), 1);
	assert_true(sv_view_node_stats(v, child_named(v, d, "P")).inc == 256 + 512);
	sv_view_free(v);
	sv_source_free(s);
}

/* An entry group's display name that is also a frame's own name (a grouped export read
 * back) is one name, with the source's short names shared with the view (as the terminal
 * UI has them) or not. */
static void test_entry_name_is_a_frame(void **state)
{
	(void)state;
	static const char *const p[][8] = { { "Main", "a:f" }, { "Main", "mod a <<a:f>>" } };
	static const double m[] = { 1, 2 };
	for (int shared = 0; shared < 2; shared++) {
		sv_source *s = fixture_source(p, m, 2);
		if (shared)
			assert_int_equal(sv_source_sum_stacks(s), 0);
		const char *box[SV_BOX_COUNT] = { 0 };
		box[SV_BOX_GROUP] = "mod%->;{%}:=>mod $1";
		sv_view *v = fixture_view(s, box, 0);
		sv_node_id main = child_named(v, SV_NODE_ROOT, "Main");
		const sv_node_id *k;
		assert_int_equal(sv_view_node_children(v, main, &k), 1);
		assert_true(sv_view_node_stats(v, child_named(v, main, "mod a <<a:f>>")).inc == 3);
		sv_view_free(v);
		sv_source_free(s);
	}
}

/* A view made with the source's short names shared (as the terminal UI has them, with
 * their places in name order, and the entry groups' names placed from them) is the view
 * made without: the same tree, the same ByName rows in the same order. Names chosen so that
 * the order of "G <<short>>" is not the order of the shorts (one short the start of another,
 * followed by a byte below or above '>', or by '>') nor of the groups ("G" and "G <"). */
static void test_shared_names_same_view(void **state)
{
	(void)state;
	static const char *const tricky[] = { "m!0x12", "m!0x123", "m!0x12>", "m!0x12>>", "m!0x12>>a", "m!0x12=",
					      "m!0x12?", "m!f", "m!f.", "m!f!", "m!fa", "m.a!g", "m.a.b!g", "n!g",
					      "n!g0", "p!x", "q!x", "Main" };
	enum { NT = sizeof(tricky) / sizeof(tricky[0]), NGEN = 400, NP = 2 * NT + NGEN };
	/* and many names with no exclusive samples (the bulk of a real ByName, placed by their
	 * places rather than compared): hex addresses, modules r0..r99, names without a module */
	static char gen[NGEN][24];
	static const char *paths[NP][8]; /* filled below, read as const */
	static double metric[NP];
	memset(paths, 0, sizeof(paths));
	for (size_t i = 0; i < NT; i++) {
		paths[2 * i][0] = paths[2 * i + 1][0] = "Main";
		paths[2 * i][1] = paths[2 * i + 1][1] = tricky[i];
		paths[2 * i + 1][2] = tricky[(i * 7 + 3) % NT];
		metric[2 * i] = metric[2 * i + 1] = 1; /* ties everywhere: the names decide */
	}
	for (size_t i = 0; i < NGEN; i++) {
		switch (i % 4) {
		case 0: snprintf(gen[i], sizeof(gen[i]), "m!0x%x", (unsigned)i); break;
		case 1: snprintf(gen[i], sizeof(gen[i]), "r%u!f%u", (unsigned)(i % 100), (unsigned)i); break;
		case 2: snprintf(gen[i], sizeof(gen[i]), "s.a!g%u", (unsigned)i); break;
		default: snprintf(gen[i], sizeof(gen[i]), "Main%u", (unsigned)i); break;
		}
		paths[2 * NT + i][0] = "Main";
		paths[2 * NT + i][1] = gen[i];
		paths[2 * NT + i][2] = tricky[i % NT];
		metric[2 * NT + i] = 1;
	}
	static const char *const groups[] = { "", "{%}!=>module $1", "{%}!->module $1", "^m!->;{%}!=>module $1",
					      "^p!=>G;^q!=>G <;{%}!=>$1", "{%}!=>x <<$1", "^m!->;^n!->;{%}!=>module $1",
					      "^r{%}!->R$1", "^r1!->R1;^r22!->R22;{%}!=>module $1" };
	enum { NG = sizeof(groups) / sizeof(groups[0]) };
	for (int in = 0; in < 3; in++) {
		sv_source *s;
		sv_error err;
		if (in == 0)
			s = fixture_source((const char *const(*)[8])paths, metric, NP);
		else
			assert_int_equal(sv_load(&s, in == 1 ? "examples/tutorial.perfView.xml" : "tests/data/mt.fp.txt.gz",
						 NULL, &err),
					 0);
		sv_view *alone[NG];
		for (size_t g = 0; g < NG; g++) {
			const char *box[SV_BOX_COUNT] = { 0 };
			box[SV_BOX_GROUP] = groups[g];
			alone[g] = fixture_view(s, box, 0);
		}
		assert_int_equal(sv_source_sum_stacks(s), 0);
		for (size_t g = 0; g < NG; g++) {
			const char *box[SV_BOX_COUNT] = { 0 };
			box[SV_BOX_GROUP] = groups[g];
			sv_view *shared = fixture_view(s, box, 0);
			assert_same_tree(alone[g], shared);
			sv_view_free(shared);
			sv_view_free(alone[g]);
		}
		sv_source_free(s);
	}
}

/* Entry names are interned a batch at a time (view.c, memo_flush): frames whose entry names
 * are equal ("all <<a.dll!f1>>" from d1\a.dll!f1, d4\a.dll!f1, ...) share a node whether or
 * not they fell in one batch, and a group met between them ("K", every tenth frame) does not
 * disturb the names waiting. */
static void test_entry_name_batches(void **state)
{
	(void)state;
	enum { N = 60 };
	static char names[N][32];
	const char *paths[N][8] = { { 0 } };
	double m[N];
	double want_f[3] = { 0 }, want_k[2] = { 0 };
	for (int i = 0; i < N; i++) {
		if (i % 10 == 9) {
			snprintf(names[i], sizeof(names[i]), "k!x%d", (i / 10) % 2);
			want_k[(i / 10) % 2]++;
		} else {
			snprintf(names[i], sizeof(names[i]), "d%d\\a.dll!f%d", i, i % 3);
			want_f[i % 3]++;
		}
		paths[i][0] = "Main";
		paths[i][1] = names[i];
		m[i] = 1;
	}
	sv_source *s = fixture_source((const char *const(*)[8])paths, m, N);
	const char *box[SV_BOX_COUNT] = { 0 };
	box[SV_BOX_GROUP] = "^k!=>K;{%}!=>all";
	for (int shared = 0; shared < 2; shared++) {
		/* the short names the source's (the terminal UI's views): only entry names are
		 * made, in batches; else each frame's short name is interned before its entry name */
		if (shared)
			assert_int_equal(sv_source_sum_stacks(s), 0);
		sv_view *v = fixture_view(s, box, 0);
		sv_node_id main_ = child_named(v, SV_NODE_ROOT, "Main");
		assert_true(main_ != (sv_node_id)-1);
		const sv_node_id *k;
		assert_int_equal(sv_view_node_children(v, main_, &k), 5);
		for (int i = 0; i < 3; i++) {
			char name[32];
			snprintf(name, sizeof(name), "all <<a.dll!f%d>>", i);
			sv_node_id n = child_named(v, main_, name);
			assert_true(n != (sv_node_id)-1);
			assert_true(sv_view_node_stats(v, n).inc_ct == want_f[i]);
		}
		for (int i = 0; i < 2; i++) {
			char name[32];
			snprintf(name, sizeof(name), "K <<k!x%d>>", i);
			sv_node_id n = child_named(v, main_, name);
			assert_true(n != (sv_node_id)-1);
			assert_true(sv_view_node_stats(v, n).inc_ct == want_k[i]);
		}
		sv_view_free(v);
	}
	sv_source_free(s);
}

/* With no frame grouped and none folding, the tree is made without a state per stack
 * (view.c, transform_plain): the same tree as the general way makes (forced here by FoldPats
 * that fold no frame), through direct recursion (a frame under itself: one node), frames
 * with one display name (d1 and d2's a.dll!f), a frame under two callers' same node, and
 * IncPats and ExcPats; a frame "m!?" groups by its short name, which takes the general way. */
static void test_plain_same_tree(void **state)
{
	(void)state;
	static const char *const paths[][8] = {
		{ "Main", "r!A", "r!A", "r!A", "r!B" },
		{ "Main", "r!A", "r!B", "r!A", "r!A" },
		{ "Main", "r!A", "r!A", "d1\\a.dll!f", "r!C" },
		{ "Main", "r!A", "d2\\a.dll!f", "r!C", "r!C" },
		{ "Main", "d1\\a.dll!f", "d2\\a.dll!f", "r!B" },
		{ "Main", "r!B" },
		{ "Main", "r!B", "r!B" },
		{ "Other", "r!A", "x!D" },
		{ "Other", "m!?", "m!?", "r!A" },
		{ "Main" },
	};
	enum { NP = sizeof(paths) / sizeof(paths[0]) };
	double metric[NP];
	for (size_t i = 0; i < NP; i++)
		metric[i] = 1 + (double)i / 8;
	static const char *const boxes[][2] = {
		/* IncPats, ExcPats */
		{ "", "" }, { "r!B", "" }, { "", "r!A" }, { "Main", "a.dll!f" }, { "r!C;Main", "x!D" }, { "", "Main" },
	};
	for (int in = 0; in < 3; in++) {
		sv_source *s;
		sv_error err;
		if (in == 0)
			s = fixture_source(paths, metric, NP);
		else
			assert_int_equal(sv_load(&s, in == 1 ? "examples/tutorial.perfView.xml" : "tests/data/mt.fp.txt.gz",
						 NULL, &err),
					 0);
		for (size_t b = 0; b < sizeof(boxes) / sizeof(boxes[0]); b++) {
			const char *box[SV_BOX_COUNT] = { 0 };
			box[SV_BOX_INC] = boxes[b][0];
			box[SV_BOX_EXC] = boxes[b][1];
			sv_view *plain = fixture_view(s, box, 0);
			box[SV_BOX_FOLD] = "no frame is named this";
			sv_view *general = fixture_view(s, box, 0);
			assert_same_tree(plain, general);
			sv_view_free(plain);
			sv_view_free(general);
		}
		sv_source_free(s);
	}
}

static void assert_exc_span(const sv_view *v, sv_node_id n, double first, double last, double max)
{
	double f, l;
	sv_view_node_exc_span(v, n, &f, &l);
	assert_true(f == first);
	assert_true(l == last);
	assert_true(sv_view_node_exc_max(v, n) == max);
}

/* A node's own span (its own samples' first and last time, largest metric) is not its
 * inclusive one when it has children: Main has no samples of its own, C one of its own (at
 * 2) and its child Helper's (at 1 and 4); Fold% moves a folded child's into its parent's. */
static void test_exc_span(void **state)
{
	(void)state;
	static const char *const p[][8] = { { "Main", "C", "Helper" }, { "Main", "C" }, { "Main", "D" },
					     { "Main", "C", "Helper" } };
	static const double m[] = { 5, 1, 2, 0.5 };
	sv_source *s = fixture_source(p, m, 4);
	for (int fold = 0; fold < 2; fold++) {
		const char *box[SV_BOX_COUNT] = { 0 };
		box[SV_BOX_FOLD_PCT] = fold ? "70" : NULL; /* 5.95: Helper (5.5) and D (2) fold */
		sv_view *v = fixture_view(s, box, 0);
		sv_node_id main_ = child_named(v, SV_NODE_ROOT, "Main");
		sv_node_id c = child_named(v, main_, "C");
		assert_true(main_ != (sv_node_id)-1 && c != (sv_node_id)-1);
		sv_stats cs = sv_view_node_stats(v, c);
		assert_true(cs.first == 1 && cs.last == 4 && cs.max == 5); /* inclusive */
		if (!fold) {
			assert_exc_span(v, main_, INFINITY, -INFINITY, -INFINITY);
			assert_exc_span(v, c, 2, 2, 1);
			assert_exc_span(v, child_named(v, c, "Helper"), 1, 4, 5);
			assert_exc_span(v, child_named(v, main_, "D"), 3, 3, 2);
		} else { /* Helper and D are gone into C and Main */
			assert_int_equal(child_named(v, c, "Helper"), (sv_node_id)-1);
			assert_exc_span(v, main_, 3, 3, 2);
			assert_exc_span(v, c, 1, 4, 5);
		}
		/* the Fold columns: what folded into each node (nothing without Fold%) */
		sv_stats ms = sv_view_node_stats(v, main_);
		assert_true(cs.fold == (fold ? 5.5 : 0) && cs.fold_ct == (fold ? 2 : 0));
		assert_true(ms.fold == (fold ? 2 : 0) && ms.fold_ct == (fold ? 1 : 0));
		sv_view_free(v);
	}
	sv_source_free(s);
}

/* A profile of one instant with its samples as data (a heap snapshot's) keeps no span per
 * node: First and Last are that instant for every node with samples, and the own spans, the
 * Fold% ones, ByName's, a time range's and a renewed view's come out as with spans kept. */
static void test_one_instant(void **state)
{
	(void)state;
	sv_source *s;
	assert_int_equal(sv_source_new(&s, "test"), 0);
	sv_source_set_scaling(s, SV_SCALING_DATA);
	static const char *const p[][3] = { { "Main", "A", "X" }, { "Main", "B", "X" }, { "Main", "C" }, { "Main" } };
	static const double m[] = { 10, 20, 30, 5 };
	for (int i = 0; i < 4; i++) {
		sv_stack_id st;
		assert_int_equal(sv_source_intern_path(s, &st, p[i], p[i][2] ? 3 : i < 3 ? 2 : 1), 0);
		assert_int_equal(sv_source_add_sample(s, st, 7, m[i], 1), 0);
	}
	for (int fold = 0; fold < 2; fold++) {
		const char *box[SV_BOX_COUNT] = { 0 };
		box[SV_BOX_FOLD_PCT] = fold ? "40" : NULL; /* 26: A and B fold into Main, not C (30) */
		sv_view *v = fixture_view(s, box, 0);
		sv_stats r = sv_view_node_stats(v, SV_NODE_ROOT);
		assert_true(r.first == 7 && r.last == 7 && r.max == 30 && r.inc == 65);
		sv_node_id main_ = child_named(v, SV_NODE_ROOT, "Main"), c = child_named(v, main_, "C");
		sv_stats ms = sv_view_node_stats(v, main_);
		assert_true(ms.first == 7 && ms.last == 7 && ms.max == 30);
		assert_exc_span(v, SV_NODE_ROOT, INFINITY, -INFINITY, -INFINITY);
		assert_exc_span(v, main_, 7, 7, fold ? 20 : 5);
		assert_exc_span(v, c, 7, 7, 30);
		if (!fold) {
			sv_node_id a = child_named(v, main_, "A");
			assert_exc_span(v, a, INFINITY, -INFINITY, -INFINITY);
			assert_exc_span(v, child_named(v, a, "X"), 7, 7, 10);
		} else {
			assert_int_equal(child_named(v, main_, "A"), (sv_node_id)-1);
		}
		assert_int_equal(sv_view_byname_prepare(v), 0);
		const sv_stats *x = sv_view_byname_stats(v, sv_view_byname_find(v, sv_view_name_find(v, fold ? "Main" : "X")));
		assert_true(x->first == 7 && x->last == 7 && x->max == (fold ? 30 : 20));
		sv_summary sum;
		sv_view_summary(&sum, v);
		assert_true(sum.first == 7 && sum.last == 7);
		sv_view_free(v);
	}
	/* a range without the instant: no samples, no span; with it, the instant again, also in
	 * a view renewed from another's memory */
	const char *box[SV_BOX_COUNT] = { 0 };
	box[SV_BOX_START] = "2";
	box[SV_BOX_END] = "6";
	sv_view *v = fixture_view(s, box, 0);
	sv_stats r = sv_view_node_stats(v, SV_NODE_ROOT);
	assert_true(r.first == INFINITY && r.last == -INFINITY && r.inc == 0);
	sv_params np;
	assert_int_equal(sv_params_init(&np), 0);
	assert_int_equal(sv_params_set(&np, SV_BOX_START, "6"), 0);
	assert_int_equal(sv_params_set(&np, SV_BOX_GROUP, "Main->M"), 0);
	bool remade;
	sv_error err;
	assert_int_equal(sv_view_renew(&v, &np, &remade, &err), 0);
	r = sv_view_node_stats(v, SV_NODE_ROOT);
	assert_true(r.first == 7 && r.last == 7 && r.inc == 65);
	assert_exc_span(v, child_named(v, SV_NODE_ROOT, "M"), 7, 7, 5);
	sv_params_dispose(&np);
	sv_view_free(v);
	sv_source_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_time_boxes), cmocka_unit_test(test_summary_line),
					    cmocka_unit_test(test_max), cmocka_unit_test(test_preorder), cmocka_unit_test(test_child_order), cmocka_unit_test(test_when_no_range), cmocka_unit_test(test_exc_span), cmocka_unit_test(test_entry_name_batches), cmocka_unit_test(test_new_like),
					    cmocka_unit_test(test_new_like_inc_exc),
					    cmocka_unit_test(test_children_meet), cmocka_unit_test(test_entry_name_is_a_frame),
					    cmocka_unit_test(test_shared_names_same_view),
					    cmocka_unit_test(test_new_like_fold), cmocka_unit_test(test_plain_same_tree),
					    cmocka_unit_test(test_one_instant) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
