/* SPDX-License-Identifier: MIT */
/* Internals of sv_view shared by view.c (pipeline, tree, Fold%), view_like.c (views made
 * from another), view_byname.c (ByName), view_query.c (what a view answers) and when.c. */
#ifndef STACKVIEW_VIEW_INT_H
#define STACKVIEW_VIEW_INT_H

#include <math.h>

#include "stackview/view.h"
#include "source_int.h"
#include "strtab_int.h"
#include "sv/keysort.h"

#define SLACK 0.0006 /* §5.3 */
#define NONE32 UINT32_MAX

/* Everything computed once per distinct frame (§5.4); kept in the view, so that a view whose
 * boxes differ from it only in IncPats and ExcPats is made without making its tree again
 * (sv_view_new_like). The matches (inc, exc, fold) stay those of the boxes the tree was made
 * with: a view refiltered from it matches each frame again into tables of its own. */
typedef struct frame_memo {
	uint32_t group;     /* group name id, or NONE32 when ungrouped */
	uint32_t disp;      /* display name id: short name, G, or "G <<short>>" */
	uint32_t short_id;  /* name id of the frame's own short name (root-most fold rule) */
	uint64_t inc;       /* IncPats entries matched by the post-group name */
	uint8_t kind;       /* sv_group_kind */
	uint8_t exc, fold;
	uint8_t uniq;       /* no other frame has this display name (building the tree) */
} frame_memo;

/* A node's sums: sv_stats but the Fold columns, which most views never fill (vfold), and
 * First and Last (vspan). */
typedef struct vstats {
	double inc, inc_ct, exc, exc_ct;
	double max;
} vstats;

/* A node is 48 bytes, 64 with its span (the tree's passes read nodes at random: the smaller
 * the fewer misses and first touches; a 10M-object heap's view touches 10M of them).
 * Aligning the table to cache lines (posix_memalign) measured worse on the terminal UI's
 * first GroupPats change (+45 ms of ~400) for 0.3 s of a 10M-object heap view's 10 s. */
typedef struct vnode {
	uint32_t name;
	uint32_t nsamp; /* inclusive number of samples (at most SV_MAX_SAMPLES) */
	vstats st;      /* until accumulate, max is over the node's own samples */
} vnode;
_Static_assert(sizeof(vnode) == 48, "a node is 48 bytes");

/* A node's first start and last end (until accumulate: over its own samples), right after it
 * in the node table (view_node_span) unless every sample is at one time (sv_view.one_time:
 * then the nodes are 48 bytes apart, not 64). A table of its own measured 60 ms worse on the
 * terminal UI's GroupPats change on the ByName tab (a second random read a node). */
typedef struct vspan {
	double first, last;
} vspan;

/* A node's Fold and Fold Count (spec §4.2, §6.1): what folded into it. */
typedef struct vfold {
	double fold, fold_ct;
} vfold;

/* A node's own (exclusive) span: first start, last end, largest metric. */
typedef struct xspan {
	double first, last, max;
} xspan;

/* Where a node's exclusive span is (sv_view.xidx): a node without children has its
 * inclusive one; one with children and no samples of its own has none; the others have
 * theirs in sv_view.xs_max and xs_span. */
#define XS_INCLUSIVE UINT32_MAX
#define XS_NONE (UINT32_MAX - 1)

/* ByName (§6.3), made the first time it is asked for (sv_view_byname_prepare), from a
 * const view too: the view points at it, allocated with the view. */
typedef struct view_byname {
	uint32_t *byname;      /* row -> name id */
	uint32_t *byname_row;  /* name id -> row */
	sv_stats *byname_st;   /* per name id */
	uint32_t nbyname;
	bool byname_made;      /* the above are made (and hold for the view as it is) */
	uint32_t *first_on_path; /* nodes whose name is not above them, depth-first: a name's */
	size_t nfirst_on_path;   /* inclusive cost (and When) sums its nodes in this list */
	uint32_t *first_on_path_name; /* their names, in the same order */
} view_byname;

