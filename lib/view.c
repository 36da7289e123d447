/* SPDX-License-Identifier: MIT */
/* Building a view: the filter pipeline and the call tree it makes (spec §0, §3–§5; see
 * stackview/view.h). The samples into that tree, its totals, children and Fold% are
 * view_tree.c's, ByName view_byname.c's, views made from another view view_like.c's, what a
 * built view answers view_query.c's. */
#include "stackview/view.h"
#include "stackview/when.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv/idmap.h"
#include "stackview/pattern.h"
#include "source_int.h"
#include "view_int.h"
#include "sv/array.h"

#define GROUP_BASE 0x80000000u /* R ids of plain groups: GROUP_BASE + name id */

/* Per-stack transform state (§5.4); the IncPats entries it has passed are beside it in
 * build.inc_of, only when IncPats has any. */
typedef struct stack_state {
	uint32_t node, R, group;
	uint8_t discarded, folded; /* folded: a frame of it folded into the node (Fold column) */
} stack_state;

enum { GROUP_SEEN = 64 };

typedef struct build {
	sv_view *v;
	sv_grouppats *group;
	sv_patlist *fold, *inc, *exc;
	uint64_t inc_need;
	/* A node's children: a list from first_kid through next_kid, the latest first (and its
	 * name beside it). A node is shared once a second stack has it as its node (folded
	 * into it, or finding it as its child); its children are then in child_index by
	 * (parent, name), put there when a stack first looks one up. Until then each of its
	 * children came from a different frame under its one stack: a frame whose display name
	 * no other frame has makes a new child without looking (node_child). */
	uint32_t *first_kid, *first_kid_name, *next_kid;
	uint8_t *nflags; /* per node: NODE_SHARED, NODE_INDEXED */
	sv_idmap child_index;
	frame_memo *fm;
	/* Entry groups' display names made and not yet interned (memo_frame): a batch is
	 * interned at once, each name's index slot asked for when the name was made (a random
	 * read each: 390k of them for a stripped compiler's frames). Their texts are in
	 * pend_text; whatever else memo_frame interns interns them first, so ids come out in
	 * frame order as one at a time. */
	struct pend_name {
		sv_frame_id f;
		uint32_t off, len;
		uint64_t h;
	} *pend;
	size_t npend, pend_cap;
	char *pend_text;
	size_t pend_len, pend_text_cap;
	/* Group names met and their ids (memo_frame), by their texts' hashes, the last one's
	 * place apart: frames come in the order stacks met them, a module's in runs broken by
	 * others' (a third of a compiler's frames change module), and a group interned again
	 * would end the batch of entry names before it */
	struct group_seen {
		char *text;
		size_t len;
		uint32_t id;
	} groups[GROUP_SEEN];
	uint32_t last_group;
	stack_state *ss;
	uint64_t *inc_of; /* per stack (IncPats not empty) */
} build;

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

int view_check_params(sv_view *v, sv_error *err)
{
	int rc = normalize_times(v, err);
	return rc ? rc : check_fold_pct(v, err);
}

/* ---- per frame ---- */

/* A frame's ExcPats, FoldPats and IncPats, matched on its post-group name. */
static void match_frame(build *b, frame_memo *m, const char *pname, size_t plen)
{
	m->exc = sv_patlist_count(b->exc) && sv_patlist_match_any(b->exc, pname, plen);
	m->fold = !m->exc && sv_patlist_count(b->fold) && sv_patlist_match_any(b->fold, pname, plen);
	m->inc = sv_patlist_count(b->inc) ? sv_patlist_match_bits(b->inc, pname, plen) : 0;
}

/* The entry names waiting (build.pend) interned in order, and their frames matched. */
static int memo_flush(build *b)
{
	sv_view *v = b->v;
	bool own = v->base.t && !v->base.entry_like;
	int rc = 0;
	for (size_t i = 0; i < b->npend && !rc; i++) {
		const struct pend_name *p = &b->pend[i];
		frame_memo *m = &b->fm[p->f];
		const char *pn = b->pend_text + p->off;
		if (!(rc = view_name_intern_hashed(v, &m->disp, pn, p->len, p->h, own)))
			match_frame(b, m, pn, p->len);
	}
	b->npend = 0;
	b->pend_len = 0;
	return rc;
}

