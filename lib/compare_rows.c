/* SPDX-License-Identifier: MIT */
/* Several runs per side (stackview/compare.h): each row's numbers in every run (the same
 * row found by its path in each run's view), and the names that did not line up. */
#include "stackview/compare.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stackview/pattern.h"
#include "strtab_int.h"
#include "sv/boxtext.h"
#include "sv/copier.h"
#include "compare_int.h"

/* ---- rows ---- */

#define NONE UINT32_MAX

/* The child of node n of run view rv named `name` (a display name), or NONE. */
static uint32_t tree_child(sv_view *rv, uint32_t n, const char *name)
{
	if (n == NONE)
		return NONE;
	sv_name_id id = sv_view_name_find(rv, name);
	if (id == SV_NAME_NONE)
		return NONE;
	const sv_node_id *kids;
	uint32_t nk = sv_view_node_children(rv, n, &kids);
	for (uint32_t k = 0; k < nk; k++)
		if (sv_view_node_name(rv, kids[k]) == id)
			return kids[k];
	return NONE;
}

static uint32_t agg_child(const sv_aggtree *t, sv_view *rv, uint32_t row, const char *name)
{
	if (row == NONE || !t)
		return NONE;
	sv_name_id id = sv_view_name_find(rv, name);
	if (id == SV_NAME_NONE)
		return NONE;
	const uint32_t *kids;
	uint32_t nk = sv_aggtree_children(t, row, &kids);
	for (uint32_t k = 0; k < nk; k++)
		if (sv_aggtree_row(t, kids[k])->name == id)
			return kids[k];
	return NONE;
}

/* Each run's Callers / Callees tree or Caller-Callee for this focus (kept until the focus,
 * the kind or the parameters change). A run without the focus gets none. */
static int need_agg(sv_compare *c, sv_agg_kind kind, const char *focus)
{
	if (c->agg_focus && c->agg_kind == kind && !strcmp(c->agg_focus, focus))
		return 0;
	for (size_t r = 0; r < c->nruns; r++) {
		sv_aggtree_free(c->agg[r]);
		c->agg[r] = NULL;
	}
	free(c->agg_focus);
	c->agg_focus = NULL;
	for (size_t r = 0; r < c->nruns; r++) {
		if (sv_view_byname_prepare(c->views[r]))
			return SV_ENOMEM;
		sv_name_id id = sv_view_name_find(c->views[r], focus);
		if (id == SV_NAME_NONE || sv_view_byname_find(c->views[r], id) == UINT32_MAX)
			continue;
		int rc = sv_aggtree_new(&c->agg[r], c->views[r], kind, id);
		if (rc == SV_ENOTFOUND)
			c->agg[r] = NULL;
		else if (rc)
			return rc;
	}
	c->agg_kind = kind;
	c->agg_focus = strdup(focus);
	return c->agg_focus ? 0 : SV_ENOMEM;
}

static int need_cc(sv_compare *c, const char *focus)
{
	if (c->cc_focus && !strcmp(c->cc_focus, focus))
		return 0;
	for (size_t r = 0; r < c->nruns; r++) {
		sv_callercallee_free(c->cc[r]);
		c->cc[r] = NULL;
	}
	free(c->cc_focus);
	c->cc_focus = NULL;
	for (size_t r = 0; r < c->nruns; r++) {
		int rc = sv_callercallee_new(&c->cc[r], c->views[r], focus);
		if (rc)
			return rc;
		/* a run without the focus falls back to ROOT: it has none of these rows */
		if (strcmp(sv_view_name(c->views[r], c->cc[r]->focus.name), focus)) {
			sv_callercallee_free(c->cc[r]);
			c->cc[r] = NULL;
		}
	}
	c->cc_focus = strdup(focus);
	return c->cc_focus ? 0 : SV_ENOMEM;
}

static double cc_value(const sv_callercallee *cc, sv_view *rv, sv_row_role role, const char *name)
{
	if (!cc)
		return 0;
	if (role == SV_ROLE_FOCUS)
		return cc->focus.st.inc;
	sv_name_id id = sv_view_name_find(rv, name);
	const sv_aggrow *a = role == SV_ROLE_CALLER ? cc->callers : cc->callees;
	uint32_t n = role == SV_ROLE_CALLER ? cc->ncallers : cc->ncallees;
	for (uint32_t i = 0; id != SV_NAME_NONE && i < n; i++)
		if (a[i].name == id)
			return a[i].st.inc;
	return 0;
}

/* The run's node for a call tree row found by its path from ROOT. */
static uint32_t tree_path(sv_view *v, sv_node_id n, sv_view *rv)
{
	size_t depth = 0;
	for (sv_node_id x = n; x != SV_NODE_ROOT; x = sv_view_node_parent(v, x))
		depth++;
	sv_node_id *path = malloc((depth + 1) * sizeof(*path));
	if (!path)
		return NONE;
	size_t k = depth;
	for (sv_node_id x = n; x != SV_NODE_ROOT; x = sv_view_node_parent(v, x))
		path[--k] = x;
	uint32_t m = SV_NODE_ROOT;
	for (size_t i = 0; i < depth && m != NONE; i++)
		m = tree_child(rv, m, sv_view_name(v, sv_view_node_name(v, path[i])));
	free(path);
	return m;
}

