/* SPDX-License-Identifier: MIT */
/* Heap graph -> samples: PerfView's SpanningTree over PerfView's Graph layout
 * (sv/heap_graph.h). */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/pattern.h"
#include "sv/array.h"
#include "sv/heap_graph.h"

typedef struct hg {
	const sv_heap_graph *g;
	const float *prio;
	sv_sink *sink;
	const sv_heap_watch *watch;
	sv_error *err;
	uint32_t bad; /* the node whose data is damaged */
	sv_frame_id *fids; /* per type, once interned (have) */
	uint8_t *have;
	/* a bit a node: which are taken (in the tree or queued for it), tested for every
	 * reference, and which are of a type whose priority is not 0, tested for every node met:
	 * in the cache however large the heap, and a node met is looked up for its type only
	 * when its priority is not 0 (in most heaps: the roots') */
	uint64_t *taken, *prio_bits;
	/* nodes whose type's priority is not 0 and that are not taken yet: once none is left,
	 * no node met is looked up in prio_bits (in most heaps they are the few roots, taken
	 * first) */
	uint32_t prio_left;
	/* per node its type, read in one pass over the nodes before the walk, for the nodes met
	 * whose priority is not 0: 2 bytes a node when the types' ids fit, else 4 */
	uint16_t *type16;
	uint32_t *type32;
} hg;

static int bad(hg *c, uint32_t node, const char *fmt, ...) SV_PRINTF(3, 4);
static int bad(hg *c, uint32_t node, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sv_error_vset(c->err, SV_EFORMAT, fmt, ap);
	va_end(ap);
	c->bad = node;
	return SV_EFORMAT;
}

/* PerfView's compressed int: big-endian 7-bit groups, the first sign-extended, the high bit
 * saying another group follows (5 at most). */
static inline __attribute__((always_inline)) bool cint(const hg *c, uint32_t *at, int32_t *out)
{
	if (*at >= c->g->blob_len) /* (a node's offset is the file's: any u32) */
		return false;
	/* the groups the blob has room for, 5 at most: one bound for the whole int */
	uint32_t left = c->g->blob_len - *at, most = left < 5 ? left : 5;
	const uint8_t *p = c->g->blob + *at;
	uint8_t b = p[0];
	int32_t v = (int32_t)((uint32_t)b << 25) >> 25;
	uint32_t i = 1;
	for (; (b & 0x80) && i < most; i++) {
		b = p[i];
		v = (int32_t)((uint32_t)v << 7) + (b & 0x7f);
	}
	if (b & 0x80) /* more groups than 5, or than the blob holds */
		return false;
	*at += i;
	*out = v;
	return true;
}

static uint32_t label(const hg *c, uint32_t node)
{
	const unsigned char *p = c->g->labels + (size_t)node * 4;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Node i's type and size, and where its children start (*at) and how many (*nch). */
static int node_at(hg *c, uint32_t i, uint32_t start, uint32_t *type, int64_t *size, uint32_t *at, int32_t *nch)
{
	*at = start;
	int32_t ts, sz = 0;
	if (!cint(c, at, &ts) || ts < 0 || (uint32_t)ts >> 1 >= c->g->ntypes || ((ts & 1) && !cint(c, at, &sz)) ||
	    !cint(c, at, nch) || *nch < 0 || (uint32_t)*nch > c->g->blob_len - *at) /* a byte a child at least */
		return bad(c, i, "node %u's data is damaged", i);
	*type = (uint32_t)ts >> 1;
	*size = ts & 1 ? sz : c->g->types[*type].size;
	return 0;
}

static int node(hg *c, uint32_t i, uint32_t *type, int64_t *size, uint32_t *at, int32_t *nch)
{
	return node_at(c, i, label(c, i), type, size, at, nch);
}

static bool bit(const uint64_t *bits, uint32_t i)
{
	return bits[i >> 6] >> (i & 63) & 1;
}

static void set_bit(uint64_t *bits, uint32_t i)
{
	bits[i >> 6] |= 1ull << (i & 63);
}

static uint32_t type_of(const hg *c, uint32_t i)
{
	return c->type16 ? c->type16[i] : c->type32[i];
}

static const void *type_addr(const hg *c, uint32_t i)
{
	return c->type16 ? (const void *)&c->type16[i] : (const void *)&c->type32[i];
}

/* Every node's data checked as far as its child count, in node order: its type kept and, when
 * the type's priority is not 0, marked. */
static int read_types(hg *c)
{
	uint32_t n = c->g->nnodes;
	if (c->g->ntypes <= 65536)
		c->type16 = sv_malloc_big((size_t)n * sizeof(*c->type16));
	else
		c->type32 = sv_malloc_big((size_t)n * sizeof(*c->type32));
	size_t words = (size_t)n / 64 + 1; /* (read at random: on huge pages where large) */
	c->taken = sv_calloc_big(words, sizeof(*c->taken));
	c->prio_bits = sv_calloc_big(words, sizeof(*c->prio_bits));
	if ((!c->type16 && !c->type32) || !c->taken || !c->prio_bits)
		return SV_ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t type, at;
		int64_t size;
		int32_t nch;
		int rc = node(c, i, &type, &size, &at, &nch);
		if (rc)
			return rc;
		if (c->type16)
			c->type16[i] = (uint16_t)type;
		else
			c->type32[i] = type;
		if (c->prio[type] != 0) {
			set_bit(c->prio_bits, i);
			c->prio_left++;
		}
	}
	return 0;
}

