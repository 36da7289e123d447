/* SPDX-License-Identifier: MIT */
/* The When column: 32-bucket histograms and their characters (spec §7). Histograms are
 * built on first use: each node's row (only the buckets its subtree reaches) filled from its
 * own samples, then one backward pass over nodes adds
 * children into parents; ByName rows sum the rows asked for. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sv/array.h"
#include "stackview/view.h"
#include "stackview/when.h"
#include "view_int.h"

char sv_when_char(double v, double scale)
{
	if (v == 0 || isnan(v) || !(scale > 0))
		return '_';
	double r = v / scale;
	if (v > 0) {
		if (r < 0.001)
			return '.';
		if (r < 0.01)
			return 'o';
		double k = trunc(10 * r);
		if (k <= 9)
			return (char)('0' + (int)k);
		if (k <= 34)
			return (char)('A' + (int)k - 10);
		return '*';
	}
	double k = trunc(10 * fabs(r));
	if (k <= 24)
		return (char)('a' + (int)k);
	return '@';
}

void sv_when_encode(char out[SV_WHEN_LEN + 1], const double *b, double scale)
{
	for (int i = 0; i < SV_WHEN_LEN; i++)
		out[i] = sv_when_char(b[i], scale);
	out[SV_WHEN_LEN] = '\0';
}

void sv_view_when_bounds(const sv_view *v, double *start, double *bucket)
{
	*start = v->lo;
	*bucket = v->has_range ? (v->hi - v->lo) / SV_WHEN_LEN : 0;
}

/* Buckets use PerfView's float32 arithmetic (§7.6): each contribution and each running sum
 * is rounded to float. A full time-metric bucket then sits a hair below D and shows `9`
 * consistently, instead of flickering between `9` and `A` with double rounding noise. */
static inline double f32add(double acc, double x)
{
	return (double)((float)acc + (float)x);
}

void sv_hist_add(double *dst, const double *src, double w)
{
	for (int k = 0; k < SV_WHEN_LEN; k++)
		if (src[k] != 0)
			dst[k] = f32add(dst[k], w == 1 ? src[k] : w * src[k]);
}

/* One sample into a 32-bucket histogram (§7.1): a float row whose first bucket is flo (fh;
 * every value is float-rounded, so a float holds it exactly). */
static inline void hist_sample(const sv_view *v, double t, double m, double D, float *fh, ptrdiff_t flo)
{
	double lo = v->lo;
	/* Clamp before converting: hostile times can be far outside any long. */
	double q = trunc((t - lo) / D);
	long b = !(q > 0) ? 0 : q >= SV_WHEN_LEN ? SV_WHEN_LEN : (long)q;
	if (v->scaling == SV_SCALING_DATA) {
		if (b > SV_WHEN_LEN - 1)
			b = SV_WHEN_LEN - 1;
		fh[b - flo] = (float)f32add(fh[b - flo], m);
		return;
	}
	double sign = m < 0 ? -1 : 1;
	double end = t + fabs(m);
	double pos = t;
	while (b < SV_WHEN_LEN) {
		double next = lo + (double)(b + 1) * D;
		double upto = next < end ? next : end;
		if (upto > pos)
			fh[b - flo] = (float)f32add(fh[b - flo], sign * (upto - pos));
		pos = upto;
		b++;
		if (lo + (double)b * D > end || pos >= end)
			break;
	}
}

/* dst += a node's sparse inclusive row, bucket by bucket as sv_hist_add adds (its sums are
 * float-rounded: a float holds them exactly). */
static void hist_add_row(float *dst, const sv_view *v, sv_node_id n)
{
	if (!v->inc_rows) /* (no time range: no rows) */
		return;
	const float *r = v->inc_rows + v->inc_off[n];
	int lo = v->inc_lo[n];
	for (int k = 0; k < v->inc_w[n]; k++)
		if (r[k] != 0)
			dst[lo + k] = (float)f32add(dst[lo + k], r[k]);
}

/* The same into a row holding only buckets [dst_lo, ...), which take in all of n's. */
static void hist_add_row_at(float *dst, int dst_lo, const sv_view *v, sv_node_id n)
{
	if (!v->inc_rows) /* (no time range: no rows) */
		return;
	const float *r = v->inc_rows + v->inc_off[n];
	int lo = v->inc_lo[n] - dst_lo;
	for (int k = 0; k < v->inc_w[n]; k++)
		if (r[k] != 0)
			dst[lo + k] = (float)f32add(dst[lo + k], r[k]);
}

