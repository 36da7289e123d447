/* SPDX-License-Identifier: MIT */
/* The stack window's commands: moving, expanding, the box edits of a row, Drill Into, Goto,
 * Copy, When selection; and the dispatch of keys and clicks through the mode table. */
#include "app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/commands.h"
#include "stackview/derive.h"

#define COPY_MAX_ROWS 10000

/* A string command on the selected row's name; `box` receives the result. */
typedef int (*name_cmd)(char **out, const char *box, const char *name);

static const tui_command edit_cmds[SV_BOX_COUNT] = {
	[SV_BOX_GROUP] = CMD_EDIT_GROUP, [SV_BOX_FOLD] = CMD_EDIT_FOLD, [SV_BOX_FOLD_PCT] = CMD_EDIT_FOLDPCT,
	[SV_BOX_INC] = CMD_EDIT_INC,     [SV_BOX_EXC] = CMD_EDIT_EXC,   [SV_BOX_START] = CMD_EDIT_START,
	[SV_BOX_END] = CMD_EDIT_END,
};

static int tui_row_command(tui_app *a, sv_box box, name_cmd fn, const char *what)
{
	tui_frame *f = tui_app_frame(a);
	const char *name = tui_row_name(a, f->pane[a->tab].cursor);
	if (!name) {
		tui_status(a, "no row selected");
		return TUI_REDRAW;
	}
	char *out = NULL;
	int rc = fn(&out, sv_params_get(&f->params, box), name);
	if (rc == SV_EINVAL) {
		tui_status(a, "%s does not apply to '%s'", what, name);
		return TUI_REDRAW;
	}
	if (rc) {
		tui_status(a, "out of memory");
		return TUI_REDRAW;
	}
	int r = tui_apply_box(a, box, out);
	free(out);
	return r;
}

static int cmd_group_module(char **out, const char *box, const char *name)
{
	return sv_cmd_group_module(out, box, name, false);
}

static int cmd_entry_group_module(char **out, const char *box, const char *name)
{
	return sv_cmd_group_module(out, box, name, true);
}

static int cmd_include(char **out, const char *box, const char *name)
{
	return sv_cmd_include_items(out, box, &name, 1);
}

static int cmd_exclude(char **out, const char *box, const char *name)
{
	return sv_cmd_exclude_items(out, box, &name, 1);
}

static int tui_drill(tui_app *a, bool inclusive)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	if (p->cursor >= f->rows.n) {
		tui_status(a, "no row selected");
		return TUI_REDRAW;
	}
	const sv_row *r = &f->rows.row[p->cursor];
	sv_drill_what what = a->tab == TAB_CALLTREE ? SV_DRILL_NODE : SV_DRILL_BYNAME;
	uint32_t id = a->tab == TAB_CALLTREE ? r->id : r->name;
	sv_source *src;
	sv_params np;
	if (sv_drill_into(&src, &np, f->view, what, id, inclusive)) {
		tui_status(a, "out of memory");
		return TUI_REDRAW;
	}
	char title[300];
	snprintf(title, sizeof(title), "Drill Into (%s) %s", inclusive ? "inclusive" : "exclusive",
		 sv_view_name(f->view, r->name));
	tui_nav_push(a);
	int rc = tui_push_frame(a, src, &np, title);
	sv_params_dispose(&np);
	return rc;
}

static int tui_flatten_view(tui_app *a)
{
	sv_source *src;
	sv_params np;
	if (sv_flatten(&src, &np, tui_app_frame(a)->view)) {
		tui_status(a, "out of memory");
		return TUI_REDRAW;
	}
	tui_nav_push(a);
	int rc = tui_push_frame(a, src, &np, "Flatten");
	sv_params_dispose(&np);
	return rc;
}

static size_t tui_page_rows(const tui_app *a)
{
	int n = a->h - TUI_GRID_TOP - 3;
	return n > 1 ? (size_t)n : 1;
}

static int tui_move(tui_app *a, long delta)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	if (!f->rows.n)
		return TUI_REDRAW;
	long c = (long)p->cursor + delta;
	if (c < 0)
		c = 0;
	if (c >= (long)f->rows.n)
		c = (long)f->rows.n - 1;
	p->cursor = (size_t)c;
	return TUI_REDRAW;
}

