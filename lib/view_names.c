/* SPDX-License-Identifier: MIT */
/* A view's names (see view_int.h): interned after the source's short names when the source
 * shares them, copied from another view of the same GroupPats, and the entry groups'
 * "G <<short>>" names placed for the sorts. Part of building a view (view.c). */
#include <stdlib.h>
#include <string.h>

#include "source_int.h"
#include "stackview/pattern.h"
#include "sv/array.h"
#include "sv/idmap.h"
#include "view_int.h"

int view_name_intern(sv_view *v, uint32_t *out, const char *s, size_t len, bool own)
{
	return view_name_intern_hashed(v, out, s, len, sv_hash_bytes(s, len), own);
}

int view_name_intern_hashed(sv_view *v, uint32_t *out, const char *s, size_t len, uint64_t h, bool own)
{
	uint32_t id = v->base.t && !own ? sv_strtab_find(v->base.t, s, len) : UINT32_MAX;
	if (id != UINT32_MAX) {
		*out = id;
		return 0;
	}
	int rc = sv_strtab_intern_hashed(&v->names, &id, s, len, h);
	*out = id + v->nbase;
	return rc;
}

void view_names_init(sv_view *v)
{
	sv_strtab_init(&v->names);
	sv_source_short_names(v->src, &v->base);
	v->nbase = v->base.t ? v->base.t->count : 0;
}

int view_names_like(sv_view *v, const sv_view *like)
{
	v->base = like->base;
	v->nbase = like->nbase;
	if (sv_strtab_copy(&v->names, &like->names))
		return SV_ENOMEM;
	if (like->own_rank) {
		v->nown_rank = like->nown_rank;
		if (!(v->own_rank = malloc((size_t)v->nown_rank * sizeof(*v->own_rank))))
			return SV_ENOMEM;
		memcpy(v->own_rank, like->own_rank, (size_t)v->nown_rank * sizeof(*v->own_rank));
	}
	return 0;
}

/* The byte at k of group name g (len bytes) followed by " <<". */
static inline unsigned char group_byte(const char *g, size_t len, size_t k)
{
	return k < len ? (unsigned char)g[k] : k == len ? ' ' : k < len + 3 ? '<' : 0;
}

static int by_group_head(const void *a, const void *b, void *payload)
{
	const sv_view *v = payload;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const char *p = view_name_str(v, x), *q = view_name_str(v, y);
	size_t lp = strlen(p), lq = strlen(q);
	for (size_t k = 0;; k++) {
		unsigned char c = group_byte(p, lp, k), d = group_byte(q, lq, k);
		if (c != d)
			return c < d ? -1 : 1;
		if (!c)
			return 0;
	}
}

static int by_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* For each group (groups[0, ng)), how many of the source's short names are before its
 * "G <<" in strcmp order (*out, ng of them). 0 or SV_ENOMEM. */
static int places_among_shorts(const sv_view *v, const uint32_t *groups, uint32_t ng, uint32_t **out)
{
	uint32_t *by_place = malloc(((size_t)v->nbase + 1) * sizeof(*by_place)), *below = malloc(ng * sizeof(*below));
	char *head = NULL;
	size_t cap = 0;
	int rc = SV_ENOMEM;
	if (!by_place || !below)
		goto out;
	for (uint32_t id = 0; id < v->nbase; id++)
		by_place[v->base.rank[id]] = id;
	for (uint32_t g = 0; g < ng; g++) {
		const char *name = view_name_str(v, groups[g]);
		size_t len = strlen(name);
		if (len + 4 > cap) {
			char *h = realloc(head, len + 4);
			if (!h)
				goto out;
			head = h;
			cap = len + 4;
		}
		memcpy(head, name, len);
		memcpy(head + len, " <<", 4);
		uint32_t lo = 0, hi = v->nbase;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (strcmp(view_name_str(v, by_place[mid]), head) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		below[g] = lo;
	}
	*out = below;
	below = NULL;
	rc = 0;
out:
	free(by_place);
	free(below);
	free(head);
	return rc;
}

int view_rank_entry_names(sv_view *v, const frame_memo *fm, uint32_t nf)
{
	if (!v->base.entry_rank || !v->names.count)
		return 0;
	uint32_t *groups = NULL, *ranked = NULL, ng = 0, last = NONE32;
	size_t cap = 0;
	int rc = SV_ENOMEM;
	for (uint32_t f = 0; f < nf; f++) {
		const frame_memo *m = &fm[f];
		if (m->kind != SV_GROUP_ENTRY || m->group == last)
			continue;
		last = m->group;
		if (SV_ARRAY_PUSH(groups, ng, cap, m->group))
			goto out;
	}
	if (!ng)
		return 0;
	qsort(groups, ng, sizeof(*groups), by_id);
	uint32_t k = 0;
	for (uint32_t i = 0; i < ng; i++)
		if (!i || groups[i] != groups[k - 1])
			groups[k++] = groups[i];
	ng = k;
	for (uint32_t i = 0; i < ng; i++)
		if (strstr(view_name_str(v, groups[i]), " <<")) {
			rc = 0;
			goto out;
		}
	/* the groups by id (to find one) beside their places (by "G <<") */
	if (!(ranked = malloc(ng * sizeof(*ranked))))
		goto out;
	memcpy(ranked, groups, ng * sizeof(*ranked));
	qsort_r(ranked, ng, sizeof(*ranked), by_group_head, v);
	uint32_t *place = malloc(ng * sizeof(*place));
	if (!place)
		goto out;
	for (uint32_t r = 0; r < ng; r++) {
		uint32_t *at = bsearch(&ranked[r], groups, ng, sizeof(*groups), by_id);
		place[at - groups] = r;
	}
	/* Among the source's names too, when no short name has " <<": such a name is before
	 * "G <<short>>" exactly when it is before "G <<" (they differ within it), so the group's
	 * names sit together after the short names before "G <<" (set 1, view_name_rank) */
	uint32_t *below = NULL;
	if (v->base.rank && !v->base.entry_like && v->nbase < (1u << 24) && ng < 255 &&
	    (rc = places_among_shorts(v, groups, ng, &below)))
		goto fail;
	rc = SV_ENOMEM;
	v->nown_rank = v->names.count;
	if (!(v->own_rank = calloc(v->nown_rank, sizeof(*v->own_rank))))
		goto fail;
	last = NONE32;
	uint32_t lastg = 0;
	for (uint32_t f = 0; f < nf; f++) {
		const frame_memo *m = &fm[f];
		if (m->kind != SV_GROUP_ENTRY || m->disp < v->nbase || m->short_id >= v->nbase)
			continue;
		if (m->group != last) {
			last = m->group;
			lastg = (uint32_t)((uint32_t *)bsearch(&m->group, groups, ng, sizeof(*groups), by_id) - groups);
		}
		uint32_t tail = v->base.entry_rank[m->short_id];
		v->own_rank[m->disp - v->nbase] = below ? 1ull << 62 | (uint64_t)below[lastg] << 32 | place[lastg] << 24 | tail
							: 2ull << 62 | (uint64_t)place[lastg] << 32 | tail;
	}
	rc = 0;
fail:
	free(below);
	free(place);
out:
	free(groups);
	free(ranked);
	return rc;
}