static uint32_t agg_path(const sv_aggtree *t, sv_view *v, uint32_t row, const sv_aggtree *rt, sv_view *rv)
{
	if (!rt)
		return NONE;
	size_t depth = 0;
	for (uint32_t x = row; sv_aggtree_row(t, x)->parent != UINT32_MAX; x = sv_aggtree_row(t, x)->parent)
		depth++;
	uint32_t *path = malloc((depth + 1) * sizeof(*path));
	if (!path)
		return NONE;
	size_t k = depth;
	for (uint32_t x = row; sv_aggtree_row(t, x)->parent != UINT32_MAX; x = sv_aggtree_row(t, x)->parent)
		path[--k] = x;
	uint32_t m = 0;
	for (size_t i = 0; i < depth && m != NONE; i++)
		m = agg_child(rt, rv, m, sv_view_name(v, sv_aggtree_row(t, path[i])->name));
	free(path);
	return m;
}

int sv_compare_rows(sv_compare *c, sv_view *v, sv_rows *rows)
{
	free(rows->cmpbuf);
	rows->cmpbuf = NULL;
	for (size_t i = 0; i < rows->n; i++)
		rows->row[i].cmp = NULL;
	if (!c->have_params || !rows->n)
		return 0;
	size_t nr = c->nruns;
	for (size_t r = 0; r < nr && rows->kind == SV_ROWS_BYNAME; r++)
		if (sv_view_byname_prepare(c->views[r]))
			return SV_ENOMEM;
	sv_cmpstat *buf = calloc(rows->n, sizeof(*buf));
	double *vals = malloc(nr * sizeof(double));
	/* per depth, each run's node / row for the last row seen at that depth */
	uint32_t maxd = 0;
	for (size_t i = 0; i < rows->n; i++)
		if (rows->row[i].depth > maxd)
			maxd = rows->row[i].depth;
	uint32_t *at = malloc(((size_t)maxd + 1) * nr * sizeof(uint32_t));
	if (!buf || !vals || !at) {
		free(buf);
		free(vals);
		free(at);
		return SV_ENOMEM;
	}
	int rc = 0;
	const char *focus = NULL;
	if (rows->kind == SV_ROWS_AGGTREE)
		focus = sv_view_name(v, sv_aggtree_row(rows->agg, 0)->name);
	else if (rows->kind == SV_ROWS_CALLERCALLEE)
		focus = sv_view_name(v, rows->cc->focus.name);
	if (rows->kind == SV_ROWS_AGGTREE)
		rc = need_agg(c, sv_aggtree_kind(rows->agg), focus);
	else if (rows->kind == SV_ROWS_CALLERCALLEE)
		rc = need_cc(c, focus);
	for (size_t i = 0; i < rows->n && !rc; i++) {
		sv_row *row = &rows->row[i];
		const char *name = sv_view_name(v, row->name);
		uint32_t d = row->depth;
		for (size_t r = 0; r < nr; r++) {
			sv_view *rv = c->views[r];
			uint32_t m = NONE;
			double val = 0;
			switch (rows->kind) {
			case SV_ROWS_CALLTREE:
				m = d == 0 || i == 0 ? tree_path(v, row->id, rv) : tree_child(rv, at[(d - 1) * nr + r], name);
				if (m != NONE)
					val = sv_view_node_stats(rv, m).inc;
				break;
			case SV_ROWS_AGGTREE:
				m = d == 0 || i == 0 ? agg_path(rows->agg, v, row->id, c->agg[r], rv)
						     : agg_child(c->agg[r], rv, at[(d - 1) * nr + r], name);
				if (m != NONE)
					val = sv_aggtree_row(c->agg[r], m)->st.inc;
				break;
			case SV_ROWS_BYNAME: {
				sv_name_id id = sv_view_name_find(rv, name);
				uint32_t br = id == SV_NAME_NONE ? UINT32_MAX : sv_view_byname_find(rv, id);
				if (br != UINT32_MAX)
					val = sv_view_byname_stats(rv, br)->inc;
				break;
			}
			case SV_ROWS_CALLERCALLEE:
				val = cc_value(c->cc[r], rv, row->role, name);
				break;
			}
			at[(size_t)d * nr + r] = m;
			vals[r] = val;
		}
		sv_compare_stats(&buf[i], vals, c->nbase, vals + c->nbase, c->ntest, c->welch);
		row->cmp = &buf[i];
	}
	free(vals);
	free(at);
	if (rc) {
		for (size_t i = 0; i < rows->n; i++)
			rows->row[i].cmp = NULL;
		free(buf);
		return rc;
	}
	rows->cmpbuf = buf;
	return 0;
}

/* ---- what did not line up ---- */

static int unm_cmp(const void *a, const void *b)
{
	const sv_unmatched *x = a, *y = b;
	if (fabs(x->inc) != fabs(y->inc))
		return fabs(x->inc) > fabs(y->inc) ? -1 : 1;
	if (x->test != y->test)
		return x->test ? 1 : -1;
	return strcmp(x->name, y->name);
}

