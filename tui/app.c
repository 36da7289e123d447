/* SPDX-License-Identifier: MIT */
/* The stack window's state (see app.h): frames and their views, the status line, parameters
 * staged and applied, rows rebuilt. The lowest file of tui/ above the screen: the dialogs,
 * tabs and handlers read and change the state through it; it calls none of them. */
#include "app.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evread.h"
#include "stackview/commands.h"
#include "stackview/compare.h"
#include "stackview/derive.h"
#include "stackview/flame.h"
#include "stackview/pattern.h"
#include "sv/array.h"

#define HISTORY_MAX 100

/* The grid's default columns (lib/) shown, the others hidden; every tab in its view's order. */
void tui_default_columns(tui_app *a)
{
	/* a diff of several runs a side shows its comparison's columns; one run a side, on request */
	bool several = a->compare && (sv_compare_runs(a->compare, false) > 1 || sv_compare_runs(a->compare, true) > 1);
	for (int c = 0; c < SV_COL_COUNT; c++)
		a->col_hidden[c] = !sv_column_get((sv_col)c)->shown && !(several && sv_column_get((sv_col)c)->compare);
	/* thread time: the longest interval under a row beside the counts (lib's default) */
	const sv_source *src = a->nframes ? a->frames[a->nframes - 1].src : NULL;
	if (src && sv_source_intervals(src))
		a->col_hidden[SV_COL_MAX] = false;
	for (int t = 0; t < TAB_COUNT; t++)
		a->sort_col[t] = -1;
}

void tui_status(tui_app *a, const char *fmt, ...) SV_PRINTF(2, 3);
void tui_status(tui_app *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->status, sizeof(a->status), fmt, ap);
	va_end(ap);
}

void tui_busy(tui_app *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->status, sizeof(a->status), fmt, ap);
	va_end(ap);
	if (a->paint_now)
		a->paint_now(a);
}

static int busy_progress(void *payload, unsigned long long done, unsigned long long total)
{
	tui_app *a = payload;
	if (a->busy_cancel && a->esc_typed && a->esc_typed(a))
		return 1;
	int pct = total ? (int)(100.0 * (double)(done < total ? done : total) / (double)total) : -1;
	if (pct < 0 || pct == a->busy_pct || !a->paint_now)
		return 0;
	a->busy_pct = pct;
	snprintf(a->status, sizeof(a->status), "%.480s %d%%%s", a->busy, pct, a->busy_cancel ? "  (Esc cancels)" : "");
	a->paint_now(a);
	return 0;
}

void tui_busy_watch(tui_app *a, tui_reload *rl, bool cancel)
{
	snprintf(a->busy, sizeof(a->busy), "%s", a->status);
	a->busy_pct = -1;
	a->busy_cancel = cancel;
	rl->progress = busy_progress;
	rl->progress_payload = a;
}

tui_frame *tui_app_frame(tui_app *a)
{
	return &a->frames[a->nframes - 1];
}

void tui_frame_dispose(tui_frame *f)
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
	free(f->priority);
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
	if (SV_ARRAY_RESERVE(f->hist, f->hist_cap, f->nhist + 1))
		return SV_ENOMEM;
	if (sv_params_copy(&f->hist[f->nhist], &f->params)) {
		sv_params_dispose(&f->hist[f->nhist]);
		return SV_ENOMEM;
	}
	f->hpos = f->nhist++;
	return 0;
}

/* The views derived from the focus name (Callers/Callees tree, Caller-Callee) go. */
static void drop_focus_views(tui_frame *f)
{
	sv_aggtree_free(f->agg);
	f->agg = NULL;
	sv_callercallee_free(f->cc);
	f->cc = NULL;
}

/* What was derived from the frame's view goes (made again when a tab asks for it). */
static void drop_derived(tui_frame *f)
{
	drop_focus_views(f);
	sv_flame_free(f->flame);
	f->flame = NULL;
}

/* Everything derived from the frame's view goes, and the panes start afresh (node ids change
 * with the view). */
