/* SPDX-License-Identifier: MIT */
/* Printing views as text (PerfView's grid), TSV and JSON (spec/cli.md). The rows come from
 * lib/; this file only formats them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "cli.h"
#include "stackview/rows.h"

/* A printable row: what every view hands to the writers. */
typedef struct prow {
	const char *name;
	sv_stats st;
	char when[SV_WHEN_LEN + 1];
	int depth;
} prow;

typedef enum col_id {
	C_NAME, C_EXC_PCT, C_EXC, C_EXC_CT, C_INC_PCT, C_INC, C_INC_CT, C_FOLD, C_FOLD_CT, C_WHEN, C_FIRST, C_LAST,
	C_COUNT
} col_id;

static const struct {
	const char *key, *title;
} cols[C_COUNT] = {
	{ "name", "Name" },   { "exc_pct", "Exc %" }, { "exc", "Exc" },     { "exc_count", "Exc Ct" },
	{ "inc_pct", "Inc %" }, { "inc", "Inc" },     { "inc_count", "Inc Ct" }, { "fold", "Fold" },
	{ "fold_count", "Fold Ct" }, { "when", "When" }, { "first", "First" }, { "last", "Last" },
};

static const col_id byname_cols[] = { C_NAME, C_EXC_PCT, C_EXC, C_EXC_CT, C_INC_PCT, C_INC, C_INC_CT,
				      C_FOLD, C_WHEN, C_FIRST, C_LAST };
static const col_id tree_cols[] = { C_NAME, C_INC_PCT, C_INC, C_INC_CT, C_EXC_PCT, C_EXC, C_EXC_CT,
				    C_FOLD, C_WHEN, C_FIRST, C_LAST };

typedef struct colset {
	col_id c[C_COUNT];
	int n;
} colset;

static void pick_columns(colset *cs, const cli_opts *o, const col_id *dflt, int ndflt)
{
	cs->n = 0;
	if (o->columns) {
		char buf[512];
		snprintf(buf, sizeof(buf), "%s", o->columns);
		for (char *tok = strtok(buf, ","); tok && cs->n < C_COUNT; tok = strtok(NULL, ",")) {
			while (*tok == ' ')
				tok++;
			for (int i = 0; i < C_COUNT; i++)
				if (strcmp(cols[i].key, tok) == 0)
					cs->c[cs->n++] = (col_id)i;
		}
		if (cs->n)
			return;
	}
	for (int i = 0; i < ndflt; i++)
		cs->c[cs->n++] = dflt[i];
}

static double pct(double v, double basis)
{
	return basis != 0 ? v * 100.0 / basis : 0;
}

static double fin(double d)
{
	return isfinite(d) ? d : 0;
}

static void cell(char *buf, size_t size, col_id c, const prow *r, double basis)
{
	switch (c) {
	case C_NAME: snprintf(buf, size, "%s", r->name); break;
	case C_EXC_PCT: sv_format_number(buf, size, pct(r->st.exc, basis), 1); break;
	case C_EXC: sv_format_number(buf, size, r->st.exc, 1); break;
	case C_EXC_CT: sv_format_number(buf, size, r->st.exc_ct, 0); break;
	case C_INC_PCT: sv_format_number(buf, size, pct(r->st.inc, basis), 1); break;
	case C_INC: sv_format_number(buf, size, r->st.inc, 1); break;
	case C_INC_CT: sv_format_number(buf, size, r->st.inc_ct, 0); break;
	case C_FOLD: sv_format_number(buf, size, r->st.fold, 0); break;
	case C_FOLD_CT: sv_format_number(buf, size, r->st.fold_ct, 0); break;
	case C_WHEN: snprintf(buf, size, "%s", r->when); break;
	case C_FIRST: sv_format_number(buf, size, fin(r->st.first), 3); break;
	case C_LAST: sv_format_number(buf, size, fin(r->st.last), 3); break;
	default: buf[0] = '\0';
	}
}

/* Display width of UTF-8 text (wcwidth); invalid bytes count 1. */
static int text_width(const char *s)
{
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	int w = 0;
	size_t len = strlen(s);
	while (len) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s, len, &st);
		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			memset(&st, 0, sizeof(st));
			w++;
			s++;
			len--;
			continue;
		}
		int cw = wcwidth(wc);
		w += cw > 0 ? cw : 0;
		s += k;
		len -= k;
	}
	return w;
}

