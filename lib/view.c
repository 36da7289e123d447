/* SPDX-License-Identifier: MIT */
/* Building a view: the filter pipeline, call tree and Fold% (spec §0, §3–§5; see
 * stackview/view.h). ByName is view_byname.c, what a built view answers view_query.c. */
#include "stackview/view.h"
#include "stackview/when.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sv/idmap.h"
#include "stackview/pattern.h"
#include "source_int.h"
#include "view_int.h"
#include "sv/array.h"

#define GROUP_BASE 0x80000000u /* R ids of plain groups: GROUP_BASE + name id */

/* Everything computed once per distinct frame (§5.4). */
typedef struct frame_memo {
	uint32_t group;     /* group name id, or NONE32 when ungrouped */
	uint32_t disp;      /* display name id: short name, G, or "G <<short>>" */
	uint32_t short_id;  /* name id of the frame's own short name (root-most fold rule) */
	uint64_t inc;       /* IncPats entries matched by the post-group name */
	uint8_t kind;       /* sv_group_kind */
	uint8_t exc, fold;
} frame_memo;

/* Per-stack transform state (§5.4); the IncPats entries it has passed are beside it in
 * build.inc_of, only when IncPats has any. */
typedef struct stack_state {
	uint32_t node, R, group;
	uint8_t discarded, folded; /* folded: a frame of it folded into the node (Fold column) */
} stack_state;

typedef struct build {
	sv_view *v;
	sv_grouppats *group;
	sv_patlist *fold, *inc, *exc;
	uint64_t inc_need;
	/* A node's first child is kept beside it (most nodes of deep stacks have one), the
	 * others in child_index by (parent, name). */
	uint32_t *first_kid, *first_kid_name;
	sv_idmap child_index;
	frame_memo *fm;
	stack_state *ss;
	uint64_t *inc_of; /* per stack (IncPats not empty) */
} build;

static int name_intern(sv_view *v, uint32_t *out, const char *s, size_t len)
{
	uint32_t id = v->base ? sv_strtab_find(v->base, s, len) : UINT32_MAX;
	if (id != UINT32_MAX) {
		*out = id;
		return 0;
	}
	int rc = sv_strtab_intern(&v->names, &id, s, len);
	*out = id + v->nbase;
	return rc;
}

/* The names start from the source's short names when it has them interned (a view among
 * many: the terminal UI's). */
static void names_init(sv_view *v)
{
	sv_strtab_init(&v->names);
	v->base = sv_source_short_names(v->src, &v->base_ids, &v->nbase_ids, &v->base_rank);
	v->nbase = v->base ? v->base->count : 0;
}

/* ---- parameters ---- */

static int normalize_times(sv_view *v, sv_error *err)
{
	char buf[64];
	double start = 0, end = 0;
	const char *st = v->params.box[SV_BOX_START];
	const char *en = v->params.box[SV_BOX_END];
	bool have_end = false;
	int rc;

	/* Start first: it may carry both numbers ("100 200", "|100|200|"). */
	bool start_empty = strspn(st, " \t") == strlen(st);
	if (start_empty) {
		/* PerfView's empty Start is 0; a source with earlier (negative) times starts at its
		 * first one, rounded down to the boxes' 3 decimals, so every sample is in range. */
		double first = sv_source_first_time(v->src);
		start = first < 0 ? floor(first * 1000) / 1000 : 0;
	} else if (!sv_parse_number(st, &start)) {
		char tmp[256];
		snprintf(tmp, sizeof(tmp), "%s", st);
		for (char *p = tmp; *p; p++)
			if (*p == '|' || *p == '\t')
				*p = ' ';
		double a, b;
		char *s1 = strtok(tmp, " "), *s2 = s1 ? strtok(NULL, " ") : NULL;
		char *s3 = s2 ? strtok(NULL, " ") : NULL;
		if (!s1 || !s2 || s3 || !sv_parse_number(s1, &a) || !sv_parse_number(s2, &b))
			return sv_error_set(err, SV_EINVAL, "Start: '%s' is not a time in ms", st);
		start = a;
		end = b;
		have_end = true;
	}
	if (!have_end) {
		bool end_empty = strspn(en, " \t") == strlen(en);
		if (end_empty) {
			double lim = sv_source_time_limit(v->src);
			end = lim;
			/* PerfView leaves End empty (infinite) when the limit is zero. */
			if (lim == 0)
				end = INFINITY;
		} else if (!sv_parse_number(en, &end)) {
			return sv_error_set(err, SV_EINVAL, "End: '%s' is not a time in ms", en);
		}
	}
	if (end < start) {
		double t = start;
		start = end;
		end = t;
	}
	/* The boxes show (and the range uses) the n3-formatted values. */
	sv_format_number(buf, sizeof(buf), start, 3);
	if ((rc = sv_params_set(&v->params, SV_BOX_START, buf)))
		return sv_error_set(err, rc, NULL);
	sv_parse_number(buf, &start);
	if (isfinite(end)) {
		sv_format_number(buf, sizeof(buf), end, 3);
		sv_parse_number(buf, &end);
	} else {
		snprintf(buf, sizeof(buf), "%s", "");
	}
	if ((rc = sv_params_set(&v->params, SV_BOX_END, buf)))
		return sv_error_set(err, rc, NULL);
	v->lo = start - SLACK;
	v->hi = end + SLACK;
	v->has_range = isfinite(v->hi) && v->hi > v->lo;
	return 0;
}

