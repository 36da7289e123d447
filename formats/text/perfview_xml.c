/* SPDX-License-Identifier: MIT */
/* PerfView .perfView.xml, reader and writer (the writer emits the advanced form with its
 * GUI state, D9). The reader takes simple and advanced forms with saved GUI state
 * (spec/semantics.md §10.1–10.3 with D7). Streams through libxml2's SAX2 parser (no tree is
 * built: attributes are read where the parser holds them, a frame's name is the only text
 * kept), so a file of millions of samples never becomes a DOM; the small GUI-state subtrees
 * are kept as a little tree of their own. Parsing runs without network access and without
 * entity substitution. */
#include <ctype.h>
#include <errno.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv/idmap.h"
#include "core/export_int.h"
#include "stackview/formats.h"
#include "sv/array.h"

typedef struct stack_rec {
	long long id, caller, frame;
	long line;
	uint32_t resolved; /* our stack id, or UINT32_MAX */
} stack_rec;

typedef struct pending {
	long long stack; /* file stack id, unless `resolved` */
	bool resolved;   /* `ready` holds our stack already */
	uint32_t ready;
	double time, metric;
	long line;
} pending;

/* A GUI-state subtree (StackWindowGuiState, the legacy FilterXml, a Notes element), kept
 * whole: its elements in document order, and its text as chunks, each of the element it is
 * directly in, so an element's content is the chunks of its subtree in order. */
typedef struct gnode {
	char name[24]; /* "" when longer: no name we look for is */
	uint32_t parent, end; /* end: one past its last descendant */
	bool elem_children;
} gnode;

typedef struct gchunk {
	uint32_t node;
	size_t off, len;
} gchunk;

typedef enum { GUI_STATE, GUI_LEGACY, GUI_NOTES } gui_kind;

typedef struct gui_tree {
	gnode *nodes;
	size_t n, cap;
	gchunk *chunks;
	size_t nchunks, chunk_cap;
	char *text;
	size_t ntext, text_cap;
	uint32_t open; /* the element text goes to */
	int depth;     /* the root's element depth; -1 when not capturing */
	gui_kind kind;
} gui_tree;

/* The Frame or Sample being read: attributes taken at its start, text until its end. */
typedef enum { EL_NONE, EL_FRAME, EL_SAMPLE } elem_kind;

typedef struct xml_ctx {
	sv_sink *sink;
	const sv_input *in;
	sv_error *err;
	xmlParserCtxtPtr p;
	int rc; /* the first error a callback met: parsing stops there */
	char xml_err[400];
	char xml_generic[400]; /* the first message of libxml2's generic handler */
	long xml_err_line;

	/* names in the parser's dictionary: the parser hands over these very pointers */
	const xmlChar *n_frame, *n_stack, *n_sample, *n_stacksource;
	const xmlChar *n_id, *n_callerid, *n_frameid, *n_time, *n_metric, *n_stackid;
	int depth;    /* of the next element to start (the root is 0) */
	int state;    /* 0 before StackSource, 1 inside, 2 after */
	int ss_depth; /* StackSource's */
	elem_kind cur;
	int cur_depth;
	long cur_line;
	long long frame_id;
	double time, metric;
	long long sid;
	bool has_stack;
	char *text; /* the current element's text */
	size_t ntext, text_cap;
	gui_tree gui;

	sv_idmap frame_ids;          /* file frame id -> our frame id */
	stack_rec *recs;
	size_t nrecs, rec_cap;
	sv_idmap stack_idx;          /* file stack id -> record index (ids too sparse for `dense`) */
	struct xml_dense { uint32_t rec; uint32_t resolved; } *dense; /* file stack id -> record index + 1
				      * (0 = none) and our stack once resolved: the ids files number 0, 1, 2 ...
				      * (a sample's lookup is one read) */
	size_t ndense;
	uint32_t *chain;
	size_t chain_cap;
	pending *pend;
	size_t npend, pend_cap;
	/* A sample's stack could not be resolved yet: every later sample waits for the end too,
	 * so no chain is walked again and again (each record is resolved once: linear). */
	bool deferring;

	sv_params params;
	bool have_params;
} xml_ctx;

/* The line the parser is on: at an element's start callback, the line of its start tag. */
static long cur_line(xml_ctx *x)
{
	long l = x->p && x->p->input ? x->p->input->line : 0;
	return l > 0 ? l : 0;
}

static int fail(xml_ctx *x, long line, int code, const char *fmt, ...) SV_PRINTF(4, 5);
static int fail(xml_ctx *x, long line, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sv_error_vset(x->err, code, fmt, ap);
	va_end(ap);
	sv_error_locate(x->err, x->in->name, line > 0 ? line : 0, -1);
	return code;
}

/* Ours, from the parser context libxml2's handlers and ours are given. */
static xml_ctx *ctx_of(void *parser) { return ((xmlParserCtxtPtr)parser)->_private; }

static void on_xml_error(void *parser, xmlErrorPtr e)
{
	xml_ctx *x = parser ? ctx_of(parser) : NULL;
	if (!x || !e || e->level < XML_ERR_ERROR || x->xml_err[0])
		return;
	snprintf(x->xml_err, sizeof(x->xml_err), "%s", e->message ? e->message : "XML error");
	size_t n = strlen(x->xml_err);
	while (n > 0 && isspace((unsigned char)x->xml_err[n - 1]))
		x->xml_err[--n] = '\0';
	x->xml_err_line = e->line;
}

