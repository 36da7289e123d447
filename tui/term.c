/* SPDX-License-Identifier: MIT */
/* Terminal ownership (see term.h). Its state is the only mutable global of the TUI, as a
 * terminal is process-wide; the program's signal handlers call tui_term_restore. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "term.h"

#include <curses.h>
#include <locale.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "keymap.h"
#include "tui.h"

static volatile sig_atomic_t term_active;
static bool term_color;
static int pending[8];
static int npending;

enum { PAIR_TITLE = 1, PAIR_NEG, PAIR_DIM, PAIR_FLAME1, PAIR_FLAME2, PAIR_SHRANK };

void tui_term_restore(void)
{
	if (term_active) {
		term_active = 0;
		endwin();
	}
}

int tui_term_start(sv_error *err)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return sv_error_set(err, SV_EUNSUPPORTED,
				    "the terminal UI needs a terminal (use a subcommand such as calltree)");
	setlocale(LC_ALL, "");
	if (!getenv("ESCDELAY"))
		set_escdelay(25);
	if (!initscr())
		return sv_error_set(err, SV_EIO, "cannot initialise the terminal");
	term_active = 1;
	atexit(tui_term_restore);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	/* Clicks, double clicks and the wheel (Shift-drag still selects text in most terminals). */
	mmask_t want = BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED;
#ifdef BUTTON5_PRESSED
	want |= BUTTON5_PRESSED;
#endif
	mousemask(want, NULL);
	mouseinterval(250);
	curs_set(0);
	const char *nc = getenv("NO_COLOR");
	term_color = has_colors() && !(nc && nc[0]);
	if (term_color) {
		start_color();
		use_default_colors();
		init_pair(PAIR_TITLE, COLOR_CYAN, -1);
		init_pair(PAIR_NEG, COLOR_RED, -1);
		init_pair(PAIR_DIM, COLOR_BLUE, -1);
		init_pair(PAIR_FLAME1, COLOR_BLACK, COLOR_YELLOW);
		init_pair(PAIR_FLAME2, COLOR_BLACK, COLOR_RED);
		init_pair(PAIR_SHRANK, COLOR_WHITE, COLOR_BLUE);
	}
	return 0;
}

void tui_term_stop(void)
{
	tui_term_restore();
}

void tui_term_size(int *w, int *h)
{
	getmaxyx(stdscr, *h, *w);
}

static attr_t curses_attr(int a, short *pair)
{
	attr_t r = A_NORMAL;
	*pair = 0;
	if (a & TUI_A_BOLD)
		r |= A_BOLD;
	if (a & TUI_A_REVERSE)
		r |= A_REVERSE;
	if (a & TUI_A_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & TUI_A_TITLE)
		r |= A_BOLD;
	int flame = a & (TUI_A_FLAME1 | TUI_A_FLAME2);
	if (flame) {
		if (!term_color) /* monochrome: boxes reversed, the selected one bold and plain */
			return (a & TUI_A_REVERSE) ? (A_BOLD | A_UNDERLINE) : A_REVERSE;
		*pair = flame == (TUI_A_FLAME1 | TUI_A_FLAME2) ? PAIR_SHRANK : flame == TUI_A_FLAME1 ? PAIR_FLAME1 : PAIR_FLAME2;
		return r;
	}
	if (term_color) {
		if (a & TUI_A_NEG)
			*pair = PAIR_NEG;
		else if (a & TUI_A_TITLE)
			*pair = PAIR_TITLE;
		else if (a & TUI_A_DIM)
			*pair = PAIR_DIM;
	} else if (a & TUI_A_DIM) {
		r |= A_DIM;
	}
	return r;
}

void tui_term_paint(const tui_screen *s)
{
	int w, h;
	getmaxyx(stdscr, h, w);
	for (int y = 0; y < s->h && y < h; y++) {
		for (int x = 0; x < s->w && x < w; x++) {
			const tui_cell *c = &s->cells[y * s->w + x];
			if (c->ch == 0)
				continue; /* right half of a wide character */
			wchar_t wc[2] = { c->ch, 0 };
			short pair;
			attr_t at = curses_attr(c->attr, &pair);
			cchar_t cc;
			setcchar(&cc, wc, at, pair, NULL);
			mvadd_wch(y, x, &cc);
		}
	}
	refresh();
}

int tui_term_key(int wait_ms)
{
	if (npending)
		return pending[--npending];
	wint_t wc;
	timeout(wait_ms);
	int r = get_wch(&wc);
	if (r == ERR)
		return wait_ms >= 0 ? TUI_KEY_TICK : KEY_RESIZE; /* no key in time; or interrupted: redraw */
	if (r == KEY_CODE_YES)
		return (int)wc;
	if (wc == 27) {
		/* Esc alone, or Alt-key (Esc then the key). */
		timeout(30);
		wint_t next;
		int r2 = get_wch(&next);
		timeout(wait_ms);
		if (r2 == ERR)
			return TUI_KEY_ESC;
		return TUI_ALT((int)next);
	}
	if (wc == '\r')
		return '\n';
	if (wc < 0x80)
		return (int)wc;
	/* Non-ASCII: hand over its UTF-8 bytes one at a time. */
	char mb[8];
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	size_t n = wcrtomb(mb, (wchar_t)wc, &st);
	if (n == (size_t)-1 || n == 0)
		return '?';
	for (size_t i = n; i-- > 1;)
		pending[npending++] = (unsigned char)mb[i];
	return (unsigned char)mb[0];
}

int tui_term_mouse(int *kind, int *x, int *y)
{
	MEVENT ev;
	if (getmouse(&ev) != OK)
		return 0;
	*x = ev.x;
	*y = ev.y;
	if (ev.bstate & BUTTON1_DOUBLE_CLICKED)
		*kind = 1;
	else if (ev.bstate & BUTTON1_CLICKED)
		*kind = 0;
	else if (ev.bstate & BUTTON4_PRESSED)
		*kind = 2;
#ifdef BUTTON5_PRESSED
	else if (ev.bstate & BUTTON5_PRESSED)
		*kind = 3;
#endif
	else
		return 0;
	return 1;
}

void tui_term_clipboard(const char *text)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)text;
	size_t n = strlen(text);
	fputs("\033]52;c;", stdout);
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		char q[4] = { b64[v >> 18 & 63], b64[v >> 12 & 63], i + 1 < n ? b64[v >> 6 & 63] : '=', i + 2 < n ? b64[v & 63] : '=' };
		fwrite(q, 1, 4, stdout);
	}
	fputs("\a", stdout);
	fflush(stdout);
}
