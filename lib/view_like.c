/* SPDX-License-Identifier: MIT */
/* Views made from another view of the same source (stackview/view.h: sv_view_new_like,
 * sv_view_renew): what their boxes share reused — the tree refiltered for other IncPats and
 * ExcPats, the frames' groups and names for other FoldPats — and, when renewing, the old
 * view's memory given to the new one. */
#include "stackview/view.h"

#include <stdlib.h>
#include <string.h>

#include "stackview/pattern.h"
#include "sv/array.h"
#include "view_int.h"

static bool same_box(const sv_params *a, const sv_params *b, int box)
{
	const char *x = a->box[box] ? a->box[box] : "", *y = b->box[box] ? b->box[box] : "";
	return strcmp(x, y) == 0;
}

static bool blank_box(const sv_params *p, int box)
{
	const char *t = p->box[box] ? p->box[box] : "";
	return strspn(t, " \t;") == strlen(t);
}

/* IncPats and ExcPats of v's params applied to prev's tree (the same GroupPats and FoldPats;
 * a tree that holds every stack v's ExcPats keep: tree_holds), in two steps. First each
 * frame's post-group name is matched again: *fx gets a byte a frame (bit 0: ExcPats discard
 * it, bit 1: it folds) and *finc its IncPats entries (NULL when IncPats are empty). The memos
 * stay as the tree was made (its ExcPats, FoldPats and IncPats). A frame ExcPats now discard
 * neither folds nor has entries, the others keep the tree's folding (display names: prev's,
 * the same ids). A frame the tree's ExcPats discarded (its fold forced off) is in no stack kept
 * now: each stack it is in was discarded then, and is now (tree_holds). Every error a pattern
 * can give comes here. */
static int refilter_frames(sv_view *v, const sv_view *prev, uint64_t *need, uint8_t **fx, uint64_t **finc,
			   sv_error *err)
{
	sv_patlist *inc = NULL, *exc = NULL;
	int rc;
	if ((rc = sv_patlist_new(&inc, v->params.box[SV_BOX_INC], "IncPats", err)) ||
	    (rc = sv_patlist_new(&exc, v->params.box[SV_BOX_EXC], "ExcPats", err)))
		goto out;
	size_t ninc = sv_patlist_count(inc);
	if (ninc > 64) {
		rc = sv_error_set(err, SV_ELIMIT, "IncPats: more than 64 entries");
		goto out;
	}
	v->inc_empty = ninc == 0;
	*need = ninc == 64 ? ~0ULL : ((1ULL << ninc) - 1);
	if (!(*fx = malloc((size_t)prev->nfm + 1)) || (ninc && !(*finc = malloc(((size_t)prev->nfm + 1) * sizeof(**finc))))) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	const sv_source *src = v->src;
	for (uint32_t f = 0; f < prev->nfm; f++) {
		const frame_memo *m = &prev->fm[f];
		bool own = m->kind == SV_GROUP_NONE;
		const char *pname = own ? sv_source_frame_name(src, f) : view_name_str(prev, m->disp);
		size_t plen = own ? view_frame_len(src, f) : view_name_len(prev, m->disp);
		bool is_exc = sv_patlist_count(exc) && sv_patlist_match_any(exc, pname, plen);
		(*fx)[f] = (uint8_t)(is_exc | (m->fold && !is_exc) << 1);
		if (ninc)
			(*finc)[f] = sv_patlist_match_bits(inc, pname, plen);
	}
	const char *hit = sv_patlist_limit_hit(inc) ? sv_patlist_limit_hit(inc) : sv_patlist_limit_hit(exc);
	if (hit)
		rc = sv_error_set(err, SV_ELIMIT, "%s: pattern '%.200s' needs too much backtracking to match (simplify it)",
				  sv_patlist_limit_hit(inc) ? "IncPats" : "ExcPats", hit);
out:
	sv_patlist_free(inc);
	sv_patlist_free(exc);
	return rc;
}