/* libxml2 reports some errors (encoding conversion, I/O) through its generic handler, which
 * prints to stderr: while we parse, they are collected like the others. */
static void on_generic_error(void *arg, const char *fmt, ...) SV_PRINTF(2, 3);
static void on_generic_error(void *arg, const char *fmt, ...)
{
	xml_ctx *x = arg;
	if (x->xml_generic[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->xml_generic, sizeof(x->xml_generic), fmt, ap);
	va_end(ap);
	size_t n = strlen(x->xml_generic);
	while (n > 0 && isspace((unsigned char)x->xml_generic[n - 1]))
		x->xml_generic[--n] = '\0';
}

/* ---- number parsing ---- */

static bool parse_double(const char *s, double *out)
{
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return false;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	while (isspace((unsigned char)*end))
		end++;
	if (*end || end == s || !isfinite(v))
		return false;
	*out = v;
	return true;
}

static bool parse_ll(const char *s, long long *out)
{
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (*end || end == s || errno)
		return false;
	*out = v;
	return true;
}

/* A plain decimal number (-?digits[.digits], at most 15 digits in all) straight from the
 * attribute's bytes: the digits as an integer are exact, and so is one division by a power of
 * ten up to 10^15, so the result is strtod's, correctly rounded. false: anything else (the
 * general parse takes it). */
static bool plain_number(const xmlChar *s, const xmlChar *end, double *out, bool integer)
{
	static const double pow10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };
	bool neg = s < end && *s == '-';
	s += neg;
	uint64_t v = 0;
	int digits = 0, frac = -1;
	for (; s < end; s++) {
		if (*s >= '0' && *s <= '9') {
			if (++digits > 15)
				return false;
			v = v * 10 + (uint64_t)(*s - '0');
			frac += frac >= 0;
		} else if (*s == '.' && frac < 0 && !integer && digits) {
			frac = 0;
		} else {
			return false;
		}
	}
	if (!digits || frac == 0)
		return false;
	double d = frac > 0 ? (double)v / pow10[frac] : (double)v;
	*out = neg ? -d : d;
	return true;
}

/* The attribute named (a name from the parser's dictionary: the same pointer as the names
 * it hands over), or NULL. SAX2 gives five pointers per attribute: local name, prefix, URI,
 * value, value end; attributes with a namespace prefix are not ours. */
static const xmlChar **attr_find(const xmlChar **attrs, int nattrs, const xmlChar *name)
{
	for (int i = 0; i < nattrs; i++)
		if (attrs[5 * i] == name && !attrs[5 * i + 1])
			return attrs + 5 * i;
	return NULL;
}

/* An attribute's value that is not a plain number, parsed by the general rules (leading
 * blanks, exponents, a sign): 0, or the error naming it. */
static int attr_number(xml_ctx *x, const xmlChar **a, bool integer, double *d, long long *ll)
{
	char buf[128], *big = NULL, *v = buf;
	size_t len = (size_t)(a[4] - a[3]);
	if (len >= sizeof(buf) && !(v = big = malloc(len + 1))) /* out of memory: cut (then not a number) */
		v = buf, len = sizeof(buf) - 1;
	memcpy(v, a[3], len);
	v[len] = '\0';
	bool ok = integer ? parse_ll(v, ll) : parse_double(v, d);
	int rc = ok ? 0
		    : fail(x, cur_line(x), SV_EFORMAT, "%s=\"%.40s\" is not %s", (const char *)a[0], v,
			   integer ? "an integer" : "a number");
	free(big);
	return rc;
}

/* An attribute as a number; *present says whether it was there. */
static int attr_double(xml_ctx *x, const xmlChar **attrs, int nattrs, const xmlChar *dname, double *out, bool *present)
{
	const xmlChar **a = attr_find(attrs, nattrs, dname);
	*present = a != NULL;
	if (!a || plain_number(a[3], a[4], out, false))
		return 0;
	return attr_number(x, a, false, out, NULL);
}

static int attr_ll(xml_ctx *x, const xmlChar **attrs, int nattrs, const char *elem, const xmlChar *dname, long long *out,
		   bool *present, bool required)
{
	const xmlChar **a = attr_find(attrs, nattrs, dname);
	*present = a != NULL;
	if (!a)
		return required ? fail(x, cur_line(x), SV_EFORMAT, "<%s> without %s", elem, (const char *)dname) : 0;
	double d;
	if (plain_number(a[3], a[4], &d, true)) {
		*out = (long long)d;
		return 0;
	}
	return attr_number(x, a, true, NULL, out);
}

/* ---- stacks by id ---- */

/* The record of a file stack id, or SV_IDMAP_NONE. */
static uint32_t stack_find(const xml_ctx *x, long long id)
{
	if (id >= 0 && (unsigned long long)id < x->ndense && x->dense[id].rec)
		return x->dense[id].rec - 1;
	return sv_idmap_get(&x->stack_idx, (uint64_t)id); /* an id indexed while it was too big */
}

/* Index a record by its id: in the dense table while ids stay near the records' count (a
 * hostile id cannot make it big), else in the hash map. */
