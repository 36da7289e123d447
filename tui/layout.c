/* SPDX-License-Identifier: MIT */
/* The stack window's layout, shared by the painter (draw.c), the mouse (commands.c), the
 * Columns dialog and Copy: which columns show at this width and how wide, which tab label is
 * at a column, the rows as text. Reads the window's state (app.c); paints nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

static const char *const tab_names[TAB_COUNT] = { "ByName", "CallTree", "Callers", "Callees", "Caller-Callee",
						  "Flame", "Notes" };

sv_rows_kind tui_tab_kind(const tui_app *a)
{
	return a->tab == TAB_BYNAME ? SV_ROWS_BYNAME : SV_ROWS_CALLTREE;
}

/* A column's drop rank here: lib/'s, except Max, which thread time shows for its longest
 * interval: it stays as long as When. */
static int drop_rank(sv_col c)
{
	return sv_column_get(c == SV_COL_MAX ? SV_COL_WHEN : c)->drop;
}

/* Columns shown for a width, in the grid's order (lib/). Name wants the width of the longest
 * name shown, as far as the columns a reader needs most leave room (Inc %, Inc, Exc %, Exc
 * and When: drop rank up to When's), and at least max(30, width/3) columns; the others
 * (counts, then Last, First, Fold) yield to it by their drop rank; hidden ones never show.
 * `width` holds each column's width. */
static int pick(const tui_app *a, const int *width, int longest, sv_col *out)
{
	sv_col all[SV_COL_COUNT], vis[SV_COL_COUNT];
	size_t na = sv_grid_all_columns(tui_tab_kind(a), tui_has_compare(a), all);
	int nv = 0;
	for (size_t i = 1; i < na; i++) /* all[0] is Name */
		if (!a->col_hidden[all[i]])
			vis[nv++] = all[i];
	int namemin = a->w / 3 > 30 ? a->w / 3 : 30;
	int essential = 0;
	for (int i = 0; i < nv; i++)
		if (drop_rank(vis[i]) <= drop_rank(SV_COL_WHEN))
			essential += width[vis[i]] + 1;
	int namewant = longest < a->w - essential ? longest : a->w - essential;
	if (namewant < namemin)
		namewant = namemin;
	int floor_n = nv < 2 ? nv : 2;
	for (;;) {
		int w = namewant;
		for (int i = 0; i < nv; i++)
			w += width[vis[i]] + 1;
		if (w <= a->w || nv <= floor_n)
			break;
		int worst = 0;
		for (int i = 1; i < nv; i++)
			if (drop_rank(vis[i]) > drop_rank(vis[worst]))
				worst = i;
		memmove(vis + worst, vis + worst + 1, (size_t)(nv - worst - 1) * sizeof(*vis));
		nv--;
	}
	out[0] = SV_COL_NAME;
	for (int i = 0; i < nv; i++)
		out[i + 1] = vis[i];
	return nv + 1;
}

void tui_tab_label(char *buf, size_t size, const tui_app *a, int t)
{
	snprintf(buf, size, t == (int)a->tab ? "[%d %s]" : " %d %s ", t + 1, tab_names[t]);
}

int tui_draw_tab_at(const tui_app *a, int x)
{
	int x0 = 0;
	for (int t = 0; t < TAB_COUNT; t++) {
		char label[40];
		tui_tab_label(label, sizeof(label), a, t);
		int w = (int)strlen(label);
		if (x >= x0 && x < x0 + w)
			return t;
		x0 += w + 1;
	}
	return -1;
}

int tui_draw_columns(tui_app *a, sv_col *shown, int *width)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	/* Scroll first, so the widths are measured on the rows that will show. */
	int grid_rows = a->h - 1 - TUI_GRID_TOP - 1;
	size_t visible = grid_rows > 0 ? (size_t)grid_rows : 0;
	if (p->cursor < p->top)
		p->top = p->cursor;
	if (visible && p->cursor >= p->top + visible)
		p->top = p->cursor - visible + 1;
	double basis = sv_grid_basis(f->view);
	for (int c = 1; c < SV_COL_COUNT; c++)
		width[c] = c == SV_COL_WHEN ? SV_WHEN_LEN : sv_text_width(sv_column_get((sv_col)c)->title) + (c == a->sort_col[a->tab]);
	int longest = 0; /* the widest name shown, with its indentation and marker */
	for (size_t i = p->top; i < f->rows.n && i < p->top + visible; i++) {
		int nw = (int)f->rows.row[i].depth * 2 + 2 + sv_text_width(sv_view_name(f->view, f->rows.row[i].name));
		if (nw > longest)
			longest = nw;
		for (int c = 1; c < SV_COL_COUNT; c++) {
			char buf[64];
			if (c == SV_COL_WHEN || a->col_hidden[c]) /* hidden ones never show */
				continue;
			sv_grid_row_cell(buf, sizeof(buf), (sv_col)c, &f->rows.row[i], basis, NULL);
			int bw = sv_text_width(buf);
			if (bw > width[c])
				width[c] = bw;
		}
	}
	for (int c = 1; c < SV_COL_COUNT; c++) {
		width[c] += a->col_delta[c];
		if (width[c] < 1)
			width[c] = 1;
	}
	int ncol = pick(a, width, longest, shown);
	int fixed = 0;
	for (int i = 1; i < ncol; i++)
		fixed += width[shown[i]] + 1;
	width[SV_COL_NAME] = a->w - fixed > 1 ? a->w - fixed : 1;
	return ncol;
}

char *tui_draw_rows_text(tui_app *a, const sv_rows *rows)
{
	sv_col shown[SV_COL_COUNT];
	int width[SV_COL_COUNT];
	int ncol = tui_draw_columns(a, shown, width);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	sv_grid_style st = { .tsv = false, .marks = false };
	int rc = sv_grid_print(f, tui_app_frame(a)->view, rows, shown, (size_t)ncol, &st);
	if (fclose(f) || rc) {
		free(text);
		return NULL;
	}
	return text;
}
