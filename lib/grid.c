/* SPDX-License-Identifier: MIT */
/* The grid: columns as data, cells, widths and the padded-text printer (see stackview/grid.h). */
#include "stackview/grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

#include "stackview/compare.h"
#include "stackview/params.h"

/* Spec §6.2. Exc is shown with one decimal like Inc (the spec's table says n0): a row whose
 * Exc and Inc are equal then reads equal, and sub-unit metrics (ms of a 0.25 ms sampler)
 * are not rounded to zero. `drop`: counts first, then Last, First, Fold, When. */
static const sv_column columns[SV_COL_COUNT] = {
	[SV_COL_NAME] = { .key = "name", .title = "Name", .decimals = -1, .left = true, .sortable = true, .drop = 0, .shown = true },
	[SV_COL_EXC_PCT] = { .key = "exc_pct", .title = "Exc %", .decimals = 1, .left = false, .sortable = true, .drop = 2, .shown = true },
	[SV_COL_EXC] = { .key = "exc", .title = "Exc", .decimals = 1, .left = false, .sortable = true, .drop = 4, .shown = true },
	[SV_COL_EXC_CT] = { .key = "exc_count", .title = "Exc Ct", .decimals = 0, .left = false, .sortable = true, .drop = 10, .shown = true },
	[SV_COL_INC_PCT] = { .key = "inc_pct", .title = "Inc %", .decimals = 1, .left = false, .sortable = true, .drop = 1, .shown = true },
	[SV_COL_INC] = { .key = "inc", .title = "Inc", .decimals = 1, .left = false, .sortable = true, .drop = 3, .shown = true },
	[SV_COL_INC_AVG] = { .key = "inc_avg", .title = "Inc Avg", .decimals = 1, .left = false, .sortable = true, .drop = 12, .shown = false },
	[SV_COL_INC_CT] = { .key = "inc_count", .title = "Inc Ct", .decimals = 0, .left = false, .sortable = true, .drop = 9, .shown = true },
	[SV_COL_FOLD] = { .key = "fold", .title = "Fold", .decimals = 0, .left = false, .sortable = true, .drop = 6, .shown = true },
	[SV_COL_FOLD_CT] = { .key = "fold_count", .title = "Fold Ct", .decimals = 0, .left = false, .sortable = true, .drop = 11, .shown = false },
	[SV_COL_WHEN] = { .key = "when", .title = "When", .decimals = -1, .left = true, .sortable = false, .drop = 5, .shown = true },
	[SV_COL_FIRST] = { .key = "first", .title = "First", .decimals = 3, .left = false, .sortable = true, .drop = 7, .shown = true },
	[SV_COL_LAST] = { .key = "last", .title = "Last", .decimals = 3, .left = false, .sortable = true, .drop = 8, .shown = true },
	[SV_COL_MAX] = { .key = "max", .title = "Max", .decimals = 3, .left = false, .sortable = true, .drop = 9, .shown = false },
	[SV_COL_BASE] = { .key = "base", .title = "Base", .decimals = 1, .left = false, .sortable = true, .drop = 4, .compare = true },
	[SV_COL_TEST] = { .key = "test", .title = "Test", .decimals = 1, .left = false, .sortable = true, .drop = 4, .compare = true },
	[SV_COL_CI] = { .key = "ci", .title = "\u00b1 95%", .decimals = 1, .left = false, .sortable = true, .drop = 3, .compare = true },
	[SV_COL_P] = { .key = "p", .title = "p", .decimals = 3, .left = false, .sortable = true, .drop = 4, .compare = true },
	[SV_COL_SIG] = { .key = "sig", .title = "Sig", .decimals = -1, .left = true, .sortable = true, .drop = 2, .compare = true },
};

/* Every column in each kind's order; Inc Avg and Fold Ct are shown on request only (--columns,
 * the Columns dialog). */
static const sv_col byname_order[] = { SV_COL_NAME, SV_COL_EXC_PCT, SV_COL_EXC, SV_COL_EXC_CT, SV_COL_INC_PCT,
				       SV_COL_INC, SV_COL_BASE, SV_COL_TEST, SV_COL_CI, SV_COL_P, SV_COL_SIG, SV_COL_INC_AVG, SV_COL_INC_CT, SV_COL_MAX, SV_COL_FOLD, SV_COL_FOLD_CT,
				       SV_COL_WHEN, SV_COL_FIRST, SV_COL_LAST };
