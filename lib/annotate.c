/* SPDX-License-Identifier: MIT */
/* A function's cost address by address (stackview/annotate.h). */
#include "stackview/annotate.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

bool sv_frame_is(const sv_source *src, sv_frame_id f, const char *name)
{
	const char *full = sv_source_frame_name(src, f);
	if (!strcmp(full, name) || !strcmp(sv_source_frame_short(src, f), name))
		return true;
	const char *bang = strchr(full, '!');
	return bang && !strcmp(bang + 1, name);
}

static int by_function(const void *a, const void *b, void *payload)
{
	const sv_location *L = payload;
	const sv_location *x = &L[*(const uint32_t *)a], *y = &L[*(const uint32_t *)b];
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->frame != y->frame)
		return x->frame < y->frame ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_addr(const void *a, const void *b)
{
	const sv_addr_cost *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int heaviest_first(const void *a, const void *b)
{
	const sv_code_costs *x = a, *y = b;
	double ax = fabs(x->metric), ay = fabs(y->metric);
	if (ax != ay)
		return ax > ay ? -1 : 1;
	return x->frame != y->frame ? (x->frame < y->frame ? -1 : 1) : (x->file > y->file) - (x->file < y->file);
}

int sv_code_costs_new(sv_code_costs **out, size_t *n, const sv_view *v, const char *name)
{
	*out = NULL;
	*n = 0;
	const sv_source *src = sv_view_source(v);
	uint32_t nl = sv_source_location_count(src), nf = sv_source_frame_count(src);
	double *m = NULL, *c = NULL;
	int rc = sv_view_location_sums(v, &m, &c);
	if (rc || !m)
		return rc;
	/* the frames the name means, then their locations with samples, by (file, frame, addr) */
	bool *want = calloc(nf ? nf : 1, sizeof(*want));
	uint32_t *pick = malloc((nl ? nl : 1) * sizeof(*pick));
	sv_location *L = malloc((nl ? nl : 1) * sizeof(*L));
	sv_code_costs *fn = NULL;
	size_t np = 0, nfn = 0;
	if (!want || !pick || !L) {
		rc = SV_ENOMEM;
		goto out;
	}
	for (uint32_t f = 0; f < nf; f++)
		want[f] = sv_frame_is(src, f, name);
	for (uint32_t l = 0; l < nl; l++) {
		L[l] = sv_source_location(src, l);
		if (L[l].file != SV_LOC_NONE && want[L[l].frame] && (m[l] != 0 || c[l] != 0))
			pick[np++] = l;
	}
	qsort_r(pick, np, sizeof(*pick), by_function, L);
	/* one function per run of equal (file, frame): counted, then filled at their sizes */
	size_t groups = 0;
	for (size_t i = 0; i < np; i++)
		groups += !i || L[pick[i - 1]].file != L[pick[i]].file || L[pick[i - 1]].frame != L[pick[i]].frame;
	if (groups && !(fn = calloc(groups, sizeof(*fn)))) {
		rc = SV_ENOMEM;
		goto out;
	}
	for (size_t i = 0, j; i < np; i = j) {
		const sv_location *x = &L[pick[i]];
		for (j = i; j < np && L[pick[j]].file == x->file && L[pick[j]].frame == x->frame; j++)
			;
		sv_code_costs *g = &fn[nfn++];
		*g = (sv_code_costs){ x->frame, x->file, 0, 0, malloc((j - i) * sizeof(*g->at)), 0 };
		if (!g->at) {
			rc = SV_ENOMEM;
			goto out;
		}
		for (size_t k = i; k < j; k++) {
			g->at[g->n++] = (sv_addr_cost){ L[pick[k]].addr, m[pick[k]], c[pick[k]] };
			g->metric += m[pick[k]];
			g->count += c[pick[k]];
		}
	}
	if (nfn > 1)
		qsort(fn, nfn, sizeof(*fn), heaviest_first);
	*out = fn;
	*n = nfn;
	fn = NULL;
	nfn = 0;
out:
	sv_code_costs_free(fn, nfn);
	free(want);
	free(pick);
	free(L);
	free(m);
	free(c);
	return rc;
}

int sv_code_costs_in(sv_code_costs *fn, const sv_view *v, uint64_t start, uint64_t end)
{
	const sv_source *src = sv_view_source(v);
	uint32_t nl = sv_source_location_count(src);
	double *m = NULL, *c = NULL;
	int rc = sv_view_location_sums(v, &m, &c);
	if (rc || !m)
		return rc;
	size_t n = 0;
	for (uint32_t l = 0; l < nl; l++) {
		sv_location x = sv_source_location(src, l);
		n += x.file == fn->file && x.addr >= start && x.addr < end && (m[l] != 0 || c[l] != 0);
	}
	sv_addr_cost *at = malloc((n ? n : 1) * sizeof(*at));
	if (!at) {
		free(m);
		free(c);
		return SV_ENOMEM;
	}
	free(fn->at);
	*fn = (sv_code_costs){ fn->frame, fn->file, 0, 0, at, 0 };
	for (uint32_t l = 0; l < nl; l++) {
		sv_location x = sv_source_location(src, l);
		if (x.file == fn->file && x.addr >= start && x.addr < end && (m[l] != 0 || c[l] != 0)) {
			at[fn->n++] = (sv_addr_cost){ x.addr, m[l], c[l] };
			fn->metric += m[l];
			fn->count += c[l];
		}
	}
	qsort(at, fn->n, sizeof(*at), by_addr);
	free(m);
	free(c);
	return 0;
}

void sv_code_costs_free(sv_code_costs *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++)
		free(c[i].at);
	free(c);
}