enum { MEMO_BATCH = 16 };

/* Frame f's entry name "G <<short>>" made, to be interned with its batch. */
static int pend_entry(build *b, sv_frame_id f, const char *g, size_t glen, const char *shrt, size_t slen)
{
	size_t len = glen + slen + 5;
	if (len > UINT32_MAX / 2 || SV_ARRAY_RESERVE(b->pend_text, b->pend_text_cap, b->pend_len + len + 1) ||
	    SV_ARRAY_RESERVE(b->pend, b->pend_cap, b->npend + 1))
		return SV_ENOMEM;
	char *pn = b->pend_text + b->pend_len;
	memcpy(pn, g, glen);
	memcpy(pn + glen, " <<", 3);
	memcpy(pn + glen + 3, shrt, slen);
	memcpy(pn + glen + 3 + slen, ">>", 3);
	uint64_t h = sv_hash_bytes(pn, len);
	sv_strtab_prefetch(&b->v->names, h);
	b->pend[b->npend++] = (struct pend_name){ f, (uint32_t)b->pend_len, (uint32_t)len, h };
	b->pend_len += len + 1;
	return b->npend == MEMO_BATCH ? memo_flush(b) : 0;
}

/* The id of a group's name: interned (the entry names waiting first) the first time it is met
 * or after another took its place among those kept. */
static int group_intern(build *b, uint32_t *out, const char *g, size_t glen)
{
	struct group_seen *e = &b->groups[b->last_group];
	if (e->text && e->len == glen && !memcmp(e->text, g, glen)) {
		*out = e->id;
		return 0;
	}
	uint32_t k = (uint32_t)sv_hash_bytes(g, glen) & (GROUP_SEEN - 1);
	e = &b->groups[k];
	b->last_group = k;
	if (e->text && e->len == glen && !memcmp(e->text, g, glen)) {
		*out = e->id;
		return 0;
	}
	int rc = memo_flush(b);
	if (!rc)
		rc = view_name_intern(b->v, out, g, glen, false);
	if (rc)
		return rc;
	free(e->text);
	if (!(e->text = malloc(glen + 1)))
		return SV_ENOMEM;
	memcpy(e->text, g, glen + 1);
	e->len = glen;
	e->id = *out;
	return 0;
}

static int memo_frame(build *b, sv_frame_id f)
{
	sv_view *v = b->v;
	frame_memo *m = &b->fm[f];
	const char *full = sv_source_frame_name(v->src, f);
	const char *shrt = sv_source_frame_short(v->src, f);
	size_t flen = view_frame_len(v->src, f), slen = view_frame_short_len(v->src, f);
	const char *g = NULL; /* the group's name: b->group's own text, or shrt */
	size_t glen = 0;
	int rc;

	if (f < v->base.nids)
		m->short_id = v->base.ids[f];
	else if ((rc = memo_flush(b)) || (rc = view_name_intern(v, &m->short_id, shrt, slen, false)))
		return rc;
	int kind = sv_grouppats_count(b->group) ? sv_grouppats_eval_ref(b->group, full, flen, &g, &glen) : SV_GROUP_NONE;
	if (kind < 0)
		return kind;
	/* §1.3: unresolved `module!?` frames no pattern claimed group by their short name. */
	if (kind == SV_GROUP_NONE && flen >= 2 && full[flen - 2] == '!' && full[flen - 1] == '?') {
		g = shrt;
		glen = slen;
		kind = SV_GROUP_PLAIN;
	}
	m->kind = (uint8_t)kind;
	const char *pname = full;
	size_t plen = flen;
	if (kind == SV_GROUP_NONE) {
		m->group = NONE32;
		m->disp = m->short_id;
	} else {
		if ((rc = group_intern(b, &m->group, g, glen)))
			return rc;
		if (kind == SV_GROUP_ENTRY)
			return pend_entry(b, f, g, glen, shrt, slen); /* named and matched with its batch */
		m->disp = m->group;
		pname = g;
		plen = glen;
	}
	match_frame(b, m, pname, plen);
	return 0;
}

