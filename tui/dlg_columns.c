/* SPDX-License-Identifier: MIT */
/* The Columns dialog (show, hide, widen, narrow, sort) and sorting by a click on a column
 * title. The columns themselves are lib/'s (stackview/grid.h). */
#include "app.h"

#include <stdio.h>
#include <string.h>

static uint32_t tui_cursor_id(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	return p->cursor < f->rows.n ? f->rows.row[p->cursor].id : UINT32_MAX;
}

/* Rows in the new order, the cursor staying on its row. */
static int tui_resort(tui_app *a)
{
	a->after = (tui_after){ AFTER_ROW_ID, tui_cursor_id(a) };
	return TUI_REDRAW | TUI_REFLATTEN;
}

int tui_set_sort(tui_app *a, int col)
{
	if (col < 0 || col >= SV_COL_COUNT || !sv_column_get((sv_col)col)->sortable) {
		tui_status(a, "the When column is not sortable");
		return TUI_REDRAW;
	}
	if (a->sort_col[a->tab] == col) {
		a->sort_asc[a->tab] = !a->sort_asc[a->tab];
	} else {
		a->sort_col[a->tab] = col;
		a->sort_asc[a->tab] = col == SV_COL_NAME; /* names A to Z, numbers largest first */
	}
	tui_status(a, "sorted by %s, %s (o: columns; o there restores the view's order)", sv_column_get((sv_col)col)->title,
	       a->sort_asc[a->tab] ? "ascending" : "descending");
	return tui_resort(a);
}

static void tui_columns_place(tui_app *a)
{
	sv_col all[SV_COL_COUNT];
	tui_list_place(&a->cols, sv_grid_all_columns(tui_tab_kind(a), tui_has_compare(a), all), TUI_PICK_TOP,
		       a->h - TUI_PICK_TOP);
}

int tui_columns_key(tui_app *a, int key)
{
	sv_col all[SV_COL_COUNT];
	size_t na = sv_grid_all_columns(a->tab == TAB_BYNAME ? SV_ROWS_BYNAME : SV_ROWS_CALLTREE, tui_has_compare(a), all);
	tui_columns_place(a);
	if (tui_list_key(&a->cols, key, true))
		return TUI_REDRAW;
	sv_col c = all[a->cols.cursor < na ? a->cols.cursor : 0];
	switch (key) {
	case ' ':
		if (c != SV_COL_NAME)
			a->col_hidden[c] = !a->col_hidden[c];
		break;
	case '+': case KEY_RIGHT: case 'l':
		if (c != SV_COL_NAME && a->col_delta[c] < 200)
			a->col_delta[c]++;
		break;
	case '-': case KEY_LEFT: case 'h':
		if (c != SV_COL_NAME && a->col_delta[c] > -40)
			a->col_delta[c]--;
		break;
	case 's': case '\n': case KEY_ENTER:
		return tui_set_sort(a, (int)c);
	case 'o':
		a->sort_col[a->tab] = -1;
		return tui_resort(a);
	case 'r':
		tui_default_columns(a);
		memset(a->col_delta, 0, sizeof(a->col_delta));
		for (int t = 0; t < TAB_COUNT; t++)
			a->sort_col[t] = -1;
		return tui_resort(a);
	default: /* Esc, c, q */
		a->mode = MODE_GRID;
		break;
	}
	return TUI_REDRAW;
}

int tui_columns_mouse(tui_app *a, tui_mouse m, int x, int y)
{
	(void)x;
	tui_columns_place(a);
	switch (tui_list_mouse(&a->cols, m, y)) {
	case TUI_LIST_NONE: return 0;
	case TUI_LIST_AGAIN: return tui_columns_key(a, ' '); /* a click on the selected column shows/hides it */
	case TUI_LIST_OPEN: return tui_columns_key(a, 's');
	default: return TUI_REDRAW;
	}
}

/* The grid column under screen column x, or -1. */
int tui_column_at(tui_app *a, int x, int *x0)
{
	sv_col shown[SV_COL_COUNT];
	int width[SV_COL_COUNT];
	int n = tui_draw_columns(a, shown, width), cx = 0;
	for (int i = 0; i < n; i++) {
		if (x >= cx && x < cx + width[shown[i]] + 1) {
			*x0 = cx;
			return (int)shown[i];
		}
		cx += width[shown[i]] + 1;
	}
	return -1;
}

static void column_line(tui_app *a, tui_screen *s, size_t i, int y, int attr)
{
	sv_col all[SV_COL_COUNT];
	sv_grid_all_columns(tui_tab_kind(a), tui_has_compare(a), all);
	sv_col c = all[i];
	char wd[32], line[256];
	if (c == SV_COL_NAME)
		snprintf(wd, sizeof(wd), "the rest");
	else if (a->col_delta[c])
		snprintf(wd, sizeof(wd), "auto %+d", a->col_delta[c]);
	else
		snprintf(wd, sizeof(wd), "auto");
	const char *sort = (int)c == a->sort_col[a->tab]	 ? (a->sort_asc[a->tab] ? "ascending" : "descending")
			   : !sv_column_get(c)->sortable ? "-"
							 : "";
	const char *title = sv_column_get(c)->title;
	int pad = 9 - sv_text_width(title); /* titles may be wider in bytes than on screen ("± 95%") */
	snprintf(line, sizeof(line), "  %s  %s%*s %-11s %s", c == SV_COL_NAME || !a->col_hidden[c] ? "[x]" : "[ ]", title,
		 pad > 0 ? pad : 0, "", wd, sort);
	tui_screen_text(s, 0, y, line, a->w, attr);
}

/* The Columns dialog: one line per column. */
void tui_columns_draw(tui_app *a, tui_screen *s)
{
	tui_screen_text(s, 0, 0, "Columns: Space shows/hides, +/- (Right/Left) widens/narrows, s or Enter sorts (again: reverses),",
			a->w, TUI_A_TITLE);
	tui_screen_text(s, 0, 1, "o restores the views' own order, r resets everything, Esc closes", a->w, TUI_A_TITLE);
	tui_screen_fill(s, 0, 3, a->w, TUI_A_TITLE | TUI_A_UNDERLINE);
	tui_screen_text(s, 0, 3, "      Column    Width       Sort", a->w, TUI_A_TITLE | TUI_A_UNDERLINE);
	tui_columns_place(a);
	tui_list_draw(&a->cols, a, s, column_line);
}
