/* SPDX-License-Identifier: MIT */
/* A heap snapshot's Priority changes in the terminal UI (tui/dlg_priority.c, tui/app.c): the
 * earlier tree sleeps under the new one (its view and, when the file can be read again, its
 * source given up before the new tree is read), Esc wakes it as it was left; a Priority box
 * that does not read gives nothing up; a new tree that cannot be made wakes the earlier one at
 * once; and when memory runs out while waking, the window is left with a view or quits with
 * the error, leaving no block behind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "app.h"
#include "stackview/formats.h"
#include "sv/heap_graph.h"

#define DUMP "tests/data/gcdump/ref.gcdump"

typedef struct reloads {
	int calls;
	int paints;     /* the window painted before a read (tui_busy) */
	char seen[512]; /* the status line when the last read began */
	char *painted;  /* the screen last painted by tui_busy */
	char half[512]; /* the status line once the read said it was half done */
	int fail_call; /* this call fails (0: none does) */
	bool fail_after; /* and every one after it */
	bool esc;        /* Esc is typed while it reads */
} reloads;
static reloads rl; /* this test's reloads (the callback's payload is const) */

static int reload(const void *payload, const tui_reload *r, sv_source **out, sv_error *err)
{
	const tui_app *a = payload;
	rl.calls++;
	snprintf(rl.seen, sizeof(rl.seen), "%s", a->status);
	if (r->progress) { /* halfway, as a reader reports it (non-zero: stop, as sv_input's) */
		if (r->progress(r->progress_payload, 50, 100))
			return sv_error_set(err, SV_ECANCELED, "loading canceled");
		snprintf(rl.half, sizeof(rl.half), "%s", a->status);
	}
	if (rl.fail_call && (rl.calls == rl.fail_call || (rl.fail_after && rl.calls > rl.fail_call)))
		return sv_error_set(err, SV_EIO, "cannot read " DUMP " again");
	sv_import_opts io = { 0 };
	io.priority = r->priority;
	return sv_load(out, DUMP, &io, err);
}

/* Esc typed while a file is read, as a terminal's run reads it. */
static bool esc_typed(tui_app *a)
{
	(void)a;
	return rl.esc;
}

/* tui_busy's painting, as a terminal's run does it: the status says what is under way. */
static void paint_now(tui_app *a)
{
	rl.paints++;
	tui_screen *scr = tui_screen_new(a->w, a->h);
	assert_non_null(scr);
	tui_app_draw(a, scr);
	size_t len;
	free(rl.painted);
	FILE *f = open_memstream(&rl.painted, &len);
	assert_non_null(f);
	tui_screen_dump(scr, f, false);
	fclose(f);
	tui_screen_free(scr);
}

/* A window on the snapshot as `stackview view` opens it: the source given over, its Priority
 * box PerfView's defaults. */
static tui_app *open_dump(reloads set)
{
	sv_source *s;
	sv_error err;
	sv_params p;
	tui_app *a;
	assert_int_equal(sv_load(&s, DUMP, NULL, &err), 0);
	assert_int_equal(sv_params_init(&p), 0);
	assert_int_equal(tui_app_new(&a, s, &p, "ref.gcdump", &err), 0);
	sv_params_dispose(&p);
	a->frames[0].owns_src = true;
	a->frames[0].priority = strdup(sv_heap_default_priorities());
	assert_non_null(a->frames[0].priority);
	a->reload = reload;
	a->reload_payload = a;
	a->paint_now = paint_now;
	a->esc_typed = esc_typed;
	free(rl.painted);
	rl = set;
	a->w = 100;
	a->h = 20;
	tui_app_react(a, TUI_REFLATTEN);
	return a;
}

static char *raised(void)
{
	static char buf[512];
	snprintf(buf, sizeof(buf), "[local vars]->1;%s", sv_heap_default_priorities());
	return buf;
}

