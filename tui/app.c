/* SPDX-License-Identifier: MIT */
/* The stack window's state and command handlers (see app.h). */
#include "app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/commands.h"
#include "stackview/derive.h"
#include "stackview/flame.h"
#include "stackview/pattern.h"

#define HISTORY_MAX 100

/* ---- keymap ---- */

tui_command tui_key_command(int key)
{
#define TUI_KEY_CASE(cmd, k, label) \
	if (key == (k))             \
		return cmd;
	TUI_KEYS(TUI_KEY_CASE)
#undef TUI_KEY_CASE
	return CMD_NONE;
}

const char *tui_command_help(tui_command c)
{
	switch (c) {
#define TUI_HELP_CASE(cmd, help) \
	case cmd:                \
		return help;
		TUI_COMMANDS(TUI_HELP_CASE)
#undef TUI_HELP_CASE
	default:
		return "";
	}
}

void tui_command_keys(char *buf, unsigned size, tui_command c)
{
	size_t o = 0;
	buf[0] = '\0';
#define TUI_LABEL(cmd, k, label)                                                                  \
	if (cmd == c && o < size && !strstr(buf, label))                                          \
		o += (size_t)snprintf(buf + o, size - o, "%s%s", o ? ", " : "", label);
	TUI_KEYS(TUI_LABEL)
#undef TUI_LABEL
}

/* ---- frames ---- */

/* The grid's default columns (lib/) shown, the others hidden; every tab in its view's order. */
static void default_columns(tui_app *a)
{
	for (int c = 0; c < SV_COL_COUNT; c++)
		a->col_hidden[c] = !sv_column_get((sv_col)c)->shown;
	for (int t = 0; t < TAB_COUNT; t++)
		a->sort_col[t] = -1;
}

static void status(tui_app *a, const char *fmt, ...) SV_PRINTF(2, 3);
static void status(tui_app *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->status, sizeof(a->status), fmt, ap);
	va_end(ap);
}

tui_frame *tui_app_frame(tui_app *a)
{
	return &a->frames[a->nframes - 1];
}

static void frame_dispose(tui_frame *f)
{
	sv_view_free(f->view);
	sv_aggtree_free(f->agg);
	sv_callercallee_free(f->cc);
	sv_flame_free(f->flame);
	free(f->zooms);
	sv_rows_dispose(&f->rows);
	for (int t = 0; t < TAB_COUNT; t++)
		sv_expansion_free(f->pane[t].exp);
	for (size_t i = 0; i < f->nhist; i++)
		sv_params_dispose(&f->hist[i]);
	free(f->hist);
	sv_params_dispose(&f->params);
	free(f->focus);
	free(f->title);
	if (f->owns_src)
		sv_source_free(f->src);
	memset(f, 0, sizeof(*f));
}

static int history_push(tui_frame *f)
{
	if (f->nhist && sv_params_equal(&f->hist[f->hpos], &f->params))
		return 0;
	/* Forward entries are discarded; at most HISTORY_MAX kept. */
	for (size_t i = f->hpos + 1; i < f->nhist; i++)
		sv_params_dispose(&f->hist[i]);
	f->nhist = f->nhist ? f->hpos + 1 : 0;
	if (f->nhist == HISTORY_MAX) {
		sv_params_dispose(&f->hist[0]);
		memmove(f->hist, f->hist + 1, (HISTORY_MAX - 1) * sizeof(*f->hist));
		f->nhist--;
	}
	sv_params *h = realloc(f->hist, (f->nhist + 1) * sizeof(*h));
	if (!h)
		return SV_ENOMEM;
	f->hist = h;
	if (sv_params_copy(&f->hist[f->nhist], &f->params)) {
		sv_params_dispose(&f->hist[f->nhist]);
		return SV_ENOMEM;
	}
	f->hpos = f->nhist++;
	return 0;
}

/* Make `v` the frame's view with `params` (taken over): everything derived from the old
 * view goes, and the panes start afresh because node ids change with the view. */
static int frame_install(tui_frame *f, sv_view *v, sv_params *params)
{
	sv_view_free(f->view);
	f->view = v;
	sv_params_dispose(&f->params);
	f->params = *params;
	sv_aggtree_free(f->agg);
	f->agg = NULL;
	sv_callercallee_free(f->cc);
	f->cc = NULL;
	sv_flame_free(f->flame);
	f->flame = NULL;
	f->flame_top = SV_NODE_ROOT;
	f->flame_sel = 0;
	f->nzooms = 0;
	for (int t = 0; t < TAB_COUNT; t++) {
		sv_expansion_clear(f->pane[t].exp);
		f->pane[t].cursor = f->pane[t].top = 0;
	}
	return sv_expansion_expand_node(f->pane[TAB_CALLTREE].exp, v, SV_NODE_ROOT);
}

/* Build the view for `p`. On failure the frame keeps its old view and err says why. */
static int frame_apply(tui_frame *f, const sv_params *p, char *err, size_t errsize)
{
	sv_view *v;
	sv_error e;
	sv_error_clear(&e);
	int rc = sv_view_new(&v, f->src, p, &e);
	if (rc) {
		snprintf(err, errsize, "%s", e.msg[0] ? e.msg : sv_status_str(rc));
		return rc;
	}
	sv_params np;
	if (sv_params_copy(&np, sv_view_params(v))) {
		sv_params_dispose(&np);
		sv_view_free(v);
		return SV_ENOMEM;
	}
	if (frame_install(f, v, &np))
		return SV_ENOMEM;
	return history_push(f);
}

static int frame_init(tui_frame *f, sv_source *src, bool owns, const sv_params *p, const char *title, char *err,
		      size_t errsize)
{
	memset(f, 0, sizeof(*f));
	f->src = src;
	f->owns_src = owns;
	f->title = strdup(title ? title : "");
	int rc = f->title ? sv_params_init(&f->params) : SV_ENOMEM;
	for (int t = 0; !rc && t < TAB_COUNT; t++)
		rc = sv_expansion_new(&f->pane[t].exp);
	if (!rc)
		rc = frame_apply(f, p, err, errsize);
	if (rc && !err[0])
		snprintf(err, errsize, "%s", sv_status_str(rc));
	return rc;
}

int tui_app_new(tui_app **out, sv_source *src, const sv_params *params, const char *title, char *err, size_t errsize)
{
	err[0] = '\0';
	tui_app *a = calloc(1, sizeof(*a));
	if (!a || !(a->frames = calloc(1, sizeof(*a->frames)))) {
		free(a);
		snprintf(err, errsize, "out of memory");
		return SV_ENOMEM;
	}
	a->nframes = 1;
	a->edit_box = -1;
	default_columns(a);
	a->tab = TAB_CALLTREE;
	a->w = 100;
	a->h = 30;
	int rc = frame_init(&a->frames[0], src, false, params, title, err, errsize);
	if (rc) {
		tui_app_free(a);
		return rc;
	}
	tui_app_react(a, TUI_REFLATTEN);
	*out = a;
	return 0;
}

void tui_app_free(tui_app *a)
{
	if (!a)
		return;
	free(a->notes);
	free(a->clip);
	free(a->procs);
	free(a->shown);
	free(a->picked);
	for (size_t i = 0; i < a->nframes; i++)
		frame_dispose(&a->frames[i]);
	free(a->frames);
	free(a);
}

/* ---- rows of the current tab ---- */

static const char *row_name(tui_app *a, size_t i)
{
	tui_frame *f = tui_app_frame(a);
	return i < f->rows.n ? sv_view_name(f->view, f->rows.row[i].name) : NULL;
}

/* The focus defaults to the ByName row with the largest exclusive cost (not ROOT). */
static void ensure_focus(tui_frame *f)
{
	if (f->focus && sv_view_name_find(f->view, f->focus) != UINT32_MAX)
		return;
	for (uint32_t r = 0; r < sv_view_byname_count(f->view); r++) {
		sv_name_id n = sv_view_byname_name(f->view, r);
		if (n != SV_NAME_ROOT) {
			free(f->focus);
			f->focus = strdup(sv_view_name(f->view, n));
			return;
		}
	}
}

