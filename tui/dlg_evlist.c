/* SPDX-License-Identifier: MIT */
/* The Events view (V; PerfView's Events window): every event of the trace, one row each —
 * time, kind, process, thread, CPU and the payload's fields — filtered by what is typed (any
 * case, in the kind, the process or the fields). Enter on an event goes back to the stack
 * window with Start and End around it, the cursor's event time in the status line. The
 * events are read (through tui_options.load_events: the TUI knows no formats) from when the
 * view is first opened, on a thread of their own: the rows read so far are listed and
 * filtered while the rest comes (a million-event trace shows its first rows at once), and
 * kept. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "evread.h"
#include "stackview/commands.h"

#define EV_AROUND_MS 10.0 /* Enter: the stack window's time range is the event's time +- this */

static void place(tui_app *a)
{
	tui_list_place(&a->evl, a->nevidx, TUI_PICK_TOP, a->h - 6);
}

/* The rows read since the filter last looked, to the rows shown. */
static void take_rows(tui_app *a)
{
	if (a->evlog && sv_evlog_filter_more(a->evlog, a->ev_filter, -1e300, 1e300, &a->ev_scanned, &a->evidx, &a->nevidx,
					     &a->evidx_cap))
		tui_status(a, "out of memory");
}

/* The reading has ended: its thread joined, what went wrong said. An error keeps the rows
 * read before it; with none the view closes. */
static void reading_ended(tui_app *a)
{
	sv_error err;
	int rc = tui_ev_read_finish(a->ev_read, false, a->ev_warn, sizeof(a->ev_warn), &err);
	a->ev_read = NULL;
	size_t n = sv_evlog_count(a->evlog);
	if (rc && rc != SV_ECANCELED) {
		if (n) {
			char at[32];
			sv_format_number(at, sizeof(at), (double)n, 0);
			tui_status(a, "the events after the first %s could not be read: %s", at, err.msg);
		} else {
			tui_status(a, "%s", err.msg);
		}
	}
	if (rc && !n) {
		sv_evlog_free(a->evlog); /* a later V tries again */
		a->evlog = NULL;
		if (a->mode == MODE_EVLIST)
			a->mode = MODE_GRID;
	}
}

bool tui_evlog_reading(const tui_app *a)
{
	return a->ev_read != NULL;
}

void tui_evlog_poll(tui_app *a)
{
	if (a->ev_read && tui_ev_read_ended(a->ev_read))
		reading_ended(a);
	if (a->mode == MODE_EVLIST)
		take_rows(a);
}

bool tui_evlog_wait(tui_app *a)
{
	if (a->ev_read)
		reading_ended(a);
	return a->evlog != NULL;
}

static int refilter(tui_app *a)
{
	/* keep the cursor on its event (or the next one) across filters */
	double at = 0;
	bool keep = a->evl.cursor < a->nevidx; /* (times may be negative: perf's before its first sample) */
	sv_evrow r;
	if (keep) {
		sv_evlog_get(a->evlog, a->evidx[a->evl.cursor], &r);
		at = r.ms;
	}
	free(a->evidx);
	a->evidx = NULL;
	a->nevidx = a->evidx_cap = a->ev_scanned = 0;
	take_rows(a);
	a->evl.cursor = keep ? sv_evlog_seek(a->evlog, a->evidx, a->nevidx, at) : 0;
	if (a->evl.cursor >= a->nevidx)
		a->evl.cursor = a->nevidx ? a->nevidx - 1 : 0;
	place(a);
	return TUI_REDRAW;
}

bool tui_evlog_load(tui_app *a, const char *what)
{
	if (!a->load_events) {
		tui_status(a, "%s: the events of traces read from a file (ETL, .nettrace, perf.data, perf script text)", what);
		return false;
	}
	if (a->evlog)
		return true;
	if (sv_evlog_new(&a->evlog)) {
		tui_status(a, "out of memory");
		return false;
	}
	int rc = tui_ev_read_start(&a->ev_read, a->load_events, a->reload_payload, a->evlog);
	if (rc) {
		sv_evlog_free(a->evlog);
		a->evlog = NULL;
		tui_status(a, "%s: %s", what, rc == SV_ENOMEM ? "out of memory" : "no thread to read the events on");
		return false;
	}
	a->ev_warn[0] = '\0';
	a->evl = (tui_list){ 0 };
	return true;
}