static const sv_col tree_order[] = { SV_COL_NAME, SV_COL_INC_PCT, SV_COL_INC, SV_COL_BASE, SV_COL_TEST, SV_COL_CI,
				     SV_COL_P, SV_COL_SIG, SV_COL_INC_AVG, SV_COL_INC_CT, SV_COL_MAX,
				     SV_COL_EXC_PCT, SV_COL_EXC, SV_COL_EXC_CT, SV_COL_FOLD, SV_COL_FOLD_CT,
				     SV_COL_WHEN, SV_COL_FIRST, SV_COL_LAST };

const sv_column *sv_column_get(sv_col c)
{
	return &columns[c < SV_COL_COUNT ? c : SV_COL_NAME];
}

sv_col sv_column_find(const char *key)
{
	for (int i = 0; i < SV_COL_COUNT; i++)
		if (!strcmp(columns[i].key, key))
			return (sv_col)i;
	return SV_COL_COUNT;
}

size_t sv_grid_all_columns(sv_rows_kind kind, bool compare, sv_col out[SV_COL_COUNT])
{
	const sv_col *o = kind == SV_ROWS_BYNAME ? byname_order : tree_order;
	size_t n = 0;
	for (size_t i = 0; i < SV_COL_COUNT; i++)
		if (compare || !columns[o[i]].compare)
			out[n++] = o[i];
	return n;
}

size_t sv_grid_default_columns(sv_rows_kind kind, bool compare, sv_col out[SV_COL_COUNT])
{
	const sv_col *o = kind == SV_ROWS_BYNAME ? byname_order : tree_order;
	size_t n = 0;
	for (size_t i = 0; i < SV_COL_COUNT; i++)
		if (columns[o[i]].shown || (compare && columns[o[i]].compare))
			out[n++] = o[i];
	return n;
}

size_t sv_grid_source_columns(const sv_source *src, sv_rows_kind kind, bool compare, sv_col out[SV_COL_COUNT])
{
	size_t n = sv_grid_default_columns(kind, compare, out);
	if (!src || !sv_source_intervals(src))
		return n;
	for (size_t i = 0; i < n; i++)
		if (out[i] == SV_COL_INC_CT) {
			memmove(out + i + 2, out + i + 1, (n - i - 1) * sizeof(*out));
			out[i + 1] = SV_COL_MAX;
			return n + 1;
		}
	out[n] = SV_COL_MAX;
	return n + 1;
}

int sv_grid_parse_columns(const char *list, sv_col out[SV_COL_COUNT], size_t *n, sv_error *err)
{
	*n = 0;
	const char *p = list;
	while (*p) {
		while (*p == ' ' || *p == ',')
			p++;
		size_t len = strcspn(p, ", ");
		if (!len)
			break;
		char key[32];
		sv_col c = SV_COL_COUNT;
		if (len < sizeof(key)) {
			memcpy(key, p, len);
			key[len] = '\0';
			c = sv_column_find(key);
		}
		if (c == SV_COL_COUNT) {
			char valid[256] = "";
			for (int i = 0; i < SV_COL_COUNT; i++)
				snprintf(valid + strlen(valid), sizeof(valid) - strlen(valid), "%s%s", i ? ", " : "",
					 columns[i].key);
			return sv_error_set(err, SV_EINVAL, "unknown column '%.*s'; the columns are: %s", (int)(len < 64 ? len : 64),
					    p, valid);
		}
		if (*n < SV_COL_COUNT)
			out[(*n)++] = c;
		p += len;
	}
	if (!*n)
		return sv_error_set(err, SV_EINVAL, "no columns named");
	return 0;
}

double sv_grid_basis(const sv_view *v)
{
	return fabs(sv_view_node_stats(v, SV_NODE_ROOT).inc);
}

