/* SPDX-License-Identifier: MIT */
/* Commands and keys (style rule 17): TUI_COMMANDS generates the command enum and the help
 * texts, TUI_KEYS the keymap; the help screen is generated from both. Alt-x arrives as
 * TUI_ALT('x'). */
#ifndef STACKVIEW_TUI_KEYMAP_H
#define STACKVIEW_TUI_KEYMAP_H

#include <curses.h>

#define TUI_ALT(c) (0x10000 | (c))
#define TUI_CTRL(c) ((c) & 0x1f)
#define TUI_KEY_ESC 27
#define TUI_KEY_TICK 0x20000 /* not a key: the wait for one ended (term.c) */

/* X(command, help) */
#define TUI_COMMANDS(X)                                                               \
	X(CMD_UP, "move up")                                                           \
	X(CMD_DOWN, "move down")                                                       \
	X(CMD_PGUP, "page up")                                                         \
	X(CMD_PGDN, "page down")                                                       \
	X(CMD_HOME, "first row")                                                       \
	X(CMD_END, "last row")                                                         \
	X(CMD_EXPAND, "expand (a single child expands too)")                           \
	X(CMD_COLLAPSE, "collapse, or go to the parent")                               \
	X(CMD_TOGGLE, "expand or collapse")                                            \
	X(CMD_SCROLL_LEFT, "scroll the Name column left (ByName, Caller-Callee: Left too)") \
	X(CMD_SCROLL_RIGHT, "scroll the Name column right (ByName, Caller-Callee: Right too)") \
	X(CMD_EXPAND_ALL, "expand the whole subtree")                                  \
	X(CMD_COLLAPSE_ALL, "collapse the whole subtree")                              \
	X(CMD_ENTER, "trees: expand or collapse; ByName: Callers of the name; Caller-Callee: focus it") \
	X(CMD_TAB_NEXT, "next tab")                                                    \
	X(CMD_TAB_PREV, "previous tab")                                                \
	X(CMD_TAB_BYNAME, "ByName tab")                                                \
	X(CMD_TAB_CALLTREE, "CallTree tab")                                            \
	X(CMD_TAB_CALLERS, "Callers tab (of the cursor's name, or the focus)")                               \
	X(CMD_TAB_CALLEES, "Callees tab (of the cursor's name, or the focus)")                               \
	X(CMD_TAB_CC, "Caller-Callee tab (of the cursor's name, or the focus)")                              \
	X(CMD_TAB_FLAME, "Flame tab: arrows move, Enter zooms, Esc zooms out, Home resets") \
	X(CMD_TAB_NOTES, "Notes tab (Enter edits the notes, Esc ends editing)")       \
	X(CMD_EDIT_GROUP, "edit GroupPats")                                            \
	X(CMD_EDIT_FOLD, "edit FoldPats")                                              \
	X(CMD_EDIT_FOLDPCT, "edit Fold%")                                              \
	X(CMD_EDIT_INC, "edit IncPats")                                                \
	X(CMD_EDIT_EXC, "edit ExcPats")                                                \
	X(CMD_EDIT_START, "edit Start")                                                \
	X(CMD_EDIT_END, "edit End")                                                    \
	X(CMD_FOLD_MORE, "increase Fold% (x1.6)")                                      \
	X(CMD_FOLD_LESS, "decrease Fold% (/1.6)")                                      \
	X(CMD_DRILL, "Drill Into (inclusive): a new view of the row's samples")        \
	X(CMD_DRILL_EXC, "Drill Into (exclusive)")                                     \
	X(CMD_POP, "leave the zoom, jump or drill-in you are in; at the top, quit")   \
	X(CMD_UNGROUP, "Ungroup the row's group")                                      \
	X(CMD_UNGROUP_MODULE, "Ungroup Module")                                        \
	X(CMD_GROUP_MODULE, "Group Module")                                            \
	X(CMD_ENTRY_GROUP_MODULE, "Entry Group Module")                                \
	X(CMD_FOLD_ITEM, "Fold Item")                                                  \
	X(CMD_FOLD_MODULE, "Fold Module")                                              \
	X(CMD_INCLUDE_ITEM, "Include Item")                                            \
	X(CMD_EXCLUDE_ITEM, "Exclude Item")                                            \
	X(CMD_REMOVE_FOLDING, "Remove All Folding")                                    \
	X(CMD_TIME_RANGE, "Set Time Range to the row's First..Last (or the When characters selected)") \
	X(CMD_WHEN_SELECT, "select When characters: Left/Right extend, Enter or M-r sets the time range") \
	X(CMD_FLATTEN, "Flatten: a new view of the leaf frames")                       \
	X(CMD_GOTO_CALLERS, "Goto Item in Callers")                                    \
	X(CMD_GOTO_CALLEES, "Goto Item in Callees")                                    \
	X(CMD_GOTO_CC, "Goto Item in Caller-Callee")                                   \
	X(CMD_GOTO_CALLTREE, "Goto Item in CallTree (its first node, expanded to)")    \
	X(CMD_GOTO_BYNAME, "Goto Item in ByName")                                      \
	X(CMD_COPY_ROW, "Copy the row as text (to the terminal's clipboard)")          \
	X(CMD_COPY_SUBTREE, "Copy the row and its whole subtree as text")              \
	X(CMD_COLUMNS, "Columns: show, hide, widen, narrow, sort")                     \
	X(CMD_NAV_BACK, "back to where you were before a jump (tab, focus, Goto, drill-in)") \
	X(CMD_NAV_FORWARD, "forward again")                                            \
	X(CMD_BACK, "back in the filter history")                                      \
	X(CMD_FORWARD, "forward in the filter history")                                \
	X(CMD_FIND, "find a name (regex, case-insensitive)")                           \
	X(CMD_FIND_NEXT, "find the next match (wraps)")                                \
	X(CMD_FIND_PREV, "find the previous match (wraps)")                            \
	X(CMD_SAVE, "Save View (.perfView.xml.zip: samples, boxes, notes)")                \
	X(CMD_EVENTS, "Events: open the file for another event it holds (perf: cycles ...)") \
	X(CMD_EVLIST, "Events view: every event with its fields; Enter: the stacks around it") \
	X(CMD_REPORTS, "Reports: GCStats and JITStats of a .NET trace")              \
	X(CMD_ANNOTATE, "Annotate: the row's function as instructions with costs (perf, pprof)") \
	X(CMD_GOTO_SOURCE, "Goto Source: the row's function's source lines, Inc and Exc each") \
	X(CMD_LOOKUP_SYMBOLS, "Lookup Symbols: the row's module's PDB (ETL), read again") \
	X(CMD_EDIT_PRIORITY, "heap snapshot: edit the Priority box (PAT->NUM;..., first match wins)") \
	X(CMD_RAISE_ITEM_PRIORITY, "heap snapshot: Raise Item Priority (the row's type, +1)") \
	X(CMD_LOWER_ITEM_PRIORITY, "heap snapshot: Lower Item Priority (-1)")         \
	X(CMD_RAISE_MODULE_PRIORITY, "heap snapshot: Raise Module Priority (+1)")     \
	X(CMD_LOWER_MODULE_PRIORITY, "heap snapshot: Lower Module Priority (-1)")     \
	X(CMD_PRESETS, "Presets: apply one (Enter), delete one of yours (d)")         \
	X(CMD_SAVE_PRESET, "Save As Preset: GroupPats, Fold% and FoldPats under a name") \
	X(CMD_HELP, "this help")                                                       \
	X(CMD_QUIT, "quit (in a jump or drill-in: leave it, as Esc)")

