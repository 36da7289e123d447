/* SPDX-License-Identifier: MIT */
/* Heap snapshots (.gcdump: PerfView's and dotnet-gcdump's): a FastSerialization stream
 * ("!FastSerialization.1") holding a GCHeapDump object whose first field is its MemoryGraph:
 *
 *     MemoryGraph: i64 total size, i32 root node, i32 type count, per type: string name,
 *                  i32 size, string module; i32 node count, per node an i32 offset into the
 *                  node blob; i32 blob length and the blob; i32 address count and the i64
 *                  addresses; (newer writers) a tagged bool; end of object
 *     a node in the blob: compressed int (type << 1 | has size) [compressed size], compressed
 *                  child count, each child compressed and relative to the node's index
 *     then (GCHeapDump version 9 and later): bool 64-bit, f32 average count and size
 *                  multipliers, the JSHeapInfo and DotNetHeapInfo objects, the collection log,
 *                  time, machine, process name and id, commit and working set, i32 count and
 *                  that many f32 per-type count multipliers (sampled dumps), tagged fields;
 *                  (versions 4 to 7) the heap's sizes, the collection, segments
 *
 * (strings: i32 length, -1 for none, then the characters). The graph becomes samples as
 * PerfView's heap views make them: a spanning tree from the root, the next node taken by
 * priority (its type's priority from the Priority patterns, plus a tenth of its parent's; ties
 * in the order they were met), nodes no root reaches under "[not reachable from roots]"; each
 * node is a sample of its size (times its type's count multiplier in a sampled dump) whose stack is its path from the
 * root, a frame a type's name (MODULE!Name where the type has a module). */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/formats.h"
#include "stackview/pattern.h"
#include "sv/array.h"

#define GD_MAGIC "!FastSerialization.1"
#define GD_MAX_NODES (1u << 28)

typedef struct gd_str {
	const char *p;
	int32_t n; /* -1: none */
} gd_str;

typedef struct gd_type {
	gd_str name, module;
	int32_t size;
	float priority;
	bool prio_set;    /* a pattern matched it (the first one that does decides) */
	float count_mult; /* a sampled dump: how many objects each of this type stands for */
} gd_type;

typedef struct gd_ctx {
	const unsigned char *d;
	size_t n, at;
	const sv_input *in;
	sv_error *err;
	sv_sink *sink;
	gd_type *types;
	uint32_t ntypes;
	uint32_t nnodes, root;
	const unsigned char *labels; /* nnodes i32 offsets */
	const unsigned char *blob;
	uint32_t blob_len;
	int64_t total;
	float count_mult, size_mult; /* a sampled dump's averages (shown, not applied: per type is) */
	bool sampled;
	gd_str log, machine, process;
	int32_t pid;
	int64_t ticks;
	char *name;
	size_t name_cap;
} gd_ctx;

static int gd_fail(gd_ctx *c, const char *fmt, ...) SV_PRINTF(2, 3);
static int gd_fail(gd_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sv_error_vset(c->err, SV_EFORMAT, fmt, ap);
	va_end(ap);
	sv_error_locate(c->err, c->in->name, -1, (long long)c->at);
	return SV_EFORMAT;
}

static bool need(gd_ctx *c, size_t k)
{
	return c->n - c->at >= k;
}

static int rd_u8(gd_ctx *c, uint8_t *v)
{
	if (!need(c, 1))
		return gd_fail(c, "the heap snapshot ends early");
	*v = c->d[c->at++];
	return 0;
}

static int rd_i32(gd_ctx *c, int32_t *v)
{
	if (!need(c, 4))
		return gd_fail(c, "the heap snapshot ends early");
	uint32_t u = (uint32_t)c->d[c->at] | (uint32_t)c->d[c->at + 1] << 8 | (uint32_t)c->d[c->at + 2] << 16 |
		     (uint32_t)c->d[c->at + 3] << 24;
	c->at += 4;
	memcpy(v, &u, 4);
	return 0;
}

static int rd_i64(gd_ctx *c, int64_t *v)
{
	int32_t lo = 0, hi = 0;
	int rc = rd_i32(c, &lo);
	if (!rc)
		rc = rd_i32(c, &hi);
	if (!rc)
		*v = (int64_t)((uint64_t)(uint32_t)hi << 32 | (uint32_t)lo);
	return rc;
}