/* The chosen column's order: siblings in trees, callers and callees apart in Caller-Callee. */
static int sort_rows(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	int k = a->sort_col[a->tab];
	if (k < 0 || !sv_column_get((sv_col)k)->sortable)
		return 0;
	if (a->tab == TAB_CC && f->cc) {
		int rc = sv_rows_sort(&f->rows, 0, f->cc->ncallers, f->view, k, a->sort_asc[a->tab]);
		return rc ? rc : sv_rows_sort(&f->rows, f->cc->ncallers + 1, f->rows.n, f->view, k, a->sort_asc[a->tab]);
	}
	return sv_rows_sort(&f->rows, 0, f->rows.n, f->view, k, a->sort_asc[a->tab]);
}

static void reflatten(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	sv_rows_dispose(&f->rows);
	int rc = 0;
	switch (a->tab) {
	case TAB_BYNAME:
		rc = sv_rows_byname(&f->rows, f->view, 0);
		break;
	case TAB_CALLTREE:
		rc = sv_rows_calltree(&f->rows, f->view, p->exp, -1);
		break;
	case TAB_CALLERS:
	case TAB_CALLEES:
		ensure_focus(f);
		if (f->focus && (!f->agg || f->agg_tab != a->tab)) {
			sv_aggtree_free(f->agg);
			f->agg = NULL;
			sv_name_id id = sv_view_name_find(f->view, f->focus);
			rc = sv_aggtree_new(&f->agg, f->view, a->tab == TAB_CALLERS ? SV_AGG_CALLERS : SV_AGG_CALLEES, id);
			f->agg_tab = a->tab;
			if (!rc) {
				sv_expansion_clear(p->exp);
				rc = sv_expansion_set(p->exp, 0, true);
			}
		}
		if (!rc && f->agg)
			rc = sv_rows_aggtree(&f->rows, f->agg, p->exp, -1);
		break;
	case TAB_CC:
		ensure_focus(f);
		if (!f->cc && f->focus)
			rc = sv_callercallee_new(&f->cc, f->view, f->focus);
		if (!rc && f->cc)
			rc = sv_rows_callercallee(&f->rows, f->cc);
		break;
	case TAB_FLAME:
		/* One layout per zoom and width: a box narrower than a cell is not drawn. */
		if (!f->flame || f->flame_w != a->w) {
			sv_flame_free(f->flame);
			f->flame = NULL;
			f->flame_w = a->w;
			rc = sv_flame_new(&f->flame, f->view, f->flame_top, 1.0 / (a->w > 0 ? a->w : 1));
			if (!rc && f->flame_sel >= f->flame->n)
				f->flame_sel = 0;
		}
		break;
	default:
		break;
	}
	if (!rc && a->sort_col[a->tab] >= 0 && f->rows.n)
		rc = sort_rows(a);
	if (rc)
		status(a, "out of memory building the view");
	if (p->cursor >= f->rows.n)
		p->cursor = f->rows.n ? f->rows.n - 1 : 0;
}

void tui_app_react(tui_app *a, int flags)
{
	if (flags & (TUI_REFLATTEN | TUI_RECOMPUTE))
		reflatten(a);
}

/* ---- applying box edits ---- */

static int apply_box(tui_app *a, sv_box box, const char *text)
{
	tui_frame *f = tui_app_frame(a);
	sv_params p;
	if (sv_params_copy(&p, &f->params) || sv_params_set(&p, box, text)) {
		sv_params_dispose(&p);
		status(a, "out of memory");
		return TUI_REDRAW;
	}
	char err[512];
	if (frame_apply(f, &p, err, sizeof(err)))
		status(a, "%s", err);
	else
		status(a, "%s: %s", sv_box_name(box), text[0] ? text : "(empty)");
	sv_params_dispose(&p);
	return TUI_REDRAW | TUI_RECOMPUTE;
}

static int apply_params(tui_app *a, const sv_params *p, const char *what)
{
	char err[512];
	if (frame_apply(tui_app_frame(a), p, err, sizeof(err)))
		status(a, "%s", err);
	else
		status(a, "%s", what);
	return TUI_REDRAW | TUI_RECOMPUTE;
}

/* A string command on the selected row's name; `box` receives the result. */
typedef int (*name_cmd)(char **out, const char *box, const char *name);

static int row_command(tui_app *a, sv_box box, name_cmd fn, const char *what)
{
	tui_frame *f = tui_app_frame(a);
	const char *name = row_name(a, f->pane[a->tab].cursor);
	if (!name) {
		status(a, "no row selected");
		return TUI_REDRAW;
	}
	char *out = NULL;
	int rc = fn(&out, sv_params_get(&f->params, box), name);
	if (rc == SV_EINVAL) {
		status(a, "%s does not apply to '%s'", what, name);
		return TUI_REDRAW;
	}
	if (rc) {
		status(a, "out of memory");
		return TUI_REDRAW;
	}
	int r = apply_box(a, box, out);
	free(out);
	return r;
}

static int cmd_group_module(char **out, const char *box, const char *name)
{
	return sv_cmd_group_module(out, box, name, false);
}

static int cmd_entry_group_module(char **out, const char *box, const char *name)
{
	return sv_cmd_group_module(out, box, name, true);
}

static int cmd_include(char **out, const char *box, const char *name)
{
	return sv_cmd_include_items(out, box, &name, 1);
}

static int cmd_exclude(char **out, const char *box, const char *name)
{
	return sv_cmd_exclude_items(out, box, &name, 1);
}

/* ---- drill into / flatten ---- */

static int push_frame(tui_app *a, sv_source *src, const sv_params *p, const char *title)
{
	tui_frame *nf = realloc(a->frames, (a->nframes + 1) * sizeof(*nf));
	if (!nf) {
		sv_source_free(src);
		status(a, "out of memory");
		return TUI_REDRAW;
	}
	a->frames = nf;
	char err[512] = "";
	if (frame_init(&a->frames[a->nframes], src, true, p, title, err, sizeof(err))) {
		frame_dispose(&a->frames[a->nframes]);
		status(a, "%s", err);
		return TUI_REDRAW;
	}
	a->nframes++;
	status(a, "%s (Esc goes back)", title);
	return TUI_REDRAW | TUI_REFLATTEN;
}

static int drill(tui_app *a, bool inclusive)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	if (p->cursor >= f->rows.n) {
		status(a, "no row selected");
		return TUI_REDRAW;
	}
	const sv_row *r = &f->rows.row[p->cursor];
	sv_drill_what what = a->tab == TAB_CALLTREE ? SV_DRILL_NODE : SV_DRILL_BYNAME;
	uint32_t id = a->tab == TAB_CALLTREE ? r->id : r->name;
	sv_source *src;
	sv_params np;
	if (sv_drill_into(&src, &np, f->view, what, id, inclusive)) {
		status(a, "out of memory");
		return TUI_REDRAW;
	}
	char title[300];
	snprintf(title, sizeof(title), "Drill Into (%s) %s", inclusive ? "inclusive" : "exclusive",
		 sv_view_name(f->view, r->name));
	int rc = push_frame(a, src, &np, title);
	sv_params_dispose(&np);
	return rc;
}

static int flatten(tui_app *a)
{
	sv_source *src;
	sv_params np;
	if (sv_flatten(&src, &np, tui_app_frame(a)->view)) {
		status(a, "out of memory");
		return TUI_REDRAW;
	}
	int rc = push_frame(a, src, &np, "Flatten");
	sv_params_dispose(&np);
	return rc;
}

static void keep_row(tui_app *a, uint32_t id);

/* Show a call tree node in the CallTree tab: its ancestors expanded, the cursor on it. */
static void reveal_node(tui_app *a, sv_node_id id)
{
	tui_frame *f = tui_app_frame(a);
	for (sv_node_id x = sv_view_node_parent(f->view, id); x != UINT32_MAX; x = sv_view_node_parent(f->view, x))
		if (sv_expansion_set(f->pane[TAB_CALLTREE].exp, x, true))
			break;
	reflatten(a);
	keep_row(a, id);
}

