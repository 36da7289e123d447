/* SPDX-License-Identifier: MIT */
/* The process picker: the processes of a source by samples, a filter typed, Space marks, Enter
 * opens them through IncPats. */
#include "app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Title, filter, a blank line and the titles above the list; a hint below. */
static void place(tui_app *a)
{
	tui_list_place(&a->pick, a->nshown + 1, TUI_PICK_TOP, a->h - 6);
}

static void picker_filter(tui_app *a)
{
	a->nshown = 0;
	for (size_t i = 0; i < a->nprocs; i++) {
		char pid[32];
		snprintf(pid, sizeof(pid), "%ld", a->procs[i].pid);
		if (!a->pick_filter[0] || strcasestr(a->procs[i].name, a->pick_filter) || strstr(pid, a->pick_filter))
			a->shown[a->nshown++] = i;
	}
	place(a);
	if (a->pick.cursor > a->nshown)
		a->pick.cursor = a->nshown;
}

bool tui_app_start_picker(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	if (sv_source_processes(&a->procs, &a->nprocs, f->src) || a->nprocs < 2) {
		free(a->procs);
		a->procs = NULL;
		a->nprocs = 0;
		return false;
	}
	a->shown = malloc(a->nprocs * sizeof(*a->shown));
	a->picked = calloc(a->nprocs, 1);
	if (!a->shown || !a->picked)
		return false;
	a->mode = MODE_PICKER;
	a->pick = (tui_list){ .cursor = 1 }; /* the busiest process, as PerfView's picker suggests */
	picker_filter(a);
	return true;
}

/* A process's name for a pattern: characters with a meaning in patterns or lists become
 * `*` (e.g. "bash;git" would otherwise split the IncPats list). */
static void pattern_name(char *name, size_t size, const sv_process *p)
{
	snprintf(name, size, "%s", p->name);
	for (char *c = name; *c; c++)
		if (strchr(";|{}^%*@", *c))
			*c = '*';
}

/* `Process% NAME (PID)` for IncPats. */
static void process_pattern(char *buf, size_t size, const sv_process *p)
{
	char name[256];
	pattern_name(name, sizeof(name), p);
	if (p->pid >= 0)
		snprintf(buf, size, "Process%% %s (%ld)", name, p->pid);
	else
		snprintf(buf, size, "Process%% %s", name);
}

/* Every process the filter shows, by program name: `^Process% NAME (` once a name, so that
 * six cc1 of a build open as one program (Enter on the first row while a filter is typed). */
static size_t matching_pattern(tui_app *a, char *inc, size_t size)
{
	size_t o = 0, names = 0;
	for (size_t i = 0; i < a->nshown && o < size; i++) {
		const sv_process *p = &a->procs[a->shown[i]];
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(a->procs[a->shown[k]].name, p->name);
		if (seen)
			continue;
		char name[256];
		pattern_name(name, sizeof(name), p);
		o += (size_t)snprintf(inc + o, size - o, "%s^Process%% %s (", names++ ? "|" : "", name);
	}
	return names;
}

/* The first row stands for every process, or for every match while a filter that some but not
 * all processes match is typed. */
static bool first_row_matches(const tui_app *a)
{
	return a->pick_filter[0] && a->nshown && a->nshown < a->nprocs;
}

/* Open the view: `all` (Esc) opens every process; else the marks, the first row (every
 * match), or the process under the cursor. */
static int picker_done(tui_app *a, bool all)
{
	char inc[4096] = "";
	size_t o = 0, n = 0;
	bool first = !all && a->pick.cursor == 0;
	for (size_t i = 0; !all && !first && i < a->nprocs; i++)
		if (a->picked[i]) {
			char one[300];
			process_pattern(one, sizeof(one), &a->procs[i]);
			o += (size_t)snprintf(inc + o, sizeof(inc) - o, "%s%s", n++ ? "|" : "", one);
		}
	if (!all && !first && !n && a->pick.cursor > 0 && a->pick.cursor <= a->nshown)
		process_pattern(inc, sizeof(inc), &a->procs[a->shown[a->pick.cursor - 1]]);
	if (first && first_row_matches(a))
		matching_pattern(a, inc, sizeof(inc));
	a->mode = MODE_GRID;
	if (!inc[0]) {
		tui_status(a, "all processes%s%s", a->hello ? "; " : "", a->hello ? a->hello : "");
		return TUI_REDRAW | TUI_REFLATTEN;
	}
	return tui_apply_box(a, SV_BOX_INC, inc);
}