/* Then each stack's IncPats entries and discarding are carried from its caller as
 * transform_stacks carries them (a stack that made no node of its own, folded or an entry
 * group's inside, adds no entries; nor does a root-most frame that folds), each stack's node
 * kept from prev (v->stack_pre), each frame's bits read in fx and finc (refilter_frames': a
 * byte a frame and its entries apart, read at random: in the cache where the 32-byte memos
 * are not). A kept stack's frame folds as it did in prev's.
 * `dirty` (NULL: not asked): the node of each stack whose node is not `old`'s (prev's
 * stack_node) marked, as long as *changes, counted down, stays above 0. 0 or SV_ENOMEM. */
static int refilter_stacks(sv_view *v, uint64_t need, const uint8_t *fx, const uint64_t *finc, const uint32_t *old,
			   uint8_t *dirty, uint32_t *changes)
{
	uint32_t nst = sv_source_stack_count(v->src);
	const sv_stack_id *caller = sv_source_stack_callers(v->src);
	const sv_frame_id *frame = sv_source_stack_frames(v->src);
	bool any_inc = !v->inc_empty;
	uint8_t *disc = malloc((size_t)nst + 1);
	uint64_t *inc_of = any_inc ? sv_malloc_big(((size_t)nst + 1) * sizeof(*inc_of)) : NULL;
	if (!disc || (any_inc && !inc_of)) {
		free(disc);
		free(inc_of);
		return SV_ENOMEM;
	}
	const uint32_t *pre = v->stack_pre;
	for (uint32_t s = 0; s < nst; s++) {
		/* a frame's bits and a caller's state are random reads: asked for ahead */
		if (s + 16 < nst) {
			__builtin_prefetch(&fx[frame[s + 16]]);
			if (finc)
				__builtin_prefetch(&finc[frame[s + 16]]);
			sv_stack_id a = caller[s + 16];
			if (a != SV_STACK_NONE) {
				__builtin_prefetch(&disc[a]);
				__builtin_prefetch(&pre[a]);
				if (any_inc)
					__builtin_prefetch(&inc_of[a]);
			}
		}
		sv_stack_id c = caller[s];
		sv_frame_id f = frame[s];
		disc[s] = pre[s] == NONE32 || (fx[f] & 1) || (c != SV_STACK_NONE && disc[c]);
		uint64_t in = 0;
		if (!disc[s] && any_inc) {
			bool own = c == SV_STACK_NONE ? !(fx[f] & 2) : pre[s] != pre[c];
			in = (c != SV_STACK_NONE ? inc_of[c] : 0) | (own ? finc[f] : 0);
			inc_of[s] = in;
		}
		uint32_t node = !disc[s] && (in & need) == need ? pre[s] : NONE32;
		/* (old may be stack_node itself: read before it is written) */
		if (dirty && node != old[s]) {
			dirty[pre[s]] = 1; /* (kept before or now: pre[s] is a node) */
			if (!--*changes) /* too many: not marked further */
				dirty = NULL;
		}
		v->stack_node[s] = node;
	}
	free(inc_of);
	free(disc);
	return 0;
}

/* What a view with params can take from prev (a view of the same source). */
typedef enum like_kind {
	LIKE_NOTHING, /* other GroupPats */
	LIKE_NAMES,   /* other FoldPats, or ExcPats prev's tree cannot be refiltered for (it
		       * lacks stacks they keep: view_like says so): the tree made again from
		       * prev's frames' groups and names */
	LIKE_TREE,    /* other IncPats, ExcPats, time range or Fold%: prev's tree, refiltered */
} like_kind;

static like_kind like_of(const sv_view *prev, const sv_params *params)
{
	const sv_params *pp = &prev->params;
	bool same_ie = same_box(pp, params, SV_BOX_INC) && same_box(pp, params, SV_BOX_EXC);
	if (!same_box(pp, params, SV_BOX_GROUP))
		return LIKE_NOTHING;
	if (!same_box(pp, params, SV_BOX_FOLD) || (!same_ie && (!prev->stack_pre || !prev->fm)))
		return LIKE_NAMES;
	return LIKE_TREE;
}

enum { LIKE_LACKS = 1 }; /* view_like: prev's tree lacks stacks the new ExcPats keep */

