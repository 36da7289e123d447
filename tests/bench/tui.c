/* SPDX-License-Identifier: MIT */
/* TUI speed (issue 5): with the real app and painter, headless at 160x50. Times the first
 * window on the tutorial, and on a big profile: cursor moves and expansions (handle + draw),
 * and applying a changed GroupPats box (handle + recompute + draw).
 * usage: tui-bench TUTORIAL BIG [SAMPLES] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../tui/app.h"
#include "bench_util.h"
#include "stackview/formats.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static sv_source *load(const char *path)
{
	sv_source *s;
	sv_error err;
	if (sv_load(&s, path, NULL, &err)) {
		fprintf(stderr, "tui-bench: %s: %s\n", path, err.msg);
		exit(1);
	}
	return s;
}

static double key(tui_app *a, tui_screen *s, int k)
{
	double t0 = now_ms();
	tui_app_react(a, tui_app_handle(a, k));
	tui_app_draw(a, s);
	return now_ms() - t0;
}

/* A box edited as a person does: its key, Ctrl-U, the text, then Enter (the time of Enter:
 * the view made again and drawn). */
static double apply_box(tui_app *a, tui_screen *s, int box_key, const char *text)
{
	key(a, s, box_key);
	key(a, s, TUI_CTRL('u'));
	for (const char *c = text; *c; c++)
		key(a, s, (unsigned char)*c);
	return key(a, s, '\n');
}

/* Each text applied to a box in turn (apply_box), the worst and each time printed after
 * `what`. */
static void apply_each(tui_app *a, tui_screen *s, int box_key, const char *what, const char *const text[3])
{
	double worst = 0, each[3];
	for (int r = 0; r < 3; r++) {
		each[r] = apply_box(a, s, box_key, text[r]);
		if (each[r] > worst)
			worst = each[r];
	}
	printf("apply a changed %s + redraw: worst %.1f ms (target <= 150; each %.1f, %.1f, %.1f)\n", what, worst,
	       each[0], each[1], each[2]);
}

int main(int argc, char **argv)
{
	bench_heap_like_cli();
	if (argc < 3) {
		fprintf(stderr, "usage: tui-bench TUTORIAL BIG [SAMPLES]\n");
		return 2;
	}
	size_t want = argc > 3 ? (size_t)atol(argv[3]) : 1000000;
	tui_screen *scr = tui_screen_new(160, 50);
	sv_params p;
	sv_error err;
	tui_app *a;
	if (!scr || sv_params_init(&p))
		return 1;

	double t0 = now_ms();
	sv_source *tut = load(argv[1]);
	if (tui_app_new(&a, tut, &p, "tutorial", &err))
		return 1;
	a->w = 160;
	a->h = 50;
	tui_app_draw(a, scr);
	double open_ms = now_ms() - t0;
	tui_app_free(a);
	sv_source_free(tut);
	printf("open the tutorial (load, view, first screen): %.1f ms (target <= 50)\n", open_ms);

	sv_source *big0 = load(argv[2]);
	sv_source *big = bench_prefix(big0, want);
	sv_source_free(big0);
	t0 = now_ms();
	if (tui_app_new(&a, big, &p, "big", &err))
		return 1;
	a->w = 160;
	a->h = 50;
	tui_app_draw(a, scr);
	printf("big profile: %zu samples, %u stacks; first screen %.1f ms\n", sv_source_sample_count(big),
	       sv_source_stack_count(big), now_ms() - t0);
	double worst_move = 0, worst_expand = 0, sum_move = 0;
	int moves = 0;
	for (int i = 0; i < 40; i++) {
		double m = key(a, scr, KEY_DOWN);
		sum_move += m;
		moves++;
		if (m > worst_move)
			worst_move = m;
		double e = key(a, scr, KEY_RIGHT); /* expand (or step into) the row */
		if (e > worst_expand)
			worst_expand = e;
	}
	printf("cursor move + redraw: mean %.2f ms, worst %.2f ms (target <= 20)\n", sum_move / moves, worst_move);
	printf("expand + redraw: worst %.2f ms (target <= 20)\n", worst_expand);
	/* Apply a changed GroupPats: p, the text, Enter. */
	static const char *const pats[] = { "{%}!=>module $1", "{%}!->module $1", "" };
	apply_each(a, scr, 'p', "GroupPats", pats);
	/* Apply a changed IncPats (i, the text, Enter) under module entries grouped: the view's
	 * tree is kept (sv_view_new_like); "Thread" keeps every sample, the worst case */
	apply_box(a, scr, 'p', pats[0]);
	static const char *const incs[] = { "Thread", "module libc", "" };
	apply_each(a, scr, 'i', "IncPats", incs);
	/* ExcPats edited as a list grows and shrinks (x, the text, Enter): a module out, a second
	 * one, then the first back in. The tree, made before any ExcPats, holds every stack: each
	 * is a refilter of it (before tree_holds, the second and third made the tree again). */
	static const char *const excs[] = { "module libm", "module libm;module ld-linux", "module ld-linux" };
	apply_each(a, scr, 'x', "ExcPats", excs);
	apply_box(a, scr, 'x', "");
	double tab = key(a, scr, '1');
	printf("switch to ByName + redraw: %.1f ms\n", tab);
	/* sort ByName by name through the Columns dialog (o, Enter on Name, Esc) */
	key(a, scr, 'o');
	double sort = key(a, scr, '\n');
	key(a, scr, TUI_KEY_ESC);
	printf("sort ByName by Name + redraw: %.1f ms\n", sort);
	sort = key(a, scr, '2');
	printf("switch to the CallTree, sorted by Name + redraw: %.1f ms\n", sort);
	tab = key(a, scr, '6');
	printf("switch to Flame + redraw: %.1f ms\n", tab);
	/* GroupPats edits seen on the ByName tab (in the view's order: o, o, Esc), which makes
	 * the ByName rows the call tree's tabs go without */
	key(a, scr, '1');
	key(a, scr, 'o');
	key(a, scr, 'o');
	key(a, scr, TUI_KEY_ESC);
	apply_each(a, scr, 'p', "GroupPats on the ByName tab", pats);
	tui_app_free(a);
	sv_source_free(big);
	sv_params_dispose(&p);
	tui_screen_free(scr);
	return 0;
}