struct sv_view {
	const sv_source *src;
	sv_params params;
	sv_scaling scaling;
	/* metrics summed in whole quanta of the source's (sv_source_metric_scale: this many a
	 * unit of the metric; 1 without one): sums exact in any order, read back divided by it */
	double qs;
	double lo, hi; /* Start - 0.0006, End + 0.0006 */
	bool has_range;
	bool inc_empty;

	/* Name ids: [0, nbase) the source's short names (base: shorts.t, shared, with each
	 * frame's id, their places and whether one has " <<"; sv_source_sum_stacks made it), then
	 * the view's own names (groups, composed names) in `names`, each string once. */
	sv_short_names base;
	uint32_t nbase;
	strtab names;
	uint64_t *own_rank; /* per name of the view's own (nown_rank of them): its place for the
			     * sorts, 0: none */
	uint32_t nown_rank;

	/* node_cap entries node_size bytes apart, read through view_node: a vnode, then its
	 * vspan unless one_time: every sample of a data-scaled source is at t_one (a heap
	 * snapshot's, at 0); a node's First and Last are then t_one when it has samples
	 * (view_node_first, view_node_last) */
	vnode *nodes;
	size_t node_size;
	bool one_time;
	double t_one;
	uint32_t *parent;      /* per node (NONE for ROOT): apart, so passes over the tree's shape
				* do not read the nodes */
	uint32_t nnodes;
	size_t node_cap;
	uint32_t *children;    /* child lists: node n's are [kids[n], kids[n + 1]), sorted (§6.1)
				* except those marked in `unsorted`: read them through view_children */
	uint32_t *kids;
	/* A bit per node whose list (2 children or more) is sorted when it is first asked for:
	 * a change of boxes sorts no list the screen does not show (NULL: every list sorted) */
	uint64_t *unsorted;
	uint32_t *remap;       /* node -> node that finally holds its samples (Fold%; NULL: none
				* folds, each its own: view_remap) */
	vfold *fold;           /* per node (nnodes of them) once a sample or Fold% folds into
				* one; NULL: nothing folded, every node's Fold is 0 */
	uint32_t *xidx;        /* per node: its exclusive span's place (XS_*, or in xs_max) */
	double *xs_max;        /* the own spans (nxs of them): largest metric, */
	vspan *xs_span;        /* first and last, unless one_time: t_one where max is not
				* -INFINITY (a sample's metric is finite) */
	size_t nxs, xs_cap, xs_span_cap;
	uint8_t *alive;

	uint32_t *stack_node;  /* per stack: node, or UINT32_MAX when dropped */
	uint32_t *stack_pre;   /* per stack: its node before IncPats dropped it (UINT32_MAX: ExcPats
				* discarded it) */
	frame_memo *fm;        /* per frame (nfm of them) */
	uint32_t nfm;
	uint8_t *stack_folded; /* per stack: leaf state folded (Fold column) */

	view_byname *bn; /* ByName: made when first asked for, through a const view too */

	/* When histograms (lazy) */
	float *exc_rows; /* exclusive histograms: node n's buckets [exc_lo, exc_lo + exc_w) at */
	uint32_t *exc_off; /* exc_rows + exc_off[n] (float-rounded sums, §7.6) */
	uint8_t *exc_lo, *exc_w;
	float *name_hist; /* float-rounded sums (§7.6): a float holds each exactly; name k's
			   * buckets [name_hist_lo[k], + name_hist_w[k]) at name_hist_off[k] */
	size_t *name_hist_off;
	uint8_t *name_hist_lo, *name_hist_w;
	float *inc_rows;       /* inclusive histograms: node n's buckets [inc_lo, inc_lo + inc_w) */
	uint32_t *inc_off;     /* at inc_rows + inc_off[n] (a table past 2^32 floats: SV_ENOMEM) */
	uint8_t *inc_lo, *inc_w;
	size_t inc_len;        /* floats in inc_rows (marked nodes' rows placed again past it) */
	size_t inc_placed;     /* inc_len when every row was last placed */
	uint32_t name_hist_rows; /* ByName rows [0, this) have their name_hist summed */
	double scale;

