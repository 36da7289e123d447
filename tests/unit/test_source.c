/* SPDX-License-Identifier: MIT */
/* Interning, the stack trie, short names (§1.4) and the process list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/source.h"
#include "unit.h"

static void test_intern(void **state)
{
	(void)state;
	sv_source *s;
	assert_int_equal(sv_source_new(&s, "test"), 0);
	sv_frame_id a, b, a2;
	assert_int_equal(sv_source_intern_frame(s, &a, "C:\\dir\\mod.dll!Func", 19), 0);
	assert_int_equal(sv_source_intern_frame(s, &b, "Process x (1)", 13), 0);
	assert_int_equal(sv_source_intern_frame(s, &a2, "C:\\dir\\mod.dll!Func", 19), 0);
	assert_int_equal(a, a2);
	assert_string_equal(sv_source_frame_short(s, a), "mod.dll!Func");
	assert_string_equal(sv_source_frame_short(s, b), "Process x (1)");
	sv_stack_id s1, s2, s3;
	assert_int_equal(sv_source_intern_stack(s, &s1, SV_STACK_NONE, b), 0);
	assert_int_equal(sv_source_intern_stack(s, &s2, s1, a), 0);
	assert_int_equal(sv_source_intern_stack(s, &s3, s1, a), 0);
	assert_int_equal(s2, s3);
	assert_true(sv_source_stack_caller(s, s2) < s2);
	assert_int_equal(sv_source_intern_stack(s, &s3, 99, a), SV_EINVAL);
	assert_int_equal(sv_source_add_sample(s, s2, 1, 2, 1), 0);
	assert_int_equal(sv_source_add_sample(s, 77, 1, 2, 1), SV_EINVAL);
	assert_int_equal(sv_source_sample_count(s), 1);
	sv_source_free(s);
}

static void test_short_names(void **state)
{
	(void)state;
	sv_source *s;
	assert_int_equal(sv_source_new(&s, "test"), 0);
	const char *cases[][2] = {
		{ "/usr/lib/libc.so.6!main", "libc.so.6!main" },
		{ "!h", "!h" },
		{ "a/b", "a/b" },
		{ "x!y/z", "x!y/z" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sv_frame_id f;
		assert_int_equal(sv_source_intern_frame(s, &f, cases[i][0], strlen(cases[i][0])), 0);
		assert_string_equal(sv_source_frame_short(s, f), cases[i][1]);
	}
	sv_source_free(s);
}

static void test_processes(void **state)
{
	(void)state;
	sv_source *s;
	assert_int_equal(sv_source_new(&s, "test"), 0);
	const char *p1[] = { "Process64 Test.x64 (4711) Args: -x", "Thread (1)", "a!f" };
	const char *p2[] = { "Process my app (12)", "Thread (2)" };
	sv_stack_id a, b;
	assert_int_equal(sv_source_intern_path(s, &a, p1, 3), 0);
	assert_int_equal(sv_source_intern_path(s, &b, p2, 2), 0);
	assert_int_equal(sv_source_add_sample(s, a, 0, 5, 1), 0);
	assert_int_equal(sv_source_add_sample(s, b, 0, 1, 1), 0);
	assert_int_equal(sv_source_add_sample(s, b, 0, 1, 1), 0);
	sv_process *pr;
	size_t n;
	assert_int_equal(sv_source_processes(&pr, &n, s), 0);
	assert_int_equal(n, 2);
	assert_string_equal(pr[0].name, "Test.x64");
	assert_int_equal(pr[0].pid, 4711);
	assert_string_equal(pr[1].name, "my app");
	assert_int_equal(pr[1].samples, 2);
	free(pr);
	sv_source_free(s);
}

/* A sample's metric and count read back exactly: coded while the distinct pairs are few
 * (-0.0 and 0.0 told apart), then per sample past 65,536 of them, earlier samples kept. */