static void print_rows(FILE *f, const prow *rows, size_t n, const colset *cs, double basis, const cli_opts *o)
{
	char buf[1024];
	if (o->out == OUT_TSV) {
		for (int i = 0; i < cs->n; i++)
			fprintf(f, "%s%s", i ? "\t" : "", cols[cs->c[i]].title);
		fputc('\n', f);
		for (size_t r = 0; r < n; r++) {
			for (int i = 0; i < cs->n; i++) {
				if (cs->c[i] == C_NAME) {
					snprintf(buf, sizeof(buf), "%s", rows[r].name);
					for (char *p = buf; *p; p++)
						if (*p == '\t' || *p == '\n')
							*p = ' ';
				} else {
					cell(buf, sizeof(buf), cs->c[i], &rows[r], basis);
					/* TSV is for machines: no thousands separators. */
					char *w = buf;
					for (char *p = buf; *p; p++)
						if (*p != ',')
							*w++ = *p;
					*w = '\0';
				}
				fprintf(f, "%s%s", i ? "\t" : "", buf);
			}
			fputc('\n', f);
		}
		return;
	}
	int width[C_COUNT] = { 0 };
	for (int i = 0; i < cs->n; i++)
		width[i] = text_width(cols[cs->c[i]].title);
	for (size_t r = 0; r < n; r++)
		for (int i = 0; i < cs->n; i++) {
			int w;
			if (cs->c[i] == C_NAME) {
				w = text_width(rows[r].name) + 2 * rows[r].depth + (rows[r].depth ? 2 : 0);
			} else {
				cell(buf, sizeof(buf), cs->c[i], &rows[r], basis);
				w = (int)strlen(buf);
			}
			if (w > width[i])
				width[i] = w;
		}
	for (int i = 0; i < cs->n; i++) {
		const char *t = cols[cs->c[i]].title;
		if (cs->c[i] == C_NAME || cs->c[i] == C_WHEN)
			fprintf(f, "%s%s%*s", i ? "  " : "", t, width[i] - text_width(t), "");
		else
			fprintf(f, "%s%*s", i ? "  " : "", width[i], t);
	}
	fputc('\n', f);
	for (size_t r = 0; r < n; r++) {
		for (int i = 0; i < cs->n; i++) {
			if (cs->c[i] == C_NAME) {
				int pad = 2 * rows[r].depth;
				int w = text_width(rows[r].name) + pad + (rows[r].depth ? 2 : 0);
				fprintf(f, "%s%*s%s%s%*s", i ? "  " : "", pad, "", rows[r].depth ? "+ " : "", rows[r].name,
					width[i] - w, "");
			} else {
				cell(buf, sizeof(buf), cs->c[i], &rows[r], basis);
				if (cs->c[i] == C_WHEN)
					fprintf(f, "%s%-*s", i ? "  " : "", width[i], buf);
				else
					fprintf(f, "%s%*s", i ? "  " : "", width[i], buf);
			}
		}
		fputc('\n', f);
	}
}

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
	jw_key(w, "scaling"); jw_str(w, s.scaling == SV_SCALING_TIME ? "time" : "data");
	jw_end_obj(w);
}

/* Row fields, without the braces (so nodes can add "children"). */
static void json_row_fields(jw *w, const prow *r, double basis)
{
	jw_key(w, "name"); jw_str(w, r->name);
	jw_key(w, "exc"); jw_num(w, r->st.exc);
	jw_key(w, "exc_pct"); jw_num(w, pct(r->st.exc, basis));
	jw_key(w, "exc_count"); jw_num(w, r->st.exc_ct);
	jw_key(w, "inc"); jw_num(w, r->st.inc);
	jw_key(w, "inc_pct"); jw_num(w, pct(r->st.inc, basis));
	jw_key(w, "inc_count"); jw_num(w, r->st.inc_ct);
	jw_key(w, "fold"); jw_num(w, r->st.fold);
	jw_key(w, "fold_count"); jw_num(w, r->st.fold_ct);
	jw_key(w, "first"); jw_num(w, fin(r->st.first));
	jw_key(w, "last"); jw_num(w, fin(r->st.last));
	jw_key(w, "when"); jw_str(w, r->when);
}

static double basis_of(const sv_view *v)
{
	return fabs(sv_view_node_stats(v, SV_NODE_ROOT)->inc);
}

static void summary_text(FILE *f, sv_view *v)
{
	char line[512];
	sv_view_summary_line(line, sizeof(line), v);
	fprintf(f, "%s\n\n", line);
}

