/* SPDX-License-Identifier: MIT */
/* stackview explain FILE --name NAME [FILTER...]: how a row's Inc and Exc arise. The boxes are
 * added one at a time in the pipeline's order (spec §0: time range, grouping, exclusion,
 * folding, inclusion, Fold%) and the row's numbers shown after each; then what each box did
 * to it (the frames grouped into it, the entries that removed its samples, the callees folded
 * into its Exc) and the heaviest stacks through it and ending in it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stackview/aggview.h"
#include "stackview/pattern.h"

/* How many frames, entries and stacks each part lists. */
#define EXPLAIN_LIST 8

typedef struct stage {
	const char *label;
	int boxes[2]; /* the boxes this stage adds (-1 = none) */
} stage;

static const stage stages[] = {
	{ "no boxes", { -1, -1 } },
	{ "+ Start/End", { SV_BOX_START, SV_BOX_END } },
	{ "+ GroupPats", { SV_BOX_GROUP, -1 } },
	{ "+ ExcPats", { SV_BOX_EXC, -1 } },
	{ "+ FoldPats", { SV_BOX_FOLD, -1 } },
	{ "+ IncPats", { SV_BOX_INC, -1 } },
	{ "+ Fold%", { SV_BOX_FOLD_PCT, -1 } },
};
#define NSTAGES (sizeof(stages) / sizeof(stages[0]))

typedef struct row_nums {
	bool found;
	double inc, exc, inc_ct, basis;
} row_nums;

static row_nums nums_of(sv_view *v, const char *name)
{
	row_nums r = { .basis = sv_grid_basis(v) };
	sv_name_id id = sv_view_name_find(v, name);
	uint32_t b = id == SV_NAME_NONE ? UINT32_MAX : sv_view_byname_find(v, id);
	if (b == UINT32_MAX)
		return r;
	const sv_stats *st = sv_view_byname_stats(v, b);
	r.found = true;
	r.inc = st->inc;
	r.exc = st->exc;
	r.inc_ct = st->inc_ct;
	return r;
}

static void num(char *buf, size_t size, double v, int decimals)
{
	sv_format_number(buf, size, v, decimals);
}

/* The stage's parameters: the final boxes up to and including stage k. */
static int stage_params(sv_params *out, const sv_params *final, size_t k)
{
	if (sv_params_init(out))
		return SV_ENOMEM;
	for (size_t s = 1; s <= k; s++)
		for (int j = 0; j < 2; j++)
			if (stages[s].boxes[j] >= 0 &&
			    sv_params_set(out, (sv_box)stages[s].boxes[j], sv_params_get(final, (sv_box)stages[s].boxes[j])))
				return SV_ENOMEM;
	return 0;
}

static bool stage_used(const sv_params *p, size_t k)
{
	for (int j = 0; j < 2; j++)
		if (stages[k].boxes[j] >= 0 && sv_params_get(p, (sv_box)stages[k].boxes[j])[0])
			return true;
	return false;
}

/* GroupPats: the frames of the source that group into the name. */
static void explain_group(const sv_source *src, const sv_params *p, const char *name)
{
	sv_grouppats *g;
	if (sv_grouppats_new(&g, sv_params_get(p, SV_BOX_GROUP), NULL))
		return;
	size_t n = 0;
	bool self = false;
	for (uint32_t f = 0; f < sv_source_frame_count(src); f++) {
		const char *fn = sv_source_frame_name(src, f);
		char *grp = NULL;
		int k = sv_grouppats_eval(&grp, g, fn, strlen(fn));
		if (k > 0 && grp && !strcmp(grp, name)) {
			if (n < EXPLAIN_LIST)
				printf("    %s\n", fn);
			n++;
		} else if (k == SV_GROUP_NONE && !strcmp(fn, name)) {
			self = true;
		}
		free(grp);
	}
	if (n > EXPLAIN_LIST)
		printf("    ... %zu frames in all\n", n);
	if (!n)
		printf("    none: %s\n", self ? "the name is a frame of its own, left ungrouped" : "no frame groups into it");
	sv_grouppats_free(g);
}

