/* SPDX-License-Identifier: MIT */
/* The Presets dialog (spec §12): PerfView's built-in presets, then the user's; Enter applies
 * one, d deletes one of the user's, S in the stack window saves the boxes as one. */
#include "app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t tui_preset_count(const tui_app *a)
{
	return sv_builtin_preset_count() + (a->presets ? a->presets->n : 0);
}

/* Name, GroupPat, Fold%, FoldPat of entry i; *mine when it is the user's. */
static void preset_at(const tui_app *a, size_t i, const char **name, const char **group, const char **pct,
		      const char **fold, bool *mine)
{
	size_t nb = sv_builtin_preset_count();
	*mine = i >= nb;
	if (!*mine) {
		*name = sv_builtin_preset_name(i);
		*group = sv_builtin_preset_describe(i);
		*pct = *fold = "";
		return;
	}
	const sv_preset *p = &a->presets->p[i - nb];
	*name = p->name;
	*group = p->group;
	*pct = p->fold_pct;
	*fold = p->fold;
}

static void preset_line(tui_app *a, tui_screen *s, size_t i, int y, int attr)
{
	const char *name, *group, *pct, *fold;
	bool mine;
	preset_at(a, i, &name, &group, &pct, &fold, &mine);
	char line[1200];
	snprintf(line, sizeof(line), "%-5s %-28.200s %-40.400s %-6.40s %.300s", mine ? "yours" : "", name, group, pct, fold);
	tui_screen_text(s, 0, y, line, a->w, attr);
}

static int store_presets(tui_app *a, const char *done)
{
	sv_error err;
	sv_error_clear(&err);
	if (a->store_presets && a->store_presets(a->presets_payload, a->presets, &err)) {
		char msg[1100];
		sv_error_format(msg, sizeof(msg), &err);
		tui_status(a, "%s", msg);
	} else {
		tui_status(a, "%s", done);
	}
	return TUI_REDRAW;
}

static void place(tui_app *a)
{
	tui_list_place(&a->presets_list, tui_preset_count(a), TUI_PICK_TOP, a->h - TUI_PICK_TOP);
}

int tui_presets_key(tui_app *a, int key)
{
	tui_list *l = &a->presets_list;
	place(a);
	if (tui_list_key(l, key, true)) {
		return TUI_REDRAW;
	} else if (key == '\n' || key == KEY_ENTER) {
		const char *name, *group, *pct, *fold;
		bool mine;
		preset_at(a, l->cursor, &name, &group, &pct, &fold, &mine);
		a->mode = MODE_GRID;
		sv_params p;
		char *made = NULL; /* a built-in's patterns for this profile */
		if ((!mine && sv_builtin_preset_for(&made, l->cursor, tui_app_frame(a)->src)) ||
		    sv_params_copy(&p, &tui_app_frame(a)->params) || sv_preset_apply(&p, name, made ? made : group, pct, fold)) {
			free(made);
			sv_params_dispose(&p);
			tui_status(a, "out of memory");
			return TUI_REDRAW;
		}
		free(made);
		char what[300];
		snprintf(what, sizeof(what), "preset %.200s applied", name);
		int flags = tui_apply_params(a, &p, what);
		sv_params_dispose(&p);
		return flags;
	} else if (key == 'd' || key == KEY_DC) {
		size_t nb = sv_builtin_preset_count();
		if (l->cursor < nb || !a->presets) {
			tui_status(a, "built-in presets cannot be deleted");
			return TUI_REDRAW;
		}
		char done[300];
		snprintf(done, sizeof(done), "preset %.200s deleted", a->presets->p[l->cursor - nb].name);
		sv_presets_remove(a->presets, l->cursor - nb);
		l->n = tui_preset_count(a);
		if (l->cursor >= l->n)
			l->cursor = l->n - 1;
		return store_presets(a, done);
	} else if (key == TUI_KEY_ESC || key == 'q' || key == 'P') {
		a->mode = MODE_GRID;
	}
	return TUI_REDRAW;
}

int tui_presets_mouse(tui_app *a, tui_mouse m, int x, int y)
{
	(void)x;
	place(a);
	switch (tui_list_mouse(&a->presets_list, m, y)) {
	case TUI_LIST_NONE: return 0;
	case TUI_LIST_OPEN: return tui_presets_key(a, '\n');
	default: return TUI_REDRAW;
	}
}

/* Save As Preset: the name typed, GroupPats without its [comment], Fold%, FoldPats. */
int tui_save_preset(tui_app *a, const char *name)
{
	if (!a->presets) {
		tui_status(a, "presets are not available here");
		return TUI_REDRAW;
	}
	while (*name == ' ')
		name++;
	if (!*name || strstr(name, "$$$$") || strstr(name, "####") || strchr(name, '\n')) {
		tui_status(a, "a preset needs a name (without $$$$ or ####)");
		return TUI_REDRAW;
	}
	const sv_params *p = &tui_app_frame(a)->params;
	char *comment = NULL, *pats = NULL;
	if (sv_preset_split_group(&comment, &pats, p->box[SV_BOX_GROUP]) ||
	    sv_presets_put(a->presets, name, pats, p->box[SV_BOX_FOLD_PCT], p->box[SV_BOX_FOLD], "")) {
		free(comment);
		free(pats);
		tui_status(a, "out of memory");
		return TUI_REDRAW;
	}
	free(comment);
	free(pats);
	char done[300];
	snprintf(done, sizeof(done), "preset %.200s saved", name);
	return store_presets(a, done);
}

/* The Presets list: PerfView's built-ins, then the user's. */
void tui_presets_draw(tui_app *a, tui_screen *s)
{
	char line[1200];
	tui_screen_text(s, 0, 0, "Presets: Enter applies (GroupPats, Fold%, FoldPats), d deletes one of yours, Esc closes",
			a->w, TUI_A_TITLE);
	tui_screen_text(s, 0, 1, "S in the stack window saves the current boxes as a preset", a->w, TUI_A_DIM);
	tui_screen_fill(s, 0, 3, a->w, TUI_A_TITLE | TUI_A_UNDERLINE);
	snprintf(line, sizeof(line), "%-5s %-28s %-40s %-6s %s", "", "Name", "GroupPats", "Fold%", "FoldPats");
	tui_screen_text(s, 0, 3, line, a->w, TUI_A_TITLE | TUI_A_UNDERLINE);
	place(a);
	tui_list_draw(&a->presets_list, a, s, preset_line);
}