static int stack_index(xml_ctx *x, long long id, uint32_t rec)
{
	if ((unsigned long long)id < 16 * ((unsigned long long)x->nrecs + 4096)) {
		if ((size_t)id >= x->ndense) {
			size_t n = x->ndense ? x->ndense : 4096;
			while (n <= (size_t)id)
				n *= 2;
			struct xml_dense *d = realloc(x->dense, n * sizeof(*d));
			if (!d)
				return SV_ENOMEM;
			memset(d + x->ndense, 0, (n - x->ndense) * sizeof(*d));
			x->dense = d;
			x->ndense = n;
		}
		x->dense[id] = (struct xml_dense){ rec + 1, UINT32_MAX };
		return 0;
	}
	return sv_idmap_put(&x->stack_idx, (uint64_t)id, rec);
}

/* Our stack id for a file stack id: 0 with *out, 1 when not (yet) resolvable, <0 on error. */
static int resolve_stack(xml_ctx *x, uint32_t *out, long long id, long line)
{
	if (id >= 0 && (unsigned long long)id < x->ndense && x->dense[id].resolved != UINT32_MAX && x->dense[id].rec) {
		*out = x->dense[id].resolved;
		return 0;
	}
	size_t n = 0;
	long long cur = id;
	uint32_t base = SV_STACK_NONE;
	for (;;) {
		if (cur == -1)
			break;
		if (cur >= 0 && (unsigned long long)cur < x->ndense && x->dense[cur].rec &&
		    x->dense[cur].resolved != UINT32_MAX) { /* the record need not be read */
			base = x->dense[cur].resolved;
			break;
		}
		uint32_t ri = stack_find(x, cur);
		if (ri == SV_IDMAP_NONE)
			return 1;
		if (x->recs[ri].resolved != UINT32_MAX) {
			base = x->recs[ri].resolved;
			break;
		}
		if (n >= x->nrecs)
			return fail(x, x->recs[ri].line, SV_EFORMAT, "stack %lld: CallerID chain has a cycle", id);
		if (SV_ARRAY_RESERVE(x->chain, x->chain_cap, n + 1))
			return fail(x, line, SV_ENOMEM, "out of memory");
		x->chain[n++] = ri;
		cur = x->recs[ri].caller;
	}
	if (n > SV_MAX_STACK_DEPTH)
		return fail(x, line, SV_ELIMIT, "stack %lld is deeper than %u frames", id, SV_MAX_STACK_DEPTH);
	while (n) {
		stack_rec *r = &x->recs[x->chain[--n]];
		uint32_t f = sv_idmap_get(&x->frame_ids, (uint64_t)r->frame);
		if (f == SV_IDMAP_NONE)
			return 1;
		int rc = x->sink->ops->intern_stack(x->sink->self, &base, base, f);
		if (rc)
			return fail(x, r->line, rc, "cannot intern stack %lld", r->id);
		r->resolved = base;
		if (r->id >= 0 && (unsigned long long)r->id < x->ndense && x->dense[r->id].rec)
			x->dense[r->id].resolved = base;
	}
	*out = base;
	return 0;
}

static int add_sample(xml_ctx *x, uint32_t stack, double time, double metric, long line)
{
	if (x->deferring) { /* keep the file's order of samples */
		if (SV_ARRAY_RESERVE(x->pend, x->pend_cap, x->npend + 1))
			return fail(x, line, SV_ENOMEM, "out of memory");
		x->pend[x->npend++] = (pending){ 0, true, stack, time, metric, line };
		return 0;
	}
	int rc = x->sink->ops->add_sample(x->sink->self, stack, time, metric, 1.0);
	return rc ? fail(x, line, rc, "cannot add sample (%s)", sv_status_str(rc)) : 0;
}

/* ---- elements ---- */

/* A frame, at its end: its name is its text, trimmed. */
static int on_frame(xml_ctx *x)
{
	long long id = x->frame_id;
	long line = x->cur_line;
	if (sv_idmap_get(&x->frame_ids, (uint64_t)id) != SV_IDMAP_NONE)
		return fail(x, line, SV_EFORMAT, "frame ID %lld defined twice", id);
	const char *s = x->text ? x->text : "";
	size_t len = x->ntext;
	while (len > 0 && isspace((unsigned char)*s))
		s++, len--;
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	uint32_t f;
	int rc = x->sink->ops->intern_frame(x->sink->self, &f, s, len);
	if (rc)
		return fail(x, line, rc, "frame %lld: %s", id, rc == SV_ELIMIT ? "name too long" : sv_status_str(rc));
	if (sv_idmap_put(&x->frame_ids, (uint64_t)id, f))
		return fail(x, line, SV_ENOMEM, "out of memory");
	return 0;
}