/* Every sample the view keeps into its node's sparse float row (node n's buckets from lo[n]
 * at fh + off[n]), in sample order. A row takes its node's samples in sample order whatever
 * the order between nodes, so its float sums are the same as 32 dense buckets'. Where each
 * stack's samples go is looked up once per stack (its final node's row, where bucket b is at
 * fh[row - 32 + b]: offset + 32 - first bucket; UINT32_MAX: dropped), so a sample costs one
 * read in a table of stacks and one in its row. With `was`, only the marked nodes' samples. */
static int fill_sparse(const sv_view *v, double D, float *fh, const uint32_t *off, const uint8_t *lo,
		       const view_was *was)
{
	sv_samples smp = sv_source_samples(v->src);
	uint32_t nst = sv_source_stack_count(v->src);
	if (was && was->smarks) {
		/* only the samples of marked nodes' stacks (was->smarks: the others read nothing
		 * but their bit), each stack's row found when met */
		for (size_t i = 0; i < smp.n; i++) {
			sv_stack_id st = smp.stack[i];
			if (!view_marked(was->smarks, st == SV_STACK_NONE ? nst : st))
				continue;
			uint32_t n = view_remap(v, st == SV_STACK_NONE ? SV_NODE_ROOT : v->stack_node[st]);
			double t = sv_sample_time(&smp, i), m = sv_sample_metric(&smp, i);
			if (view_clip(v, &t, &m))
				hist_sample(v, t, m, D, fh + off[n], lo[n]);
		}
		return 0;
	}
	/* slot nst: the samples without a stack */
	uint32_t *row = malloc(((size_t)nst + 1) * sizeof(*row));
	double invD = 1 / D;
	if (!row)
		return SV_ENOMEM;
	for (uint32_t s = 0; s <= nst; s++) {
		uint32_t n = s < nst ? v->stack_node[s] : v->inc_empty ? SV_NODE_ROOT : UINT32_MAX;
		uint32_t k = n == UINT32_MAX ? 0 : view_remap(v, n);
		if (was && n != UINT32_MAX && !view_marked(was->marks, k)) /* (a clean node's row is whole) */
			n = UINT32_MAX;
		/* (offsets stop 64 below 2^32: never UINT32_MAX) */
		row[s] = n == UINT32_MAX ? UINT32_MAX : off[k] + SV_WHEN_LEN - lo[k];
	}
	for (size_t i = 0; i < smp.n; i++) {
		/* the stack's entry and its row are random reads: ask for them ahead */
		if (i + 24 < smp.n) {
			sv_stack_id a = smp.stack[i + 24];
			__builtin_prefetch(&row[a == SV_STACK_NONE ? nst : a]);
		}
		if (i + 8 < smp.n) {
			sv_stack_id a = smp.stack[i + 8];
			uint32_t r = row[a == SV_STACK_NONE ? nst : a];
			if (r != UINT32_MAX) {
				double q = (sv_sample_time(&smp, i + 8) - v->lo) * invD;
				long b = !(q > 0) ? 0 : q >= SV_WHEN_LEN - 1 ? SV_WHEN_LEN - 1 : (long)q;
				long at = (long)r - SV_WHEN_LEN + b;
				__builtin_prefetch(fh + (at > 0 ? at : 0), 1);
			}
		}
		sv_stack_id st = smp.stack[i];
		uint32_t r = row[st == SV_STACK_NONE ? nst : st];
		double t = sv_sample_time(&smp, i), m = sv_sample_metric(&smp, i);
		if (r == UINT32_MAX || !view_clip(v, &t, &m))
			continue;
		hist_sample(v, t, m, D, fh, (ptrdiff_t)SV_WHEN_LEN - (ptrdiff_t)r); /* fh[b - that] */
	}
	free(row);
	return 0;
}

/* The buckets samples can reach from the first start and the last end among them (first >
 * last: none): the first by the expression hist_sample starts from, the last one further than
 * the end's bucket, so rounding can never put a sample outside. Both bounds grow with their
 * times (so the buckets of a node's subtree are those of its inclusive first and last). */
