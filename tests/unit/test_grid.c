/* SPDX-License-Identifier: MIT */
/* The grid (lib/grid.c): the column table, each view's order, parsing --columns, cells and
 * the basis, and the padded-text and TSV printers every front end uses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "stackview/grid.h"
#include "stackview/rows.h"

static void test_columns(void **state)
{
	(void)state;
	assert_int_equal(sv_column_find("inc_pct"), SV_COL_INC_PCT);
	assert_int_equal(sv_column_find("Inc %"), SV_COL_COUNT); /* keys, not titles */
	assert_string_equal(sv_column_get(SV_COL_EXC_CT)->title, "Exc Ct");
	assert_false(sv_column_get(SV_COL_WHEN)->sortable);
	assert_true(sv_column_get(SV_COL_NAME)->left && sv_column_get(SV_COL_NAME)->drop == 0);
	/* ByName leads with exclusive columns, trees with inclusive ones; Inc Avg, Fold Ct and Max
	 * only on request */
	sv_col c[SV_COL_COUNT];
	size_t n = sv_grid_default_columns(SV_ROWS_BYNAME, false, c);
	assert_int_equal(n, SV_COL_COUNT - 3 - 5);
	assert_int_equal(c[0], SV_COL_NAME);
	assert_int_equal(c[1], SV_COL_EXC_PCT);
	n = sv_grid_default_columns(SV_ROWS_CALLTREE, false, c);
	assert_int_equal(c[1], SV_COL_INC_PCT);
	for (size_t i = 0; i < n; i++)
		assert_true(c[i] != SV_COL_INC_AVG && c[i] != SV_COL_FOLD_CT);
	assert_int_equal(sv_grid_all_columns(SV_ROWS_AGGTREE, true, c), SV_COL_COUNT);
	assert_int_equal(sv_grid_all_columns(SV_ROWS_AGGTREE, false, c), SV_COL_COUNT - 5);
	/* a comparison's columns follow Inc */
	n = sv_grid_default_columns(SV_ROWS_CALLTREE, true, c);
	assert_int_equal(n, SV_COL_COUNT - 3);
	assert_int_equal(c[2], SV_COL_INC);
	assert_int_equal(c[3], SV_COL_BASE);
	assert_int_equal(c[7], SV_COL_SIG);
	for (size_t i = 0; i < sv_grid_all_columns(SV_ROWS_BYNAME, false, c); i++)
		assert_false(sv_column_get(c[i])->compare);
	/* a source of intervals (thread time) shows Max after Inc Ct */
	sv_source *src;
	assert_int_equal(sv_source_new(&src, "test"), 0);
	size_t plain = sv_grid_source_columns(src, SV_ROWS_CALLTREE, false, c);
	sv_source_set_intervals(src, true);
	n = sv_grid_source_columns(src, SV_ROWS_CALLTREE, false, c);
	assert_int_equal(n, plain + 1);
	assert_int_equal(c[3], SV_COL_INC_CT);
	assert_int_equal(c[4], SV_COL_MAX);
	sv_source_free(src);
}

static void test_parse(void **state)
{
	(void)state;
	sv_col c[SV_COL_COUNT];
	size_t n;
	sv_error err;
	assert_int_equal(sv_grid_parse_columns("name, inc,when", c, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(c[2], SV_COL_WHEN);
	assert_int_equal(sv_grid_parse_columns("name,bogus", c, &n, &err), SV_EINVAL);
	assert_non_null(strstr(err.msg, "unknown column 'bogus'"));
	assert_non_null(strstr(err.msg, "inc_avg")); /* the message lists the valid keys */
	assert_int_equal(sv_grid_parse_columns(" , ", c, &n, &err), SV_EINVAL);
}

static void test_cells(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
	double basis = sv_grid_basis(v);
	assert_true(basis == 100);
	sv_stats st = { .inc = 1234.56, .exc = 2.25, .inc_ct = 3, .exc_ct = 1, .first = 1.5, .last = 2.5 };
	char buf[64];
	sv_grid_cell(buf, sizeof(buf), SV_COL_INC, NULL, &st, basis, NULL);
	assert_string_equal(buf, "1,234.6");
	sv_grid_cell(buf, sizeof(buf), SV_COL_INC_PCT, NULL, &st, basis, NULL);
	assert_string_equal(buf, "1,234.6");
	sv_grid_cell(buf, sizeof(buf), SV_COL_EXC, NULL, &st, basis, NULL);
	assert_string_equal(buf, "2.3"); /* Exc keeps one decimal, as Inc */
	sv_grid_cell(buf, sizeof(buf), SV_COL_INC_AVG, NULL, &st, basis, NULL);
	assert_string_equal(buf, "411.5");
	sv_grid_cell(buf, sizeof(buf), SV_COL_FIRST, NULL, &st, basis, NULL);
	assert_string_equal(buf, "1.500");
	sv_grid_cell(buf, sizeof(buf), SV_COL_NAME, "n", &st, basis, NULL);
	assert_string_equal(buf, "n");
	/* nothing seen: First and Last read 0 */
	sv_stats none = { .first = 1.0 / 0.0, .last = -1.0 / 0.0 };
	assert_true(sv_column_value(SV_COL_FIRST, &none, basis) == 0);
	assert_true(sv_column_value(SV_COL_EXC_PCT, &st, 0) == 0); /* no basis: no percentage */
	assert_int_equal(sv_text_width("abc"), 3);
	sv_view_free(v);
	sv_source_free(s);
}

static char *print(sv_view *v, const sv_rows *r, const sv_col *c, size_t n, bool tsv, bool marks, int expect)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	sv_grid_style style = { .tsv = tsv, .marks = marks };
	assert_int_equal(sv_grid_print(f, v, r, c, n, &style), expect);
	fclose(f);
	return text;
}

static void test_print(void **state)
{
	(void)state;
	sv_source *s = fixture_s_fold();
	sv_view *v = fixture_view(s, NULL, 0);
	sv_rows r;
	assert_int_equal(sv_rows_calltree(&r, v, NULL, 2), 0);
	const sv_col c[] = { SV_COL_NAME, SV_COL_INC_PCT, SV_COL_INC, SV_COL_EXC_CT };
	char *t = print(v, &r, c, 4, false, true, 0);
	assert_string_equal(t, "Name      Inc %    Inc  Exc Ct\n"
			       "ROOT      100.0  100.0       0\n"
			       "  + Main  100.0  100.0       0\n"
			       "    + C    90.0   90.0       1\n"
			       "    + B     9.0    9.0       0\n"
			       "    + A     1.0    1.0       0\n");
	free(t);
	t = print(v, &r, c, 2, true, false, 0);
	assert_string_equal(t, "Name\tInc %\nROOT\t100.0\nMain\t100.0\nC\t90.0\nB\t9.0\nA\t1.0\n");
	free(t);
	const sv_col bad[] = { SV_COL_COUNT };
	free(print(v, &r, bad, 1, false, false, SV_EINVAL));
	sv_rows_dispose(&r);
	sv_view_free(v);
	sv_source_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_columns), cmocka_unit_test(test_parse),
					    cmocka_unit_test(test_cells), cmocka_unit_test(test_print) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