static int frame_reset(tui_frame *f)
{
	drop_derived(f);
	f->flame_top = SV_NODE_ROOT;
	f->flame_sel = 0;
	f->nzooms = 0;
	for (int t = 0; t < TAB_COUNT; t++) {
		sv_expansion_clear(f->pane[t].exp);
		f->pane[t].cursor = f->pane[t].top = 0;
	}
	return f->view ? sv_expansion_expand_node(f->pane[TAB_CALLTREE].exp, f->view, SV_NODE_ROOT) : 0;
}

/* Make `v` the frame's view with `params` (taken over). */
static int frame_install(tui_frame *f, sv_view *v, sv_params *params)
{
	sv_view_free(f->view);
	f->view = v;
	sv_params_dispose(&f->params);
	f->params = *params;
	return frame_reset(f);
}

/* Build the view for `p`. On failure the frame keeps a view with its old parameters (made
 * again when the old one had been given up: its panes start afresh) and err says why; when
 * memory runs out even for that, the frame has no view and the window quits. */
static int tui_frame_apply(tui_frame *f, const sv_params *p, sv_error *err)
{
	sv_view *v;
	int rc;
	if (f->view) {
		/* the old view's memory goes to the new one (what it shares with it reused): what
		 * was derived from it goes first */
		drop_derived(f);
		bool remade;
		rc = sv_view_renew(&f->view, p, &remade, err);
		if (rc && remade)
			(void)frame_reset(f); /* (a view without its root open is still a view) */
		if (!rc) {
			v = f->view;
			f->view = NULL; /* frame_install frees the old view: it is gone already */
		}
	} else {
		rc = sv_view_new(&v, f->src, p, err);
	}
	if (rc) /* every failure says why, even one the engine left without a message */
		return err && !err->msg[0] ? sv_error_set(err, rc, NULL) : rc;
	sv_params np;
	if (sv_params_copy(&np, sv_view_params(v))) {
		sv_params_dispose(&np);
		sv_view_free(v);
		return sv_error_set(err, SV_ENOMEM, NULL);
	}
	if (frame_install(f, v, &np) || history_push(f))
		return sv_error_set(err, SV_ENOMEM, NULL);
	return 0;
}

static int frame_init(tui_frame *f, sv_source *src, bool owns, const sv_params *p, const char *title,
		      sv_error *err)
{
	memset(f, 0, sizeof(*f));
	f->src = src;
	f->owns_src = owns;
	/* every view of this frame adds the stacks' sums instead of each sample, where they are
	 * exact (one pass now, then a refilter of 100M samples costs what 400k stacks cost) */
	if (sv_source_sum_stacks(src))
		return sv_error_set(err, SV_ENOMEM, NULL);
	f->title = strdup(title ? title : "");
	int rc = f->title ? sv_params_init(&f->params) : SV_ENOMEM;
	for (int t = 0; !rc && t < TAB_COUNT; t++)
		rc = sv_expansion_new(&f->pane[t].exp);
	if (rc)
		return sv_error_set(err, rc, NULL);
	return tui_frame_apply(f, p, err);
}

int tui_app_new(tui_app **out, sv_source *src, const sv_params *params, const char *title, sv_error *err)
{
	tui_app *a = calloc(1, sizeof(*a));
	if (!a || SV_ARRAY_RESERVE(a->frames, a->frame_cap, 1)) {
		free(a);
		return sv_error_set(err, SV_ENOMEM, NULL);
	}
	a->nframes = 1;
	a->edit_box = -1;
	a->tab = TAB_CALLTREE;
	a->w = 100;
	a->h = 30;
	int rc = frame_init(&a->frames[0], src, false, params, title, err);
	if (rc) {
		tui_app_free(a);
		return rc;
	}
	tui_default_columns(a);
	tui_app_react(a, TUI_REFLATTEN);
	*out = a;
	return 0;
}

/* The cursor back on the row with this id, if the rows still have it. */
void tui_keep_row(tui_app *a, uint32_t id)
{
	tui_frame *f = tui_app_frame(a);
	for (size_t i = 0; id != UINT32_MAX && i < f->rows.n; i++)
		if (f->rows.row[i].id == id) {
			f->pane[a->tab].cursor = i;
			return;
		}
}

