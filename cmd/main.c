/* SPDX-License-Identifier: MIT */
/* stackview: argv, environment and exit codes; one function per subcommand (spec/cli.md). */
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "stackview/derive.h"
#include "stackview/flame.h"
#include "stackview/formats.h"
#include "tui.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void report(const sv_error *err)
{
	char buf[1200];
	sv_error_format(buf, sizeof(buf), err);
	fprintf(stderr, "stackview: %s\n", buf);
}

/* Load a file (with progress and cancelling); `aggregate`: one sample per stack. */
static int load_as(sv_source **out, const char *path, const cli_opts *o, bool aggregate)
{
	sv_error err;
	sv_error_clear(&err);
	cli_progress cp;
	cli_progress_begin(&cp, path, o->progress);
	sv_import_opts io = { .format = o->format, .event = o->event, .kallsyms = o->kallsyms, .debug_dirs = o->debug_dirs,
			      .perf_map_dir = o->perf_map_dir, .progress = cli_progress_watch(&cp), .aggregate = aggregate, .no_inline = o->no_inline };
	int rc = sv_load(out, path, &io, &err);
	cli_progress_end(&cp, rc == 0);
	if (rc) {
		report(&err);
		return rc == SV_EINVAL ? EXIT_USAGE : EXIT_INPUT;
	}
	for (size_t i = 0; i < sv_source_note_count(*out); i++)
		if (sv_source_note(*out, i)->kind == SV_NOTE_WARNING)
			fprintf(stderr, "stackview: %s: warning: %s\n", path, sv_source_note(*out, i)->text);
	if (o->scaling)
		sv_source_set_scaling(*out, strcmp(o->scaling, "time") == 0 ? SV_SCALING_TIME : SV_SCALING_DATA);
	return 0;
}

static int load(sv_source **out, const char *path, const cli_opts *o)
{
	return load_as(out, path, o, false);
}

/* The file's saved state (or empty boxes), then the command line's boxes on top. */
static int make_params(sv_params *p, const sv_source *src, const char *const box[SV_BOX_COUNT])
{
	const sv_params *saved = src ? sv_source_saved_params(src) : NULL;
	int rc = saved ? sv_params_copy(p, saved) : sv_params_init(p);
	for (int i = 0; !rc && i < SV_BOX_COUNT; i++)
		if (box[i])
			rc = sv_params_set(p, (sv_box)i, box[i]);
	return rc;
}

static int build_view(sv_view **out, const sv_source *src, const sv_params *p)
{
	sv_error err;
	sv_error_clear(&err);
	int rc = sv_view_new(out, src, p, &err);
	if (rc) {
		report(&err);
		return rc == SV_ENOMEM ? EXIT_INPUT : EXIT_USAGE;
	}
	return 0;
}

static void timing_line(const cli_opts *o, const char *phase, double ms)
{
	if (o->timing)
		fprintf(stderr, "timing: %s %.1f ms\n", phase, ms);
}

/* Load files[0], fill the boxes (saved state, then the command line) and build the view.
 * On failure everything made so far is freed and the exit code returned. */
static int open_view(const cli_opts *o, sv_source **src, sv_params *p, sv_view **v)
{
	double t0 = now_ms();
	*src = NULL;
	*v = NULL;
	int rc = load(src, o->files[0], o);
	if (rc)
		return rc;
	timing_line(o, "load", now_ms() - t0);
	if (make_params(p, *src, o->box))
		rc = EXIT_INPUT;
	else if ((rc = build_view(v, *src, p)) == 0)
		return 0;
	sv_params_dispose(p);
	sv_source_free(*src);
	*src = NULL;
	return rc;
}

static int finish_output(FILE *f)
{
	if (fflush(f) != 0 || ferror(f)) {
		fprintf(stderr, "stackview: writing output failed\n");
		return EXIT_OUTPUT;
	}
	return EXIT_OK;
}

