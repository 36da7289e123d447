/* SPDX-License-Identifier: MIT */
/* Printing views as text (PerfView's grid), TSV and JSON (spec/cli.md). Rows, columns, cells
 * and the padded text come from lib/ (stackview/grid.h); this file picks the rows of each
 * view and writes JSON. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stackview/compare.h"
#include "stackview/grid.h"
#include "stackview/rows.h"

/* The JSON fields of a row, in this order (the same keys as --columns). */
static const sv_col json_cols[] = { SV_COL_EXC, SV_COL_EXC_PCT, SV_COL_EXC_CT, SV_COL_INC, SV_COL_INC_PCT,
				    SV_COL_INC_CT, SV_COL_FOLD, SV_COL_FOLD_CT, SV_COL_FIRST, SV_COL_LAST };

static void json_summary(jw *w, sv_view *v)
{
	sv_summary s;
	sv_view_summary(&s, v);
	jw_key(w, "summary");
	jw_begin_obj(w);
	jw_key(w, "metric"); jw_num(w, s.metric);
	jw_key(w, "count"); jw_num(w, s.count);
	jw_key(w, "first"); jw_num(w, s.first);
	jw_key(w, "last"); jw_num(w, s.last);
	jw_key(w, "metric_per_interval"); jw_num(w, s.metric_per_interval);
	jw_key(w, "time_bucket"); jw_num(w, s.time_bucket);
	jw_key(w, "start"); jw_num(w, s.start);
	jw_key(w, "end"); jw_num(w, s.end);
	sv_netpeak np;
	if (sv_view_net_peak(v, &np) == 0) { /* PerfView's memory views: net and peak of the range */
		jw_key(w, "net"); jw_num(w, np.net);
		jw_key(w, "peak"); jw_num(w, np.peak);
		jw_key(w, "peak_time"); jw_num(w, np.peak_time);
	}
	jw_key(w, "scaling"); jw_str(w, s.scaling == SV_SCALING_TIME ? "time" : "data");
	const sv_source *src = sv_view_source(v);
	const char *ev = sv_source_event_name(src), *unit = sv_source_unit(src);
	jw_key(w, "event");
	jw_str(w, ev);
	jw_key(w, "unit");
	jw_str(w, unit);
	jw_end_obj(w);
}

/* Row fields, without the braces (so tree nodes can add "children"). */
static void json_row_fields(jw *w, sv_view *v, const sv_rows *rows, size_t i, double basis)
{
	const sv_row *r = &rows->row[i];
	bool intervals = sv_source_intervals(sv_view_source(v));
	jw_key(w, "name");
	jw_str(w, sv_view_name(v, r->name));
	for (size_t k = 0; k < sizeof(json_cols) / sizeof(json_cols[0]); k++) {
		jw_key(w, sv_column_get(json_cols[k])->key);
		jw_num(w, sv_column_value(json_cols[k], r->st, basis));
		if (json_cols[k] == SV_COL_INC_CT && intervals) { /* thread time: the longest interval */
			jw_key(w, "max");
			jw_num(w, sv_column_value(SV_COL_MAX, r->st, basis));
		}
	}
	char when[SV_WHEN_LEN + 1];
	if (sv_rows_when(when, v, rows, i))
		when[0] = '\0';
	jw_key(w, "when");
	jw_str(w, when);
	if (r->cmp)
		cli_json_cmpstat(w, r->cmp);
}

/* A flattened tree as nested JSON objects, without recursion (trees are up to 100,000
 * levels deep): a row's object stays open until a row no deeper than it comes. */
static void json_tree(jw *w, sv_view *v, const sv_rows *rows, double basis)
{
	uint32_t open = 0; /* objects open, one per depth of the current chain */
	for (size_t i = 0; i < rows->n; i++) {
		uint32_t d = rows->row[i].depth;
		for (; open > d; open--) {
			jw_end_arr(w);
			jw_end_obj(w);
		}
		jw_begin_obj(w);
		json_row_fields(w, v, rows, i, basis);
		jw_key(w, "children");
		jw_begin_arr(w);
		open++;
	}
	for (; open; open--) {
		jw_end_arr(w);
		jw_end_obj(w);
	}
}

