/* SPDX-License-Identifier: MIT */
/* Two threads over one text input (formats/core/two_parts.h): where the chunks start, and who reads
 * which chunk when one thread is held up — the first thread, so the second reads the first
 * half's last chunks alone; the second, so the first reads the second half's; a failing first
 * thread, which cancels the second. Each reader waits on the other's progress, so every case
 * takes the same path whatever the machine's timing. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/two_parts.h"
#include "unit.h"

static void test_chunks(void **state)
{
	(void)state;
	size_t at[SV_TWO_CHUNKS + 1];
	/* 16 lines of 4 bytes: a chunk starts at every eighth of the input */
	char d[64];
	for (int i = 0; i < 16; i++)
		memcpy(d + 4 * i, "abc\n", 4);
	assert_int_equal(sv_two_chunks(d, sizeof(d), false, at), 8);
	for (unsigned k = 0; k <= 8; k++)
		assert_int_equal(at[k], 8 * k);
	/* after a blank line only: perf script's samples end at one */
	const char *s = "h 1\n\tf\n\nh 2\n\tf\n\nh 3\n\tf\n\nh 4\n\tf\n\n";
	unsigned m = sv_two_chunks(s, strlen(s), true, at);
	assert_true(m >= 2 && m <= 4);
	for (unsigned k = 1; k < m; k++) {
		assert_true(at[k] > at[k - 1]);
		assert_true(s[at[k] - 1] == '\n' && s[at[k] - 2] == '\n');
	}
	assert_int_equal(at[m], strlen(s));
	/* one line: nothing to split */
	assert_int_equal(sv_two_chunks("only one line", 13, false, at), 1);
	assert_int_equal(at[1], 13);
}

/* A reader of 8 one-line chunks that records who read which chunk how, and may hold one
 * thread until the other has read a number of chunks alone. */
typedef struct fake {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int how[SV_TWO_CHUNKS];  /* 1: into the sink, 2: the run, 3: alone */
	int kind[SV_TWO_CHUNKS]; /* the parts: what open_part made at that chunk */
	pthread_t who[SV_TWO_CHUNKS];
	int alone;               /* chunks read alone so far */
	int hold_first_until;    /* the first thread's first chunk waits for this many alone */
	int hold_run_until;      /* the run's first chunk waits for this many alone */
	int fail_first;          /* the first thread's chunk 0 fails */
	unsigned run_next;       /* the run's chunks come in order */
	int run_order_ok;
	atomic_bool cancel;
} fake;

static void wait_alone(fake *f, int n)
{
	pthread_mutex_lock(&f->mu);
	while (f->alone < n)
		pthread_cond_wait(&f->cv, &f->mu);
	pthread_mutex_unlock(&f->mu);
}

static void mark(fake *f, unsigned k, int how)
{
	pthread_mutex_lock(&f->mu);
	f->how[k] = how;
	f->who[k] = pthread_self();
	if (how == 3)
		f->alone++;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
}

static char text[8 * 4 + 1] = "c0.\nc1.\nc2.\nc3.\nc4.\nc5.\nc6.\nc7.\n";
static char text_name[] = "t";

static int first(void *arg, sv_lines *lr)
{
	fake *f = arg;
	const char *line;
	size_t n;
	sv_error err;
	int got;
	while ((got = sv_lines_next(lr, &line, &n, &err)) > 0) {
		unsigned k = (unsigned)(line[1] - '0');
		if (k == 0 && f->fail_first)
			return SV_EFORMAT;
		if (k == 0)
			wait_alone(f, f->hold_first_until);
		mark(f, k, 1);
	}
	return got;
}

/* A part: the run (opened at the middle chunk, as far as the end) or one chunk alone. */
static void *open_part(void *arg, unsigned k, unsigned to)
{
	fake *f = arg;
	f->kind[k] = k == 4 && to == 8 ? 2 : to == k + 1 ? 3 : -1;
	return &f->kind[k];
}

static void read_part(void *arg, void *part, unsigned k)
{
	fake *f = arg;
	int kind = *(int *)part;
	if (kind == 2) {
		if (k != f->run_next++)
			f->run_order_ok = 0;
		if (k == 4)
			wait_alone(f, f->hold_run_until);
	}
	mark(f, k, kind);
}

static int go(fake *f, sv_two_ranges *rg)
{
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	f->run_next = 4;
	f->run_order_ok = 1;
	atomic_init(&f->cancel, false);
	sv_input in = { .name = text_name, .data = (unsigned char *)text, .len = strlen(text) };
	size_t at[SV_TWO_CHUNKS + 1];
	assert_int_equal(sv_two_chunks(text, in.len, false, at), 8);
	sv_lines lr;
	assert_int_equal(sv_lines_init(&lr, &in), 0);
	sv_two_reader rd = { open_part, read_part, f };
	int rc = sv_two_run(&lr, at, 8, &rd, &f->cancel, first, f, rg);
	if (!rc)
		assert_ptr_equal(lr.p, text + at[rg->front]);
	sv_lines_dispose(&lr);
	pthread_cond_destroy(&f->cv);
	pthread_mutex_destroy(&f->mu);
	return rc;
}

/* Who read what: the ranges, each chunk's way (want), and a part at each chunk not in the
 * sink but inside the run. */
static void check(const fake *f, const sv_two_ranges *rg, unsigned front, unsigned run_end, const int want[8])
{
	assert_int_equal(rg->front, front);
	assert_int_equal(rg->run, 4);
	assert_int_equal(rg->run_end, run_end);
	assert_memory_equal(f->how, want, 8 * sizeof(int));
	for (unsigned k = 0; k < 8; k++)
		assert_ptr_equal(rg->part[k], k < front || (k > 4 && k < run_end) ? NULL : &f->kind[k]);
	assert_int_equal(sv_two_next(rg, 4), run_end);
}

static void test_first_held(void **state)
{
	(void)state;
	/* the first thread is held on chunk 0 until the second has read chunks 1-3 alone */
	fake f = { .hold_first_until = 3 };
	sv_two_ranges rg;
	assert_int_equal(go(&f, &rg), 0);
	check(&f, &rg, 1, 8, (const int[8]){ 1, 3, 3, 3, 2, 2, 2, 2 });
	assert_int_equal(sv_two_next(&rg, 2), 3);
	assert_true(f.run_order_ok);
	for (int k = 1; k < 8; k++) /* chunks 1-7 on the second thread */
		assert_true(pthread_equal(f.who[k], f.who[4]));
	assert_false(pthread_equal(f.who[0], f.who[4]));
}

static void test_run_held(void **state)
{
	(void)state;
	/* the second thread is held on its first chunk until the first has read 5-7 alone */
	fake f = { .hold_run_until = 3 };
	sv_two_ranges rg;
	assert_int_equal(go(&f, &rg), 0);
	check(&f, &rg, 4, 5, (const int[8]){ 1, 1, 1, 1, 2, 3, 3, 3 });
	for (int k = 5; k < 8; k++) /* stolen by the first thread */
		assert_true(pthread_equal(f.who[k], f.who[0]));
}

static void test_first_fails(void **state)
{
	(void)state;
	fake f = { .fail_first = 1 };
	sv_two_ranges rg;
	assert_int_equal(go(&f, &rg), SV_EFORMAT);
	assert_true(atomic_load(&f.cancel));
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_chunks), cmocka_unit_test(test_first_held),
					    cmocka_unit_test(test_run_held), cmocka_unit_test(test_first_fails) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
