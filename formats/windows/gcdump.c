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
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/formats.h"
#include "sv/array.h"
#include "sv/heap_graph.h"

#define GD_MAGIC "!FastSerialization.1"
#define GD_MAX_NODES (1u << 28)

typedef struct gd_str {
	const char *p;
	int32_t n; /* -1: none */
} gd_str;

typedef struct gd_type {
	gd_str name, module;
	int32_t size;
	float count_mult; /* a sampled dump: how many objects each of this type stands for */
} gd_type;

typedef struct gd_ctx {
	const unsigned char *d;
	size_t n, at;
	const sv_input *in;
	sv_error *err;
	gd_type *types;
	uint32_t ntypes;
	uint32_t nnodes, root;
	const unsigned char *labels; /* nnodes i32 offsets */
	const unsigned char *blob;
	uint32_t blob_len;
	int64_t total;
	float count_mult, size_mult; /* a sampled dump's averages (shown, not applied: per type is) */
	bool sampled;
	gd_str machine, process; /* where the dump was collected */
	int32_t pid;
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

static uint32_t label_of(const gd_ctx *c, uint32_t node)
{
	const unsigned char *p = c->labels + (size_t)node * 4;
	uint32_t l = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	return l < c->blob_len ? l : c->blob_len;
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

/* What the collection says of itself: its log and time (skipped), the machine, the process. */
static int collection(gd_ctx *c)
{
	gd_str log;
	int64_t ticks, commit, ws;
	int rc;
	if ((rc = rd_str(c, &log)) || (rc = rd_i64(c, &ticks)) || (rc = rd_str(c, &c->machine)) ||
	    (rc = rd_str(c, &c->process)) || (rc = rd_i32(c, &c->pid)) || (rc = rd_i64(c, &commit)) || (rc = rd_i64(c, &ws)))
		return rc;
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

/* ---- the graph to samples (sv/heap_graph.h) ---- */

/* The types as the engine takes them: frames named MODULE!Type, PerfView's FullName ("?" for
 * an empty module), or Type where there is no module. */
static int heap_types(gd_ctx *c, sv_heap_type **out, char **pool)
{
	size_t total = 1;
	for (uint32_t t = 0; t < c->ntypes; t++)
		total += (size_t)(c->types[t].name.n > 0 ? c->types[t].name.n : 0) +
			 (size_t)(c->types[t].module.n > 0 ? c->types[t].module.n : 1) + 2;
	sv_heap_type *ht = malloc(c->ntypes * sizeof(*ht));
	char *p = malloc(total);
	if (!ht || !p) {
		free(ht);
		free(p);
		return SV_ENOMEM;
	}
	size_t at = 0;
	for (uint32_t t = 0; t < c->ntypes; t++) {
		const gd_type *ty = &c->types[t];
		int name_n = ty->name.n > 0 ? ty->name.n : 0;
		int len = ty->module.n >= 0 ? snprintf(p + at, total - at, "%.*s!%.*s", ty->module.n ? ty->module.n : 1,
						       ty->module.n ? ty->module.p : "?", name_n, ty->name.p)
					    : snprintf(p + at, total - at, "%.*s", name_n, ty->name.p);
		ht[t] = (sv_heap_type){ p + at, (uint32_t)len, ty->size, ty->count_mult };
		at += (size_t)len + 1;
	}
	*out = ht;
	*pool = p;
	return 0;
}

/* The walk's progress: the file is read once, then walked (the larger part), so done runs over
 * twice its length. */
static int walk_tick(const void *payload, uint32_t taken, uint32_t nnodes, sv_error *err)
{
	const sv_input *in = payload;
	unsigned long long len = in->len;
	return sv_input_progress_of(in, len + (unsigned long long)((double)len * taken / nnodes), 2 * len, err);
}

static int gd_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	gd_ctx c;
	memset(&c, 0, sizeof(c));
	c.d = in->data;
	c.n = in->len;
	c.in = in;
	c.err = err;
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
	if (!rc)
		rc = sv_input_progress_of(in, in->len, 2 * (unsigned long long)in->len, err);
	const char *prio = opts && opts->priority ? opts->priority : sv_heap_default_priorities();
	sv_heap_type *ht = NULL;
	char *pool = NULL;
	float *tprio = NULL;
	size_t unreachable = 0;
	if (!rc)
		rc = heap_types(&c, &ht, &pool);
	if (!rc && !(tprio = malloc(c.ntypes * sizeof(*tprio))))
		rc = SV_ENOMEM;
	if (!rc && (rc = sv_heap_priorities(tprio, ht, c.ntypes, prio, err)) == SV_EINVAL) {
		char why[sizeof(err->msg)];
		snprintf(why, sizeof(why), "%s", err->msg);
		sv_error_set(err, SV_EINVAL, "--priority: %s", why);
	}
	if (!rc) {
		/* the walk reads the nodes (offsets and blob, side by side in the file) in priority
		 * order, at random: from memory on huge pages where the input is a file's pages */
		size_t from = (size_t)(c.labels - c.d), upto = (size_t)(c.blob - c.d) + c.blob_len;
		unsigned char *copy = sv_input_copy_range(in, from, upto - from);
		uint32_t bad = UINT32_MAX;
		sv_heap_graph g = { c.nnodes, c.root, c.ntypes, copy ? copy : c.labels,
				    copy ? copy + (c.blob - c.labels) : c.blob, c.blob_len, ht };
		sv_heap_watch watch = { walk_tick, in };
		rc = sv_heap_tree(&g, tprio, sink, &watch, &unreachable, &bad, err);
		sv_input_copy_free(copy, upto - from);
		if (rc == SV_EFORMAT && bad < c.nnodes) /* where that node's data is in the file */
			sv_error_locate(err, in->name, -1, (long long)(c.blob - c.d) + (long long)label_of(&c, bad));
	}
	free(ht);
	free(pool);
	free(tprio);
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
				  c.nnodes, c.ntypes, (long long)c.total, prio == sv_heap_default_priorities() ? "PerfView's default" : "the given",
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
