/* SPDX-License-Identifier: MIT */
/* Keys to commands and the help texts, generated from keymap.h's tables. */
#include "keymap.h"

#include <stdio.h>
#include <string.h>

tui_command tui_key_command(int key)
{
#define TUI_KEY_CASE(cmd, k, label) \
	if (key == (k))             \
		return cmd;
	TUI_KEYS(TUI_KEY_CASE)
#undef TUI_KEY_CASE
	return CMD_NONE;
}

const char *tui_command_help(tui_command c)
{
	switch (c) {
#define TUI_HELP_CASE(cmd, help) \
	case cmd:                \
		return help;
		TUI_COMMANDS(TUI_HELP_CASE)
#undef TUI_HELP_CASE
	default:
		return "";
	}
}

void tui_command_keys(char *buf, unsigned size, tui_command c)
{
	size_t o = 0;
	buf[0] = '\0';
#define TUI_LABEL(cmd, k, label)                                                                  \
	if (cmd == c && o < size && !strstr(buf, label))                                          \
		o += (size_t)snprintf(buf + o, size - o, "%s%s", o ? ", " : "", label);
	TUI_KEYS(TUI_LABEL)
#undef TUI_LABEL
}
