/* SPDX-License-Identifier: MIT */
/* Painting the stack window into a screen: summary line, filter boxes, tabs, the grid of
 * rows (computed by lib/), the status line, and the help overlay. Nothing here walks a tree
 * or changes state. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "stackview/flame.h"

static const char *const tab_names[TAB_COUNT] = { "ByName", "CallTree", "Callers", "Callees", "Caller-Callee",
						  "Flame", "Notes" };

static sv_rows_kind tab_kind(const tui_app *a)
{
	return a->tab == TAB_BYNAME ? SV_ROWS_BYNAME : SV_ROWS_CALLTREE;
}

/* Columns shown for a width, in the grid's order (lib/): Name keeps at least max(30, width/3)
 * screen columns; the others go by their drop rank (counts first, When late); hidden ones
 * never show. `width` holds each column's width. */
static int pick(const tui_app *a, const int *width, sv_col *out)
{
	sv_col all[SV_COL_COUNT], vis[SV_COL_COUNT];
	size_t na = sv_grid_all_columns(tab_kind(a), all);
	int nv = 0;
	for (size_t i = 1; i < na; i++) /* all[0] is Name */
		if (!a->col_hidden[all[i]])
			vis[nv++] = all[i];
	int namemin = a->w / 3 > 30 ? a->w / 3 : 30;
	int floor_n = nv < 2 ? nv : 2;
	for (;;) {
		int w = namemin;
		for (int i = 0; i < nv; i++)
			w += width[vis[i]] + 1;
		if (w <= a->w || nv <= floor_n)
			break;
		int worst = 0;
		for (int i = 1; i < nv; i++)
			if (sv_column_get(vis[i])->drop > sv_column_get(vis[worst])->drop)
				worst = i;
		memmove(vis + worst, vis + worst + 1, (size_t)(nv - worst - 1) * sizeof(*vis));
		nv--;
	}
	out[0] = SV_COL_NAME;
	for (int i = 0; i < nv; i++)
		out[i + 1] = vis[i];
	return nv + 1;
}

/* A line being edited: scrolled sideways, a character at a time, so that the cursor (at
 * byte `cur` of `text`) stays within `avail` columns; the cursor cell in reverse video. */
static void draw_edit_line(tui_screen *s, int x, int y, int avail, const char *text, size_t cur, int attr)
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

static void draw_boxes(tui_app *a, tui_screen *s, int y)
{
	tui_frame *f = tui_app_frame(a);
	static const struct {
		sv_box box;
		int row, x;
		const char *label;
	} layout[] = {
		{ SV_BOX_GROUP, 0, 0, "GroupPats: " }, { SV_BOX_FOLD, 1, 0, "FoldPats: " },
		{ SV_BOX_FOLD_PCT, 1, -1, "Fold%: " },   { SV_BOX_INC, 2, 0, "IncPats: " },
		{ SV_BOX_EXC, 2, -1, "ExcPats: " },      { SV_BOX_START, 3, 0, "Start: " },
		{ SV_BOX_END, 3, 24, "End: " },
	};
	int half = a->w / 2;
	for (size_t i = 0; i < sizeof(layout) / sizeof(layout[0]); i++) {
		int x = layout[i].x < 0 ? half : layout[i].x;
		int maxw = layout[i].x < 0 ? a->w - half : (layout[i].row == 0 ? a->w : half - 1);
		if (layout[i].box == SV_BOX_START)
			maxw = 23;
		int yy = y + layout[i].row;
		int lw = tui_screen_text(s, x, yy, layout[i].label, maxw, TUI_A_BOLD);
		bool editing = a->edit_box == (int)layout[i].box;
		const char *text = editing ? a->edit : sv_params_get(&f->params, layout[i].box);
		if (layout[i].box == SV_BOX_FOLD_PCT && !text[0] && !editing)
			text = "";
		if (editing) {
			draw_edit_line(s, x + lw, yy, maxw - lw - 1, text, a->edit_cur, TUI_A_UNDERLINE);
		} else {
			tui_screen_text(s, x + lw, yy, text, maxw - lw, TUI_A_NORMAL);
		}
	}
}

static void draw_help(tui_app *a, tui_screen *s)
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
			draw_edit_line(s, 1, y, a->w - 2, buf, cur - (size_t)(p - t), TUI_A_NORMAL);
		else
			tui_screen_text(s, 1, y, buf, a->w - 2, TUI_A_NORMAL);
		p = e ? e + 1 : NULL;
	}
}