/* ---- ByName ---- */

void out_byname(FILE *f, sv_view *v, const cli_opts *o)
{
	sv_rows rl;
	if (sv_rows_byname(&rl, v, o->top > 0 ? (size_t)o->top : 0))
		return;
	uint32_t n = (uint32_t)(o->top == 0 ? 0 : rl.n);
	prow *rows = calloc(n + 1, sizeof(*rows));
	if (!rows) {
		sv_rows_dispose(&rl);
		return;
	}
	for (uint32_t r = 0; r < n; r++) {
		rows[r].name = sv_view_name(v, rl.row[r].name);
		rows[r].st = *rl.row[r].st;
		if (sv_view_byname_when(rows[r].when, v, rl.row[r].id))
			rows[r].when[0] = '\0';
	}
	sv_rows_dispose(&rl);
	double basis = basis_of(v);
	if (o->out == OUT_JSON) {
		jw w = { .f = f };
		jw_begin_obj(&w);
		json_summary(&w, v);
		jw_key(&w, "rows");
		jw_begin_arr(&w);
		for (uint32_t r = 0; r < n; r++) {
			jw_begin_obj(&w);
			json_row_fields(&w, &rows[r], basis);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_end_obj(&w);
		fputc('\n', f);
	} else {
		colset cs;
		pick_columns(&cs, o, byname_cols, sizeof(byname_cols) / sizeof(byname_cols[0]));
		if (o->out == OUT_TEXT)
			summary_text(f, v);
		print_rows(f, rows, n, &cs, basis, o);
	}
	free(rows);
}

/* ---- call tree ---- */

static void tree_prow(prow *r, sv_view *v, sv_node_id n, int depth)
{
	r->name = sv_view_name(v, sv_view_node_name(v, n));
	r->st = *sv_view_node_stats(v, n);
	r->depth = depth;
	if (sv_view_node_when(r->when, v, n))
		r->when[0] = '\0';
}

static void json_tree(jw *w, sv_view *v, sv_node_id n, int depth, long maxdepth, double basis)
{
	prow r;
	tree_prow(&r, v, n, depth);
	jw_begin_obj(w);
	json_row_fields(w, &r, basis);
	jw_key(w, "children");
	jw_begin_arr(w);
	if (maxdepth < 0 || depth < maxdepth) {
		const sv_node_id *kids;
		uint32_t nk = sv_view_node_children(v, n, &kids);
		for (uint32_t i = 0; i < nk; i++)
			json_tree(w, v, kids[i], depth + 1, maxdepth, basis);
	}
	jw_end_arr(w);
	jw_end_obj(w);
}

void out_calltree(FILE *f, sv_view *v, const cli_opts *o)
{
	double basis = basis_of(v);
	if (o->out == OUT_JSON) {
		jw w = { .f = f };
		jw_begin_obj(&w);
		json_summary(&w, v);
		jw_key(&w, "tree");
		json_tree(&w, v, SV_NODE_ROOT, 0, o->depth, basis);
		jw_end_obj(&w);
		fputc('\n', f);
		return;
	}
	sv_rows rl;
	if (sv_rows_calltree(&rl, v, NULL, (int)o->depth))
		return;
	prow *rows = calloc(rl.n + 1, sizeof(*rows));
	for (size_t i = 0; rows && i < rl.n; i++)
		tree_prow(&rows[i], v, rl.row[i].id, (int)rl.row[i].depth);
	colset cs;
	pick_columns(&cs, o, tree_cols, sizeof(tree_cols) / sizeof(tree_cols[0]));
	if (o->out == OUT_TEXT)
		summary_text(f, v);
	if (rows)
		print_rows(f, rows, rl.n, &cs, basis, o);
	free(rows);
	sv_rows_dispose(&rl);
}

/* ---- callers / callees ---- */

static void agg_prow(prow *r, sv_view *v, const sv_aggtree *t, uint32_t row, int depth)
{
	const sv_aggrow *a = sv_aggtree_row(t, row);
	r->name = sv_view_name(v, a->name);
	r->st = a->st;
	r->depth = depth;
	sv_when_encode(r->when, a->hist, sv_aggtree_scale(t));
}

static void json_agg(jw *w, sv_view *v, const sv_aggtree *t, uint32_t row, int depth, long maxdepth, double basis)
{
	prow r;
	agg_prow(&r, v, t, row, depth);
	jw_begin_obj(w);
	json_row_fields(w, &r, basis);
	jw_key(w, "children");
	jw_begin_arr(w);
	if (maxdepth < 0 || depth < maxdepth) {
		const uint32_t *kids;
		uint32_t nk = sv_aggtree_children(t, row, &kids);
		for (uint32_t i = 0; i < nk; i++)
			json_agg(w, v, t, kids[i], depth + 1, maxdepth, basis);
	}
	jw_end_arr(w);
	jw_end_obj(w);
}

void out_aggtree(FILE *f, sv_view *v, const sv_aggtree *t, const cli_opts *o)
{
	double basis = basis_of(v);
	if (o->out == OUT_JSON) {
		jw w = { .f = f };
		jw_begin_obj(&w);
		json_summary(&w, v);
		jw_key(&w, "focus");
		jw_str(&w, sv_view_name(v, sv_aggtree_row(t, 0)->name));
		jw_key(&w, "tree");
		json_agg(&w, v, t, 0, 0, o->depth, basis);
		jw_end_obj(&w);
		fputc('\n', f);
		return;
	}
	sv_rows rl;
	if (sv_rows_aggtree(&rl, t, NULL, (int)o->depth))
		return;
	prow *rows = calloc(rl.n + 1, sizeof(*rows));
	for (size_t i = 0; rows && i < rl.n; i++)
		agg_prow(&rows[i], v, t, rl.row[i].id, (int)rl.row[i].depth);
	colset cs;
	pick_columns(&cs, o, tree_cols, sizeof(tree_cols) / sizeof(tree_cols[0]));
	if (o->out == OUT_TEXT)
		summary_text(f, v);
	if (rows)
		print_rows(f, rows, rl.n, &cs, basis, o);
	free(rows);
	sv_rows_dispose(&rl);
}

/* ---- caller-callee ---- */

static void cc_prow(prow *r, sv_view *v, const sv_aggrow *a, double scale, int depth)
{
	r->name = sv_view_name(v, a->name);
	r->st = a->st;
	r->depth = depth;
	sv_when_encode(r->when, a->hist, scale);
}

void out_callercallee(FILE *f, sv_view *v, const sv_callercallee *cc, const cli_opts *o)
{
	double basis = basis_of(v);
	prow fr;
	cc_prow(&fr, v, &cc->focus, cc->scale, 0);
	if (o->out == OUT_JSON) {
		jw w = { .f = f };
		jw_begin_obj(&w);
		json_summary(&w, v);
		jw_key(&w, "focus");
		jw_begin_obj(&w);
		json_row_fields(&w, &fr, basis);
		jw_end_obj(&w);
		for (int side = 0; side < 2; side++) {
			jw_key(&w, side ? "callees" : "callers");
			jw_begin_arr(&w);
			uint32_t n = side ? cc->ncallees : cc->ncallers;
			for (uint32_t i = 0; i < n; i++) {
				prow r;
				cc_prow(&r, v, side ? &cc->callees[i] : &cc->callers[i], cc->scale, 0);
				jw_begin_obj(&w);
				json_row_fields(&w, &r, basis);
				jw_end_obj(&w);
			}
			jw_end_arr(&w);
		}
		jw_end_obj(&w);
		fputc('\n', f);
		return;
	}
	colset cs;
	pick_columns(&cs, o, tree_cols, sizeof(tree_cols) / sizeof(tree_cols[0]));
	if (o->out == OUT_TEXT)
		summary_text(f, v);
	/* One grid, like PerfView's three panes stacked: callers, the focus, callees. */
	size_t n = 1 + cc->ncallers + cc->ncallees;
	prow *rows = calloc(n, sizeof(*rows));
	if (!rows)
		return;
	size_t k = 0;
	for (uint32_t i = 0; i < cc->ncallers; i++) {
		cc_prow(&rows[k], v, &cc->callers[i], cc->scale, 0);
		k++;
	}
	rows[k++] = fr;
	for (uint32_t i = 0; i < cc->ncallees; i++) {
		cc_prow(&rows[k], v, &cc->callees[i], cc->scale, 1);
		k++;
	}
	if (o->out == OUT_TEXT)
		fprintf(f, "Callers (%u), focus, callees (%u, indented):\n", cc->ncallers, cc->ncallees);
	print_rows(f, rows, n, &cs, basis, o);
	free(rows);
}