static void test_sample_pairs(void **state)
{
	(void)state;
	sv_source *s;
	sv_frame_id f;
	sv_stack_id st;
	assert_int_equal(sv_source_new(&s, "test"), 0);
	assert_int_equal(sv_source_intern_frame(s, &f, "f", 1), 0);
	assert_int_equal(sv_source_intern_stack(s, &st, SV_STACK_NONE, f), 0);
	enum { N = 200000 };
	double want_m[6] = { 1, 1, -0.0, 0.0, 2.5, 1 };
	float want_c[6] = { 1, 2, 1, 1, 0.5f, 1 };
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(sv_source_add_sample(s, st, (double)i, want_m[i], want_c[i]), 0);
	sv_samples smp = sv_source_samples(s);
	assert_non_null(smp.code);
	for (size_t i = 0; i < 6; i++) {
		assert_memory_equal(&(double){ sv_sample_metric(&smp, i) }, &want_m[i], sizeof(double));
		assert_true(sv_sample_count(&smp, i) == want_c[i]);
	}
	for (size_t i = 6; i < N; i++)
		assert_int_equal(sv_source_add_sample(s, i % 3 ? SV_STACK_NONE : st, (double)i, (double)(i / 2), 1), 0);
	smp = sv_source_samples(s);
	assert_null(smp.code);
	assert_int_equal(smp.n, N);
	for (size_t i = 0; i < N; i++) {
		double m = i < 6 ? want_m[i] : (double)(i / 2);
		assert_memory_equal(&(double){ sv_sample_metric(&smp, i) }, &m, sizeof(double));
		assert_true(sv_sample_count(&smp, i) == (i < 6 ? want_c[i] : 1));
		assert_true(smp.time[i] == (double)i);
		assert_int_equal(smp.stack[i], i < 6 || i % 3 == 0 ? st : SV_STACK_NONE);
	}
	sv_source_free(s);

	/* aggregating: each stack's one sample is re-coded as it adds up, until the sums are too
	 * many pairs */
	assert_int_equal(sv_source_new(&s, "test"), 0);
	sv_source_set_aggregate(s, true);
	assert_int_equal(sv_source_intern_frame(s, &f, "f", 1), 0);
	assert_int_equal(sv_source_intern_stack(s, &st, SV_STACK_NONE, f), 0);
	for (int i = 0; i < 300000; i++) {
		assert_int_equal(sv_source_add_sample(s, i % 2 ? st : SV_STACK_NONE, 300000 - i, 1, 1), 0);
		if (i == 1000)
			assert_non_null(sv_source_samples(s).code);
	}
	smp = sv_source_samples(s);
	assert_null(smp.code);
	assert_int_equal(smp.n, 2);
	assert_true(sv_sample_metric(&smp, 0) == 150000 && sv_sample_count(&smp, 0) == 150000);
	assert_true(sv_sample_metric(&smp, 1) == 150000 && sv_sample_count(&smp, 1) == 150000);
	assert_true(smp.time[0] == 2 && smp.time[1] == 1);
	sv_source_free(s);

	/* times are kept from the first one that is not 0: until then none (8 bytes a sample) */
	assert_int_equal(sv_source_new(&s, "test"), 0);
	assert_int_equal(sv_source_intern_frame(s, &f, "f", 1), 0);
	assert_int_equal(sv_source_intern_stack(s, &st, SV_STACK_NONE, f), 0);
	for (int i = 0; i < 5000; i++)
		assert_int_equal(sv_source_add_sample(s, st, 0, 1, 1), 0);
	smp = sv_source_samples(s);
	assert_null(smp.time);
	assert_null(sv_source_sample_times(s));
	assert_true(sv_sample_time(&smp, 4999) == 0);
	size_t untimed = sv_source_memory(s);
	assert_int_equal(sv_source_add_sample(s, st, -3.5, 1, 1), 0);
	smp = sv_source_samples(s);
	assert_non_null(smp.time);
	assert_true(sv_sample_time(&smp, 0) == 0 && sv_sample_time(&smp, 4999) == 0 && sv_sample_time(&smp, 5000) == -3.5);
	assert_true(sv_source_memory(s) >= untimed + 5001 * sizeof(double));
	sv_source_free(s);

	/* aggregating: an earlier time than 0 arriving for a stack makes the times kept */
	assert_int_equal(sv_source_new(&s, "test"), 0);
	sv_source_set_aggregate(s, true);
	assert_int_equal(sv_source_intern_frame(s, &f, "f", 1), 0);
	assert_int_equal(sv_source_intern_stack(s, &st, SV_STACK_NONE, f), 0);
	assert_int_equal(sv_source_add_sample(s, st, 0, 1, 1), 0);
	assert_null(sv_source_samples(s).time);
	assert_int_equal(sv_source_add_sample(s, st, -2, 1, 1), 0);
	smp = sv_source_samples(s);
	assert_int_equal(smp.n, 1);
	assert_true(sv_sample_time(&smp, 0) == -2);
	sv_source_free(s);
}

/* sv_source_trim lets the interning indexes go: interning afterwards finds every stack,
 * location and code path made before under its id, and makes new ones after them. */
