/* SPDX-License-Identifier: MIT */
/* The Flame tab: an icicle of the call tree (lib/flame.c lays it out), arrows move between
 * boxes, Enter zooms in, Esc zooms back out. */
#include "app.h"

#include <math.h>
#include <stdlib.h>

#include "stackview/flame.h"
#include "sv/array.h"

/* The selected box's row stays on screen. */
static int flame_top_depth(const tui_app *a, int rows)
{
	const tui_frame *f = &a->frames[a->nframes - 1];
	const sv_flame *fl = f->flame;
	if (!fl || !fl->n)
		return 0;
	const sv_flame_box *sel = &fl->box[f->flame_sel < fl->n ? f->flame_sel : 0];
	return (int)sel->depth >= rows ? (int)sel->depth - rows + 1 : 0;
}

static bool flame_span(const tui_app *a, const sv_flame_box *b, int *x0, int *x1)
{
	*x0 = (int)floor(b->x * a->w + 0.5);
	*x1 = (int)floor((b->x + b->w) * a->w + 0.5);
	if (*x1 > a->w)
		*x1 = a->w;
	return *x1 > *x0;
}

static int flame_zoom(tui_app *a, sv_node_id top, sv_node_id select)
{
	tui_frame *f = tui_app_frame(a);
	f->flame_top = top;
	sv_flame_free(f->flame);
	f->flame = NULL;
	a->after = (tui_after){ AFTER_FLAME_NODE, select };
	tui_status(a, top == SV_NODE_ROOT ? "whole tree" : "zoomed into %s", sv_view_name(f->view, sv_view_node_name(f->view, top)));
	return TUI_REDRAW | TUI_REFLATTEN;
}

int tui_flame_command(tui_app *a, tui_command c)
{
	switch (c) {
	case CMD_UP: case CMD_DOWN: case CMD_EXPAND: case CMD_COLLAPSE: case CMD_ENTER: case CMD_HOME:
		return tui_flame_key(a, c);
	case CMD_POP: /* zooms out while zoomed; otherwise Back, as everywhere */
		return tui_app_frame(a)->nzooms ? tui_flame_key(a, c) : TUI_NOT_MINE;
	default:
		return TUI_NOT_MINE;
	}
}

int tui_flame_key(tui_app *a, tui_command c)
{
	tui_frame *f = tui_app_frame(a);
	const sv_flame *fl = f->flame;
	if (!fl || !fl->n)
		return TUI_REDRAW;
	size_t sel = f->flame_sel < fl->n ? f->flame_sel : 0;
	const sv_flame_box *b = &fl->box[sel];
	switch (c) {
	case CMD_UP: /* the caller: the closest earlier box one level up (pre-order) */
		for (size_t i = sel; i-- > 0;)
			if (fl->box[i].depth + 1 == b->depth) {
				f->flame_sel = i;
				break;
			}
		break;
	case CMD_DOWN:
		if (sel + 1 < fl->n && fl->box[sel + 1].depth == b->depth + 1)
			f->flame_sel = sel + 1;
		break;
	case CMD_EXPAND:
	case CMD_COLLAPSE: { /* the neighbour at the same depth */
		bool right = c == CMD_EXPAND;
		size_t best = sel;
		for (size_t i = 0; i < fl->n; i++) {
			const sv_flame_box *o = &fl->box[i];
			if (o->depth != b->depth || i == sel)
				continue;
			if (right ? (o->x > b->x && (best == sel || o->x < fl->box[best].x))
				  : (o->x < b->x && (best == sel || o->x > fl->box[best].x)))
				best = i;
		}
		f->flame_sel = best;
		break;
	}
	case CMD_ENTER: {
		if (b->node == f->flame_top)
			return TUI_REDRAW;
		if (SV_ARRAY_PUSH(f->zooms, f->nzooms, f->zoom_cap, f->flame_top))
			return TUI_REDRAW;
		return flame_zoom(a, b->node, b->node);
	}
	case CMD_HOME:
		f->nzooms = 0;
		return flame_zoom(a, SV_NODE_ROOT, f->flame_top);
	case CMD_POP:
		if (f->nzooms) {
			sv_node_id old = f->flame_top;
			return flame_zoom(a, f->zooms[--f->nzooms], old);
		}
		return TUI_REDRAW;
	default:
		break;
	}
	b = &fl->box[f->flame_sel];
	char num[64];
	sv_format_number(num, sizeof(num), b->inc, 1);
	tui_status(a, "%s  %s (%.1f%%)", sv_view_name(f->view, b->name), num, 100.0 * b->w);
	return TUI_REDRAW;
}

int tui_flame_mouse(tui_app *a, tui_mouse m, int x, int y)
{
	tui_frame *f = tui_app_frame(a);
	const sv_flame *fl = f->flame;
	if (!fl || !fl->n || y <= TUI_GRID_TOP - 1 || y >= a->h - 1)
		return 0;
	int depth = y - TUI_GRID_TOP + flame_top_depth(a, a->h - 1 - TUI_GRID_TOP);
	for (size_t i = 0; i < fl->n; i++) {
		const sv_flame_box *b = &fl->box[i];
		int x0, x1;
		if ((int)b->depth != depth || !flame_span(a, b, &x0, &x1) || x < x0 || x >= x1)
			continue;
		f->flame_sel = i;
		return m == TUI_MOUSE_DOUBLE ? tui_flame_key(a, CMD_ENTER) : TUI_REDRAW;
	}
	return 0;
}

/* The Flame tab: an icicle (root on top), one row per depth, box widths from lib/flame.c. */
void tui_flame_draw(tui_app *a, tui_screen *s, int y0, int y1)
{
	tui_frame *f = tui_app_frame(a);
	const sv_flame *fl = f->flame;
	if (!fl || !fl->n) {
		tui_screen_text(s, 1, y0, "(no samples)", a->w - 1, TUI_A_DIM);
		return;
	}
	int top_depth = flame_top_depth(a, y1 - y0);
	const sv_flame_box *sel = &fl->box[f->flame_sel < fl->n ? f->flame_sel : 0];
	for (size_t i = 0; i < fl->n; i++) {
		const sv_flame_box *b = &fl->box[i];
		int y = y0 + (int)b->depth - top_depth;
		if (y < y0 || y >= y1)
			continue;
		int x0, x1;
		if (!flame_span(a, b, &x0, &x1))
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