/* X(command, key, label) */
#define TUI_KEYS(X)                                      \
	X(CMD_UP, KEY_UP, "Up")                           \
	X(CMD_UP, 'k', "k")                               \
	X(CMD_DOWN, KEY_DOWN, "Down")                     \
	X(CMD_DOWN, 'j', "j")                             \
	X(CMD_PGUP, KEY_PPAGE, "PgUp")                    \
	X(CMD_PGDN, KEY_NPAGE, "PgDn")                    \
	X(CMD_HOME, KEY_HOME, "Home")                     \
	X(CMD_HOME, 'g', "g")                             \
	X(CMD_END, KEY_END, "End")                        \
	X(CMD_END, 'G', "G")                              \
	X(CMD_EXPAND, KEY_RIGHT, "Right")                 \
	X(CMD_EXPAND, 'l', "l")                           \
	X(CMD_COLLAPSE, KEY_LEFT, "Left")                 \
	X(CMD_COLLAPSE, 'h', "h")                         \
	X(CMD_SCROLL_LEFT, '<', "<")                     \
	X(CMD_SCROLL_RIGHT, '>', ">")                    \
	X(CMD_TOGGLE, ' ', "Space")                       \
	X(CMD_TOGGLE, '+', "+")                           \
	X(CMD_EXPAND_ALL, 'E', "E")                       \
	X(CMD_EXPAND_ALL, '*', "*")                       \
	X(CMD_COLLAPSE_ALL, 'C', "C")                     \
	X(CMD_ENTER, '\n', "Enter")                       \
	X(CMD_ENTER, KEY_ENTER, "Enter")                  \
	X(CMD_TAB_NEXT, '\t', "Tab")                      \
	X(CMD_TAB_PREV, KEY_BTAB, "S-Tab")                \
	X(CMD_TAB_BYNAME, '1', "1")                       \
	X(CMD_TAB_CALLTREE, '2', "2")                     \
	X(CMD_TAB_CALLERS, '3', "3")                      \
	X(CMD_TAB_CALLEES, '4', "4")                      \
	X(CMD_TAB_CC, '5', "5")                           \
	X(CMD_TAB_FLAME, '6', "6")                        \
	X(CMD_TAB_NOTES, '7', "7")                        \
	X(CMD_TAB_NOTES, KEY_F(2), "F2")                  \
	X(CMD_EDIT_GROUP, 'p', "p")                       \
	X(CMD_EDIT_FOLD, 'f', "f")                        \
	X(CMD_EDIT_FOLDPCT, '%', "%")                     \
	X(CMD_EDIT_INC, 'i', "i")                         \
	X(CMD_EDIT_EXC, 'x', "x")                         \
	X(CMD_EDIT_START, 's', "s")                       \
	X(CMD_EDIT_END, 'e', "e")                         \
	X(CMD_FOLD_MORE, KEY_F(7), "F7")                  \
	X(CMD_FOLD_LESS, KEY_F(19), "S-F7")               \
	X(CMD_DRILL, TUI_CTRL('d'), "C-d")                \
	X(CMD_DRILL_EXC, 'D', "D")                        \
	X(CMD_POP, TUI_KEY_ESC, "Esc")                    \
	X(CMD_UNGROUP, TUI_ALT('u'), "M-u")               \
	X(CMD_UNGROUP_MODULE, TUI_ALT('w'), "M-w")        \
	X(CMD_GROUP_MODULE, TUI_ALT('g'), "M-g")          \
	X(CMD_ENTRY_GROUP_MODULE, TUI_ALT('h'), "M-h")    \
	X(CMD_FOLD_ITEM, TUI_ALT('f'), "M-f")             \
	X(CMD_FOLD_MODULE, TUI_ALT('m'), "M-m")           \
	X(CMD_INCLUDE_ITEM, TUI_ALT('i'), "M-i")          \
	X(CMD_EXCLUDE_ITEM, TUI_ALT('e'), "M-e")          \
	X(CMD_REMOVE_FOLDING, TUI_ALT('x'), "M-x")        \
	X(CMD_TIME_RANGE, TUI_ALT('r'), "M-r")            \
	X(CMD_FLATTEN, TUI_ALT('l'), "M-l")               \
	X(CMD_WHEN_SELECT, 't', "t")                      \
	X(CMD_GOTO_CALLERS, KEY_F(10), "F10")             \
	X(CMD_GOTO_CALLEES, KEY_F(22), "S-F10")           \
	X(CMD_GOTO_CC, 'c', "c")                          \
	X(CMD_GOTO_CC, TUI_ALT('c'), "M-c")               \
	X(CMD_GOTO_CALLTREE, TUI_ALT('t'), "M-t")         \
	X(CMD_GOTO_BYNAME, TUI_ALT('n'), "M-n")           \
	X(CMD_COPY_ROW, 'y', "y")                         \
	X(CMD_COPY_SUBTREE, 'Y', "Y")                     \
	X(CMD_COLUMNS, 'o', "o")                          \
	X(CMD_COLUMNS, KEY_F(6), "F6")                    \
	X(CMD_NAV_BACK, KEY_BACKSPACE, "Backspace")       \
	X(CMD_NAV_BACK, 127, "Backspace")                 \
	X(CMD_NAV_BACK, 8, "Backspace")                   \
	X(CMD_NAV_BACK, TUI_ALT(KEY_LEFT), "M-Left")      \
	X(CMD_NAV_FORWARD, TUI_ALT(KEY_RIGHT), "M-Right") \
	X(CMD_BACK, '[', "[")                             \
	X(CMD_FORWARD, ']', "]")                          \
	X(CMD_FIND, '/', "/")                             \
	X(CMD_FIND, TUI_CTRL('f'), "C-f")                 \
	X(CMD_FIND_NEXT, 'n', "n")                        \
	X(CMD_FIND_NEXT, KEY_F(3), "F3")                  \
	X(CMD_FIND_PREV, 'N', "N")                        \
	X(CMD_FIND_PREV, KEY_F(15), "S-F3")               \
	X(CMD_SAVE, TUI_CTRL('s'), "C-s")                 \
	X(CMD_SAVE, 'w', "w")                             \
	X(CMD_EVENTS, 'v', "v")                           \
	X(CMD_EVLIST, 'V', "V")                           \
	X(CMD_REPORTS, 'R', "R")                          \
	X(CMD_ANNOTATE, 'a', "a")                         \
	X(CMD_GOTO_SOURCE, TUI_ALT('d'), "M-d")           \
	X(CMD_LOOKUP_SYMBOLS, TUI_ALT('s'), "M-s")        \
	X(CMD_EDIT_PRIORITY, 'r', "r")                    \
	X(CMD_RAISE_ITEM_PRIORITY, TUI_ALT('p'), "M-p")   \
	X(CMD_LOWER_ITEM_PRIORITY, TUI_ALT('P'), "M-P")   \
	X(CMD_RAISE_MODULE_PRIORITY, TUI_ALT('q'), "M-q") \
	X(CMD_LOWER_MODULE_PRIORITY, TUI_ALT('Q'), "M-Q") \
	X(CMD_PRESETS, 'P', "P")                          \
	X(CMD_SAVE_PRESET, 'S', "S")                      \
	X(CMD_HELP, '?', "?")                             \
	X(CMD_HELP, KEY_F(1), "F1")                       \
	X(CMD_QUIT, 'q', "q")

typedef enum tui_command {
	CMD_NONE,
#define TUI_CMD_ENUM(cmd, help) cmd,
	TUI_COMMANDS(TUI_CMD_ENUM)
#undef TUI_CMD_ENUM
	CMD_COUNT
} tui_command;

/* The command bound to a key, or CMD_NONE. */
tui_command tui_key_command(int key);
const char *tui_command_help(tui_command c);
/* "Up, k" — every label bound to the command, into buf. */
void tui_command_keys(char *buf, unsigned size, tui_command c);

#endif