/* Print the view chosen by `what` (byname, calltree, callers, callees, callercallee). */
static int print_view(sv_view *v, const char *what, const cli_opts *o)
{
	double t0 = now_ms();
	int rc = EXIT_OK;
	if (strcmp(what, "byname") == 0) {
		timing_line(o, "view", now_ms() - t0);
		t0 = now_ms();
		out_byname(stdout, v, o);
	} else if (strcmp(what, "calltree") == 0) {
		timing_line(o, "view", now_ms() - t0);
		t0 = now_ms();
		out_calltree(stdout, v, o);
	} else if (strcmp(what, "callers") == 0 || strcmp(what, "callees") == 0) {
		if (!o->focus) {
			fprintf(stderr, "stackview: %s needs --focus NAME\n", what);
			return EXIT_USAGE;
		}
		sv_name_id id = sv_view_name_find(v, o->focus);
		sv_aggtree *t = NULL;
		int r = id == UINT32_MAX ? SV_ENOTFOUND
					 : sv_aggtree_new(&t, v, strcmp(what, "callers") == 0 ? SV_AGG_CALLERS : SV_AGG_CALLEES, id);
		if (r == SV_ENOTFOUND) {
			fprintf(stderr, "stackview: --focus '%s': no such name in the view\n", o->focus);
			return EXIT_USAGE;
		}
		if (r) {
			fprintf(stderr, "stackview: %s\n", sv_status_str(r));
			return EXIT_INPUT;
		}
		timing_line(o, "view", now_ms() - t0);
		t0 = now_ms();
		out_aggtree(stdout, v, t, o);
		sv_aggtree_free(t);
	} else if (strcmp(what, "callercallee") == 0) {
		if (!o->focus) {
			fprintf(stderr, "stackview: callercallee needs --focus NAME\n");
			return EXIT_USAGE;
		}
		sv_callercallee *cc;
		int r = sv_callercallee_new(&cc, v, o->focus);
		if (r) {
			fprintf(stderr, "stackview: %s\n", sv_status_str(r));
			return EXIT_INPUT;
		}
		timing_line(o, "view", now_ms() - t0);
		t0 = now_ms();
		out_callercallee(stdout, v, cc, o);
		sv_callercallee_free(cc);
	} else {
		fprintf(stderr, "stackview: unknown view '%s'\n", what);
		return EXIT_USAGE;
	}
	rc = finish_output(stdout);
	timing_line(o, "output", now_ms() - t0);
	return rc;
}

typedef struct flame_job {
	const sv_view *v;
	const sv_flame *fl;
	const char *title;
	char subtitle[1024];
} flame_job;

static int write_flame(FILE *f, void *payload, sv_error *err)
{
	flame_job *j = payload;
	return sv_flame_svg_write(f, j->v, j->fl, j->title, j->subtitle, err);
}

/* A flame graph of the view to `path`, atomically; the subtitle states the filter. */
static int flame_to(const sv_view *v, const char *path, const char *title)
{
	sv_flame *fl;
	if (sv_flame_new(&fl, v, SV_NODE_ROOT, 0.1 / 1180)) {
		fprintf(stderr, "stackview: out of memory\n");
		return EXIT_INPUT;
	}
	flame_job j = { v, fl, title, "" };
	size_t o = 0;
	const sv_params *p = sv_view_params(v);
	for (int b = 0; b < SV_BOX_COUNT && o < sizeof(j.subtitle); b++) {
		const char *t = sv_params_get(p, (sv_box)b);
		if (t[0] && b != SV_BOX_START && b != SV_BOX_END)
			o += (size_t)snprintf(j.subtitle + o, sizeof(j.subtitle) - o, "%s%s: %s", o ? "   " : "",
					      sv_box_name((sv_box)b), t);
	}
	if (o < sizeof(j.subtitle))
		snprintf(j.subtitle + o, sizeof(j.subtitle) - o, "%s%s .. %s ms", o ? "   " : "",
			 sv_params_get(p, SV_BOX_START), sv_params_get(p, SV_BOX_END));
	sv_error err;
	sv_error_clear(&err);
	int rc = sv_write_atomic(path, write_flame, &j, &err);
	sv_flame_free(fl);
	if (rc) {
		report(&err);
		return EXIT_OUTPUT;
	}
	return EXIT_OK;
}

