/* SPDX-License-Identifier: MIT */
/* ByName (spec §6.3): every name's exclusive and inclusive numbers, each name counted once
 * per sample however often it is on the stack. Part of building a view (view.c). */
#include "stackview/view.h"
#include "stackview/when.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sv/idmap.h"
#include "stackview/pattern.h"
#include "view_int.h"
#include "sv/array.h"
#include "sv/keysort.h"

/* ---- ByName (§6.3) ---- */

static void stats_zero(sv_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->first = INFINITY;
	s->last = -INFINITY;
	s->max = -INFINITY;
}

static const char *name_of(const void *ctx, uint32_t id)
{
	return view_name_str(ctx, id);
}

/* The seen names in ByName's order (largest |exclusive| first, then by name). Most names
 * have no exclusive samples: when all but a few of those have places in one set, they are
 * put in order by their places (radix passes), the few placed among them by their texts,
 * and only the others sorted by comparing. 0 or SV_ENOMEM. */
static int byname_sort(const sv_view *v, const uint8_t *seen)
{
	enum { FEW = 64 };
	uint32_t nn = view_name_count(v), nb = 0, nz = 0, nu = 0;
	for (uint32_t i = 0; i < nn; i++)
		if (seen[i])
			v->bn->byname[nb++] = i;
	v->bn->nbyname = nb;
	sv_keyed *rec = sv_malloc_big(((size_t)nb * 2 + 1) * sizeof(*rec)), *tmp = rec + nb, few[FEW];
	if (!rec)
		return SV_ENOMEM;
	for (uint32_t r = 0; r < nb; r++) {
		uint32_t id = v->bn->byname[r];
		rec[r] = (sv_keyed){ fabs(v->bn->byname_st[id].exc), 0, view_name_rank(v, id), id };
		if (rec[r].k1 == 0) {
			if (rec[r].rank != SV_KEYSORT_NO_RANK && SV_KEYSORT_SET(rec[r].rank) == 1)
				nz++;
			else
				nu++;
		}
	}
	if (nu > FEW || nz < 2 * FEW) {
		sv_keysort(rec, nb, tmp, name_of, v);
	} else {
		/* the others first (in place), the placed ones after them, the few apart */
		uint32_t na = 0, zi = 0;
		nu = 0;
		for (uint32_t r = 0; r < nb; r++) {
			sv_keyed x = rec[r];
			if (x.k1 != 0)
				rec[na++] = x;
			else if (x.rank != SV_KEYSORT_NO_RANK && SV_KEYSORT_SET(x.rank) == 1)
				tmp[zi++] = x;
			else
				few[nu++] = x;
		}
		memcpy(rec + na + nu, tmp, (size_t)nz * sizeof(*rec));
		sv_keysort(rec, na, tmp, name_of, v);
		sv_keysort(few, nu, tmp, name_of, v);
		sv_keyed *zs = rec + na + nu;
		sv_keysort_ranked(zs, nz, tmp);
		/* the few among the placed: each where its text goes (a search, not a merge) */
		sv_keyed *out = rec + na;
		size_t done = 0;
		for (uint32_t k = 0; k < nu; k++) {
			size_t at = done + sv_keysort_place(zs + done, nz - done, &few[k], name_of, v);
			memmove(out, zs + done, (at - done) * sizeof(*out));
			out += at - done;
			*out++ = few[k];
			done = at;
		}
		memmove(out, zs + done, (nz - done) * sizeof(*out));
	}
	for (uint32_t r = 0; r < nb; r++) {
		v->bn->byname[r] = rec[r].id;
		v->bn->byname_row[rec[r].id] = r;
	}
	free(rec);
	return 0;
}

/* Depth-first with an on-path counter per name: inclusive counted once per path. The walk's
 * order is laid out first (each subtree's size, then each node's place and depth), so the
 * nodes are then read in a row and asked for ahead, not found one child at a time. */