static void bucket_span(const sv_view *v, double first, double last, double D, int8_t *sp)
{
	sp[0] = SV_WHEN_LEN, sp[1] = -1;
	if (!(D > 0) || !(first <= last))
		return;
	double q0 = trunc((first - v->lo) / D), q1 = trunc((last - v->lo) / D);
	long b0 = !(q0 > 0) ? 0 : q0 >= SV_WHEN_LEN ? SV_WHEN_LEN : (long)q0;
	long b1 = !(q1 > 0) ? 1 : q1 >= SV_WHEN_LEN - 1 ? SV_WHEN_LEN - 1 : (long)q1 + 1;
	if (v->scaling == SV_SCALING_DATA && b0 > SV_WHEN_LEN - 1)
		b0 = SV_WHEN_LEN - 1;
	if (b1 > SV_WHEN_LEN - 1)
		b1 = SV_WHEN_LEN - 1;
	if (b0 <= b1)
		sp[0] = (int8_t)b0, sp[1] = (int8_t)b1;
}

/* The buckets a node's own samples can reach (its exclusive span, folded samples included). */
static void own_span(const sv_view *v, uint32_t node, double D, int8_t *sp)
{
	xspan x = view_node_xspan(v, node);
	bucket_span(v, x.first, x.last, D, sp);
}

/* Exclusive histograms: each node's row holds the buckets its own samples can reach (one or
 * two for most nodes, none for most inner ones), filled from its samples in sample order. */
static int exc_rows(sv_view *v)
{
	size_t nn = v->nnodes;
	double start, D;
	sv_view_when_bounds(v, &start, &D);
	v->exc_off = malloc((nn + 1) * sizeof(*v->exc_off));
	v->exc_lo = malloc(nn + 1);
	v->exc_w = malloc(nn + 1);
	if (!v->exc_off || !v->exc_lo || !v->exc_w)
		goto fail;
	for (size_t i = 0; i < nn; i++) {
		int8_t own[2];
		own_span(v, (uint32_t)i, D, own);
		bool any = own[0] <= own[1];
		v->exc_lo[i] = (uint8_t)(any ? own[0] : 0);
		v->exc_w[i] = (uint8_t)(any ? own[1] - own[0] + 1 : 0);
	}
	if (sv_rows_place(&v->exc_rows, v->exc_off, v->exc_w, nn))
		goto fail;
	if (fill_sparse(v, D, v->exc_rows, v->exc_off, v->exc_lo, NULL)) /* (D > 0: sv_view_when_exc) */
		goto fail;
	return 0;
fail:
	free(v->exc_rows);
	free(v->exc_off);
	free(v->exc_lo);
	free(v->exc_w);
	v->exc_rows = NULL, v->exc_off = NULL, v->exc_lo = v->exc_w = NULL;
	return SV_ENOMEM;
}

/* The scale of the rows made (§7.2): the bucket's duration for time, else half the largest
 * ROOT bucket. */
static double rows_scale(const sv_view *v, double D)
{
	if (v->scaling == SV_SCALING_TIME)
		return D;
	double scale = 0;
	const float *r = v->inc_rows + v->inc_off[SV_NODE_ROOT];
	for (int k = 0; k < v->inc_w[SV_NODE_ROOT]; k++)
		if (fabs((double)r[k]) > scale)
			scale = fabs((double)r[k]);
	return scale / 2;
}

/* Inclusive histograms, one row per node holding only the buckets between the first and the
 * last its subtree reaches (a deep node's samples fall in one or two buckets, so the table
 * is a fraction of 32 per node). Each row is its node's own samples, added in sample order,
 * then its children's rows in descending node order (children before parents): the float32
 * sums of the dense computation, bucket for bucket. The exclusive table (sv_view_when_exc) is
 * built only when something asks for it. `was` (NULL: every row made): the clean nodes'
 * buckets and rows are its own. 0 or SV_ENOMEM. */
