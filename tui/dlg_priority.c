/* SPDX-License-Identifier: MIT */
/* The Priority box of a heap snapshot (PerfView's, above its heap views): the patterns that
 * choose the spanning tree the stacks come from. A change opens the file again with them
 * (tui_options.reload) on the stack of views, so Esc goes back to the earlier priorities; the
 * earlier tree sleeps meanwhile (tui_frame_sleep): its view is given up first, its source
 * once the new one is read (when the file can be read again), both made again by Esc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "stackview/commands.h"

bool tui_priority_usable(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	if (!f->priority) {
		bool heap = false;
		for (size_t i = 0; i < a->nframes; i++)
			heap = heap || a->frames[i].priority;
		tui_status(a, heap ? "priorities change the whole snapshot: Esc back to its view first"
				   : "priorities choose the tree of a heap snapshot (.gcdump); this is not one");
		return false;
	}
	if (!a->reload) {
		tui_status(a, "the file cannot be opened again here");
		return false;
	}
	return true;
}

int tui_priority_apply(tui_app *a, const char *text)
{
	if (!tui_priority_usable(a))
		return TUI_REDRAW;
	if (strcmp(text, tui_app_frame(a)->priority) == 0) {
		tui_status(a, "the priorities are unchanged");
		return TUI_REDRAW;
	}
	sv_error err;
	sv_error_clear(&err);
	if (sv_cmd_priority_check(text, &err)) { /* (before the view below is given up) */
		tui_status(a, "%s", err.msg[0] ? err.msg : "out of memory");
		return TUI_REDRAW;
	}
	char *prio = strdup(text);
	if (!prio) {
		tui_status(a, "out of memory");
		return TUI_REDRAW;
	}
	/* the earlier tree's view goes first, and its source once the new one is read (Esc makes
	 * them again): one snapshot in memory however many times the priorities change, and a
	 * read that fails or is canceled (Esc) only makes the earlier view again */
	tui_busy(a, "reading the snapshot with the new priorities...");
	tui_frame *below = tui_app_frame(a);
	tui_frame_sleep(a, below, true);
	sv_source *ns = NULL;
	tui_reload rl = { .priority = prio };
	tui_busy_watch(a, &rl, true);
	int r = TUI_REDRAW;
	int rc = a->reload(a->reload_payload, &rl, &ns, &err);
	if (rc) {
		if (rc == SV_ECANCELED)
			tui_status(a, "canceled: the priorities are as they were");
		else
			tui_status(a, "%s", err.msg);
		free(prio);
	} else {
		tui_frame_sleep(a, below, false);
		char title[300];
		snprintf(title, sizeof(title), "priority %.200s", prio);
		tui_nav_push(a);
		size_t before = a->nframes;
		tui_busy(a, "the snapshot is read; making its view...");
		r = tui_push_frame(a, ns, &below->params, title);
		if (a->nframes > before) {
			tui_app_frame(a)->priority = prio;
			tui_expand_hot(a); /* as the snapshot first opened */
			return r;
		}
		free(prio);
	}
	/* the new tree could not be made: the earlier one again */
	char msg[sizeof(a->status)];
	snprintf(msg, sizeof(msg), "%s", a->status);
	sv_error_clear(&err);
	if (tui_frame_wake(a, tui_app_frame(a), &err)) { /* (the frames may have moved) */
		a->fatal = err;
		a->quit = true;
		return 0;
	}
	tui_status(a, "%s", msg);
	return r | TUI_REFLATTEN;
}

/* Raise / Lower Item (or Module) Priority on the cursor's row, by one. */
int tui_priority_bump(tui_app *a, bool module, double delta)
{
	if (!tui_priority_usable(a))
		return TUI_REDRAW;
	tui_frame *f = tui_app_frame(a);
	const char *name = tui_row_name(a, f->pane[a->tab].cursor);
	if (!name) {
		tui_status(a, "no row selected");
		return TUI_REDRAW;
	}
	/* an entry group's row `G <<X>>` stands for X */
	char item[1024];
	const char *lt = strstr(name, " <<");
	size_t nl = strlen(name);
	if (lt && nl > 2 && strcmp(name + nl - 2, ">>") == 0)
		snprintf(item, sizeof(item), "%.*s", (int)(name + nl - 2 - (lt + 3)), lt + 3);
	else
		snprintf(item, sizeof(item), "%s", name);
	if (module) {
		char mod[512];
		sv_cmd_module_of(mod, sizeof(mod), item);
		if (!mod[0]) {
			tui_status(a, "'%s' names no module", item);
			return TUI_REDRAW;
		}
		snprintf(item, sizeof(item), "%s!", mod);
	}
	char *out = NULL;
	int rc = sv_cmd_priority(&out, f->priority, item, delta);
	if (rc) {
		tui_status(a, rc == SV_EINVAL ? "no name to give a priority" : "out of memory");
		return TUI_REDRAW;
	}
	int r = tui_priority_apply(a, out);
	free(out);
	return r;
}