int tui_evlist_start(tui_app *a)
{
	if (!tui_evlog_load(a, "the Events view lists"))
		return TUI_REDRAW;
	a->mode = MODE_EVLIST;
	return refilter(a);
}

/* The sample of the stack window that is this event: taken at its time on its thread (the
 * thread frame "Thread (TID) ..." on its stack); SIZE_MAX when none is. */
static size_t event_sample(const sv_source *src, const sv_evrow *r)
{
	sv_samples smp = sv_source_samples(src);
	char want[32];
	int wl = snprintf(want, sizeof(want), "Thread (%lld)", r->tid);
	for (size_t i = 0; r->has_stack && r->tid >= 0 && i < smp.n; i++) {
		if (fabs(sv_sample_time(&smp, i) - r->ms) > 1e-6)
			continue;
		for (sv_stack_id st = smp.stack[i]; st != SV_STACK_NONE; st = sv_source_stack_caller(src, st))
			if (!strncmp(sv_source_frame_name(src, sv_source_stack_frame(src, st)), want, (size_t)wl))
				return i;
	}
	return SIZE_MAX;
}

/* Back to the stack window with Start/End around the cursor's event, its stack selected in
 * the call tree when the window shows the samples of its kind. */
static int open_event(tui_app *a)
{
	a->mode = MODE_GRID;
	if (a->evl.cursor >= a->nevidx)
		return TUI_REDRAW;
	sv_evrow r;
	sv_evlog_get(a->evlog, a->evidx[a->evl.cursor], &r);
	tui_frame *f = tui_app_frame(a);
	sv_params p;
	if (sv_params_copy(&p, &f->params) || sv_cmd_set_time_range(&p, r.ms - EV_AROUND_MS, r.ms + EV_AROUND_MS)) {
		sv_params_dispose(&p);
		tui_status(a, "out of memory");
		return TUI_REDRAW;
	}
	size_t at = event_sample(f->src, &r);
	char what[400];
	snprintf(what, sizeof(what), "%.3f ms: %.200s on thread %lld; Start and End %g ms either side%s ([ goes back)", r.ms,
		 r.kind, r.tid, EV_AROUND_MS, at != SIZE_MAX && at <= UINT32_MAX ? ", its stack selected" : "");
	int flags = tui_apply_params(a, &p, what);
	sv_params_dispose(&p);
	if (at != SIZE_MAX && at <= UINT32_MAX)
		a->after = (tui_after){ AFTER_SAMPLE, (uint32_t)at };
	return flags;
}

int tui_evlist_key(tui_app *a, int key)
{
	place(a);
	if (tui_list_key(&a->evl, key, false)) /* letters go to the filter */
		return TUI_REDRAW;
	if (key == '\n' || key == KEY_ENTER)
		return open_event(a);
	if (key == TUI_KEY_ESC) {
		a->mode = MODE_GRID;
		return TUI_REDRAW;
	}
	if ((key == KEY_BACKSPACE || key == 127 || key == 8) && a->ev_filter[0]) {
		a->ev_filter[strlen(a->ev_filter) - 1] = '\0';
		return refilter(a);
	}
	if (key >= 0x20 && key < 0x7f && strlen(a->ev_filter) + 1 < sizeof(a->ev_filter)) {
		size_t l = strlen(a->ev_filter);
		a->ev_filter[l] = (char)key;
		a->ev_filter[l + 1] = '\0';
		return refilter(a);
	}
	return TUI_REDRAW;
}

int tui_evlist_mouse(tui_app *a, tui_mouse m, int x, int y)
{
	(void)x;
	place(a);
	switch (tui_list_mouse(&a->evl, m, y)) {
	case TUI_LIST_NONE: return 0;
	case TUI_LIST_OPEN: return open_event(a);
	default: return TUI_REDRAW;
	}
}

