/* SPDX-License-Identifier: MIT */
/* The grid every front end prints: the columns of spec §6.2 as data (key, title, number
 * format, alignment, value), each view kind's default column order, the percent basis, one
 * cell formatter, display widths, and a padded-text printer. The CLI (text, TSV, JSON), the
 * TUI and Copy all read these, so they show the same columns, in the same order, with the
 * same numbers (perf's sort_entry and tig's get_column_data are the models).
 *
 * Ownership: the column table is static and never freed. sv_grid_print writes to a stream
 * the caller owns. */
#ifndef STACKVIEW_GRID_H
#define STACKVIEW_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "stackview/rows.h"
#include "stackview/status.h"
#include "stackview/view.h"

/* The columns in spec order (ByName's order). */
typedef enum sv_col {
	SV_COL_NAME,
	SV_COL_EXC_PCT,
	SV_COL_EXC,
	SV_COL_EXC_CT,
	SV_COL_INC_PCT,
	SV_COL_INC,
	SV_COL_INC_AVG,
	SV_COL_INC_CT,
	SV_COL_FOLD,
	SV_COL_FOLD_CT,
	SV_COL_WHEN,
	SV_COL_FIRST,
	SV_COL_LAST,
	SV_COL_MAX, /* the longest single sample (interval) under the row */
	/* A comparison of several runs (stackview/compare.h): a row's base and test means of
	 * Inc, the half width of the 95 % interval of their difference, its p value and whether
	 * the change is significant ("grew" / "shrank"). Empty on rows without one. */
	SV_COL_BASE,
	SV_COL_TEST,
	SV_COL_CI,
	SV_COL_P,
	SV_COL_SIG,
	SV_COL_COUNT
} sv_col;

typedef struct sv_column {
	const char *key;   /* the --columns and JSON name: "inc_pct" */
	const char *title; /* the grid's title: "Inc %" */
	int decimals;      /* digits after the point; -1 for the text columns (Name, When) */
	bool left;         /* left-aligned (text columns) */
	bool sortable;     /* a grid can be sorted by it (When cannot) */
	/* On a grid too narrow for every column, the columns with the highest `drop` go first
	 * (Name never goes); the others keep their order. */
	int drop;
	bool shown; /* in the default columns (Inc Avg and Fold Ct are not) */
	bool compare; /* a comparison's column: shown by default when rows carry one */
} sv_column;

/* The column's description; c < SV_COL_COUNT. */
SV_API const sv_column *sv_column_get(sv_col c);
/* The column with this key, or SV_COL_COUNT. */
SV_API sv_col sv_column_find(const char *key);

/* The columns a view shows by default, in order: ByName leads with Exc, the tree views
 * (CallTree, Callers, Callees, Caller-Callee) with Inc (spec §6.2). Returns the count. */
/* With `compare` (a comparison of several runs), Base, Test, 95 % CI, p and Sig follow Inc. */
SV_API size_t sv_grid_default_columns(sv_rows_kind kind, bool compare, sv_col out[SV_COL_COUNT]);
/* The columns a view of this source shows by default: the kind's defaults, with Max after
 * Inc Ct when the samples are intervals (thread time). */
SV_API size_t sv_grid_source_columns(const sv_source *src, sv_rows_kind kind, bool compare, sv_col out[SV_COL_COUNT]);
/* Every column, in the same kind's order (what a Columns dialog offers); the comparison's
 * only with `compare`. */
SV_API size_t sv_grid_all_columns(sv_rows_kind kind, bool compare, sv_col out[SV_COL_COUNT]);
/* A comma-separated list of column keys ("name,inc,when"). SV_EINVAL naming the unknown
 * key and listing the valid ones. */
SV_API int sv_grid_parse_columns(const char *list, sv_col out[SV_COL_COUNT], size_t *n, sv_error *err) SV_MUST_USE;

/* The percent basis of spec §6.2: |ROOT inclusive| of the view. */
SV_API double sv_grid_basis(const sv_view *v);
/* A column's number for a row's stats (percentages of basis; First/Last 0 when nothing was
 * seen; Inc Avg 0 when the count is 0). 0 for the text columns. */
SV_API double sv_column_value(sv_col c, const sv_stats *st, double basis);
/* The cell's text: numbers with thousands separators and the column's decimals, the name,
 * or `when` for the When column. */
SV_API void sv_grid_cell(char *buf, size_t size, sv_col c, const char *name, const sv_stats *st, double basis,
		  const char *when);
/* The same for a row, the comparison's columns included (their cells are empty when the row
 * has no comparison or the number cannot be computed). sv_row_value is the number a grid
 * sorts by (Sig: +1, -1, 0; a number that cannot be computed: 0). */
SV_API void sv_grid_row_cell(char *buf, size_t size, sv_col c, const sv_row *r, double basis, const char *when);
SV_API double sv_row_value(sv_col c, const sv_row *r, double basis);

/* Display width of UTF-8 text in terminal columns (wcwidth; an invalid byte or a control
 * character counts 1). */
SV_API int sv_text_width(const char *utf8);

/* Rows as padded text: a title line, then one line per row, the Name column indented two
 * spaces a level below the first row's depth (with "+ " before nested rows when `marks`),
 * numbers right-aligned, columns two spaces apart. When strings come from sv_rows_when.
 * With `tsv` the same cells tab-separated without padding or thousands separators. 0, or
 * SV_EINVAL (more than SV_COL_COUNT columns, or one that does not exist), SV_ENOMEM, SV_EIO.
 * O(rows × columns). */
typedef struct sv_grid_style {
	bool tsv;
	bool marks; /* "+ " before rows below the top (the CLI's text trees) */
	/* TSV: the metric's unit after the metric columns' titles ("Inc (ms)"); NULL = none */
	const char *unit;
} sv_grid_style;
SV_API int sv_grid_print(FILE *f, sv_view *v, const sv_rows *rows, const sv_col *cols, size_t ncols,
		  const sv_grid_style *style) SV_MUST_USE;

/* Sorting rows by a column, as clicking a grid's column title does. Within [lo, hi) of a
 * flattened list, each group of siblings (rows of one depth under the same parent) is ordered
 * by the column's value (as the cell shows it: First/Last 0 when nothing was seen), every row
 * carrying its visible subtree along; the first row's depth is the group's. Stable; numbers
 * compare signed values, names byte-wise (case-insensitive for ASCII). SV_EINVAL for a
 * column that does not sort (When). O(rows log rows). */
SV_API int sv_rows_sort(sv_rows *r, size_t lo, size_t hi, const sv_view *v, sv_col column, bool ascending) SV_MUST_USE;

#endif
