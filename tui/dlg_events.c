/* SPDX-License-Identifier: MIT */
/* The event picker (v): the events a file holds (perf: one per event recorded), Enter opens
 * the file again for the chosen one, on the stack of views (Esc comes back). Reading the file
 * is the caller's (tui_options.reload), as the TUI knows no formats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

static void place(tui_app *a)
{
	const sv_source *src = tui_app_frame(a)->src;
	tui_list_place(&a->events, sv_source_event_count(src), TUI_PICK_TOP, a->h - TUI_PICK_TOP);
}

int tui_events_start(tui_app *a)
{
	const sv_source *src = tui_app_frame(a)->src;
	if (sv_source_event_count(src) < 2) {
		tui_status(a, sv_source_event_count(src) ? "this file holds one event: %s" : "this file names no events",
			   sv_source_event_count(src) ? sv_source_event(src, 0)->name : "");
		return TUI_REDRAW;
	}
	if (!a->reload) {
		tui_status(a, "another event cannot be opened here");
		return TUI_REDRAW;
	}
	a->events = (tui_list){ 0 };
	for (size_t i = 0; i < sv_source_event_count(src); i++)
		if (sv_source_event(src, i)->selected)
			a->events.cursor = i;
	a->mode = MODE_EVENTS;
	return TUI_REDRAW;
}

static int open_event(tui_app *a)
{
	const sv_source *src = tui_app_frame(a)->src;
	const sv_event *e = sv_source_event(src, a->events.cursor);
	a->mode = MODE_GRID;
	if (e->selected) {
		tui_status(a, "%s is the event shown", e->name);
		return TUI_REDRAW;
	}
	sv_source *ns = NULL;
	sv_error err;
	sv_error_clear(&err);
	tui_reload rl = { .event = e->name, .priority = tui_app_frame(a)->priority,
			  .symbol_modules = a->symbol_modules[0] ? a->symbol_modules : NULL };
	tui_busy(a, "reading the samples of %s...", e->name);
	tui_busy_watch(a, &rl, true);
	if (a->reload(a->reload_payload, &rl, &ns, &err)) {
		tui_status(a, "%s", err.msg);
		return TUI_REDRAW;
	}
	char title[300];
	snprintf(title, sizeof(title), "event %.200s", e->name);
	char *prio = tui_app_frame(a)->priority ? strdup(tui_app_frame(a)->priority) : NULL;
	tui_nav_push(a);
	if (sv_source_intervals(ns)) /* thread time: the longest interval beside the counts */
		a->col_hidden[SV_COL_MAX] = false;
	size_t before = a->nframes;
	int r = tui_push_frame(a, ns, &tui_app_frame(a)->params, title);
	if (a->nframes > before)
		tui_app_frame(a)->priority = prio;
	else
		free(prio);
	return r;
}

int tui_events_key(tui_app *a, int key)
{
	place(a);
	if (tui_list_key(&a->events, key, true))
		return TUI_REDRAW;
	if (key == '\n' || key == KEY_ENTER)
		return open_event(a);
	a->mode = MODE_GRID; /* Esc, q, v */
	return TUI_REDRAW;
}

int tui_events_mouse(tui_app *a, tui_mouse m, int x, int y)
{
	(void)x;
	place(a);
	switch (tui_list_mouse(&a->events, m, y)) {
	case TUI_LIST_NONE: return 0;
	case TUI_LIST_OPEN: return open_event(a);
	default: return TUI_REDRAW;
	}
}

static void event_line(tui_app *a, tui_screen *s, size_t i, int y, int attr)
{
	const sv_event *e = sv_source_event(tui_app_frame(a)->src, i);
	char line[300], n[64];
	sv_format_number(n, sizeof(n), (double)e->samples, 0);
	snprintf(line, sizeof(line), "  %s %-40.200s %12s samples", e->selected ? "(shown)" : "       ", e->name, n);
	tui_screen_text(s, 0, y, line, a->w, attr);
}

void tui_events_draw(tui_app *a, tui_screen *s)
{
	tui_screen_text(s, 0, 0, "Events: Enter opens the file for the event chosen (Esc in it comes back), Esc closes", a->w,
			TUI_A_TITLE);
	tui_screen_fill(s, 0, 3, a->w, TUI_A_TITLE | TUI_A_UNDERLINE);
	tui_screen_text(s, 0, 3, "          Event                                         Samples", a->w,
			TUI_A_TITLE | TUI_A_UNDERLINE);
	place(a);
	tui_list_draw(&a->events, a, s, event_line);
}
