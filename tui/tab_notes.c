/* SPDX-License-Identifier: MIT */
/* The Notes tab: the source's notes, wrapped; Enter edits them (one screen row per line), Esc
 * or F2 keeps them. */
#include "app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOTES_MAX (1u << 20)

int tui_notes_command(tui_app *a, tui_command c)
{
	return c == CMD_ENTER ? tui_notes_start(a) : TUI_NOT_MINE;
}

int tui_notes_start(tui_app *a)
{
	const char *n = sv_source_notes(tui_app_frame(a)->src);
	free(a->notes);
	a->notes = strdup(n);
	if (!a->notes) {
		tui_status(a, "out of memory");
		return TUI_REDRAW;
	}
	a->notes_len = a->notes_cur = strlen(n);
	a->mode = MODE_NOTES;
	tui_status(a, "editing notes: Esc or F2 keeps them (Ctrl-S saves them with the view)");
	return TUI_REDRAW;
}

static size_t line_start(const char *t, size_t at)
{
	while (at > 0 && t[at - 1] != '\n')
		at--;
	return at;
}

static size_t line_end(const char *t, size_t len, size_t at)
{
	while (at < len && t[at] != '\n')
		at++;
	return at;
}

/* Byte offset of character column `col` in the line starting at `ls`. */
static size_t at_column(const char *t, size_t len, size_t ls, size_t col)
{
	size_t le = line_end(t, len, ls), at = ls;
	for (size_t c = 0; c < col && at < le; c++)
		do
			at++;
		while (at < le && (t[at] & 0xC0) == 0x80);
	return at;
}

static size_t column_of(const char *t, size_t at)
{
	size_t col = 0;
	for (size_t i = line_start(t, at); i < at; i++)
		if ((t[i] & 0xC0) != 0x80)
			col++;
	return col;
}

int tui_notes_key(tui_app *a, int key)
{
	char *t = a->notes;
	size_t len = a->notes_len, cur = a->notes_cur;
	if (key == TUI_KEY_ESC || key == KEY_F(2)) {
		a->mode = MODE_GRID;
		if (sv_source_set_notes(tui_app_frame(a)->src, t))
			tui_status(a, "out of memory: notes not kept");
		else
			tui_status(a, "notes kept (Ctrl-S saves them with the view)");
		return TUI_REDRAW;
	}
	if (tui_edit_chars(t, &len, &cur, key)) {
		/* moved or deleted a character */
	} else if (key == KEY_HOME || key == TUI_CTRL('a')) {
		cur = line_start(t, cur);
	} else if (key == KEY_END || key == TUI_CTRL('e')) {
		cur = line_end(t, len, cur);
	} else if (key == KEY_UP || key == KEY_DOWN) {
		size_t ls = line_start(t, cur), col = column_of(t, cur);
		if (key == KEY_UP && ls > 0)
			cur = at_column(t, len, line_start(t, ls - 1), col);
		else if (key == KEY_DOWN) {
			size_t le = line_end(t, len, cur);
			if (le < len)
				cur = at_column(t, len, le + 1, col);
		}
	} else if ((key == '\n' || key == KEY_ENTER || (key >= 0x20 && key < 0x100 && key != 0x7f)) && len + 1 < NOTES_MAX) {
		char *nt = realloc(t, len + 2);
		if (!nt) {
			tui_status(a, "out of memory");
			return TUI_REDRAW;
		}
		t = a->notes = nt;
		memmove(t + cur + 1, t + cur, len - cur + 1);
		t[cur++] = key == KEY_ENTER ? '\n' : (char)key;
		len++;
	}
	a->notes_len = len;
	a->notes_cur = cur;
	return TUI_REDRAW;
}

/* The notes while they are edited: one screen row per line (no wrapping, so the cursor
 * maps to a cell), the cursor's line scrolled sideways when it is long. */
static void draw_notes_edit(tui_app *a, tui_screen *s, int y0, int y1)
{
	const char *t = a->notes;
	size_t cur = a->notes_cur, line = 0;
	for (size_t i = 0; i < cur; i++)
		line += t[i] == '\n';
	int rows = y1 - y0;
	if (line < a->notes_top)
		a->notes_top = line;
	if (rows > 0 && line >= a->notes_top + (size_t)rows)
		a->notes_top = line - (size_t)rows + 1;
	const char *p = t;
	for (size_t l = 0; l < a->notes_top && p; l++) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	for (int y = y0; p && y < y1; y++) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char buf[4096];
		snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) - 1 ? n : sizeof(buf) - 1), p);
		bool here = (size_t)(p - t) <= cur && cur <= (size_t)(p - t) + n;
		if (here)
			tui_draw_edit_line(s, 1, y, a->w - 2, buf, cur - (size_t)(p - t), TUI_A_NORMAL);
		else
			tui_screen_text(s, 1, y, buf, a->w - 2, TUI_A_NORMAL);
		p = e ? e + 1 : NULL;
	}
}

void tui_notes_draw(tui_app *a, tui_screen *s, int y0, int y1)
{
	if (a->mode == MODE_NOTES) {
		draw_notes_edit(a, s, y0, y1);
		return;
	}
	const char *n = sv_source_notes(tui_app_frame(a)->src);
	if (!n[0]) {
		tui_screen_text(s, 1, y0, "(no notes: Enter writes some)", a->w - 1, TUI_A_DIM);
		return;
	}
	int y = y0;
	const char *p = n;
	while (*p && y < y1) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char line[4096];
		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) - 1 ? len : sizeof(line) - 1), p);
		const char *q = line;
		do { /* wrap at the screen width, at a blank when there is one */
			size_t bytes;
			tui_screen_text_n(s, 1, y, q, a->w - 2, TUI_A_NORMAL, &bytes);
			size_t b = bytes;
			while (q[bytes] && b > 0 && q[b - 1] != ' ')
				b--;
			if (q[bytes] && b > 0) { /* redraw only the words that fit */
				char part[4096];
				snprintf(part, sizeof(part), "%.*s", (int)b, q);
				tui_screen_fill(s, 1, y, a->w - 2, TUI_A_NORMAL);
				tui_screen_text(s, 1, y, part, a->w - 2, TUI_A_NORMAL);
				bytes = b;
			}
			y++;
			q += bytes ? bytes : strlen(q);
		} while (*q && y < y1);
		p = e ? e + 1 : p + len;
	}
}