static bool tui_tree_tab(const tui_app *a)
{
	return a->tab == TAB_CALLTREE || a->tab == TAB_CALLERS || a->tab == TAB_CALLEES;
}

/* how: 1 open, 0 close, 2 open the subtree, 3 close the subtree */
static int tui_set_expanded(tui_app *a, const sv_row *r, int how)
{
	tui_frame *f = tui_app_frame(a);
	sv_expansion *e = f->pane[a->tab].exp;
	int rc = 0;
	if (how == 3) /* the rows below the cursor's at a greater depth are its open subtree */
		for (size_t i = f->pane[a->tab].cursor + 1; !rc && i < f->rows.n && f->rows.row[i].depth > r->depth; i++)
			if (f->rows.row[i].expanded)
				rc = sv_expansion_set(e, f->rows.row[i].id, false);
	if (how == 0 || how == 3)
		rc = rc ? rc : sv_expansion_set(e, r->id, false);
	else if (a->tab == TAB_CALLTREE)
		rc = how == 2 ? sv_expansion_expand_subtree(e, f->view, r->id) : sv_expansion_expand_node(e, f->view, r->id);
	else
		rc = how == 2 ? sv_expansion_expand_aggsubtree(e, f->agg, r->id) : sv_expansion_expand_aggrow(e, f->agg, r->id);
	if (rc)
		tui_status(a, "out of memory");
	return TUI_REDRAW | TUI_REFLATTEN;
}

static int switch_tab(tui_app *a, tui_tab t)
{
	a->tab = t;
	return TUI_REDRAW | TUI_REFLATTEN;
}

/* A tab switch is a step Backspace undoes (q and Esc go past it). A focus tab opened from
 * ByName or the CallTree shows the row under the cursor (as c and F10 do). */
static int tui_switch_tab(tui_app *a, tui_tab t)
{
	if (t == a->tab)
		return switch_tab(a, t);
	tui_nav_push_tab(a);
	tui_frame *f = tui_app_frame(a);
	const char *name = (a->tab == TAB_BYNAME || a->tab == TAB_CALLTREE) ? tui_row_name(a, f->pane[a->tab].cursor) : NULL;
	if (name && (t == TAB_CALLERS || t == TAB_CALLEES || t == TAB_CC) && (!f->focus || strcmp(f->focus, name))) {
		char *nf = strdup(name);
		if (nf) {
			tui_frame_set_focus(f, nf);
			f->pane[TAB_CALLERS].cursor = f->pane[TAB_CALLEES].cursor = f->pane[TAB_CC].cursor = 0;
			tui_status(a, "focus: %s", nf);
		}
	}
	return switch_tab(a, t);
}

static int tui_set_focus(tui_app *a, tui_tab tab);

/* Enter: a tree row opens or closes (perf report's, tig's and htop's Enter); a ByName row
 * shows the name's Callers; a Caller-Callee row becomes the focus. */
static int cmd_enter(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	const tui_pane *p = &f->pane[a->tab];
	const sv_row *r = p->cursor < f->rows.n ? &f->rows.row[p->cursor] : NULL;
	if (!r) {
		tui_status(a, "no row here");
		return TUI_REDRAW;
	}
	if (tui_tree_tab(a)) {
		if (!r->has_children) {
			tui_status(a, "%s calls nothing further here (c: its Caller-Callee)", tui_row_name(a, p->cursor));
			return TUI_REDRAW;
		}
		return tui_set_expanded(a, r, r->expanded ? 0 : 1);
	}
	return tui_set_focus(a, a->tab == TAB_CC ? TAB_CC : TAB_CALLERS);
}

/* Esc and q: leave the jump or drill-in you are in; at the top, q quits and Esc asks first
 * (a second Esc quits), as perf report's Esc does, so that an Esc meant to dismiss a message
 * does not end the session. */
static int cmd_leave(tui_app *a, bool esc)
{
	if (tui_nav_can_leave(a))
		return tui_nav_leave(a);
	if (a->nframes > 1)
		return tui_pop_frames(a, a->nframes - 1, NULL);
	if (esc && !a->esc_armed) {
		a->esc_armed = true;
		tui_status(a, "Esc again (or q) quits");
		return TUI_REDRAW;
	}
	a->quit = true;
	return 0;
}

