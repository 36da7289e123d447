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

/* One box: its label, then its text (or the edit line when it is being edited). */
static void draw_box(tui_app *a, tui_screen *s, sv_box box, const char *label, int x, int y, int maxw)
{
	tui_frame *f = tui_app_frame(a);
	int lw = tui_screen_text(s, x, y, label, maxw, TUI_A_BOLD);
	bool editing = a->edit_box == (int)box;
	const char *text = editing ? a->edit : sv_params_get(&f->params, box);
	if (editing)
		tui_draw_edit_line(s, x + lw, y, maxw - lw - 1, text, a->edit_cur, TUI_A_UNDERLINE);
	else
		tui_screen_text(s, x + lw, y, text, maxw - lw, TUI_A_NORMAL);
}

/* Two lines on a short screen: GroupPats and Fold% on the first; FoldPats, IncPats, ExcPats,
 * Start and End on the second, each as wide as its text needs while the line has room, the
 * one being edited taking what the others leave. */
static void draw_boxes_compact(tui_app *a, tui_screen *s, int y)
{
	tui_frame *f = tui_app_frame(a);
	int pw = 16; /* "Fold%: " and a few digits */
	draw_box(a, s, SV_BOX_GROUP, "GroupPats: ", 0, y, a->w - pw - 1);
	draw_box(a, s, SV_BOX_FOLD_PCT, "Fold%: ", a->w - pw, y, pw);
	static const struct {
		sv_box box;
		const char *label;
	} line2[] = { { SV_BOX_FOLD, "FoldPats: " }, { SV_BOX_INC, "IncPats: " }, { SV_BOX_EXC, "ExcPats: " },
		      { SV_BOX_START, "Start: " },   { SV_BOX_END, "End: " } };
	enum { N = sizeof(line2) / sizeof(line2[0]) };
	int want[N], total = 0;
	for (int i = 0; i < N; i++) {
		bool editing = a->edit_box == (int)line2[i].box;
		int tw = sv_text_width(editing ? a->edit : sv_params_get(&f->params, line2[i].box));
		want[i] = (int)strlen(line2[i].label) + (editing ? 24 : tw < 4 ? 4 : tw) + 2;
		total += want[i];
	}
	/* too wide: the widest fields give way, one column at a time, the edited one last */
	while (total > a->w) {
		int k = -1;
		for (int i = 0; i < N; i++)
			if (want[i] > 12 && a->edit_box != (int)line2[i].box && (k < 0 || want[i] > want[k]))
				k = i;
		for (int i = 0; k < 0 && i < N; i++)
			if (want[i] > 12)
				k = i;
		if (k < 0)
			break;
		want[k]--;
		total--;
	}
	int x = 0;
	for (int i = 0; i < N && x < a->w; i++) {
		draw_box(a, s, line2[i].box, line2[i].label, x, y + 1, want[i] - 1 < a->w - x ? want[i] - 1 : a->w - x);
		x += want[i];
	}
}

static void draw_boxes(tui_app *a, tui_screen *s, int y)
{
	if (a->h < TUI_COMPACT_BELOW) {
		draw_boxes_compact(a, s, y);
		return;
	}
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
			tui_draw_edit_line(s, x + lw, yy, maxw - lw - 1, text, a->edit_cur, TUI_A_UNDERLINE);
		} else {
			tui_screen_text(s, x + lw, yy, text, maxw - lw, TUI_A_NORMAL);
		}
	}
}

