/* SPDX-License-Identifier: MIT */
/* stackview diff and overweight: base runs against test runs, one or several a side (spec §9,
 * §10; docs/diff.md). The runs live in a comparison (lib/compare.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "sv/array.h"
#include "stackview/compare.h"
#include "stackview/derive.h"

void cli_runs_dispose(cli_runs *r)
{
	sv_compare_free(r->cmp);
	for (size_t i = 0; i < r->n; i++) {
		if (r->v)
			sv_view_free(r->v[i]);
		if (r->src)
			sv_source_free(r->src[i]);
		if (r->p)
			sv_params_dispose(&r->p[i]);
	}
	free(r->src);
	free(r->v);
	free(r->p);
	memset(r, 0, sizeof(*r));
}

int cli_runs_load(cli_runs *r, const cli_opts *o, int first, const char *const box[SV_BOX_COUNT], bool saved)
{
	memset(r, 0, sizeof(*r));
	r->n = (size_t)(o->nfiles - first);
	r->nbase = o->split < 0 ? (first ? 0 : 1) : (size_t)(o->split - first);
	r->src = calloc(r->n, sizeof(*r->src));
	r->v = calloc(r->n, sizeof(*r->v));
	r->p = calloc(r->n, sizeof(*r->p));
	if (!r->src || !r->v || !r->p) {
		fprintf(stderr, "stackview: out of memory\n");
		return EXIT_INPUT;
	}
	double t0 = cli_now_ms();
	for (size_t i = 0; i < r->n; i++) {
		int rc = cli_load(&r->src[i], o->files[first + (int)i], o);
		if (rc)
			return rc;
	}
	cli_timing(o, "load", cli_now_ms() - t0);
	for (size_t i = 0; i < r->n; i++) {
		if (cli_make_params(&r->p[i], saved ? r->src[i] : NULL, box) || sv_params_set(&r->p[i], SV_BOX_FOLD_PCT, "")) {
			fprintf(stderr, "stackview: out of memory\n");
			return EXIT_INPUT;
		}
		int rc = cli_build_view(&r->v[i], r->src[i], &r->p[i]);
		if (rc)
			return rc;
	}
	if (!r->nbase) /* check without base runs: nothing to compare */
		return 0;
	sv_compare_opts co = { .match = o->match, .auto_match = !o->no_auto_match, .welch = o->welch };
	sv_error err;
	sv_error_clear(&err);
	int rc = sv_compare_new(&r->cmp, r->v, r->nbase, r->n - r->nbase, &co, &err);
	if (rc) {
		cli_report(&err);
		return rc == SV_EINVAL ? EXIT_USAGE : EXIT_INPUT;
	}
	/* say what automatic matching did, and how to turn it off */
	for (size_t i = 0; i < sv_compare_alias_count(r->cmp); i++) {
		const char *t, *b;
		sv_compare_alias(r->cmp, i, &t, &b);
		fprintf(stderr, "stackview: note: test's %s is taken as base's %s (names that differ by a version or hash; --no-auto-match keeps them apart)\n",
			t, b);
	}
	return 0;
}