int sv_view_compute_byname(const sv_view *v)
{
	uint32_t nn = view_name_count(v), n = v->nnodes;
	view_sort_children(v); /* the walk's order is the tree's */
	const uint32_t *kids = v->kids, *children = v->children;
	int rc = 0;
	uint32_t *onpath = calloc(nn ? nn : 1, sizeof(*onpath));
	uint32_t *size = sv_malloc_big(((size_t)n + 1) * sizeof(*size));
	uint32_t *pos = sv_malloc_big(((size_t)n + 1) * sizeof(*pos));
	uint32_t *depth = sv_malloc_big(((size_t)n + 1) * sizeof(*depth));
	uint32_t *order = sv_malloc_big(((size_t)n + 1) * sizeof(*order));
	v->bn->byname_made = false;
	v->bn->nbyname = 0;
	free(v->bn->byname_st);
	free(v->bn->byname);
	free(v->bn->byname_row);
	v->bn->byname_st = malloc((nn ? nn : 1) * sizeof(*v->bn->byname_st));
	v->bn->byname = malloc((nn ? nn : 1) * sizeof(*v->bn->byname));
	v->bn->byname_row = malloc((nn ? nn : 1) * sizeof(*v->bn->byname_row));
	uint8_t *seen = calloc(nn ? nn : 1, 1);
	free(v->bn->first_on_path);
	free(v->bn->first_on_path_name);
	v->bn->first_on_path = sv_malloc_big(((size_t)n + 1) * sizeof(*v->bn->first_on_path));
	v->bn->first_on_path_name = sv_malloc_big(((size_t)n + 1) * sizeof(*v->bn->first_on_path_name));
	v->bn->nfirst_on_path = 0;
	if (!onpath || !size || !pos || !depth || !order || !v->bn->byname_st || !v->bn->byname || !v->bn->byname_row || !seen ||
	    !v->bn->first_on_path || !v->bn->first_on_path_name) {
		rc = SV_ENOMEM;
		goto out;
	}
	/* a name's stats are set when the walk first meets it: only those rows are read (a
	 * view's names can be every frame's short name, most of them grouped away) */
	for (uint32_t i = 0; i < nn; i++)
		v->bn->byname_row[i] = NONE32;
	/* subtree sizes (children after parents), then places in the walk (parents first) */
	for (uint32_t i = n; i-- > 0;) {
		if (!v->alive[i])
			continue;
		uint32_t sz = 1;
		for (uint32_t k = kids[i]; k < kids[i + 1]; k++)
			sz += size[children[k]];
		size[i] = sz;
	}
	pos[SV_NODE_ROOT] = 0;
	depth[SV_NODE_ROOT] = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!v->alive[i])
			continue;
		uint32_t at = pos[i] + 1;
		for (uint32_t k = kids[i]; k < kids[i + 1]; k++) {
			uint32_t c = children[k];
			pos[c] = at;
			depth[c] = depth[i] + 1;
			at += size[c];
		}
		order[pos[i]] = i;
	}
	uint32_t m = size[SV_NODE_ROOT];
	/* the walk: path[0, sp) holds the names from ROOT down to the current node's parent */
	uint32_t *path = pos, sp = 0;
	{
		vnode *r = view_node(v, SV_NODE_ROOT);
		v->bn->byname_st[r->name] = view_node_stats(v, SV_NODE_ROOT);
		seen[r->name] = 1;
		onpath[r->name]++;
		path[sp++] = r->name;
		v->bn->first_on_path_name[v->bn->nfirst_on_path] = r->name;
		v->bn->first_on_path[v->bn->nfirst_on_path++] = SV_NODE_ROOT;
	}
	for (uint32_t k = 1; k < m; k++) {
		if (k + 12 < m) {
			const vnode *ahead = view_node(v, order[k + 12]);
			__builtin_prefetch(ahead);
			__builtin_prefetch(&depth[order[k + 12]]);
		}
		if (k + 4 < m) {
			uint32_t name = view_node(v, order[k + 4])->name;
			__builtin_prefetch(&v->bn->byname_st[name], 1);
			__builtin_prefetch(&onpath[name], 1);
		}
		uint32_t c = order[k];
		while (sp > depth[c])
			onpath[path[--sp]]--;
		vnode *cn = view_node(v, c);
		sv_stats *bs = &v->bn->byname_st[cn->name];
		if (!seen[cn->name]) {
			stats_zero(bs);
			seen[cn->name] = 1;
		}
		bs->exc += cn->st.exc;
		bs->exc_ct += cn->st.exc_ct;
		if (v->fold) {
			bs->fold += v->fold[c].fold;
			bs->fold_ct += v->fold[c].fold_ct;
		}
		if (!onpath[cn->name]) {
			bs->inc += cn->st.inc;
			bs->inc_ct += cn->st.inc_ct;
			v->bn->first_on_path_name[v->bn->nfirst_on_path] = cn->name;
			v->bn->first_on_path[v->bn->nfirst_on_path++] = c;
		}
		double first = view_node_first(v, c), last = view_node_last(v, c);
		if (first < bs->first)
			bs->first = first;
		if (last > bs->last)
			bs->last = last;
		if (cn->st.max > bs->max)
			bs->max = cn->st.max;
		onpath[cn->name]++;
		path[sp++] = cn->name;
	}
	/* the walk's tables go before the sort takes its own (a view's peak was both) */
	free(onpath);
	free(size);
	free(pos);
	free(depth);
	free(order);
	onpath = size = pos = depth = order = NULL;
	rc = byname_sort(v, seen);
	/* in whole quanta until here (sums exact, the order by them): read back */
	for (uint32_t r = 0; !rc && v->qs != 1 && r < v->bn->nbyname; r++) {
		sv_stats *bs = &v->bn->byname_st[v->bn->byname[r]];
		bs->inc /= v->qs;
		bs->exc /= v->qs;
		bs->fold /= v->qs;
	}
	v->bn->byname_made = !rc;
out:
	free(onpath);
	free(size);
	free(pos);
	free(depth);
	free(order);
	free(seen);
	return rc;
}