double sv_column_value(sv_col c, const sv_stats *st, double basis)
{
	switch (c) {
	case SV_COL_EXC_PCT: return basis != 0 ? st->exc * 100.0 / basis : 0;
	case SV_COL_EXC: return st->exc;
	case SV_COL_EXC_CT: return st->exc_ct;
	case SV_COL_INC_PCT: return basis != 0 ? st->inc * 100.0 / basis : 0;
	case SV_COL_INC: return st->inc;
	case SV_COL_INC_AVG: return st->inc_ct != 0 ? st->inc / st->inc_ct : 0;
	case SV_COL_INC_CT: return st->inc_ct;
	case SV_COL_FOLD: return st->fold;
	case SV_COL_FOLD_CT: return st->fold_ct;
	case SV_COL_FIRST: return isfinite(st->first) ? st->first : 0;
	case SV_COL_LAST: return isfinite(st->last) ? st->last : 0;
	case SV_COL_MAX: return isfinite(st->max) ? st->max : 0;
	default: return 0;
	}
}

/* s into buf as snprintf "%s" would, without parsing a format (a grid's cells are millions). */
static void copy_text(char *buf, size_t size, const char *s)
{
	if (!size)
		return;
	size_t n = strnlen(s, size - 1);
	memcpy(buf, s, n);
	buf[n] = '\0';
}

void sv_grid_cell(char *buf, size_t size, sv_col c, const char *name, const sv_stats *st, double basis,
		  const char *when)
{
	if (c == SV_COL_NAME)
		copy_text(buf, size, name ? name : "");
	else if (c == SV_COL_WHEN)
		copy_text(buf, size, when ? when : "");
	else if (c < SV_COL_COUNT)
		sv_format_number(buf, size, sv_column_value(c, st, basis), columns[c].decimals);
	else if (size)
		buf[0] = '\0';
}

double sv_row_value(sv_col c, const sv_row *r, double basis)
{
	if (!columns[c < SV_COL_COUNT ? c : SV_COL_NAME].compare)
		return sv_column_value(c, r->st, basis);
	const sv_cmpstat *s = r->cmp;
	if (!s)
		return 0;
	double x = c == SV_COL_BASE ? s->base
		   : c == SV_COL_TEST ? s->test
		   : c == SV_COL_CI ? (s->hi - s->lo) / 2
		   : c == SV_COL_P ? s->p
				  : s->sig;
	return isnan(x) ? 0 : x;
}

void sv_grid_row_cell(char *buf, size_t size, sv_col c, const sv_row *r, double basis, const char *when)
{
	if (c >= SV_COL_COUNT || !columns[c].compare) {
		sv_grid_cell(buf, size, c, NULL, r->st, basis, when);
		return;
	}
	const sv_cmpstat *s = r->cmp;
	if (size)
		buf[0] = '\0';
	if (!s)
		return;
	if (c == SV_COL_SIG) {
		snprintf(buf, size, "%s", s->sig > 0 ? "grew" : s->sig < 0 ? "shrank" : "");
		return;
	}
	double x = c == SV_COL_BASE ? s->base : c == SV_COL_TEST ? s->test : c == SV_COL_CI ? (s->hi - s->lo) / 2 : s->p;
	if (!isnan(x))
		sv_format_number(buf, size, x, columns[c].decimals);
}

int sv_text_width(const char *s)
{
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	int w = 0;
	size_t len = strlen(s);
	while (len) {
		if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f) { /* ASCII: one column */
			w++;
			s++;
			len--;
			continue;
		}
		wchar_t wc;
		size_t k = mbrtowc(&wc, s, len, &st);
		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			memset(&st, 0, sizeof(st));
			w++;
			s++;
			len--;
			continue;
		}
		int cw = wcwidth(wc);
		w += cw < 0 ? 1 : cw;
		s += k;
		len -= k;
	}
	return w;
}

/* Indentation of a row's name: two spaces a level below the first row, at most 500 levels
 * (a 100,000-deep stack would otherwise print lines of 200 KB), plus "+ " with marks. */
#define GRID_MAX_INDENT 500
static int indent_of(const sv_rows *rows, size_t i)
{
	uint32_t base = rows->n ? rows->row[0].depth : 0;
	uint32_t d = rows->row[i].depth > base ? rows->row[i].depth - base : 0;
	return (int)(d > GRID_MAX_INDENT ? GRID_MAX_INDENT : d);
}

/* A name as a terminal may show it: control characters (ESC sequences, BEL, ...) become
 * \xHH, as git and perf report quote them; s itself when it has none. */