/* Frame f's memo from another view's of the same source and GroupPats (its group and
 * display name, the same ids in this view's copy of that view's names), matched again. */
static void memo_frame_like(build *b, const sv_view *like, sv_frame_id f)
{
	sv_view *v = b->v;
	frame_memo *m = &b->fm[f];
	const frame_memo *o = &like->fm[f];
	m->group = o->group;
	m->disp = o->disp;
	m->short_id = o->short_id;
	m->kind = o->kind;
	const char *pname = m->kind == SV_GROUP_NONE ? sv_source_frame_name(v->src, f) : view_name_str(v, m->disp);
	match_frame(b, m, pname, strlen(pname));
}

/* ---- tree nodes ---- */

void view_node_init(sv_view *v, uint32_t i, uint32_t name)
{
	vnode *n = view_node(v, i);
	memset(n, 0, sizeof(*n));
	n->name = name;
	n->st.max = -INFINITY;
	if (!v->one_time)
		*view_node_span(v, i) = (vspan){ INFINITY, -INFINITY };
}

void view_set_one_time(sv_view *v)
{
	/* data-scaled: a sample's span is its time alone, whatever its metric and the range */
	const sv_source *src = v->src;
	v->one_time = v->scaling == SV_SCALING_DATA &&
		      (!sv_source_sample_count(src) || sv_source_first_time(src) == sv_source_last_time(src));
	v->t_one = sv_source_first_time(src);
	v->node_size = sizeof(vnode) + (v->one_time ? 0 : sizeof(vspan));
}

int view_nodes_reserve(sv_view *v, size_t n)
{
	if (n <= v->node_cap)
		return 0;
	/* a view's first room is what it asks for (a node a stack at most, and ROOT), not the next
	 * power of two (up to twice the table, never touched but held and counted by
	 * sv_view_memory); after that, room doubles. Both tables have the same room. */
	size_t ncap = v->node_cap && n < 2 * v->node_cap ? 2 * v->node_cap : n;
	vnode *nodes = realloc(v->nodes, ncap * v->node_size);
	if (!nodes)
		return SV_ENOMEM;
	v->nodes = nodes;
	uint32_t *parent = realloc(v->parent, ncap * sizeof(*parent));
	if (!parent)
		return SV_ENOMEM;
	v->parent = parent;
	v->node_cap = ncap;
	sv_advise_huge(v->nodes, n * v->node_size); /* what the stacks make is written at once */
	sv_advise_huge(v->parent, n * sizeof(*v->parent));
	return 0;
}

#define NODE_SHARED 1u
#define NODE_INDEXED 2u

/* A new node, the latest of its parent's children (put in child_index when the parent's
 * children are there). */
static int node_new(build *b, uint32_t *out, uint32_t parent, uint32_t name)
{
	sv_view *v = b->v;
	if (view_nodes_reserve(v, (size_t)v->nnodes + 1))
		return SV_ENOMEM;
	uint32_t id = v->nnodes;
	if (parent != NONE32 && (b->nflags[parent] & NODE_INDEXED)) {
		int rc = sv_idmap_put(&b->child_index, ((uint64_t)parent << 32) | name, id);
		if (rc)
			return rc;
	}
	b->first_kid[id] = NONE32;
	b->nflags[id] = 0;
	if (parent != NONE32) {
		b->next_kid[id] = b->first_kid[parent];
		b->first_kid[parent] = id;
		b->first_kid_name[parent] = name;
	}
	v->parent[id] = parent;
	view_node_init(v, v->nnodes++, name);
	*out = id;
	return 0;
}

/* parent's child named `name`, made when it has none. `unique`: no other frame displays as
 * `name` (then an unshared parent has no such child yet). */
static int node_child(build *b, uint32_t *out, uint32_t parent, uint32_t name, bool unique)
{
	if (unique && !(b->nflags[parent] & NODE_SHARED))
		return node_new(b, out, parent, name);
	uint32_t id = b->first_kid[parent];
	if (id == NONE32)
		return node_new(b, out, parent, name);
	if (b->first_kid_name[parent] != name) {
		if (!(b->nflags[parent] & NODE_INDEXED)) {
			for (uint32_t k = id; k != NONE32; k = b->next_kid[k]) {
				int rc = sv_idmap_put(&b->child_index, ((uint64_t)parent << 32) | view_node(b->v, k)->name, k);
				if (rc)
					return rc;
			}
			b->nflags[parent] |= NODE_INDEXED;
		}
		id = sv_idmap_get(&b->child_index, ((uint64_t)parent << 32) | name);
		if (id == SV_IDMAP_NONE)
			return node_new(b, out, parent, name);
	}
	b->nflags[id] |= NODE_SHARED;
	*out = id;
	return 0;
}