/* ExcPats / IncPats: what each entry alone, on top of the earlier stages, does to the Inc. */
static void explain_entries(const sv_source *src, const sv_params *before, sv_box box, const char *text,
			    const char *name, double inc_before)
{
	const char *s = text;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '[' && strchr(s, ']')) /* a leading [comment] */
		s = strchr(s, ']') + 1;
	size_t shown = 0;
	for (const char *a = s, *z; *a; a = *z ? z + 1 : z) {
		z = a + strcspn(a, ";");
		while (a < z && (*a == ' ' || *a == '\t'))
			a++;
		const char *e = z;
		while (e > a && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (a == e)
			continue;
		char *one = strndup(a, (size_t)(e - a));
		sv_params p;
		sv_view *v = NULL;
		if (one && !sv_params_copy(&p, before)) {
			if (!sv_params_set(&p, box, one) && !sv_view_new(&v, src, &p, NULL)) {
				row_nums r = nums_of(v, name);
				char d[64];
				num(d, sizeof(d), inc_before - r.inc, 1);
				if (shown++ < EXPLAIN_LIST)
					printf("    %-40s %s %s of its Inc\n", one, box == SV_BOX_EXC ? "removes" : "leaves out", d);
			}
			sv_params_dispose(&p);
		}
		sv_view_free(v);
		free(one);
	}
}

/* FoldPats: the callees of the name (before folding) that the patterns fold into it. */
static void explain_fold(sv_view *before, const char *fold, const char *name)
{
	sv_patlist *l;
	sv_name_id id = sv_view_name_find(before, name);
	sv_aggtree *t;
	if (id == SV_NAME_NONE || sv_patlist_new(&l, fold, "FoldPats", NULL))
		return;
	if (sv_aggtree_new(&t, before, SV_AGG_CALLEES, id)) {
		sv_patlist_free(l);
		return;
	}
	const uint32_t *kids;
	uint32_t nk = sv_aggtree_children(t, 0, &kids);
	size_t n = 0;
	for (uint32_t k = 0; k < nk; k++) {
		const sv_aggrow *r = sv_aggtree_row(t, kids[k]);
		const char *cn = sv_view_name(before, r->name);
		if (!sv_patlist_match_any(l, cn, strlen(cn)))
			continue;
		char d[64];
		num(d, sizeof(d), r->st.inc, 1);
		if (n++ < EXPLAIN_LIST)
			printf("    %-40s %s into its Exc\n", cn, d);
	}
	if (!n)
		printf("    none of its callees matches\n");
	sv_aggtree_free(t);
	sv_patlist_free(l);
}

typedef struct node_w {
	sv_node_id n;
	double w;
} node_w;