	double ms_filter, ms_tree; /* phase timings of sv_view_new */
	sv_netpeak np;             /* sv_view_net_peak, once computed */
	bool np_known;
};

static inline vnode *view_node(const sv_view *v, uint32_t n)
{
	return (vnode *)((char *)v->nodes + (size_t)n * v->node_size);
}

/* Node n's span (not one_time). */
static inline vspan *view_node_span(const sv_view *v, uint32_t n)
{
	return (vspan *)((char *)view_node(v, n) + sizeof(vnode));
}

/* Node n's first start and last end (INFINITY and -INFINITY: no sample). */
static inline double view_node_first(const sv_view *v, uint32_t n)
{
	return !v->one_time ? view_node_span(v, n)->first : view_node(v, n)->nsamp ? v->t_one : INFINITY;
}

static inline double view_node_last(const sv_view *v, uint32_t n)
{
	return !v->one_time ? view_node_span(v, n)->last : view_node(v, n)->nsamp ? v->t_one : -INFINITY;
}

/* A sample's metric m as the view sums it: in whole quanta with a quantum (qs), unless the
 * time range cut the sample (m is then not its whole metric, `whole`: its share). */
static inline double view_qmetric(const sv_view *v, double m, double whole)
{
	return v->qs == 1 ? m : m == whole ? nearbyint(m * v->qs) : m * v->qs;
}

/* Node n's sums as sv_view_node_stats gives them. */
static inline sv_stats view_node_stats(const sv_view *v, uint32_t n)
{
	const vstats *s = &view_node(v, n)->st;
	const vfold *f = v->fold ? &v->fold[n] : NULL;
	return (sv_stats){ .inc = s->inc, .inc_ct = s->inc_ct, .exc = s->exc, .exc_ct = s->exc_ct,
			   .fold = f ? f->fold : 0, .fold_ct = f ? f->fold_ct : 0,
			   .first = view_node_first(v, n), .last = view_node_last(v, n), .max = s->max };
}

/* Keep/prorate one sample against the time range (§5.3); false = dropped. */
static inline bool view_clip(const sv_view *v, double *t, double *m)
{
	if (v->scaling == SV_SCALING_DATA)
		return *t >= v->lo && *t <= v->hi;
	double span = *m < 0 ? -*m : *m;
	double sign = *m < 0 ? -1.0 : 1.0;
	if (*t > v->hi || *t + span < v->lo)
		return false;
	if (*t < v->lo) {
		span = *t + span - v->lo;
		*t = v->lo;
		*m = sign * span;
	}
	if (*t + span > v->hi) {
		span = v->hi - *t;
		*m = sign * span;
	}
	return true;
}

static inline const char *view_name_str(const sv_view *v, uint32_t id)
{
	return id < v->nbase ? sv_strtab_str(v->base.t, id) : sv_strtab_str(&v->names, id - v->nbase);
}

static inline size_t view_name_len(const sv_view *v, uint32_t id)
{
	return id < v->nbase ? sv_strtab_len(v->base.t, id) : sv_strtab_len(&v->names, id - v->nbase);
}

/* The length of frame f's full name and of its short name (as the source keeps them: no
 * frame name holds a NUL, so these are strlen's) */
static inline size_t view_frame_len(const sv_source *src, sv_frame_id f)
{
	return sv_strtab_len(&src->frames, f);
}

static inline size_t view_frame_short_len(const sv_source *src, sv_frame_id f)
{
	return sv_strtab_len(&src->frames, f) - src->short_off[f];
}

static inline uint32_t view_name_count(const sv_view *v)
{
	return v->nbase + v->names.count;
}

