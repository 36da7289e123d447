/* SPDX-License-Identifier: MIT */
/* The Annotate view (a, as in perf report): the cursor row's function as machine code, each
 * instruction's share of the function's samples in the current view (formats/perf/annotate.c,
 * the text `stackview annotate` prints), the hottest instruction selected; Tab or n moves to
 * the next hot one, as perf report's annotate browser does; any other key closes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "stackview/commands.h"
#include "sv/array.h"

#define HEAD 2 /* the text's first lines: the title and the column heads */

static void place(tui_app *a)
{
	/* the list's item i is line i + HEAD: the title and column heads stay above it */
	tui_list_place(&a->annot_list, a->nannot_lines > HEAD ? a->nannot_lines - HEAD : 0, HEAD, a->h - 1 - HEAD);
}

static void annot_dispose(tui_app *a)
{
	free(a->annot);
	free(a->annot_lines);
	free(a->annot_hot);
	a->annot = NULL;
	a->annot_lines = NULL;
	a->annot_hot = NULL;
	a->nannot_lines = 0;
}

/* The function `name` as code (annotate) or source lines (Goto Source) in the current frame. */
static int open_code(tui_app *a, const char *name, bool source)
{
	tui_frame *f = tui_app_frame(a);
	const char *what = source ? "Goto Source" : "annotate";
	sv_error err;
	sv_error_clear(&err);
	char *text;
	bool *hot;
	size_t n, hottest;
	int rc = a->code_text(a->reload_payload, f->view, name, source, &text, &hot, &n, &hottest, &err);
	if (rc == SV_ENOTFOUND) {
		tui_status(a, "no sample of this view has a code address in '%s' (%s a function: its own code, not a group)",
			   name, what);
		return TUI_REDRAW;
	}
	if (rc) {
		tui_status(a, "%s %s: %s", what, name, err.msg[0] ? err.msg : sv_status_str(rc));
		return TUI_REDRAW;
	}
	annot_dispose(a);
	a->annot = text;
	a->annot_hot = hot;
	size_t cap = 0;
	for (size_t at = 0, k = 0; k < n; k++) { /* n lines, each ending in \n */
		if (SV_ARRAY_PUSH(a->annot_lines, a->nannot_lines, cap, at)) {
			annot_dispose(a);
			tui_status(a, "out of memory");
			return TUI_REDRAW;
		}
		char *nl = strchr(text + at, '\n');
		*nl = '\0';
		at = (size_t)(nl - text) + 1;
	}
	a->annot_list = (tui_list){ 0 };
	place(a);
	hottest = hottest >= HEAD ? hottest - HEAD : 0;
	a->annot_list.cursor = hottest;
	a->annot_list.top = hottest > (size_t)a->annot_list.rows / 2 ? hottest - (size_t)a->annot_list.rows / 2 : 0;
	a->mode = MODE_ANNOTATE;
	return TUI_REDRAW;
}

/* The cursor row's function into name; false (said) when there is none or no code address. */
static bool row_function(tui_app *a, char *name, size_t cap, const char *what)
{
	tui_frame *f = tui_app_frame(a);
	const char *row = tui_row_name(a, f->pane[a->tab].cursor);
	if (!row) {
		tui_status(a, "no row selected");
		return false;
	}
	bool annotate = !strcmp(what, "Annotate");
	if (!a->code_text || !sv_source_location_count(f->src) || (annotate && !sv_source_code_file_count(f->src))) {
		tui_status(a, "%s needs code addresses%s: perf.data and perf script text have them%s, this %s has none", what,
			   annotate ? " in files found here" : "",
			   annotate ? ", pprof profiles with their binary at its path or under --symfs, ETL traces with "
				      "each image beside its PDB on the symbol path"
				    : " (pprof and V8 profiles lines, ETL traces their PDBs')",
			   sv_source_format(f->src));
		return false;
	}
	/* a grouped row's function is the frame between << >> */
	if (!sv_cmd_entry_frame(name, cap, row))
		snprintf(name, cap, "%s", row);
	return true;
}

int tui_annotate_start(tui_app *a)
{
	char name[1024];
	return row_function(a, name, sizeof(name), "Annotate") ? open_code(a, name, false) : TUI_REDRAW;
}

/* Goto Source: the callers' addresses are read with the file again the first time (a third
 * more load time, so not at start), as a new view on the stack (Esc comes back). */
int tui_goto_source_start(tui_app *a)
{
	char name[1024];
	if (!row_function(a, name, sizeof(name), "Goto Source"))
		return TUI_REDRAW;
	tui_frame *f = tui_app_frame(a);
	if (!sv_source_has_code_callers(f->src) && a->reload) {
		sv_source *ns = NULL;
		sv_error err;
		sv_error_clear(&err);
		tui_reload rl = { .code_paths = true };
		tui_busy(a, "reading the callers' code addresses (the file is read again)...");
		tui_busy_watch(a, &rl, true);
		if (a->reload(a->reload_payload, &rl, &ns, &err)) {
			tui_status(a, "%s", err.msg);
			return TUI_REDRAW;
		}
		tui_nav_push(a);
		int rc = tui_push_frame(a, ns, &f->params, "code paths");
		if (tui_app_frame(a)->src != ns)
			return rc;
		return rc | open_code(a, name, true);
	}
	return open_code(a, name, true);
}

int tui_annotate_key(tui_app *a, int key)
{
	place(a);
	if (key == '\t' || key == 'n' || key == 'N' || key == KEY_BTAB) {
		bool back = key == 'N' || key == KEY_BTAB;
		size_t n = a->annot_list.n, c = a->annot_list.cursor;
		for (size_t k = 1; k <= n; k++) {
			size_t i = back ? (c + n - k) % n : (c + k) % n;
			if (a->annot_hot[i + HEAD]) {
				a->annot_list.cursor = i;
				if (i < a->annot_list.top || i >= a->annot_list.top + (size_t)a->annot_list.rows)
					a->annot_list.top = i > (size_t)a->annot_list.rows / 2 ? i - (size_t)a->annot_list.rows / 2 : 0;
				break;
			}
		}
		return TUI_REDRAW;
	}
	if (!tui_list_key(&a->annot_list, key, true))
		a->mode = MODE_GRID;
	return TUI_REDRAW;
}

static void annot_line(tui_app *a, tui_screen *s, size_t i, int y, int attr)
{
	const char *t = a->annot + a->annot_lines[i + HEAD];
	tui_screen_text(s, 0, y, t, a->w, attr | (a->annot_hot[i + HEAD] ? TUI_A_BOLD : 0));
}

void tui_annotate_draw(tui_app *a, tui_screen *s)
{
	tui_screen_clear(s);
	/* the title and the column heads stay; the instructions scroll below them */
	tui_screen_text(s, 0, 0, a->annot, a->w, TUI_A_TITLE);
	if (a->nannot_lines > 1)
		tui_screen_text(s, 0, 1, a->annot + a->annot_lines[1], a->w, TUI_A_BOLD);
	place(a);
	tui_list_draw(&a->annot_list, a, s, annot_line);
	char foot[300];
	size_t c = a->annot_list.cursor + HEAD;
	const char *cur = c < a->nannot_lines ? a->annot + a->annot_lines[c] : "";
	snprintf(foot, sizeof(foot), "Tab/n next hot  N previous  any other key closes   %zu/%zu:%.200s",
		 a->annot_list.cursor + 1, a->annot_list.n, cur);
	tui_screen_fill(s, 0, a->h - 1, a->w, TUI_A_REVERSE);
	tui_screen_text(s, 0, a->h - 1, foot, a->w, TUI_A_REVERSE);
}