static void test_tui_priority_sleeps_and_wakes(void **state)
{
	(void)state;
	tui_app *a = open_dump((reloads){ 0 });
	tui_frame *f0 = &a->frames[0];
	uint32_t nodes = sv_view_node_count(f0->view);
	f0->pane[TAB_CALLTREE].cursor = 2;
	/* the whole tree opened (the window opened ROOT only) */
	assert_int_equal(sv_expansion_expand_subtree(f0->pane[TAB_CALLTREE].exp, f0->view, SV_NODE_ROOT), 0);
	sv_node_id deep = 1;
	while (deep < nodes && !sv_expansion_has(f0->pane[TAB_CALLTREE].exp, deep))
		deep++;
	assert_true(deep < nodes);

	/* a box that does not read: nothing given up, nothing read */
	tui_app_react(a, tui_priority_apply(a, "[local vars]->one"));
	assert_int_equal(a->nframes, 1);
	assert_false(a->frames[0].asleep);
	assert_non_null(a->frames[0].view);
	assert_int_equal(rl.calls, 0);
	assert_non_null(strstr(a->status, "not a number"));

	/* a change: the earlier tree sleeps, its source gone with its view */
	tui_app_react(a, tui_priority_apply(a, raised()));
	assert_int_equal(a->nframes, 2);
	assert_int_equal(rl.calls, 1);
	f0 = &a->frames[0];
	assert_true(f0->asleep);
	assert_null(f0->view);
	assert_null(f0->src);
	assert_non_null(a->frames[1].view);
	assert_string_equal(a->frames[1].priority, raised());
	assert_non_null(strstr(rl.seen, "reading the snapshot with the new priorities"));
	assert_string_equal(rl.half, "reading the snapshot with the new priorities... 50%  (Esc cancels)");
	assert_int_equal(rl.paints, 3); /* the read, halfway, then the view */

	/* Esc: read again with its own priorities, as it was left */
	tui_app_react(a, tui_app_handle(a, 27));
	assert_int_equal(a->nframes, 1);
	assert_int_equal(rl.calls, 2);
	f0 = &a->frames[0];
	assert_false(f0->asleep);
	assert_non_null(f0->view);
	assert_non_null(f0->src);
	assert_int_equal(sv_view_node_count(f0->view), nodes);
	assert_int_equal(f0->pane[TAB_CALLTREE].cursor, 2);
	assert_true(sv_expansion_has(f0->pane[TAB_CALLTREE].exp, deep));
	assert_non_null(strstr(a->status, "read again"));
	assert_non_null(strstr(rl.seen, "reading the snapshot again with its priorities"));
	assert_int_equal(rl.paints, 6);
	/* what the terminal shows meanwhile: the frame's title and what is under way */
	assert_non_null(strstr(rl.painted, "ref.gcdump"));
	assert_non_null(strstr(rl.painted, "making its view"));
	assert_false(a->quit);
	tui_app_free(a);
	free(rl.painted);
	rl.painted = NULL;
}

static void test_tui_priority_failed_change_wakes(void **state)
{
	(void)state;
	/* the new priorities' tree cannot be read, or Esc stops the read: the earlier tree's
	 * view is made again from its source, kept until the new one was read (no read again,
	 * even when the file could not be) */
	for (int esc = 0; esc < 2; esc++) {
		tui_app *a = open_dump((reloads){ .fail_call = esc ? 0 : 1, .fail_after = true, .esc = esc });
		uint32_t nodes = sv_view_node_count(a->frames[0].view);
		tui_app_react(a, tui_priority_apply(a, raised()));
		assert_int_equal(a->nframes, 1);
		assert_int_equal(rl.calls, 1);
		assert_false(a->frames[0].asleep);
		assert_non_null(a->frames[0].view);
		assert_non_null(a->frames[0].src);
		assert_int_equal(sv_view_node_count(a->frames[0].view), nodes);
		assert_string_equal(a->frames[0].priority, sv_heap_default_priorities());
		assert_non_null(strstr(a->status, esc ? "canceled: the priorities are as they were" : "cannot read"));
		assert_non_null(strstr(rl.painted, "making the view again"));
		assert_false(a->quit);
		tui_app_free(a);
	}

	/* Esc to a tree whose file cannot be read any more: the window quits and says why */
	tui_app *a = open_dump((reloads){ .fail_call = 2 });
	tui_app_react(a, tui_priority_apply(a, raised()));
	assert_int_equal(a->nframes, 2);
	tui_app_react(a, tui_app_handle(a, 27));
	assert_true(a->quit);
	assert_int_equal(a->fatal.code, SV_EIO);
	tui_app_free(a);
}

#include "alloc_fail.h"

/* Memory running out at each allocation of Esc's wake in turn (one failing, or every one from
 * there on): a view, or the window quits with SV_ENOMEM; never a block left behind. */
static void test_tui_priority_wake_out_of_memory(void **state)
{
	(void)state;
	ALLOC_FAIL_SKIP();
	int woke = 0, quit = 0;
	free(rl.painted); /* (the other tests' painting) */
	rl.painted = NULL;
	for (int rest = 0; rest < 2; rest++) {
		for (long n = 1;; n++) {
			long live0 = live;
			tui_app *a = open_dump((reloads){ 0 });
			a->paint_now = NULL; /* (what it paints would count among the blocks) */
			tui_app_react(a, tui_priority_apply(a, raised()));
			assert_int_equal(a->nframes, 2);
			alloc_fail_arm(n, rest);
			tui_app_react(a, tui_app_handle(a, 27));
			bool done = alloc_fail_disarm(n);
			assert_int_equal(a->nframes, 1);
			if (a->quit) {
				assert_int_equal(a->fatal.code, SV_ENOMEM);
				assert_null(a->frames[0].view);
				quit++;
			} else {
				assert_non_null(a->frames[0].view);
				woke++;
			}
			tui_app_free(a);
			assert_int_equal(live, live0);
			if (done)
				break;
		}
	}
	assert_true(woke > 0 && quit > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tui_priority_sleeps_and_wakes),
		cmocka_unit_test(test_tui_priority_failed_change_wakes),
		cmocka_unit_test(test_tui_priority_wake_out_of_memory),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	free(rl.painted);
	return rc;
}