/* ---- find ---- */

static int find_next(tui_app *a, bool include_current)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	if (!a->find[0]) {
		status(a, "nothing to find: / starts a search");
		return TUI_REDRAW;
	}
	char rx[300];
	snprintf(rx, sizeof(rx), "@%s", a->find); /* a real regex, not a simplified pattern */
	sv_pattern *pat;
	sv_error err;
	if (sv_pattern_new(&pat, rx, strlen(rx), &err)) {
		status(a, "find: %s", err.msg);
		return TUI_REDRAW;
	}
	int flags = TUI_REDRAW;
	bool found = false;
	if (a->tab == TAB_CALLTREE) {
		/* The whole tree, collapsed nodes included, in pre-order from the current node. */
		sv_rows all;
		if (sv_rows_calltree(&all, f->view, NULL, -1) == 0) {
			uint32_t cur = p->cursor < f->rows.n ? f->rows.row[p->cursor].id : 0;
			size_t start = 0;
			for (size_t i = 0; i < all.n; i++)
				if (all.row[i].id == cur)
					start = i;
			for (size_t k = include_current ? 0 : 1; k <= all.n && !found; k++) {
				size_t i = (start + k) % all.n;
				const char *nm = sv_view_name(f->view, all.row[i].name);
				if (!sv_pattern_match(pat, nm, strlen(nm)))
					continue;
				found = true;
				reveal_node(a, all.row[i].id);
			}
			sv_rows_dispose(&all);
		}
	} else {
		for (size_t k = include_current ? 0 : 1; k <= f->rows.n && !found && f->rows.n; k++) {
			size_t i = (p->cursor + k) % f->rows.n;
			const char *nm = row_name(a, i);
			if (nm && sv_pattern_match(pat, nm, strlen(nm))) {
				p->cursor = i;
				found = true;
			}
		}
	}
	sv_pattern_free(pat);
	status(a, found ? "found '%s'" : "'%s' not found", a->find);
	return flags;
}

/* ---- the edit line (boxes and find) ---- */

static const tui_command edit_cmds[SV_BOX_COUNT] = {
	[SV_BOX_GROUP] = CMD_EDIT_GROUP, [SV_BOX_FOLD] = CMD_EDIT_FOLD, [SV_BOX_FOLD_PCT] = CMD_EDIT_FOLDPCT,
	[SV_BOX_INC] = CMD_EDIT_INC,     [SV_BOX_EXC] = CMD_EDIT_EXC,   [SV_BOX_START] = CMD_EDIT_START,
	[SV_BOX_END] = CMD_EDIT_END,
};

static void edit_start(tui_app *a, int box, const char *text)
{
	a->edit_box = box;
	snprintf(a->edit, sizeof(a->edit), "%s", text);
	a->edit_len = a->edit_cur = strlen(a->edit);
	a->edit_hist = -1;
}

static int save_view(tui_app *a, const char *path)
{
	tui_frame *f = tui_app_frame(a);
	sv_source *out;
	if (sv_view_export_source(&out, f->view, false)) {
		status(a, "out of memory");
		return TUI_REDRAW;
	}
	char err[512] = "";
	if (a->save(a->save_payload, out, path, err, sizeof(err)))
		status(a, "not saved: %s", err);
	else
		status(a, "saved %s", path);
	sv_source_free(out);
	return TUI_REDRAW;
}

/* ---- presets (spec §12): PerfView's built-ins, then the user's ---- */

static size_t preset_count(const tui_app *a)
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
		*group = sv_builtin_preset_group(i);
		*pct = *fold = "";
		return;
	}
	const sv_preset *p = &a->presets->p[i - nb];
	*name = p->name;
	*group = p->group;
	*pct = p->fold_pct;
	*fold = p->fold;
}

void tui_app_preset_line(const tui_app *a, size_t i, char *buf, size_t size)
{
	const char *name, *group, *pct, *fold;
	bool mine;
	preset_at(a, i, &name, &group, &pct, &fold, &mine);
	snprintf(buf, size, "%-5s %-28.200s %-40.400s %-6.40s %.300s", mine ? "yours" : "", name, group, pct, fold);
}

static int store_presets(tui_app *a, const char *done)
{
	char err[512] = "";
	if (a->store_presets && a->store_presets(a->presets_payload, a->presets, err, sizeof(err)))
		status(a, "%s", err);
	else
		status(a, "%s", done);
	return TUI_REDRAW;
}

static int presets_key(tui_app *a, int key)
{
	size_t n = preset_count(a);
	if (key == KEY_UP || key == 'k') {
		if (a->preset_cursor > 0)
			a->preset_cursor--;
	} else if (key == KEY_DOWN || key == 'j') {
		if (a->preset_cursor + 1 < n)
			a->preset_cursor++;
	} else if (key == KEY_HOME || key == KEY_PPAGE) {
		a->preset_cursor = 0;
	} else if (key == KEY_END || key == KEY_NPAGE) {
		a->preset_cursor = n - 1;
	} else if (key == '\n' || key == KEY_ENTER) {
		const char *name, *group, *pct, *fold;
		bool mine;
		preset_at(a, a->preset_cursor, &name, &group, &pct, &fold, &mine);
		a->presets_open = false;
		sv_params p;
		if (sv_params_copy(&p, &tui_app_frame(a)->params) || sv_preset_apply(&p, name, group, pct, fold)) {
			sv_params_dispose(&p);
			status(a, "out of memory");
			return TUI_REDRAW;
		}
		char what[300];
		snprintf(what, sizeof(what), "preset %.200s applied", name);
		int flags = apply_params(a, &p, what);
		sv_params_dispose(&p);
		return flags;
	} else if (key == 'd' || key == KEY_DC) {
		size_t nb = sv_builtin_preset_count();
		if (a->preset_cursor < nb || !a->presets) {
			status(a, "built-in presets cannot be deleted");
			return TUI_REDRAW;
		}
		char done[300];
		snprintf(done, sizeof(done), "preset %.200s deleted", a->presets->p[a->preset_cursor - nb].name);
		sv_presets_remove(a->presets, a->preset_cursor - nb);
		if (a->preset_cursor >= preset_count(a))
			a->preset_cursor = preset_count(a) - 1;
		return store_presets(a, done);
	} else if (key == TUI_KEY_ESC || key == 'q' || key == 'P') {
		a->presets_open = false;
	}
	return TUI_REDRAW;
}

static int mouse_presets(tui_app *a, tui_mouse m, int y)
{
	if (m == TUI_MOUSE_WHEEL_UP || m == TUI_MOUSE_WHEEL_DOWN)
		return presets_key(a, m == TUI_MOUSE_WHEEL_UP ? KEY_UP : KEY_DOWN);
	size_t i = a->preset_top + (size_t)(y - TUI_PICK_TOP);
	if (y < TUI_PICK_TOP || i >= preset_count(a))
		return 0;
	a->preset_cursor = i;
	return m == TUI_MOUSE_DOUBLE ? presets_key(a, '\n') : TUI_REDRAW;
}

/* Save As Preset: the name typed, GroupPats without its [comment], Fold%, FoldPats. */
static int save_preset(tui_app *a, const char *name)
{
	if (!a->presets) {
		status(a, "presets are not available here");
		return TUI_REDRAW;
	}
	while (*name == ' ')
		name++;
	if (!*name || strstr(name, "$$$$") || strstr(name, "####") || strchr(name, '\n')) {
		status(a, "a preset needs a name (without $$$$ or ####)");
		return TUI_REDRAW;
	}
	const sv_params *p = &tui_app_frame(a)->params;
	char *comment = NULL, *pats = NULL;
	if (sv_preset_split_group(&comment, &pats, p->box[SV_BOX_GROUP]) ||
	    sv_presets_put(a->presets, name, pats, p->box[SV_BOX_FOLD_PCT], p->box[SV_BOX_FOLD], "")) {
		free(comment);
		free(pats);
		status(a, "out of memory");
		return TUI_REDRAW;
	}
	free(comment);
	free(pats);
	char done[300];
	snprintf(done, sizeof(done), "preset %.200s saved", name);
	return store_presets(a, done);
}

