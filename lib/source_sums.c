/* SPDX-License-Identifier: MIT */
/* Each stack's samples summed (sv_source_sum_stacks), kept when every such sum is exact in
 * any order, so that a view whose time range takes stacks whole adds stacks, not samples. */
#include "stackview/source.h"
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv/idmap.h"
#include "strtab_int.h"
#include "sv/array.h"
#include "source_int.h"

/* ---- the stacks' sums ---- */

/* The exponent of x's lowest set bit (x != 0, finite): x is a multiple of 2^that. */
static int low_bit(double x)
{
	int e;
	double f = frexp(fabs(x), &e); /* x = f * 2^e, f in [0.5, 1) */
	uint64_t m = (uint64_t)ldexp(f, 53);
	return e - 53 + __builtin_ctzll(m);
}

/* Whether every sum of values drawn from those seen (each a multiple of 2^low), whose
 * magnitudes add up to `total`, is exact whatever its order: every partial sum is then a
 * multiple of 2^low below 2^53 of them (a bit of margin for total's own rounding). */
static bool sums_exact(int low, double total)
{
	return low != INT_MAX && total < ldexp(1, 52 + (low < -1000 ? -1000 : low));
}

/* A name and its first 16 bytes as two big-endian numbers (ordered as strcmp orders them), so
 * that most comparisons of a sort read no string (names share long module prefixes). */
typedef struct name_key {
	uint64_t prefix[2];
	uint32_t id;
} name_key;

/* Two names (ids in t) by their texts, as strcmp orders them. */
static int by_short_name(const strtab *t, uint32_t x, uint32_t y)
{
	return strcmp(sv_strtab_str(t, x), sv_strtab_str(t, y));
}

/* The byte at k of `s` (len bytes) followed by ">>": what an entry group's display name
 * "G <<s>>" has there after its "G <<". */
static inline unsigned char entry_byte(const char *s, size_t len, size_t k)
{
	return k < len ? (unsigned char)s[k] : k < len + 2 ? '>' : 0;
}

/* Two short names in the order of their entry group names' tails, s + ">>". */
static int by_entry_name(const strtab *t, uint32_t x, uint32_t y)
{
	const char *p = sv_strtab_str(t, x), *q = sv_strtab_str(t, y);
	size_t lp = sv_strtab_len(t, x), lq = sv_strtab_len(t, y), m = lp < lq ? lp : lq;
	int head = memcmp(p, q, m);
	if (head || lp == lq)
		return head;
	for (size_t k = m;; k++) { /* one is the other's start: what follows it decides */
		unsigned char c = entry_byte(p, lp, k), d = entry_byte(q, lq, k);
		if (c != d)
			return c < d ? -1 : 1;
		if (!c)
			return 0;
	}
}

typedef int name_cmp_fn(const strtab *t, uint32_t x, uint32_t y);

/* Keys in order: the prefixes compared here, the texts by cmp where they are equal. */
static inline int key_cmp(const name_key *x, const name_key *y, name_cmp_fn *cmp, const strtab *t)
{
	if (x->prefix[0] != y->prefix[0])
		return x->prefix[0] < y->prefix[0] ? -1 : 1;
	if (x->prefix[1] != y->prefix[1])
		return x->prefix[1] < y->prefix[1] ? -1 : 1;
	return cmp(t, x->id, y->id);
}

/* A merge sort of a[0, n) through tmp (insertion sort below 16, depth first). */
static void key_sort(name_key *a, name_key *tmp, size_t n, name_cmp_fn *cmp, const strtab *t)
{
	if (n <= 16) {
		for (size_t i = 1; i < n; i++) {
			name_key k = a[i];
			size_t j = i;
			for (; j > 0 && key_cmp(&k, &a[j - 1], cmp, t) < 0; j--)
				a[j] = a[j - 1];
			a[j] = k;
		}
		return;
	}
	size_t h = n / 2, i = 0, j = h, o = 0;
	key_sort(a, tmp, h, cmp, t);
	key_sort(a + h, tmp + h, n - h, cmp, t);
	if (key_cmp(&a[h - 1], &a[h], cmp, t) <= 0)
		return;
	while (i < h && j < n)
		tmp[o++] = key_cmp(&a[j], &a[i], cmp, t) < 0 ? a[j++] : a[i++];
	memcpy(tmp + o, a + i, (h - i) * sizeof(*tmp));
	o += h - i;
	memcpy(a, tmp, o * sizeof(*a));
}

/* Places in strcmp order of n names (by_short_name) or of their entry group tails
 * (by_entry_name) into rank. `near` (NULL: none) is an order close to the one wanted, the
 * names laid out in it first: the two orders differ only where a name is the start of
 * another, and the merge sort takes a run already in order with one comparison. */