/* Whether prev's tree holds every stack v's ExcPats keep (fx: refilter_frames'): a stack
 * prev's ExcPats discarded made no node, so it must be discarded now too (a frame of it
 * matching, its own or a caller's). Asked only when prev's ExcPats are not empty and differ.
 * Most often (ExcPats that grow) the frame of each stack prev discarded first (its caller
 * kept) still matches: then every stack below it is discarded as it was, and only the
 * discarded stacks' frames are read. Else each stack's discarding is carried from its
 * caller, as refilter_stacks carries it. */
static bool tree_holds(const sv_view *v, const sv_view *prev, const uint8_t *fx, int *rc)
{
	uint32_t nst = sv_source_stack_count(v->src);
	const sv_stack_id *caller = sv_source_stack_callers(v->src);
	const sv_frame_id *frame = sv_source_stack_frames(v->src);
	const uint32_t *pre = prev->stack_pre;
	*rc = 0;
	bool firsts_match = true;
	for (uint32_t s = 0; firsts_match && s < nst; s++) {
		sv_stack_id c = caller[s];
		if (pre[s] == NONE32 && (c == SV_STACK_NONE || pre[c] != NONE32))
			firsts_match = fx[frame[s]] & 1;
	}
	if (firsts_match)
		return true;
	uint8_t *disc = malloc((size_t)nst + 1);
	*rc = disc ? 0 : SV_ENOMEM;
	bool holds = disc != NULL;
	for (uint32_t s = 0; holds && s < nst; s++) {
		/* a caller's state is a random read: asked for ahead */
		if (s + 16 < nst && caller[s + 16] != SV_STACK_NONE)
			__builtin_prefetch(&disc[caller[s + 16]]);
		sv_stack_id c = caller[s];
		disc[s] = (fx[frame[s]] & 1) || (c != SV_STACK_NONE && disc[c]);
		holds = disc[s] || pre[s] != NONE32;
	}
	free(disc);
	return holds;
}

/* prev's arrays given to v (sv_view_renew): its names, nodes, per-stack arrays and, when v
 * has no copy of them, its frames' memos; with `was` (was->dirty set already), what its clean
 * nodes keep: liveness and own spans into v, Fold and When rows into was; then the rest of it
 * freed. */
static void take_tree(sv_view *v, sv_view *prev, view_was *was)
{
	v->base = prev->base;
	v->nbase = prev->nbase;
	sv_strtab_dispose(&v->names);
	v->names = prev->names;
	sv_strtab_init(&prev->names);
	v->own_rank = prev->own_rank;
	v->nown_rank = prev->nown_rank;
	v->nodes = prev->nodes;
	v->parent = prev->parent;
	v->node_cap = prev->node_cap;
	v->nnodes = prev->nnodes;
	v->stack_pre = prev->stack_pre;
	v->stack_folded = prev->stack_folded;
	v->stack_node = prev->stack_node;
	if (!v->fm && prev->fm && prev->stack_pre) { /* (as the tree was made: refilter_frames' bits are apart) */
		v->fm = prev->fm;
		v->nfm = prev->nfm;
		prev->fm = NULL;
	}
	prev->own_rank = NULL;
	prev->nodes = NULL;
	prev->parent = NULL;
	prev->stack_pre = NULL;
	prev->stack_folded = NULL;
	prev->stack_node = NULL;
	if (was) { /* what the clean nodes keep: taken before prev is freed */
		v->alive = prev->alive, v->xidx = prev->xidx;
		v->xs_max = prev->xs_max, v->xs_span = prev->xs_span;
		v->nxs = prev->nxs, v->xs_cap = prev->xs_cap, v->xs_span_cap = prev->xs_span_cap;
		*was = (view_was){ was->dirty, NULL, NULL, prev->fold, prev->inc_rows, prev->inc_off, prev->inc_lo, prev->inc_w,
				   prev->inc_len, prev->inc_placed, true };
		prev->alive = NULL, prev->xidx = NULL, prev->xs_max = NULL, prev->xs_span = NULL, prev->fold = NULL;
		prev->inc_rows = NULL, prev->inc_off = NULL, prev->inc_lo = prev->inc_w = NULL;
	}
	sv_view_free(prev);
}

