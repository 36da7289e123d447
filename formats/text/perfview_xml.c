/* SPDX-License-Identifier: MIT */
/* PerfView .perfView.xml: the reader's SAX driver and the format's table entry (the writer,
 * which emits the advanced form with its GUI state, D9, is perfview_xml_write.c). The reader takes simple and advanced forms with saved GUI state
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
#include "perfview_xml_int.h"

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

/* ---- driver ---- */

static int finish(xml_ctx *x)
{
	x->deferring = false;
	for (size_t i = 0; i < x->npend; i++) {
		uint32_t st = x->pend[i].ready;
		int rc = x->pend[i].resolved ? 0 : sv_pvx_resolve_stack(x, &st, x->pend[i].stack, x->pend[i].line);
		if (rc < 0)
			return rc;
		if (rc == 1)
			return sv_pvx_fail(x, x->pend[i].line, SV_EFORMAT, "sample refers to undefined stack %lld (or its frames)",
				    x->pend[i].stack);
		if ((rc = sv_pvx_add_sample(x, st, x->pend[i].time, x->pend[i].metric, x->pend[i].line)))
			return rc;
	}
	/* Every stack must resolve, referenced or not: dangling ids and cycles are errors. */
	for (size_t i = 0; i < x->nrecs; i++) {
		if (x->recs[i].resolved != UINT32_MAX)
			continue;
		uint32_t st;
		int rc = sv_pvx_resolve_stack(x, &st, x->recs[i].id, x->recs[i].line);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			bool caller_missing = x->recs[i].caller != -1 &&
					      sv_pvx_stack_find(x, x->recs[i].caller) == SV_IDMAP_NONE;
			if (caller_missing)
				return sv_pvx_fail(x, x->recs[i].line, SV_EFORMAT, "stack %lld: CallerID %lld is not defined",
					    x->recs[i].id, x->recs[i].caller);
			return sv_pvx_fail(x, x->recs[i].line, SV_EFORMAT, "stack %lld (or a caller): FrameID is not defined",
				    x->recs[i].id);
		}
	}
	if (x->have_params && x->sink->ops->set_params) {
		int rc = x->sink->ops->set_params(x->sink->self, &x->params);
		if (rc)
			return sv_pvx_fail(x, 0, rc, "out of memory");
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
	return sv_pvx_gui_open(x, name);
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
		rc = sv_pvx_gui_open(x, name);
	} else if (x->state == 0 && localname == x->n_stacksource) {
		x->state = 1;
		x->ss_depth = depth;
	} else if (x->state == 1) {
		bool frame = localname == x->n_frame, sample = localname == x->n_sample;
		if (frame || sample) {
			x->cur = frame ? EL_FRAME : EL_SAMPLE;
			x->cur_depth = depth;
			x->cur_line = sv_pvx_line(x);
			x->ntext = 0;
			rc = frame ? sv_pvx_attr_ll(x, attrs, nattrs, "Frame", x->n_id, &x->frame_id, &present, true)
				   : sv_pvx_sample_start(x, attrs, nattrs);
		} else if (localname == x->n_stack) {
			rc = sv_pvx_on_stack(x, attrs, nattrs);
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
			rc = x->cur == EL_FRAME ? sv_pvx_on_frame(x) : sv_pvx_on_sample(x);
			x->cur = EL_NONE;
		}
	} else if (g->depth >= 0) {
		g->nodes[g->open].end = (uint32_t)g->n;
		if (depth == g->depth) {
			rc = sv_pvx_on_gui_state(x);
			sv_pvx_gui_reset(g);
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
			rc = sv_pvx_fail(x, sv_pvx_line(x), SV_ENOMEM, "out of memory");
		} else {
			memcpy(x->text + x->ntext, ch, (size_t)len);
			x->ntext += (size_t)len;
			x->text[x->ntext] = '\0';
		}
	} else if (x->gui.depth >= 0) {
		rc = sv_pvx_gui_text(x, ch, len);
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
		rc = sv_pvx_fail(&x, 0, SV_ELIMIT, "XML input larger than 2 GiB");
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
		rc = sv_pvx_fail(&x, 0, SV_ENOMEM, "cannot create XML parser");
		goto out;
	}
	x.p->_private = &x; /* userData stays the context: libxml2's handlers need it */
	static const char *const names[] = { "Frame", "Stack", "Sample", "StackSource", "ID", "CallerID", "FrameID", "Time", "Metric", "StackID" };
	const xmlChar **dn[] = { &x.n_frame, &x.n_stack, &x.n_sample, &x.n_stacksource, &x.n_id, &x.n_callerid, &x.n_frameid, &x.n_time, &x.n_metric, &x.n_stackid };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!(*dn[i] = xmlDictLookup(x.p->dict, (const xmlChar *)names[i], -1))) {
			rc = sv_pvx_fail(&x, 0, SV_ENOMEM, "out of memory");
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
		rc = sv_pvx_fail(&x, x.xml_err_line ? x.xml_err_line : sv_pvx_line(&x), SV_EFORMAT, "malformed XML: %s", why);
		goto out;
	}
	if (x.state == 0) {
		rc = sv_pvx_fail(&x, 0, SV_EFORMAT, "no <StackSource> element");
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
	sv_pvx_gui_dispose(&x.gui);
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

