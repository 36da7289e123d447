/* SPDX-License-Identifier: MIT */
/* The event log of the Events view, field lookup, and GCStats' pairing rules (lib/evlog.c,
 * lib/report.c). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "stackview/evlog.h"
#include "stackview/report.h"
#include "unit.h"

static void add(sv_evlog *l, double ms, const char *kind, long long pid, const char *fields)
{
	sv_evrow r = { .ms = ms, .kind = kind, .process = "app", .fields = fields, .pid = pid, .tid = 7, .cpu = 1 };
	assert_int_equal(sv_evlog_add(l, &r), 0);
}

static void test_filter(void **state)
{
	(void)state;
	sv_evlog *l;
	assert_int_equal(sv_evlog_new(&l), 0);
	add(l, 1, "P/GC/Start", 1, "Count=\"1\" Reason=\"Induced\"");
	add(l, 2, "P/Other", 1, "Text=\"say \\\"gc\\\" twice\"");
	add(l, 3, "P/GC/Stop", 2, "");
	size_t *idx, n;
	assert_int_equal(sv_evlog_filter(l, "gc/", -1e9, 1e9, &idx, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[1], 2);
	assert_int_equal(sv_evlog_seek(l, idx, n, 2.5), 1);
	free(idx);
	/* fields too, any case; a time range */
	assert_int_equal(sv_evlog_filter(l, "SAY", 1.5, 2.5, &idx, &n), 0);
	assert_int_equal(n, 1);
	free(idx);
	sv_evrow r;
	sv_evlog_get(l, 1, &r);
	char buf[32];
	assert_true(sv_evrow_field(&r, "Text", buf, sizeof(buf)));
	assert_string_equal(buf, "say \"gc\" twice");
	assert_false(sv_evrow_field(&r, "Tex", buf, sizeof(buf)));
	sv_evlog_get(l, 0, &r);
	assert_true(sv_evrow_field(&r, "Reason", buf, 4)); /* cut to the buffer */
	assert_string_equal(buf, "Ind");
	sv_evlog_free(l);
}

static void test_gcstats(void **state)
{
	(void)state;
	sv_evlog *l;
	assert_int_equal(sv_evlog_new(&l), 0);
#define RT "Microsoft-Windows-DotNETRuntime/"
	add(l, 10, RT "GC/SuspendEEStart", 5, "Reason=\"SuspendForGC\" Count=\"0\"");
	add(l, 10.5, RT "GC/SuspendEEStop", 5, "");
	add(l, 11, RT "GC/Start", 5, "Count=\"1\" Depth=\"0\" Reason=\"AllocSmall\"");
	add(l, 11, RT "GC/Start", 5, "Count=\"1\" Depth=\"0\" Reason=\"AllocSmall\" Type=\"NonConcurrentGC\""); /* 4.5's twin */
	add(l, 14, RT "GC/Stop", 5, "Count=\"1\" Depth=\"0\"");
	add(l, 14.5, RT "GC/HeapStats", 5, "GenerationSize0=\"1048576\" GenerationSize2=\"1048576\" TotalPromotedSize0=\"524288\"");
	add(l, 15, RT "GC/RestartEEStop", 5, "");
	add(l, 20, RT "GC/Start", 5, "Count=\"2\" Depth=\"2\" Reason=\"Induced\""); /* no suspension, no stop */
	add(l, 110, RT "GC/AllocationTick", 5, "AllocationAmount=\"1\" AllocationAmount64=\"2097152\"");
	sv_gc_process *p;
	size_t n;
	assert_int_equal(sv_report_gcstats(l, &p, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].ngcs, 2);
	assert_true(p[0].gcs[0].pause_ms == 5.0);
	assert_true(p[0].gcs[0].suspend_ms == 0.5);
	assert_true(p[0].gcs[0].duration_ms == 3.0);
	assert_true(p[0].gcs[0].after_mb == 2.0);
	assert_true(p[0].gcs[0].promoted_mb == 0.5);
	assert_true(p[0].gcs[1].pause_ms < 0 && p[0].gcs[1].duration_ms < 0 && p[0].gcs[1].induced);
	assert_int_equal(p[0].gen[2].count, 1);
	assert_true(p[0].pct_paused == 5.0); /* 5 ms of 10..110 */
	assert_true(p[0].alloc_mb == 2.0);
	sv_report_gcstats_free(p, n);
	sv_evlog_free(l);
}

/* One thread adds rows while another filters them as they come (the TUI's Events view while
 * the trace is read): the rows taken piece by piece are those one filter of the whole finds. */
enum { N_ROWS = 200000 };

static void *writer(void *arg)
{
	sv_evlog *l = arg;
	char fields[32], kind[16];
	for (int i = 0; i < N_ROWS; i++) {
		snprintf(fields, sizeof(fields), "N=\"%d\"", i);
		snprintf(kind, sizeof(kind), "K/%d", i % 7);
		sv_evrow r = { .ms = i, .kind = kind, .process = i % 3 ? "app" : "other", .fields = fields, .pid = 1, .tid = i % 5, .cpu = 0 };
		if (sv_evlog_add(l, &r))
			return (void *)1;
	}
	return NULL;
}

static void test_filter_while_added(void **state)
{
	(void)state;
	sv_evlog *l;
	assert_int_equal(sv_evlog_new(&l), 0);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, writer, l), 0);
	size_t *idx = NULL, n = 0, cap = 0, from = 0, rounds = 0;
	while (from < N_ROWS) {
		assert_int_equal(sv_evlog_filter_more(l, "k/3", -1e300, 1e300, &from, &idx, &n, &cap), 0);
		assert_true(from <= sv_evlog_count(l));
		rounds++;
	}
	void *res;
	assert_int_equal(pthread_join(th, &res), 0);
	assert_null(res);
	size_t *all, nall;
	assert_int_equal(sv_evlog_filter(l, "k/3", -1e300, 1e300, &all, &nall), 0);
	assert_int_equal(n, nall);
	assert_int_equal(nall, (N_ROWS + 3) / 7);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(idx[i], all[i]);
	sv_evrow r;
	sv_evlog_get(l, idx[n - 1], &r);
	assert_string_equal(r.kind, "K/3");
	assert_true(rounds >= 1);
	free(idx);
	free(all);
	sv_evlog_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_filter), cmocka_unit_test(test_gcstats),
					    cmocka_unit_test(test_filter_while_added) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