static int on_stack(xml_ctx *x, const xmlChar **attrs, int nattrs)
{
	stack_rec r;
	bool present;
	int rc;
	r.line = cur_line(x);
	r.resolved = UINT32_MAX;
	if ((rc = attr_ll(x, attrs, nattrs, "Stack", x->n_id, &r.id, &present, true)) ||
	    (rc = attr_ll(x, attrs, nattrs, "Stack", x->n_callerid, &r.caller, &present, true)) ||
	    (rc = attr_ll(x, attrs, nattrs, "Stack", x->n_frameid, &r.frame, &present, true)))
		return rc;
	if (r.id < 0)
		return fail(x, r.line, SV_EFORMAT, "stack ID %lld is negative", r.id);
	if (stack_find(x, r.id) != SV_IDMAP_NONE)
		return fail(x, r.line, SV_EFORMAT, "stack ID %lld defined twice", r.id);
	if (SV_ARRAY_RESERVE(x->recs, x->rec_cap, x->nrecs + 1))
		return fail(x, r.line, SV_ENOMEM, "out of memory");
	if (stack_index(x, r.id, (uint32_t)x->nrecs))
		return fail(x, r.line, SV_ENOMEM, "out of memory");
	x->recs[x->nrecs++] = r;
	/* resolved now, in one step, when its caller is resolved and its frame known (the usual
	 * order: a sample's lookup is then one read); else when a sample needs it, or at the end
	 * (never a walk per stack: a long chain whose frames come last stays linear) */
	bool ready = r.caller == -1;
	if (!ready) {
		uint32_t ci = stack_find(x, r.caller);
		ready = ci != SV_IDMAP_NONE && x->recs[ci].resolved != UINT32_MAX;
	}
	if (ready && sv_idmap_get(&x->frame_ids, (uint64_t)r.frame) != SV_IDMAP_NONE) {
		uint32_t st;
		rc = resolve_stack(x, &st, r.id, r.line);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* A literal stack (simple form): lines leaf first. */
static int literal_stack(xml_ctx *x, uint32_t *out, const char *text, long line)
{
	const char *lines[256];
	const char **v = lines;
	size_t n = 0, cap = 256;
	int rc = 0;
	const char *s = text;
	while (*s) {
		const char *e = strchr(s, '\n');
		if (!e)
			e = s + strlen(s);
		if (n == cap) {
			if (cap >= SV_MAX_STACK_DEPTH * 2) {
				rc = fail(x, line, SV_ELIMIT, "stack deeper than %u frames", SV_MAX_STACK_DEPTH);
				goto out;
			}
			const char **nv = malloc(cap * 2 * sizeof(*nv));
			if (!nv) {
				rc = fail(x, line, SV_ENOMEM, "out of memory");
				goto out;
			}
			memcpy(nv, v, n * sizeof(*v));
			if (v != lines)
				free(v);
			v = nv;
			cap *= 2;
		}
		v[n++] = s; /* start of line; end found again below */
		s = *e ? e + 1 : e;
	}
	uint32_t st = SV_STACK_NONE;
	size_t depth = 0;
	for (size_t i = n; i-- > 0;) { /* root-most is the last line */
		const char *a = v[i];
		const char *z = strchr(a, '\n');
		if (!z)
			z = a + strlen(a);
		while (a < z && isspace((unsigned char)*a))
			a++;
		while (z > a && isspace((unsigned char)z[-1]))
			z--;
		if (z == a)
			continue;
		if (++depth > SV_MAX_STACK_DEPTH) {
			rc = fail(x, line, SV_ELIMIT, "stack deeper than %u frames", SV_MAX_STACK_DEPTH);
			goto out;
		}
		uint32_t f;
		rc = x->sink->ops->intern_frame(x->sink->self, &f, a, (size_t)(z - a));
		if (!rc)
			rc = x->sink->ops->intern_stack(x->sink->self, &st, st, f);
		if (rc) {
			rc = fail(x, line, rc, "cannot intern frame (%s)", rc == SV_ELIMIT ? "name too long" : sv_status_str(rc));
			goto out;
		}
	}
	*out = st;
out:
	if (v != lines)
		free(v);
	return rc;
}

/* A sample's attributes, at its start. */
static int sample_start(xml_ctx *x, const xmlChar **attrs, int nattrs)
{
	bool has_time, has_metric;
	int rc;
	x->time = 0, x->metric = 1, x->sid = -1;
	if ((rc = attr_double(x, attrs, nattrs, x->n_time, &x->time, &has_time)) ||
	    (rc = attr_double(x, attrs, nattrs, x->n_metric, &x->metric, &has_metric)) ||
	    (rc = attr_ll(x, attrs, nattrs, "Sample", x->n_stackid, &x->sid, &x->has_stack, false)))
		return rc;
	return 0;
}

/* A sample, at its end: its text (the simple form's literal stack) or its StackID. */
static int on_sample(xml_ctx *x)
{
	long line = x->cur_line;
	double time = x->time, metric = x->metric;
	long long sid = x->sid;
	int rc;
	bool has_text = false;
	for (size_t i = 0; i < x->ntext && !has_text; i++)
		has_text = !isspace((unsigned char)x->text[i]);
	uint32_t st = SV_STACK_NONE;
	if (has_text) {
		rc = literal_stack(x, &st, x->text, line);
		return rc ? rc : add_sample(x, st, time, metric, line);
	}
	if (!x->has_stack || sid == -1) /* D7: no stack = ROOT exclusive */
		return add_sample(x, SV_STACK_NONE, time, metric, line);
	rc = x->deferring ? 1 : resolve_stack(x, &st, sid, line);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return add_sample(x, st, time, metric, line);
	/* Not resolvable yet (stacks or frames may follow samples): keep it, and the samples
	 * after it, for the end. */
	x->deferring = true;
	if (SV_ARRAY_RESERVE(x->pend, x->pend_cap, x->npend + 1))
		return fail(x, line, SV_ENOMEM, "out of memory");
	x->pend[x->npend++] = (pending){ sid, false, 0, time, metric, line };
	return 0;
}

/* ---- GUI state (small: kept as a little tree) ---- */

static void gui_reset(gui_tree *g)
{
	g->n = g->nchunks = g->ntext = 0;
	g->depth = -1;
}

static void gui_dispose(gui_tree *g)
{
	free(g->nodes);
	free(g->chunks);
	free(g->text);
}

/* The first child element of n named name, or UINT32_MAX. */
static uint32_t gui_child(const gui_tree *g, uint32_t n, const char *name)
{
	if (n == UINT32_MAX)
		return UINT32_MAX;
	for (uint32_t c = n + 1; c < g->nodes[n].end; c = g->nodes[c].end)
		if (strcmp(g->nodes[c].name, name) == 0)
			return c;
	return UINT32_MAX;
}

/* An element's content (all the text of its subtree, in order), malloc'ed. */
static char *gui_content(const gui_tree *g, uint32_t n)
{
	size_t len = 0;
	for (size_t i = 0; i < g->nchunks; i++)
		if (g->chunks[i].node >= n && g->chunks[i].node < g->nodes[n].end)
			len += g->chunks[i].len;
	char *r = malloc(len + 1);
	if (!r)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < g->nchunks; i++)
		if (g->chunks[i].node >= n && g->chunks[i].node < g->nodes[n].end) {
			memcpy(r + o, g->text + g->chunks[i].off, g->chunks[i].len);
			o += g->chunks[i].len;
		}
	r[o] = '\0';
	return r;
}

static const struct {
	const char *elem;
	sv_box box;
} box_elems[] = {
	{ "Start", SV_BOX_START },       { "End", SV_BOX_END },         { "GroupRegEx", SV_BOX_GROUP },
	{ "FoldPercent", SV_BOX_FOLD_PCT }, { "FoldRegEx", SV_BOX_FOLD }, { "IncludeRegEx", SV_BOX_INC },
	{ "ExcludeRegEx", SV_BOX_EXC },
};

/* A box element holds <Value>, or bare text. */
static int read_boxes(xml_ctx *x, uint32_t filter)
{
	const gui_tree *g = &x->gui;
	for (size_t i = 0; i < sizeof(box_elems) / sizeof(box_elems[0]); i++) {
		uint32_t b = gui_child(g, filter, box_elems[i].elem);
		if (b == UINT32_MAX)
			continue;
		uint32_t val = gui_child(g, b, "Value");
		uint32_t from = val != UINT32_MAX ? val : g->nodes[b].elem_children ? UINT32_MAX : b;
		if (from == UINT32_MAX)
			continue;
		char *v = gui_content(g, from);
		if (!v)
			return fail(x, 0, SV_ENOMEM, "out of memory");
		double num;
		sv_box box = box_elems[i].box;
		/* Start, End and Fold% values that are not numbers are ignored (§10.2). */
		bool numeric = box == SV_BOX_START || box == SV_BOX_END || box == SV_BOX_FOLD_PCT;
		int rc = 0;
		if (!numeric || v[strspn(v, " \t")] == '\0' || sv_parse_number(v, &num)) {
			rc = sv_params_set(&x->params, box, v);
			x->have_params = true;
		}
		free(v);
		if (rc)
			return fail(x, 0, rc, "out of memory");
	}
	return 0;
}

static int set_notes(xml_ctx *x, uint32_t n)
{
	char *t = gui_content(&x->gui, n);
	if (!t)
		return fail(x, 0, SV_ENOMEM, "out of memory");
	int rc = x->sink->ops->set_notes ? x->sink->ops->set_notes(x->sink->self, t) : 0;
	free(t);
	return rc ? fail(x, 0, rc, "out of memory") : 0;
}

/* A GUI-state subtree, read whole (node 0 is its root). */
static int on_gui_state(xml_ctx *x)
{
	const gui_tree *g = &x->gui;
	int rc;
	if (g->kind == GUI_NOTES)
		return set_notes(x, 0);
	if (g->kind == GUI_LEGACY)
		return read_boxes(x, 0);
	uint32_t f = gui_child(g, 0, "FilterGuiState");
	if (f != UINT32_MAX && (rc = read_boxes(x, f)))
		return rc;
	uint32_t notes = gui_child(g, 0, "Notes");
	if (notes != UINT32_MAX && (rc = set_notes(x, notes)))
		return rc;
	uint32_t sp = gui_child(g, 0, "ScalingPolicy");
	if (sp != UINT32_MAX && x->sink->ops->set_scaling) {
		char *t = gui_content(g, sp);
		if (!t)
			return fail(x, 0, SV_ENOMEM, "out of memory");
		const char *s = t;
		while (isspace((unsigned char)*s))
			s++;
		if (strncmp(s, "TimeMetric", 10) == 0)
			x->sink->ops->set_scaling(x->sink->self, SV_SCALING_TIME);
		else if (strncmp(s, "ScaleToData", 11) == 0)
			x->sink->ops->set_scaling(x->sink->self, SV_SCALING_DATA);
		free(t);
	}
	return 0;
}

static int gui_open(xml_ctx *x, const char *name)
{
	gui_tree *g = &x->gui;
	if (SV_ARRAY_RESERVE(g->nodes, g->cap, g->n + 1))
		return fail(x, cur_line(x), SV_ENOMEM, "out of memory");
	gnode *n = &g->nodes[g->n];
	size_t len = strlen(name);
	memcpy(n->name, name, len < sizeof(n->name) ? len + 1 : 1);
	if (len >= sizeof(n->name))
		n->name[0] = '\0';
	n->parent = g->n ? g->open : UINT32_MAX;
	n->end = UINT32_MAX;
	n->elem_children = false;
	if (g->n)
		g->nodes[g->open].elem_children = true;
	g->open = (uint32_t)g->n++;
	return 0;
}

static int gui_text(xml_ctx *x, const xmlChar *ch, int len)
{
	gui_tree *g = &x->gui;
	if (SV_ARRAY_RESERVE(g->text, g->text_cap, g->ntext + (size_t)len) ||
	    SV_ARRAY_RESERVE(g->chunks, g->chunk_cap, g->nchunks + 1))
		return fail(x, cur_line(x), SV_ENOMEM, "out of memory");
	memcpy(g->text + g->ntext, ch, (size_t)len);
	g->chunks[g->nchunks++] = (gchunk){ g->open, g->ntext, (size_t)len };
	g->ntext += (size_t)len;
	return 0;
}

/* ---- driver ---- */

static int finish(xml_ctx *x)
{
	x->deferring = false;
	for (size_t i = 0; i < x->npend; i++) {
		uint32_t st = x->pend[i].ready;
		int rc = x->pend[i].resolved ? 0 : resolve_stack(x, &st, x->pend[i].stack, x->pend[i].line);
		if (rc < 0)
			return rc;
		if (rc == 1)
			return fail(x, x->pend[i].line, SV_EFORMAT, "sample refers to undefined stack %lld (or its frames)",
				    x->pend[i].stack);
		if ((rc = add_sample(x, st, x->pend[i].time, x->pend[i].metric, x->pend[i].line)))
			return rc;
	}
	/* Every stack must resolve, referenced or not: dangling ids and cycles are errors. */
	for (size_t i = 0; i < x->nrecs; i++) {
		if (x->recs[i].resolved != UINT32_MAX)
			continue;
		uint32_t st;
		int rc = resolve_stack(x, &st, x->recs[i].id, x->recs[i].line);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			bool caller_missing = x->recs[i].caller != -1 &&
					      stack_find(x, x->recs[i].caller) == SV_IDMAP_NONE;
			if (caller_missing)
				return fail(x, x->recs[i].line, SV_EFORMAT, "stack %lld: CallerID %lld is not defined",
					    x->recs[i].id, x->recs[i].caller);
			return fail(x, x->recs[i].line, SV_EFORMAT, "stack %lld (or a caller): FrameID is not defined",
				    x->recs[i].id);
		}
	}
	if (x->have_params && x->sink->ops->set_params) {
		int rc = x->sink->ops->set_params(x->sink->self, &x->params);
		if (rc)
			return fail(x, 0, rc, "out of memory");
	}
	return 0;
}