static const char *clean(const char *s, char *buf, size_t size)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p && *p >= 0x20 && *p != 0x7f)
		p++;
	if (!*p)
		return s;
	size_t o = 0;
	for (p = (const unsigned char *)s; *p && o + 5 < size; p++) {
		if (*p < 0x20 || *p == 0x7f)
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", *p);
		else
			buf[o++] = (char)*p;
	}
	buf[o] = '\0';
	return buf;
}

static void put_tsv(FILE *f, const char *s, bool number)
{
	for (; *s; s++) {
		if (number && *s == ',')
			continue; /* TSV is for machines: no thousands separators */
		if ((unsigned char)*s < 0x20 || *s == 0x7f) /* a tab or newline would break the row */
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
}

/* The printout reads each row's stats and name where they are (ByName's rows are in the
 * order of their values, not of their names): fetched some rows ahead. */
static void prefetch_row(const sv_view *v, const sv_rows *rows, size_t i)
{
	if (i + 16 < rows->n) {
		const char *st = (const char *)rows->row[i + 16].st;
		__builtin_prefetch(st);
		__builtin_prefetch(st + 64);
	}
	if (i + 8 < rows->n)
		__builtin_prefetch(sv_view_name(v, rows->row[i + 8].name));
}

int sv_grid_print(FILE *f, sv_view *v, const sv_rows *rows, const sv_col *cols, size_t ncols,
		  const sv_grid_style *style)
{
	if (ncols > SV_COL_COUNT)
		return SV_EINVAL;
	for (size_t k = 0; k < ncols; k++)
		if (cols[k] >= SV_COL_COUNT)
			return SV_EINVAL;
	double basis = sv_grid_basis(v);
	bool want_when = false;
	for (size_t k = 0; k < ncols; k++)
		want_when |= cols[k] == SV_COL_WHEN;
	/* Every row's When made possible before anything is printed (what it needs is computed
	 * here: the histograms, their scale), then made as each row is printed: always
	 * SV_WHEN_LEN characters. */
	char when[SV_WHEN_LEN + 1] = "";
	if (want_when && rows->n && (sv_rows_when_ahead(v, rows) || sv_rows_when(when, v, rows, 0)))
		return SV_ENOMEM;
	char buf[512], namebuf[4096];
	if (style->tsv) {
		for (size_t k = 0; k < ncols; k++) {
			sv_col c = cols[k];
			bool metric = c == SV_COL_EXC || c == SV_COL_INC || c == SV_COL_INC_AVG || c == SV_COL_FOLD ||
				      c == SV_COL_BASE || c == SV_COL_TEST || c == SV_COL_CI;
			fprintf(f, "%s%s", k ? "\t" : "", columns[c].title);
			if (metric && style->unit)
				fprintf(f, " (%s)", style->unit);
		}
		fputc('\n', f);
		for (size_t i = 0; i < rows->n; i++) {
			const sv_row *r = &rows->row[i];
			for (size_t k = 0; k < ncols; k++) {
				if (k)
					fputc('\t', f);
				if (cols[k] == SV_COL_NAME) {
					put_tsv(f, sv_view_name(v, r->name), false);
					continue;
				}
				if (cols[k] == SV_COL_WHEN && sv_rows_when(when, v, rows, i))
					return SV_ENOMEM;
				sv_grid_row_cell(buf, sizeof(buf), cols[k], r, basis, when);
				put_tsv(f, buf, true);
			}
			fputc('\n', f);
		}
		return ferror(f) ? SV_EIO : 0;
	}
	/* Widths. A number column's cells are formatted once, when printed: a cell's width grows
	 * with |value| (rounding to fixed decimals keeps the order; a value that rounds to zero
	 * loses its sign), so the widest cells are those of the largest value and the most
	 * negative one. The names' widths are kept for the printing. */
	int width[SV_COL_COUNT] = { 0 };
	double hi[SV_COL_COUNT], lo[SV_COL_COUNT];
	int *namew = rows->n ? malloc(rows->n * sizeof(*namew)) : NULL;
	if (rows->n && !namew)
		return SV_ENOMEM;
	for (size_t k = 0; k < ncols; k++) {
		width[k] = sv_text_width(columns[cols[k]].title);
		hi[k] = 0, lo[k] = 0;
	}
	for (size_t i = 0; i < rows->n; i++) {
		prefetch_row(v, rows, i);
		for (size_t k = 0; k < ncols; k++) {
			sv_col c = cols[k];
			int w;
			if (c == SV_COL_NAME) {
				int d = indent_of(rows, i);
				char nb[4096];
				namew[i] = sv_text_width(clean(sv_view_name(v, rows->row[i].name), nb, sizeof(nb)));
				w = 2 * d + (style->marks && d ? 2 : 0) + namew[i];
			} else if (c == SV_COL_WHEN) {
				w = (int)strlen(when); /* as every row's */
			} else if (!columns[c].compare) {
				double x = sv_column_value(c, rows->row[i].st, basis);
				if (!isfinite(x)) /* NaN, Infinity: its own text */
					sv_grid_row_cell(buf, sizeof(buf), c, &rows->row[i], basis, NULL);
				else if (x > hi[k])
					hi[k] = x;
				else if (x < lo[k])
					lo[k] = x;
				w = isfinite(x) ? 0 : (int)strlen(buf);
			} else {
				sv_grid_row_cell(buf, sizeof(buf), c, &rows->row[i], basis, NULL);
				w = sv_text_width(buf);
			}
			if (w > width[k])
				width[k] = w;
		}
	}
	for (size_t k = 0; k < ncols; k++) {
		sv_col c = cols[k];
		if (!rows->n || c == SV_COL_NAME || c == SV_COL_WHEN || columns[c].compare)
			continue;
		for (int e = 0; e < 2; e++) {
			sv_format_number(buf, sizeof(buf), e ? lo[k] : hi[k], columns[c].decimals);
			if ((int)strlen(buf) > width[k])
				width[k] = (int)strlen(buf);
		}
	}
	/* Each line is made in `line` and written at once. */
	size_t cap = 4096, len;
	char *line = malloc(cap);
	if (!line) {
		free(namew);
		return SV_ENOMEM;
	}
	for (size_t i = 0; i <= rows->n; i++) { /* line 0: the titles */
		const sv_row *r = i ? &rows->row[i - 1] : NULL;
		if (r)
			prefetch_row(v, rows, i - 1);
		len = 0;
		for (size_t k = 0; k < ncols; k++) {
			const sv_column *c = &columns[cols[k]];
			const char *cell = buf;
			int ind = 0, cw;
			const char *mark = "";
			if (!r) {
				cell = c->title;
				cw = sv_text_width(cell);
			} else if (cols[k] == SV_COL_NAME) {
				ind = indent_of(rows, i - 1);
				mark = style->marks && ind ? "+ " : "";
				cell = clean(sv_view_name(v, r->name), namebuf, sizeof(namebuf));
				cw = namew[i - 1];
			} else {
				if (cols[k] == SV_COL_WHEN && sv_rows_when(when, v, rows, i - 1)) {
					free(line);
					free(namew);
					return SV_ENOMEM;
				}
				sv_grid_row_cell(buf, sizeof(buf), cols[k], r, basis, when);
				cw = cols[k] == SV_COL_WHEN || c->compare ? sv_text_width(buf) : (int)strlen(buf);
			}
			size_t ml = strlen(mark), cl = strlen(cell);
			int pad = width[k] - (2 * ind + (int)ml + cw);
			if (pad < 0)
				pad = 0;
			size_t need = len + 2 + (size_t)pad + 2 * (size_t)ind + ml + cl + 2;
			if (need > cap) {
				size_t nc = cap;
				while (nc < need)
					nc *= 2;
				char *nl = realloc(line, nc);
				if (!nl) {
					free(line);
					free(namew);
					return SV_ENOMEM;
				}
				line = nl, cap = nc;
			}
			if (k)
				line[len++] = ' ', line[len++] = ' ';
			if (!c->left)
				memset(line + len, ' ', (size_t)pad), len += (size_t)pad;
			memset(line + len, ' ', 2 * (size_t)ind), len += 2 * (size_t)ind;
			memcpy(line + len, mark, ml), len += ml;
			memcpy(line + len, cell, cl), len += cl;
			if (c->left && k + 1 < ncols)
				memset(line + len, ' ', (size_t)pad), len += (size_t)pad;
		}
		line[len++] = '\n';
		fwrite(line, 1, len, f);
	}
	free(line);
	free(namew);
	return ferror(f) ? SV_EIO : 0;
}

/* ---- sorting ---- */

typedef struct block {
	size_t start, len;
	const sv_row *head;
} block;

typedef struct sort_ctx {
	const sv_view *v;
	sv_col col;
	int dir; /* 1 ascending, -1 descending */
} sort_ctx;

static int cmp_block(const sort_ctx *c, const block *a, const block *b)
{
	int r;
	if (c->col == SV_COL_NAME) {
		r = strcasecmp(sv_view_name(c->v, a->head->name), sv_view_name(c->v, b->head->name));
	} else {
		/* any positive basis orders percentages as their values */
		double x = sv_row_value(c->col, a->head, 1), y = sv_row_value(c->col, b->head, 1);
		r = x < y ? -1 : x > y ? 1 : 0;
	}
	r *= c->dir;
	if (!r) /* stable: the earlier row first */
		r = a->start < b->start ? -1 : a->start > b->start ? 1 : 0;
	return r;
}

/* Merge sort of blocks (the number of siblings can be large; recursion depth is log n). */
static void sort_blocks(const sort_ctx *c, block *b, block *tmp, size_t n)
{
	if (n < 2)
		return;
	size_t m = n / 2;
	sort_blocks(c, b, tmp, m);
	sort_blocks(c, b + m, tmp, n - m);
	size_t i = 0, j = m, k = 0;
	while (i < m && j < n)
		tmp[k++] = cmp_block(c, &b[j], &b[i]) < 0 ? b[j++] : b[i++];
	while (i < m)
		tmp[k++] = b[i++];
	while (j < n)
		tmp[k++] = b[j++];
	memcpy(b, tmp, n * sizeof(*b));
}

/* Sort the sibling blocks that start at `first` and tile [first, end): each is a row and its
 * subtree, len[i - lo] long. */
static void sort_children(sv_rows *r, size_t lo, const size_t *len, size_t first, size_t end, const sort_ctx *c,
			  block *kids, block *kt, sv_row *rows)
{
	size_t nk = 0;
	for (size_t i = first; i < end; i += len[i - lo])
		kids[nk++] = (block){ i, len[i - lo], &r->row[i] };
	if (nk < 2)
		return;
	sort_blocks(c, kids, kt, nk);
	size_t w = 0;
	for (size_t i = 0; i < nk; i++) {
		memcpy(rows + w, &r->row[kids[i].start], kids[i].len * sizeof(*rows));
		w += kids[i].len;
	}
	memcpy(&r->row[first], rows, w * sizeof(*rows));
}

int sv_rows_sort(sv_rows *r, size_t lo, size_t hi, const sv_view *v, sv_col key, bool ascending)
{
	if (key >= SV_COL_COUNT || !columns[key].sortable)
		return SV_EINVAL;
	if (hi > r->n)
		hi = r->n;
	if (hi <= lo + 1)
		return 0;
	sort_ctx c = { v, key, ascending ? 1 : -1 };
	size_t n = hi - lo;
	size_t *len = malloc(n * sizeof(*len)), *open = malloc(n * sizeof(*open));
	block *kids = malloc(n * sizeof(*kids)), *kt = malloc(n * sizeof(*kt));
	sv_row *rows = malloc(n * sizeof(*rows));
	int rc = 0;
	if (!len || !open || !kids || !kt || !rows) {
		rc = SV_ENOMEM;
		goto out;
	}
	/* Each row's block (the row and its subtree) ends where a row no deeper begins. */
	size_t sp = 0;
	for (size_t i = lo; i < hi; i++) {
		while (sp && r->row[open[sp - 1]].depth >= r->row[i].depth) {
			sp--;
			len[open[sp] - lo] = i - open[sp];
		}
		open[sp++] = i;
	}
	while (sp) {
		sp--;
		len[open[sp] - lo] = hi - open[sp];
	}
	/* Children of each row, the last rows first: a subtree lies after its row, so sorting
	 * inside it moves neither that row nor the blocks its ancestors will read. Then the
	 * top-level rows themselves. */
	for (size_t k = hi; k-- > lo;)
		if (len[k - lo] > 2)
			sort_children(r, lo, len, k + 1, k + len[k - lo], &c, kids, kt, rows);
	sort_children(r, lo, len, lo, hi, &c, kids, kt, rows);
out:
	free(len);
	free(open);
	free(kids);
	free(kt);
	free(rows);
	return rc;
}
