/* SPDX-License-Identifier: MIT */
/* stackview diff and overweight: two files, one view each, compared (spec §9, §10). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "stackview/derive.h"

/* Load both inputs, filter each with the --select-* boxes (Fold% cleared). */
static int two_views(sv_source *src[2], sv_view *v[2], sv_params p[2], const cli_opts *o,
		     const char *const box[SV_BOX_COUNT])
{
	double t0 = cli_now_ms();
	for (int i = 0; i < 2; i++) {
		int rc = cli_load(&src[i], o->files[i], o);
		if (rc)
			return rc;
	}
	cli_timing(o, "load", cli_now_ms() - t0);
	for (int i = 0; i < 2; i++) {
		if (cli_make_params(&p[i], src[i], box) || sv_params_set(&p[i], SV_BOX_FOLD_PCT, ""))
			return EXIT_INPUT;
		int rc = cli_build_view(&v[i], src[i], &p[i]);
		if (rc)
			return rc;
	}
	return 0;
}

int cmd_diff(const cli_opts *o)
{
	sv_source *src[2] = { 0 }, *d = NULL;
	sv_view *v[2] = { 0 }, *dv = NULL;
	sv_params p[2] = { 0 }, dp = { 0 };
	int rc = two_views(src, v, p, o, o->select_box);
	if (rc)
		goto out;
	/* files[0] is BASE, files[1] is TEST. */
	if (sv_diff(&d, v[1], v[0]) || sv_params_init(&dp)) {
		rc = EXIT_INPUT;
		goto out;
	}
	sv_process *procs = NULL;
	size_t np = 0;
	if (sv_source_processes(&procs, &np, d) == 0 && np > 0 && sv_params_set(&dp, SV_BOX_GROUP, SV_DIFF_GROUPPATS)) {
		free(procs);
		rc = EXIT_INPUT;
		goto out;
	}
	free(procs);
	for (int i = 0; i < SV_BOX_COUNT; i++)
		if (o->box[i] && sv_params_set(&dp, (sv_box)i, o->box[i])) {
			rc = EXIT_INPUT;
			goto out;
		}
	if (o->output) {
		if ((rc = cli_build_view(&dv, d, &dp)))
			goto out;
		rc = cli_flame_to(dv, o->output, "Differential Flame Graph (red grew, blue shrank)");
		goto out;
	}
	if ((o->script || (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))) && o->out == OUT_TEXT && !o->view) {
		/* On a terminal, diff opens the diff view (negative values shown in red). */
		char title[600];
		const char *b = strrchr(o->files[0], '/'), *t = strrchr(o->files[1], '/');
		snprintf(title, sizeof(title), "diff %s - %s", t ? t + 1 : o->files[1], b ? b + 1 : o->files[0]);
		rc = cli_run_tui(o, d, title, &dp, false, NULL);
		goto out;
	}
	if ((rc = cli_build_view(&dv, d, &dp)))
		goto out;
	rc = cli_print_view(dv, o->view ? o->view : "calltree", o);
out:
	sv_view_free(dv);
	sv_source_free(d);
	sv_params_dispose(&dp);
	for (int i = 0; i < 2; i++) {
		sv_view_free(v[i]);
		sv_source_free(src[i]);
		sv_params_dispose(&p[i]);
	}
	return rc;
}

int cmd_overweight(const cli_opts *o)
{
	sv_source *src[2] = { 0 };
	sv_view *v[2] = { 0 };
	sv_params p[2] = { 0 };
	sv_overweight ow = { 0 };
	int rc = two_views(src, v, p, o, o->box);
	if (rc)
		goto out;
	if (sv_overweight_compute(&ow, v[1], v[0])) {
		rc = EXIT_INPUT;
		goto out;
	}
	if (o->out == OUT_JSON) {
		jw w = { .f = stdout };
		jw_begin_obj(&w);
		jw_key(&w, "base"); jw_num(&w, ow.base);
		jw_key(&w, "test"); jw_num(&w, ow.test);
		jw_key(&w, "delta"); jw_num(&w, ow.delta);
		jw_key(&w, "delta_pct"); jw_num(&w, ow.delta_pct);
		jw_key(&w, "rows");
		jw_begin_arr(&w);
		for (size_t i = 0; i < ow.nrows; i++) {
			const sv_overweight_row *r = &ow.rows[i];
			jw_begin_obj(&w);
			jw_key(&w, "name"); jw_str(&w, r->name);
			jw_key(&w, "base"); jw_num(&w, r->base);
			jw_key(&w, "test"); jw_num(&w, r->test);
			jw_key(&w, "delta"); jw_num(&w, r->delta);
			jw_key(&w, "responsibility_pct"); jw_num(&w, r->responsibility_pct);
			jw_key(&w, "overweight_pct"); jw_num(&w, r->overweight_pct);
			jw_key(&w, "interest"); jw_int(&w, r->interest);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_end_obj(&w);
		putchar('\n');
	} else if (o->out == OUT_TSV) {
		printf("Name\tBase\tTest\tDelta\tResponsibility %%\tOverweight %%\tInterest Level\n");
		for (size_t i = 0; i < ow.nrows; i++) {
			const sv_overweight_row *r = &ow.rows[i];
			printf("%s\t%.1f\t%.1f\t%.1f\t%.2f\t%.2f\t%d\n", r->name, r->base, r->test, r->delta,
			       r->responsibility_pct, r->overweight_pct, r->interest);
		}
	} else {
		printf("Base (old) Time  %.1f\nTest (new) Time  %.1f\nDelta            %.1f\nDelta %%          %.1f\n\n",
		       ow.base, ow.test, ow.delta, ow.delta_pct);
		int nw = 4;
		for (size_t i = 0; i < ow.nrows; i++)
			if ((int)strlen(ow.rows[i].name) > nw)
				nw = (int)strlen(ow.rows[i].name);
		printf("%-*s  %12s  %12s  %12s  %16s  %12s  %8s\n", nw, "Name", "Base", "Test", "Delta",
		       "Responsibility %", "Overweight %", "Interest");
		for (size_t i = 0; i < ow.nrows; i++) {
			const sv_overweight_row *r = &ow.rows[i];
			printf("%-*s  %12.1f  %12.1f  %12.1f  %16.2f  %12.2f  %8d\n", nw, r->name, r->base, r->test, r->delta,
			       r->responsibility_pct, r->overweight_pct, r->interest);
		}
	}
	rc = cli_finish_output(stdout);
out:
	sv_overweight_dispose(&ow);
	for (int i = 0; i < 2; i++) {
		sv_view_free(v[i]);
		sv_source_free(src[i]);
		sv_params_dispose(&p[i]);
	}
	return rc;
}
