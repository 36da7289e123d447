/* SPDX-License-Identifier: MIT */
/* PerfView .perfView.xml, reader and writer (the writer emits the advanced form with its
 * GUI state, D9). The reader takes simple and advanced forms with saved GUI state
 * (spec/semantics.md §10.1–10.3 with D7). Streams with libxml2's xmlTextReader so a file of
 * millions of samples never becomes a DOM; only the small GUI-state subtree is expanded.
 * Parsing runs without network access and without entity substitution. */
#include <ctype.h>
#include <errno.h>
#include <libxml/xmlreader.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv/idmap.h"
#include "export_int.h"
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

typedef struct xml_ctx {
	sv_sink *sink;
	const sv_input *in;
	sv_error *err;
	xmlTextReaderPtr r;
	char xml_err[400];
	char xml_generic[400]; /* the first message of libxml2's generic handler */
	long xml_err_line;

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

/* The line of the element being read (the parser itself may already be further on). */
static long cur_line(xml_ctx *x)
{
	xmlNodePtr n = xmlTextReaderCurrentNode(x->r);
	long l = n ? xmlGetLineNo(n) : -1;
	if (l <= 0)
		l = xmlTextReaderGetParserLineNumber(x->r);
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

static void on_xml_error(void *arg, xmlErrorPtr e)
{
	xml_ctx *x = arg;
	if (!e || e->level < XML_ERR_ERROR || x->xml_err[0])
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

/* An attribute's value: read in place from the element's attribute nodes when it is one
 * plain text (the common case: no copy), else a copy through the reader (*copy to free). */
static const char *attr_value(xml_ctx *x, const char *name, xmlChar **copy)
{
	*copy = NULL;
	xmlNodePtr n = xmlTextReaderCurrentNode(x->r);
	for (xmlAttrPtr a = n && n->type == XML_ELEMENT_NODE ? n->properties : NULL; a; a = a->next) {
		if (a->ns || strcmp((const char *)a->name, name) != 0)
			continue;
		xmlNodePtr t = a->children;
		if (t && t->type == XML_TEXT_NODE && !t->next && t->content)
			return (const char *)t->content;
		break;
	}
	*copy = xmlTextReaderGetAttribute(x->r, (const xmlChar *)name);
	return (const char *)*copy;
}

/* An attribute as a number; *present says whether it was there. */
static int attr_double(xml_ctx *x, const char *name, double *out, bool *present)
{
	xmlChar *copy;
	const char *v = attr_value(x, name, &copy);
	*present = v != NULL;
	if (!v)
		return 0;
	bool ok = parse_double(v, out);
	int rc = ok ? 0 : fail(x, cur_line(x), SV_EFORMAT, "%s=\"%.40s\" is not a number", name, v);
	xmlFree(copy);
	return rc;
}

static int attr_ll(xml_ctx *x, const char *elem, const char *name, long long *out, bool *present, bool required)
{
	xmlChar *copy;
	const char *v = attr_value(x, name, &copy);
	*present = v != NULL;
	if (!v)
		return required ? fail(x, cur_line(x), SV_EFORMAT, "<%s> without %s", elem, name) : 0;
	bool ok = parse_ll(v, out);
	int rc = ok ? 0 : fail(x, cur_line(x), SV_EFORMAT, "%s=\"%.40s\" is not an integer", name, v);
	xmlFree(copy);
	return rc;
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

static int on_frame(xml_ctx *x)
{
	long long id;
	bool present;
	long line = cur_line(x);
	int rc = attr_ll(x, "Frame", "ID", &id, &present, true);
	if (rc)
		return rc;
	if (sv_idmap_get(&x->frame_ids, (uint64_t)id) != SV_IDMAP_NONE)
		return fail(x, line, SV_EFORMAT, "frame ID %lld defined twice", id);
	xmlChar *text = xmlTextReaderIsEmptyElement(x->r) ? NULL : xmlTextReaderReadString(x->r);
	const char *s = text ? (const char *)text : "";
	while (isspace((unsigned char)*s))
		s++;
	size_t len = strlen(s);
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	uint32_t f;
	rc = x->sink->ops->intern_frame(x->sink->self, &f, s, len);
	xmlFree(text);
	if (rc)
		return fail(x, line, rc, "frame %lld: %s", id, rc == SV_ELIMIT ? "name too long" : sv_status_str(rc));
	if (sv_idmap_put(&x->frame_ids, (uint64_t)id, f))
		return fail(x, line, SV_ENOMEM, "out of memory");
	return 0;
}

static int on_stack(xml_ctx *x)
{
	stack_rec r;
	bool present;
	int rc;
	r.line = cur_line(x);
	r.resolved = UINT32_MAX;
	if ((rc = attr_ll(x, "Stack", "ID", &r.id, &present, true)) ||
	    (rc = attr_ll(x, "Stack", "CallerID", &r.caller, &present, true)) ||
	    (rc = attr_ll(x, "Stack", "FrameID", &r.frame, &present, true)))
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

static int on_sample(xml_ctx *x)
{
	long line = cur_line(x);
	double time = 0, metric = 1;
	long long sid = -1;
	bool has_time, has_metric, has_stack;
	int rc;
	if ((rc = attr_double(x, "Time", &time, &has_time)) || (rc = attr_double(x, "Metric", &metric, &has_metric)) ||
	    (rc = attr_ll(x, "Sample", "StackID", &sid, &has_stack, false)))
		return rc;
	xmlChar *text = xmlTextReaderIsEmptyElement(x->r) ? NULL : xmlTextReaderReadString(x->r);
	bool has_text = false;
	if (text)
		for (const xmlChar *p = text; *p; p++)
			if (!isspace(*p)) {
				has_text = true;
				break;
			}
	uint32_t st = SV_STACK_NONE;
	if (has_text) {
		rc = literal_stack(x, &st, (const char *)text, line);
		xmlFree(text);
		return rc ? rc : add_sample(x, st, time, metric, line);
	}
	xmlFree(text);
	if (!has_stack || sid == -1) /* D7: no stack = ROOT exclusive */
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

/* ---- GUI state (small: expanded to a DOM subtree) ---- */

static xmlNodePtr child_elem(xmlNodePtr n, const char *name)
{
	for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0)
			return c;
	return NULL;
}

static bool has_elem_children(xmlNodePtr n)
{
	for (xmlNodePtr c = n->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE)
			return true;
	return false;
}

/* A box element holds <Value>, or bare text. Returns malloc'ed text or NULL if absent. */
static char *box_value(xmlNodePtr box)
{
	xmlNodePtr val = child_elem(box, "Value");
	xmlNodePtr src = val ? val : (has_elem_children(box) ? NULL : box);
	if (!src)
		return NULL;
	xmlChar *t = xmlNodeGetContent(src);
	char *r = strdup(t ? (const char *)t : "");
	xmlFree(t);
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

static int read_boxes(xml_ctx *x, xmlNodePtr filter)
{
	for (size_t i = 0; i < sizeof(box_elems) / sizeof(box_elems[0]); i++) {
		xmlNodePtr b = child_elem(filter, box_elems[i].elem);
		if (!b)
			continue;
		char *v = box_value(b);
		if (!v)
			continue;
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

static int set_notes(xml_ctx *x, xmlNodePtr n)
{
	xmlChar *t = xmlNodeGetContent(n);
	int rc = x->sink->ops->set_notes ? x->sink->ops->set_notes(x->sink->self, t ? (const char *)t : "") : 0;
	xmlFree(t);
	return rc ? fail(x, 0, rc, "out of memory") : 0;
}

static int on_gui_state(xml_ctx *x, bool legacy)
{
	xmlNodePtr n = xmlTextReaderExpand(x->r);
	if (!n)
		return 0; /* the reader reports the XML error itself */
	int rc;
	if (legacy) {
		if ((rc = read_boxes(x, n)))
			return rc;
		return 0;
	}
	xmlNodePtr f = child_elem(n, "FilterGuiState");
	if (f && (rc = read_boxes(x, f)))
		return rc;
	xmlNodePtr notes = child_elem(n, "Notes");
	if (notes && (rc = set_notes(x, notes)))
		return rc;
	xmlNodePtr sp = child_elem(n, "ScalingPolicy");
	if (sp && x->sink->ops->set_scaling) {
		xmlChar *t = xmlNodeGetContent(sp);
		const char *s = t ? (const char *)t : "";
		while (isspace((unsigned char)*s))
			s++;
		if (strncmp(s, "TimeMetric", 10) == 0)
			x->sink->ops->set_scaling(x->sink->self, SV_SCALING_TIME);
		else if (strncmp(s, "ScaleToData", 11) == 0)
			x->sink->ops->set_scaling(x->sink->self, SV_SCALING_DATA);
		xmlFree(t);
	}
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

static int xml_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	(void)opts;
	xml_ctx x;
	memset(&x, 0, sizeof(x));
	x.sink = sink;
	x.in = in;
	x.err = err;
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
	x.r = xmlReaderForMemory((const char *)in->data, (int)in->len, NULL, NULL, XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES | XML_PARSE_NOBLANKS | XML_PARSE_COMPACT);
	if (!x.r) {
		rc = fail(&x, 0, SV_ENOMEM, "cannot create XML reader");
		goto out;
	}
	xmlTextReaderSetStructuredErrorHandler(x.r, on_xml_error, &x);
	old_generic = xmlGenericError;
	old_generic_ctx = xmlGenericErrorContext;
	xmlSetGenericErrorFunc(&x, on_generic_error);
	generic_set = true;
	int state = 0; /* 0 before StackSource, 1 inside, 2 after */
	int ss_depth = -1;
	bool saw_samples_elem = false;
	int ret;
	unsigned nodes = 0;
	while ((ret = xmlTextReaderRead(x.r)) == 1) {
		if (in->progress && (++nodes & 4095) == 0) {
			long consumed = xmlTextReaderByteConsumed(x.r);
			if (consumed > 0 && (rc = sv_input_progress(in, (unsigned long long)consumed, err)))
				goto out;
		}
		int type = xmlTextReaderNodeType(x.r);
		const char *name = (const char *)xmlTextReaderConstLocalName(x.r);
		int depth = xmlTextReaderDepth(x.r);
		if (!name)
			continue;
		if (type == XML_READER_TYPE_END_ELEMENT) {
			if (state == 1 && depth == ss_depth && strcmp(name, "StackSource") == 0)
				state = 2;
			continue;
		}
		if (type != XML_READER_TYPE_ELEMENT)
			continue;
		if (state == 0 && strcmp(name, "StackSource") == 0) {
			state = 1;
			ss_depth = depth;
			if (xmlTextReaderIsEmptyElement(x.r))
				state = 2;
			continue;
		}
		if (state == 1) {
			if (strcmp(name, "Frame") == 0)
				rc = on_frame(&x);
			else if (strcmp(name, "Stack") == 0)
				rc = on_stack(&x);
			else if (strcmp(name, "Sample") == 0)
				rc = on_sample(&x);
			else if (strcmp(name, "Samples") == 0)
				saw_samples_elem = true;
		} else if (strcmp(name, "StackWindowGuiState") == 0) {
			rc = on_gui_state(&x, false);
		} else if (strcmp(name, "FilterXml") == 0) {
			rc = on_gui_state(&x, true);
		} else if (state == 2 && depth <= ss_depth && strcmp(name, "Notes") == 0) {
			xmlNodePtr n = xmlTextReaderExpand(x.r);
			if (n)
				rc = set_notes(&x, n);
		}
		if (rc)
			goto out;
	}
	if (ret < 0 || x.xml_err[0]) {
		/* An encoding error's own words beat the parser's "parse error" that follows it. */
		const char *why = x.xml_generic[0] && (!x.xml_err[0] || strstr(x.xml_err, "encoder error")) ? x.xml_generic
				  : x.xml_err[0]				       ? x.xml_err
										       : "parse error";
		rc = fail(&x, x.xml_err_line ? x.xml_err_line : cur_line(&x), SV_EFORMAT, "malformed XML: %s", why);
		goto out;
	}
	if (state == 0) {
		rc = fail(&x, 0, SV_EFORMAT, "no <StackSource> element");
		goto out;
	}
	(void)saw_samples_elem;
	rc = finish(&x);
out:
	if (x.r)
		xmlFreeTextReader(x.r);
	if (generic_set)
		xmlSetGenericErrorFunc(old_generic_ctx, old_generic);
	sv_idmap_dispose(&x.frame_ids);
	sv_idmap_dispose(&x.stack_idx);
	free(x.dense);
	free(x.recs);
	free(x.chain);
	free(x.pend);
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