static int cmd_view(const cli_opts *o, const char *what)
{
	if (o->nfiles != 1) {
		fprintf(stderr, "stackview: %s needs one FILE (see stackview --help)\n", o->cmd);
		return EXIT_USAGE;
	}
	sv_source *src;
	sv_view *v;
	sv_params p = { 0 };
	int rc = open_view(o, &src, &p, &v);
	if (rc)
		return rc;
	double fm, tm;
	sv_view_timing(v, &fm, &tm);
	timing_line(o, "filter", fm);
	timing_line(o, "tree", tm);
	if (strcmp(what, "flame") == 0) {
		double t1 = now_ms();
		char title[600];
		const char *slash = strrchr(o->files[0], '/');
		snprintf(title, sizeof(title), "Flame Graph: %s", slash ? slash + 1 : o->files[0]);
		if (o->output) {
			rc = flame_to(v, o->output, title);
		} else {
			fprintf(stderr, "stackview: flame needs -o OUT.svg\n");
			rc = EXIT_USAGE;
		}
		timing_line(o, "output", now_ms() - t1);
	} else {
		rc = print_view(v, what, o);
	}
	if (o->timing)
		fprintf(stderr, "timing: memory source %.1f MB, view %.1f MB (%zu samples, %u stacks, %u frames)\n",
			(double)sv_source_memory(src) / 1e6, (double)sv_view_memory(v) / 1e6, sv_source_sample_count(src),
			sv_source_stack_count(src), sv_source_frame_count(src));
	sv_view_free(v);
	sv_params_dispose(&p);
	sv_source_free(src);
	return rc;
}