/* Attach the runs to a view's parameters; a bad box was reported when the view was built. */
static int runs_follow(cli_runs *r, const sv_params *p)
{
	sv_error err;
	sv_error_clear(&err);
	if (sv_compare_set_params(r->cmp, p, &err)) {
		cli_report(&err);
		return EXIT_INPUT;
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* ---- --layout perf: perf diff's columns ---- */

typedef struct pd_row {
	const char *name; /* borrowed from a view, or aliased (then owned) */
	char *own;
	double base, test; /* exclusive metric in each run */
	bool in_base, in_test;
} pd_row;

static int pd_name_cmp(const void *a, const void *b)
{
	return strcmp(((const pd_row *)a)->name, ((const pd_row *)b)->name);
}

/* perf diff's order: the largest delta (in points) first; a name only the baseline has (no
 * delta) after those; ties by name (perf: by shared object, then symbol). */
static double pd_delta(const pd_row *r, double bt, double tt)
{
	return r->in_test ? 100.0 * r->test / tt - (r->in_base ? 100.0 * r->base / bt : 0) : 0;
}

typedef struct pd_sort {
	double bt, tt;
} pd_sort;

static int pd_order(const void *x, const void *y, void *payload)
{
	const pd_row *a = x, *b = y;
	const pd_sort *s = payload;
	if (a->in_test != b->in_test)
		return a->in_test ? -1 : 1;
	double da = fabs(pd_delta(a, s->bt, s->tt)), db = fabs(pd_delta(b, s->bt, s->tt));
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int pd_collect(pd_row **rows, size_t *n, size_t *cap, sv_view *v, bool test, const sv_compare *c)
{
	if (sv_view_byname_prepare(v))
		return SV_ENOMEM;
	for (uint32_t r = 0; r < sv_view_byname_count(v); r++) {
		sv_name_id id = sv_view_byname_name(v, r);
		const sv_stats *st = sv_view_byname_stats(v, r);
		if (id == SV_NAME_ROOT || st->exc == 0)
			continue;
		pd_row row = { .name = sv_view_name(v, id) };
		if (test && c && (row.own = sv_compare_alias_name(c, row.name)))
			row.name = row.own;
		*(test ? &row.test : &row.base) = st->exc;
		*(test ? &row.in_test : &row.in_base) = true;
		if (SV_ARRAY_PUSH(*rows, *n, *cap, row))
			return EXIT_INPUT;
	}
	return 0;
}

/* One base run and one test run as perf diff shows them: each name's share of its run
 * (exclusive metric over the run's total) in the baseline, and the test's share less it in
 * percentage points; a name only the test has shows its share as the delta, one only the
 * baseline has no delta. */
static int diff_perf_layout(const cli_runs *r, const cli_opts *o)
{
	if (r->nbase != 1 || r->n != 2) {
		fprintf(stderr, "stackview: --layout perf compares one BASE with one TEST, as perf diff does\n");
		return EXIT_USAGE;
	}
	sv_view *v[2] = { NULL, NULL };
	sv_params p[2] = { { { 0 } }, { { 0 } } };
	pd_row *rows = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (int i = 0; i < 2 && !rc; i++)
		if (cli_make_params(&p[i], r->src[i], o->box))
			rc = EXIT_INPUT;
		else
			rc = cli_build_view(&v[i], r->src[i], &p[i]);
	if (!rc && ((rc = pd_collect(&rows, &n, &cap, v[0], false, r->cmp)) || (rc = pd_collect(&rows, &n, &cap, v[1], true, r->cmp))))
		fprintf(stderr, "stackview: out of memory\n");
	if (rc)
		goto out;
	/* one row a name: a base row and a test row of the same name meet */
	if (n)
		qsort(rows, n, sizeof(*rows), pd_name_cmp);
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (kept && !strcmp(rows[kept - 1].name, rows[i].name)) {
			pd_row *d = &rows[kept - 1];
			d->base += rows[i].base;
			d->test += rows[i].test;
			d->in_base |= rows[i].in_base;
			d->in_test |= rows[i].in_test;
			free(rows[i].own); /* the row kept names the pair */
			continue;
		}
		rows[kept++] = rows[i];
	}
	n = kept;
	sv_summary sb, st;
	sv_view_summary(&sb, v[0]);
	sv_view_summary(&st, v[1]);
	pd_sort s = { fabs(sb.metric) > 0 ? fabs(sb.metric) : 1, fabs(st.metric) > 0 ? fabs(st.metric) : 1 };
	if (n)
		qsort_r(rows, n, sizeof(*rows), pd_order, &s);
	size_t top = o->top > 0 && (size_t)o->top < n ? (size_t)o->top : n;
	if (o->out == OUT_JSON) {
		jw w = { .o.f = stdout };
		jw_begin_obj(&w);
		jw_key(&w, "layout");
		jw_str(&w, "perf");
		jw_key(&w, "rows");
		jw_begin_arr(&w);
		for (size_t i = 0; i < top; i++) {
			jw_begin_obj(&w);
			jw_key(&w, "name");
			jw_str(&w, rows[i].name);
			if (rows[i].in_base) {
				jw_key(&w, "baseline");
				jw_num(&w, 100.0 * rows[i].base / s.bt);
			}
			if (rows[i].in_test) {
				jw_key(&w, "test");
				jw_num(&w, 100.0 * rows[i].test / s.tt);
				jw_key(&w, "delta");
				jw_num(&w, pd_delta(&rows[i], s.bt, s.tt));
			}
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_end_obj(&w);
		putchar('\n');
	} else {
		bool tsv = o->out == OUT_TSV;
		printf(tsv ? "baseline\tdelta\tname\n" : "# Baseline  Delta Abs  Name\n");
		for (size_t i = 0; i < top; i++) {
			char b[32] = "", d[32] = "";
			if (rows[i].in_base)
				snprintf(b, sizeof(b), "%.2f%%", 100.0 * rows[i].base / s.bt);
			if (rows[i].in_test)
				snprintf(d, sizeof(d), "%+.2f%%", pd_delta(&rows[i], s.bt, s.tt));
			if (tsv)
				printf("%s\t%s\t%s\n", b, d, rows[i].name);
			else
				printf("%10s %10s  %s\n", b, d, rows[i].name);
		}
	}
	rc = cli_finish_output(stdout);
out:
	for (size_t i = 0; i < n; i++)
		free(rows[i].own);
	free(rows);
	for (int i = 0; i < 2; i++) {
		sv_view_free(v[i]);
		sv_params_dispose(&p[i]);
	}
	return rc;
}

int cmd_diff(const cli_opts *o)
{
	cli_runs r;
	sv_source *d = NULL;
	sv_view *dv = NULL;
	sv_params dp = { 0 };
	if (o->perf_layout && o->nfiles != 2) {
		fprintf(stderr, "stackview: --layout perf compares one BASE with one TEST, as perf diff does\n");
		return EXIT_USAGE;
	}
	int rc = cli_runs_load(&r, o, 0, o->select_box, true);
	if (rc)
		goto out;
	if (o->perf_layout) {
		rc = diff_perf_layout(&r, o);
		goto out;
	}
	if (sv_compare_diff_source(&d, r.cmp) || sv_params_init(&dp)) {
		fprintf(stderr, "stackview: out of memory\n");
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
	size_t nb = r.nbase, nt = r.n - r.nbase;
	cli_opts oc = *o;
	oc.compare = r.cmp;
	oc.compare_cols = nb > 1 || nt > 1;
	if (o->output) {
		if ((rc = cli_build_view(&dv, d, &dp)))
			goto out;
		rc = cli_flame_to(dv, o->output, nb + nt > 2 ? "Differential Flame Graph of the means (red grew, blue shrank)"
							     : "Differential Flame Graph (red grew, blue shrank)");
		goto out;
	}
	if ((o->script || (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))) && o->out == OUT_TEXT && !o->view) {
		/* On a terminal, diff opens the diff view (negative values shown in red). */
		char title[600];
		if (nb == 1 && nt == 1)
			snprintf(title, sizeof(title), "diff %s - %s", base_name(o->files[1]), base_name(o->files[0]));
		else
			snprintf(title, sizeof(title), "diff %zu test run%s (%s...) - %zu base run%s (%s...)", nt, nt > 1 ? "s" : "",
				 base_name(o->files[nb]), nb, nb > 1 ? "s" : "", base_name(o->files[0]));
		rc = cli_run_tui(&oc, d, title, &dp, false, false, NULL, NULL);
		d = NULL; /* (taken over) */
		goto out;
	}
	if ((rc = cli_build_view(&dv, d, &dp)) || (rc = runs_follow(&r, &dp)))
		goto out;
	rc = cli_print_view(dv, o->view ? o->view : "calltree", &oc);
out:
	sv_view_free(dv);
	sv_source_free(d);
	sv_params_dispose(&dp);
	cli_runs_dispose(&r);
	return rc;
}

/* A row's significance as the text and TSV columns show it. */
static const char *sig_text(const sv_cmpstat *s)
{
	return !s ? "" : s->sig > 0 ? "grew" : s->sig < 0 ? "shrank" : "";
}

int cmd_overweight(const cli_opts *o)
{
	cli_runs r;
	sv_source *mean[2] = { 0 };
	sv_view *v[2] = { 0 };
	sv_params p = { 0 };
	sv_overweight ow = { 0 };
	sv_rows rows = { 0 };
	/* every sample enters; the boxes name and filter the means */
	const char *none[SV_BOX_COUNT] = { 0 };
	int rc = cli_runs_load(&r, o, 0, none, false);
	if (rc)
		goto out;
	if (cli_make_params(&p, r.src[r.nbase], o->box)) {
		rc = EXIT_INPUT;
		goto out;
	}
	for (int side = 0; side < 2; side++) {
		if (sv_compare_mean_source(&mean[side], r.cmp, side == 1)) {
			fprintf(stderr, "stackview: out of memory\n");
			rc = EXIT_INPUT;
			goto out;
		}
		if ((rc = cli_build_view(&v[side], mean[side], &p)))
			goto out;
	}
	if ((rc = runs_follow(&r, &p)))
		goto out;
	if (sv_overweight_compute(&ow, v[1], v[0]) || sv_rows_byname(&rows, v[1], 0) ||
	    sv_compare_rows(r.cmp, v[1], &rows)) {
		fprintf(stderr, "stackview: out of memory\n");
		rc = EXIT_INPUT;
		goto out;
	}
	bool several = r.nbase > 1 || r.n - r.nbase > 1;
	/* each overweight row's comparison, found by name */
	const sv_cmpstat **cs = calloc(ow.nrows + 1, sizeof(*cs));
	if (!cs) {
		rc = EXIT_INPUT;
		goto out;
	}
	for (size_t i = 0; i < ow.nrows; i++)
		for (size_t k = 0; k < rows.n; k++)
			if (!strcmp(sv_view_name(v[1], rows.row[k].name), ow.rows[i].name)) {
				cs[i] = rows.row[k].cmp;
				break;
			}
	if (o->out == OUT_JSON) {
		jw w = { .o.f = stdout };
		jw_begin_obj(&w);
		jw_key(&w, "base"); jw_num(&w, ow.base);
		jw_key(&w, "test"); jw_num(&w, ow.test);
		jw_key(&w, "delta"); jw_num(&w, ow.delta);
		jw_key(&w, "delta_pct"); jw_num(&w, ow.delta_pct);
		jw_key(&w, "runs");
		jw_begin_obj(&w);
		jw_key(&w, "base"); jw_int(&w, (long long)r.nbase);
		jw_key(&w, "test"); jw_int(&w, (long long)(r.n - r.nbase));
		jw_end_obj(&w);
		jw_key(&w, "rows");
		jw_begin_arr(&w);
		for (size_t i = 0; i < ow.nrows; i++) {
			const sv_overweight_row *x = &ow.rows[i];
			jw_begin_obj(&w);
			jw_key(&w, "name"); jw_str(&w, x->name);
			jw_key(&w, "base"); jw_num(&w, x->base);
			jw_key(&w, "test"); jw_num(&w, x->test);
			jw_key(&w, "delta"); jw_num(&w, x->delta);
			jw_key(&w, "responsibility_pct"); jw_num(&w, x->responsibility_pct);
			jw_key(&w, "overweight_pct"); jw_num(&w, x->overweight_pct);
			jw_key(&w, "interest"); jw_int(&w, x->interest);
			if (cs[i])
				cli_json_cmpstat(&w, cs[i]);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_end_obj(&w);
		putchar('\n');
	} else if (o->out == OUT_TSV) {
		printf("Name\tBase\tTest\tDelta\tResponsibility %%\tOverweight %%\tInterest Level%s\n",
		       several ? "\t\u00b1 95%\tSig" : "");
		for (size_t i = 0; i < ow.nrows; i++) {
			const sv_overweight_row *x = &ow.rows[i];
			printf("%s\t%.1f\t%.1f\t%.1f\t%.2f\t%.2f\t%d", x->name, x->base, x->test, x->delta,
			       x->responsibility_pct, x->overweight_pct, x->interest);
			if (several)
				printf("\t%.1f\t%s", cs[i] ? (cs[i]->hi - cs[i]->lo) / 2 : 0, sig_text(cs[i]));
			putchar('\n');
		}
	} else {
		if (several)
			printf("Means of %zu base and %zu test runs\n", r.nbase, r.n - r.nbase);
		printf("Base (old) Time  %.1f\nTest (new) Time  %.1f\nDelta            %.1f\nDelta %%          %.1f\n\n",
		       ow.base, ow.test, ow.delta, ow.delta_pct);
		int nw = 4;
		for (size_t i = 0; i < ow.nrows; i++)
			if ((int)strlen(ow.rows[i].name) > nw)
				nw = (int)strlen(ow.rows[i].name);
		printf("%-*s  %12s  %12s  %12s  %16s  %12s  %8s%s\n", nw, "Name", "Base", "Test", "Delta", "Responsibility %",
		       "Overweight %", "Interest", several ? "        \u00b1 95%  Sig" : "");
		for (size_t i = 0; i < ow.nrows; i++) {
			const sv_overweight_row *x = &ow.rows[i];
			printf("%-*s  %12.1f  %12.1f  %12.1f  %16.2f  %12.2f  %8d", nw, x->name, x->base, x->test, x->delta,
			       x->responsibility_pct, x->overweight_pct, x->interest);
			if (several)
				printf("  %12.1f  %s", cs[i] ? (cs[i]->hi - cs[i]->lo) / 2 : 0, sig_text(cs[i]));
			putchar('\n');
		}
	}
	free(cs);
	rc = cli_finish_output(stdout);
out:
	sv_rows_dispose(&rows);
	sv_overweight_dispose(&ow);
	for (int i = 0; i < 2; i++) {
		sv_view_free(v[i]);
		sv_source_free(mean[i]);
	}
	sv_params_dispose(&p);
	cli_runs_dispose(&r);
	return rc;
}
