/* SPDX-License-Identifier: MIT */
/* A screen as a grid of cells that the TUI draws into; the terminal module copies it to
 * ncurses, the headless mode dumps it as text. Widths are measured with wcwidth.
 * Ownership: tui_screen_new returns a screen the caller frees with tui_screen_free. */
#ifndef STACKVIEW_TUI_SCREEN_H
#define STACKVIEW_TUI_SCREEN_H

#include <stdio.h>
#include <wchar.h>

#include "stackview/grid.h" /* sv_text_width: display width of UTF-8 text */

enum {
	TUI_A_NORMAL = 0,
	TUI_A_BOLD = 1,
	TUI_A_REVERSE = 2,
	TUI_A_DIM = 4,
	TUI_A_UNDERLINE = 8,
	TUI_A_NEG = 16,   /* negative numbers (diffs) */
	TUI_A_TITLE = 32, /* headers and the active tab */
	TUI_A_FLAME1 = 64,  /* flame boxes: warm colour 1; with FLAME2 set too: "shrank" (blue) */
	TUI_A_FLAME2 = 128, /* flame boxes: warm colour 2 / "grew" (red) */
};

typedef struct tui_cell {
	wchar_t ch; /* 0 = the right half of a double-width character */
	unsigned char attr;
} tui_cell;

typedef struct tui_screen {
	int w, h;
	tui_cell *cells;
} tui_screen;

tui_screen *tui_screen_new(int w, int h);
void tui_screen_free(tui_screen *s);
void tui_screen_clear(tui_screen *s);
/* Draw UTF-8 text at (x, y), at most `maxw` columns (clipped with no marker); returns the
 * columns used. */
int tui_screen_text(tui_screen *s, int x, int y, const char *utf8, int maxw, int attr);
/* The same, also telling how many bytes of utf8 were drawn (for wrapping). */
int tui_screen_text_n(tui_screen *s, int x, int y, const char *utf8, int maxw, int attr, size_t *bytes);
/* Fill columns [x, x+n) of row y with blanks in attr (e.g. a reverse-video cursor bar). */
void tui_screen_fill(tui_screen *s, int x, int y, int n, int attr);
/* The screen as text, one line per row (trailing blanks dropped); with marks, each line starts
 * with '>' when the row is a reverse-video bar (a list's or the grid's cursor), else ' '. */
void tui_screen_dump(const tui_screen *s, FILE *f, bool marks);

#endif