/* ---- SAX2 callbacks: parsing stops at the first error one of them meets ---- */

static void stop(xml_ctx *x, int rc)
{
	if (rc && !x->rc) {
		x->rc = rc;
		xmlStopParser(x->p);
	}
}

static int gui_begin(xml_ctx *x, int depth, gui_kind kind, const char *name)
{
	x->gui.kind = kind;
	x->gui.depth = depth;
	return gui_open(x, name);
}

static void sax_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri, int nns,
		      const xmlChar **ns, int nattrs, int ndefaulted, const xmlChar **attrs)
{
	(void)prefix, (void)uri, (void)nns, (void)ns, (void)ndefaulted;
	xml_ctx *x = ctx_of(ctx);
	int depth = x->depth++;
	const char *name = (const char *)localname;
	if (x->rc || x->cur != EL_NONE) /* an element inside a Frame or Sample is part of its text */
		return;

	int rc = 0;
	bool present;
	if (x->gui.depth >= 0) {
		rc = gui_open(x, name);
	} else if (x->state == 0 && localname == x->n_stacksource) {
		x->state = 1;
		x->ss_depth = depth;
	} else if (x->state == 1) {
		bool frame = localname == x->n_frame, sample = localname == x->n_sample;
		if (frame || sample) {
			x->cur = frame ? EL_FRAME : EL_SAMPLE;
			x->cur_depth = depth;
			x->cur_line = cur_line(x);
			x->ntext = 0;
			rc = frame ? attr_ll(x, attrs, nattrs, "Frame", x->n_id, &x->frame_id, &present, true)
				   : sample_start(x, attrs, nattrs);
		} else if (localname == x->n_stack) {
			rc = on_stack(x, attrs, nattrs);
		}
	} else if (strcmp(name, "StackWindowGuiState") == 0) {
		rc = gui_begin(x, depth, GUI_STATE, name);
	} else if (strcmp(name, "FilterXml") == 0) {
		rc = gui_begin(x, depth, GUI_LEGACY, name);
	} else if (x->state == 2 && depth <= x->ss_depth && strcmp(name, "Notes") == 0) {
		rc = gui_begin(x, depth, GUI_NOTES, name);
	}
	stop(x, rc);
}