static int cmd_info(const cli_opts *o)
{
	if (o->nfiles != 1) {
		fprintf(stderr, "stackview: info needs one FILE\n");
		return EXIT_USAGE;
	}
	sv_source *src;
	double t0 = now_ms();
	int rc = load(&src, o->files[0], o);
	if (rc)
		return rc;
	timing_line(o, "load", now_ms() - t0);
	sv_process *procs = NULL;
	size_t np = 0;
	if (sv_source_processes(&procs, &np, src)) {
		sv_source_free(src);
		fprintf(stderr, "stackview: out of memory\n");
		return EXIT_INPUT;
	}
	if (o->out == OUT_JSON) {
		jw w = { .f = stdout };
		jw_begin_obj(&w);
		jw_key(&w, "format"); jw_str(&w, sv_source_format(src));
		jw_key(&w, "events");
		jw_begin_arr(&w);
		for (size_t i = 0; i < sv_source_event_count(src); i++) {
			const sv_event *e = sv_source_event(src, i);
			jw_begin_obj(&w);
			jw_key(&w, "name"); jw_str(&w, e->name);
			jw_key(&w, "samples"); jw_int(&w, (long long)e->samples);
			jw_key(&w, "selected"); jw_bool(&w, e->selected);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_key(&w, "samples"); jw_int(&w, (long long)sv_source_sample_count(src));
		jw_key(&w, "frames"); jw_int(&w, sv_source_frame_count(src));
		jw_key(&w, "stacks"); jw_int(&w, sv_source_stack_count(src));
		jw_key(&w, "metric"); jw_num(&w, sv_source_total_metric(src));
		jw_key(&w, "count"); jw_num(&w, sv_source_total_count(src));
		jw_key(&w, "first"); jw_num(&w, sv_source_first_time(src));
		jw_key(&w, "last"); jw_num(&w, sv_source_last_time(src));
		jw_key(&w, "scaling"); jw_str(&w, sv_source_scaling(src) == SV_SCALING_TIME ? "time" : "data");
		for (int kind = SV_NOTE_INFO; kind <= SV_NOTE_WARNING; kind++) {
			jw_key(&w, kind == SV_NOTE_INFO ? "found" : "warnings");
			jw_begin_arr(&w);
			for (size_t i = 0; i < sv_source_note_count(src); i++)
				if (sv_source_note(src, i)->kind == kind)
					jw_str(&w, sv_source_note(src, i)->text);
			jw_end_arr(&w);
		}
		jw_key(&w, "processes");
		jw_begin_arr(&w);
		for (size_t i = 0; i < np; i++) {
			jw_begin_obj(&w);
			jw_key(&w, "pid"); jw_int(&w, procs[i].pid);
			jw_key(&w, "name"); jw_str(&w, procs[i].name);
			jw_key(&w, "samples"); jw_int(&w, (long long)procs[i].samples);
			jw_key(&w, "metric"); jw_num(&w, procs[i].metric);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_end_obj(&w);
		putchar('\n');
	} else {
		char a[64], b[64], c[64];
		printf("format     %s\n", sv_source_format(src));
		for (size_t i = 0; i < sv_source_event_count(src); i++) {
			const sv_event *e = sv_source_event(src, i);
			printf("event      %-40s %10zu%s\n", e->name, e->samples, e->selected ? "  (shown)" : "");
		}
		printf("samples    %zu\n", sv_source_sample_count(src));
		printf("frames     %u\n", sv_source_frame_count(src));
		printf("stacks     %u\n", sv_source_stack_count(src));
		sv_format_number(a, sizeof(a), sv_source_total_metric(src), 1);
		printf("metric     %s\n", a);
		sv_format_number(a, sizeof(a), sv_source_first_time(src), 3);
		sv_format_number(b, sizeof(b), sv_source_last_time(src), 3);
		printf("time       %s .. %s ms\n", a, b);
		printf("scaling    %s\n", sv_source_scaling(src) == SV_SCALING_TIME ? "time-metric" : "scale-to-data");
		if (np) {
			printf("processes  %zu\n", np);
			for (size_t i = 0; i < np; i++) {
				sv_format_number(c, sizeof(c), procs[i].metric, 1);
				printf("  %8ld  %-32s %10zu samples  %s\n", procs[i].pid, procs[i].name, procs[i].samples, c);
			}
		}
		for (size_t i = 0; i < sv_source_note_count(src); i++) {
			const sv_note *n = sv_source_note(src, i);
			printf("%-10s %s\n", n->kind == SV_NOTE_WARNING ? "warning" : "found", n->text);
		}
		if (sv_source_notes(src)[0])
			printf("notes      %s\n", sv_source_notes(src));
		const sv_params *sp = sv_source_saved_params(src);
		if (sp)
			for (int i = 0; i < SV_BOX_COUNT; i++)
				if (sp->box[i][0])
					printf("saved %-9s %s\n", sv_box_name((sv_box)i), sp->box[i]);
	}
	free(procs);
	sv_source_free(src);
	return finish_output(stdout);
}

static int run_tui(const cli_opts *o, sv_source *src, const char *title, const sv_params *p, bool pick);

/* Load both inputs, filter each with the --select-* boxes (Fold% cleared). */
static int two_views(sv_source *src[2], sv_view *v[2], sv_params p[2], const cli_opts *o,
		     const char *const box[SV_BOX_COUNT])
{
	if (o->nfiles != 2) {
		fprintf(stderr, "stackview: %s needs BASE and TEST files\n", o->cmd);
		return EXIT_USAGE;
	}
	double t0 = now_ms();
	for (int i = 0; i < 2; i++) {
		int rc = load(&src[i], o->files[i], o);
		if (rc)
			return rc;
	}
	timing_line(o, "load", now_ms() - t0);
	for (int i = 0; i < 2; i++) {
		if (make_params(&p[i], src[i], box) || sv_params_set(&p[i], SV_BOX_FOLD_PCT, ""))
			return EXIT_INPUT;
		int rc = build_view(&v[i], src[i], &p[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int cmd_diff(const cli_opts *o)
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
		if ((rc = build_view(&dv, d, &dp)))
			goto out;
		rc = flame_to(dv, o->output, "Differential Flame Graph (red grew, blue shrank)");
		goto out;
	}
	if ((o->script || (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))) && o->out == OUT_TEXT && !o->view) {
		/* On a terminal, diff opens the diff view (negative values shown in red). */
		char title[600];
		const char *b = strrchr(o->files[0], '/'), *t = strrchr(o->files[1], '/');
		snprintf(title, sizeof(title), "diff %s - %s", t ? t + 1 : o->files[1], b ? b + 1 : o->files[0]);
		rc = run_tui(o, d, title, &dp, false);
		goto out;
	}
	if ((rc = build_view(&dv, d, &dp)))
		goto out;
	rc = print_view(dv, o->view ? o->view : "calltree", o);
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

static int cmd_overweight(const cli_opts *o)
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
	rc = finish_output(stdout);
out:
	sv_overweight_dispose(&ow);
	for (int i = 0; i < 2; i++) {
		sv_view_free(v[i]);
		sv_source_free(src[i]);
		sv_params_dispose(&p[i]);
	}
	return rc;
}

/* convert IN OUT: the filtered view's samples (original or --grouped names) written in the
 * format OUT's name asks for, atomically. */
static int cmd_convert(const cli_opts *o)
{
	if (o->nfiles != 2) {
		fprintf(stderr, "stackview: convert needs IN and OUT files\n");
		return EXIT_USAGE;
	}
	bool zipped;
	const sv_format *of = o->format ? NULL : sv_format_for_output(o->files[1], &zipped);
	if (!o->format && !of) {
		fprintf(stderr, "stackview: %s: cannot tell the output format from the name (use .perfView.xml, "
				".perfView.json, their .zip forms, .folded, .speedscope.json or .svg)\n",
			o->files[1]);
		return EXIT_USAGE;
	}
	sv_source *src = NULL, *out = NULL;
	sv_view *v = NULL;
	sv_params p = { 0 };
	sv_export_opts eo = { o->folded_flamegraph ? SV_FOLDED_FLAMEGRAPH : SV_FOLDED_PLAIN };
	sv_error err;
	sv_error_clear(&err);
	int rc;
	/* Folded stacks hold no time: with no filter to apply, samples of a stack add up as
	 * they are read (memory scales with distinct stacks, not samples) and go out as they
	 * are — no view is built. A file whose saved state filters is loaded again in full. */
	bool boxes = o->grouped;
	for (int i = 0; i < SV_BOX_COUNT; i++)
		boxes = boxes || (o->box[i] && o->box[i][0]);
	if (of == &sv_fmt_folded && !zipped && !boxes) {
		double t0 = now_ms();
		if ((rc = load_as(&src, o->files[0], o, true)))
			return rc;
		timing_line(o, "load", now_ms() - t0);
		const sv_params *saved = sv_source_saved_params(src);
		bool filtered = false;
		for (int i = 0; saved && i < SV_BOX_COUNT; i++)
			filtered = filtered || sv_params_get(saved, (sv_box)i)[0];
		if (!filtered) {
			t0 = now_ms();
			rc = sv_save(src, o->files[1], NULL, &eo, &err) ? EXIT_OUTPUT : EXIT_OK;
			if (rc)
				report(&err);
			else
				timing_line(o, "output", now_ms() - t0);
			sv_source_free(src);
			return rc;
		}
		sv_source_free(src);
		src = NULL;
	}
	rc = open_view(o, &src, &p, &v);
	if (rc)
		return rc;
	double t0 = now_ms();
	if (sv_view_export_source(&out, v, o->grouped)) {
		fprintf(stderr, "stackview: out of memory\n");
		rc = EXIT_INPUT;
		goto done;
	}
	/* --format names the input; the output's format always comes from its name here. */
	if (sv_save(out, o->files[1], NULL, &eo, &err)) {
		report(&err);
		rc = EXIT_OUTPUT;
		goto done;
	}
	timing_line(o, "output", now_ms() - t0);
	rc = EXIT_OK;
done:
	sv_source_free(out);
	sv_view_free(v);
	sv_params_dispose(&p);
	sv_source_free(src);
	return rc;
}

/* Read a whole small text file (a key script). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap) {
			if (cap > (16u << 20))
				break;
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
			}
			buf = nb;
		}
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

static int tui_save(void *payload, const sv_source *src, const char *path, char *err, size_t errsize)
{
	(void)payload;
	sv_error e;
	sv_error_clear(&e);
	int rc = sv_save(src, path, NULL, NULL, &e);
	if (rc)
		snprintf(err, errsize, "%s", e.msg);
	return rc;
}

/* The terminal UI (or its headless run with --script). The TUI starts from the file's saved
 * state or the per-source defaults of spec §11.2; the command line's boxes go on top. */
static int run_tui(const cli_opts *o, sv_source *src, const char *title, const sv_params *p, bool pick)
{
	char *script = NULL;
	if (o->script && !(script = slurp(o->script))) {
		fprintf(stderr, "stackview: %s: cannot read the key script\n", o->script);
		return EXIT_USAGE;
	}
	const char *slash = strrchr(title, '/');
	tui_options to = { slash ? slash + 1 : title, script, o->width, o->height, stdout, tui_save, NULL, pick,
			   o->presets, cli_presets_store, NULL };
	char err[600];
	int rc = EXIT_OK, r = tui_run(src, p, &to, err, sizeof(err));
	if (r) {
		fprintf(stderr, "stackview: %s\n", err);
		rc = r == 2 ? EXIT_USAGE : EXIT_INPUT;
	} else {
		rc = finish_output(stdout);
	}
	free(script);
	return rc;
}

static int cmd_tui(const cli_opts *o)
{
	sv_source *src = NULL;
	sv_params p = { 0 };
	int rc = load(&src, o->files[0], o);
	if (rc)
		return rc;
	const char *box[SV_BOX_COUNT];
	memcpy(box, o->box, sizeof(box));
	/* PerfView's defaults for CPU stacks of whole systems (semantics §11.2). */
	bool perf = strcmp(sv_source_format(src), "perf-script") == 0 || strcmp(sv_source_format(src), "perf-data") == 0;
	bool etl = strcmp(sv_source_format(src), "etl") == 0;
	if (!sv_source_saved_params(src) && (perf || etl)) {
		if (!box[SV_BOX_GROUP])
			box[SV_BOX_GROUP] = "[group module entries]  {%}!=>module $1";
		if (etl && !box[SV_BOX_FOLD])
			box[SV_BOX_FOLD] = "ntoskrnl!%ServiceCopyEnd";
	}
	if (make_params(&p, src, box)) {
		rc = EXIT_INPUT;
		goto out;
	}
	/* Profiles of whole systems start with the process picker, as PerfView's do; it only
	 * fills IncPats, so a file's saved state or --inc skips it. */
	bool pick = !sv_source_saved_params(src) && !o->box[SV_BOX_INC] && (perf || etl);
	rc = run_tui(o, src, o->files[0], &p, pick);
out:
	sv_params_dispose(&p);
	sv_source_free(src);
	return rc;
}

/* The tutorial profile: beside the binary in a build tree, or in PREFIX/share. */
static const char *tutorial_path(char *buf, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			static const char *const rel[] = { "/../../examples/tutorial.perfView.xml",
							   "/../share/stackview/tutorial.perfView.xml" };
			for (size_t i = 0; i < 2; i++) {
				snprintf(buf, size, "%s%s", exe, rel[i]);
				if (access(buf, R_OK) == 0)
					return buf;
			}
		}
	}
	return "examples/tutorial.perfView.xml";
}

static int run_command(cli_opts *o);

int main(int argc, char **argv)
{
	setlocale(LC_CTYPE, "");
	cli_opts o;
	int rc = cli_parse(&o, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	/* The user's presets are read only by what uses them: --preset, the list, the TUI. */
	sv_presets user = { 0 };
	bool wants = o.preset || strcmp(o.cmd, "presets") == 0 || strcmp(o.cmd, "view") == 0 || strcmp(o.cmd, "diff") == 0;
	if (wants && cli_presets_load(&user)) {
		fprintf(stderr, "stackview: out of memory\n");
		return EXIT_INPUT;
	}
	o.presets = wants ? &user : NULL; /* a TUI without them must not overwrite the file */
	rc = strcmp(o.cmd, "presets") == 0 ? cli_presets_list(&o, &user) : cli_resolve_preset(&o, &user);
	if (rc || strcmp(o.cmd, "presets") == 0) {
		sv_presets_dispose(&user);
		return rc;
	}
	rc = run_command(&o);
	sv_presets_dispose(&user);
	return rc;
}

static int run_command(cli_opts *o_)
{
	cli_opts o = *o_;
	if (strcmp(o.cmd, "info") == 0)
		return cmd_info(&o);
	if (strcmp(o.cmd, "diff") == 0)
		return cmd_diff(&o);
	if (strcmp(o.cmd, "overweight") == 0)
		return cmd_overweight(&o);
	if (strcmp(o.cmd, "convert") == 0)
		return cmd_convert(&o);
	if (strcmp(o.cmd, "view") == 0) {
		char buf[PATH_MAX + 64];
		if (o.nfiles == 0) {
			o.files[0] = tutorial_path(buf, sizeof(buf));
			o.nfiles = 1;
		}
		if (!o.script && !(isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)))
			return cmd_view(&o, "calltree"); /* not a terminal: print the tree */
		return cmd_tui(&o);
	}
	return cmd_view(&o, o.cmd);
}