static int compile(build *b, sv_error *err)
{
	const sv_params *p = &b->v->params;
	int rc;
	if ((rc = sv_grouppats_new(&b->group, p->box[SV_BOX_GROUP], err)))
		return rc;
	if ((rc = sv_patlist_new(&b->fold, p->box[SV_BOX_FOLD], "FoldPats", err)))
		return rc;
	if ((rc = sv_patlist_new(&b->inc, p->box[SV_BOX_INC], "IncPats", err)))
		return rc;
	if ((rc = sv_patlist_new(&b->exc, p->box[SV_BOX_EXC], "ExcPats", err)))
		return rc;
	size_t ninc = sv_patlist_count(b->inc);
	if (ninc > 64)
		return sv_error_set(err, SV_ELIMIT, "IncPats: more than 64 entries");
	b->v->inc_empty = ninc == 0;
	b->inc_need = ninc == 64 ? ~0ULL : ((1ULL << ninc) - 1);
	return 0;
}

/* ---- per frame ---- */

static int memo_frame(build *b, sv_frame_id f)
{
	sv_view *v = b->v;
	frame_memo *m = &b->fm[f];
	const char *full = sv_source_frame_name(v->src, f);
	const char *shrt = sv_source_frame_short(v->src, f);
	size_t flen = strlen(full), slen = strlen(shrt);
	char *g = NULL, *pn = NULL;
	int rc = 0;

	if (f < v->nbase_ids)
		m->short_id = v->base_ids[f];
	else if ((rc = name_intern(v, &m->short_id, shrt, slen)))
		goto out;
	int kind = sv_grouppats_count(b->group) ? sv_grouppats_eval(&g, b->group, full, flen) : SV_GROUP_NONE;
	if (kind < 0) {
		rc = kind;
		goto out;
	}
	/* §1.3: unresolved `module!?` frames no pattern claimed group by their short name. */
	if (kind == SV_GROUP_NONE && flen >= 2 && full[flen - 2] == '!' && full[flen - 1] == '?') {
		g = strdup(shrt);
		if (!g) {
			rc = SV_ENOMEM;
			goto out;
		}
		kind = SV_GROUP_PLAIN;
	}
	m->kind = (uint8_t)kind;
	const char *pname = full;
	size_t plen = flen;
	if (kind == SV_GROUP_NONE) {
		m->group = NONE32;
		m->disp = m->short_id;
	} else {
		if ((rc = name_intern(v, &m->group, g, strlen(g))))
			goto out;
		if (kind == SV_GROUP_PLAIN) {
			m->disp = m->group;
			pname = g;
			plen = strlen(g);
		} else {
			size_t glen = strlen(g);
			pn = malloc(glen + slen + 6);
			if (!pn) {
				rc = SV_ENOMEM;
				goto out;
			}
			memcpy(pn, g, glen);
			memcpy(pn + glen, " <<", 3);
			memcpy(pn + glen + 3, shrt, slen);
			memcpy(pn + glen + 3 + slen, ">>", 3);
			plen = glen + slen + 5;
			pname = pn;
			if ((rc = name_intern(v, &m->disp, pn, plen)))
				goto out;
		}
	}
	m->exc = sv_patlist_count(b->exc) && sv_patlist_match_any(b->exc, pname, plen);
	m->fold = !m->exc && sv_patlist_count(b->fold) && sv_patlist_match_any(b->fold, pname, plen);
	m->inc = sv_patlist_count(b->inc) ? sv_patlist_match_bits(b->inc, pname, plen) : 0;
out:
	free(g);
	free(pn);
	return rc;
}

