/* SPDX-License-Identifier: MIT */
/* A view from the stacks' sums (sv_source_sum_stacks) is the view from the samples, bit for
 * bit: every node's and ByName row's numbers, spans and When, the order of children and of
 * ByName's rows (names compared by the source's ranks there), the summary and net/peak — on
 * real inputs, under grouping, folding, Fold%, IncPats/ExcPats and time ranges (a range that
 * cuts stacks falls back to the samples). Sums are kept only where they are exact: 0.3 ms
 * samples or a negative metric keep none, perf's periods (whole ns as ms) summed in ns do. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/formats.h"
#include "stackview/source.h"
#include "stackview/view.h"
#include "stackview/when.h"
#include "unit.h"

static bool same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

static void same_stats(const sv_stats *a, const sv_stats *b)
{
	assert_true(same_double(a->inc, b->inc) && same_double(a->inc_ct, b->inc_ct));
	assert_true(same_double(a->exc, b->exc) && same_double(a->exc_ct, b->exc_ct));
	assert_true(same_double(a->fold, b->fold) && same_double(a->fold_ct, b->fold_ct));
	assert_true(same_double(a->first, b->first) && same_double(a->last, b->last) && same_double(a->max, b->max));
}

static void same_views(sv_view *a, sv_view *b)
{
	assert_int_equal(sv_view_node_count(a), sv_view_node_count(b));
	for (sv_node_id n = 0; n < sv_view_node_count(a); n++) {
		assert_int_equal(sv_view_node_alive(a, n), sv_view_node_alive(b, n));
		/* the same name (ids differ: a source with sums shares its short names with views) */
		assert_string_equal(sv_view_name(a, sv_view_node_name(a, n)), sv_view_name(b, sv_view_node_name(b, n)));
		sv_stats sa = sv_view_node_stats(a, n), sb = sv_view_node_stats(b, n);
		same_stats(&sa, &sb);
		double f1, l1, f2, l2;
		sv_view_node_exc_span(a, n, &f1, &l1);
		sv_view_node_exc_span(b, n, &f2, &l2);
		assert_true(same_double(f1, f2) && same_double(l1, l2));
		assert_true(same_double(sv_view_node_exc_max(a, n), sv_view_node_exc_max(b, n)));
		char w1[SV_WHEN_LEN + 1], w2[SV_WHEN_LEN + 1];
		assert_int_equal(sv_view_node_when(w1, a, n), 0);
		assert_int_equal(sv_view_node_when(w2, b, n), 0);
		assert_string_equal(w1, w2);
		/* children in the same order (ties by name: strcmp without sums, the source's name
		 * ranks with them) */
		const sv_node_id *k1, *k2;
		uint32_t n1 = sv_view_node_children(a, n, &k1), n2 = sv_view_node_children(b, n, &k2);
		assert_int_equal(n1, n2);
		for (uint32_t i = 0; i < n1; i++)
			assert_int_equal(k1[i], k2[i]);
	}
	assert_int_equal(sv_view_byname_count(a), sv_view_byname_count(b));
	for (uint32_t r = 0; r < sv_view_byname_count(a); r++) {
		assert_string_equal(sv_view_name(a, sv_view_byname_name(a, r)), sv_view_name(b, sv_view_byname_name(b, r)));
		same_stats(sv_view_byname_stats(a, r), sv_view_byname_stats(b, r));
	}
	char s1[512], s2[512];
	sv_view_summary_line(s1, sizeof(s1), a);
	sv_view_summary_line(s2, sizeof(s2), b);
	assert_string_equal(s1, s2);
	sv_netpeak p1, p2;
	assert_int_equal(sv_view_net_peak(a, &p1), 0);
	assert_int_equal(sv_view_net_peak(b, &p2), 0);
	assert_true(same_double(p1.net, p2.net) && same_double(p1.peak, p2.peak) && same_double(p1.peak_time, p2.peak_time));
}

