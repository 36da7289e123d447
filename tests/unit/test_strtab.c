/* SPDX-License-Identifier: MIT */
/* The string interner behind frame and display names (lib/strtab.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/status.h"
#include "strtab_int.h"
#include "unit.h"

static void test_intern(void **state)
{
	(void)state;
	strtab t;
	sv_strtab_init(&t);
	uint32_t a, b, c, d;
	assert_int_equal(sv_strtab_intern(&t, &a, "alpha", 5), 0);
	assert_int_equal(sv_strtab_intern(&t, &b, "beta", 4), 0);
	assert_int_equal(sv_strtab_intern(&t, &c, "alphabet", 5), 0); /* only the first 5 bytes */
	assert_int_equal(sv_strtab_intern(&t, &d, "", 0), 0);
	assert_int_equal(a, 0);
	assert_int_equal(b, 1);
	assert_int_equal(c, a);
	assert_int_equal(d, 2);
	assert_string_equal(sv_strtab_str(&t, b), "beta");
	assert_int_equal(sv_strtab_len(&t, a), 5);
	assert_int_equal(sv_strtab_find(&t, "beta", 4), b);
	assert_int_equal(sv_strtab_find(&t, "gamma", 5), UINT32_MAX);
	/* embedded NUL bytes are part of the text */
	uint32_t z;
	assert_int_equal(sv_strtab_intern(&t, &z, "a\0b", 3), 0);
	assert_int_not_equal(z, a);
	assert_int_equal(sv_strtab_len(&t, z), 3);
	sv_strtab_dispose(&t);
}

/* Many strings: ids stay dense and texts stable across growth. */
static void test_growth(void **state)
{
	(void)state;
	strtab t;
	sv_strtab_init(&t);
	const char *first = NULL;
	for (uint32_t i = 0; i < 50000; i++) {
		char buf[32];
		int n = snprintf(buf, sizeof(buf), "frame%u", i);
		uint32_t id;
		assert_int_equal(sv_strtab_intern(&t, &id, buf, (size_t)n), 0);
		assert_int_equal(id, i);
		if (i == 0)
			first = sv_strtab_str(&t, 0);
	}
	assert_ptr_equal(sv_strtab_str(&t, 0), first); /* arena text never moves */
	assert_int_equal(sv_strtab_find(&t, "frame49999", 10), 49999);
	sv_strtab_dispose(&t);
}

/* Renaming gives ids new texts and re-indexes them. */
static void test_rename(void **state)
{
	(void)state;
	strtab t;
	sv_strtab_init(&t);
	uint32_t p, q;
	assert_int_equal(sv_strtab_intern(&t, &p, "Process (7)", 11), 0);
	assert_int_equal(sv_strtab_intern(&t, &q, "Thread (8)", 10), 0);
	const uint32_t ids[] = { p };
	const char *const texts[] = { "Process a;b (7)" };
	const size_t lens[] = { 15 };
	assert_int_equal(sv_strtab_rename(&t, ids, texts, lens, 1), 0);
	assert_string_equal(sv_strtab_str(&t, p), "Process a;b (7)");
	assert_int_equal(sv_strtab_find(&t, "Process a;b (7)", 15), p);
	assert_int_equal(sv_strtab_find(&t, "Process (7)", 11), UINT32_MAX);
	assert_int_equal(sv_strtab_find(&t, "Thread (8)", 10), q);
	const uint32_t bad[] = { 99 };
	assert_int_equal(sv_strtab_rename(&t, bad, texts, lens, 1), SV_EINVAL);
	sv_strtab_dispose(&t);
}

static char text[4000][32];

static int by_text_then_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(text[x], text[y]);
	return c ? c : x < y ? -1 : x > y;
}

/* Renames in rounds, a few ids (their index entries changed one by one) or many (the index
 * made again); after the first two thirds of the rounds also new texts that other ids have or had:
 * after each round every text is found, at the lowest id that has it, and no old text is. */
static void rename_rounds(uint32_t N, int rounds)
{
	strtab t;
	sv_strtab_init(&t);
	uint64_t rng = 0x853c49e6748fea9bULL;
	for (uint32_t i = 0; i < N; i++) {
		uint32_t id;
		snprintf(text[i], sizeof(text[i]), "t%u", i);
		assert_int_equal(sv_strtab_intern(&t, &id, text[i], strlen(text[i])), 0);
		assert_int_equal(id, i);
	}
	for (int round = 0; round < rounds; round++) {
		size_t n = round % 50 == 49 ? (size_t)N / 10 : (size_t)(1 + round % 7); /* many now and then, else few */
		uint32_t ids[400];
		const char *texts[400];
		size_t lens[400];
		char fresh[400][32];
		for (size_t k = 0; k < n; k++) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			ids[k] = (uint32_t)(rng % N);
			for (size_t j = 0; j < k; j++)
				if (ids[j] == ids[k])
					ids[k] = (ids[k] + 1) % N, j = (size_t)-1; /* distinct ids in a round */
			uint64_t how = rng >> 40;
			if (round >= rounds * 2 / 3 && how % 10 == 0) /* later: another id's text, or one it had */
				snprintf(fresh[k], sizeof(fresh[k]), "t%u", (unsigned)(how % N));
			else
				snprintf(fresh[k], sizeof(fresh[k]), "r%d.%u", round, (unsigned)k);
			texts[k] = fresh[k];
			lens[k] = strlen(fresh[k]);
		}
		assert_int_equal(sv_strtab_rename(&t, ids, texts, lens, n), 0);
		for (size_t k = 0; k < n; k++)
			snprintf(text[ids[k]], sizeof(text[ids[k]]), "%s", fresh[k]);
		static uint32_t order[4000];
		for (uint32_t i = 0; i < N; i++)
			order[i] = i;
		qsort(order, N, sizeof(*order), by_text_then_id);
		for (uint32_t k = 0, lowest = 0; k < N; k++) {
			uint32_t i = order[k];
			if (!k || strcmp(text[order[k - 1]], text[i]))
				lowest = i; /* the first of its text in (text, id) order */
			assert_string_equal(sv_strtab_str(&t, i), text[i]);
			assert_int_equal(sv_strtab_find(&t, text[i], strlen(text[i])), lowest);
		}
		if (round % 100 == 99)
			for (uint32_t i = 0; i < 50; i++) { /* an original text no id has any more */
				char orig[32];
				snprintf(orig, sizeof(orig), "t%u", i);
				bool held = false;
				for (uint32_t j = 0; j < N && !held; j++)
					held = !strcmp(text[j], orig);
				if (!held)
					assert_int_equal(sv_strtab_find(&t, orig, strlen(orig)), UINT32_MAX);
			}
	}
	sv_strtab_dispose(&t);
}

static void test_rename_rounds(void **state)
{
	(void)state;
	rename_rounds(4000, 1500); /* the index half full: long runs */
	rename_rounds(120, 6000);  /* a small index: runs that wrap around its end */
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_intern), cmocka_unit_test(test_growth),
					    cmocka_unit_test(test_rename), cmocka_unit_test(test_rename_rounds) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