/* A name's place for the sorts (sv/keysort.h): a source's short name's place in the high
 * half of set 1 (the low half all ones: entry groups' names placed among them take the
 * places below, rank_entry_names), or an entry group's name's among those names only (set
 * 2); SV_KEYSORT_NO_RANK for the view's other names. */
static inline uint64_t view_name_rank(const sv_view *v, uint32_t id)
{
	if (id < v->nbase)
		return v->base.rank ? 1ull << 62 | (uint64_t)v->base.rank[id] << 32 | 0xFFFFFFFFu : UINT64_MAX;
	uint64_t r = id - v->nbase < v->nown_rank ? v->own_rank[id - v->nbase] : 0;
	return r ? r : UINT64_MAX;
}

/* A name's id, or UINT32_MAX. */
static inline uint32_t view_name_find(const sv_view *v, const char *s, size_t len)
{
	uint32_t id = v->base.t ? sv_strtab_find(v->base.t, s, len) : UINT32_MAX;
	if (id != UINT32_MAX)
		return id;
	id = sv_strtab_find(&v->names, s, len);
	return id == UINT32_MAX ? id : id + v->nbase;
}

/* view.c: a view of src (sv_view_new); `like`: a view of src with the same GroupPats whose
 * frames' groups and names are taken instead of made again (NULL: none); `release`: a view
 * freed (and *release set to NULL) once params passed every check but memory, before the tree
 * is made (NULL: none); `byname`: ByName made with the tree (sv_view_finish). Errors:
 * sv_view_new's. */
int view_build(sv_view **out, const sv_source *src, const sv_params *params, const sv_view *like,
	       sv_view **release, bool byname, sv_error *err);
/* The view's time boxes normalised (§5.3) and its Fold% checked; 0 or SV_EINVAL, SV_ENOMEM. */
int view_check_params(sv_view *v, sv_error *err);
/* Node i as the stacks make it: no samples yet (its span too, unless one_time). */
void view_node_init(sv_view *v, uint32_t i, uint32_t name);
/* v->one_time, v->t_one and v->node_size for the view's source and scaling. */
void view_set_one_time(sv_view *v);
/* Room for n nodes and their parents; 0 or SV_ENOMEM. */
int view_nodes_reserve(sv_view *v, size_t n);

/* What a view refiltered from another takes from it (view_like: other IncPats or ExcPats,
 * the same time range, Fold% in neither). A node whose subtree kept the same stacks is clean
 * (dirty[n] == 0): its sums, span, Fold, liveness, own span and When row are the other view's,
 * not summed again (the same sums in the same order: the same bits). The nodes, liveness and
 * own spans are in the view already (taken or copied); Fold and When rows are that view's
 * arrays, borrowed or taken (`owned`: view_like frees them). */
typedef struct view_was {
	uint8_t *dirty; /* per node: nonzero when a stack in its subtree was kept and is not, or
			 * the other way (ROOT always); the node's sums are made again */
	uint64_t *marks; /* a bit a node: dirty[n] != 0 (view_marked: the passes over every node
			  * or sample read it, in the cache where dirty is not) */
	uint64_t *smarks; /* a bit a stack, and bit nst for the samples without one: its samples
			   * go to a marked node (the passes over the samples skip the others) */
	vfold *fold;
	float *inc_rows; /* NULL: the other view's When rows were not made */
	uint32_t *inc_off;
	uint8_t *inc_lo, *inc_w;
	size_t inc_len, inc_placed;
	bool owned;
} view_was;

/* Whether node n is marked (view_was.marks). */
static inline bool view_marked(const uint64_t *marks, uint32_t n)
{
	return marks[n >> 6] >> (n & 63) & 1;
}

/* view_tree.c: the samples into the nodes the stacks made, then totals, children and
 * Fold% (t0: when the view's build began, for its timings), and ByName with `byname` (else
 * when first asked for); `was`: the clean nodes' sums are in them already, their own spans and
 * Fold taken from was (NULL: every node summed); 0 or SV_ENOMEM. */