/* ---- tree nodes ---- */

/* A node as the stacks make it: no samples yet. */
static void node_init(vnode *n, uint32_t name)
{
	memset(n, 0, sizeof(*n));
	n->name = name;
	n->st.first = n->xfirst = INFINITY;
	n->st.last = n->xlast = -INFINITY;
	n->st.max = n->xmax = -INFINITY;
}

/* Room for n nodes and their parents. */
static int nodes_reserve(sv_view *v, size_t n)
{
	if (n <= v->node_cap)
		return 0;
	size_t cap = v->node_cap; /* both grow the same way from the same capacity */
	if (SV_ARRAY_RESERVE(v->nodes, cap, n) || SV_ARRAY_RESERVE(v->parent, v->node_cap, n))
		return SV_ENOMEM;
	sv_advise_huge(v->nodes, n * sizeof(*v->nodes)); /* what the stacks make is written at once */
	sv_advise_huge(v->parent, n * sizeof(*v->parent));
	return 0;
}

static int node_child(build *b, uint32_t *out, uint32_t parent, uint32_t name)
{
	sv_view *v = b->v;
	if (nodes_reserve(v, (size_t)v->nnodes + 1))
		return SV_ENOMEM;
	uint32_t id = v->nnodes;
	if (parent != NONE32 && b->first_kid[parent] == NONE32) {
		b->first_kid[parent] = id;
		b->first_kid_name[parent] = name;
	} else if (parent != NONE32 && b->first_kid_name[parent] == name) {
		id = b->first_kid[parent];
	} else {
		int rc = sv_idmap_get_or_put(&b->child_index, ((uint64_t)parent << 32) | name, v->nnodes, &id);
		if (rc)
			return rc;
	}
	if (id == v->nnodes) {
		b->first_kid[id] = NONE32;
		v->parent[v->nnodes] = parent;
		node_init(&v->nodes[v->nnodes++], name);
	}
	*out = id;
	return 0;
}

/* ---- per stack (§5.4) ---- */

/* How many stacks are not the first with their caller (a bit a caller: one pass). 0 or
 * SV_ENOMEM. */
static int count_second_children(const sv_source *src, size_t *out)
{
	uint32_t nst = sv_source_stack_count(src);
	const sv_stack_id *caller = sv_source_stack_callers(src);
	uint64_t *seen = calloc((size_t)nst / 64 + 2, sizeof(*seen));
	if (!seen)
		return SV_ENOMEM;
	size_t n = 0, roots = 0;
	for (uint32_t s = 0; s < nst; s++) {
		if (caller[s] == SV_STACK_NONE) {
			roots++;
			continue;
		}
		uint32_t c = caller[s];
		uint64_t bit = 1ull << (c & 63);
		n += (seen[c >> 6] & bit) != 0;
		seen[c >> 6] |= bit;
	}
	free(seen);
	*out = n + (roots ? roots - 1 : 0);
	return 0;
}

