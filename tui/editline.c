/* SPDX-License-Identifier: MIT */
/* The edit line: a filter box, Find, Save As and a preset's name are typed here; Enter hands
 * the text to what asked for it. */
#include "app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/derive.h"
#include "stackview/pattern.h"

int tui_find_next(tui_app *a, bool include_current, int dir)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	if (!a->find[0]) {
		tui_status(a, "nothing to find: / starts a search");
		return TUI_REDRAW;
	}
	char rx[300];
	snprintf(rx, sizeof(rx), "@%s", a->find); /* a real regex, not a simplified pattern */
	sv_pattern *pat;
	sv_error err;
	if (sv_pattern_new(&pat, rx, strlen(rx), &err)) {
		tui_status(a, "find: %s", err.msg);
		return TUI_REDRAW;
	}
	int flags = TUI_REDRAW;
	bool found = false;
	if (a->tab == TAB_CALLTREE) {
		/* The whole tree, collapsed nodes included, in pre-order from the current node. */
		sv_node_id *all;
		size_t n;
		if (sv_view_preorder(f->view, SV_NODE_ROOT, &all, &n) == 0) {
			uint32_t cur = p->cursor < f->rows.n ? f->rows.row[p->cursor].id : 0;
			size_t start = 0;
			for (size_t i = 0; i < n; i++)
				if (all[i] == cur)
					start = i;
			for (size_t k = include_current ? 0 : 1; k <= n && !found; k++) {
				size_t i = dir < 0 ? (start + n - k % n) % n : (start + k) % n;
				const char *nm = sv_view_name(f->view, sv_view_node_name(f->view, all[i]));
				if (!sv_pattern_match(pat, nm, strlen(nm)))
					continue;
				found = true;
				flags |= tui_reveal_node(a, all[i]);
			}
			free(all);
		}
	} else {
		for (size_t k = include_current ? 0 : 1; k <= f->rows.n && !found && f->rows.n; k++) {
			size_t i = dir < 0 ? (p->cursor + f->rows.n - k % f->rows.n) % f->rows.n : (p->cursor + k) % f->rows.n;
			const char *nm = tui_row_name(a, i);
			if (nm && sv_pattern_match(pat, nm, strlen(nm))) {
				p->cursor = i;
				found = true;
			}
		}
	}
	sv_pattern_free(pat);
	tui_status(a, found ? "found '%s'" : "'%s' not found", a->find);
	return flags;
}

void tui_edit_start(tui_app *a, tui_edit_kind kind, int box, const char *text)
{
	a->mode = MODE_EDIT;
	a->edit_kind = kind;
	a->edit_box = kind == EDIT_BOX ? box : -1;
	snprintf(a->edit, sizeof(a->edit), "%s", text);
	a->edit_len = a->edit_cur = strlen(a->edit);
	a->edit_hist = -1;
}

static int tui_save_view(tui_app *a, const char *path)
{
	tui_frame *f = tui_app_frame(a);
	sv_source *out;
	if (sv_view_export_source(&out, f->view, false)) {
		tui_status(a, "out of memory");
		return TUI_REDRAW;
	}
	sv_error err;
	sv_error_clear(&err);
	if (a->save(a->save_payload, out, path, &err))
		tui_status(a, "not saved: %s", err.msg);
	else
		tui_status(a, "saved %s", path);
	sv_source_free(out);
	return TUI_REDRAW;
}

/* Left, Right, Backspace and Delete on UTF-8 text (NUL-terminated, `*len` bytes, cursor at
 * byte `*cur`), a whole character at a time; false for any other key. */
bool tui_edit_chars(char *t, size_t *len, size_t *cur, int key)
{
	size_t c = *cur, n = *len;
	if (key == KEY_LEFT || key == KEY_BACKSPACE || key == 127 || key == 8) {
		if (!c)
			return true;
		size_t from = c;
		do
			c--;
		while (c > 0 && (t[c] & 0xC0) == 0x80);
		if (key != KEY_LEFT) {
			memmove(t + c, t + from, n - from + 1);
			*len = n - (from - c);
		}
		*cur = c;
		return true;
	}
	if (key == KEY_RIGHT || key == KEY_DC) {
		if (c >= n)
			return true;
		size_t to = c + 1;
		while (to < n && (t[to] & 0xC0) == 0x80)
			to++;
		if (key == KEY_DC) {
			memmove(t + c, t + to, n - to + 1);
			*len = n - (to - c);
		} else {
			*cur = to;
		}
		return true;
	}
	return false;
}