static int rank_names(const strtab *t, uint32_t n, uint32_t *rank, bool entry, const uint32_t *near)
{
	name_key *order = malloc((n ? n : 1) * 2 * sizeof(*order));
	if (!order)
		return SV_ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const char *str = sv_strtab_str(t, i);
		size_t len = sv_strtab_len(t, i);
		name_key k = { { 0, 0 }, i };
		for (size_t j = 0; j < 16; j++) /* nothing read past the name's end */
			k.prefix[j / 8] = k.prefix[j / 8] << 8 | (entry ? entry_byte(str, len, j) : j < len ? (unsigned char)str[j] : 0);
		order[near ? near[i] : i] = k;
	}
	key_sort(order, order + n, n, entry ? by_entry_name : by_short_name, t);
	for (uint32_t i = 0; i < n; i++)
		rank[order[i].id] = i;
	free(order);
	return 0;
}

/* Each frame's short name interned once, for every view to come. */
static int index_short_names(sv_source *src)
{
	uint32_t nf = src->frames.count;
	if (src->short_id || !nf)
		return 0;
	uint32_t *ids = malloc(nf * sizeof(*ids));
	if (!ids)
		return SV_ENOMEM;
	for (uint32_t f = 0; f < nf; f++) {
		const char *s = sv_source_frame_short(src, f);
		src->shorts_entry_like |= strstr(s, " <<") != NULL;
		if (sv_strtab_intern(&src->shorts, &ids[f], s, strlen(s))) {
			free(ids);
			sv_strtab_dispose(&src->shorts);
			sv_strtab_init(&src->shorts);
			return SV_ENOMEM;
		}
	}
	/* and their order by strcmp, so that views sort rows by name comparing two numbers; the
	 * same for their entry group names' tails ("G <<short>>" after the "G <<") */
	uint32_t n = src->shorts.count;
	uint32_t *rank = malloc((n ? n : 1) * sizeof(*rank));
	uint32_t *erank = malloc((n ? n : 1) * sizeof(*erank));
	if (!rank || !erank || rank_names(&src->shorts, n, rank, false, NULL) ||
	    rank_names(&src->shorts, n, erank, true, rank)) {
		free(rank);
		free(erank);
		free(ids);
		sv_strtab_dispose(&src->shorts);
		sv_strtab_init(&src->shorts);
		return SV_ENOMEM;
	}
	src->short_id = ids;
	src->nshort_id = nf;
	src->short_rank = rank;
	src->short_entry_rank = erank;
	return 0;
}

void sv_source_short_names(const sv_source *src, sv_short_names *out)
{
	*out = (sv_short_names){ src->short_id ? &src->shorts : NULL, src->short_id, src->nshort_id, src->short_rank,
				 src->short_entry_rank, src->shorts_entry_like };
}

int sv_source_sum_stacks(sv_source *src)
{
	if (index_short_names(src))
		return SV_ENOMEM;
	/* at least 4 samples a stack: the sums (56 bytes a stack) cost at most what the samples do */
	if (sv_source_stack_sums(src) || src->negative || src->nsamples / 4 < (size_t)src->nstacks + 1)
		return 0;
	free(src->sums);
	src->sums = NULL;
	sv_samples smp = sv_source_samples(src);
	int lm = INT_MAX, lc = INT_MAX;
	size_t nv = src->wide ? smp.n : src->ncodes;
	double qs = src->qscale; /* metrics in whole quanta: their sums are exact */
	for (size_t k = 0; k < nv; k++) {
		double m = smp.metric[k], c = smp.count[k];
		if (c < 0) /* then total_count is no bound on the counts' sums (and no view needs it) */
			return 0;
		if (!qs && m != 0 && low_bit(m) < lm)
			lm = low_bit(m);
		if (c != 0 && low_bit(c) < lc)
			lc = low_bit(c);
	}
	if ((lm != INT_MAX && !sums_exact(lm, src->abs_metric)) || (lc != INT_MAX && !sums_exact(lc, src->total_count)))
		return 0;
	size_t n = (size_t)src->nstacks + 1;
	sv_stack_sums *ss = malloc(n * sizeof(*ss));
	if (!ss)
		return SV_ENOMEM;
	for (size_t k = 0; k < n; k++)
		ss[k] = (sv_stack_sums){ 0, 0, INFINITY, -INFINITY, -INFINITY, -INFINITY, 0 };
	double first = INFINITY, last = -INFINITY, last_end = -INFINITY;
	for (size_t i = 0; i < smp.n; i++) {
		sv_stack_id st = smp.stack[i];
		sv_stack_sums *x = &ss[st == SV_STACK_NONE ? src->nstacks : st];
		double t = sv_sample_time(&smp, i), m = sv_sample_metric(&smp, i), end = t + fabs(m);
		x->metric += qs ? nearbyint(m * qs) : m;
		x->count += sv_sample_count(&smp, i);
		x->n++;
		if (t < x->first)
			x->first = t;
		if (t > x->last)
			x->last = t;
		if (end > x->last_end)
			x->last_end = end;
		if (m > x->max)
			x->max = m;
		first = t < first ? t : first;
		last = t > last ? t : last;
		last_end = end > last_end ? end : last_end;
	}
	src->sums = ss;
	src->sums_first = first;
	src->sums_last = last;
	src->sums_last_end = last_end;
	src->sums_nstacks = src->nstacks;
	return 0;
}