static int nw_cmp(const void *a, const void *b)
{
	const node_w *x = a, *y = b;
	if (fabs(x->w) != fabs(y->w))
		return fabs(x->w) > fabs(y->w) ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* A node's path from ROOT, long ones shortened in the middle. */
static void print_path(sv_view *v, sv_node_id n)
{
	size_t depth = 0;
	for (sv_node_id x = n; x != SV_NODE_ROOT; x = sv_view_node_parent(v, x))
		depth++;
	sv_node_id *path = malloc((depth + 1) * sizeof(*path));
	if (!path)
		return;
	size_t k = depth;
	for (sv_node_id x = n; x != SV_NODE_ROOT; x = sv_view_node_parent(v, x))
		path[--k] = x;
	for (size_t i = 0; i < depth; i++) {
		if (depth > 8 && i == 3) {
			printf(" > ... (%zu frames)", depth - 7);
			i = depth - 5;
		}
		printf("%s%s", i ? " > " : "", sv_view_name(v, sv_view_node_name(v, path[i])));
	}
	putchar('\n');
	free(path);
}

static void top_stacks(sv_view *v, const char *name, bool exclusive)
{
	sv_name_id id = sv_view_name_find(v, name);
	if (id == SV_NAME_NONE)
		return;
	size_t n = 0;
	node_w *a = malloc((sv_view_node_count(v) + 1) * sizeof(*a));
	if (!a)
		return;
	for (sv_node_id x = 1; x < sv_view_node_count(v); x++)
		if (sv_view_node_alive(v, x) && sv_view_node_name(v, x) == id) {
			sv_stats st = sv_view_node_stats(v, x);
			double w = exclusive ? st.exc : st.inc;
			if (w != 0)
				a[n++] = (node_w){ x, w };
		}
	qsort(a, n, sizeof(*a), nw_cmp);
	double basis = sv_grid_basis(v);
	printf("\nThe heaviest stacks %s it (%s), of %zu:\n", exclusive ? "ending in" : "through", exclusive ? "Exc" : "Inc",
	       n);
	for (size_t i = 0; i < n && i < EXPLAIN_LIST; i++) {
		char w[64], pct[64];
		num(w, sizeof(w), a[i].w, 1);
		num(pct, sizeof(pct), basis != 0 ? a[i].w * 100 / basis : 0, 1);
		printf("  %12s %6s %%  ", w, pct);
		print_path(v, a[i].n);
	}
	free(a);
}

int cmd_explain(const cli_opts *o)
{
	sv_source *src;
	sv_view *fv;
	sv_params fp = { 0 };
	int rc = cli_open_view(o, &src, &fp, &fv);
	if (rc)
		return rc;
	const char *name = o->name;
	row_nums fin = nums_of(fv, name);
	if (!fin.found) {
		cli_name_not_found(fv, "--name", name);
		rc = EXIT_USAGE;
		goto out;
	}
	printf("How %s gets its numbers in %s\n\nBoxes:", name, o->files[0]);
	bool any = false;
	for (int b = 0; b < SV_BOX_COUNT; b++)
		if (sv_params_get(&fp, (sv_box)b)[0]) {
			printf("\n  %-9s %s", sv_box_name((sv_box)b), sv_params_get(&fp, (sv_box)b));
			any = true;
		}
	printf("%s\n\n", any ? "" : " none");
	printf("%-14s  %12s  %12s  %10s  %7s\n", "Stage", "Inc", "Exc", "Inc Ct", "Inc %");
	sv_view *prev = NULL;
	row_nums before = { 0 };
	for (size_t k = 0; k < NSTAGES; k++) {
		if (k && !stage_used(&fp, k))
			continue;
		sv_params sp;
		sv_view *sv = NULL;
		if (stage_params(&sp, &fp, k) || sv_view_new(&sv, src, &sp, NULL)) {
			sv_params_dispose(&sp);
			rc = EXIT_INPUT;
			goto stages_out;
		}
		row_nums r = nums_of(sv, name);
		char inc[64], exc[64], ct[64], pct[64];
		if (r.found) {
			num(inc, sizeof(inc), r.inc, 1);
			num(exc, sizeof(exc), r.exc, 1);
			num(ct, sizeof(ct), r.inc_ct, 0);
			num(pct, sizeof(pct), r.basis != 0 ? r.inc * 100 / r.basis : 0, 1);
			printf("%-14s  %12s  %12s  %10s  %7s\n", stages[k].label, inc, exc, ct, pct);
		} else {
			printf("%-14s  %12s  (no such row yet)\n", stages[k].label, "-");
		}
		/* what this stage did to the row */
		sv_box b0 = (sv_box)stages[k].boxes[0];
		if (k == 0) {
			;
		} else if (b0 == SV_BOX_GROUP) {
			printf("    frames grouped into it:\n");
			explain_group(src, &fp, name);
		} else if (b0 == SV_BOX_EXC || b0 == SV_BOX_INC) {
			sv_params pb;
			if (!stage_params(&pb, &fp, k - 1))
				explain_entries(src, &pb, b0, sv_params_get(&fp, b0), name, before.inc);
			sv_params_dispose(&pb);
		} else if (b0 == SV_BOX_FOLD && prev) {
			printf("    callees folded into it:\n");
			explain_fold(prev, sv_params_get(&fp, SV_BOX_FOLD), name);
		} else if (b0 == SV_BOX_FOLD_PCT && r.found) {
			char d[64];
			num(d, sizeof(d), r.exc - before.exc, 1);
			printf("    small callees folded into its Exc: %s\n", d);
		} else if (b0 == SV_BOX_START && before.found) {
			char d[64];
			num(d, sizeof(d), before.inc - r.inc, 1);
			printf("    outside the time range: %s of its Inc\n", d);
		}
		sv_params_dispose(&sp);
		sv_view_free(prev);
		prev = sv;
		before = r;
	}
	top_stacks(fv, name, false);
	top_stacks(fv, name, true);
stages_out:
	sv_view_free(prev);
	if (!rc)
		rc = cli_finish_output(stdout);
out:
	sv_view_free(fv);
	sv_params_dispose(&fp);
	sv_source_free(src);
	return rc;
}