static int when_rows(double *out, sv_view *v, const view_was *was)
{
	size_t nn = v->nnodes;
	double start, D;
	sv_view_when_bounds(v, &start, &D);
	if (!(D > 0)) {
		/* no buckets (no time range: a heap snapshot's one instant): every histogram is
		 * 0, without tables or a pass over the nodes (10 million in a big snapshot) */
		v->scale = v->scaling == SV_SCALING_TIME ? D : 0;
		*out = v->scale;
		return 0;
	}
	/* each node's buckets: those of its inclusive first and last, read in the nodes (a
	 * bucket's bounds grow with time, so these are the buckets its own samples and its
	 * children's reach). Under Fold% a folded node's samples are its parent's own and it
	 * reaches nothing: the spans are then gathered from the own spans, children first. */
	bool from_inclusive = !v->remap;
	int8_t *span = from_inclusive ? NULL : malloc(nn * 2 + 2);
	v->inc_off = malloc((nn + 1) * sizeof(*v->inc_off));
	v->inc_lo = malloc(nn + 1);
	v->inc_w = malloc(nn + 1);
	int rc = SV_ENOMEM;
	if ((!from_inclusive && !span) || !v->inc_off || !v->inc_lo || !v->inc_w)
		goto out;
	for (size_t k = 0; span && k < nn; k++)
		span[2 * k] = SV_WHEN_LEN, span[2 * k + 1] = -1;
	/* children have higher ids than their parents: in descending order a node's span is
	 * whole when it is reached, and its row is placed then (rows lie in descending node
	 * order, the order the children-into-parents pass reads them) */
	size_t total = 0;
	for (size_t i = nn; i-- > 0;) {
		int8_t own[2] = { SV_WHEN_LEN, -1 }, sp[2];
		bool have_own = false;
		int lo, hi;
		if (was && !was->dirty[i]) { /* a clean node's buckets: the other view's */
			lo = was->inc_w[i] ? was->inc_lo[i] : SV_WHEN_LEN;
			hi = was->inc_w[i] ? lo + was->inc_w[i] - 1 : -1;
		} else if (from_inclusive) {
			bucket_span(v, view_node_first(v, (uint32_t)i), view_node_last(v, (uint32_t)i), D, sp);
			lo = sp[0], hi = sp[1];
		} else {
			/* a parent's span and a node's own span kept apart are random reads: asked
			 * for 16 nodes ahead */
			if (i > 16) { /* (not ROOT's: it has no parent) */
				__builtin_prefetch(&span[2 * (size_t)v->parent[i - 16]], 1);
				if (v->xidx && v->xidx[i - 16] < XS_NONE) {
					__builtin_prefetch(&v->xs_max[v->xidx[i - 16]]);
					if (v->xs_span)
						__builtin_prefetch(&v->xs_span[v->xidx[i - 16]]);
				}
			}
			own_span(v, (uint32_t)i, D, own);
			have_own = true;
			lo = own[0] < span[2 * i] ? own[0] : span[2 * i];
			hi = own[1] > span[2 * i + 1] ? own[1] : span[2 * i + 1];
			if (i > 0 && v->alive[i]) {
				size_t p = v->parent[i];
				if (lo < span[2 * p])
					span[2 * p] = (int8_t)lo;
				if (hi > span[2 * p + 1])
					span[2 * p + 1] = (int8_t)hi;
			}
		}
		v->inc_lo[i] = (uint8_t)(hi >= lo ? lo : 0);
		v->inc_w[i] = (uint8_t)(hi >= lo ? hi - lo + 1 : 0);
		bool one_child = hi >= lo && v->kids[i + 1] - v->kids[i] == 1;
		if (one_child && !have_own)
			own_span(v, (uint32_t)i, D, own);
		if (one_child && own[0] > own[1]) {
			/* no samples of its own and one child: its row is the child's (0 + x is x),
			 * the same place, which tells the pass below to add nothing */
			v->inc_off[i] = v->inc_off[v->children[v->kids[i]]];
		} else {
			if (total > UINT32_MAX - 2 * SV_WHEN_LEN) /* 16 GB of floats: refused */
				goto out;
			v->inc_off[i] = (uint32_t)total;
			total += v->inc_w[i];
		}
	}
	if (!(v->inc_rows = calloc(total ? total : 1, sizeof(float))))
		goto out;
	/* a clean node's row is the other view's: the same buckets (its span is the same) */
	const uint64_t *marks = was ? was->marks : NULL;
	for (size_t i = 0; was && i < nn; i++) {
		if (view_marked(marks, (uint32_t)i))
			continue;
		const float *from = was->inc_rows + was->inc_off[i];
		float *to = v->inc_rows + v->inc_off[i];
		for (int k = 0; k < v->inc_w[i]; k++) /* (a bucket or two for most: no call) */
			to[k] = from[k];
	}
	/* the node's own samples in sample order, then its children's rows (children first);
	 * a child's zero buckets are added too (x + 0 is x in float, and no row holds -0), so
	 * the loop has no branch */
	if (fill_sparse(v, D, v->inc_rows, v->inc_off, v->inc_lo, was))
		goto out;
	for (size_t i = nn; i-- > 1;) {
		/* a parent's place (16 ahead) and then its row (8 ahead) are random reads (not
		 * asked for a clean parent's, which takes nothing) */
		if (i > 16 && (!marks || view_marked(marks, v->parent[i - 16])))
			__builtin_prefetch(&v->inc_off[v->parent[i - 16]]);
		if (i > 8 && (!marks || view_marked(marks, v->parent[i - 8]))) /* (not ROOT's: it has no parent) */
			__builtin_prefetch(v->inc_rows + v->inc_off[v->parent[i - 8]], 1);
		size_t p = v->parent[i];
		if (!v->alive[i] || !v->inc_w[i] || v->inc_off[i] == v->inc_off[p] || (marks && !view_marked(marks, (uint32_t)p)))
			continue;
		const float *c = v->inc_rows + v->inc_off[i];
		float *r = v->inc_rows + v->inc_off[p] + (v->inc_lo[i] - v->inc_lo[p]);
		int w = v->inc_w[i];
		for (int k = 0; k < w; k++)
			r[k] += c[k];
	}
	double scale = rows_scale(v, D);
	v->scale = scale;
	v->inc_len = v->inc_placed = total;
	*out = scale;
	rc = 0;
out:
	if (rc) {
		free(v->inc_rows);
		free(v->inc_off);
		free(v->inc_lo);
		free(v->inc_w);
		v->inc_rows = NULL, v->inc_off = NULL, v->inc_lo = v->inc_w = NULL;
	}
	free(span);
	return rc;
}