static int tui_history(tui_app *a, int dir)
{
	tui_frame *f = tui_app_frame(a);
	if ((dir < 0 && f->hpos == 0) || (dir > 0 && f->hpos + 1 >= f->nhist)) {
		tui_status(a, dir < 0 ? "at the oldest filter" : "at the newest filter");
		return TUI_REDRAW;
	}
	/* The position moves before the view is built (tui_app_react): the entry then equals
	 * the params applied, so applying them adds nothing to the history and keeps the entries
	 * after it. */
	size_t pos = (size_t)((long)f->hpos + dir);
	return tui_stage(a, &f->hist[pos], pos, dir < 0 ? "back" : "forward");
}

static bool tui_grid_tab(const tui_app *a)
{
	return a->tab != TAB_FLAME && a->tab != TAB_NOTES;
}

static int tui_copy_rows(tui_app *a, bool subtree)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	if (!tui_grid_tab(a) || p->cursor >= f->rows.n) {
		tui_status(a, "nothing to copy here");
		return TUI_REDRAW;
	}
	const sv_row *r = &f->rows.row[p->cursor];
	sv_rows sub = f->rows; /* a view of the grid's rows: the cursor row, or all of them */
	sub.row += p->cursor;
	sub.n = 1;
	bool own = false;
	int rc = 0;
	if (subtree && tui_tree_tab(a)) {
		rc = a->tab == TAB_CALLTREE ? sv_rows_calltree_at(&sub, f->view, r->id, NULL, -1)
					    : sv_rows_aggtree_at(&sub, f->agg, r->id, NULL, -1);
		own = !rc;
		if (!rc)
			rc = tui_compare_rows(a, &sub);
		if (!rc && a->sort_col[a->tab] >= 0)
			rc = sv_rows_sort(&sub, 0, sub.n, f->view, (sv_col)a->sort_col[a->tab], a->sort_asc[a->tab]);
	} else if (subtree) { /* ByName and Caller-Callee: the whole grid */
		sub = f->rows;
	}
	size_t n = sub.n;
	bool cut = n > COPY_MAX_ROWS;
	if (cut)
		sub.n = n = COPY_MAX_ROWS;
	char *text = rc ? NULL : tui_draw_rows_text(a, &sub);
	if (own)
		sv_rows_dispose(&sub);
	if (!text) {
		tui_status(a, "out of memory");
		return TUI_REDRAW;
	}
	free(a->clip);
	a->clip = text;
	a->clip_new = true;
	tui_status(a, "copied %zu row%s%s (%zu bytes) to the clipboard", n, n == 1 ? "" : "s",
	       cut ? " (the subtree's first rows)" : "", strlen(text));
	return TUI_REDRAW;
}

static int tui_when_start(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	if (!tui_grid_tab(a) || f->pane[a->tab].cursor >= f->rows.n) {
		tui_status(a, "no When column here");
		return TUI_REDRAW;
	}
	sv_col cols[SV_COL_COUNT];
	int width[SV_COL_COUNT];
	int n = tui_draw_columns(a, cols, width);
	bool shown = false;
	for (int i = 0; i < n; i++)
		shown = shown || cols[i] == SV_COL_WHEN;
	if (!shown) {
		tui_status(a, "the When column is not shown (o: columns; a wider terminal)");
		return TUI_REDRAW;
	}
	a->mode = MODE_WHEN;
	a->when_anchor = a->when_caret = 0;
	tui_status(a, "When: Left/Right extend the selection, Enter sets the time range, Esc cancels");
	return TUI_REDRAW;
}

static int when_apply(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	int lo = a->when_anchor < a->when_caret ? a->when_anchor : a->when_caret;
	int hi = a->when_anchor < a->when_caret ? a->when_caret : a->when_anchor;
	a->mode = MODE_GRID;
	sv_params np;
	if (sv_params_copy(&np, &f->params) || sv_cmd_set_time_range_when(&np, f->view, lo, hi - lo + 1)) {
		sv_params_dispose(&np);
		tui_status(a, "out of memory");
		return TUI_REDRAW;
	}
	int rc = tui_apply_params(a, &np, "time range set from the When selection");
	sv_params_dispose(&np);
	return rc;
}