int tui_picker_key(tui_app *a, int key)
{
	place(a);
	if (tui_list_key(&a->pick, key, false)) /* letters go to the filter */
		;
	else if (key == ' ' && a->pick.cursor > 0)
		a->picked[a->shown[a->pick.cursor - 1]] ^= 1;
	else if (key == ' ' && first_row_matches(a)) { /* the first row marks every match */
		bool any = false;
		for (size_t i = 0; i < a->nshown; i++)
			any |= !a->picked[a->shown[i]];
		for (size_t i = 0; i < a->nshown; i++)
			a->picked[a->shown[i]] = any;
	} else if (key == '\n' || key == KEY_ENTER)
		return picker_done(a, false);
	else if (key == TUI_KEY_ESC)
		return picker_done(a, true);
	else if ((key == KEY_BACKSPACE || key == 127 || key == 8) && a->pick_filter[0]) {
		a->pick_filter[strlen(a->pick_filter) - 1] = '\0';
		picker_filter(a);
	} else if (key > 0x20 && key < 0x7f && strlen(a->pick_filter) + 1 < sizeof(a->pick_filter)) {
		size_t l = strlen(a->pick_filter);
		a->pick_filter[l] = (char)key;
		a->pick_filter[l + 1] = '\0';
		picker_filter(a);
		/* several matches: the first row takes them all (Enter), else the one match */
		a->pick.cursor = a->nshown > 1 ? 0 : a->nshown;
	}
	return TUI_REDRAW;
}

int tui_picker_mouse(tui_app *a, tui_mouse m, int x, int y)
{
	(void)x;
	place(a);
	switch (tui_list_mouse(&a->pick, m, y)) {
	case TUI_LIST_NONE: return 0;
	case TUI_LIST_OPEN: return tui_picker_key(a, '\n');
	case TUI_LIST_AGAIN: /* a click on the selected process marks or unmarks it */
		return a->pick.cursor > 0 ? tui_picker_key(a, ' ') : TUI_REDRAW;
	default: return TUI_REDRAW;
	}
}

static void picker_line(tui_app *a, tui_screen *s, size_t i, int y, int attr)
{
	char line[512];
	if (i == 0) {
		if (first_row_matches(a))
			snprintf(line, sizeof(line), "     [every match: %zu processes]", a->nshown);
		else
			snprintf(line, sizeof(line), "     [all processes: %zu]", a->nprocs);
		tui_screen_text(s, 0, y, line, a->w, attr | TUI_A_BOLD);
		return;
	}
	const sv_process *p = &a->procs[a->shown[i - 1]];
	double total = sv_source_total_metric(tui_app_frame(a)->src);
	snprintf(line, sizeof(line), " %s  %s", a->picked[a->shown[i - 1]] ? "[x]" : "[ ]", p->name);
	char num[64], right[128];
	sv_format_number(num, sizeof(num), p->metric, 1);
	snprintf(right, sizeof(right), "%8ld %10zu %12s %5.1f%%", p->pid, p->samples, num,
		 total != 0 ? 100.0 * p->metric / total : 0);
	int rw = (int)strlen(right);
	tui_screen_text(s, 0, y, line, a->w - rw - 1, attr);
	tui_screen_text(s, a->w - rw, y, right, rw, attr);
}

void tui_picker_draw(tui_app *a, tui_screen *s)
{
	tui_frame *f = tui_app_frame(a);
	char line[512];
	snprintf(line, sizeof(line), "%s: choose the processes to look at", f->title);
	tui_screen_text(s, 0, 0, line, a->w, TUI_A_TITLE);
	snprintf(line, sizeof(line), "Filter: %s", a->pick_filter);
	int used = tui_screen_text(s, 0, 1, line, a->w, TUI_A_BOLD);
	tui_screen_fill(s, used, 1, 1, TUI_A_REVERSE);
	tui_screen_fill(s, 0, 3, a->w, TUI_A_TITLE | TUI_A_UNDERLINE);
	tui_screen_text(s, 0, 3, "     Name", a->w, TUI_A_TITLE | TUI_A_UNDERLINE);
	snprintf(line, sizeof(line), "%8s %10s %12s %6s", "PID", "Samples", "Metric", "%");
	tui_screen_text(s, a->w - (int)strlen(line), 3, line, a->w, TUI_A_TITLE | TUI_A_UNDERLINE);
	place(a);
	tui_list_draw(&a->pick, a, s, picker_line);
	tui_screen_fill(s, 0, a->h - 1, a->w, TUI_A_REVERSE);
	tui_screen_text(s, 0, a->h - 1,
			first_row_matches(a) ? "Enter on the first row opens every match  Space marks  Esc: all processes"
					  : "type to filter  Space marks  Enter opens  Esc: all processes",
			a->w, TUI_A_REVERSE);
}