/* Left, Right, Backspace and Delete on UTF-8 text (NUL-terminated, `*len` bytes, cursor at
 * byte `*cur`), a whole character at a time; false for any other key. */
static bool edit_chars(char *t, size_t *len, size_t *cur, int key)
{
	size_t c = *cur, n = *len;
	if (key == KEY_LEFT || key == KEY_BACKSPACE || key == 127 || key == 8) {
		if (!c)
			return true;
		size_t from = c;
		do
			c--;
		while (c > 0 && (t[c] & 0xC0) == 0x80);
		if (key != KEY_LEFT) {
			memmove(t + c, t + from, n - from + 1);
			*len = n - (from - c);
		}
		*cur = c;
		return true;
	}
	if (key == KEY_RIGHT || key == KEY_DC) {
		if (c >= n)
			return true;
		size_t to = c + 1;
		while (to < n && (t[to] & 0xC0) == 0x80)
			to++;
		if (key == KEY_DC) {
			memmove(t + c, t + to, n - to + 1);
			*len = n - (to - c);
		} else {
			*cur = to;
		}
		return true;
	}
	return false;
}

static int edit_key(tui_app *a, int key)
{
	tui_frame *f = tui_app_frame(a);
	if (key == TUI_KEY_ESC) {
		a->edit_box = -1;
		a->finding = a->saving = a->naming_preset = false;
		status(a, "edit cancelled");
		return TUI_REDRAW;
	}
	if (key == '\n' || key == KEY_ENTER) {
		int box = a->edit_box;
		a->edit_box = -1;
		if (a->saving) {
			a->saving = false;
			return a->edit[0] ? save_view(a, a->edit) : TUI_REDRAW;
		}
		if (a->naming_preset) {
			a->naming_preset = false;
			return save_preset(a, a->edit);
		}
		if (a->finding) {
			a->finding = false;
			snprintf(a->find, sizeof(a->find), "%.*s", (int)sizeof(a->find) - 1, a->edit);
			return find_next(a, true);
		}
		return apply_box(a, (sv_box)box, a->edit);
	}
	if (edit_chars(a->edit, &a->edit_len, &a->edit_cur, key)) {
		/* moved or deleted a character */
	} else if (key == KEY_HOME || key == TUI_CTRL('a')) {
		a->edit_cur = 0;
	} else if (key == KEY_END || key == TUI_CTRL('e')) {
		a->edit_cur = a->edit_len;
	} else if (key == TUI_CTRL('u')) {
		a->edit_len = a->edit_cur = 0;
		a->edit[0] = '\0';
	} else if ((key == KEY_UP || key == KEY_DOWN) && !a->finding && !a->saving && !a->naming_preset && f->nhist) {
		/* This box's earlier values, newest first (the drop-down of PerfView's boxes). */
		int h = a->edit_hist < 0 ? (int)f->nhist : a->edit_hist;
		for (int step = key == KEY_UP ? -1 : 1;;) {
			h += step;
			if (h < 0 || h >= (int)f->nhist)
				return TUI_REDRAW;
			const char *t = sv_params_get(&f->hist[h], (sv_box)a->edit_box);
			if (strcmp(t, a->edit) != 0) {
				snprintf(a->edit, sizeof(a->edit), "%s", t);
				a->edit_len = a->edit_cur = strlen(a->edit);
				a->edit_hist = h;
				return TUI_REDRAW;
			}
		}
	} else if (key >= 0x20 && key < 0x100 && key != 0x7f && a->edit_len + 1 < sizeof(a->edit)) {
		memmove(a->edit + a->edit_cur + 1, a->edit + a->edit_cur, a->edit_len - a->edit_cur + 1);
		a->edit[a->edit_cur++] = (char)key;
		a->edit_len++;
	}
	return TUI_REDRAW;
}

/* ---- commands ---- */

static size_t page_rows(const tui_app *a)
{
	int n = a->h - 9;
	return n > 1 ? (size_t)n : 1;
}

static int cmd_move(tui_app *a, long delta)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	if (!f->rows.n)
		return TUI_REDRAW;
	long c = (long)p->cursor + delta;
	if (c < 0)
		c = 0;
	if (c >= (long)f->rows.n)
		c = (long)f->rows.n - 1;
	p->cursor = (size_t)c;
	return TUI_REDRAW;
}

static bool tree_tab(const tui_app *a)
{
	return a->tab == TAB_CALLTREE || a->tab == TAB_CALLERS || a->tab == TAB_CALLEES;
}

static int set_expanded(tui_app *a, const sv_row *r, int how) /* 1 open, 0 close, 2 subtree */
{
	tui_frame *f = tui_app_frame(a);
	sv_expansion *e = f->pane[a->tab].exp;
	int rc;
	if (how == 0)
		rc = sv_expansion_set(e, r->id, false);
	else if (a->tab == TAB_CALLTREE)
		rc = how == 2 ? sv_expansion_expand_subtree(e, f->view, r->id) : sv_expansion_expand_node(e, f->view, r->id);
	else
		rc = how == 2 ? sv_expansion_expand_aggsubtree(e, f->agg, r->id) : sv_expansion_expand_aggrow(e, f->agg, r->id);
	if (rc)
		status(a, "out of memory");
	return TUI_REDRAW | TUI_REFLATTEN;
}

static int cmd_switch_tab(tui_app *a, tui_tab t)
{
	a->tab = t;
	return TUI_REDRAW | TUI_REFLATTEN;
}

static int set_focus(tui_app *a, tui_tab tab);

static int cmd_enter(tui_app *a)
{
	return set_focus(a, TAB_CALLERS);
}

static int cmd_history(tui_app *a, int dir)
{
	tui_frame *f = tui_app_frame(a);
	if ((dir < 0 && f->hpos == 0) || (dir > 0 && f->hpos + 1 >= f->nhist)) {
		status(a, dir < 0 ? "at the oldest filter" : "at the newest filter");
		return TUI_REDRAW;
	}
	size_t pos = (size_t)((long)f->hpos + dir), old = f->hpos;
	sv_params p;
	if (sv_params_copy(&p, &f->hist[pos])) {
		sv_params_dispose(&p);
		return TUI_REDRAW;
	}
	/* Move the position first: the entry then equals the params being applied, so applying
	 * them adds nothing to the history and keeps the entries after it. */
	f->hpos = pos;
	char err[512];
	if (frame_apply(f, &p, err, sizeof(err))) {
		f->hpos = old;
		status(a, "%s", err);
	} else {
		status(a, "%s %zu/%zu", dir < 0 ? "back" : "forward", pos + 1, f->nhist);
	}
	sv_params_dispose(&p);
	return TUI_REDRAW | TUI_RECOMPUTE;
}

/* ---- the process picker ---- */

static void picker_filter(tui_app *a)
{
	a->nshown = 0;
	for (size_t i = 0; i < a->nprocs; i++) {
		char pid[32];
		snprintf(pid, sizeof(pid), "%ld", a->procs[i].pid);
		if (!a->pick_filter[0] || strcasestr(a->procs[i].name, a->pick_filter) || strstr(pid, a->pick_filter))
			a->shown[a->nshown++] = i;
	}
	if (a->pick_cursor > a->nshown)
		a->pick_cursor = a->nshown;
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
	a->picking = true;
	a->pick_cursor = 1; /* the busiest process, as PerfView's picker suggests */
	picker_filter(a);
	return true;
}

/* `Process% NAME (PID)` for IncPats; characters with a meaning in patterns or lists become
 * `*` (e.g. "bash;git" would otherwise split the IncPats list). */
static void process_pattern(char *buf, size_t size, const sv_process *p)
{
	char name[256];
	snprintf(name, sizeof(name), "%s", p->name);
	for (char *c = name; *c; c++)
		if (strchr(";|{}^%*@", *c))
			*c = '*';
	if (p->pid >= 0)
		snprintf(buf, size, "Process%% %s (%ld)", name, p->pid);
	else
		snprintf(buf, size, "Process%% %s", name);
}