static int desc_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a < b) - (a > b);
}

/* A marked node's buckets (its inclusive first and last's), and the child whose row is its
 * row when it has no samples of its own and one child (as when_rows places it), else
 * UINT32_MAX: its row takes *w floats of its own. */
static uint32_t marked_span(const sv_view *v, uint32_t i, double D, uint8_t *lo, uint8_t *w)
{
	int8_t sp[2], own[2];
	bucket_span(v, view_node_first(v, i), view_node_last(v, i), D, sp);
	bool any = sp[1] >= sp[0];
	*lo = (uint8_t)(any ? sp[0] : 0);
	*w = (uint8_t)(any ? sp[1] - sp[0] + 1 : 0);
	if (any && v->kids[i + 1] - v->kids[i] == 1) {
		own_span(v, i, D, own);
		if (own[0] > own[1])
			return v->children[v->kids[i]];
	}
	return UINT32_MAX;
}

/* view_when_like with was's table taken (was->owned, rows made from the inclusive spans): the
 * clean nodes' rows stay where they are; each marked node's is placed again at the table's end
 * (its old place is left unused: a clean node may share it, its only child's), zeroed, filled
 * from its own samples in sample order and then its children's rows in descending node order,
 * marked nodes children first. *done false: the table would grow past twice its size when every
 * row was last placed (nothing done). 0 or SV_ENOMEM. */