int tui_reveal_node(tui_app *a, sv_node_id id)
{
	tui_frame *f = tui_app_frame(a);
	for (sv_node_id x = sv_view_node_parent(f->view, id); x != UINT32_MAX; x = sv_view_node_parent(f->view, x))
		if (sv_expansion_set(f->pane[TAB_CALLTREE].exp, x, true))
			break;
	a->after = (tui_after){ AFTER_ROW_ID, id };
	return TUI_REDRAW | TUI_REFLATTEN;
}

/* The navigation history's places (nav.c keeps them; the window frees them). */
static void nav_dispose(tui_nav **v, size_t *n, size_t *cap)
{
	while (*n)
		free((*v)[--*n].focus);
	free(*v);
	*v = NULL;
	*cap = 0;
}

void tui_app_free(tui_app *a)
{
	if (!a)
		return;
	if (a->staged_set)
		sv_params_dispose(&a->staged);
	free(a->notes);
	free(a->clip);
	free(a->procs);
	free(a->shown);
	free(a->picked);
	if (a->ev_read) /* stopped before the log goes */
		(void)tui_ev_read_finish(a->ev_read, true, NULL, 0, NULL);
	sv_evlog_free(a->evlog);
	free(a->report);
	free(a->report_lines);
	free(a->annot);
	free(a->annot_lines);
	free(a->annot_hot);
	free(a->evidx);
	for (size_t i = 0; i < a->nframes; i++)
		tui_frame_dispose(&a->frames[i]);
	free(a->frames);
	nav_dispose(&a->nav_back, &a->nnav_back, &a->nav_back_cap);
	nav_dispose(&a->nav_fwd, &a->nnav_fwd, &a->nav_fwd_cap);
	free(a);
}

const char *tui_row_name(tui_app *a, size_t i)
{
	tui_frame *f = tui_app_frame(a);
	return i < f->rows.n ? sv_view_name(f->view, f->rows.row[i].name) : NULL;
}

/* The focus defaults to the ByName row with the largest exclusive cost (not ROOT). */
void tui_frame_set_focus(tui_frame *f, char *focus)
{
	free(f->focus);
	f->focus = focus;
	drop_focus_views(f);
}

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
	if (a->sort_col[a->tab] < 0) /* tui_set_sort keeps only sortable columns there */
		return 0;
	sv_col k = (sv_col)a->sort_col[a->tab];
	if (a->tab == TAB_CC && f->cc) {
		int rc = sv_rows_sort(&f->rows, 0, f->cc->ncallers, f->view, k, a->sort_asc[a->tab]);
		return rc ? rc : sv_rows_sort(&f->rows, f->cc->ncallers + 1, f->rows.n, f->view, k, a->sort_asc[a->tab]);
	}
	return sv_rows_sort(&f->rows, 0, f->rows.n, f->view, k, a->sort_asc[a->tab]);
}

bool tui_has_compare(const tui_app *a)
{
	return a->compare && a->nframes == 1;
}

int tui_compare_rows(tui_app *a, sv_rows *rows)
{
	if (!tui_has_compare(a) || !rows->n)
		return 0;
	tui_frame *f = tui_app_frame(a);
	sv_error err = { 0 };
	int rc = sv_compare_set_params(a->compare, sv_view_params(f->view), &err);
	return rc ? rc : sv_compare_rows(a->compare, f->view, rows);
}

void tui_reflatten(tui_app *a)
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
	if (!rc)
		rc = tui_compare_rows(a, &f->rows);
	if (!rc && a->sort_col[a->tab] >= 0 && f->rows.n)
		rc = sort_rows(a);
	if (rc)
		tui_status(a, "out of memory building the view");
	if (p->cursor >= f->rows.n)
		p->cursor = f->rows.n ? f->rows.n - 1 : 0;
}

/* The one place a view is rebuilt for new parameters (style rule 17): handlers stage them
 * (tui_stage) and return TUI_RECOMPUTE. A failed build keeps the old view, names the problem
 * on the status line and puts a history position moved by Back / Forward back. */