static int picker_done(tui_app *a, bool all)
{
	char inc[4096] = "";
	size_t o = 0, n = 0;
	for (size_t i = 0; !all && i < a->nprocs; i++)
		if (a->picked[i]) {
			char one[300];
			process_pattern(one, sizeof(one), &a->procs[i]);
			o += (size_t)snprintf(inc + o, sizeof(inc) - o, "%s%s", n++ ? "|" : "", one);
		}
	if (!all && !n && a->pick_cursor > 0 && a->pick_cursor <= a->nshown)
		process_pattern(inc, sizeof(inc), &a->procs[a->shown[a->pick_cursor - 1]]);
	a->picking = false;
	if (!inc[0]) {
		status(a, "all processes");
		return TUI_REDRAW | TUI_REFLATTEN;
	}
	return apply_box(a, SV_BOX_INC, inc);
}

static int picker_key(tui_app *a, int key)
{
	size_t n = a->nshown + 1;
	if (key == KEY_UP && a->pick_cursor > 0)
		a->pick_cursor--;
	else if (key == KEY_DOWN && a->pick_cursor + 1 < n)
		a->pick_cursor++;
	else if (key == KEY_PPAGE)
		a->pick_cursor = a->pick_cursor > 10 ? a->pick_cursor - 10 : 0;
	else if (key == KEY_NPAGE)
		a->pick_cursor = a->pick_cursor + 10 < n ? a->pick_cursor + 10 : n - 1;
	else if (key == KEY_HOME)
		a->pick_cursor = 0;
	else if (key == KEY_END)
		a->pick_cursor = n - 1;
	else if (key == ' ' && a->pick_cursor > 0)
		a->picked[a->shown[a->pick_cursor - 1]] ^= 1;
	else if (key == '\n' || key == KEY_ENTER)
		return picker_done(a, a->pick_cursor == 0);
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
		a->pick_cursor = a->nshown ? 1 : 0;
	}
	return TUI_REDRAW;
}

/* ---- the Flame tab ---- */

static int flame_zoom(tui_app *a, sv_node_id top, sv_node_id select)
{
	tui_frame *f = tui_app_frame(a);
	f->flame_top = top;
	sv_flame_free(f->flame);
	f->flame = NULL;
	reflatten(a);
	f->flame_sel = 0;
	for (size_t i = 0; f->flame && i < f->flame->n; i++)
		if (f->flame->box[i].node == select)
			f->flame_sel = i;
	status(a, top == SV_NODE_ROOT ? "whole tree" : "zoomed into %s", sv_view_name(f->view, sv_view_node_name(f->view, top)));
	return TUI_REDRAW;
}

static int flame_key(tui_app *a, tui_command c)
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
		sv_node_id *z = realloc(f->zooms, (f->nzooms + 1) * sizeof(*z));
		if (!z)
			return TUI_REDRAW;
		f->zooms = z;
		f->zooms[f->nzooms++] = f->flame_top;
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
	status(a, "%s  %s (%.1f%%)", sv_view_name(f->view, b->name), num, 100.0 * b->w);
	return TUI_REDRAW;
}

static int mouse_picker(tui_app *a, tui_mouse m, int y)
{
	size_t n = a->nshown + 1;
	int rows = a->h - 6; /* as draw_picker lays it out */
	if (m == TUI_MOUSE_WHEEL_UP || m == TUI_MOUSE_WHEEL_DOWN) {
		for (int i = 0; i < 3; i++)
			picker_key(a, m == TUI_MOUSE_WHEEL_UP ? KEY_UP : KEY_DOWN);
		return TUI_REDRAW;
	}
	size_t top = a->pick_cursor >= (size_t)rows ? a->pick_cursor - (size_t)rows + 1 : 0;
	if (y < TUI_PICK_TOP || y >= TUI_PICK_TOP + rows || top + (size_t)(y - TUI_PICK_TOP) >= n)
		return 0;
	size_t i = top + (size_t)(y - TUI_PICK_TOP);
	bool again = i == a->pick_cursor;
	a->pick_cursor = i;
	if (m == TUI_MOUSE_DOUBLE)
		return picker_key(a, '\n');
	if (again && i > 0) /* a click on the selected process marks or unmarks it */
		return picker_key(a, ' ');
	return TUI_REDRAW;
}

/* ---- columns (the c dialog, header clicks) ---- */

static uint32_t cursor_id(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	return p->cursor < f->rows.n ? f->rows.row[p->cursor].id : UINT32_MAX;
}

static void keep_row(tui_app *a, uint32_t id)
{
	tui_frame *f = tui_app_frame(a);
	for (size_t i = 0; id != UINT32_MAX && i < f->rows.n; i++)
		if (f->rows.row[i].id == id) {
			f->pane[a->tab].cursor = i;
			return;
		}
}

static void resort(tui_app *a)
{
	uint32_t id = cursor_id(a);
	reflatten(a);
	keep_row(a, id);
}

static int set_sort(tui_app *a, int col)
{
	if (col < 0 || col >= SV_COL_COUNT || !sv_column_get((sv_col)col)->sortable) {
		status(a, "the When column is not sortable");
		return TUI_REDRAW;
	}
	if (a->sort_col[a->tab] == col) {
		a->sort_asc[a->tab] = !a->sort_asc[a->tab];
	} else {
		a->sort_col[a->tab] = col;
		a->sort_asc[a->tab] = col == SV_COL_NAME; /* names A to Z, numbers largest first */
	}
	resort(a);
	status(a, "sorted by %s, %s (c: columns, o there restores the view's order)", sv_column_get((sv_col)col)->title,
	       a->sort_asc[a->tab] ? "ascending" : "descending");
	return TUI_REDRAW;
}

static int columns_key(tui_app *a, int key)
{
	sv_col all[SV_COL_COUNT];
	sv_grid_all_columns(a->tab == TAB_BYNAME ? SV_ROWS_BYNAME : SV_ROWS_CALLTREE, all);
	sv_col c = all[a->cols_cursor < SV_COL_COUNT ? a->cols_cursor : 0];
	switch (key) {
	case KEY_UP: case 'k':
		if (a->cols_cursor)
			a->cols_cursor--;
		break;
	case KEY_DOWN: case 'j':
		if (a->cols_cursor + 1 < SV_COL_COUNT)
			a->cols_cursor++;
		break;
	case ' ':
		if (c != SV_COL_NAME)
			a->col_hidden[c] = !a->col_hidden[c];
		break;
	case '+': case KEY_RIGHT: case 'l':
		if (c != SV_COL_NAME && a->col_delta[c] < 200)
			a->col_delta[c]++;
		break;
	case '-': case KEY_LEFT: case 'h':
		if (c != SV_COL_NAME && a->col_delta[c] > -40)
			a->col_delta[c]--;
		break;
	case 's': case '\n': case KEY_ENTER:
		return set_sort(a, (int)c);
	case 'o':
		a->sort_col[a->tab] = -1;
		resort(a);
		break;
	case 'r':
		default_columns(a);
		memset(a->col_delta, 0, sizeof(a->col_delta));
		for (int t = 0; t < TAB_COUNT; t++)
			a->sort_col[t] = -1;
		resort(a);
		break;
	default: /* Esc, c, q */
		a->cols_open = false;
		break;
	}
	return TUI_REDRAW;
}

/* The grid column under screen column x, or -1. */
static int column_at(tui_app *a, int x, int *x0)
{
	sv_col shown[SV_COL_COUNT];
	int width[SV_COL_COUNT];
	int n = tui_draw_columns(a, shown, width), cx = 0;
	for (int i = 0; i < n; i++) {
		if (x >= cx && x < cx + width[shown[i]] + 1) {
			*x0 = cx;
			return (int)shown[i];
		}
		cx += width[shown[i]] + 1;
	}
	return -1;
}

static bool grid_tab(const tui_app *a)
{
	return a->tab != TAB_FLAME && a->tab != TAB_NOTES;
}