/* ---- per stack (§5.4) ---- */

/* Each frame's memo says whether its display name is its own (no other frame's). 0 or
 * SV_ENOMEM. */
static int mark_unique(build *b)
{
	sv_view *v = b->v;
	uint32_t nf = sv_source_frame_count(v->src), nn = view_name_count(v);
	uint8_t *seen = calloc(nn ? nn : 1, 1);
	if (!seen)
		return SV_ENOMEM;
	for (uint32_t f = 0; f < nf; f++) {
		uint8_t *c = &seen[b->fm[f].disp];
		*c += *c < 2;
	}
	for (uint32_t f = 0; f < nf; f++)
		b->fm[f].uniq = seen[b->fm[f].disp] == 1;
	free(seen);
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
	for (uint32_t s = 0; s < nst; s++) {
		/* a caller's state (and its node's first child) is a random read: ask ahead */
		if (s + 16 < nst && caller[s + 16] != SV_STACK_NONE)
			__builtin_prefetch(&b->ss[caller[s + 16]]);
		if (s + 12 < nst)
			__builtin_prefetch(&b->fm[frame[s + 12]]);
		if (s + 4 < nst && caller[s + 4] < s) {
			uint32_t pn = b->ss[caller[s + 4]].node;
			__builtin_prefetch(&b->nflags[pn]);
			__builtin_prefetch(&b->first_kid[pn], 1);
		}
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
				if ((rc = node_child(b, &S->node, SV_NODE_ROOT, m->short_id, false)))
					return rc;
			} else {
				S->R = m->kind == SV_GROUP_PLAIN ? GROUP_BASE + m->group : f;
				S->group = m->group;
				inc = m->inc;
				if ((rc = node_child(b, &S->node, SV_NODE_ROOT, m->disp, false)))
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
			b->nflags[P->node] |= NODE_SHARED;
			S->folded |= m->fold;
			inc = inc_of ? inc_of[c] : 0;
			goto done;
		}
		S->R = R;
		S->group = m->group;
		inc = (inc_of ? inc_of[c] : 0) | m->inc;
		if ((rc = node_child(b, &S->node, P->node, m->disp, m->uniq)))
			return rc;
	done:
		/* what the samples of this stack go to: its node, unless dropped (§5.4) */
		if (inc_of)
			inc_of[s] = inc;
		v->stack_pre[s] = S->discarded ? NONE32 : S->node;
		v->stack_node[s] = !S->discarded && (inc & need) == need ? S->node : NONE32;
		v->stack_folded[s] = S->folded;
	}
	return 0;
}

/* transform_stacks when no frame is grouped and none folds: a stack's state is then only
 * its node (the one it made, or its caller's where its frame is its caller's: R is the frame
 * itself), kept in stack_pre (NONE32: discarded), so no table of states is made (16 bytes a
 * stack: 160 MB of fresh pages for a 10M-object heap's stacks). The same nodes, in the same
 * order, as transform_stacks makes. */
