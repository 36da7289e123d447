/* SPDX-License-Identifier: MIT */
/* The one module that owns the terminal (style rule 18): curses set-up, colours (NO_COLOR
 * and monochrome respected), resize, and restoring the terminal on every exit path,
 * signals included. */
#ifndef STACKVIEW_TUI_TERM_H
#define STACKVIEW_TUI_TERM_H

#include <stddef.h>

#include "screen.h"
#include "stackview/status.h"

int tui_term_start(sv_error *err);
void tui_term_stop(void);
void tui_term_size(int *w, int *h);
void tui_term_paint(const tui_screen *s);
/* The next key: curses codes, TUI_ALT(c) for Esc-prefixed keys, UTF-8 bytes one by one;
 * TUI_KEY_TICK when none came within wait_ms (-1: wait for one). */
int tui_term_key(int wait_ms);
/* After tui_term_key returned KEY_MOUSE: the event (kind 0 click, 1 double click, 2 wheel up,
 * 3 wheel down, as tui_mouse counts them) and its cell; 0 for events we do not use. */
int tui_term_mouse(int *kind, int *x, int *y);
/* Put text on the terminal's clipboard with OSC 52 (xterm, kitty, iTerm2, WezTerm, foot,
 * tmux with set-clipboard on, ...); terminals without it ignore the sequence. */
void tui_term_clipboard(const char *text);

#endif