/* Keys while When characters are selected; false = not taken (the selection ends). */
static bool tui_when_key(tui_app *a, int key, int *flags)
{
	*flags = TUI_REDRAW;
	tui_command c = tui_key_command(key);
	switch (c) {
	case CMD_COLLAPSE: a->when_caret = a->when_caret > 0 ? a->when_caret - 1 : 0; return true;
	case CMD_EXPAND: a->when_caret = a->when_caret < SV_WHEN_LEN - 1 ? a->when_caret + 1 : SV_WHEN_LEN - 1; return true;
	case CMD_HOME: a->when_caret = 0; return true;
	case CMD_END: a->when_caret = SV_WHEN_LEN - 1; return true;
	case CMD_UP: case CMD_DOWN: case CMD_PGUP: case CMD_PGDN: return false; /* rows move; the selection stays */
	case CMD_ENTER: case CMD_TIME_RANGE: *flags = when_apply(a); return true;
	case CMD_WHEN_SELECT: a->when_anchor = a->when_caret; return true; /* t again: start over here */
	case CMD_POP: a->mode = MODE_GRID; tui_status(a, "selection cancelled"); return true;
	default: a->mode = MODE_GRID; return false;
	}
}

static int tui_set_focus(tui_app *a, tui_tab tab)
{
	tui_frame *f = tui_app_frame(a);
	const char *name = tui_row_name(a, f->pane[a->tab].cursor);
	if (!name)
		return TUI_REDRAW;
	char *nf = strdup(name);
	if (!nf)
		return TUI_REDRAW;
	tui_nav_push(a);
	tui_frame_set_focus(f, nf);
	f->pane[TAB_CALLERS].cursor = f->pane[TAB_CALLEES].cursor = f->pane[TAB_CC].cursor = 0;
	tui_status(a, "focus: %s (Backspace goes back)", nf);
	return switch_tab(a, tab);
}

static int tui_goto_calltree(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	if (!tui_grid_tab(a) || p->cursor >= f->rows.n)
		return TUI_REDRAW;
	sv_name_id name = f->rows.row[p->cursor].name;
	/* The first node of that name in a pre-order walk of the whole tree. */
	sv_node_id *all;
	size_t n;
	if (sv_view_preorder(f->view, SV_NODE_ROOT, &all, &n)) {
		tui_status(a, "out of memory");
		return TUI_REDRAW;
	}
	sv_node_id hit = UINT32_MAX;
	for (size_t i = 0; i < n && hit == UINT32_MAX; i++)
		if (sv_view_node_name(f->view, all[i]) == name)
			hit = all[i];
	free(all);
	tui_nav_push(a);
	a->tab = TAB_CALLTREE;
	if (hit == UINT32_MAX) {
		tui_status(a, "'%s' is not in the call tree", sv_view_name(f->view, name));
		return TUI_REDRAW | TUI_REFLATTEN;
	}
	tui_status(a, "%s in the call tree", sv_view_name(f->view, name));
	return tui_reveal_node(a, hit);
}

static int tui_goto_byname(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	if (!tui_grid_tab(a) || p->cursor >= f->rows.n)
		return TUI_REDRAW;
	a->after = (tui_after){ AFTER_ROW_NAME, f->rows.row[p->cursor].name };
	tui_nav_push(a);
	a->tab = TAB_BYNAME;
	return TUI_REDRAW | TUI_REFLATTEN;
}

static int grid_command(tui_app *a, tui_command c);

/* Tabs with commands or a mouse of their own; the others are grids (ByName, CallTree,
 * Callers, Callees, Caller-Callee) handled here. */
static const struct {
	int (*command)(tui_app *a, tui_command c);
	int (*mouse)(tui_app *a, tui_mouse m, int x, int y);
} tab_ops[TAB_COUNT] = {
	[TAB_FLAME] = { .command = tui_flame_command, .mouse = tui_flame_mouse },
	[TAB_NOTES] = { .command = tui_notes_command },
};

/* The grid's mouse: the wheel scrolls three rows, a click on a tab switches to it, on a column
 * title sorts by it, on a row selects it (in a When cell: that character), a double click
 * acts as Enter. */