static int transform_stacks(build *b)
{
	sv_view *v = b->v;
	const sv_source *src = v->src;
	uint32_t nst = sv_source_stack_count(src);
	int rc;
	const sv_stack_id *caller = sv_source_stack_callers(src);
	const sv_frame_id *frame = sv_source_stack_frames(src);
	uint64_t need = b->inc_need, *inc_of = b->inc_of;
	v->stack_node = sv_malloc_big(((size_t)nst + 1) * sizeof(*v->stack_node));
	v->stack_folded = malloc((size_t)nst + 1);
	if (!v->stack_node || !v->stack_folded)
		return SV_ENOMEM;
	for (uint32_t s = 0; s < nst; s++) {
		/* a caller's state (and its node's first child) is a random read: ask ahead */
		if (s + 16 < nst && caller[s + 16] != SV_STACK_NONE)
			__builtin_prefetch(&b->ss[caller[s + 16]]);
		if (s + 4 < nst && caller[s + 4] < s)
			__builtin_prefetch(&b->first_kid[b->ss[caller[s + 4]].node]);
		stack_state *S = &b->ss[s];
		sv_stack_id c = caller[s];
		sv_frame_id f = frame[s];
		const frame_memo *m = &b->fm[f];
		const stack_state *P = c == SV_STACK_NONE ? NULL : &b->ss[c];
		uint64_t inc = 0;
		memset(S, 0, sizeof(*S));
		if ((P && P->discarded) || m->exc) {
			S->discarded = 1;
			goto done;
		}
		if (!P) {
			if (m->fold) {
				/* §4.1: a root-most frame cannot fold; it stays as its ungrouped self. */
				S->R = f;
				S->group = NONE32;
				if ((rc = node_child(b, &S->node, SV_NODE_ROOT, m->short_id)))
					return rc;
			} else {
				S->R = m->kind == SV_GROUP_PLAIN ? GROUP_BASE + m->group : f;
				S->group = m->group;
				inc = m->inc;
				if ((rc = node_child(b, &S->node, SV_NODE_ROOT, m->disp)))
					return rc;
			}
			goto done;
		}
		uint32_t R = f;
		if (m->kind == SV_GROUP_PLAIN)
			R = GROUP_BASE + m->group;
		else if (m->kind == SV_GROUP_ENTRY && P->group == m->group)
			R = P->R;
		if (m->fold || R == P->R) {
			*S = *P;
			S->folded |= m->fold;
			inc = inc_of ? inc_of[c] : 0;
			goto done;
		}
		S->R = R;
		S->group = m->group;
		inc = (inc_of ? inc_of[c] : 0) | m->inc;
		if ((rc = node_child(b, &S->node, P->node, m->disp)))
			return rc;
	done:
		/* what the samples of this stack go to: its node, unless dropped (§5.4) */
		if (inc_of)
			inc_of[s] = inc;
		v->stack_node[s] = !S->discarded && (inc & need) == need ? S->node : NONE32;
		v->stack_folded[s] = S->folded;
	}
	return 0;
}

/* ---- samples ---- */

/* The node a stack's samples go to (NONE32: dropped), and whether its leaf was folded there;
 * SV_STACK_NONE: ROOT when IncPats is empty. */
static inline uint32_t stack_target(const sv_view *v, sv_stack_id s, bool *folded)
{
	*folded = false;
	if (s == SV_STACK_NONE)
		return v->inc_empty ? SV_NODE_ROOT : NONE32;
	*folded = v->stack_folded[s];
	return v->stack_node[s];
}

/* k samples of metric m and count c into a node's own sums (the inclusive ones start as
 * these: accumulate adds the children's), spanning first..end, the largest metric max. */
static inline void node_add(vnode *n, double m, double c, bool folded, uint32_t k, double first, double end, double max)
{
	n->st.exc += m;
	n->st.exc_ct += c;
	n->st.inc += m;
	n->st.inc_ct += c;
	if (folded) {
		n->st.fold += m;
		n->st.fold_ct += c;
	}
	n->nsamp += k;
	if (first < n->xfirst)
		n->xfirst = n->st.first = first;
	if (end > n->xlast)
		n->xlast = n->st.last = end;
	if (max > n->xmax)
		n->xmax = n->st.max = max;
}

/* The samples by stack, from the source's sums (sv_source_sum_stacks), when the time range
 * takes every stack's samples whole or not at all (a stack with some inside and some not:
 * false, nothing done). Every sum is exact in any order (what the sums promise), so nodes
 * get the bits add_samples would give them. */