static int rows_in_place(sv_view *v, view_was *was, double D, bool *done)
{
	size_t nn = v->nnodes, total = was->inc_len, nmarked = 0;
	const uint8_t *dirty = was->dirty;
	*done = false;
	for (size_t i = 0; i < nn; i++)
		nmarked += dirty[i] != 0;
	uint32_t *marked = malloc((nmarked ? nmarked : 1) * sizeof(*marked)), *kids = NULL;
	if (!marked)
		return SV_ENOMEM;
	/* the room the marked rows need, placed children first (a node's place may be its
	 * child's); the old tables are read for nothing yet */
	size_t k = 0;
	for (size_t i = nn; i-- > 0;)
		if (dirty[i])
			marked[k++] = (uint32_t)i;
	uint8_t lo, w;
	size_t need = 0;
	for (k = 0; k < nmarked; k++)
		if (marked_span(v, marked[k], D, &lo, &w) == UINT32_MAX)
			need += w;
	if (total + need > 2 * was->inc_placed || total + need > UINT32_MAX - 2 * SV_WHEN_LEN) {
		free(marked);
		return 0;
	}
	float *rows = realloc(was->inc_rows, (total + need ? total + need : 1) * sizeof(float));
	if (!rows) {
		free(marked);
		return SV_ENOMEM;
	}
	memset(rows + total, 0, need * sizeof(float));
	v->inc_rows = rows, v->inc_off = was->inc_off, v->inc_lo = was->inc_lo, v->inc_w = was->inc_w;
	was->inc_rows = NULL, was->inc_off = NULL, was->inc_lo = was->inc_w = NULL;
	for (k = 0; k < nmarked; k++) {
		uint32_t i = marked[k];
		uint32_t only = marked_span(v, i, D, &lo, &w);
		v->inc_off[i] = only == UINT32_MAX ? (uint32_t)total : v->inc_off[only];
		v->inc_lo[i] = lo;
		v->inc_w[i] = w;
		total += only == UINT32_MAX ? w : 0;
	}
	*done = true;
	int rc = fill_sparse(v, D, v->inc_rows, v->inc_off, v->inc_lo, was);
	size_t kcap = 0;
	for (k = 0; !rc && k < nmarked; k++) {
		uint32_t p = marked[k], nk = v->kids[p + 1] - v->kids[p];
		if (SV_ARRAY_RESERVE(kids, kcap, nk ? nk : 1)) {
			rc = SV_ENOMEM;
			break;
		}
		memcpy(kids, v->children + v->kids[p], nk * sizeof(*kids));
		qsort(kids, nk, sizeof(*kids), desc_u32);
		for (uint32_t j = 0; j < nk; j++) {
			uint32_t c = kids[j];
			if (!v->inc_w[c] || v->inc_off[c] == v->inc_off[p])
				continue;
			const float *from = v->inc_rows + v->inc_off[c];
			float *to = v->inc_rows + v->inc_off[p] + (v->inc_lo[c] - v->inc_lo[p]);
			for (int b = 0; b < v->inc_w[c]; b++)
				to[b] += from[b];
		}
	}
	v->inc_len = total;
	v->inc_placed = was->inc_placed;
	free(kids);
	free(marked);
	return rc;
}

int sv_view_when_scale(double *out, sv_view *v)
{
	if (v->inc_rows) {
		*out = v->scale;
		return 0;
	}
	return when_rows(out, v, NULL);
}

int view_when_like(sv_view *v, view_was *was)
{
	double scale, start, D;
	sv_view_when_bounds(v, &start, &D);
	if (was->owned && D > 0 && !v->remap) {
		bool done;
		int rc = rows_in_place(v, was, D, &done);
		if (rc || done) {
			if (!rc)
				v->scale = rows_scale(v, D);
			return rc;
		}
	}
	return when_rows(&scale, v, was);
}

int sv_view_when_exc(sv_view *v)
{
	double start, D;
	sv_view_when_bounds(v, &start, &D);
	return v->exc_rows || !(D > 0) ? 0 : exc_rows(v); /* (no time range: none, every row 0) */
}

void sv_view_node_inc_hist(double out[SV_WHEN_LEN], const sv_view *v, sv_node_id n)
{
	float h[SV_WHEN_LEN] = { 0 };
	hist_add_row(h, v, n); /* (nothing without rows) */
	for (int k = 0; k < SV_WHEN_LEN; k++)
		out[k] = h[k];
}
unsigned sv_view_node_exc_row(const sv_view *v, sv_node_id n, unsigned *first, const float **buckets)
{
	if (!v->exc_rows) { /* no time range (sv_view_when_exc): empty */
		*first = 0;
		*buckets = NULL;
		return 0;
	}
	*first = v->exc_lo[n];
	*buckets = v->exc_rows + v->exc_off[n];
	return v->exc_w[n];
}

int sv_view_node_when(char out[SV_WHEN_LEN + 1], sv_view *v, sv_node_id n)
{
	double scale;
	int rc = sv_view_when_scale(&scale, v);
	if (rc)
		return rc;
	double h[SV_WHEN_LEN];
	sv_view_node_inc_hist(h, v, n);
	sv_when_encode(out, h, scale);
	return 0;
}

/* Each name's row of buckets: from the first to the last bucket its first-on-path nodes'
 * rows reach (most names are a few nodes' in one or two buckets), zeroed. */
