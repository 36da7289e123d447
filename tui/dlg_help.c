/* SPDX-License-Identifier: MIT */
/* The help screen, generated from the command and key tables (keymap.h): a list that only
 * scrolls. */
#include "app.h"

/* After the keys: how to read the When column (spec §7.3). */
static const char *const legend[] = {
	"",
	"When: 32 slices of the time range, each against one CPU (time profiles) or half ROOT's busiest:",
	"_ nothing   . under 0.1 %   o under 1 %   0-9 1-10 % ... 90-100 %",
	"A-Y over 100 % (diffs: 100-110 % ... 340-350 %)   * 350 % or more",
};
#define NCOMMANDS ((size_t)(CMD_COUNT - CMD_NONE - 1))
#define NLEGEND (sizeof(legend) / sizeof(legend[0]))

static void place(tui_app *a)
{
	a->help.scroll_only = true;
	tui_list_place(&a->help, NCOMMANDS + NLEGEND, 2, a->h - 2);
}

int tui_help_key(tui_app *a, int key)
{
	place(a);
	if (!tui_list_key(&a->help, key, true))
		a->mode = MODE_GRID;
	return TUI_REDRAW;
}

static void help_line(tui_app *a, tui_screen *s, size_t i, int y, int attr)
{
	if (i >= NCOMMANDS) { /* the legend, in the help column */
		tui_screen_text(s, 22, y, legend[i - NCOMMANDS], a->w - 22, attr);
		return;
	}
	tui_command c = (tui_command)(CMD_NONE + 1 + (int)i);
	char keys[128];
	tui_command_keys(keys, sizeof(keys), c);
	tui_screen_text(s, 2, y, keys, 18, attr | TUI_A_BOLD);
	tui_screen_text(s, 22, y, tui_command_help(c), a->w - 22, attr);
}

void tui_help_draw(tui_app *a, tui_screen *s)
{
	tui_screen_clear(s);
	tui_screen_text(s, 0, 0, "stackview keys (any other key closes this help; Up/Down scroll)", a->w, TUI_A_TITLE);
	place(a);
	tui_list_draw(&a->help, a, s, help_line);
}