static bool add_stack_sums(sv_view *v)
{
	const sv_stack_sums *ss = sv_source_stack_sums(v->src);
	if (!ss)
		return false;
	uint32_t nst = sv_source_stack_count(v->src);
	bool tm = v->scaling == SV_SCALING_TIME;
	/* every kept stack whole or outside (view_clip's rules, by the stack's extremes) */
	for (uint32_t s = 0; s <= nst; s++) {
		const sv_stack_sums *x = &ss[s];
		double end = tm ? x->last_end : x->last;
		bool whole = !x->n || (x->first >= v->lo && end <= v->hi);
		bool out = x->first > v->hi || end < v->lo;
		bool folded;
		if (!whole && !out && stack_target(v, s == nst ? SV_STACK_NONE : s, &folded) != NONE32)
			return false;
	}
	vnode *nodes = v->nodes;
	bool any = false;
	double latest = 0;
	memset(&v->np, 0, sizeof(v->np));
	for (uint32_t s = 0; s <= nst; s++) {
		const sv_stack_sums *x = &ss[s];
		double end = tm ? x->last_end : x->last;
		if (!x->n || x->first > v->hi || end < v->lo)
			continue;
		bool folded;
		uint32_t node = stack_target(v, s == nst ? SV_STACK_NONE : s, &folded);
		if (node == NONE32)
			continue;
		v->np.net += x->metric;
		latest = !any || x->last > latest ? x->last : latest;
		any = true;
		node_add(&nodes[node], x->metric, x->count, folded, (uint32_t)x->n, x->first, end, x->max);
	}
	/* no metric is below 0 (no sums otherwise): the peak is the net, at the last sample */
	v->np.peak = v->np.net;
	v->np.peak_time = any ? latest : 0;
	v->np_known = true;
	return true;
}

static void add_samples(sv_view *v)
{
	if (add_stack_sums(v))
		return;
	const sv_source *src = v->src;
	size_t ns = sv_source_sample_count(src);
	const sv_stack_id *stk = sv_source_sample_stacks(src);
	sv_samples smp = sv_source_samples(src);
	bool tm = v->scaling == SV_SCALING_TIME;
	vnode *nodes = v->nodes;
	bool any = false;
	double latest = 0;
	memset(&v->np, 0, sizeof(v->np));
	for (size_t i = 0; i < ns; i++) {
		/* A sample's node is a random read: ask for the ones a few samples ahead. */
		if (i + 16 < ns && stk[i + 16] != SV_STACK_NONE)
			__builtin_prefetch(&v->stack_node[stk[i + 16]]);
		if (i + 8 < ns && stk[i + 8] != SV_STACK_NONE && v->stack_node[stk[i + 8]] != NONE32)
			__builtin_prefetch(&nodes[v->stack_node[stk[i + 8]]].st, 1);
		bool folded;
		uint32_t node = stack_target(v, stk[i], &folded);
		if (node == NONE32)
			continue;
		double t = sv_sample_time(&smp, i), m = sv_sample_metric(&smp, i);
		if (!view_clip(v, &t, &m))
			continue;
		double c = sv_sample_count(&smp, i);
		double end = tm ? t + fabs(m) : t;
		/* the net of the range, in sample order as sv_view_net_peak sums it */
		v->np.net += m;
		v->np.signed_metric |= m < 0;
		latest = !any || t > latest ? t : latest;
		any = true;
		node_add(&nodes[node], m, c, folded, 1, t, end, m);
	}
	if (!v->np.signed_metric) { /* running sums only grow: the peak is the net, at the last sample */
		v->np.peak = v->np.net;
		v->np.peak_time = any ? latest : 0;
		v->np_known = true;
	}
}

/* Inclusive totals by one backward pass (a parent's id is below its children's); each node's
 * own samples are in them already (add_samples). */
static void accumulate(sv_view *v)
{
	for (uint32_t i = v->nnodes; i-- > 1;) {
		vnode *n = &v->nodes[i];
		vnode *p = &v->nodes[v->parent[i]];
		p->st.inc += n->st.inc;
		p->st.inc_ct += n->st.inc_ct;
		p->nsamp += n->nsamp;
		if (n->st.first < p->st.first)
			p->st.first = n->st.first;
		if (n->st.last > p->st.last)
			p->st.last = n->st.last;
		if (n->st.max > p->st.max)
			p->st.max = n->st.max;
	}
}