static int name_rows(sv_view *v)
{
	uint32_t nn = view_name_count(v);
	free(v->name_hist_off); /* (left by a try that ran out of memory) */
	free(v->name_hist_lo);
	free(v->name_hist_w);
	v->name_hist_off = malloc(((size_t)nn + 1) * sizeof(*v->name_hist_off));
	v->name_hist_lo = malloc((size_t)nn + 1);
	v->name_hist_w = malloc((size_t)nn + 1);
	if (!v->name_hist_off || !v->name_hist_lo || !v->name_hist_w)
		return SV_ENOMEM;
	uint8_t *lo = v->name_hist_lo, *hi = v->name_hist_w; /* hi + 1 until the widths */
	memset(lo, SV_WHEN_LEN, (size_t)nn + 1);
	memset(hi, 0, (size_t)nn + 1);
	for (size_t i = 0; i < v->bn->nfirst_on_path; i++) {
		uint32_t name = v->bn->first_on_path_name[i], n = v->bn->first_on_path[i];
		if (!v->inc_w || !v->inc_w[n]) /* (no time range: no rows) */
			continue;
		if (v->inc_lo[n] < lo[name])
			lo[name] = v->inc_lo[n];
		if (v->inc_lo[n] + v->inc_w[n] > hi[name])
			hi[name] = (uint8_t)(v->inc_lo[n] + v->inc_w[n]);
	}
	size_t total = 0;
	for (uint32_t k = 0; k < nn; k++) {
		uint8_t w = hi[k] > lo[k] ? (uint8_t)(hi[k] - lo[k]) : 0;
		v->name_hist_w[k] = w;
		if (!w)
			lo[k] = 0;
		v->name_hist_off[k] = total;
		total += w;
	}
	return (v->name_hist = calloc(total ? total : 1, sizeof(float))) ? 0 : SV_ENOMEM;
}

/* ByName histograms: sum of inclusive histograms of first-on-path nodes (§7.5), in
 * depth-first order. Only the rows asked for are summed: the first 64 (or up to the row
 * asked), then twice as many each time a later row is wanted, so printing the top rows of
 * a large profile does not pay for every name. A name's sum is the same whichever batch
 * computes it. */
static int name_hists(sv_view *v, uint32_t upto)
{
	double scale;
	int rc = sv_view_when_scale(&scale, v);
	if (rc)
		return rc;
	uint32_t nn = view_name_count(v), nrows = v->bn->nbyname;
	uint32_t from = v->name_hist_rows;
	upto = upto < 64 ? 64 : upto;
	if (upto < 2 * from)
		upto = 2 * from;
	if (upto > nrows)
		upto = nrows;
	if (!v->name_hist && name_rows(v))
		return SV_ENOMEM;
	uint8_t *want = calloc(nn ? nn : 1, 1);
	if (!want)
		return SV_ENOMEM;
	for (uint32_t r = from; r < upto; r++)
		want[v->bn->byname[r]] = 1;
	/* the first-on-path nodes in depth-first order, as compute_byname met them */
	for (size_t i = 0; i < v->bn->nfirst_on_path; i++) {
		uint32_t name = v->bn->first_on_path_name[i];
		if (want[name])
			hist_add_row_at(v->name_hist + v->name_hist_off[name], v->name_hist_lo[name], v,
					v->bn->first_on_path[i]);
	}
	free(want);
	v->name_hist_rows = upto;
	return 0;
}

int sv_view_byname_hist(double out[SV_WHEN_LEN], sv_view *v, uint32_t row)
{
	if (sv_view_byname_prepare(v))
		return SV_ENOMEM;
	if (row >= v->bn->nbyname)
		return SV_EINVAL;
	if (row >= v->name_hist_rows && name_hists(v, row + 1))
		return SV_ENOMEM;
	uint32_t name = v->bn->byname[row];
	const float *h = v->name_hist + v->name_hist_off[name];
	int lo = v->name_hist_lo[name], w = v->name_hist_w[name];
	for (int k = 0; k < SV_WHEN_LEN; k++)
		out[k] = k >= lo && k < lo + w ? h[k - lo] : 0;
	return 0;
}

int sv_view_byname_when(char out[SV_WHEN_LEN + 1], sv_view *v, uint32_t row)
{
	double h[SV_WHEN_LEN];
	int rc = sv_view_byname_hist(h, v, row);
	if (rc)
		return rc;
	sv_when_encode(out, h, v->scale);
	return 0;
}