static void sax_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri)
{
	(void)prefix, (void)uri;
	xml_ctx *x = ctx_of(ctx);
	int depth = --x->depth;
	if (x->rc)
		return;
	int rc = 0;
	gui_tree *g = &x->gui;
	if (x->cur != EL_NONE) {
		if (depth == x->cur_depth) {
			rc = x->cur == EL_FRAME ? on_frame(x) : on_sample(x);
			x->cur = EL_NONE;
		}
	} else if (g->depth >= 0) {
		g->nodes[g->open].end = (uint32_t)g->n;
		if (depth == g->depth) {
			rc = on_gui_state(x);
			gui_reset(g);
		} else {
			g->open = g->nodes[g->open].parent;
		}
	} else if (x->state == 1 && depth == x->ss_depth && localname == x->n_stacksource) {
		x->state = 2;
	}
	stop(x, rc);
}

static void sax_text(void *ctx, const xmlChar *ch, int len)
{
	xml_ctx *x = ctx_of(ctx);
	if (x->rc || len <= 0)
		return;
	int rc = 0;
	if (x->cur != EL_NONE) {
		if (SV_ARRAY_RESERVE(x->text, x->text_cap, x->ntext + (size_t)len + 1)) {
			rc = fail(x, cur_line(x), SV_ENOMEM, "out of memory");
		} else {
			memcpy(x->text + x->ntext, ch, (size_t)len);
			x->ntext += (size_t)len;
			x->text[x->ntext] = '\0';
		}
	} else if (x->gui.depth >= 0) {
		rc = gui_text(x, ch, len);
	}
	stop(x, rc);
}