static int child_cmp(const void *a, const void *b, void *payload)
{
	const sv_view *sort_view = payload;
	const vnode *x = &sort_view->nodes[*(const uint32_t *)a];
	const vnode *y = &sort_view->nodes[*(const uint32_t *)b];
	double ax = fabs(x->st.inc), ay = fabs(y->st.inc);
	if (ax != ay)
		return ax > ay ? -1 : 1;
	if (x->st.first != y->st.first)
		return x->st.first < y->st.first ? -1 : 1;
	return view_name_cmp(sort_view, x->name, y->name);
}

/* Child lists of alive nodes, sorted (§6.1): counted into kids[p + 2], summed so kids[p + 1]
 * is where p's list starts, then filled, which moves kids[p + 1] to its end. */
static int link_children(sv_view *v)
{
	uint32_t n = v->nnodes;
	if (!v->children)
		v->children = sv_malloc_big(((size_t)n + 1) * sizeof(*v->children));
	if (!v->kids)
		v->kids = sv_malloc_big(((size_t)n + 2) * sizeof(*v->kids));
	if (!v->children || !v->kids)
		return SV_ENOMEM;
	uint32_t *kids = v->kids;
	memset(kids, 0, ((size_t)n + 2) * sizeof(*kids));
	for (uint32_t i = 1; i < n; i++)
		if (v->alive[i])
			kids[v->parent[i] + 2]++;
	for (uint32_t i = 2; i < n + 2; i++)
		kids[i] += kids[i - 1];
	for (uint32_t i = 1; i < n; i++)
		if (v->alive[i])
			v->children[kids[v->parent[i] + 1]++] = i;
	for (uint32_t i = 0; i < n; i++)
		if (kids[i + 1] - kids[i] > 1)
			qsort_r(v->children + kids[i], kids[i + 1] - kids[i], sizeof(uint32_t), child_cmp, v);
	return 0;
}

/* ---- Fold% (§4.2) ---- */

/* Fold% is empty or a non-negative number (thousands separators allowed, as PerfView's
 * boxes show them); anything else is refused rather than read as 0. */
static int check_fold_pct(const sv_view *v, sv_error *err)
{
	const char *t = v->params.box[SV_BOX_FOLD_PCT];
	double pct;
	if (strspn(t, " \t") == strlen(t))
		return 0;
	if (!sv_parse_number(t, &pct) || !(pct >= 0) || isinf(pct))
		return sv_error_set(err, SV_EINVAL, "Fold%%: '%s' is not a percentage (a number such as 1 or 0.5)", t);
	return 0;
}

static int fold_percent(sv_view *v)
{
	double pct;
	if (!sv_parse_number(v->params.box[SV_BOX_FOLD_PCT], &pct) || !(pct > 0))
		return 0;
	double threshold = pct * v->nodes[SV_NODE_ROOT].st.inc / 100.0;
	uint32_t broken = view_name_find(v, "BROKEN", 6);
	/* Top-down over ROOT's descendants; ROOT's own children are never folded. Node ids are
	 * in parent-before-child order, so one forward pass sees every parent first. */
	for (uint32_t i = 1; i < v->nnodes; i++) {
		if (!v->alive[i])
			continue;
		vnode *n = &v->nodes[i];
		uint32_t p = v->parent[i];
		if (p == SV_NODE_ROOT) {
			v->remap[i] = i;
			continue;
		}
		if (v->remap[p] != p) { /* inside a folded subtree */
			v->remap[i] = v->remap[p];
			v->alive[i] = 0;
			continue;
		}
		double byname_inc = v->byname_st[n->name].inc;
		if (fabs(n->st.inc) < threshold && n->name != broken && fabs(byname_inc) < threshold) {
			vnode *pn = &v->nodes[p];
			pn->st.exc += n->st.inc;
			pn->st.exc_ct += n->st.inc_ct;
			pn->st.fold += n->st.inc;
			pn->st.fold_ct += n->st.inc_ct;
			if (n->st.first < pn->xfirst)
				pn->xfirst = n->st.first;
			if (n->st.last > pn->xlast)
				pn->xlast = n->st.last;
			if (n->st.max > pn->xmax)
				pn->xmax = n->st.max;
			v->remap[i] = p;
			v->alive[i] = 0;
		} else {
			v->remap[i] = i;
		}
	}
	int rc = link_children(v);
	if (!rc)
		rc = sv_view_compute_byname(v);
	return rc;
}

