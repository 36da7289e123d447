/* SPDX-License-Identifier: MIT */
/* The dialogs' list widget (see tui_list in app.h): keys, mouse and painting shared by the
 * process picker, Presets, Columns and the help screen. */
#include "app.h"

static size_t page(const tui_list *l)
{
	return l->rows > 1 ? (size_t)l->rows - 1 : 1;
}

/* The last position the cursor (or, scrolling only, the top line) may take. */
static size_t last(const tui_list *l)
{
	if (!l->n)
		return 0;
	if (l->scroll_only)
		return l->rows > 0 && l->n > (size_t)l->rows ? l->n - (size_t)l->rows : 0;
	return l->n - 1;
}

static void move_to(tui_list *l, size_t at)
{
	size_t *p = l->scroll_only ? &l->top : &l->cursor;
	*p = at > last(l) ? last(l) : at;
}

bool tui_list_key(tui_list *l, int key, bool vi)
{
	size_t at = l->scroll_only ? l->top : l->cursor;
	if (key == KEY_UP || (vi && key == 'k'))
		move_to(l, at ? at - 1 : 0);
	else if (key == KEY_DOWN || (vi && key == 'j'))
		move_to(l, at + 1);
	else if (key == KEY_PPAGE)
		move_to(l, at > page(l) ? at - page(l) : 0);
	else if (key == KEY_NPAGE)
		move_to(l, at + page(l));
	else if (key == KEY_HOME)
		move_to(l, 0);
	else if (key == KEY_END)
		move_to(l, last(l));
	else
		return false;
	return true;
}

int tui_list_mouse(tui_list *l, tui_mouse m, int y)
{
	if (m == TUI_MOUSE_WHEEL_UP || m == TUI_MOUSE_WHEEL_DOWN) {
		for (int i = 0; i < 3; i++)
			tui_list_key(l, m == TUI_MOUSE_WHEEL_UP ? KEY_UP : KEY_DOWN, false);
		return TUI_LIST_MOVED;
	}
	if (y < l->y0 || y >= l->y0 + l->rows || l->scroll_only)
		return TUI_LIST_NONE;
	size_t i = l->top + (size_t)(y - l->y0);
	if (i >= l->n)
		return TUI_LIST_NONE;
	bool again = i == l->cursor;
	l->cursor = i;
	if (m == TUI_MOUSE_DOUBLE)
		return TUI_LIST_OPEN;
	return again ? TUI_LIST_AGAIN : TUI_LIST_MOVED;
}

void tui_list_place(tui_list *l, size_t n, int y0, int rows)
{
	l->n = n;
	l->y0 = y0;
	l->rows = rows > 0 ? rows : 0;
}

void tui_list_draw(tui_list *l, tui_app *a, tui_screen *s, void (*line)(tui_app *a, tui_screen *s, size_t i, int y, int attr))
{
	int y0 = l->y0;
	if (l->n && l->cursor >= l->n)
		l->cursor = l->n - 1;
	if (l->scroll_only) {
		if (l->top > last(l))
			l->top = last(l);
	} else {
		if (l->cursor < l->top)
			l->top = l->cursor;
		if (l->rows && l->cursor >= l->top + (size_t)l->rows)
			l->top = l->cursor - (size_t)l->rows + 1;
	}
	for (size_t i = l->top; i < l->n && (int)(i - l->top) < l->rows; i++) {
		int y = y0 + (int)(i - l->top);
		int attr = !l->scroll_only && i == l->cursor ? TUI_A_REVERSE : 0;
		if (attr)
			tui_screen_fill(s, 0, y, a->w, attr);
		line(a, s, i, y, attr);
	}
}