static int transform_plain(build *b)
{
	sv_view *v = b->v;
	const sv_source *src = v->src;
	uint32_t nst = sv_source_stack_count(src);
	int rc;
	const sv_stack_id *caller = sv_source_stack_callers(src);
	const sv_frame_id *frame = sv_source_stack_frames(src);
	uint64_t need = b->inc_need, *inc_of = b->inc_of;
	uint32_t *pre = v->stack_pre;
	for (uint32_t s = 0; s < nst; s++) {
		/* a caller's node and frame (and its node's first child) are random reads */
		if (s + 16 < nst && caller[s + 16] != SV_STACK_NONE) {
			__builtin_prefetch(&pre[caller[s + 16]]);
			__builtin_prefetch(&frame[caller[s + 16]]);
		}
		if (s + 12 < nst)
			__builtin_prefetch(&b->fm[frame[s + 12]]);
		if (s + 4 < nst && caller[s + 4] < s && pre[caller[s + 4]] != NONE32) {
			uint32_t pn = pre[caller[s + 4]];
			__builtin_prefetch(&b->nflags[pn]);
			__builtin_prefetch(&b->first_kid[pn], 1);
		}
		sv_stack_id c = caller[s];
		sv_frame_id f = frame[s];
		const frame_memo *m = &b->fm[f];
		uint32_t node = NONE32;
		uint64_t inc = 0;
		if (m->exc || (c != SV_STACK_NONE && pre[c] == NONE32)) {
			/* discarded, with its callees */
		} else if (c == SV_STACK_NONE) {
			inc = m->inc;
			if ((rc = node_child(b, &node, SV_NODE_ROOT, m->disp, false)))
				return rc;
		} else if (frame[c] == f) {
			node = pre[c];
			b->nflags[node] |= NODE_SHARED;
			inc = inc_of ? inc_of[c] : 0;
		} else {
			inc = (inc_of ? inc_of[c] : 0) | m->inc;
			if ((rc = node_child(b, &node, pre[c], m->disp, m->uniq)))
				return rc;
		}
		if (inc_of)
			inc_of[s] = inc;
		pre[s] = node;
		v->stack_node[s] = node != NONE32 && (inc & need) == need ? node : NONE32;
	}
	return 0;
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
	free(b->next_kid);
	free(b->nflags);
	free(b->fm);
	for (int k = 0; k < GROUP_SEEN; k++)
		free(b->groups[k].text);
	free(b->pend);
	free(b->pend_text);
	free(b->ss);
	free(b->inc_of);
	memset(b, 0, sizeof(*b));
	sv_idmap_init(&b->child_index);
}