static void draw_notes(tui_app *a, tui_screen *s, int y0, int y1)
{
	if (a->notes_edit) {
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

static void tab_label(char *buf, size_t size, const tui_app *a, int t)
{
	snprintf(buf, size, t == (int)a->tab ? "[%d %s]" : " %d %s ", t + 1, tab_names[t]);
}

int tui_draw_tab_at(const tui_app *a, int x)
{
	int x0 = 0;
	for (int t = 0; t < TAB_COUNT; t++) {
		char label[40];
		tab_label(label, sizeof(label), a, t);
		int w = (int)strlen(label);
		if (x >= x0 && x < x0 + w)
			return t;
		x0 += w + 1;
	}
	return -1;
}

/* The selected box's row stays on screen. */
int tui_draw_flame_top_depth(const tui_app *a, int rows)
{
	const tui_frame *f = &a->frames[a->nframes - 1];
	const sv_flame *fl = f->flame;
	if (!fl || !fl->n)
		return 0;
	const sv_flame_box *sel = &fl->box[f->flame_sel < fl->n ? f->flame_sel : 0];
	return (int)sel->depth >= rows ? (int)sel->depth - rows + 1 : 0;
}

bool tui_draw_flame_span(const tui_app *a, const sv_flame_box *b, int *x0, int *x1)
{
	*x0 = (int)floor(b->x * a->w + 0.5);
	*x1 = (int)floor((b->x + b->w) * a->w + 0.5);
	if (*x1 > a->w)
		*x1 = a->w;
	return *x1 > *x0;
}

/* The Flame tab: an icicle (root on top), one row per depth, box widths from lib/flame.c. */
static void draw_flame(tui_app *a, tui_screen *s, int y0, int y1)
{
	tui_frame *f = tui_app_frame(a);
	const sv_flame *fl = f->flame;
	if (!fl || !fl->n) {
		tui_screen_text(s, 1, y0, "(no samples)", a->w - 1, TUI_A_DIM);
		return;
	}
	int top_depth = tui_draw_flame_top_depth(a, y1 - y0);
	const sv_flame_box *sel = &fl->box[f->flame_sel < fl->n ? f->flame_sel : 0];
	for (size_t i = 0; i < fl->n; i++) {
		const sv_flame_box *b = &fl->box[i];
		int y = y0 + (int)b->depth - top_depth;
		if (y < y0 || y >= y1)
			continue;
		int x0, x1;
		if (!tui_draw_flame_span(a, b, &x0, &x1))
			continue;
		const char *name = sv_view_name(f->view, b->name);
		int attr;
		if (fl->diff) {
			attr = b->inc > 0 ? TUI_A_FLAME2 : b->inc < 0 ? (TUI_A_FLAME1 | TUI_A_FLAME2) : TUI_A_FLAME1;
		} else {
			unsigned h = 2166136261u;
			for (const unsigned char *p = (const unsigned char *)name; *p; p++)
				h = (h ^ *p) * 16777619u;
			attr = (h & 1) ? TUI_A_FLAME1 : TUI_A_FLAME2;
		}
		if (b == sel)
			attr |= TUI_A_REVERSE | TUI_A_BOLD;
		int inner = x1 - x0 > 1 ? x1 - x0 - 1 : 1; /* a blank column separates boxes */
		tui_screen_fill(s, x0, y, inner, attr);
		tui_screen_text(s, x0, y, name, inner, attr);
	}
}

/* The Presets list: PerfView's built-ins, then the user's. */
static void draw_presets(tui_app *a, tui_screen *s)
{
	char line[1200];
	tui_screen_text(s, 0, 0, "Presets: Enter applies (GroupPats, Fold%, FoldPats), d deletes one of yours, Esc closes",
			a->w, TUI_A_TITLE);
	tui_screen_text(s, 0, 1, "S in the stack window saves the current boxes as a preset", a->w, TUI_A_DIM);
	tui_screen_fill(s, 0, 3, a->w, TUI_A_TITLE | TUI_A_UNDERLINE);
	snprintf(line, sizeof(line), "%-5s %-28s %-40s %-6s %s", "", "Name", "GroupPats", "Fold%", "FoldPats");
	tui_screen_text(s, 0, 3, line, a->w, TUI_A_TITLE | TUI_A_UNDERLINE);
	size_t n = sv_builtin_preset_count() + (a->presets ? a->presets->n : 0);
	int rows = a->h - TUI_PICK_TOP;
	if (a->preset_cursor < a->preset_top)
		a->preset_top = a->preset_cursor;
	if (rows > 0 && a->preset_cursor >= a->preset_top + (size_t)rows)
		a->preset_top = a->preset_cursor - (size_t)rows + 1;
	for (size_t i = a->preset_top; i < n && (int)(i - a->preset_top) < rows; i++) {
		int y = TUI_PICK_TOP + (int)(i - a->preset_top);
		int attr = i == a->preset_cursor ? TUI_A_REVERSE : 0;
		if (attr)
			tui_screen_fill(s, 0, y, a->w, attr);
		tui_app_preset_line(a, i, line, sizeof(line));
		tui_screen_text(s, 0, y, line, a->w, attr);
	}
}

static void draw_picker(tui_app *a, tui_screen *s)
{
	tui_frame *f = tui_app_frame(a);
	char line[512];
	snprintf(line, sizeof(line), "%s: choose the processes to look at", f->title);
	tui_screen_text(s, 0, 0, line, a->w, TUI_A_TITLE);
	snprintf(line, sizeof(line), "Filter: %s", a->pick_filter);
	int used = tui_screen_text(s, 0, 1, line, a->w, TUI_A_BOLD);
	tui_screen_fill(s, used, 1, 1, TUI_A_REVERSE);
	double total = sv_source_total_metric(f->src);
	tui_screen_fill(s, 0, 3, a->w, TUI_A_TITLE | TUI_A_UNDERLINE);
	tui_screen_text(s, 0, 3, "     Name", a->w, TUI_A_TITLE | TUI_A_UNDERLINE);
	snprintf(line, sizeof(line), "%8s %10s %12s %6s", "PID", "Samples", "Metric", "%");
	tui_screen_text(s, a->w - (int)strlen(line), 3, line, a->w, TUI_A_TITLE | TUI_A_UNDERLINE);
	int rows = a->h - 6; /* title, filter, blank, titles above; a hint below */
	size_t n = a->nshown + 1;
	size_t top = a->pick_cursor >= (size_t)rows ? a->pick_cursor - (size_t)rows + 1 : 0;
	for (size_t i = top; i < n && (int)(i - top) < rows; i++) {
		int y = TUI_PICK_TOP + (int)(i - top);
		int attr = i == a->pick_cursor ? TUI_A_REVERSE : 0;
		if (attr)
			tui_screen_fill(s, 0, y, a->w, attr);
		if (i == 0) {
			snprintf(line, sizeof(line), "     [all processes: %zu]", a->nprocs);
			tui_screen_text(s, 0, y, line, a->w, attr | TUI_A_BOLD);
			continue;
		}
		const sv_process *p = &a->procs[a->shown[i - 1]];
		snprintf(line, sizeof(line), " %s  %s", a->picked[a->shown[i - 1]] ? "[x]" : "[ ]", p->name);
		char num[64], right[128];
		sv_format_number(num, sizeof(num), p->metric, 1);
		snprintf(right, sizeof(right), "%8ld %10zu %12s %5.1f%%", p->pid, p->samples, num,
			 total != 0 ? 100.0 * p->metric / total : 0);
		int rw = (int)strlen(right);
		tui_screen_text(s, 0, y, line, a->w - rw - 1, attr);
		tui_screen_text(s, a->w - rw, y, right, rw, attr);
	}
	tui_screen_fill(s, 0, a->h - 1, a->w, TUI_A_REVERSE);
	tui_screen_text(s, 0, a->h - 1, "type to filter  Space marks  Enter opens  Esc: all processes", a->w,
			TUI_A_REVERSE);
}

int tui_draw_columns(tui_app *a, sv_col *shown, int *width)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	/* Scroll first, so the widths are measured on the rows that will show. */
	int grid_rows = a->h - 1 - TUI_GRID_TOP - 1;
	size_t visible = grid_rows > 0 ? (size_t)grid_rows : 0;
	if (p->cursor < p->top)
		p->top = p->cursor;
	if (visible && p->cursor >= p->top + visible)
		p->top = p->cursor - visible + 1;
	double basis = sv_grid_basis(f->view);
	for (int c = 1; c < SV_COL_COUNT; c++)
		width[c] = c == SV_COL_WHEN ? SV_WHEN_LEN : sv_text_width(sv_column_get((sv_col)c)->title) + (c == a->sort_col[a->tab]);
	for (size_t i = p->top; i < f->rows.n && i < p->top + visible; i++)
		for (int c = 1; c < SV_COL_COUNT; c++) {
			char buf[64];
			if (c == SV_COL_WHEN)
				continue;
			sv_grid_cell(buf, sizeof(buf), (sv_col)c, NULL, f->rows.row[i].st, basis, NULL);
			int bw = sv_text_width(buf);
			if (bw > width[c])
				width[c] = bw;
		}
	for (int c = 1; c < SV_COL_COUNT; c++) {
		width[c] += a->col_delta[c];
		if (width[c] < 1)
			width[c] = 1;
	}
	int ncol = pick(a, width, shown);
	int fixed = 0;
	for (int i = 1; i < ncol; i++)
		fixed += width[shown[i]] + 1;
	width[SV_COL_NAME] = a->w - fixed > 1 ? a->w - fixed : 1;
	return ncol;
}

char *tui_draw_rows_text(tui_app *a, const sv_rows *rows)
{
	sv_col shown[SV_COL_COUNT];
	int width[SV_COL_COUNT];
	int ncol = tui_draw_columns(a, shown, width);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	sv_grid_style st = { .tsv = false, .marks = false };
	int rc = sv_grid_print(f, tui_app_frame(a)->view, rows, shown, (size_t)ncol, &st);
	if (fclose(f) || rc) {
		free(text);
		return NULL;
	}
	return text;
}

/* The Columns dialog: one line per column. */
static void draw_columns_dialog(tui_app *a, tui_screen *s)
{
	char line[256];
	tui_screen_text(s, 0, 0, "Columns: Space shows/hides, +/- (Right/Left) widens/narrows, s or Enter sorts (again: reverses),",
			a->w, TUI_A_TITLE);
	tui_screen_text(s, 0, 1, "o restores the views' own order, r resets everything, Esc closes", a->w, TUI_A_TITLE);
	tui_screen_fill(s, 0, 3, a->w, TUI_A_TITLE | TUI_A_UNDERLINE);
	tui_screen_text(s, 0, 3, "      Column    Width       Sort", a->w, TUI_A_TITLE | TUI_A_UNDERLINE);
	sv_col all[SV_COL_COUNT];
	sv_grid_all_columns(tab_kind(a), all);
	for (int i = 0; i < SV_COL_COUNT; i++) {
		sv_col c = all[i];
		int y = TUI_PICK_TOP + i;
		int attr = (size_t)i == a->cols_cursor ? TUI_A_REVERSE : 0;
		char wd[32];
		if (c == SV_COL_NAME)
			snprintf(wd, sizeof(wd), "the rest");
		else if (a->col_delta[c])
			snprintf(wd, sizeof(wd), "auto %+d", a->col_delta[c]);
		else
			snprintf(wd, sizeof(wd), "auto");
		const char *sort = (int)c == a->sort_col[a->tab]	 ? (a->sort_asc[a->tab] ? "ascending" : "descending")
				   : !sv_column_get(c)->sortable ? "-"
								 : "";
		snprintf(line, sizeof(line), "  %s  %-9s %-11s %s", c == SV_COL_NAME || !a->col_hidden[c] ? "[x]" : "[ ]",
			 sv_column_get(c)->title, wd, sort);
		if (attr)
			tui_screen_fill(s, 0, y, a->w, attr);
		tui_screen_text(s, 0, y, line, a->w, attr);
	}
}

void tui_app_draw(tui_app *a, tui_screen *s)
{
	tui_frame *f = tui_app_frame(a);
	tui_screen_clear(s);
	if (a->picking) {
		draw_picker(a, s);
		return;
	}
	if (a->help) {
		draw_help(a, s);
		return;
	}
	if (a->presets_open) {
		draw_presets(a, s);
		return;
	}
	if (a->cols_open) {
		draw_columns_dialog(a, s);
		return;
	}
	char line[1024];
	/* 0: title and summary */
	int used = tui_screen_text(s, 0, 0, f->title, a->w / 3, TUI_A_TITLE);
	if (a->nframes > 1) {
		char depth[32];
		snprintf(depth, sizeof(depth), " [%zu]", a->nframes);
		used += tui_screen_text(s, used, 0, depth, 8, TUI_A_TITLE);
	}
	sv_view_summary_line(line, sizeof(line), f->view);
	tui_screen_text(s, used + (used ? 2 : 0), 0, line, a->w - used - 2, TUI_A_NORMAL);
	/* 1-4: boxes */
	draw_boxes(a, s, 1);
	/* 5: tabs and focus */
	int x = 0;
	for (int t = 0; t < TAB_COUNT; t++) {
		char label[40];
		tab_label(label, sizeof(label), a, t);
		x += tui_screen_text(s, x, TUI_TABS_ROW, label, a->w - x,
				     t == (int)a->tab ? TUI_A_TITLE | TUI_A_REVERSE : TUI_A_NORMAL);
		x++;
	}
	if (f->focus && (a->tab == TAB_CALLERS || a->tab == TAB_CALLEES || a->tab == TAB_CC)) {
		snprintf(line, sizeof(line), "focus: %s", f->focus);
		tui_screen_text(s, x + 1, TUI_TABS_ROW, line, a->w - x - 1, TUI_A_BOLD);
	}
	int grid_top = TUI_GRID_TOP, grid_bottom = a->h - 1; /* header row, rows, status */
	if (a->tab == TAB_NOTES) {
		draw_notes(a, s, grid_top, grid_bottom);
	} else if (a->tab == TAB_FLAME) {
		draw_flame(a, s, grid_top, grid_bottom);
	} else {
		tui_pane *p = &f->pane[a->tab];
		size_t visible = (size_t)(grid_bottom - grid_top - 1);
		int width[SV_COL_COUNT];
		sv_col shown[SV_COL_COUNT];
		int ncol = tui_draw_columns(a, shown, width);
		double basis = sv_grid_basis(f->view);
		int namew = width[SV_COL_NAME];
		/* header, with the sort column marked */
		x = 0;
		for (int i = 0; i < ncol; i++) {
			int w = width[shown[i]];
			char t[32];
			snprintf(t, sizeof(t), "%s%s", sv_column_get(shown[i])->title,
				 (int)shown[i] == a->sort_col[a->tab] ? (a->sort_asc[a->tab] ? "\u25b2" : "\u25bc") : "");
			int tw = sv_text_width(t);
			int tx = sv_column_get(shown[i])->left ? x : x + w - tw;
			if (tx < x)
				tx = x;
			tui_screen_fill(s, x, grid_top, w + 1, TUI_A_TITLE | TUI_A_UNDERLINE);
			tui_screen_text(s, tx, grid_top, t, w, TUI_A_TITLE | TUI_A_UNDERLINE);
			x += w + 1;
		}
		/* Deep trees: shift the Name column left so the cursor row's name stays readable. */
		int shift = 0;
		if (p->cursor < f->rows.n && a->tab != TAB_CC) {
			int cur = (int)f->rows.row[p->cursor].depth * 2;
			if (cur + 2 + 16 > namew)
				shift = (cur - namew / 3) & ~1;
			if (shift < 0)
				shift = 0;
		}
		/* rows */
		bool tree = a->tab == TAB_CALLTREE || a->tab == TAB_CALLERS || a->tab == TAB_CALLEES;
		for (size_t i = p->top; i < f->rows.n && i < p->top + visible; i++) {
			int yy = grid_top + 1 + (int)(i - p->top);
			const sv_row *r = &f->rows.row[i];
			bool sel = i == p->cursor;
			bool focusrow = r->role == SV_ROLE_FOCUS;
			int attr = (sel ? TUI_A_REVERSE : 0) | (focusrow ? TUI_A_BOLD : 0);
			if (sel)
				tui_screen_fill(s, 0, yy, a->w, attr);
			char name[2048];
			const char *nm = sv_view_name(f->view, r->name);
			int indent = (int)r->depth * 2;
			const char *marker = !tree ? "" : !r->has_children ? "  " : r->expanded ? "- " : "+ ";
			snprintf(name, sizeof(name), "%*s%s%s", indent > 1000 ? 1000 : indent, "", marker, nm);
			if (shift) {
				size_t skip = 0, len = strlen(name);
				for (int col_ = 0; col_ < shift && skip < len; col_++) /* indentation is ASCII */
					skip++;
				tui_screen_text(s, 0, yy, "<", 1, attr | TUI_A_DIM);
				tui_screen_text(s, 1, yy, name + skip, namew - 1, attr);
			} else {
				tui_screen_text(s, 0, yy, name, namew, attr);
			}
			char when[SV_WHEN_LEN + 1];
			if (sv_rows_when(when, f->view, &f->rows, i))
				when[0] = '\0';
			x = namew + 1;
			for (int k = 1; k < ncol; k++) {
				char buf[64];
				int w = width[shown[k]];
				sv_grid_cell(buf, sizeof(buf), shown[k], NULL, r->st, basis, when);
				int bw = sv_text_width(buf);
				int cattr = attr;
				if (sv_column_get(shown[k])->decimals >= 0 && buf[0] == '-')
					cattr |= TUI_A_NEG;
				if (shown[k] == SV_COL_WHEN) {
					tui_screen_text(s, x, yy, buf, w, cattr);
					if (sel && a->when_sel) { /* the selected When characters */
						int lo = a->when_anchor < a->when_caret ? a->when_anchor : a->when_caret;
						int hi = a->when_anchor < a->when_caret ? a->when_caret : a->when_anchor;
						for (int c = lo; c <= hi && c < w; c++) {
							char one[2] = { buf[c], '\0' };
							tui_screen_text(s, x + c, yy, one, 1, TUI_A_UNDERLINE | TUI_A_BOLD);
						}
					}
				}
				else
					tui_screen_text(s, x + (bw < w ? w - bw : 0), yy, buf, w, cattr);
				x += w + 1;
			}
		}
		if (!f->rows.n)
			tui_screen_text(s, 1, grid_top + 1, a->tab == TAB_CC || a->tab == TAB_CALLERS || a->tab == TAB_CALLEES
								    ? "(no focus: Enter on a row sets it)"
								    : "(no samples)",
					a->w - 1, TUI_A_DIM);
	}
	/* status line */
	tui_pane *p = &f->pane[a->tab];
	if (a->when_sel) {
		/* what the selected When characters stand for (spec 7.7) */
		int lo = a->when_anchor < a->when_caret ? a->when_anchor : a->when_caret;
		int hi = a->when_anchor < a->when_caret ? a->when_caret : a->when_anchor;
		double start, d;
		char t0[48], t1[48];
		sv_view_when_bounds(f->view, &start, &d);
		sv_format_number(t0, sizeof(t0), start + lo * d, 3);
		sv_format_number(t1, sizeof(t1), start + (hi + 1) * d, 3);
		snprintf(line, sizeof(line), "When %d-%d of %d: %s .. %s ms  Left/Right extend, Enter sets the time range", lo + 1,
			 hi + 1, SV_WHEN_LEN, t0, t1);
	} else if (a->status[0]) {
		snprintf(line, sizeof(line), "%s", a->status);
	} else if (a->finding) {
		snprintf(line, sizeof(line), "find: %.1000s", a->edit);
	} else if (a->tab == TAB_FLAME && f->flame && f->flame->n) {
		const sv_flame_box *b = &f->flame->box[f->flame_sel < f->flame->n ? f->flame_sel : 0];
		char num[64];
		sv_format_number(num, sizeof(num), b->inc, 1);
		snprintf(line, sizeof(line), "%s  %s (%.1f%%)  Enter zooms, Esc goes back", sv_view_name(f->view, b->name),
			 num, 100.0 * b->w);
	} else {
		const char *nm = p->cursor < f->rows.n ? sv_view_name(f->view, f->rows.row[p->cursor].name) : "";
		snprintf(line, sizeof(line), "%zu/%zu %s", f->rows.n ? p->cursor + 1 : 0, f->rows.n, nm);
	}
	tui_screen_fill(s, 0, a->h - 1, a->w, TUI_A_REVERSE);
	const char *hint = "? help  q quit";
	int hw = sv_text_width(hint);
	tui_screen_text(s, 0, a->h - 1, line, a->w - hw - 2, TUI_A_REVERSE);
	tui_screen_text(s, a->w - hw, a->h - 1, hint, hw, TUI_A_REVERSE);
	if (a->finding || a->saving || a->naming_preset) {
		snprintf(line, sizeof(line), "%s%.1000s",
			 a->finding ? "find: " : a->saving ? "save as: " : "save as preset named: ", a->edit);
		tui_screen_fill(s, 0, a->h - 1, a->w, TUI_A_REVERSE);
		tui_screen_text(s, 0, a->h - 1, line, a->w, TUI_A_REVERSE);
	}
}