void tui_app_draw(tui_app *a, tui_screen *s)
{
	tui_frame *f = tui_app_frame(a);
	tui_screen_clear(s);
	if (!f->view) { /* asleep while its file is read again (tui_busy), or quitting (tui_app.fatal) */
		tui_screen_text(s, 0, 0, f->title, a->w, TUI_A_TITLE);
		tui_screen_fill(s, 0, a->h - 1, a->w, TUI_A_REVERSE);
		tui_screen_text(s, 0, a->h - 1, a->status, a->w, TUI_A_REVERSE);
		return;
	}
	if (tui_app_draw_mode(a, s))
		return;
	char line[1024];
	/* 0: title and summary */
	int used = tui_screen_text(s, 0, 0, f->title, a->w / 3, TUI_A_TITLE);
	if (a->nframes > 1) {
		char depth[32];
		snprintf(depth, sizeof(depth), " [%zu]", a->nframes);
		used += tui_screen_text(s, used, 0, depth, 8, TUI_A_TITLE);
	}
	const sv_source *src = sv_view_source(f->view);
	const char *ev = sv_source_event_name(src), *unit = sv_source_unit(src);
	if (ev || unit) { /* the event and the metric's unit: "[cpu-clock, ms]" */
		char tag[160];
		snprintf(tag, sizeof(tag), " [%s%s%s]", ev ? ev : "", ev && unit && strcmp(ev, unit) ? ", " : "",
			 unit && (!ev || strcmp(ev, unit)) ? unit : "");
		used += tui_screen_text(s, used, 0, tag, a->w / 3, TUI_A_TITLE);
	}
	sv_view_summary_line(line, sizeof(line), f->view);
	sv_netpeak np;
	if (sv_source_has_negative(src) && sv_view_net_peak(f->view, &np) == 0 && np.signed_metric) {
		/* frees subtract: net and peak */
		char n[64], pk[64], at[64];
		sv_format_number(n, sizeof(n), np.net, 1);
		sv_format_number(pk, sizeof(pk), np.peak, 1);
		sv_format_number(at, sizeof(at), np.peak_time, 3);
		size_t l = strlen(line);
		snprintf(line + l, sizeof(line) - l, "  Net: %s  Peak: %s at %s", n, pk, at);
	}
	tui_screen_text(s, used + (used ? 2 : 0), 0, line, a->w - used - 2, TUI_A_NORMAL);
	/* 1-4: boxes */
	draw_boxes(a, s, 1);
	/* 5: tabs and focus */
	int x = 0;
	for (int t = 0; t < TAB_COUNT; t++) {
		char label[40];
		tui_tab_label(label, sizeof(label), a, t);
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
		tui_notes_draw(a, s, grid_top, grid_bottom);
	} else if (a->tab == TAB_FLAME) {
		tui_flame_draw(a, s, grid_top, grid_bottom);
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
			char t[80];
			/* Caller-Callee: the Name title says what the row marks mean */
			const char *title = shown[i] == SV_COL_NAME && a->tab == TAB_CC
						    ? "Name (< caller, = focus, > callee)"
						    : sv_column_get(shown[i])->title;
			snprintf(t, sizeof(t), "%s%s", title,
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
		shift += a->hscroll; /* < and > (Left and Right in flat lists) */
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
			const char *marker = tree ? (!r->has_children ? "  " : r->expanded ? "- " : "+ ")
					     : r->role == SV_ROLE_CALLER ? "< "
					     : r->role == SV_ROLE_FOCUS  ? "= "
					     : r->role == SV_ROLE_CALLEE ? "> "
									 : "";
			snprintf(name, sizeof(name), "%*s%s%s", indent > 1000 ? 1000 : indent, "", marker, nm);
			if (shift) {
				size_t skip = 0, len = strlen(name);
				for (int col_ = 0; col_ < shift && skip < len; col_++) /* a character at a time */
					do
						skip++;
					while (skip < len && (name[skip] & 0xC0) == 0x80);
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
				sv_grid_row_cell(buf, sizeof(buf), shown[k], r, basis, when);
				int bw = sv_text_width(buf);
				int cattr = attr;
				if (sv_column_get(shown[k])->decimals >= 0 && buf[0] == '-')
					cattr |= TUI_A_NEG;
				if (shown[k] == SV_COL_WHEN) {
					tui_screen_text(s, x, yy, buf, w, cattr);
					if (sel && a->mode == MODE_WHEN) { /* the selected When characters */
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
	if (a->mode == MODE_WHEN) {
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
	} else if (a->mode == MODE_EDIT && a->edit_kind == EDIT_FIND) {
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
	if (a->mode == MODE_EDIT && a->edit_kind != EDIT_BOX) {
		snprintf(line, sizeof(line), "%s%.1000s",
			 (a->edit_kind == EDIT_FIND) ? "find: " : (a->edit_kind == EDIT_SAVE) ? "save as: "
			 : (a->edit_kind == EDIT_PRIORITY) ? "priority: " : "save as preset named: ", a->edit);
		tui_screen_fill(s, 0, a->h - 1, a->w, TUI_A_REVERSE);
		tui_screen_text(s, 0, a->h - 1, line, a->w, TUI_A_REVERSE);
	}
}