int sv_view_finish(sv_view *v, double t0, bool byname, const view_was *was);
/* The view's Fold% when it folds (a number above 0), else 0. */
double view_fold_pct(const sv_view *v);
/* A monotonic clock in ms, for the phases' timings. */
double sv_view_now_ms(void);

/* when.c: the When rows of a view refiltered from another whose rows were made (as
 * sv_view_when_scale's, made at once): the clean nodes' are that view's. Taken with the
 * table (was->owned: then was's tables are NULL after), where only the marked nodes' rows
 * are placed again, at its end, while the table stays within twice its size when every row
 * was last placed; else copied into a new one. 0 or SV_ENOMEM. */
int view_when_like(sv_view *v, view_was *was);

/* view_kids.c: node n's children in their order (its list sorted first when it is not yet);
 * every list sorted at once, for a walk of the whole tree. A view is asked from one thread
 * at a time (view.h): these sort in place behind a const view. */
enum { KIDS_LAZY = 64 }; /* lists up to this long are sorted on the stack */
uint32_t view_children(const sv_view *v, uint32_t n, const uint32_t **out);
void view_sort_children(const sv_view *v);

/* view_names.c: a view's names. A name's id, interned when new (`own`: not looked for
 * among the source's short names, where it cannot be). 0 or SV_ENOMEM / SV_ELIMIT. */
int view_name_intern(sv_view *v, uint32_t *out, const char *s, size_t len, bool own);
/* The same for a text whose sv_hash_bytes is h. */
int view_name_intern_hashed(sv_view *v, uint32_t *out, const char *s, size_t len, uint64_t h, bool own);
/* The names start from the source's short names when it shares them (sv_source_sum_stacks:
 * a view among many, the terminal UI's). */
void view_names_init(sv_view *v);
/* The names of `like` (a view of the same source): its ids for the same texts, and their
 * places. 0 or SV_ENOMEM. */
int view_names_like(sv_view *v, const sv_view *like);
/* Places for the entry groups' display names "G <<short>>" of the view's own, so that the
 * sorts compare numbers, not texts: (G's place among the groups' "G <<", the place of
 * short + ">>" among the source's short names). Two such names of different groups are in
 * the order of their "G <<" (neither is the other's start, no group's name having " <<" in
 * it; else none is ranked), of one group in the order of what follows. From the frames' memos fm[0, nf).
 * 0 or SV_ENOMEM. */
int view_rank_entry_names(sv_view *v, const frame_memo *fm, uint32_t nf);

/* view_byname.c: ByName's rows from the finished tree (building a view calls it). */
int sv_view_compute_byname(const sv_view *v);
/* A new view, zeroed, with its ByName's room (NULL: out of memory); sv_view_free frees it. */
sv_view *view_alloc(void);

/* The node that finally holds node n's samples (itself unless Fold% folded it). */
static inline uint32_t view_remap(const sv_view *v, uint32_t n)
{
	return v->remap ? v->remap[n] : n;
}

/* Node n's exclusive span (XS_*). */
static inline xspan view_node_xspan(const sv_view *v, uint32_t n)
{
	uint32_t i = v->xidx ? v->xidx[n] : XS_INCLUSIVE;
	if (i == XS_INCLUSIVE)
		return (xspan){ view_node_first(v, n), view_node_last(v, n), view_node(v, n)->st.max };
	if (i == XS_NONE)
		return (xspan){ INFINITY, -INFINITY, -INFINITY };
	double max = v->xs_max[i];
	if (v->xs_span)
		return (xspan){ v->xs_span[i].first, v->xs_span[i].last, max };
	bool any = max != -INFINITY;
	return (xspan){ any ? v->t_one : INFINITY, any ? v->t_one : -INFINITY, max };
}

#endif
