/* SPDX-License-Identifier: MIT */
/* Navigation history (Backspace, Alt-Left / Alt-Right, Esc, q): where the user was before
 * each jump — a focus change, a Goto, a drill-in — and each tab switch, so that Backspace
 * undoes them one at a time as a browser's Back does, while q and Esc leave the last jump
 * (as perf report's q leaves a sub-window) without walking back through tab switches.
 * Filter changes have their own history ([ and ]). */
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "sv/array.h"

#define NAV_MAX 200 /* older places are forgotten */

static void nav_free(tui_nav *n)
{
	free(n->focus);
	n->focus = NULL;
}

static bool here(tui_app *a, tui_nav *out)
{
	tui_frame *f = tui_app_frame(a);
	*out = (tui_nav){ .nframes = a->nframes, .tab = a->tab, .cursor = f->pane[a->tab].cursor };
	return !f->focus || (out->focus = strdup(f->focus));
}

static bool push(tui_nav **v, size_t *n, size_t *cap, tui_nav e)
{
	if (*n == NAV_MAX) {
		nav_free(&(*v)[0]);
		memmove(*v, *v + 1, (NAV_MAX - 1) * sizeof(**v));
		(*n)--;
	}
	if (SV_ARRAY_PUSH(*v, *n, *cap, e)) {
		nav_free(&e);
		return false;
	}
	return true;
}

static void nav_clear(tui_nav *v, size_t *n)
{
	while (*n)
		nav_free(&v[--*n]);
}

static void nav_push(tui_app *a, bool tab_only)
{
	tui_nav e;
	if (!here(a, &e))
		return; /* out of memory: this jump cannot be undone, nothing else is lost */
	e.tab_only = tab_only;
	if (!push(&a->nav_back, &a->nnav_back, &a->nav_back_cap, e))
		return;
	nav_clear(a->nav_fwd, &a->nnav_fwd);
}

void tui_nav_push(tui_app *a)
{
	nav_push(a, false);
}

void tui_nav_push_tab(tui_app *a)
{
	nav_push(a, true);
}

bool tui_nav_can_leave(const tui_app *a)
{
	for (size_t i = a->nnav_back; i-- > 0;)
		if (!a->nav_back[i].tab_only && a->nav_back[i].nframes <= a->nframes)
			return true;
	return false;
}

int tui_nav_leave(tui_app *a)
{
	if (!tui_nav_can_leave(a))
		return 0;
	/* the tab switches since the jump are dropped, then the jump is undone */
	while (a->nnav_back && a->nav_back[a->nnav_back - 1].tab_only)
		nav_free(&a->nav_back[--a->nnav_back]);
	return tui_nav_back(a);
}

/* Go to a remembered place (it is consumed): drilled frames above it are left, the focus,
 * tab and cursor restored. */
static int go(tui_app *a, tui_nav *to, bool *reread)
{
	*reread = false;
	if (a->nframes > to->nframes) {
		(void)tui_pop_frames(a, to->nframes, reread);
		if (a->quit) { /* the frame it was on could not be made again */
			nav_free(to);
			return TUI_REDRAW;
		}
	}
	tui_frame *f = tui_app_frame(a);
	bool same = (!f->focus && !to->focus) || (f->focus && to->focus && !strcmp(f->focus, to->focus));
	if (!same) {
		tui_frame_set_focus(f, to->focus);
		to->focus = NULL;
	}
	nav_free(to);
	a->tab = to->tab;
	f->pane[a->tab].cursor = to->cursor;
	return TUI_REDRAW | TUI_REFLATTEN;
}

/* One step in a direction: from `from` to `to` (the back or forward stack). */
static int step(tui_app *a, tui_nav *from, size_t *nfrom, tui_nav **to, size_t *nto, size_t *capto, bool *reread)
{
	while (*nfrom) {
		tui_nav e = from[--*nfrom];
		if (e.nframes > a->nframes) { /* a drilled view since left: gone */
			nav_free(&e);
			continue;
		}
		tui_nav cur;
		if (e.nframes == a->nframes && here(a, &cur))
			(void)push(to, nto, capto, cur);
		else if (e.nframes < a->nframes) /* leaving a drill-in: nothing to come back to */
			nav_clear(*to, nto);
		return go(a, &e, reread);
	}
	return -1;
}

int tui_nav_back(tui_app *a)
{
	bool reread;
	int flags = step(a, a->nav_back, &a->nnav_back, &a->nav_fwd, &a->nnav_fwd, &a->nav_fwd_cap, &reread);
	if (flags < 0) {
		tui_status(a, "nothing to go back to");
		return TUI_REDRAW;
	}
	if (!a->quit)
		tui_status(a, "back (Alt-Right: forward)%s", reread ? "; the snapshot read again with its priorities" : "");
	return flags;
}

int tui_nav_forward(tui_app *a)
{
	bool reread;
	int flags = step(a, a->nav_fwd, &a->nnav_fwd, &a->nav_back, &a->nnav_back, &a->nav_back_cap, &reread);
	if (flags < 0) {
		tui_status(a, "nothing to go forward to");
		return TUI_REDRAW;
	}
	tui_status(a, "forward (Backspace: back)");
	return flags;
}

bool tui_nav_can_back(const tui_app *a)
{
	for (size_t i = 0; i < a->nnav_back; i++)
		if (a->nav_back[i].nframes <= a->nframes)
			return true;
	return false;
}