static int grid_mouse(tui_app *a, tui_mouse m, int x, int y)
{
	if (m == TUI_MOUSE_WHEEL_UP || m == TUI_MOUSE_WHEEL_DOWN) {
		int flags = 0;
		a->status[0] = '\0';
		for (int i = 0; i < 3; i++)
			flags |= grid_command(a, m == TUI_MOUSE_WHEEL_UP ? CMD_UP : CMD_DOWN);
		return flags;
	}
	if (y == TUI_TABS_ROW) {
		int t = tui_draw_tab_at(a, x);
		return t >= 0 ? tui_switch_tab(a, (tui_tab)t) : 0;
	}
	if (tab_ops[a->tab].mouse)
		return tab_ops[a->tab].mouse(a, m, x, y);
	int x0 = 0;
	if (tui_grid_tab(a) && y == TUI_GRID_TOP && m == TUI_MOUSE_CLICK) { /* a column title sorts by it */
		int c = tui_column_at(a, x, &x0);
		return c >= 0 ? tui_set_sort(a, c) : 0;
	}
	if (a->tab == TAB_NOTES || y <= TUI_GRID_TOP || y >= a->h - 1)
		return 0;
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	size_t i = p->top + (size_t)(y - TUI_GRID_TOP - 1);
	if (i >= f->rows.n)
		return 0;
	a->status[0] = '\0';
	if (m == TUI_MOUSE_CLICK && tui_column_at(a, x, &x0) == SV_COL_WHEN && x - x0 < SV_WHEN_LEN) {
		/* a click in a When cell selects that character; a second one on the same row
		 * extends the selection to it */
		if (a->mode != MODE_WHEN || p->cursor != i)
			a->when_anchor = x - x0;
		a->when_caret = x - x0;
		a->mode = MODE_WHEN;
		p->cursor = i;
		tui_status(a, "When: click again or Left/Right to extend, Enter sets the time range, Esc cancels");
		return TUI_REDRAW;
	}
	a->mode = MODE_GRID;
	p->cursor = i;
	/* a double click on a name opens its Caller-Callee, as PerfView's does */
	return m == TUI_MOUSE_DOUBLE ? grid_command(a, a->tab == TAB_CC ? CMD_ENTER : CMD_GOTO_CC) | TUI_REDRAW
				     : TUI_REDRAW;
}

/* The wheel in a list dialog moves its cursor. */
static int grid_key(tui_app *a, int key)
{
	if (key == KEY_RESIZE)
		return TUI_REDRAW;
	a->status[0] = '\0';
	tui_command c = tui_key_command(key);
	if (c == CMD_NONE) { /* say so rather than ignore the key */
		char name[32];
		if (key > 0x20 && key < 0x7f)
			snprintf(name, sizeof(name), "'%c'", key);
		else
			snprintf(name, sizeof(name), "that key");
		tui_status(a, "%s does nothing here (? lists the keys)", name);
		return TUI_REDRAW;
	}
	bool armed = a->esc_armed;
	int flags = grid_command(a, c);
	if (armed && c != CMD_QUIT)
		a->esc_armed = false; /* only an Esc right after Esc quits */
	return flags;
}

/* Keys while When characters are selected; the others end the selection and go to the grid. */
static int when_mode_key(tui_app *a, int key)
{
	int flags;
	if (tui_when_key(a, key, &flags))
		return flags;
	return grid_key(a, key);
}

/* One row per mode: its keys, its mouse (NULL: the keyboard owns the mode) and its painter
 * (NULL: the stack window is painted, with the mode's parts in it). Key, mouse and paint all
 * read this one table, so they agree on who owns the screen. */
typedef struct tui_mode_ops {
	int (*key)(tui_app *a, int key);
	int (*mouse)(tui_app *a, tui_mouse m, int x, int y);
	void (*draw)(tui_app *a, tui_screen *s);
} tui_mode_ops;

static const tui_mode_ops modes[MODE_COUNT] = {
	[MODE_GRID] = { .key = grid_key, .mouse = grid_mouse },
	[MODE_EDIT] = { .key = tui_edit_key },
	[MODE_PICKER] = { .key = tui_picker_key, .mouse = tui_picker_mouse, .draw = tui_picker_draw },
	[MODE_PRESETS] = { .key = tui_presets_key, .mouse = tui_presets_mouse, .draw = tui_presets_draw },
	[MODE_COLUMNS] = { .key = tui_columns_key, .mouse = tui_columns_mouse, .draw = tui_columns_draw },
	[MODE_HELP] = { .key = tui_help_key, .draw = tui_help_draw },
	[MODE_EVENTS] = { .key = tui_events_key, .mouse = tui_events_mouse, .draw = tui_events_draw },
	[MODE_EVLIST] = { .key = tui_evlist_key, .mouse = tui_evlist_mouse, .draw = tui_evlist_draw },
	[MODE_REPORT] = { .key = tui_report_key, .draw = tui_report_draw },
	[MODE_ANNOTATE] = { .key = tui_annotate_key, .draw = tui_annotate_draw },
	[MODE_NOTES] = { .key = tui_notes_key },
	[MODE_WHEN] = { .key = when_mode_key, .mouse = grid_mouse },
};