static int xml_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	(void)opts;
	xml_ctx x;
	memset(&x, 0, sizeof(x));
	x.sink = sink;
	x.in = in;
	x.err = err;
	x.gui.depth = -1;
	xmlGenericErrorFunc old_generic = NULL;
	void *old_generic_ctx = NULL;
	bool generic_set = false;
	sv_idmap_init(&x.frame_ids);
	sv_idmap_init(&x.stack_idx);
	int rc = sv_params_init(&x.params);
	if (rc) {
		sv_params_dispose(&x.params);
		return sv_error_set(err, rc, NULL);
	}
	if (in->len > INT32_MAX) {
		rc = fail(&x, 0, SV_ELIMIT, "XML input larger than 2 GiB");
		goto out;
	}
	/* libxml2's SAX2 handlers for the document and its DTD (entities are declared, checked
	 * and never substituted); ours for elements and text; nothing else is kept */
	xmlSAXHandler sax;
	xmlSAXVersion(&sax, 2);
	sax.startElementNs = sax_start;
	sax.endElementNs = sax_end;
	sax.characters = sax_text;
	sax.cdataBlock = sax_text;
	sax.ignorableWhitespace = NULL;
	sax.reference = NULL;
	sax.comment = NULL;
	sax.processingInstruction = NULL;
	sax.serror = on_xml_error;
	sax.error = NULL;
	sax.warning = NULL;
	/* a push parser, fed the input a chunk at a time: it keeps no copy of the whole input (a
	 * memory parser context would). Created empty, so that whatever it reports (an encoding it
	 * cannot read, from the first bytes) comes after it knows whose it is. */
	size_t first = 0;
	x.p = xmlCreatePushParserCtxt(&sax, NULL, NULL, 0, NULL);
	if (!x.p) {
		rc = fail(&x, 0, SV_ENOMEM, "cannot create XML parser");
		goto out;
	}
	x.p->_private = &x; /* userData stays the context: libxml2's handlers need it */
	static const char *const names[] = { "Frame", "Stack", "Sample", "StackSource", "ID", "CallerID", "FrameID", "Time", "Metric", "StackID" };
	const xmlChar **dn[] = { &x.n_frame, &x.n_stack, &x.n_sample, &x.n_stacksource, &x.n_id, &x.n_callerid, &x.n_frameid, &x.n_time, &x.n_metric, &x.n_stackid };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!(*dn[i] = xmlDictLookup(x.p->dict, (const xmlChar *)names[i], -1))) {
			rc = fail(&x, 0, SV_ENOMEM, "out of memory");
			goto out;
		}
	/* text that was UTF-16 is UTF-8 now, whatever its declaration says (encoding="utf-16") */
	xmlCtxtUseOptions(x.p, XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES | XML_PARSE_NOBLANKS |
				       (in->from_utf16 ? XML_PARSE_IGNORE_ENC : 0));
	old_generic = xmlGenericError;
	old_generic_ctx = xmlGenericErrorContext;
	xmlSetGenericErrorFunc(&x, on_generic_error);
	generic_set = true;
	enum { CHUNK = 1 << 20 };
	for (size_t at = first; !x.rc;) {
		size_t n = in->len - at < CHUNK ? in->len - at : CHUNK;
		int end = at + n == in->len;
		if (xmlParseChunk(x.p, (const char *)in->data + at, (int)n, end) != 0 || end || x.xml_err[0])
			break;
		at += n;
		if (in->progress && (rc = sv_input_progress(in, (unsigned long long)at, err)))
			goto out;
	}
	if (x.rc) {
		rc = x.rc;
		goto out;
	}
	if (!x.p->wellFormed || x.xml_err[0]) {
		/* An encoding error's own words beat the parser's error that follows it (the text
		 * it could not convert ends early). */
		bool enc = x.xml_generic[0] && (!x.xml_err[0] || strstr(x.xml_err, "encoder error") ||
						strstr(x.xml_generic, "conversion failed"));
		const char *why = enc ? x.xml_generic
				  : x.xml_err[0]				       ? x.xml_err
										       : "parse error";
		rc = fail(&x, x.xml_err_line ? x.xml_err_line : cur_line(&x), SV_EFORMAT, "malformed XML: %s", why);
		goto out;
	}
	if (x.state == 0) {
		rc = fail(&x, 0, SV_EFORMAT, "no <StackSource> element");
		goto out;
	}
	rc = finish(&x);