static int rd_str(gd_ctx *c, gd_str *s)
{
	int32_t n = 0;
	int rc = rd_i32(c, &n);
	if (rc)
		return rc;
	if (n < -1 || (n > 0 && !need(c, (size_t)n)))
		return gd_fail(c, "a string of %d bytes does not fit the snapshot", n);
	*s = (gd_str){ n > 0 ? (const char *)c->d + c->at : "", n };
	if (n > 0)
		c->at += (size_t)n;
	return 0;
}

/* FastSerialization's object header: BeginObject (4) or BeginPrivateObject (5), its type
 * (the same, then a null type, i32 version, i32 oldest reader, the name, EndObject). */
static int object(gd_ctx *c, const char *want, int32_t *version, int32_t *minr)
{
	uint8_t t = 0, t2 = 0, nul = 0, end = 0;
	gd_str name;
	int rc;
	size_t start = c->at;
	if ((rc = rd_u8(c, &t)) || (rc = rd_u8(c, &t2)) || (rc = rd_u8(c, &nul)))
		return rc;
	if ((t != 4 && t != 5) || (t2 != 4 && t2 != 5) || nul != 1) {
		c->at = start;
		return gd_fail(c, "expected the %s object", want);
	}
	if ((rc = rd_i32(c, version)) || (rc = rd_i32(c, minr)) || (rc = rd_str(c, &name)) || (rc = rd_u8(c, &end)))
		return rc;
	if (end != 6 || name.n != (int32_t)strlen(want) || memcmp(name.p, want, (size_t)name.n) != 0) {
		c->at = start;
		return gd_fail(c, "expected the %s object, found '%.*s'", want, name.n > 0 && name.n < 200 ? name.n : 0, name.p);
	}
	return 0;
}

/* ---- the graph ---- */

/* PerfView's compressed int: big-endian 7-bit groups, the first sign-extended, the high bit
 * saying another group follows (5 at most). */
static bool cint(const gd_ctx *c, uint32_t *at, int32_t *out)
{
	if (*at >= c->blob_len)
		return false;
	uint8_t b = c->blob[(*at)++];
	int32_t v = (int32_t)((uint32_t)b << 25) >> 25;
	for (int i = 0; (b & 0x80) && i < 4; i++) {
		if (*at >= c->blob_len)
			return false;
		b = c->blob[(*at)++];
		v = (int32_t)((uint32_t)v << 7) + (b & 0x7f);
	}
	if (b & 0x80)
		return false;
	*out = v;
	return true;
}