static int child(hg *c, uint32_t i, uint32_t *at, uint32_t *out)
{
	int32_t rel;
	if (!cint(c, at, &rel) || (int64_t)i + rel < 0 || (int64_t)i + rel >= c->g->nnodes)
		return bad(c, i, "node %u refers to a node outside the graph", i);
	*out = (uint32_t)((int64_t)i + rel);
	return 0;
}

/* ---- the spanning tree, as PerfView's SpanningTree.ForEach walks it ---- */

/* The queue's entries hold everything a node needs when it is taken: its priority in the
 * queue (its own less the order it was met in), the node, its own priority (a tenth of which
 * its children inherit), the stack of the node that took it and where its data starts (read
 * when it was met, not looked up again). Nothing is kept beside the heap: taking the top
 * reads no other memory, and the next top's data can be fetched as soon as it is known. */
typedef struct pq_item {
	float pri;
	uint32_t node;
	float prio;
	sv_stack_id up;
	uint32_t label;
} pq_item;

typedef struct pq {
	pq_item *h;
	size_t n, cap;
} pq;

/* PerfView's PriorityQueue, heap quirks and all (children of i at 2i and 2i+1, so the
 * order among equal priorities is PerfView's). */
static int pq_push(pq *q, pq_item v)
{
	/* its lower levels are read at random: on huge pages */
	if (q->n == q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 1024;
		if (sv_move_big(&q->h, q->n, ncap, sizeof(*q->h)))
			return SV_ENOMEM;
		q->cap = ncap;
	}
	pq_item *h = q->h;
	size_t i = q->n++;
	while (i > 0) {
		size_t p = i / 2;
		if (h[p].pri >= v.pri)
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = v;
	return 0;
}

static void pq_pop(pq *q, pq_item *out)
{
	pq_item *h = q->h;
	*out = h[0];
	size_t n = --q->n;
	pq_item last = h[n];
	size_t i = 0;
	for (;;) {
		/* i's descendants three levels down are 8 entries side by side (children at 2i,
		 * 2i+1): fetch them while this level is compared */
		if (i * 8 + 7 < n) {
			const char *d = (const char *)&h[i * 8];
			__builtin_prefetch(d);
			__builtin_prefetch(d + 64);
			__builtin_prefetch(d + 128);
		}
		size_t l = i * 2, big = i;
		float bp = last.pri;
		if (l < n && l != i && h[l].pri > bp)
			big = l, bp = h[l].pri;
		if (l + 1 < n && h[l + 1].pri > bp)
			big = l + 1;
		if (big == i)
			break;
		h[i] = h[big];
		i = big;
	}
	h[i] = last;
	/* the queue is largest midway; what it no longer needs goes back as it shrinks, for
	 * the stacks and samples made after */
	if (q->cap >= 65536 && q->n < q->cap / 4) {
		pq_item *s = realloc(q->h, q->cap / 2 * sizeof(*s));
		if (s) {
			q->h = s;
			q->cap /= 2;
		}
	}
}

/* while looking for orphans, a node not taken is also */
enum {
	M_NONE,     /* not reached from another orphan */
	M_VISITED,  /* reached from another orphan (SpanningTree's orphanVisitedMarker) */
	M_VISITING, /* on mark_descendants' path */
};

/* SpanningTree.MarkDecendentsIgnoringCycles without recursion: mark what node reaches (not
 * node itself), ignoring arcs that close a cycle, to at most 10,000 levels as there. */
typedef struct mark_frame {
	uint32_t node, at;
	int32_t left;
} mark_frame;

static int mark_descendants(hg *c, const uint64_t *taken, uint8_t *mark, uint32_t start, mark_frame **stk,
			    size_t *cap)
{
	size_t depth = 0;
	uint32_t type, at;
	int64_t size;
	int32_t nch;
	int rc = node(c, start, &type, &size, &at, &nch);
	if (rc)
		return rc;
	mark[start] = M_VISITING;
	(*stk)[0] = (mark_frame){ start, at, nch };
	for (;;) {
		mark_frame *f = &(*stk)[depth];
		if (f->left == 0) {
			uint32_t x = f->node;
			if (depth == 0) {
				mark[x] = M_NONE; /* the start itself stays unmarked */
				return 0;
			}
			depth--;
			mark[x] = M_VISITED; /* the caller marks the child it went into */
			continue;
		}
		f->left--;
		uint32_t ch = 0;
		if ((rc = child(c, f->node, &f->at, &ch)))
			return rc;
		if (bit(taken, ch) || mark[ch] != M_NONE)
			continue;
		if (depth + 1 > 10000) { /* PerfView gives up below that depth, and still marks the child */
			mark[ch] = M_VISITED;
			continue;
		}
		if ((rc = node(c, ch, &type, &size, &at, &nch)))
			return rc;
		if (depth + 2 > *cap) {
			mark_frame *ns = realloc(*stk, *cap * 2 * sizeof(**stk));
			if (!ns)
				return SV_ENOMEM;
			*stk = ns;
			*cap *= 2;
		}
		mark[ch] = M_VISITING;
		(*stk)[++depth] = (mark_frame){ ch, at, nch };
	}
}

static int frame_of_type(hg *c, uint32_t t, sv_frame_id *out)
{
	if (c->have[t]) {
		*out = c->fids[t];
		return 0;
	}
	const sv_heap_type *ty = &c->g->types[t];
	int rc = c->sink->ops->intern_frame(c->sink->self, out, ty->name, ty->len);
	if (!rc) {
		c->fids[t] = *out;
		c->have[t] = 1;
	}
	return rc;
}

/* The orphans: nodes no root reaches and no other such node reaches (a cycle of them gives
 * one), queued under "[not reachable from roots]" by their types' priorities. */
static int queue_orphans(hg *c, uint64_t *taken, pq *q, size_t *unreachable)
{
	size_t mcap = 64;
	mark_frame *mstk = malloc(mcap * sizeof(*mstk));
	uint8_t *mark = calloc(c->g->nnodes, 1);
	int rc = mstk && mark ? 0 : SV_ENOMEM;
	for (uint32_t i = 0; !rc && i < c->g->nnodes; i++)
		if (!bit(taken, i) && mark[i] == M_NONE)
			rc = mark_descendants(c, taken, mark, i, &mstk, &mcap);
	free(mstk);
	sv_stack_id lost = SV_STACK_NONE;
	for (uint32_t i = 0; !rc && i < c->g->nnodes; i++) {
		if (!bit(taken, i) && mark[i] == M_NONE && i != c->g->root) {
			uint32_t type, at;
			int64_t size;
			int32_t nch;
			if ((rc = node(c, i, &type, &size, &at, &nch)))
				break;
			if (lost == SV_STACK_NONE) {
				sv_frame_id f;
				if ((rc = c->sink->ops->intern_frame(c->sink->self, &f, "[not reachable from roots]", 26)) ||
				    (rc = c->sink->ops->intern_stack(c->sink->self, &lost, SV_STACK_NONE, f)))
					break;
			}
			float p = c->prio[type];
			if ((rc = pq_push(q, (pq_item){ p, i, p, lost, label(c, i) })))
				break;
			set_bit(taken, i);
			c->prio_left -= bit(c->prio_bits, i);
			(*unreachable)++;
		}
	}
	free(mark);
	return rc;
}

/* The walk: each node taken is a sample at the end of its path from the root. A node's
 * children are read in two passes so that the memory each needs (its offset and its type) is
 * fetched for all of them at once rather than one miss after another: the walk goes through
 * the graph in priority order, not in the order it is stored. */
static int walk(hg *c, size_t *unreachable)
{
	uint64_t *taken = c->taken;
	pq q = { 0 };
	uint32_t *kids = NULL; /* the children of the node taken */
	size_t kcap = 0;
	/* the root is queued but not marked, as in PerfView: an arc back to it takes it again */
	int rc = pq_push(&q, (pq_item){ 0.0f, c->g->root, 0.0f, SV_STACK_NONE, label(c, c->g->root) });
	bool orphans_added = false;
	float order = 0, eps = 1e-7f;
	uint32_t ntaken = 0;
	while (!rc) {
		if (q.n == 0) {
			if (orphans_added)
				break;
			orphans_added = true;
			rc = queue_orphans(c, taken, &q, unreachable);
			continue;
		}
		if (c->watch && ++ntaken % SV_HEAP_TICK == 0 &&
		    (rc = c->watch->tick(c->watch->payload, ntaken, c->g->nnodes, c->err)))
			break;
		pq_item cur;
		pq_pop(&q, &cur);
		uint32_t type, at;
		int64_t size;
		int32_t nch;
		sv_frame_id f;
		sv_stack_id here;
		/* the next nodes' data is fetched while this one's children are met: the top's,
		 * its one child's (the next but one) and that one's two children's (the likeliest
		 * after it) */
		for (size_t k = 0; k < 4 && k < q.n; k++) {
			uint32_t nl = q.h[k].label;
			if (nl < c->g->blob_len)
				__builtin_prefetch(c->g->blob + nl);
		}
		if ((rc = node_at(c, cur.node, cur.label, &type, &size, &at, &nch)) ||
		    (rc = frame_of_type(c, type, &f)) ||
		    (rc = c->sink->ops->intern_stack(c->sink->self, &here, cur.up, f)) ||
		    (rc = c->sink->ops->add_sample(c->sink->self, here, 0, (double)size * c->g->types[type].count_mult,
						   c->g->types[type].count_mult)))
			break;
		if (nch > 0 && SV_ARRAY_RESERVE(kids, kcap, (size_t)nch)) {
			rc = SV_ENOMEM;
			break;
		}
		/* three passes: the children read and their taken bits asked for (the bitmap is
		 * out of the cache by the time a node is met again: a load each, and a branch on
		 * each that would wait for it); then the ones not taken kept and their offsets
		 * and types asked for */
		int32_t nmet = 0;
		bool some_prio = c->prio_left > 0;
		for (int32_t k = 0; k < nch; k++) {
			if ((rc = child(c, cur.node, &at, &kids[k])))
				break;
			__builtin_prefetch(&taken[kids[k] >> 6]);
		}
		for (int32_t k = 0; k < nch && !rc; k++) {
			uint32_t ch = kids[k];
			if (bit(taken, ch)) /* most references are to nodes taken already */
				continue;
			__builtin_prefetch(c->g->labels + (size_t)ch * 4);
			if (some_prio && bit(c->prio_bits, ch))
				__builtin_prefetch(type_addr(c, ch));
			kids[nmet++] = ch;
		}
		for (int32_t k = 0; k < nmet && !rc; k++) {
			uint32_t ch = kids[k];
			if (bit(taken, ch)) /* met twice by this node */
				continue;
			set_bit(taken, ch);
			bool own = some_prio && bit(c->prio_bits, ch);
			c->prio_left -= own;
			float cp = (own ? c->prio[type_of(c, ch)] : 0) + cur.prio / 10;
			order += eps;
			rc = pq_push(&q, (pq_item){ cp - order, ch, cp, here, label(c, ch) });
		}
	}
	free(q.h);
	free(kids);
	return rc;
}

/* ---- priorities: PerfView's Priority patterns ("PAT->NUM;..."), first match wins ---- */

static const char default_priorities[] =
	"v4.0.30319\\%!->-1;v2.0.50727\\%!->-1;[*local vars]->-1000;"
	"mscorlib!Runtime.CompilerServices.ConditionalWeakTable->-10000;[COM/WinRT Objects]->-1000000;"
	"[*handles]->-2000000;[other roots]->-2000000";

const char *sv_heap_default_priorities(void)
{
	return default_priorities;
}

static int prio_fail(sv_error *err, const char *entry, int n, const char *why)
{
	sv_error_set(err, SV_EINVAL, "'%.*s': %s", n > 200 ? 200 : n, entry, why);
	return SV_EINVAL;
}

int sv_heap_priorities(float *out, const sv_heap_type *types, uint32_t ntypes, const char *pats, sv_error *err)
{
	uint8_t *set = calloc(ntypes ? ntypes : 1, 1);
	if (!set)
		return SV_ENOMEM;
	for (uint32_t t = 0; t < ntypes; t++)
		out[t] = 0;
	int rc = 0;
	const char *p = pats;
	while (*p && !rc) {
		const char *semi = strchr(p, ';'), *end = semi ? semi : p + strlen(p);
		const char *arrow = NULL, *a = p, *b = end;
		for (const char *q = p; q + 1 < end; q++)
			if (q[0] == '-' && q[1] == '>')
				arrow = q;
		while (a < b && isspace((unsigned char)*a))
			a++;
		if (a == b) {
			p = semi ? semi + 1 : end;
			continue;
		}
		if (!arrow) {
			rc = prio_fail(err, p, (int)(end - p), "expected PATTERN->NUMBER");
			break;
		}
		char num[64], *numend;
		int nl = snprintf(num, sizeof(num), "%.*s", (int)(end - arrow - 2), arrow + 2);
		float prio = strtof(num, &numend);
		while (*numend == ' ')
			numend++;
		if (nl <= 0 || nl >= (int)sizeof(num) || numend == num || *numend || !isfinite(prio)) {
			rc = prio_fail(err, p, (int)(end - p), "the priority after -> is not a number");
			break;
		}
		b = arrow;
		while (b > a && isspace((unsigned char)b[-1]))
			b--;
		sv_pattern *re = NULL;
		sv_error e;
		sv_error_clear(&e);
		rc = sv_pattern_new(&re, a, (size_t)(b - a), &e);
		if (rc == SV_ENOMEM)
			break;
		if (rc) {
			rc = prio_fail(err, p, (int)(end - p), e.msg);
			break;
		}
		for (uint32_t t = 0; t < ntypes; t++)
			if (!set[t] && sv_pattern_match(re, types[t].name, types[t].len)) {
				out[t] = prio;
				set[t] = 1;
			}
		sv_pattern_free(re);
		p = semi ? semi + 1 : end;
	}
	free(set);
	return rc;
}

int sv_heap_tree(const sv_heap_graph *g, const float *prio, sv_sink *sink, const sv_heap_watch *watch,
		 size_t *unreachable, uint32_t *bad_node, sv_error *err)
{
	hg c = { .g = g, .prio = prio, .sink = sink, .watch = watch, .err = err, .bad = UINT32_MAX };
	*unreachable = 0;
	if (g->nnodes == 0 || g->root >= g->nnodes)
		return bad(&c, g->root, "the root node %u is not in the graph", g->root);
	/* a stack an object at most, and one for the objects no root reaches */
	int rc = sink->ops->reserve_stacks ? sink->ops->reserve_stacks(sink->self, (size_t)g->nnodes + 1) : 0;
	if (rc)
		return rc;
	c.fids = malloc((g->ntypes ? g->ntypes : 1) * sizeof(*c.fids));
	c.have = calloc(g->ntypes ? g->ntypes : 1, 1);
	rc = c.fids && c.have ? read_types(&c) : SV_ENOMEM;
	if (!rc)
		rc = walk(&c, unreachable);
	free(c.fids);
	free(c.have);
	free(c.taken);
	free(c.prio_bits);
	free(c.type16);
	free(c.type32);
	*bad_node = c.bad;
	return rc;
}