/* Every variant's view before the sums and after them. */
static void check_source(sv_source *src, bool want_sums)
{
	static const struct { sv_box box; const char *text; } variants[][2] = {
		{ { SV_BOX_COUNT, NULL } },
		{ { SV_BOX_GROUP, "{%}!->module $1" } },
		{ { SV_BOX_GROUP, "[group module entries]  {%}!=>module $1" }, { SV_BOX_FOLD, "ntdll;sys" } },
		{ { SV_BOX_FOLD_PCT, "2" } },
		{ { SV_BOX_INC, "a|e|o" } },
		{ { SV_BOX_EXC, "e" }, { SV_BOX_GROUP, "{%}!->module $1" } },
		{ { SV_BOX_START, "-1000000000" }, { SV_BOX_END, "1000000000" } },
		{ { SV_BOX_START, "1" }, { SV_BOX_END, "5" } },
		{ { SV_BOX_START, "100" } },
		{ { SV_BOX_INC, "ntdll|a.dll!run" }, { SV_BOX_END, "3000" } }, /* dropped stacks may be cut */
	};
	size_t nv = sizeof(variants) / sizeof(variants[0]);
	sv_view **before = calloc(nv, sizeof(*before));
	sv_params *p = calloc(nv, sizeof(*p));
	for (size_t k = 0; k < nv; k++) {
		assert_int_equal(sv_params_init(&p[k]), 0);
		for (int j = 0; j < 2; j++)
			if (variants[k][j].text)
				assert_int_equal(sv_params_set(&p[k], variants[k][j].box, variants[k][j].text), 0);
		assert_int_equal(sv_view_new(&before[k], src, &p[k], NULL), 0);
	}
	assert_null(sv_source_stack_sums(src));
	assert_int_equal(sv_source_sum_stacks(src), 0);
	assert_int_equal(sv_source_stack_sums(src) != NULL, want_sums);
	for (size_t k = 0; k < nv; k++) {
		sv_view *after, *like;
		assert_int_equal(sv_view_new(&after, src, &p[k], NULL), 0);
		same_views(before[k], after);
		/* the terminal UI's zoom and Fold% path: a view made from the last one */
		assert_int_equal(sv_view_new_like(&like, before[0], &p[k], NULL), 0);
		same_views(before[k], like);
		sv_view_free(like);
		sv_view_free(after);
	}
	for (size_t k = 0; k < nv; k++) {
		sv_view_free(before[k]);
		sv_params_dispose(&p[k]);
	}
	free(before);
	free(p);
}

static void check_file(const char *path, bool want_sums)
{
	sv_source *src;
	sv_error err;
	sv_error_clear(&err);
	assert_int_equal(sv_load(&src, path, NULL, &err), 0);
	check_source(src, want_sums);
	if (want_sums) {
		/* a new stack hides them (they have no room for it), a new sample drops them */
		sv_frame_id f;
		sv_stack_id st;
		assert_int_equal(sv_source_intern_frame(src, &f, "new!frame", 9), 0);
		assert_int_equal(sv_source_intern_stack(src, &st, SV_STACK_NONE, f), 0);
		assert_null(sv_source_stack_sums(src));
		assert_int_equal(sv_source_sum_stacks(src), 0);
		assert_non_null(sv_source_stack_sums(src));
		assert_int_equal(sv_source_add_sample(src, SV_STACK_NONE, 0, 1, 1), 0);
		assert_null(sv_source_stack_sums(src));
	}
	sv_source_free(src);
}

static void test_real_inputs(void **state)
{
	(void)state;
	check_file("examples/tutorial.perfView.xml", true);
	check_file("examples/base.perfView.xml", true);
	check_file("tests/data/threadtime/tt.perf.data.gz", true); /* perf record -F 4000: 0.25 ms */
	check_file("tests/data/compare/base1.perf.txt.gz", true);
	check_file("tests/data/perf-z/sh-loop.zstd.data", false);  /* 948 samples, 576 stacks: too few */
	check_file("tests/data/perf-z/deep-a.zstd.data", true);    /* -F 20000: 0.05 ms, summed in ns */
	check_file("tests/data/flamegraph/perf-dd-stacks-01.txt", false);
}

/* Eight stacks over five frames of three modules, in st. */
static void few_stacks(sv_source *src, sv_stack_id st[8])
{
	const char *names[] = { "a.dll!main", "a.dll!run", "ntdll!wait", "b.dll!e", "sys!o" };
	sv_frame_id f[5];
	for (int i = 0; i < 5; i++)
		assert_int_equal(sv_source_intern_frame(src, &f[i], names[i], strlen(names[i])), 0);
	sv_stack_id s = SV_STACK_NONE;
	for (int i = 0; i < 8; i++) {
		assert_int_equal(sv_source_intern_stack(src, &s, i % 3 ? s : SV_STACK_NONE, f[i % 5]), 0);
		st[i] = s;
	}
}

/* A synthetic source: samples of `metric` ms over a few stacks, some without a stack. */
static sv_source *synthetic(double metric, double neg_every)
{
	sv_source *src;
	assert_int_equal(sv_source_new(&src, "synthetic"), 0);
	sv_stack_id st[8];
	few_stacks(src, st);
	for (int i = 0; i < 400; i++) {
		double m = neg_every > 0 && i % (int)neg_every == 0 ? -metric : metric;
		assert_int_equal(sv_source_add_sample(src, i % 37 ? st[(i * 7) % 8] : SV_STACK_NONE, i * 0.5, m, 1), 0);
	}
	return src;
}