static void test_trim(void **state)
{
	(void)state;
	sv_source *s;
	assert_int_equal(sv_source_new(&s, "test"), 0);
	enum { NF = 40, NL = 300 };
	sv_frame_id f[NF];
	for (int i = 0; i < NF; i++) {
		char name[32];
		int n = snprintf(name, sizeof(name), "m!f%d", i);
		assert_int_equal(sv_source_intern_frame(s, &f[i], name, (size_t)n), 0);
	}
	/* roots, each with many children (a caller's first child is kept apart from the
	 * others) and grandchildren */
	sv_stack_id st[3][NF][4];
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < NF; i++) {
			sv_stack_id root, kid;
			assert_int_equal(sv_source_intern_stack(s, &root, SV_STACK_NONE, f[r]), 0);
			assert_int_equal(sv_source_intern_stack(s, &kid, root, f[i]), 0);
			st[r][i][0] = root, st[r][i][1] = kid;
			assert_int_equal(sv_source_intern_stack(s, &st[r][i][2], kid, f[(i + 1) % NF]), 0);
			assert_int_equal(sv_source_intern_stack(s, &st[r][i][3], kid, f[(i + 7) % NF]), 0);
		}
	uint32_t file, loc[NL], cp[NL];
	assert_int_equal(sv_source_intern_code_file(s, &file, "/bin/x"), 0);
	for (int i = 0; i < NL; i++) {
		assert_int_equal(sv_source_intern_location(s, &loc[i], f[i % NF], file, 0x1000 + (uint64_t)i), 0);
		assert_int_equal(sv_source_intern_code_path(s, &cp[i], i ? cp[i / 2] : SV_LOC_NONE, loc[i]), 0);
	}
	uint32_t nst = sv_source_stack_count(s), ncp = sv_source_code_path_count(s);

	sv_source_trim(s);
	sv_stack_id fresh, again;
	assert_int_equal(sv_source_intern_stack(s, &fresh, st[1][5][1], f[30]), 0); /* new, first */
	assert_int_equal(fresh, nst);
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < NF; i++) {
			assert_int_equal(sv_source_intern_stack(s, &again, SV_STACK_NONE, f[r]), 0);
			assert_int_equal(again, st[r][i][0]);
			assert_int_equal(sv_source_intern_stack(s, &again, st[r][i][0], f[i]), 0);
			assert_int_equal(again, st[r][i][1]);
			assert_int_equal(sv_source_intern_stack(s, &again, st[r][i][1], f[(i + 1) % NF]), 0);
			assert_int_equal(again, st[r][i][2]);
			assert_int_equal(sv_source_intern_stack(s, &again, st[r][i][1], f[(i + 7) % NF]), 0);
			assert_int_equal(again, st[r][i][3]);
		}
	assert_int_equal(sv_source_stack_count(s), nst + 1);

	sv_source_trim(s);
	uint32_t id;
	for (int i = NL; i-- > 0;) {
		assert_int_equal(sv_source_intern_location(s, &id, f[i % NF], file, 0x1000 + (uint64_t)i), 0);
		assert_int_equal(id, loc[i]);
		assert_int_equal(sv_source_intern_code_path(s, &id, i ? cp[i / 2] : SV_LOC_NONE, loc[i]), 0);
		assert_int_equal(id, cp[i]);
	}
	assert_int_equal(sv_source_code_path_count(s), ncp);
	assert_int_equal(sv_source_intern_location(s, &id, f[0], file, 0x9999), 0);
	assert_int_equal(id, NL);
	sv_source_free(s);
}

/* A stack is interned once whatever its caller's other callees: callers with a few callees
 * (told apart by their frames' bits), with many (their bits all taken: then indexed), asked
 * again before and after sv_source_trim, against a plain search of every stack. */
static void test_intern_callees(void **state)
{
	(void)state;
	sv_source *s;
	assert_int_equal(sv_source_new(&s, "test"), 0);
	enum { NF = 300, NREQ = 30000 };
	sv_frame_id f[NF];
	for (int i = 0; i < NF; i++) {
		char name[32];
		int n = snprintf(name, sizeof(name), "m!f%d", i);
		assert_int_equal(sv_source_intern_frame(s, &f[i], name, (size_t)n), 0);
	}
	srand(7);
	for (int pass = 0; pass < 3; pass++) {
		for (int r = 0; r < NREQ; r++) {
			uint32_t nst = sv_source_stack_count(s);
			/* callers among the first stacks get many callees, later ones few */
			sv_stack_id caller = nst == 0 || rand() % 10 == 0 ? SV_STACK_NONE
					     : rand() % 2 ? (sv_stack_id)(rand() % (nst < 40 ? nst : 40))
							  : (sv_stack_id)(rand() % nst);
			sv_frame_id fr = f[rand() % (caller != SV_STACK_NONE && caller < 40 ? NF : 12)];
			sv_stack_id want = SV_STACK_NONE, got;
			for (sv_stack_id k = 0; k < nst && want == SV_STACK_NONE; k++)
				if (sv_source_stack_caller(s, k) == caller && sv_source_stack_frame(s, k) == fr)
					want = k;
			assert_int_equal(sv_source_intern_stack(s, &got, caller, fr), 0);
			if (want == SV_STACK_NONE) {
				assert_int_equal(got, nst); /* new: the next id */
				assert_int_equal(sv_source_stack_count(s), nst + 1);
			} else {
				assert_int_equal(got, want);
				assert_int_equal(sv_source_stack_count(s), nst);
			}
		}
		sv_source_trim(s); /* then asked again: from the index made again */
	}
	sv_source_free(s);
}