/* prev's liveness and own spans copied into v (a view made beside prev); 0 or SV_ENOMEM. */
static int copy_kept(sv_view *v, const sv_view *prev)
{
	size_t n = (size_t)prev->nnodes + 1, k = prev->nxs ? prev->nxs : 1;
	v->alive = malloc(n);
	v->xidx = sv_malloc_big(n * sizeof(*v->xidx));
	v->xs_max = malloc(k * sizeof(*v->xs_max));
	v->xs_span = prev->xs_span ? malloc(k * sizeof(*v->xs_span)) : NULL;
	if (!v->alive || !v->xidx || !v->xs_max || (prev->xs_span && !v->xs_span))
		return SV_ENOMEM;
	memcpy(v->alive, prev->alive, n);
	memcpy(v->xidx, prev->xidx, n * sizeof(*v->xidx));
	if (prev->nxs) /* (none: prev's tables may be NULL) */
		memcpy(v->xs_max, prev->xs_max, prev->nxs * sizeof(*v->xs_max));
	if (prev->nxs && v->xs_span)
		memcpy(v->xs_span, prev->xs_span, prev->nxs * sizeof(*v->xs_span));
	v->nxs = prev->nxs, v->xs_cap = k, v->xs_span_cap = v->xs_span ? k : 0;
	return 0;
}

/* The liveness and own spans taken or copied from prev let go of (all summed again). */
static void drop_kept(sv_view *v)
{
	free(v->alive);
	free(v->xidx);
	free(v->xs_max);
	free(v->xs_span);
	v->alive = NULL, v->xidx = NULL, v->xs_max = NULL, v->xs_span = NULL;
	v->nxs = v->xs_cap = v->xs_span_cap = 0;
}

static void was_dispose(view_was *was)
{
	if (was->owned) {
		free(was->fold);
		free(was->inc_rows);
		free(was->inc_off);
		free(was->inc_lo);
		free(was->inc_w);
	}
	free(was->dirty);
	free(was->marks);
	free(was->smarks);
}

/* Whether a view with v's params, refiltered from prev, can take prev's sums for the nodes
 * whose stacks stay (view_was): the same time range, and Fold% in neither (which moves sums
 * between nodes by the totals). */
static bool can_keep_sums(const sv_view *v, const sv_view *prev)
{
	return !(view_fold_pct(v) > 0) && !prev->remap && prev->xidx && prev->alive && v->has_range == prev->has_range &&
	       v->lo == prev->lo && v->hi == prev->hi;
}

/* Nodes marked by refilter_stacks, and ROOT, marked up to ROOT (children have higher ids than
 * their parents), in was->dirty and was->marks, and the stacks whose samples go to them in
 * was->smarks, unless the nodes will take the stacks' sums and no When row is made (a heap
 * snapshot: no range); how many nodes are (0: out of memory). */
static uint32_t mark_dirty(sv_view *v, view_was *was)
{
	uint8_t *dirty = was->dirty;
	uint32_t n = 0, nst = sv_source_stack_count(v->src);
	bool by_sample = !sv_source_stack_sums(v->src) || v->has_range;
	if (!(was->marks = calloc((size_t)v->nnodes / 64 + 1, sizeof(*was->marks))) ||
	    (by_sample && !(was->smarks = calloc((size_t)nst / 64 + 1, sizeof(*was->smarks)))))
		return 0;
	dirty[SV_NODE_ROOT] = 1;
	for (uint32_t i = v->nnodes; i-- > 1;)
		if (dirty[i]) {
			dirty[v->parent[i]] = 1;
			was->marks[i >> 6] |= 1ull << (i & 63);
			n++;
		}
	was->marks[0] |= 1; /* (ROOT) */
	for (uint32_t s = 0; by_sample && s < nst; s++) {
		uint32_t node = v->stack_node[s];
		if (node != NONE32 && view_marked(was->marks, node))
			was->smarks[s >> 6] |= 1ull << (s & 63);
	}
	if (by_sample && v->inc_empty) /* (the samples without a stack go to ROOT) */
		was->smarks[nst >> 6] |= 1ull << (nst & 63);
	return n + 1;
}