void cli_json_cmpstat(jw *w, const sv_cmpstat *s)
{
	jw_key(w, "base"); jw_num(w, s->base);
	jw_key(w, "test"); jw_num(w, s->test);
	jw_key(w, "base_sd"); jw_num(w, s->base_sd);
	jw_key(w, "test_sd"); jw_num(w, s->test_sd);
	jw_key(w, "ci_low");
	if (isnan(s->lo))
		jw_null(w);
	else
		jw_num(w, s->lo);
	jw_key(w, "ci_high");
	if (isnan(s->hi))
		jw_null(w);
	else
		jw_num(w, s->hi);
	jw_key(w, "p");
	if (isnan(s->p))
		jw_null(w);
	else
		jw_num(w, s->p);
	jw_key(w, "significant"); jw_int(w, s->sig);
}

/* How many heaviest names found on one side only the report shows, and the share of the total
 * under which one is sampling, not a rename. */
#define UNMATCHED_SHOWN 10
#define CLI_UNMATCHED_SHARE 0.01

/* A comparison's runs, automatic matches and what did not line up (JSON). */
static void json_compare(jw *w, const cli_opts *o)
{
	sv_compare *c = o->compare;
	if (!c)
		return;
	jw_key(w, "runs");
	jw_begin_obj(w);
	jw_key(w, "base"); jw_int(w, (long long)sv_compare_runs(c, false));
	jw_key(w, "test"); jw_int(w, (long long)sv_compare_runs(c, true));
	jw_end_obj(w);
	jw_key(w, "aligned");
	jw_begin_arr(w);
	for (size_t i = 0; i < sv_compare_alias_count(c); i++) {
		const char *t, *b;
		sv_compare_alias(c, i, &t, &b);
		jw_begin_obj(w);
		jw_key(w, "test"); jw_str(w, t);
		jw_key(w, "base"); jw_str(w, b);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	sv_unmatched *u = NULL;
	size_t n = 0;
	jw_key(w, "unmatched");
	jw_begin_arr(w);
	if (sv_compare_unmatched(c, CLI_UNMATCHED_SHARE, &u, &n) == 0)
		for (size_t i = 0; i < n; i++) {
			jw_begin_obj(w);
			jw_key(w, "name"); jw_str(w, u[i].name);
			jw_key(w, "side"); jw_str(w, u[i].test ? "test" : "base");
			jw_key(w, "inc"); jw_num(w, u[i].inc);
			jw_end_obj(w);
		}
	jw_end_arr(w);
	free(u);
}

/* The same report as text, after the grid: nothing when everything lined up. */
static void text_unmatched(FILE *f, const cli_opts *o)
{
	sv_unmatched *u = NULL;
	size_t n = 0;
	if (!o->compare || sv_compare_unmatched(o->compare, CLI_UNMATCHED_SHARE, &u, &n) || !n) {
		free(u);
		return;
	}
	fprintf(f, "\nUnmatched: %zu name%s on one side only (modules, processes, threads; 1 %% of the total or more), the heaviest first;\n"
		   "--match 'OLD=>NEW' lines renamed ones up:\n",
		n, n > 1 ? "s" : "");
	for (size_t i = 0; i < n && i < UNMATCHED_SHOWN; i++) {
		char num[64];
		sv_format_number(num, sizeof(num), u[i].inc, 1);
		fprintf(f, "  %-4s  %12s  %s\n", u[i].test ? "test" : "base", num, u[i].name);
	}
	if (n > UNMATCHED_SHOWN)
		fprintf(f, "  ... %zu more (--json lists them all)\n", n - UNMATCHED_SHOWN);
	free(u);
}

static void summary_text(FILE *f, sv_view *v)
{
	char line[512];
	sv_view_summary_line(line, sizeof(line), v);
	fprintf(f, "%s\n\n", line);
}

/* Text or TSV: the summary line (text only), then the grid with --columns or the view's
 * default columns. */
static int print_grid(FILE *f, sv_view *v, const sv_rows *rows, const cli_opts *o)
{
	sv_col dflt[SV_COL_COUNT];
	const sv_col *cols = o->cols;
	size_t n = o->ncols;
	if (!n) {
		n = sv_grid_source_columns(sv_view_source(v), rows->kind, o->compare_cols, dflt);
		cols = dflt;
	}
	const sv_source *src = sv_view_source(v);
	const char *ev = sv_source_event_name(src), *unit = sv_source_unit(src);
	if (o->out == OUT_TEXT) {
		summary_text(f, v);
		if (ev) { /* which event the numbers count, and in what */
			char ns[64];
			sv_format_number(ns, sizeof(ns), (double)sv_source_sample_count(src), 0);
			fprintf(f, "Event: %s, %s samples, metric in %s\n\n", ev, ns, unit ? unit : ev);
		}
	}
	if (o->out == OUT_TEXT && rows->kind == SV_ROWS_CALLERCALLEE) {
		size_t ncallers = 0, ncallees = 0;
		for (size_t i = 0; i < rows->n; i++) {
			ncallers += rows->row[i].role == SV_ROLE_CALLER;
			ncallees += rows->row[i].role == SV_ROLE_CALLEE;
		}
		fprintf(f, "Callers (%zu), focus, callees (%zu, indented):\n", ncallers, ncallees);
	}
	sv_grid_style st = { .tsv = o->out == OUT_TSV, .marks = true, .unit = unit };
	/* a write error is reported by cli_finish_output with its reason */
	if (sv_grid_print(f, v, rows, cols, n, &st) == SV_ENOMEM)
		return SV_ENOMEM;
	if (o->out == OUT_TEXT)
		text_unmatched(f, o);
	return 0;
}

int out_byname(FILE *f, sv_view *v, const cli_opts *o)
{
	sv_rows rl = { .kind = SV_ROWS_BYNAME }; /* --top 0: no rows */
	/* --sort: every row in the column's order, then the first --top of them */
	size_t top = o->sort_col >= 0 ? 0 : o->top > 0 ? (size_t)o->top : 0;
	if (o->top != 0 && sv_rows_byname(&rl, v, top))
		return SV_ENOMEM;
	if (o->sort_col >= 0 && rl.n) {
		if (sv_rows_sort(&rl, 0, rl.n, v, (sv_col)o->sort_col, o->sort_asc)) {
			sv_rows_dispose(&rl);
			return SV_ENOMEM;
		}
		if (o->top > 0 && (size_t)o->top < rl.n)
			rl.n = (size_t)o->top;
	}
	if (o->compare && sv_compare_rows(o->compare, v, &rl)) {
		sv_rows_dispose(&rl);
		return SV_ENOMEM;
	}
	sv_rows_min_pct(&rl, sv_grid_basis(v), o->min_pct);
	int rc = 0;
	if (o->out == OUT_JSON) {
		double basis = sv_grid_basis(v);
		if (sv_rows_when_ahead(v, &rl)) {
			sv_rows_dispose(&rl);
			return SV_ENOMEM;
		}
		jw w = { .o.f = f };
		jw_begin_obj(&w);
		json_summary(&w, v);
		json_compare(&w, o);
		jw_key(&w, "rows");
		jw_begin_arr(&w);
		for (size_t r = 0; r < rl.n; r++) {
			jw_begin_obj(&w);
			json_row_fields(&w, v, &rl, r, basis);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_end_obj(&w);
		fputc('\n', f);
	} else {
		rc = print_grid(f, v, &rl, o);
	}
	sv_rows_dispose(&rl);
	return rc;
}

/* The call tree, or Callers / Callees when t is set. */
/* Text and TSV trees stop at this depth unless --depth says otherwise: a 100,000-deep stack
 * would print 100,000 lines of indentation; JSON keeps every level (docs/limits.md). */
#define TEXT_MAX_DEPTH 500

static int out_tree(FILE *f, sv_view *v, const sv_aggtree *t, const cli_opts *o)
{
	sv_rows rl;
	int depth = (int)o->depth;
	bool bounded = o->out != OUT_JSON && depth < 0;
	if (bounded)
		depth = TEXT_MAX_DEPTH;
	int rc = t ? sv_rows_aggtree(&rl, t, NULL, depth) : sv_rows_calltree(&rl, v, NULL, depth);
	if (rc)
		return rc;
	if (o->sort_col >= 0 && rl.n && (rc = sv_rows_sort(&rl, 0, rl.n, v, (sv_col)o->sort_col, o->sort_asc))) {
		sv_rows_dispose(&rl); /* siblings in the column's order */
		return rc;
	}
	if (bounded) {
		size_t cut = 0;
		for (size_t i = 0; i < rl.n; i++)
			cut += rl.row[i].depth >= TEXT_MAX_DEPTH && rl.row[i].has_children;
		if (cut)
			fprintf(stderr, "stackview: note: the tree is deeper than %d levels; text shows %d (--depth N for more, --json for all)\n",
				TEXT_MAX_DEPTH, TEXT_MAX_DEPTH);
	}
	if (o->compare && sv_compare_rows(o->compare, v, &rl)) {
		sv_rows_dispose(&rl);
		return SV_ENOMEM;
	}
	sv_rows_min_pct(&rl, sv_grid_basis(v), o->min_pct);
	if (o->out == OUT_JSON) {
		jw w = { .o.f = f };
		jw_begin_obj(&w);
		json_summary(&w, v);
		json_compare(&w, o);
		if (t) {
			jw_key(&w, "focus");
			jw_str(&w, sv_view_name(v, sv_aggtree_row(t, 0)->name));
		}
		jw_key(&w, "tree");
		json_tree(&w, v, &rl, sv_grid_basis(v));
		jw_end_obj(&w);
		fputc('\n', f);
	} else {
		rc = print_grid(f, v, &rl, o);
	}
	sv_rows_dispose(&rl);
	return rc;
}

int out_calltree(FILE *f, sv_view *v, const cli_opts *o)
{
	return out_tree(f, v, NULL, o);
}

int out_aggtree(FILE *f, sv_view *v, const sv_aggtree *t, const cli_opts *o)
{
	return out_tree(f, v, t, o);
}

int out_callercallee(FILE *f, sv_view *v, const sv_callercallee *cc, const cli_opts *o)
{
	sv_rows rl;
	if (sv_rows_callercallee(&rl, cc))
		return SV_ENOMEM;
	if (o->compare && sv_compare_rows(o->compare, v, &rl)) {
		sv_rows_dispose(&rl);
		return SV_ENOMEM;
	}
	sv_rows_min_pct(&rl, sv_grid_basis(v), o->min_pct);
	if (o->out != OUT_JSON) {
		int rc = print_grid(f, v, &rl, o);
		sv_rows_dispose(&rl);
		return rc;
	}
	double basis = sv_grid_basis(v);
	jw w = { .o.f = f };
	jw_begin_obj(&w);
	json_summary(&w, v);
	json_compare(&w, o);
	jw_key(&w, "focus");
	jw_begin_obj(&w);
	for (size_t i = 0; i < rl.n; i++)
		if (rl.row[i].role == SV_ROLE_FOCUS)
			json_row_fields(&w, v, &rl, i, basis);
	jw_end_obj(&w);
	for (int side = 0; side < 2; side++) {
		jw_key(&w, side ? "callees" : "callers");
		jw_begin_arr(&w);
		for (size_t i = 0; i < rl.n; i++)
			if (rl.row[i].role == (side ? SV_ROLE_CALLEE : SV_ROLE_CALLER)) {
				jw_begin_obj(&w);
				json_row_fields(&w, v, &rl, i, basis);
				jw_end_obj(&w);
			}
		jw_end_arr(&w);
	}
	jw_end_obj(&w);
	fputc('\n', f);
	sv_rows_dispose(&rl);
	return 0;
}

/* A signal that came while a file was written, taken once it was committed: noted. */
static void note_late(const char *path, int sig)
{
	if (sig)
		fprintf(stderr, "stackview: note: %s came once %s was written: it is complete\n", strsignal(sig), path);
}

int cli_write_atomic(const char *path, int (*write)(FILE *f, void *payload, sv_error *err), void *payload,
		     sv_error *err)
{
	sigset_t old;
	cli_signals_hold(&old);
	int rc = sv_write_atomic(path, write, payload, err);
	note_late(path, cli_signals_release(&old, rc == 0));
	return rc;
}

int cli_save(const sv_source *src, const char *path, const sv_export_opts *eo, sv_error *err)
{
	sigset_t old;
	cli_signals_hold(&old);
	int rc = sv_save(src, path, NULL, eo, err);
	note_late(path, cli_signals_release(&old, rc == 0));
	return rc;
}