int tui_edit_key(tui_app *a, int key)
{
	tui_frame *f = tui_app_frame(a);
	if (key == TUI_KEY_ESC) {
		a->mode = MODE_GRID;
		a->edit_box = -1;
		tui_status(a, "edit cancelled");
		return TUI_REDRAW;
	}
	if (key == '\n' || key == KEY_ENTER) {
		int box = a->edit_box;
		a->mode = MODE_GRID;
		a->edit_box = -1;
		switch (a->edit_kind) {
		case EDIT_SAVE: return a->edit[0] ? tui_save_view(a, a->edit) : TUI_REDRAW;
		case EDIT_PRESET: return tui_save_preset(a, a->edit);
		case EDIT_PRIORITY: return tui_priority_apply(a, a->edit);
		case EDIT_FIND:
			snprintf(a->find, sizeof(a->find), "%.*s", (int)sizeof(a->find) - 1, a->edit);
			return tui_find_next(a, true, 1);
		case EDIT_BOX: break;
		}
		return tui_apply_box(a, (sv_box)box, a->edit);
	}
	if (tui_edit_chars(a->edit, &a->edit_len, &a->edit_cur, key)) {
		/* moved or deleted a character */
	} else if (key == KEY_HOME || key == TUI_CTRL('a')) {
		a->edit_cur = 0;
	} else if (key == KEY_END || key == TUI_CTRL('e')) {
		a->edit_cur = a->edit_len;
	} else if (key == TUI_CTRL('u')) {
		a->edit_len = a->edit_cur = 0;
		a->edit[0] = '\0';
	} else if ((key == KEY_UP || key == KEY_DOWN) && a->edit_kind == EDIT_BOX && f->nhist) {
		/* This box's earlier values, newest first (the drop-down of PerfView's boxes). */
		int h = a->edit_hist < 0 ? (int)f->nhist : a->edit_hist;
		for (int step = key == KEY_UP ? -1 : 1;;) {
			h += step;
			if (h < 0 || h >= (int)f->nhist)
				return TUI_REDRAW;
			const char *t = sv_params_get(&f->hist[h], (sv_box)a->edit_box);
			if (strcmp(t, a->edit) != 0) {
				snprintf(a->edit, sizeof(a->edit), "%s", t);
				a->edit_len = a->edit_cur = strlen(a->edit);
				a->edit_hist = h;
				return TUI_REDRAW;
			}
		}
	} else if (key >= 0x20 && key < 0x100 && key != 0x7f && a->edit_len + 1 < sizeof(a->edit)) {
		memmove(a->edit + a->edit_cur + 1, a->edit + a->edit_cur, a->edit_len - a->edit_cur + 1);
		a->edit[a->edit_cur++] = (char)key;
		a->edit_len++;
	}
	return TUI_REDRAW;
}

/* A line being edited: scrolled sideways, a character at a time, so that the cursor (at
 * byte `cur` of `text`) stays within `avail` columns; the cursor cell in reverse video. */
void tui_draw_edit_line(tui_screen *s, int x, int y, int avail, const char *text, size_t cur, int attr)
{
	if (avail < 1)
		return;
	size_t tl = strlen(text);
	if (cur > tl) /* a line cut for display */
		cur = tl;
	char before[4096];
	snprintf(before, sizeof(before), "%.*s", (int)cur, text);
	size_t blen = strlen(before), skip = 0;
	while (skip < blen && sv_text_width(before + skip) > avail)
		do
			skip++;
		while (skip < blen && (before[skip] & 0xC0) == 0x80);
	tui_screen_text(s, x, y, text + skip, avail, attr);
	int cx = x + sv_text_width(before + skip);
	tui_screen_fill(s, cx, y, 1, TUI_A_REVERSE);
	if (text[cur]) {
		char one[8];
		size_t k = 1;
		while (k < 4 && (text[cur + k] & 0xC0) == 0x80)
			k++;
		snprintf(one, sizeof(one), "%.*s", (int)k, text + cur);
		tui_screen_text(s, cx, y, one, 2, TUI_A_REVERSE);
	}
}