/* ---- copy (y, Y) ---- */

#define COPY_MAX_ROWS 10000

static int copy_rows(tui_app *a, bool subtree)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	if (!grid_tab(a) || p->cursor >= f->rows.n) {
		status(a, "nothing to copy here");
		return TUI_REDRAW;
	}
	const sv_row *r = &f->rows.row[p->cursor];
	sv_rows sub = f->rows; /* a view of the grid's rows: the cursor row, or all of them */
	sub.row += p->cursor;
	sub.n = 1;
	bool own = false;
	int rc = 0;
	if (subtree && tree_tab(a)) {
		rc = a->tab == TAB_CALLTREE ? sv_rows_calltree_at(&sub, f->view, r->id, NULL, -1)
					    : sv_rows_aggtree_at(&sub, f->agg, r->id, NULL, -1);
		own = !rc;
		int k = a->sort_col[a->tab];
		if (!rc && k >= 0 && sv_column_get((sv_col)k)->sortable)
			rc = sv_rows_sort(&sub, 0, sub.n, f->view, k, a->sort_asc[a->tab]);
	} else if (subtree) { /* ByName and Caller-Callee: the whole grid */
		sub = f->rows;
	}
	size_t n = sub.n;
	bool cut = n > COPY_MAX_ROWS;
	if (cut)
		sub.n = n = COPY_MAX_ROWS;
	char *text = rc ? NULL : tui_draw_rows_text(a, &sub);
	if (own)
		sv_rows_dispose(&sub);
	if (!text) {
		status(a, "out of memory");
		return TUI_REDRAW;
	}
	free(a->clip);
	a->clip = text;
	a->clip_new = true;
	status(a, "copied %zu row%s%s (%zu bytes) to the clipboard", n, n == 1 ? "" : "s",
	       cut ? " (the subtree's first rows)" : "", strlen(text));
	return TUI_REDRAW;
}

/* ---- selecting When characters (t) ---- */

static int when_start(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	if (!grid_tab(a) || f->pane[a->tab].cursor >= f->rows.n) {
		status(a, "no When column here");
		return TUI_REDRAW;
	}
	sv_col cols[SV_COL_COUNT];
	int width[SV_COL_COUNT];
	int n = tui_draw_columns(a, cols, width);
	bool shown = false;
	for (int i = 0; i < n; i++)
		shown = shown || cols[i] == SV_COL_WHEN;
	if (!shown) {
		status(a, "the When column is not shown (c: columns; a wider terminal)");
		return TUI_REDRAW;
	}
	a->when_sel = true;
	a->when_anchor = a->when_caret = 0;
	status(a, "When: Left/Right extend the selection, Enter sets the time range, Esc cancels");
	return TUI_REDRAW;
}

static int when_apply(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	int lo = a->when_anchor < a->when_caret ? a->when_anchor : a->when_caret;
	int hi = a->when_anchor < a->when_caret ? a->when_caret : a->when_anchor;
	a->when_sel = false;
	sv_params np;
	if (sv_params_copy(&np, &f->params) || sv_cmd_set_time_range_when(&np, f->view, lo, hi - lo + 1)) {
		sv_params_dispose(&np);
		status(a, "out of memory");
		return TUI_REDRAW;
	}
	int rc = apply_params(a, &np, "time range set from the When selection");
	sv_params_dispose(&np);
	return rc;
}

/* Keys while When characters are selected; false = not taken (the selection ends). */
static bool when_key(tui_app *a, int key, int *flags)
{
	*flags = TUI_REDRAW;
	tui_command c = tui_key_command(key);
	switch (c) {
	case CMD_COLLAPSE: a->when_caret = a->when_caret > 0 ? a->when_caret - 1 : 0; return true;
	case CMD_EXPAND: a->when_caret = a->when_caret < SV_WHEN_LEN - 1 ? a->when_caret + 1 : SV_WHEN_LEN - 1; return true;
	case CMD_HOME: a->when_caret = 0; return true;
	case CMD_END: a->when_caret = SV_WHEN_LEN - 1; return true;
	case CMD_UP: case CMD_DOWN: case CMD_PGUP: case CMD_PGDN: return false; /* rows move; the selection stays */
	case CMD_ENTER: case CMD_TIME_RANGE: *flags = when_apply(a); return true;
	case CMD_WHEN_SELECT: a->when_anchor = a->when_caret; return true; /* t again: start over here */
	case CMD_POP: a->when_sel = false; status(a, "selection cancelled"); return true;
	default: a->when_sel = false; return false;
	}
}

/* ---- Goto Item in another view ---- */

static int set_focus(tui_app *a, tui_tab tab)
{
	tui_frame *f = tui_app_frame(a);
	const char *name = row_name(a, f->pane[a->tab].cursor);
	if (!name)
		return TUI_REDRAW;
	char *nf = strdup(name);
	if (!nf)
		return TUI_REDRAW;
	free(f->focus);
	f->focus = nf;
	sv_aggtree_free(f->agg);
	f->agg = NULL;
	sv_callercallee_free(f->cc);
	f->cc = NULL;
	f->pane[TAB_CALLERS].cursor = f->pane[TAB_CALLEES].cursor = f->pane[TAB_CC].cursor = 0;
	status(a, "focus: %s", nf);
	return cmd_switch_tab(a, tab);
}

static int goto_calltree(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	if (!grid_tab(a) || p->cursor >= f->rows.n)
		return TUI_REDRAW;
	sv_name_id name = f->rows.row[p->cursor].name;
	/* The first node of that name in a pre-order walk of the whole tree. */
	sv_rows all;
	if (sv_rows_calltree(&all, f->view, NULL, -1)) {
		status(a, "out of memory");
		return TUI_REDRAW;
	}
	sv_node_id hit = UINT32_MAX;
	for (size_t i = 0; i < all.n && hit == UINT32_MAX; i++)
		if (all.row[i].name == name)
			hit = all.row[i].id;
	sv_rows_dispose(&all);
	a->tab = TAB_CALLTREE;
	if (hit == UINT32_MAX) {
		reflatten(a);
		status(a, "'%s' is not in the call tree", sv_view_name(f->view, name));
		return TUI_REDRAW;
	}
	reveal_node(a, hit);
	status(a, "%s in the call tree", sv_view_name(f->view, name));
	return TUI_REDRAW;
}

static int goto_byname(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	if (!grid_tab(a) || p->cursor >= f->rows.n)
		return TUI_REDRAW;
	sv_name_id name = f->rows.row[p->cursor].name;
	a->tab = TAB_BYNAME;
	reflatten(a);
	for (size_t i = 0; i < f->rows.n; i++)
		if (f->rows.row[i].name == name) {
			f->pane[TAB_BYNAME].cursor = i;
			break;
		}
	return TUI_REDRAW;
}

/* ---- editing the notes (Notes tab, Enter) ---- */

#define NOTES_MAX (1u << 20)

static int notes_start(tui_app *a)
{
	const char *n = sv_source_notes(tui_app_frame(a)->src);
	free(a->notes);
	a->notes = strdup(n);
	if (!a->notes) {
		status(a, "out of memory");
		return TUI_REDRAW;
	}
	a->notes_len = a->notes_cur = strlen(n);
	a->notes_edit = true;
	status(a, "editing notes: Esc or F2 keeps them (Ctrl-S saves them with the view)");
	return TUI_REDRAW;
}

static size_t line_start(const char *t, size_t at)
{
	while (at > 0 && t[at - 1] != '\n')
		at--;
	return at;
}

static size_t line_end(const char *t, size_t len, size_t at)
{
	while (at < len && t[at] != '\n')
		at++;
	return at;
}

/* Byte offset of character column `col` in the line starting at `ls`. */
static size_t at_column(const char *t, size_t len, size_t ls, size_t col)
{
	size_t le = line_end(t, len, ls), at = ls;
	for (size_t c = 0; c < col && at < le; c++)
		do
			at++;
		while (at < le && (t[at] & 0xC0) == 0x80);
	return at;
}