out:
	if (x.p) {
		xmlFreeDoc(x.p->myDoc);
		xmlFreeParserCtxt(x.p);
	}
	if (generic_set)
		xmlSetGenericErrorFunc(old_generic_ctx, old_generic);
	sv_idmap_dispose(&x.frame_ids);
	sv_idmap_dispose(&x.stack_idx);
	free(x.dense);
	free(x.recs);
	free(x.chain);
	free(x.pend);
	free(x.text);
	gui_dispose(&x.gui);
	sv_params_dispose(&x.params);
	return rc;
}

static bool xml_probe(const unsigned char *d, size_t n)
{
	size_t i = 0;
	if (n >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF)
		i = 3;
	while (i < n && isspace(d[i]))
		i++;
	if (i >= n || d[i] != '<')
		return false;
	/* Any XML that has a StackSource element near the start, or any XML at all when the
	 * probe cannot see that far: a <StackSource> is required later anyway. */
	size_t window = n - i < 4096 ? n - i : 4096;
	for (size_t k = i; k + 12 <= i + window; k++)
		if (memcmp(d + k, "<StackSource", 12) == 0)
			return true;
	return memchr(d + i, '>', window) != NULL && (d[i + 1] == '?' || d[i + 1] == '!' || isalpha(d[i + 1]));
}

static const char *const xml_patterns[] = { ".perfView.xml", ".perfView.xml.zip", ".xml", NULL };

const sv_format sv_fmt_perfview_xml = {
	.name = "perfview-xml", .patterns = xml_patterns, .probe = xml_probe, .import = xml_import,
	.export = sv_fmt_perfview_xml_export,
};

/* ---- PerfView XML ---- */

static const struct {
	const char *elem;
	sv_box box;
} gui_boxes[] = {
	{ "Start", SV_BOX_START },         { "End", SV_BOX_END },         { "GroupRegEx", SV_BOX_GROUP },
	{ "FoldPercent", SV_BOX_FOLD_PCT }, { "FoldRegEx", SV_BOX_FOLD }, { "IncludeRegEx", SV_BOX_INC },
	{ "ExcludeRegEx", SV_BOX_EXC },
};

int sv_fmt_perfview_xml_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err)
{
	(void)opts;
	uint32_t nf = sv_source_frame_count(src), nst = sv_source_stack_count(src);
	size_t ns = sv_source_sample_count(src);
	fputs("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<StackWindow>\n <StackSource>\n", f);
	/* Frames start at 4, after PerfView's pseudo frames (§10.2; D7 keeps ids ordinary). */
	fprintf(f, "  <Frames Count=\"%u\">\n", nf + 4);
	fputs("   <Frame ID=\"0\">ROOT</Frame>\n   <Frame ID=\"1\">BROKEN</Frame>\n"
	      "   <Frame ID=\"2\">?!?</Frame>\n   <Frame ID=\"3\">OVERHEAD</Frame>\n",
	      f);
	for (uint32_t i = 0; i < nf && !ferror(f); i++) {
		fprintf(f, "   <Frame ID=\"%u\">", i + 4);
		sv_xml_write_text(f, sv_source_frame_name(src, i));
		fputs("</Frame>\n", f);
	}
	fprintf(f, "  </Frames>\n  <Stacks Count=\"%u\">\n", nst);
	for (uint32_t s = 0; s < nst && !ferror(f); s++) {
		sv_stack_id c = sv_source_stack_caller(src, s);
		fprintf(f, "   <Stack ID=\"%u\" CallerID=\"%lld\" FrameID=\"%u\" />\n", s,
			c == SV_STACK_NONE ? -1LL : (long long)c, sv_source_stack_frame(src, s) + 4);
	}
	fprintf(f, "  </Stacks>\n  <Samples Count=\"%zu\">\n", ns);
	const sv_stack_id *stk = sv_source_sample_stacks(src);
	const double *tim = sv_source_sample_times(src);
	sv_samples smp = sv_source_samples(src);
	for (size_t i = 0; i < ns && !ferror(f); i++) { /* a failed write (or a held signal) stops */
		fprintf(f, "   <Sample ID=\"%zu\" Time=\"", i);
		sv_write_num(f, tim[i]);
		fputc('"', f);
		if (stk[i] != SV_STACK_NONE)
			fprintf(f, " StackID=\"%u\"", stk[i]);
		if (sv_sample_metric(&smp, i) != 1) {
			fputs(" Metric=\"", f);
			sv_write_num(f, sv_sample_metric(&smp, i));
			fputc('"', f);
		}
		fputs(" />\n", f);
	}
	fputs("  </Samples>\n </StackSource>\n <StackWindowGuiState>\n", f);
	const sv_params *p = sv_source_saved_params(src);
	if (p) {
		fputs("  <FilterGuiState>\n", f);
		for (size_t b = 0; b < sizeof(gui_boxes) / sizeof(gui_boxes[0]); b++) {
			fprintf(f, "   <%s><Value>", gui_boxes[b].elem);
			sv_xml_write_text(f, sv_params_get(p, gui_boxes[b].box));
			fprintf(f, "</Value></%s>\n", gui_boxes[b].elem);
		}
		fputs("  </FilterGuiState>\n", f);
	}
	fputs("  <Notes>", f);
	sv_xml_write_text(f, sv_source_notes(src));
	fprintf(f, "</Notes>\n  <ScalingPolicy>%s</ScalingPolicy>\n </StackWindowGuiState>\n</StackWindow>\n",
		sv_source_scaling(src) == SV_SCALING_TIME ? "TimeMetric" : "ScaleToData");
	return sv_write_check(f, err);
}

/* ---- PerfView JSON ---- */