/* A view on prev's tree (LIKE_TREE); `release`: prev may be given up (*release is prev, set
 * to NULL once it is), its arrays taken over instead of copied, once params passed every
 * check but memory; `byname`: ByName made with the tree (view_from's rule). Other IncPats or
 * ExcPats on the same range (can_keep_sums): the nodes whose stacks stay keep prev's sums and
 * When rows (view_was), the others are summed again. */
static int view_like(sv_view **out, const sv_view *prev, const sv_params *params, sv_view **release, bool byname,
		     sv_error *err)
{
	const sv_params *pp = &prev->params;
	bool same_ie = same_box(pp, params, SV_BOX_INC) && same_box(pp, params, SV_BOX_EXC);
	int rc;
	uint64_t need = 0;
	view_was was = { 0 };
	bool keep = false;
	uint8_t *fx = NULL; /* refilter_frames' bits */
	uint64_t *finc = NULL;
	sv_view *v = view_alloc();
	if (!v)
		return sv_error_set(err, SV_ENOMEM, NULL);
	v->src = prev->src;
	v->scaling = prev->scaling;
	v->qs = sv_source_metric_scale(v->src);
	view_set_one_time(v);
	v->inc_empty = prev->inc_empty;
	sv_strtab_init(&v->names);
	double t0 = sv_view_now_ms();
	if (sv_params_copy(&v->params, params)) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	if ((rc = view_check_params(v, err)))
		goto out;
	uint32_t nst = sv_source_stack_count(v->src);
	if (prev->stack_pre && prev->fm && !release) { /* (renewed: prev's taken as they are) */
		if (!(v->fm = malloc(((size_t)prev->nfm + 1) * sizeof(*v->fm)))) {
			rc = sv_error_set(err, SV_ENOMEM, NULL);
			goto out;
		}
		v->nfm = prev->nfm;
		memcpy(v->fm, prev->fm, (size_t)prev->nfm * sizeof(*v->fm));
	}
	if (!same_ie && (rc = refilter_frames(v, prev, &need, &fx, &finc, err)))
		goto out;
	if (!same_ie && !same_box(pp, params, SV_BOX_EXC) && !blank_box(pp, SV_BOX_EXC) &&
	    !tree_holds(v, prev, fx, &rc)) {
		rc = rc ? sv_error_set(err, rc, NULL) : LIKE_LACKS; /* (before prev is given up) */
		goto out;
	}
	keep = !same_ie && v->qs == prev->qs && can_keep_sums(v, prev);
	if (keep && !(was.dirty = calloc((size_t)prev->nnodes + 1, 1))) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	const uint32_t *old_node = prev->stack_node;
	if (release) { /* every check on params passed: prev's memory is the new view's */
		take_tree(v, *release, keep ? &was : NULL);
		*release = NULL;
		prev = NULL;
		old_node = v->stack_node; /* (refiltered in place) */
	} else {
		/* the names, the nodes (as the stacks made them, before any sample; with their sums
		 * when clean ones keep them) and each stack's node */
		v->stack_node = sv_malloc_big(((size_t)nst + 1) * sizeof(*v->stack_node));
		v->stack_folded = malloc((size_t)nst + 1);
		if (v->fm && !(v->stack_pre = sv_malloc_big(((size_t)nst + 1) * sizeof(*v->stack_pre)))) {
			rc = sv_error_set(err, SV_ENOMEM, NULL);
			goto out;
		}
		if (view_names_like(v, prev) || view_nodes_reserve(v, (size_t)prev->nnodes + 1) || !v->stack_node ||
		    !v->stack_folded) {
			rc = sv_error_set(err, SV_ENOMEM, NULL);
			goto out;
		}
		if (v->fm)
			memcpy(v->stack_pre, prev->stack_pre, ((size_t)nst + 1) * sizeof(*v->stack_pre));
		v->nnodes = prev->nnodes;
		if (keep) {
			memcpy(v->nodes, prev->nodes, (size_t)v->nnodes * v->node_size);
			if (copy_kept(v, prev)) {
				rc = sv_error_set(err, SV_ENOMEM, NULL);
				goto out;
			}
			was = (view_was){ was.dirty, NULL, NULL, prev->fold, prev->inc_rows, prev->inc_off, prev->inc_lo, prev->inc_w,
					  prev->inc_len, prev->inc_placed, false };
		} else {
			for (uint32_t i = 0; i < v->nnodes; i++)
				view_node_init(v, i, view_node(prev, i)->name);
		}
		memcpy(v->parent, prev->parent, (size_t)v->nnodes * sizeof(*v->parent));
		memcpy(v->stack_folded, prev->stack_folded, (size_t)nst + 1);
		if (same_ie)
			memcpy(v->stack_node, prev->stack_node, ((size_t)nst + 1) * sizeof(*v->stack_node));
	}
	/* Most nodes to sum again (IncPats much narrower or wider than prev's: stacks that change
	 * side, or marked nodes, past a quarter of the nodes): then all are, prev's arrays freed
	 * first (the new view's take their memory, not fresh pages) */
	uint32_t changes = v->nnodes / 4 + 1;
	if (!same_ie && (rc = refilter_stacks(v, need, fx, finc, old_node, was.dirty, &changes))) {
		rc = sv_error_set(err, rc, NULL);
		goto out;
	}
	bool held = keep || !prev; /* the nodes hold prev's sums */
	uint32_t nmarked = keep && changes ? mark_dirty(v, &was) : 0;
	if (keep && (!nmarked || nmarked > v->nnodes / 4)) { /* (0: too many, or no room for the marks) */
		was_dispose(&was);
		was = (view_was){ 0 };
		drop_kept(v);
		keep = false;
	}
	if (held) { /* made ready for the samples */
		for (uint32_t i = 0; i < v->nnodes; i++)
			if (!keep || was.dirty[i])
				view_node_init(v, i, view_node(v, i)->name);
	}
	if ((rc = sv_view_finish(v, t0, byname, keep ? &was : NULL)) ||
	    (keep && was.inc_rows && (rc = view_when_like(v, &was)))) {
		rc = sv_error_set(err, rc, NULL);
		goto out;
	}
	was_dispose(&was);
	free(fx);
	free(finc);
	*out = v;
	return 0;
out:
	was_dispose(&was);
	free(fx);
	free(finc);
	sv_view_free(v);
	return rc;
}