int view_build(sv_view **out, const sv_source *src, const sv_params *params, const sv_view *like,
	       sv_view **release, bool byname, sv_error *err)
{
	build b;
	memset(&b, 0, sizeof(b));
	sv_idmap_init(&b.child_index);
	int rc;
	sv_view *v = view_alloc();
	if (!v)
		return sv_error_set(err, SV_ENOMEM, NULL);
	b.v = v;
	v->src = src;
	v->scaling = sv_source_scaling(src);
	v->qs = sv_source_metric_scale(src);
	view_set_one_time(v);
	if (like) {
		sv_strtab_init(&v->names);
		if (view_names_like(v, like)) {
			rc = sv_error_set(err, SV_ENOMEM, NULL);
			goto out;
		}
	} else {
		view_names_init(v);
	}
	if (sv_params_copy(&v->params, params)) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	double t0 = sv_view_now_ms();
	uint32_t root_name;
	if ((rc = view_name_intern(v, &root_name, "ROOT", 4, false)))
		goto fail_nomem;
	if ((rc = view_check_params(v, err)))
		goto out;
	if ((rc = compile(&b, err)))
		goto out;

	uint32_t nf = sv_source_frame_count(src), nst = sv_source_stack_count(src);
	if (!(b.fm = calloc((size_t)nf + 1, sizeof(*b.fm))))
		goto fail_nomem;
	for (uint32_t f = 0; f < nf && like; f++)
		memo_frame_like(&b, like, f);
	for (uint32_t f = 0; f < nf && !like; f++)
		if ((rc = memo_frame(&b, f)))
			goto fail_nomem;
	if ((rc = memo_flush(&b)))
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
	if ((rc = mark_unique(&b)) || (!like && (rc = view_rank_entry_names(v, b.fm, sv_source_frame_count(src)))))
		goto fail_nomem;
	if (release) { /* every check on params passed: the old view's memory is the tree's */
		sv_view *old = *release;
		if (old->node_cap >= (size_t)nst + 1 && old->node_size == v->node_size) {
			/* its node table (the largest, mapped apart: new pages would fault in
			 * again) made again here */
			v->nodes = old->nodes;
			v->parent = old->parent;
			v->node_cap = old->node_cap;
			old->nodes = NULL;
			old->parent = NULL;
			old->node_cap = 0;
		}
		sv_view_free(old);
		*release = NULL;
		like = NULL;
	}
	bool plain = !sv_patlist_count(b.fold);
	for (uint32_t f = 0; f < nf && plain; f++)
		plain = b.fm[f].kind == SV_GROUP_NONE;
	if (!plain && !(b.ss = sv_malloc_big(((size_t)nst + 1) * sizeof(*b.ss))))
		goto fail_nomem;
	if (b.inc_need && !(b.inc_of = malloc(((size_t)nst + 1) * sizeof(*b.inc_of))))
		goto fail_nomem;
	/* a node per kept stack at most: room for them all at once, not by doubling */
	b.first_kid = sv_malloc_big(((size_t)nst + 2) * sizeof(*b.first_kid));
	b.first_kid_name = sv_malloc_big(((size_t)nst + 2) * sizeof(*b.first_kid_name));
	b.next_kid = sv_malloc_big(((size_t)nst + 2) * sizeof(*b.next_kid));
	b.nflags = sv_malloc_big((size_t)nst + 2);
	if (view_nodes_reserve(v, (size_t)nst + 1) || !b.first_kid || !b.first_kid_name || !b.next_kid || !b.nflags)
		goto fail_nomem;
	uint32_t root;
	if ((rc = node_new(&b, &root, NONE32, root_name)))
		goto fail_nomem;
	b.nflags[root] = NODE_SHARED; /* a root-most frame that folds is its short name there */
	/* each stack's node, before and after IncPats, and whether its leaf folded (none folds
	 * in a plain tree: left 0) */
	v->stack_node = sv_malloc_big(((size_t)nst + 1) * sizeof(*v->stack_node));
	v->stack_pre = sv_malloc_big(((size_t)nst + 1) * sizeof(*v->stack_pre));
	v->stack_folded = calloc((size_t)nst + 1, 1);
	if (!v->stack_node || !v->stack_pre || !v->stack_folded)
		goto fail_nomem;
	if ((rc = plain ? transform_plain(&b) : transform_stacks(&b)))
		goto fail_nomem;
	v->fm = b.fm; /* for views that differ only in IncPats and ExcPats */
	v->nfm = nf;
	b.fm = NULL;
	build_dispose(&b); /* before the samples: the peak is the tree's alone */
	if ((rc = sv_view_finish(v, t0, byname, NULL)))
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

int sv_view_new(sv_view **out, const sv_source *src, const sv_params *params, sv_error *err)
{
	return view_build(out, src, params, NULL, NULL, false, err);
}

void sv_view_trim(sv_view *v)
{
	free(v->stack_pre);
	free(v->fm);
	v->stack_pre = NULL;
	v->fm = NULL;
	v->nfm = 0;
}

void sv_view_free(sv_view *v)
{
	if (!v)
		return;
	sv_params_dispose(&v->params);
	sv_strtab_dispose(&v->names);
	free(v->own_rank);
	free(v->nodes);
	free(v->parent);
	free(v->children);
	free(v->kids);
	free(v->unsorted);
	free(v->remap);
	free(v->fold);
	free(v->xidx);
	free(v->xs_max);
	free(v->xs_span);
	free(v->alive);
	free(v->stack_node);
	free(v->stack_pre);
	free(v->fm);
	free(v->stack_folded);
	if (v->bn) {
		free(v->bn->byname);
		free(v->bn->byname_row);
		free(v->bn->byname_st);
		free(v->bn->first_on_path);
		free(v->bn->first_on_path_name);
		free(v->bn);
	}
	free(v->exc_rows);
	free(v->exc_off);
	free(v->exc_lo);
	free(v->exc_w);
	free(v->inc_rows);
	free(v->inc_off);
	free(v->inc_lo);
	free(v->inc_w);
	free(v->name_hist);
	free(v->name_hist_off);
	free(v->name_hist_lo);
	free(v->name_hist_w);
	free(v);
}

sv_view *view_alloc(void)
{
	sv_view *v = calloc(1, sizeof(*v));
	if (v && !(v->bn = calloc(1, sizeof(*v->bn)))) {
		free(v);
		v = NULL;
	}
	return v;
}