static void recompute(tui_app *a)
{
	if (!a->staged_set)
		return;
	tui_frame *f = tui_app_frame(a);
	sv_error err;
	sv_error_clear(&err);
	size_t old = f->hpos;
	if (a->staged_hpos != SIZE_MAX)
		f->hpos = a->staged_hpos;
	if (tui_frame_apply(f, &a->staged, &err)) {
		f->hpos = old;
		tui_status(a, "%s", err.msg);
		if (!f->view) { /* not even the old parameters' view could be made again */
			a->fatal = err;
			a->quit = true;
		}
	} else if (a->staged_hpos != SIZE_MAX) {
		tui_status(a, "%s %zu/%zu", a->staged_hpos < old ? "back" : "forward", f->hpos + 1, f->nhist);
	} else {
		tui_status(a, "%s", a->staged_what);
	}
	sv_params_dispose(&a->staged);
	a->staged_set = false;
}

/* The cursor placement a handler asked for, on the rows just rebuilt. */
static void place_after(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	tui_after after = a->after;
	a->after.kind = AFTER_NONE;
	switch (after.kind) {
	case AFTER_ROW_ID:
		tui_keep_row(a, after.id);
		break;
	case AFTER_ROW_NAME:
		for (size_t i = 0; i < f->rows.n; i++)
			if (f->rows.row[i].name == after.id) {
				f->pane[a->tab].cursor = i;
				break;
			}
		break;
	case AFTER_FLAME_NODE:
		f->flame_sel = 0;
		for (size_t i = 0; f->flame && i < f->flame->n; i++)
			if (f->flame->box[i].node == after.id)
				f->flame_sel = i;
		break;
	case AFTER_SAMPLE: /* (made a row id by tui_app_react) */
	case AFTER_NONE:
		break;
	}
}

/* A new view of a profile that opens along its hot path (tui_options.expand_hot). */
void tui_expand_hot(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	if (a->expand_hot && f->view && sv_expansion_expand_hot(f->pane[TAB_CALLTREE].exp, f->view, 0.1))
		tui_status(a, "out of memory");
}

void tui_app_react(tui_app *a, int flags)
{
	if (flags & TUI_RECOMPUTE) {
		bool had = a->staged_set;
		recompute(a);
		if (had)
			tui_expand_hot(a);
	}
	if (!tui_app_frame(a)->view)
		return; /* (quitting: see recompute) */
	if (a->after.kind == AFTER_SAMPLE) { /* its node in the view just made, shown in the call tree */
		tui_frame *f = tui_app_frame(a);
		sv_node_id node;
		double t, m;
		a->after.kind = AFTER_NONE;
		if (sv_view_sample(f->view, a->after.id, &node, &t, &m)) {
			a->tab = TAB_CALLTREE;
			(void)tui_reveal_node(a, node); /* (its callers opened; the cursor placed below) */
			flags |= TUI_REFLATTEN;
		}
	}
	if (flags & (TUI_REFLATTEN | TUI_RECOMPUTE)) {
		tui_reflatten(a);
		place_after(a);
	}
}

int tui_stage(tui_app *a, const sv_params *p, size_t hpos, const char *what)
{
	if (a->staged_set)
		sv_params_dispose(&a->staged);
	a->staged_set = false;
	if (sv_params_copy(&a->staged, p)) {
		sv_params_dispose(&a->staged);
		tui_status(a, "out of memory");
		return TUI_REDRAW;
	}
	a->staged_set = true;
	a->staged_hpos = hpos;
	snprintf(a->staged_what, sizeof(a->staged_what), "%s", what);
	return TUI_REDRAW | TUI_RECOMPUTE;
}

int tui_apply_box(tui_app *a, sv_box box, const char *text)
{
	tui_frame *f = tui_app_frame(a);
	sv_params p;
	if (sv_params_copy(&p, &f->params) || sv_params_set(&p, box, text)) {
		sv_params_dispose(&p);
		tui_status(a, "out of memory");
		return TUI_REDRAW;
	}
	char what[600];
	snprintf(what, sizeof(what), "%s: %.500s", sv_box_name(box), text[0] ? text : "(empty)");
	int flags = tui_stage(a, &p, SIZE_MAX, what);
	sv_params_dispose(&p);
	return flags;
}