static void test_synthetic(void **state)
{
	(void)state;
	sv_source *src = synthetic(1.0, 0);
	check_source(src, true);
	sv_source_free(src);
	src = synthetic(0.25, 0);
	sv_source_set_scaling(src, SV_SCALING_DATA);
	check_source(src, true);
	sv_source_free(src);
	src = synthetic(0.3, 0); /* 0.3 is no short binary fraction: sums would round */
	check_source(src, false);
	sv_source_free(src);
	src = synthetic(1.0, 5); /* a negative metric: the peak needs the samples' order */
	check_source(src, false);
	sv_source_free(src);
}

/* 600 samples of perf-like clock periods (whole ns, the metric in ms) over a few stacks, in
 * one order or the reverse; *total_ns: their ns added up. */
static sv_source *periods(bool quantum, bool reverse, long long *total_ns)
{
	sv_source *src;
	assert_int_equal(sv_source_new(&src, "periods"), 0);
	if (quantum)
		sv_source_set_metric_quantum(src, 1e-6);
	sv_stack_id st[8];
	few_stacks(src, st);
	*total_ns = 0;
	for (int i = 0; i < 600; i++) {
		int j = reverse ? 599 - i : i;
		long long ns = 20000 + (7919LL * j) % 9973;
		*total_ns += ns;
		assert_int_equal(sv_source_add_sample(src, st[(j * 7) % 8], j * 0.5, (double)ns / 1e6, 1), 0);
	}
	return src;
}

/* With the quantum said, every sum is kept in whole ns and read back rounded once: the same
 * bits whatever order the samples come in (where sums of the ms doubles depend on it), the
 * total the ns total divided once, the stacks' sums kept; a metric that is no whole number
 * of ns ends the quantum; aggregated samples add up the same way. */
static void test_quantum(void **state)
{
	(void)state;
	long long ns, ns2;
	sv_source *a = periods(true, false, &ns), *b = periods(true, true, &ns2);
	assert_true(same_double(sv_source_metric_scale(a), 1e6));
	sv_params p;
	assert_int_equal(sv_params_init(&p), 0);
	sv_view *va, *vb;
	assert_int_equal(sv_view_new(&va, a, &p, NULL), 0);
	assert_int_equal(sv_view_new(&vb, b, &p, NULL), 0);
	same_views(va, vb);
	assert_true(same_double(sv_view_node_stats(va, SV_NODE_ROOT).inc, (double)ns / 1e6));
	assert_true(same_double(sv_source_total_metric(a), (double)ns / 1e6));
	for (uint32_t r = 0; r < sv_view_byname_count(va); r++) {
		double x = sv_view_byname_stats(va, r)->exc;
		assert_true(same_double(x, nearbyint(x * 1e6) / 1e6)); /* whole ns read back */
	}
	sv_netpeak np;
	assert_int_equal(sv_view_net_peak(va, &np), 0);
	assert_true(same_double(np.net, (double)ns / 1e6) && same_double(np.peak, np.net));
	sv_view_free(va);
	sv_view_free(vb);
	/* the same samples without the quantum: sums in double, in sample order, differ */
	sv_source *c = periods(false, false, &ns), *d = periods(false, true, &ns2);
	assert_true(same_double(sv_source_metric_scale(c), 1));
	assert_int_equal(sv_view_new(&va, c, &p, NULL), 0);
	assert_int_equal(sv_view_new(&vb, d, &p, NULL), 0);
	assert_false(same_double(sv_view_node_stats(va, SV_NODE_ROOT).inc, sv_view_node_stats(vb, SV_NODE_ROOT).inc));
	sv_view_free(va);
	sv_view_free(vb);
	check_source(a, true);
	check_source(c, false);
	/* a metric that is no whole number of ns: no quantum from there on */
	assert_int_equal(sv_source_add_sample(b, SV_STACK_NONE, 1, 1e-7, 1), 0);
	assert_true(same_double(sv_source_metric_scale(b), 1));
	/* aggregated: one sample a stack, its metric the ns summed and divided once */
	sv_source *g;
	assert_int_equal(sv_source_new(&g, "agg"), 0);
	sv_source_set_metric_quantum(g, 1e-6);
	sv_source_set_aggregate(g, true);
	long long sum = 0;
	for (int i = 0; i < 500; i++) {
		long long q = 20000 + (7919LL * i) % 9973;
		sum += q;
		assert_int_equal(sv_source_add_sample(g, SV_STACK_NONE, 0, (double)q / 1e6, 1), 0);
	}
	sv_samples smp = sv_source_samples(g);
	assert_int_equal(smp.n, 1);
	assert_true(same_double(sv_sample_metric(&smp, 0), (double)sum / 1e6));
	sv_source_free(g);
	sv_source_free(a);
	sv_source_free(b);
	sv_source_free(c);
	sv_source_free(d);
	sv_params_dispose(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_real_inputs), cmocka_unit_test(test_synthetic),
					    cmocka_unit_test(test_quantum) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