int sv_view_key_costs(const sv_view *v, const uint32_t *loc_key, const uint32_t *extra_off, const uint32_t *extra,
		      uint32_t nkeys, sv_key_cost *out)
{
	memset(out, 0, (size_t)nkeys * sizeof(*out));
	const sv_source *src = sv_view_source(v);
	const uint32_t *path = sv_source_sample_code_paths(src);
	uint32_t np = sv_source_code_path_count(src);
	if (!path || !np)
		return 0;
	const uint32_t *caller = sv_source_code_path_callers(src), *loc = sv_source_code_path_locs(src);
	/* the view's samples summed per code path first, then each path walked once */
	double *m = calloc(np, sizeof(*m)), *c = calloc(np, sizeof(*c));
	uint32_t *stamp = malloc((nkeys ? nkeys : 1) * sizeof(*stamp));
	if (!m || !c || !stamp) {
		free(m);
		free(c);
		free(stamp);
		return SV_ENOMEM;
	}
	memset(stamp, 0xff, (nkeys ? nkeys : 1) * sizeof(*stamp));
	sv_samples smp = sv_source_samples(src);
	for (size_t i = 0; i < smp.n; i++) {
		sv_node_id node;
		double t, x;
		if (path[i] < np && sv_view_sample(v, i, &node, &t, &x)) {
			m[path[i]] += x;
			c[path[i]] += sv_sample_count(&smp, i);
		}
	}
	for (uint32_t p = 0; p < np; p++) {
		if (m[p] == 0 && c[p] == 0)
			continue;
		uint32_t k = loc_key[loc[p]];
		if (k < nkeys) {
			out[k].exc += m[p];
			out[k].exc_ct += c[p];
		}
		for (uint32_t q = p; q != SV_LOC_NONE; q = caller[q]) {
			uint32_t l = loc[q], e = extra_off ? extra_off[l] : 0, end = extra_off ? extra_off[l + 1] : 0;
			for (k = loc_key[l];; k = extra[e++]) {
				if (k < nkeys && stamp[k] != p) {
					stamp[k] = p;
					out[k].inc += m[p];
					out[k].inc_ct += c[p];
				}
				if (e >= end)
					break;
			}
		}
	}
	free(m);
	free(c);
	free(stamp);
	return 0;
}