/* ---- construction ---- */

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The samples into the nodes, then totals, children, ByName and Fold% (t0: when the view's
 * build began, for its timings). */
static int finish(sv_view *v, double t0)
{
	add_samples(v);
	double t1 = now_ms();
	accumulate(v);
	v->alive = malloc((size_t)v->nnodes + 1);
	v->remap = sv_malloc_big(((size_t)v->nnodes + 1) * sizeof(*v->remap));
	if (!v->alive || !v->remap)
		return SV_ENOMEM;
	for (uint32_t i = 0; i < v->nnodes; i++) {
		v->alive[i] = i == SV_NODE_ROOT || v->nodes[i].nsamp > 0;
		v->remap[i] = i;
	}
	int rc = link_children(v);
	if (!rc)
		rc = sv_view_compute_byname(v);
	if (!rc)
		rc = fold_percent(v);
	if (rc)
		return rc;
	v->ms_filter = t1 - t0;
	v->ms_tree = now_ms() - t1;
	return 0;
}

static bool same_box(const sv_params *a, const sv_params *b, int box)
{
	const char *x = a->box[box] ? a->box[box] : "", *y = b->box[box] ? b->box[box] : "";
	return strcmp(x, y) == 0;
}

int sv_view_new_like(sv_view **out, const sv_view *prev, const sv_params *params, sv_error *err)
{
	const sv_params *pp = &prev->params;
	if (!same_box(pp, params, SV_BOX_GROUP) || !same_box(pp, params, SV_BOX_FOLD) || !same_box(pp, params, SV_BOX_INC) ||
	    !same_box(pp, params, SV_BOX_EXC))
		return sv_view_new(out, prev->src, params, err);
	int rc;
	sv_view *v = calloc(1, sizeof(*v));
	if (!v)
		return sv_error_set(err, SV_ENOMEM, NULL);
	v->src = prev->src;
	v->scaling = prev->scaling;
	v->inc_empty = prev->inc_empty;
	sv_strtab_init(&v->names);
	v->base = prev->base;
	v->nbase = prev->nbase;
	v->base_ids = prev->base_ids;
	v->nbase_ids = prev->nbase_ids;
	v->base_rank = prev->base_rank;
	double t0 = now_ms();
	if (sv_params_copy(&v->params, params)) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	if ((rc = normalize_times(v, err)) || (rc = check_fold_pct(v, err)))
		goto out;
	/* the names, the nodes (as the stacks made them, before any sample) and each stack's node */
	uint32_t nst = sv_source_stack_count(v->src);
	v->stack_node = sv_malloc_big(((size_t)nst + 1) * sizeof(*v->stack_node));
	v->stack_folded = malloc((size_t)nst + 1);
	if (sv_strtab_copy(&v->names, &prev->names) || nodes_reserve(v, (size_t)prev->nnodes + 1) || !v->stack_node ||
	    !v->stack_folded) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	v->nnodes = prev->nnodes;
	for (uint32_t i = 0; i < v->nnodes; i++)
		node_init(&v->nodes[i], prev->nodes[i].name);
	memcpy(v->parent, prev->parent, (size_t)v->nnodes * sizeof(*v->parent));
	memcpy(v->stack_node, prev->stack_node, ((size_t)nst + 1) * sizeof(*v->stack_node));
	memcpy(v->stack_folded, prev->stack_folded, (size_t)nst + 1);
	if ((rc = finish(v, t0))) {
		rc = sv_error_set(err, rc, NULL);
		goto out;
	}
	*out = v;
	return 0;
out:
	sv_view_free(v);
	return rc;
}

static void build_dispose(build *b)
{
	sv_grouppats_free(b->group);
	sv_patlist_free(b->fold);
	sv_patlist_free(b->inc);
	sv_patlist_free(b->exc);
	sv_idmap_dispose(&b->child_index);
	free(b->first_kid);
	free(b->first_kid_name);
	free(b->fm);
	free(b->ss);
	free(b->inc_of);
	memset(b, 0, sizeof(*b));
	sv_idmap_init(&b->child_index);
}