static uint32_t label(const gd_ctx *c, uint32_t node)
{
	const unsigned char *p = c->labels + (size_t)node * 4;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Node i's type and size, and where its children start (*at) and how many (*nch). */
static int node_at(gd_ctx *c, uint32_t i, uint32_t start, uint32_t *type, int64_t *size, uint32_t *at, int32_t *nch)
{
	*at = start;
	int32_t ts, sz = 0;
	if (!cint(c, at, &ts) || ts < 0 || (uint32_t)ts >> 1 >= c->ntypes || ((ts & 1) && !cint(c, at, &sz)) ||
	    !cint(c, at, nch) || *nch < 0 || (uint32_t)*nch > c->blob_len - *at) /* a byte a child at least */
		return gd_fail(c, "node %u's data is damaged", i);
	*type = (uint32_t)ts >> 1;
	*size = ts & 1 ? sz : c->types[*type].size;
	return 0;
}

static int node(gd_ctx *c, uint32_t i, uint32_t *type, int64_t *size, uint32_t *at, int32_t *nch)
{
	return node_at(c, i, label(c, i), type, size, at, nch);
}

static int child(gd_ctx *c, uint32_t i, uint32_t *at, uint32_t *out)
{
	int32_t rel;
	if (!cint(c, at, &rel) || (int64_t)i + rel < 0 || (int64_t)i + rel >= c->nnodes)
		return gd_fail(c, "node %u refers to a node outside the graph", i);
	*out = (uint32_t)((int64_t)i + rel);
	return 0;
}

static int read_graph(gd_ctx *c)
{
	int32_t v, minr, root, ntypes, nnodes, blob, naddr;
	int rc;
	if ((rc = object(c, "Graphs.MemoryGraph", &v, &minr)))
		return rc;
	if ((rc = rd_i64(c, &c->total)) || (rc = rd_i32(c, &root)) || (rc = rd_i32(c, &ntypes)))
		return rc;
	if (ntypes < 1 || (size_t)ntypes > c->n / 9)
		return gd_fail(c, "%d types do not fit the snapshot", ntypes);
	if (!(c->types = calloc((size_t)ntypes, sizeof(*c->types))))
		return SV_ENOMEM;
	c->ntypes = (uint32_t)ntypes;
	for (int32_t i = 0; i < ntypes; i++)
		c->types[i].count_mult = 1;
	for (int32_t i = 0; i < ntypes; i++)
		if ((rc = rd_str(c, &c->types[i].name)) || (rc = rd_i32(c, &c->types[i].size)) ||
		    (rc = rd_str(c, &c->types[i].module)))
			return rc;
	if ((rc = rd_i32(c, &nnodes)))
		return rc;
	if (nnodes < 1 || (uint32_t)nnodes > GD_MAX_NODES || !need(c, (size_t)nnodes * 4))
		return gd_fail(c, "%d nodes do not fit the snapshot", nnodes);
	c->nnodes = (uint32_t)nnodes;
	c->labels = c->d + c->at;
	c->at += (size_t)nnodes * 4;
	if ((rc = rd_i32(c, &blob)))
		return rc;
	if (blob < 0 || !need(c, (size_t)blob))
		return gd_fail(c, "a node blob of %d bytes does not fit the snapshot", blob);
	c->blob = c->d + c->at;
	c->blob_len = (uint32_t)blob;
	c->at += (size_t)blob;
	if (root < 0 || (uint32_t)root >= c->nnodes)
		return gd_fail(c, "the root node %d is not in the graph", root);
	c->root = (uint32_t)root;
	if (v > 1)
		return gd_fail(c, "MemoryGraph version %d is newer than any PerfView writes (1)", v);
	if (minr >= 1) /* Graph.ToStream's deferred region: types named by ID and module (.NET Native) */
		return gd_fail(c, "the types are named by ID for symbol lookup (a .NET Native dump): not read");
	if ((rc = rd_i32(c, &naddr)))
		return rc;
	if (naddr < 0 || !need(c, (size_t)naddr * 8))
		return gd_fail(c, "%d addresses do not fit the snapshot", naddr);
	c->at += (size_t)naddr * 8;
	uint8_t t;
	if ((rc = rd_u8(c, &t)))
		return rc;
	if (t == 8) { /* a tagged byte (Is64Bit, newer writers), then the end */
		uint8_t b;
		if ((rc = rd_u8(c, &b)) || (rc = rd_u8(c, &t)))
			return rc;
	}
	if (t != 6)
		return gd_fail(c, "the MemoryGraph object does not end where its fields do");
	return 0;
}

/* An object field (FastSerialization): null, a reference to one read before, or the object
 * itself: its type (defined here or referred to), `fields` (what its class writes), its end. */
static int skip_object(gd_ctx *c, const char *what, int (*fields)(gd_ctx *c))
{
	uint8_t t = 0;
	int32_t ref;
	int rc = rd_u8(c, &t);
	if (rc || t == 1) /* NullReference */
		return rc;
	if (t == 2) /* ObjectReference */
		return rd_i32(c, &ref);
	if (t != 4 && t != 5)
		return gd_fail(c, "expected the %s field", what);
	uint8_t tt = 0;
	if ((rc = rd_u8(c, &tt)))
		return rc;
	if (tt == 2) {
		rc = rd_i32(c, &ref);
	} else if (tt == 4 || tt == 5) {
		uint8_t nul = 0, end = 0;
		int32_t v, minr;
		gd_str name;
		if (!(rc = rd_u8(c, &nul)) && nul != 1)
			return gd_fail(c, "the %s field's type is damaged", what);
		if (!rc && !(rc = rd_i32(c, &v)) && !(rc = rd_i32(c, &minr)) && !(rc = rd_str(c, &name)) && !(rc = rd_u8(c, &end)) &&
		    end != 6)
			return gd_fail(c, "the %s field's type is damaged", what);
	} else {
		return gd_fail(c, "the %s field's type is damaged", what);
	}
	uint8_t end = 0;
	if (!rc && fields)
		rc = fields(c);
	if (!rc && !(rc = rd_u8(c, &end)) && end != 6)
		return gd_fail(c, "the %s field does not end where its fields do", what);
	return rc;
}

static int segment_fields(gd_ctx *c) /* GCHeapDumpSegment: start, end, the generations' ends */
{
	return need(c, 48) ? (c->at += 48, 0) : gd_fail(c, "a heap segment ends early");
}

static int heap_info_fields(gd_ctx *c) /* DotNetHeapInfo: size of all segments, the segments */
{
	int64_t size;
	int32_t n;
	int rc = rd_i64(c, &size);
	if (!rc && !(rc = rd_i32(c, &n)) && (n < 0 || (size_t)n > c->n / 10))
		return gd_fail(c, "%d heap segments do not fit the snapshot", n);
	for (int32_t i = 0; !rc && i < n; i++)
		rc = skip_object(c, "heap segment", segment_fields);
	return rc;
}

/* What the collection says of itself: its log, when, the machine, the process. */
static int collection(gd_ctx *c)
{
	int64_t ticks, commit, ws;
	int rc;
	if ((rc = rd_str(c, &c->log)) || (rc = rd_i64(c, &ticks)) || (rc = rd_str(c, &c->machine)) ||
	    (rc = rd_str(c, &c->process)) || (rc = rd_i32(c, &c->pid)) || (rc = rd_i64(c, &commit)) || (rc = rd_i64(c, &ws)))
		return rc;
	c->ticks = ticks;
	return 0;
}

/* GCHeapDump's fields after its graph, by the version that wrote them (GCHeapDump.FromStream):
 * before 8 the heap's sizes and segments; 8 never read; from 9 the sampling's average
 * multipliers (shown), the heap infos, the collection, and per type the count multiplier
 * each object of it is scaled by (PerfView's MemoryGraphStackSource). */
static int dump_fields(gd_ctx *c, int32_t version)
{
	int rc;
	c->count_mult = c->size_mult = 1;
	if (version == 8)
		return gd_fail(c, "GCHeapDump version 8 is not a layout any reader takes (PerfView refuses it too)");
	if (version < 8) {
		int64_t x;
		uint8_t b;
		if ((rc = rd_i64(c, &x)) || (rc = rd_i64(c, &x)) || (rc = rd_i64(c, &x)) || (rc = rd_u8(c, &b)))
			return rc;
		return version >= 5 ? collection(c) : 0;
	}
	uint8_t is64;
	int32_t cm, sm, n;
	if ((rc = rd_u8(c, &is64)) || (rc = rd_i32(c, &cm)) || (rc = rd_i32(c, &sm)))
		return rc;
	memcpy(&c->count_mult, &cm, 4);
	memcpy(&c->size_mult, &sm, 4);
	if ((rc = skip_object(c, "JSHeapInfo", NULL)) || (rc = skip_object(c, "DotNetHeapInfo", heap_info_fields)) ||
	    (rc = collection(c)) || (rc = rd_i32(c, &n)))
		return rc;
	if (n < 0 || !need(c, (size_t)n * 4))
		return gd_fail(c, "%d count multipliers do not fit the snapshot", n);
	if (n > 0 && (uint32_t)n != c->ntypes)
		return gd_fail(c, "%d count multipliers for %u types", n, c->ntypes);
	for (int32_t i = 0; i < n; i++) {
		float f;
		memcpy(&f, c->d + c->at + (size_t)i * 4, 4);
		if (!isfinite(f) || f <= 0 || f > 1e9)
			return gd_fail(c, "type %d's count multiplier %g is not a scale", i, (double)f);
		c->types[i].count_mult = f;
		c->sampled = true;
	}
	c->at += (size_t)n * 4;
	return 0;
}

/* ---- priorities: PerfView's Priority patterns ("PAT->NUM;..."), first match wins ---- */

static int prio_fail(gd_ctx *c, const char *entry, int n, const char *why)
{
	sv_error_set(c->err, SV_EINVAL, "--priority: '%.*s': %s", n > 200 ? 200 : n, entry, why);
	return SV_EINVAL;
}

/* Each entry is PATTERN->NUMBER (the last "->" splits it, so "X->-1" is X at -1); empty
 * entries are skipped, as PerfView's parser skips them. */
static int priorities(gd_ctx *c, const char *pats)
{
	const char *p = pats;
	while (*p) {
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
		if (!arrow)
			return prio_fail(c, p, (int)(end - p), "expected PATTERN->NUMBER");
		char num[64], *numend;
		int nl = snprintf(num, sizeof(num), "%.*s", (int)(end - arrow - 2), arrow + 2);
		float prio = strtof(num, &numend);
		while (*numend == ' ')
			numend++;
		if (nl <= 0 || nl >= (int)sizeof(num) || numend == num || *numend || !isfinite(prio))
			return prio_fail(c, p, (int)(end - p), "the priority after -> is not a number");
		b = arrow;
		while (b > a && isspace((unsigned char)b[-1]))
			b--;
		sv_pattern *re = NULL;
		sv_error e;
		sv_error_clear(&e);
		int rc = sv_pattern_new(&re, a, (size_t)(b - a), &e);
		if (rc == SV_ENOMEM)
			return rc;
		if (rc)
			return prio_fail(c, p, (int)(end - p), e.msg);
		for (uint32_t t = 0; t < c->ntypes; t++) {
			gd_type *ty = &c->types[t];
			if (ty->prio_set)
				continue;
			char full[2048];
			int fl = ty->module.n >= 0 ? snprintf(full, sizeof(full), "%.*s!%.*s", ty->module.n ? ty->module.n : 1,
							      ty->module.n ? ty->module.p : "?", ty->name.n, ty->name.p)
						   : snprintf(full, sizeof(full), "%.*s", ty->name.n > 0 ? ty->name.n : 0, ty->name.p);
			if (sv_pattern_match(re, full, (size_t)(fl < (int)sizeof(full) ? fl : (int)sizeof(full) - 1))) {
				ty->priority = prio;
				ty->prio_set = true;
			}
		}
		sv_pattern_free(re);
		p = semi ? semi + 1 : end;
	}
	return 0;
}

/* ---- the spanning tree, as PerfView's SpanningTree.ForEach walks it ---- */

/* The queue holds (priority in the queue, slot): `pri` is a node's own priority less the order it
 * was met in; the slot holds the rest (the node, its own priority, a tenth of which its
 * children inherit, and the stack of the node that took it), so the heap's entries stay 8
 * bytes and nothing per node is kept beside the queue but a bit. */
typedef struct pq_item {
	float pri;
	uint32_t slot;
} pq_item;

typedef struct pq_slot {
	uint32_t node;
	float prio;
	sv_stack_id up;
	uint32_t label; /* where its data starts (read when it was met: not looked up again) */
} pq_slot;

typedef struct pq {
	pq_item *h;
	size_t n, cap;
	pq_slot *slots;
	uint32_t *free; /* slots given back */
	size_t nfree, nslots, slot_cap, free_cap;
} pq;

/* PerfView's PriorityQueue, heap quirks and all (children of i at 2i and 2i+1, so the
 * order among equal priorities is PerfView's). */
static int pq_push(pq *q, float pri, pq_slot v)
{
	uint32_t slot;
	if (q->nfree) {
		slot = q->free[--q->nfree];
	} else {
		if (q->nslots >= UINT32_MAX || SV_ARRAY_RESERVE(q->slots, q->slot_cap, q->nslots + 1))
			return SV_ENOMEM;
		slot = (uint32_t)q->nslots++;
	}
	if (SV_ARRAY_RESERVE(q->h, q->cap, q->n + 1))
		return SV_ENOMEM;
	q->slots[slot] = v;
	pq_item *h = q->h;
	size_t i = q->n++;
	h[i] = (pq_item){ pri, slot };
	for (;;) {
		size_t p = i / 2;
		if (h[p].pri >= h[i].pri)
			break;
		pq_item t = h[i];
		h[i] = h[p];
		h[p] = t;
		if (p == 0)
			break;
		i = p;
	}
	return 0;
}

static int pq_pop(pq *q, pq_slot *out)
{
	pq_item *h = q->h;
	uint32_t slot = h[0].slot;
	*out = q->slots[slot];
	if (SV_ARRAY_RESERVE(q->free, q->free_cap, q->nfree + 1))
		return SV_ENOMEM;
	q->free[q->nfree++] = slot;
	size_t n = --q->n;
	h[0] = h[n];
	size_t i = 0;
	for (;;) {
		/* i's descendants three and four levels down are 8 and 16 entries side by side
		 * (children at 2i, 2i+1): fetch them while this level is compared */
		if (i * 16 + 15 < n) {
			__builtin_prefetch(&h[i * 8]);
			__builtin_prefetch(&h[i * 16]);
			__builtin_prefetch(&h[i * 16 + 8]);
		}
		size_t l = i * 2, big = i;
		if (l < n && h[l].pri > h[big].pri)
			big = l;
		if (l + 1 < n && h[l + 1].pri > h[big].pri)
			big = l + 1;
		if (big == i)
			break;
		pq_item t = h[i];
		h[i] = h[big];
		h[big] = t;
		i = big;
	}
	return 0;
}

/* Which nodes are taken (in the tree or queued for it): a bit a node, so that the test made
 * for every reference stays in the cache however large the heap. */
static bool is_taken(const uint64_t *taken, uint32_t i)
{
	return taken[i >> 6] >> (i & 63) & 1;
}

static void take(uint64_t *taken, uint32_t i)
{
	taken[i >> 6] |= 1ull << (i & 63);
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

static int mark_descendants(gd_ctx *c, const uint64_t *taken, uint8_t *mark, uint32_t start, mark_frame **stk,
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
		if (is_taken(taken, ch) || mark[ch] != M_NONE)
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

static int frame_of_type(gd_ctx *c, uint32_t t, sv_frame_id *fids, uint8_t *have, sv_frame_id *out)
{
	if (have[t]) {
		*out = fids[t];
		return 0;
	}
	const gd_type *ty = &c->types[t];
	size_t need = (size_t)(ty->name.n > 0 ? ty->name.n : 0) + (size_t)(ty->module.n > 0 ? ty->module.n : 0) + 16;
	if (SV_ARRAY_RESERVE(c->name, c->name_cap, need))
		return SV_ENOMEM;
	int len = ty->module.n >= 0 ? snprintf(c->name, need, "%.*s!%.*s", ty->module.n ? ty->module.n : 1,
					       ty->module.n ? ty->module.p : "?", ty->name.n > 0 ? ty->name.n : 0, ty->name.p)
				    : snprintf(c->name, need, "%.*s", ty->name.n > 0 ? ty->name.n : 0, ty->name.p);
	int rc = c->sink->ops->intern_frame(c->sink->self, out, c->name, (size_t)len);
	if (!rc) {
		fids[t] = *out;
		have[t] = 1;
	}
	return rc;
}

/* The orphans: nodes no root reaches and no other such node reaches (a cycle of them gives
 * one), queued under "[not reachable from roots]" by their types' priorities. */
static int queue_orphans(gd_ctx *c, uint64_t *taken, pq *q, size_t *unreachable)
{
	size_t mcap = 64;
	mark_frame *mstk = malloc(mcap * sizeof(*mstk));
	uint8_t *mark = calloc(c->nnodes, 1);
	int rc = mstk && mark ? 0 : SV_ENOMEM;
	for (uint32_t i = 0; !rc && i < c->nnodes; i++)
		if (!is_taken(taken, i) && mark[i] == M_NONE)
			rc = mark_descendants(c, taken, mark, i, &mstk, &mcap);
	free(mstk);
	sv_stack_id lost = SV_STACK_NONE;
	for (uint32_t i = 0; !rc && i < c->nnodes; i++) {
		if (!is_taken(taken, i) && mark[i] == M_NONE && i != c->root) {
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
			float p = c->types[type].priority;
			if ((rc = pq_push(q, p, (pq_slot){ i, p, lost, label(c, i) })))
				break;
			take(taken, i);
			(*unreachable)++;
		}
	}
	free(mark);
	return rc;
}

typedef struct gd_kid {
	uint32_t node, label;
} gd_kid;

/* The walk: each node taken is a sample at the end of its path from the root. A node's
 * children are read in three passes so that the memory each needs (its offset, then its
 * data) is fetched for all of them at once rather than one miss after another:
 * the walk goes through the graph in priority order, not in the order it is stored. */
static int walk(gd_ctx *c, size_t *unreachable)
{
	uint32_t n = c->nnodes;
	uint64_t *taken = calloc((size_t)n / 64 + 1, sizeof(*taken));
	pq q = { 0 };
	sv_frame_id *fids = malloc(c->ntypes * sizeof(*fids));
	uint8_t *have = calloc(c->ntypes, 1);
	gd_kid *kids = NULL;
	size_t kcap = 0;
	int rc = taken && fids && have ? 0 : SV_ENOMEM;
	if (!rc) /* the root is queued but not marked, as in PerfView: an arc back to it takes it again */
		rc = pq_push(&q, 0.0f, (pq_slot){ c->root, 0.0f, SV_STACK_NONE, label(c, c->root) });
	bool orphans_added = false;
	float order = 0, eps = 1e-7f;
	while (!rc) {
		if (q.n == 0) {
			if (orphans_added)
				break;
			orphans_added = true;
			rc = queue_orphans(c, taken, &q, unreachable);
			continue;
		}
		pq_slot cur;
		if ((rc = pq_pop(&q, &cur)))
			break;
		uint32_t type, at;
		int64_t size;
		int32_t nch;
		sv_frame_id f;
		sv_stack_id here;
		/* the next node's data is fetched while this one's children are met */
		if (q.n) {
			uint32_t nl = q.slots[q.h[0].slot].label;
			if (nl < c->blob_len)
				__builtin_prefetch(c->blob + nl);
		}
		if ((rc = node_at(c, cur.node, cur.label, &type, &size, &at, &nch)) ||
		    (rc = frame_of_type(c, type, fids, have, &f)) ||
		    (rc = c->sink->ops->intern_stack(c->sink->self, &here, cur.up, f)) ||
		    (rc = c->sink->ops->add_sample(c->sink->self, here, 0, (double)size * c->types[type].count_mult,
						   c->types[type].count_mult)))
			break;
		if (nch > 0 && SV_ARRAY_RESERVE(kids, kcap, (size_t)nch)) {
			rc = SV_ENOMEM;
			break;
		}
		for (int32_t k = 0; k < nch; k++) {
			if ((rc = child(c, cur.node, &at, &kids[k].node)))
				break;
			__builtin_prefetch(c->labels + (size_t)kids[k].node * 4);
		}
		int32_t nnew = 0;
		for (int32_t k = 0; k < nch && !rc; k++) {
			uint32_t ch = kids[k].node;
			if (is_taken(taken, ch))
				continue;
			take(taken, ch);
			uint32_t l = label(c, ch);
			kids[nnew++] = (gd_kid){ ch, l };
			if (l < c->blob_len)
				__builtin_prefetch(c->blob + l);
		}
		for (int32_t k = 0; k < nnew && !rc; k++) {
			uint32_t ctype, cat;
			int64_t csize;
			int32_t cn;
			if ((rc = node_at(c, kids[k].node, kids[k].label, &ctype, &csize, &cat, &cn)))
				break;
			float cp = c->types[ctype].priority + cur.prio / 10;
			order += eps;
			rc = pq_push(&q, cp - order, (pq_slot){ kids[k].node, cp, here, kids[k].label });
		}
	}
	free(taken);
	free(q.h);
	free(q.slots);
	free(q.free);
	free(fids);
	free(have);
	free(kids);
	return rc;
}

/* PerfView's default Priority patterns (SpanningTree.DefaultPriorities). */
static const char gd_default_priorities[] =
	"v4.0.30319\\%!->-1;v2.0.50727\\%!->-1;[*local vars]->-1000;"
	"mscorlib!Runtime.CompilerServices.ConditionalWeakTable->-10000;[COM/WinRT Objects]->-1000000;"
	"[*handles]->-2000000;[other roots]->-2000000";

const char *sv_gcdump_default_priorities(void)
{
	return gd_default_priorities;
}

static int gd_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	gd_ctx c;
	memset(&c, 0, sizeof(c));
	c.d = in->data;
	c.n = in->len;
	c.in = in;
	c.err = err;
	c.sink = sink;
	int32_t v, minr, len;
	int rc = rd_i32(&c, &len);
	if (!rc && (len != 20 || !need(&c, 20) || memcmp(c.d + c.at, GD_MAGIC, 20) != 0))
		rc = gd_fail(&c, "not a FastSerialization stream");
	c.at += 20;
	if (!rc)
		rc = object(&c, "GCHeapDump", &v, &minr);
	if (!rc && v < 4)
		rc = gd_fail(&c, "GCHeapDump version %d is older than PerfView reads (4)", v);
	if (!rc)
		rc = read_graph(&c);
	if (!rc)
		rc = dump_fields(&c, v);
	const char *prio = opts && opts->priority ? opts->priority : gd_default_priorities;
	if (!rc)
		rc = priorities(&c, prio);
	size_t unreachable = 0;
	if (!rc)
		rc = walk(&c, &unreachable);
	if (!rc && sink->ops->add_event)
		rc = sink->ops->add_event(sink->self, "heap", c.nnodes, true);
	if (!rc && sink->ops->set_scaling)
		rc = sink->ops->set_scaling(sink->self, SV_SCALING_DATA);
	if (!rc && sink->ops->set_unit)
		rc = sink->ops->set_unit(sink->self, "bytes");
	if (!rc)
		rc = sv_sink_note(sink, SV_NOTE_INFO,
				  "heap snapshot: %u objects of %u types, %lld bytes; a spanning tree from the root by %s "
				  "priorities, %zu objects no root reaches under [not reachable from roots]",
				  c.nnodes, c.ntypes, (long long)c.total, prio == gd_default_priorities ? "PerfView's default" : "the given",
				  unreachable);
	if (!rc)
		rc = sv_sink_note(sink, SV_NOTE_INFO, "priorities (--priority): %s", prio);
	if (!rc && c.sampled)
		rc = sv_sink_note(sink, SV_NOTE_INFO,
				  "a sampled snapshot: each object counts as many objects of its type as the dump's per-type "
				  "count multiplier says (on average %.3g objects and %.3g times the size), so totals "
				  "approximate the whole heap, as PerfView shows them",
				  (double)c.count_mult, (double)c.size_mult);
	if (!rc && (c.process.n > 0 || c.machine.n > 0))
		rc = sv_sink_note(sink, SV_NOTE_INFO, "collected from %.*s (%d) on %.*s", c.process.n > 0 ? c.process.n : 1,
				  c.process.n > 0 ? c.process.p : "?", c.pid, c.machine.n > 0 ? c.machine.n : 1,
				  c.machine.n > 0 ? c.machine.p : "?");
	if (rc == SV_ENOMEM)
		sv_error_set(err, SV_ENOMEM, NULL);
	free(c.types);
	free(c.name);
	return rc;
}

static bool gd_probe(const unsigned char *d, size_t n)
{
	return n >= 40 && d[0] == 20 && d[1] == 0 && d[2] == 0 && d[3] == 0 && memcmp(d + 4, GD_MAGIC, 20) == 0 &&
	       memmem(d, n < 256 ? n : 256, "GCHeapDump", 10);
}

static const char *const gd_patterns[] = { ".gcdump", NULL };

/* PerfView's heap view boxes (semantics §11.2). */
static const sv_format_defaults gd_defaults = {
	.group = "[group Framework] mscorlib!=>LIB;System%!=>LIB;",
	.fold = "[];mscorlib!String",
};

const sv_format sv_fmt_gcdump = {
	.name = "gcdump", .patterns = gd_patterns, .probe = gd_probe, .import = gd_import, .defaults = &gd_defaults,
};