int tui_app_handle(tui_app *a, int key)
{
	return modes[a->mode].key(a, key);
}

int tui_app_mouse(tui_app *a, tui_mouse m, int x, int y)
{
	return modes[a->mode].mouse ? modes[a->mode].mouse(a, m, x, y) : 0;
}

bool tui_app_draw_mode(tui_app *a, tui_screen *s)
{
	if (!modes[a->mode].draw)
		return false;
	modes[a->mode].draw(a, s);
	return true;
}

/* The stack window's commands, whatever key or click asked for them. */
static int grid_command(tui_app *a, tui_command c)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	const sv_row *r = p->cursor < f->rows.n ? &f->rows.row[p->cursor] : NULL;
	if (tab_ops[a->tab].command) {
		int flags = tab_ops[a->tab].command(a, c);
		if (flags != TUI_NOT_MINE)
			return flags;
	}
	switch (c) {
	case CMD_UP: return tui_move(a, -1);
	case CMD_DOWN: return tui_move(a, 1);
	case CMD_PGUP: return tui_move(a, -(long)tui_page_rows(a));
	case CMD_PGDN: return tui_move(a, (long)tui_page_rows(a));
	case CMD_HOME: return tui_move(a, -(long)f->rows.n);
	case CMD_END: return tui_move(a, (long)f->rows.n);
	case CMD_SCROLL_LEFT:
	case CMD_SCROLL_RIGHT:
		a->hscroll += c == CMD_SCROLL_RIGHT ? 8 : -8;
		if (a->hscroll < 0)
			a->hscroll = 0;
		if (a->hscroll > 2000)
			a->hscroll = 2000;
		return TUI_REDRAW;
	case CMD_EXPAND:
		if (!tui_tree_tab(a) && r) /* a flat list: Right scrolls long names */
			return grid_command(a, CMD_SCROLL_RIGHT);
		if (!tui_tree_tab(a) || !r)
			return TUI_REDRAW;
		if (r->has_children && !r->expanded)
			return tui_set_expanded(a, r, 1);
		return r->has_children ? tui_move(a, 1) : TUI_REDRAW;
	case CMD_COLLAPSE:
		if (!tui_tree_tab(a) && r)
			return grid_command(a, CMD_SCROLL_LEFT);
		if (!tui_tree_tab(a) || !r)
			return TUI_REDRAW;
		if (r->expanded)
			return tui_set_expanded(a, r, 0);
		for (size_t i = p->cursor; i-- > 0;)
			if (f->rows.row[i].depth + 1 == r->depth) {
				p->cursor = i;
				break;
			}
		return TUI_REDRAW;
	case CMD_TOGGLE:
		if (!tui_tree_tab(a) || !r || !r->has_children)
			return TUI_REDRAW;
		return tui_set_expanded(a, r, r->expanded ? 0 : 1);
	case CMD_EXPAND_ALL:
	case CMD_COLLAPSE_ALL:
		if (!tui_tree_tab(a) || !r) {
			tui_status(a, "no tree here: CallTree, Callers and Callees expand");
			return TUI_REDRAW;
		}
		return tui_set_expanded(a, r, c == CMD_EXPAND_ALL ? 2 : 3);
	case CMD_ENTER:
		return cmd_enter(a);
	case CMD_TAB_NEXT: return tui_switch_tab(a, (tui_tab)((a->tab + 1) % TAB_COUNT));
	case CMD_TAB_PREV: return tui_switch_tab(a, (tui_tab)((a->tab + TAB_COUNT - 1) % TAB_COUNT));
	case CMD_TAB_BYNAME: return tui_switch_tab(a, TAB_BYNAME);
	case CMD_TAB_CALLTREE: return tui_switch_tab(a, TAB_CALLTREE);
	case CMD_TAB_CALLERS: return tui_switch_tab(a, TAB_CALLERS);
	case CMD_TAB_CALLEES: return tui_switch_tab(a, TAB_CALLEES);
	case CMD_TAB_CC: return tui_switch_tab(a, TAB_CC);
	case CMD_TAB_FLAME: return tui_switch_tab(a, TAB_FLAME);
	case CMD_TAB_NOTES: return tui_switch_tab(a, a->tab == TAB_NOTES ? TAB_CALLTREE : TAB_NOTES);
	case CMD_EDIT_GROUP:
	case CMD_EDIT_FOLD:
	case CMD_EDIT_FOLDPCT:
	case CMD_EDIT_INC:
	case CMD_EDIT_EXC:
	case CMD_EDIT_START:
	case CMD_EDIT_END:
		for (int b = 0; b < SV_BOX_COUNT; b++)
			if (edit_cmds[b] == c)
				tui_edit_start(a, EDIT_BOX, b, sv_params_get(&f->params, (sv_box)b));
		tui_status(a, "Enter applies, Esc cancels, Up/Down: earlier values");
		return TUI_REDRAW;
	case CMD_FOLD_MORE:
	case CMD_FOLD_LESS: {
		char *out;
		if (sv_cmd_fold_pct(&out, sv_params_get(&f->params, SV_BOX_FOLD_PCT), c == CMD_FOLD_MORE))
			return TUI_REDRAW;
		int rc = out[0] ? tui_apply_box(a, SV_BOX_FOLD_PCT, out) : TUI_REDRAW;
		if (!out[0])
			tui_status(a, "Fold%% is empty: %% sets it");
		free(out);
		return rc;
	}
	case CMD_DRILL: return tui_drill(a, true);
	case CMD_DRILL_EXC: return tui_drill(a, false);
	case CMD_POP: return cmd_leave(a, true);
	case CMD_QUIT: return cmd_leave(a, false);
	case CMD_NAV_BACK: return tui_nav_back(a);
	case CMD_NAV_FORWARD: return tui_nav_forward(a);
	case CMD_UNGROUP: return tui_row_command(a, SV_BOX_GROUP, sv_cmd_ungroup, "Ungroup");
	case CMD_UNGROUP_MODULE: return tui_row_command(a, SV_BOX_GROUP, sv_cmd_ungroup_module, "Ungroup Module");
	case CMD_GROUP_MODULE: return tui_row_command(a, SV_BOX_GROUP, cmd_group_module, "Group Module");
	case CMD_ENTRY_GROUP_MODULE: return tui_row_command(a, SV_BOX_GROUP, cmd_entry_group_module, "Entry Group Module");
	case CMD_FOLD_ITEM: return tui_row_command(a, SV_BOX_FOLD, sv_cmd_fold_item, "Fold Item");
	case CMD_FOLD_MODULE: return tui_row_command(a, SV_BOX_FOLD, sv_cmd_fold_module, "Fold Module");
	case CMD_INCLUDE_ITEM: return tui_row_command(a, SV_BOX_INC, cmd_include, "Include Item");
	case CMD_EXCLUDE_ITEM: return tui_row_command(a, SV_BOX_EXC, cmd_exclude, "Exclude Item");
	case CMD_REMOVE_FOLDING: {
		sv_params np;
		if (sv_params_copy(&np, &f->params) || sv_cmd_remove_all_folding(&np)) {
			sv_params_dispose(&np);
			return TUI_REDRAW;
		}
		int rc = tui_apply_params(a, &np, "folding removed");
		sv_params_dispose(&np);
		return rc;
	}
	case CMD_TIME_RANGE: {
		if (!r)
			return TUI_REDRAW;
		sv_params np;
		if (sv_params_copy(&np, &f->params) || sv_cmd_set_time_range(&np, r->st->first, r->st->last)) {
			sv_params_dispose(&np);
			return TUI_REDRAW;
		}
		int rc = tui_apply_params(a, &np, "time range set");
		sv_params_dispose(&np);
		return rc;
	}
	case CMD_FLATTEN: return tui_flatten_view(a);
	case CMD_WHEN_SELECT: return tui_when_start(a);
	case CMD_GOTO_CALLERS: return tui_grid_tab(a) ? tui_set_focus(a, TAB_CALLERS) : TUI_REDRAW;
	case CMD_GOTO_CALLEES: return tui_grid_tab(a) ? tui_set_focus(a, TAB_CALLEES) : TUI_REDRAW;
	case CMD_GOTO_CC: return tui_grid_tab(a) ? tui_set_focus(a, TAB_CC) : TUI_REDRAW;
	case CMD_GOTO_CALLTREE: return tui_goto_calltree(a);
	case CMD_GOTO_BYNAME: return tui_goto_byname(a);
	case CMD_COPY_ROW: return tui_copy_rows(a, false);
	case CMD_COPY_SUBTREE: return tui_copy_rows(a, true);
	case CMD_COLUMNS:
		a->mode = MODE_COLUMNS;
		return TUI_REDRAW;
	case CMD_BACK: return tui_history(a, -1);
	case CMD_FORWARD: return tui_history(a, 1);
	case CMD_FIND: /* an empty prompt each time, as less and perf report have */
		tui_edit_start(a, EDIT_FIND, -1, "");
		tui_status(a, "find (regex): Enter searches, n / N the next / previous match");
		return TUI_REDRAW;
	case CMD_FIND_NEXT: return tui_find_next(a, false, 1);
	case CMD_FIND_PREV: return tui_find_next(a, false, -1);
	case CMD_SAVE: {
		if (!a->save) {
			tui_status(a, "saving is not available here");
			return TUI_REDRAW;
		}
		/* PerfView's default name: <base>.View<n>.perfView.xml.zip */
		char name[600];
		const char *t = a->frames[0].title;
		size_t n = strlen(t);
		static const char *const exts[] = { ".perfView.xml.zip", ".perfView.xml", ".perfView.json.zip",
						    ".perfView.json", ".data.txt", ".txt", ".folded" };
		for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
			size_t l = strlen(exts[i]);
			if (n > l && strcmp(t + n - l, exts[i]) == 0) {
				n -= l;
				break;
			}
		}
		snprintf(name, sizeof(name), "%.*s.View%u.perfView.xml.zip", (int)n, t, ++a->saves);
		tui_edit_start(a, EDIT_SAVE, -1, name);
		tui_status(a, "save as: Enter writes, Esc cancels");
		return TUI_REDRAW;
	}
	case CMD_EVENTS: return tui_events_start(a);
	case CMD_EVLIST: return tui_evlist_start(a);
	case CMD_REPORTS: return tui_report_start(a);
	case CMD_ANNOTATE: return tui_annotate_start(a);
	case CMD_GOTO_SOURCE: return tui_goto_source_start(a);
	case CMD_LOOKUP_SYMBOLS: return tui_lookup_symbols(a);
	case CMD_EDIT_PRIORITY:
		if (tui_priority_usable(a)) {
			tui_edit_start(a, EDIT_PRIORITY, -1, f->priority);
			tui_status(a, "priority: PAT->NUM;... first match wins; Enter rebuilds the tree, Esc cancels");
		}
		return TUI_REDRAW;
	case CMD_RAISE_ITEM_PRIORITY: return tui_priority_bump(a, false, 1);
	case CMD_LOWER_ITEM_PRIORITY: return tui_priority_bump(a, false, -1);
	case CMD_RAISE_MODULE_PRIORITY: return tui_priority_bump(a, true, 1);
	case CMD_LOWER_MODULE_PRIORITY: return tui_priority_bump(a, true, -1);
	case CMD_PRESETS:
		a->mode = MODE_PRESETS;
		if (a->presets_list.cursor >= tui_preset_count(a))
			a->presets_list.cursor = 0;
		return TUI_REDRAW;
	case CMD_SAVE_PRESET: {
		if (!a->presets) {
			tui_status(a, "presets are not available here");
			return TUI_REDRAW;
		}
		/* PerfView proposes the [...] comment of GroupPats as the name. */
		char *comment = NULL, *pats = NULL;
		if (sv_preset_split_group(&comment, &pats, f->params.box[SV_BOX_GROUP]))
			return TUI_REDRAW;
		tui_edit_start(a, EDIT_PRESET, -1, comment);
		free(comment);
		free(pats);
		tui_status(a, "preset name: Enter saves GroupPats, Fold%% and FoldPats, Esc cancels");
		return TUI_REDRAW;
	}
	case CMD_HELP:
		a->mode = MODE_HELP;
		a->help = (tui_list){ .scroll_only = true };
		return TUI_REDRAW;
	default:
		return TUI_REDRAW;
	}
}