/* A view of prev's source with params, built as much as can be from prev (like_of); `release`
 * as view_like's. */
static int view_from(sv_view **out, const sv_view *prev, const sv_params *params, sv_view **release, sv_error *err)
{
	/* ByName made with the tree where prev's was asked for (a view shown by name, changed):
	 * then it is made while the tree is in the cache, not read from memory again later */
	bool byname = prev->bn->byname_made;
	like_kind k = like_of(prev, params);
	if (k == LIKE_NOTHING)
		return view_build(out, prev->src, params, NULL, release, byname, err);
	int rc = k == LIKE_TREE ? view_like(out, prev, params, release, byname, err) : LIKE_LACKS;
	if (rc != LIKE_LACKS)
		return rc;
	/* other FoldPats, or other ExcPats that keep stacks prev's discarded */
	return view_build(out, prev->src, params, prev->fm && prev->nfm == sv_source_frame_count(prev->src) ? prev : NULL,
			  release, byname, err);
}

int sv_view_new_like(sv_view **out, const sv_view *prev, const sv_params *params, sv_error *err)
{
	return view_from(out, prev, params, NULL, err);
}

int sv_view_renew(sv_view **vp, const sv_params *params, bool *remade, sv_error *err)
{
	sv_view *prev = *vp, *v;
	const sv_source *src = prev->src;
	sv_params old;
	*remade = false;
	if (sv_params_copy(&old, &prev->params)) {
		sv_params_dispose(&old);
		return sv_error_set(err, SV_ENOMEM, NULL);
	}
	int rc = view_from(&v, prev, params, vp, err);
	if (!rc) {
		sv_view_free(*vp); /* (NULL: given up on the way) */
		*vp = v;
	} else if (!*vp) { /* prev given up: made again with its params */
		*remade = true;
		if (view_build(vp, src, &old, NULL, NULL, false, NULL))
			*vp = NULL;
	}
	sv_params_dispose(&old);
	return rc;
}