int tui_apply_params(tui_app *a, const sv_params *p, const char *what)
{
	return tui_stage(a, p, SIZE_MAX, what);
}

void tui_frame_sleep(tui_app *a, tui_frame *f, bool keep_src)
{
	drop_derived(f);
	sv_rows_dispose(&f->rows);
	if (f->view) { /* (asleep already: its source may go now) */
		f->slept_nodes = sv_view_node_count(f->view);
		sv_view_free(f->view);
		f->view = NULL;
	}
	if (!keep_src && f->owns_src && f->priority && a->reload) { /* (a snapshot has one event: its
							 * priorities are all a read needs) */
		sv_source_free(f->src);
		f->src = NULL;
	}
	f->asleep = true;
}

int tui_frame_wake(tui_app *a, tui_frame *f, sv_error *err)
{
	if (!f->asleep)
		return 0;
	bool reread = !f->src;
	int rc = 0;
	if (reread) {
		tui_reload rl = { .priority = f->priority };
		sv_source *s = NULL;
		if (!a->reload)
			return sv_error_set(err, SV_EINVAL, "the file cannot be opened again here");
		tui_busy(a, "reading the snapshot again with its priorities...");
		tui_busy_watch(a, &rl, false); /* (the frame above is gone: nothing to go back to) */
		if ((rc = a->reload(a->reload_payload, &rl, &s, err)))
			return err && !err->msg[0] ? sv_error_set(err, rc, NULL) : rc;
		if (sv_source_sum_stacks(s)) {
			sv_source_free(s);
			return sv_error_set(err, SV_ENOMEM, NULL);
		}
		f->src = s;
	}
	tui_busy(a, reread ? "the snapshot is read; making its view..." : "making the view again...");
	if ((rc = sv_view_new(&f->view, f->src, &f->params, err)))
		return err && !err->msg[0] ? sv_error_set(err, rc, NULL) : rc;
	f->asleep = false;
	/* the same file and boxes make the same tree: the panes fit it, unless the file changed */
	if (reread && sv_view_node_count(f->view) != f->slept_nodes)
		(void)frame_reset(f); /* (a view without its root open is still a view) */
	return 0;
}

int tui_pop_frames(tui_app *a, size_t n, bool *reread)
{
	if (reread)
		*reread = false;
	if (n < 1 || n >= a->nframes)
		return 0;
	while (a->nframes > n)
		tui_frame_dispose(&a->frames[--a->nframes]);
	tui_frame *f = tui_app_frame(a);
	sv_error err;
	sv_error_clear(&err);
	bool again = f->asleep && !f->src;
	if (tui_frame_wake(a, f, &err)) {
		a->fatal = err;
		a->quit = true;
		return 0;
	}
	if (reread)
		*reread = again;
	tui_status(a, "back to %s%s", a->nframes > 1 ? f->title : "the first view",
		   again ? " (the snapshot read again with its priorities)" : "");
	return TUI_REDRAW | TUI_REFLATTEN;
}

int tui_push_frame(tui_app *a, sv_source *src, const sv_params *p, const char *title)
{
	/* `p` may be a frame's own (the array moves when it grows): copied first */
	sv_params pc;
	if (sv_params_copy(&pc, p)) {
		sv_source_free(src);
		tui_status(a, "out of memory");
		return TUI_REDRAW;
	}
	if (SV_ARRAY_RESERVE(a->frames, a->frame_cap, a->nframes + 1)) {
		sv_params_dispose(&pc);
		sv_source_free(src);
		tui_status(a, "out of memory");
		return TUI_REDRAW;
	}
	sv_error err;
	sv_error_clear(&err);
	int fr = frame_init(&a->frames[a->nframes], src, true, &pc, title, &err);
	sv_params_dispose(&pc);
	if (fr) {
		tui_frame_dispose(&a->frames[a->nframes]);
		tui_status(a, "%s", err.msg);
		return TUI_REDRAW;
	}
	a->nframes++;
	tui_status(a, "%s (Esc goes back)", title);
	return TUI_REDRAW | TUI_REFLATTEN;
}