int sv_view_new(sv_view **out, const sv_source *src, const sv_params *params, sv_error *err)
{
	build b;
	memset(&b, 0, sizeof(b));
	sv_idmap_init(&b.child_index);
	int rc;
	sv_view *v = calloc(1, sizeof(*v));
	if (!v)
		return sv_error_set(err, SV_ENOMEM, NULL);
	b.v = v;
	v->src = src;
	v->scaling = sv_source_scaling(src);
	names_init(v);
	if (sv_params_copy(&v->params, params)) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	double t0 = now_ms();
	uint32_t root_name;
	if ((rc = name_intern(v, &root_name, "ROOT", 4)))
		goto fail_nomem;
	if ((rc = normalize_times(v, err)) || (rc = check_fold_pct(v, err)))
		goto out;
	if ((rc = compile(&b, err)))
		goto out;

	uint32_t nf = sv_source_frame_count(src), nst = sv_source_stack_count(src);
	b.fm = calloc((size_t)nf + 1, sizeof(*b.fm));
	b.ss = sv_malloc_big(((size_t)nst + 1) * sizeof(*b.ss));
	if (b.inc_need)
		b.inc_of = malloc(((size_t)nst + 1) * sizeof(*b.inc_of));
	if (!b.fm || !b.ss || (b.inc_need && !b.inc_of))
		goto fail_nomem;
	for (uint32_t f = 0; f < nf; f++)
		if ((rc = memo_frame(&b, f)))
			goto fail_nomem;
	/* A pattern that gave up on a name makes no view: its matches would be wrong. */
	{
		const char *const box[] = { "GroupPats", "FoldPats", "IncPats", "ExcPats" };
		const char *hit[] = { sv_grouppats_limit_hit(b.group), sv_patlist_limit_hit(b.fold),
				      sv_patlist_limit_hit(b.inc), sv_patlist_limit_hit(b.exc) };
		for (int i = 0; i < 4; i++)
			if (hit[i]) {
				rc = sv_error_set(err, SV_ELIMIT,
						  "%s: pattern '%.200s' needs too much backtracking to match (simplify it)",
						  box[i], hit[i]);
				goto out;
			}
	}
	/* a node per kept stack at most: room for them all at once, not by doubling */
	b.first_kid = sv_malloc_big(((size_t)nst + 2) * sizeof(*b.first_kid));
	b.first_kid_name = sv_malloc_big(((size_t)nst + 2) * sizeof(*b.first_kid_name));
	/* the stacks that are not their caller's first make about that many second children
	 * (grouping and folding merge them, and their children may then meet): room for them
	 * at once instead of growing, the map grows if merges make more */
	size_t seconds;
	if ((rc = count_second_children(src, &seconds)) || nodes_reserve(v, (size_t)nst + 1) || !b.first_kid ||
	    !b.first_kid_name || sv_idmap_reserve(&b.child_index, seconds))
		goto fail_nomem;
	uint32_t root;
	if ((rc = node_child(&b, &root, NONE32, root_name)))
		goto fail_nomem;
	v->parent[root] = NONE32;
	if ((rc = transform_stacks(&b)))
		goto fail_nomem;
	build_dispose(&b); /* before the samples: the peak is the tree's alone */
	if ((rc = finish(v, t0)))
		goto fail_nomem;
	*out = v;
	v = NULL;
	rc = 0;
	goto out;
fail_nomem:
	rc = sv_error_set(err, rc ? rc : SV_ENOMEM, NULL);
out:
	build_dispose(&b);
	sv_view_free(v);
	return rc;
}

void sv_view_free(sv_view *v)
{
	if (!v)
		return;
	sv_params_dispose(&v->params);
	sv_strtab_dispose(&v->names);
	free(v->nodes);
	free(v->parent);
	free(v->children);
	free(v->kids);
	free(v->remap);
	free(v->alive);
	free(v->stack_node);
	free(v->stack_folded);
	free(v->byname);
	free(v->byname_row);
	free(v->byname_st);
	free(v->exc_hist);
	free(v->inc_rows);
	free(v->inc_off);
	free(v->inc_lo);
	free(v->inc_w);
	free(v->name_hist);
	free(v->first_on_path);
	free(v->first_on_path_name);
	free(v);
}