/* sv_source_reserve_samples: room asked for ahead changes nothing the samples say, whichever
 * arrays they need (times, wide pairs, code paths), and is nothing when aggregating. */
static void test_reserve(void **state)
{
	(void)state;
	for (int agg = 0; agg < 2; agg++) {
		sv_source *s;
		assert_int_equal(sv_source_new(&s, "test"), 0);
		sv_source_set_aggregate(s, agg);
		assert_int_equal(sv_source_reserve_samples(s, 10), 0);
		sv_frame_id f;
		sv_stack_id st;
		assert_int_equal(sv_source_intern_frame(s, &f, "m!f", 3), 0);
		assert_int_equal(sv_source_intern_stack(s, &st, SV_STACK_NONE, f), 0);
		/* 70,000 distinct pairs: past the 65,536 codes, the pairs go wide */
		for (int i = 0; i < 70000; i++) {
			if (i == 5)
				assert_int_equal(sv_source_reserve_samples(s, 200000), 0);
			assert_int_equal(sv_source_add_sample(s, st, i * 0.5, 1.0 + i, 1), 0);
		}
		sv_samples smp = sv_source_samples(s);
		assert_int_equal(smp.n, agg ? 1 : 70000);
		if (!agg)
			for (size_t i = 0; i < smp.n; i += 977) {
				assert_true(sv_sample_time(&smp, i) == (double)i * 0.5);
				assert_true(sv_sample_metric(&smp, i) == 1.0 + (double)i);
			}
		else
			assert_true(sv_sample_metric(&smp, 0) == 70000.0 + 70000.0 * 69999.0 / 2);
		sv_source_free(s);
	}
}

/* sv_source_reserve_stacks: stacks made after room was asked for, less or more than it, are
 * those made without (the same ids, callers and frames; a stack asked again is found). */
static void test_reserve_stacks(void **state)
{
	(void)state;
	sv_source *a, *b;
	assert_int_equal(sv_source_new(&a, "test"), 0);
	assert_int_equal(sv_source_new(&b, "test"), 0);
	assert_int_equal(sv_source_reserve_stacks(b, 3000), 0);
	sv_frame_id f[7];
	for (int k = 0; k < 7; k++) {
		char name[16];
		snprintf(name, sizeof(name), "m!f%d", k);
		assert_int_equal(sv_source_intern_frame(a, &f[k], name, strlen(name)), 0);
		assert_int_equal(sv_source_intern_frame(b, &f[k], name, strlen(name)), 0);
	}
	sv_stack_id sa = SV_STACK_NONE, sb = SV_STACK_NONE;
	for (int i = 0; i < 5000; i++) { /* past the room asked for, and past a first growth */
		if (i % 9 == 0)
			sa = sb = SV_STACK_NONE;
		sv_stack_id ca = sa, cb = sb;
		assert_int_equal(sv_source_intern_stack(a, &sa, ca, f[(i * 5) % 7]), 0);
		assert_int_equal(sv_source_intern_stack(b, &sb, cb, f[(i * 5) % 7]), 0);
		assert_int_equal(sa, sb);
		if (i == 2000)
			assert_int_equal(sv_source_reserve_stacks(b, 10), 0); /* less than there is: nothing */
	}
	assert_int_equal(sv_source_stack_count(a), sv_source_stack_count(b));
	for (sv_stack_id s = 0; s < sv_source_stack_count(a); s++) {
		assert_int_equal(sv_source_stack_frame(a, s), sv_source_stack_frame(b, s));
		assert_int_equal(sv_source_stack_caller(a, s), sv_source_stack_caller(b, s));
	}
	sv_source_free(a);
	sv_source_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_intern), cmocka_unit_test(test_short_names),
					    cmocka_unit_test(test_processes), cmocka_unit_test(test_sample_pairs),
					    cmocka_unit_test(test_trim), cmocka_unit_test(test_intern_callees), cmocka_unit_test(test_reserve),
					    cmocka_unit_test(test_reserve_stacks) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
