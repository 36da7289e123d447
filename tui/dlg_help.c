/* SPDX-License-Identifier: MIT */
/* The help screen, generated from the command and key tables (keymap.h). */
#include "app.h"


int tui_help_key(tui_app *a, int key)
{
	if (key == KEY_DOWN || key == 'j')
		a->help_top++;
	else if ((key == KEY_UP || key == 'k') && a->help_top)
		a->help_top--;
	else
		a->mode = MODE_GRID;
	return TUI_REDRAW;
}

void tui_help_draw(tui_app *a, tui_screen *s)
{
	tui_screen_clear(s);
	tui_screen_text(s, 0, 0, "stackview keys (any other key closes this help; Up/Down scroll)", a->w, TUI_A_TITLE);
	int y = 2;
	size_t line = 0;
	for (int c = CMD_NONE + 1; c < CMD_COUNT; c++, line++) {
		if (line < a->help_top)
			continue;
		if (y >= a->h)
			break;
		char keys[128];
		tui_command_keys(keys, sizeof(keys), (tui_command)c);
		tui_screen_text(s, 2, y, keys, 18, TUI_A_BOLD);
		tui_screen_text(s, 22, y, tui_command_help((tui_command)c), a->w - 22, TUI_A_NORMAL);
		y++;
	}
}
