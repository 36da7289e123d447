/* SPDX-License-Identifier: MIT */
/* The terminal UI when memory runs out while a box change renews its view (tui/app.c): from
 * each allocation of the change on, one failing or every one failing, the window keeps a view
 * with the old boxes and says why, or — when not even that view can be made again — quits
 * with the error; it never draws without a view, and leaves no block behind. */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "app.h"
#include "stackview/formats.h"

#include "alloc_fail.h"

static void test_tui_renew_out_of_memory(void **state)
{
	(void)state;
	ALLOC_FAIL_SKIP();
	static const char *const group[] = { "{%}!=>module $1", "" };
	int kept = 0, quit = 0, applied = 0;
	for (int rest = 0; rest < 2; rest++) {
		for (long n = 1;; n++) {
			long live0 = live;
			sv_source *s;
			sv_error err;
			sv_params p;
			tui_app *a;
			assert_int_equal(sv_load(&s, "examples/tutorial.perfView.xml", NULL, &err), 0);
			assert_int_equal(sv_params_init(&p), 0);
			assert_int_equal(tui_app_new(&a, s, &p, "t", &err), 0);
			tui_screen *scr = tui_screen_new(120, 30);
			assert_non_null(scr);
			a->w = 120;
			a->h = 30;
			tui_app_draw(a, scr);
			int flags = tui_apply_box(a, SV_BOX_GROUP, group[0]);
			alloc_fail_arm(n, rest);
			tui_app_react(a, flags);
			bool done = alloc_fail_disarm(n); /* every allocation passed */
			tui_frame *f = tui_app_frame(a);
			if (!f->view) { /* not even the old boxes' view: the window quits and says why */
				assert_true(a->quit);
				assert_int_equal(a->fatal.code, SV_ENOMEM);
				quit++;
			} else if (strcmp(sv_params_get(&f->params, SV_BOX_GROUP), group[0]) == 0) {
				applied++;
			} else { /* the old boxes, the view they make */
				assert_string_equal(sv_params_get(sv_view_params(f->view), SV_BOX_GROUP), group[1]);
				assert_false(a->quit);
				kept++;
			}
			tui_app_draw(a, scr); /* (nothing drawn without a view) */
			tui_screen_free(scr);
			tui_app_free(a);
			sv_params_dispose(&p);
			sv_source_free(s);
			assert_int_equal(live, live0); /* nothing left behind */
			if (done)
				break;
		}
	}
	assert_true(kept > 0 && quit > 0 && applied > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_tui_renew_out_of_memory) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