/* The Event and Process columns as wide as the rows on screen need (within bounds). */
static void measure(tui_app *a)
{
	int kind_w = 5, proc_w = 7;
	for (size_t i = a->evl.top; i < a->nevidx && i < a->evl.top + (size_t)(a->evl.rows > 0 ? a->evl.rows : 0); i++) {
		sv_evrow r;
		sv_evlog_get(a->evlog, a->evidx[i], &r);
		int k = (int)strlen(r.kind), p = (int)strlen(r.process);
		kind_w = k > kind_w ? k : kind_w;
		proc_w = p > proc_w ? p : proc_w;
	}
	a->ev_kind_w = kind_w > 64 ? 64 : kind_w;
	a->ev_proc_w = proc_w > 24 ? 24 : proc_w;
}

static void event_line(tui_app *a, tui_screen *s, size_t i, int y, int attr)
{
	sv_evrow r;
	sv_evlog_get(a->evlog, a->evidx[i], &r);
	char when[32], tid[24], cpu[16], line[2048];
	sv_format_number(when, sizeof(when), r.ms, 3);
	snprintf(tid, sizeof(tid), "%lld", r.tid);
	snprintf(cpu, sizeof(cpu), "%d", r.cpu);
	snprintf(line, sizeof(line), "%12s  %-*.*s %-*.*s %8s %3s %s%s", when, a->ev_kind_w, a->ev_kind_w, r.kind, a->ev_proc_w, a->ev_proc_w, r.process,
		 r.tid >= 0 ? tid : "", r.cpu >= 0 ? cpu : "", r.has_stack ? "[stack] " : "", r.fields);
	tui_screen_text(s, 0, y, line, a->w, attr);
}

void tui_evlist_draw(tui_app *a, tui_screen *s)
{
	tui_frame *f = tui_app_frame(a);
	char line[512], n1[32], n2[32];
	snprintf(line, sizeof(line), "%s: Events", f->title);
	tui_screen_text(s, 0, 0, line, a->w, TUI_A_TITLE);
	sv_format_number(n1, sizeof(n1), (double)a->nevidx, 0);
	sv_format_number(n2, sizeof(n2), (double)a->ev_scanned, 0); /* (the rows the filter has seen) */
	snprintf(line, sizeof(line), "Filter: %s", a->ev_filter);
	int used = tui_screen_text(s, 0, 1, line, a->w, TUI_A_BOLD);
	tui_screen_fill(s, used, 1, 1, TUI_A_REVERSE);
	if (a->ev_read) {
		unsigned long long done, total;
		tui_ev_read_progress(a->ev_read, &done, &total);
		if (total && done <= total)
			snprintf(line, sizeof(line), "%s of %s events (reading: %d%%)", n1, n2, (int)(100.0 * (double)done / (double)total));
		else
			snprintf(line, sizeof(line), "%s of %s events (reading)", n1, n2);
	} else {
		snprintf(line, sizeof(line), "%s of %s events", n1, n2);
	}
	tui_screen_text(s, a->w - (int)strlen(line), 1, line, (int)strlen(line), 0);
	if (a->ev_warn[0])
		tui_screen_text(s, 0, 2, a->ev_warn, a->w, 0);
	place(a);
	measure(a);
	tui_screen_fill(s, 0, 3, a->w, TUI_A_TITLE | TUI_A_UNDERLINE);
	snprintf(line, sizeof(line), "%12s  %-*s %-*s %8s %3s %s", "Time ms", a->ev_kind_w, "Event", a->ev_proc_w, "Process", "TID", "CPU",
		 "Fields");
	tui_screen_text(s, 0, 3, line, a->w, TUI_A_TITLE | TUI_A_UNDERLINE);
	tui_list_draw(&a->evl, a, s, event_line);
	tui_screen_fill(s, 0, a->h - 1, a->w, TUI_A_REVERSE);
	tui_screen_text(s, 0, a->h - 1, "type to filter  Enter: the stacks around the event  Esc closes", a->w, TUI_A_REVERSE);
}