int sv_compare_unmatched(sv_compare *c, double min_share, sv_unmatched **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!c->have_params)
		return 0;
	strtab t;
	sv_strtab_init(&t);
	double *sum[2] = { NULL, NULL };
	size_t cap = 0;
	const char **first = NULL; /* a borrowed copy of each name, from a run view */
	int rc = 0;
	for (size_t r = 0; r < c->nruns && !rc; r++) {
		sv_view *rv = c->views[r];
		int side = r >= c->nbase;
		double w = 1.0 / (double)(side ? c->ntest : c->nbase);
		if ((rc = sv_view_byname_prepare(rv)))
			break;
		for (uint32_t b = 0; b < sv_view_byname_count(rv) && !rc; b++) {
			const sv_stats *st = sv_view_byname_stats(rv, b);
			if (st->inc == 0 && st->inc_ct == 0)
				continue;
			const char *nm = sv_view_name(rv, sv_view_byname_name(rv, b));
			uint32_t id;
			if ((rc = sv_strtab_intern(&t, &id, nm, strlen(nm))))
				break;
			if (id >= cap) {
				size_t ncap = cap ? cap * 2 : 256;
				while (ncap <= id)
					ncap *= 2;
				double *s0 = realloc(sum[0], ncap * sizeof(double)), *s1 = s0 ? realloc(sum[1], ncap * sizeof(double)) : NULL;
				if (s0)
					sum[0] = s0;
				if (s1)
					sum[1] = s1;
				const char **f = s1 ? realloc(first, ncap * sizeof(*first)) : NULL;
				if (!f) {
					rc = SV_ENOMEM;
					break;
				}
				first = f;
				for (size_t k = cap; k < ncap; k++) {
					sum[0][k] = sum[1][k] = NAN;
					first[k] = NULL;
				}
				cap = ncap;
			}
			if (isnan(sum[side][id]))
				sum[side][id] = 0;
			sum[side][id] += w * st->inc;
			if (!first[id])
				first[id] = nm;
		}
	}
	/* The programs (module, process, thread, or a frame's whole name when it has none), each
	 * weighed by its heaviest frame's mean Inc per side. */
	strtab pt;
	sv_strtab_init(&pt);
	double *pw[2] = { NULL, NULL };
	const char **pname = NULL;
	if (!rc && t.count) {
		pw[0] = malloc(t.count * sizeof(double));
		pw[1] = malloc(t.count * sizeof(double));
		pname = calloc(t.count, sizeof(*pname));
		if (!pw[0] || !pw[1] || !pname)
			rc = SV_ENOMEM;
	}
	for (uint32_t id = 0; !rc && id < t.count; id++) {
		const char *nm = first[id];
		if (!strcmp(nm, "ROOT"))
			continue;
		size_t off = 0, len = strlen(nm);
		(void)sv_cmp_program_span(nm, &off, &len);
		uint32_t pid;
		if ((rc = sv_strtab_intern(&pt, &pid, nm + off, len)))
			break;
		if (!pname[pid]) {
			pname[pid] = sv_strtab_str(&pt, pid);
			pw[0][pid] = pw[1][pid] = NAN;
		}
		for (int side = 0; side < 2; side++)
			if (!isnan(sum[side][id]) && (isnan(pw[side][pid]) || fabs(sum[side][id]) > fabs(pw[side][pid])))
				pw[side][pid] = sum[side][id];
	}
	sv_unmatched *u = NULL;
	size_t nu = 0;
	if (!rc && pt.count) {
		u = calloc(pt.count, sizeof(*u));
		if (!u)
			rc = SV_ENOMEM;
	}
	/* the sides' mean totals: a program under min_share of them is left out */
	double total[2] = { 0, 0 };
	for (size_t r = 0; r < c->nruns; r++) {
		int side = r >= c->nbase;
		total[side] += fabs(sv_view_node_stats(c->views[r], SV_NODE_ROOT).inc) / (double)(side ? c->ntest : c->nbase);
	}
	double floor_ = min_share * fmax(total[0], total[1]);
	for (uint32_t id = 0; !rc && id < pt.count; id++) {
		bool inb = !isnan(pw[0][id]), intest = !isnan(pw[1][id]);
		if (inb == intest || fabs(intest ? pw[1][id] : pw[0][id]) < floor_)
			continue;
		u[nu].name = pname[id];
		u[nu].inc = intest ? pw[1][id] : pw[0][id];
		u[nu].test = intest;
		nu++;
	}
	if (!rc)
		qsort(u, nu, sizeof(*u), unm_cmp);
	free(sum[0]);
	free(sum[1]);
	free(first);
	free(pw[0]);
	free(pw[1]);
	free(pname);
	sv_strtab_dispose(&t);
	if (rc) {
		free(u);
		sv_strtab_dispose(&pt);
		return rc;
	}
	/* the names live as long as the comparison's report storage */
	sv_strtab_dispose(&c->report);
	c->report = pt;
	*out = u;
	*n = nu;
	return 0;
}
