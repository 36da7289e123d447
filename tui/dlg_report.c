/* SPDX-License-Identifier: MIT */
/* The Reports view (R): PerfView's GCStats and JITStats of a .NET trace, the tables
 * `stackview report` prints (lib/report_text.c), computed from the trace's events (read
 * once, as the Events view reads them) and shown as a text that scrolls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "stackview/report.h"
#include "sv/array.h"

static void place(tui_app *a)
{
	a->report_list.scroll_only = true;
	tui_list_place(&a->report_list, a->nreport_lines, 2, a->h - 3);
}

static int make_text(tui_app *a)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return SV_ENOMEM;
	sv_gc_process *gp = NULL;
	sv_jit_process *jp = NULL;
	size_t ng = 0, nj = 0;
	int rc = sv_report_gcstats(a->evlog, &gp, &ng);
	if (!rc)
		rc = sv_report_jitstats(a->evlog, &jp, &nj);
	if (!rc) {
		fputs("GCStats\n\n", f);
		if (ng)
			sv_report_gcstats_print(f, gp, ng);
		else
			fputs("no GC events (the runtime's GC keyword: on by default in dotnet-trace and PerfView)\n", f);
		fputs("\nJITStats\n\n", f);
		if (nj)
			sv_report_jitstats_print(f, jp, nj, 50);
		else
			fputs("no methods jitted in the trace (the runtime's JIT keyword)\n", f);
	}
	sv_report_gcstats_free(gp, ng);
	sv_report_jitstats_free(jp, nj);
	if (fclose(f) || rc) {
		free(text);
		return rc ? rc : SV_ENOMEM;
	}
	size_t cap = 0;
	a->nreport_lines = 0;
	for (size_t at = 0; at < len;) {
		if (SV_ARRAY_PUSH(a->report_lines, a->nreport_lines, cap, at)) {
			free(text);
			return SV_ENOMEM;
		}
		char *nl = memchr(text + at, '\n', len - at);
		if (!nl)
			break;
		*nl = '\0';
		at = (size_t)(nl - text) + 1;
	}
	a->report = text;
	return 0;
}

int tui_report_start(tui_app *a)
{
	if (!tui_evlog_load(a, "the reports read") || !tui_evlog_wait(a)) /* the reports need every event */
		return TUI_REDRAW;
	if (!a->report && make_text(a)) {
		tui_status(a, "out of memory");
		return TUI_REDRAW;
	}
	a->report_list = (tui_list){ .scroll_only = true };
	a->mode = MODE_REPORT;
	return TUI_REDRAW;
}

int tui_report_key(tui_app *a, int key)
{
	place(a);
	if (!tui_list_key(&a->report_list, key, true))
		a->mode = MODE_GRID;
	return TUI_REDRAW;
}

static void report_line(tui_app *a, tui_screen *s, size_t i, int y, int attr)
{
	const char *t = a->report + a->report_lines[i];
	bool head = !strcmp(t, "GCStats") || !strcmp(t, "JITStats");
	tui_screen_text(s, 0, y, t, a->w, attr | (head ? TUI_A_BOLD : 0));
}

void tui_report_draw(tui_app *a, tui_screen *s)
{
	tui_frame *f = tui_app_frame(a);
	char line[400];
	tui_screen_clear(s);
	snprintf(line, sizeof(line), "%s: Reports (as stackview report gcstats|jitstats prints them)", f->title);
	tui_screen_text(s, 0, 0, line, a->w, TUI_A_TITLE);
	place(a);
	tui_list_draw(&a->report_list, a, s, report_line);
	tui_screen_fill(s, 0, a->h - 1, a->w, TUI_A_REVERSE);
	tui_screen_text(s, 0, a->h - 1, "Up/Down, PgUp/PgDn scroll  any other key closes", a->w, TUI_A_REVERSE);
}