static size_t column_of(const char *t, size_t at)
{
	size_t col = 0;
	for (size_t i = line_start(t, at); i < at; i++)
		if ((t[i] & 0xC0) != 0x80)
			col++;
	return col;
}

static int notes_key(tui_app *a, int key)
{
	char *t = a->notes;
	size_t len = a->notes_len, cur = a->notes_cur;
	if (key == TUI_KEY_ESC || key == KEY_F(2)) {
		a->notes_edit = false;
		if (sv_source_set_notes(tui_app_frame(a)->src, t))
			status(a, "out of memory: notes not kept");
		else
			status(a, "notes kept (Ctrl-S saves them with the view)");
		return TUI_REDRAW;
	}
	if (edit_chars(t, &len, &cur, key)) {
		/* moved or deleted a character */
	} else if (key == KEY_HOME || key == TUI_CTRL('a')) {
		cur = line_start(t, cur);
	} else if (key == KEY_END || key == TUI_CTRL('e')) {
		cur = line_end(t, len, cur);
	} else if (key == KEY_UP || key == KEY_DOWN) {
		size_t ls = line_start(t, cur), col = column_of(t, cur);
		if (key == KEY_UP && ls > 0)
			cur = at_column(t, len, line_start(t, ls - 1), col);
		else if (key == KEY_DOWN) {
			size_t le = line_end(t, len, cur);
			if (le < len)
				cur = at_column(t, len, le + 1, col);
		}
	} else if ((key == '\n' || key == KEY_ENTER || (key >= 0x20 && key < 0x100 && key != 0x7f)) && len + 1 < NOTES_MAX) {
		char *nt = realloc(t, len + 2);
		if (!nt) {
			status(a, "out of memory");
			return TUI_REDRAW;
		}
		t = a->notes = nt;
		memmove(t + cur + 1, t + cur, len - cur + 1);
		t[cur++] = key == KEY_ENTER ? '\n' : (char)key;
		len++;
	}
	a->notes_len = len;
	a->notes_cur = cur;
	return TUI_REDRAW;
}

static int mouse_flame(tui_app *a, tui_mouse m, int x, int y)
{
	tui_frame *f = tui_app_frame(a);
	const sv_flame *fl = f->flame;
	if (!fl || !fl->n || y <= TUI_GRID_TOP - 1 || y >= a->h - 1)
		return 0;
	int depth = y - TUI_GRID_TOP + tui_draw_flame_top_depth(a, a->h - 1 - TUI_GRID_TOP);
	for (size_t i = 0; i < fl->n; i++) {
		const sv_flame_box *b = &fl->box[i];
		int x0, x1;
		if ((int)b->depth != depth || !tui_draw_flame_span(a, b, &x0, &x1) || x < x0 || x >= x1)
			continue;
		f->flame_sel = i;
		return m == TUI_MOUSE_DOUBLE ? flame_key(a, CMD_ENTER) : TUI_REDRAW;
	}
	return 0;
}

int tui_app_mouse(tui_app *a, tui_mouse m, int x, int y)
{
	if (a->picking)
		return mouse_picker(a, m, y);
	if (a->presets_open)
		return mouse_presets(a, m, y);
	if (a->help || a->edit_box >= 0 || a->finding || a->saving || a->naming_preset)
		return 0; /* the keyboard owns these */
	if (m == TUI_MOUSE_WHEEL_UP || m == TUI_MOUSE_WHEEL_DOWN) {
		int flags = 0;
		for (int i = 0; i < 3; i++)
			flags |= tui_app_handle(a, m == TUI_MOUSE_WHEEL_UP ? KEY_UP : KEY_DOWN);
		return flags;
	}
	if (y == TUI_TABS_ROW) {
		int t = tui_draw_tab_at(a, x);
		return t >= 0 ? tui_app_handle(a, '1' + t) : 0;
	}
	if (a->tab == TAB_FLAME)
		return mouse_flame(a, m, x, y);
	if (a->notes_edit || a->cols_open)
		return 0;
	int x0 = 0;
	if (grid_tab(a) && y == TUI_GRID_TOP && m == TUI_MOUSE_CLICK) { /* a column title sorts by it */
		int c = column_at(a, x, &x0);
		return c >= 0 ? set_sort(a, c) : 0;
	}
	if (a->tab == TAB_NOTES || y <= TUI_GRID_TOP || y >= a->h - 1)
		return 0;
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	size_t i = p->top + (size_t)(y - TUI_GRID_TOP - 1);
	if (i >= f->rows.n)
		return 0;
	a->status[0] = '\0';
	if (m == TUI_MOUSE_CLICK && column_at(a, x, &x0) == SV_COL_WHEN && x - x0 < SV_WHEN_LEN) {
		/* a click in a When cell selects that character; a second one on the same row
		 * extends the selection to it */
		if (!a->when_sel || p->cursor != i)
			a->when_anchor = x - x0;
		a->when_caret = x - x0;
		a->when_sel = true;
		p->cursor = i;
		status(a, "When: click again or Left/Right to extend, Enter sets the time range, Esc cancels");
		return TUI_REDRAW;
	}
	a->when_sel = false;
	p->cursor = i;
	return m == TUI_MOUSE_DOUBLE ? tui_app_handle(a, '\n') | TUI_REDRAW : TUI_REDRAW;
}

int tui_app_handle(tui_app *a, int key)
{
	tui_frame *f = tui_app_frame(a);
	tui_pane *p = &f->pane[a->tab];
	if (a->picking)
		return picker_key(a, key);
	if (a->edit_box >= 0 || a->finding || a->saving || a->naming_preset)
		return edit_key(a, key);
	if (a->presets_open)
		return presets_key(a, key);
	if (a->cols_open)
		return columns_key(a, key);
	if (a->notes_edit)
		return notes_key(a, key);
	if (a->help) {
		if (key == KEY_DOWN || key == 'j')
			a->help_top++;
		else if ((key == KEY_UP || key == 'k') && a->help_top)
			a->help_top--;
		else
			a->help = false;
		return TUI_REDRAW;
	}
	if (key == KEY_RESIZE)
		return TUI_REDRAW;
	a->status[0] = '\0';
	int wflags;
	if (a->when_sel && when_key(a, key, &wflags))
		return wflags;
	const sv_row *r = p->cursor < f->rows.n ? &f->rows.row[p->cursor] : NULL;
	tui_command c = tui_key_command(key);
	if (a->tab == TAB_FLAME) {
		switch (c) {
		case CMD_UP: case CMD_DOWN: case CMD_EXPAND: case CMD_COLLAPSE: case CMD_ENTER: case CMD_HOME:
			return flame_key(a, c);
		case CMD_POP:
			if (f->nzooms)
				return flame_key(a, c);
			break;
		default:
			break;
		}
	}
	switch (c) {
	case CMD_UP: return cmd_move(a, -1);
	case CMD_DOWN: return cmd_move(a, 1);
	case CMD_PGUP: return cmd_move(a, -(long)page_rows(a));
	case CMD_PGDN: return cmd_move(a, (long)page_rows(a));
	case CMD_HOME: return cmd_move(a, -(long)f->rows.n);
	case CMD_END: return cmd_move(a, (long)f->rows.n);
	case CMD_EXPAND:
		if (!tree_tab(a) || !r)
			return TUI_REDRAW;
		if (r->has_children && !r->expanded)
			return set_expanded(a, r, 1);
		return r->has_children ? cmd_move(a, 1) : TUI_REDRAW;
	case CMD_COLLAPSE:
		if (!tree_tab(a) || !r)
			return TUI_REDRAW;
		if (r->expanded)
			return set_expanded(a, r, 0);
		for (size_t i = p->cursor; i-- > 0;)
			if (f->rows.row[i].depth + 1 == r->depth) {
				p->cursor = i;
				break;
			}
		return TUI_REDRAW;
	case CMD_TOGGLE:
		if (!tree_tab(a) || !r || !r->has_children)
			return TUI_REDRAW;
		return set_expanded(a, r, r->expanded ? 0 : 1);
	case CMD_EXPAND_ALL:
		return tree_tab(a) && r ? set_expanded(a, r, 2) : TUI_REDRAW;
	case CMD_ENTER:
		if (a->tab == TAB_NOTES)
			return notes_start(a);
		if (a->tab == TAB_FLAME)
			return TUI_REDRAW;
		return cmd_enter(a);
	case CMD_TAB_NEXT: return cmd_switch_tab(a, (tui_tab)((a->tab + 1) % TAB_COUNT));
	case CMD_TAB_PREV: return cmd_switch_tab(a, (tui_tab)((a->tab + TAB_COUNT - 1) % TAB_COUNT));
	case CMD_TAB_BYNAME: return cmd_switch_tab(a, TAB_BYNAME);
	case CMD_TAB_CALLTREE: return cmd_switch_tab(a, TAB_CALLTREE);
	case CMD_TAB_CALLERS: return cmd_switch_tab(a, TAB_CALLERS);
	case CMD_TAB_CALLEES: return cmd_switch_tab(a, TAB_CALLEES);
	case CMD_TAB_CC: return cmd_switch_tab(a, TAB_CC);
	case CMD_TAB_FLAME: return cmd_switch_tab(a, TAB_FLAME);
	case CMD_TAB_NOTES: return cmd_switch_tab(a, a->tab == TAB_NOTES ? TAB_CALLTREE : TAB_NOTES);
	case CMD_EDIT_GROUP:
	case CMD_EDIT_FOLD:
	case CMD_EDIT_FOLDPCT:
	case CMD_EDIT_INC:
	case CMD_EDIT_EXC:
	case CMD_EDIT_START:
	case CMD_EDIT_END:
		for (int b = 0; b < SV_BOX_COUNT; b++)
			if (edit_cmds[b] == c)
				edit_start(a, b, sv_params_get(&f->params, (sv_box)b));
		status(a, "Enter applies, Esc cancels, Up/Down: earlier values");
		return TUI_REDRAW;
	case CMD_FOLD_MORE:
	case CMD_FOLD_LESS: {
		char *out;
		if (sv_cmd_fold_pct(&out, sv_params_get(&f->params, SV_BOX_FOLD_PCT), c == CMD_FOLD_MORE))
			return TUI_REDRAW;
		int rc = out[0] ? apply_box(a, SV_BOX_FOLD_PCT, out) : TUI_REDRAW;
		if (!out[0])
			status(a, "Fold%% is empty: %% sets it");
		free(out);
		return rc;
	}
	case CMD_DRILL: return drill(a, true);
	case CMD_DRILL_EXC: return drill(a, false);
	case CMD_POP:
		if (a->nframes > 1) {
			frame_dispose(&a->frames[--a->nframes]);
			status(a, "back to %s", a->nframes > 1 ? tui_app_frame(a)->title : "the first view");
			return TUI_REDRAW | TUI_REFLATTEN;
		}
		return TUI_REDRAW;
	case CMD_UNGROUP: return row_command(a, SV_BOX_GROUP, sv_cmd_ungroup, "Ungroup");
	case CMD_UNGROUP_MODULE: return row_command(a, SV_BOX_GROUP, sv_cmd_ungroup_module, "Ungroup Module");
	case CMD_GROUP_MODULE: return row_command(a, SV_BOX_GROUP, cmd_group_module, "Group Module");
	case CMD_ENTRY_GROUP_MODULE: return row_command(a, SV_BOX_GROUP, cmd_entry_group_module, "Entry Group Module");
	case CMD_FOLD_ITEM: return row_command(a, SV_BOX_FOLD, sv_cmd_fold_item, "Fold Item");
	case CMD_FOLD_MODULE: return row_command(a, SV_BOX_FOLD, sv_cmd_fold_module, "Fold Module");
	case CMD_INCLUDE_ITEM: return row_command(a, SV_BOX_INC, cmd_include, "Include Item");
	case CMD_EXCLUDE_ITEM: return row_command(a, SV_BOX_EXC, cmd_exclude, "Exclude Item");
	case CMD_REMOVE_FOLDING: {
		sv_params np;
		if (sv_params_copy(&np, &f->params) || sv_cmd_remove_all_folding(&np)) {
			sv_params_dispose(&np);
			return TUI_REDRAW;
		}
		int rc = apply_params(a, &np, "folding removed");
		sv_params_dispose(&np);
		return rc;
	}
	case CMD_TIME_RANGE: {
		if (!r)
			return TUI_REDRAW;
		sv_params np;
		if (sv_params_copy(&np, &f->params) || sv_cmd_set_time_range(&np, r->st->first, r->st->last)) {
			sv_params_dispose(&np);
			return TUI_REDRAW;
		}
		int rc = apply_params(a, &np, "time range set");
		sv_params_dispose(&np);
		return rc;
	}
	case CMD_FLATTEN: return flatten(a);
	case CMD_WHEN_SELECT: return when_start(a);
	case CMD_GOTO_CALLERS: return grid_tab(a) ? set_focus(a, TAB_CALLERS) : TUI_REDRAW;
	case CMD_GOTO_CALLEES: return grid_tab(a) ? set_focus(a, TAB_CALLEES) : TUI_REDRAW;
	case CMD_GOTO_CC: return grid_tab(a) ? set_focus(a, TAB_CC) : TUI_REDRAW;
	case CMD_GOTO_CALLTREE: return goto_calltree(a);
	case CMD_GOTO_BYNAME: return goto_byname(a);
	case CMD_COPY_ROW: return copy_rows(a, false);
	case CMD_COPY_SUBTREE: return copy_rows(a, true);
	case CMD_COLUMNS:
		a->cols_open = true;
		return TUI_REDRAW;
	case CMD_BACK: return cmd_history(a, -1);
	case CMD_FORWARD: return cmd_history(a, 1);
	case CMD_FIND:
		a->finding = true;
		edit_start(a, 0, a->find);
		a->edit_box = -1;
		status(a, "find (regex): Enter searches, n finds the next");
		return TUI_REDRAW;
	case CMD_FIND_NEXT: return find_next(a, false);
	case CMD_SAVE: {
		if (!a->save) {
			status(a, "saving is not available here");
			return TUI_REDRAW;
		}
		/* PerfView's default name: <base>.View<n>.perfView.xml.zip */
		char name[600];
		const char *t = a->frames[0].title;
		size_t n = strlen(t);
		static const char *const exts[] = { ".perfView.xml.zip", ".perfView.xml", ".perfView.json.zip",
						    ".perfView.json", ".data.txt", ".txt", ".folded" };
		for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
			size_t l = strlen(exts[i]);
			if (n > l && strcmp(t + n - l, exts[i]) == 0) {
				n -= l;
				break;
			}
		}
		snprintf(name, sizeof(name), "%.*s.View%u.perfView.xml.zip", (int)n, t, ++a->saves);
		a->saving = true;
		edit_start(a, 0, name);
		a->edit_box = -1;
		status(a, "save as: Enter writes, Esc cancels");
		return TUI_REDRAW;
	}
	case CMD_PRESETS:
		a->presets_open = true;
		if (a->preset_cursor >= preset_count(a))
			a->preset_cursor = 0;
		return TUI_REDRAW;
	case CMD_SAVE_PRESET: {
		if (!a->presets) {
			status(a, "presets are not available here");
			return TUI_REDRAW;
		}
		/* PerfView proposes the [...] comment of GroupPats as the name. */
		char *comment = NULL, *pats = NULL;
		if (sv_preset_split_group(&comment, &pats, f->params.box[SV_BOX_GROUP]))
			return TUI_REDRAW;
		a->naming_preset = true;
		edit_start(a, 0, comment);
		a->edit_box = -1;
		free(comment);
		free(pats);
		status(a, "preset name: Enter saves GroupPats, Fold%% and FoldPats, Esc cancels");
		return TUI_REDRAW;
	}
	case CMD_HELP:
		a->help = true;
		a->help_top = 0;
		return TUI_REDRAW;
	case CMD_QUIT:
		a->quit = true;
		return 0;
	default:
		return TUI_REDRAW;
	}
}
