/* SPDX-License-Identifier: MIT */
/* Internals of the .perfView.xml reader, one file a concern: attributes and numbers
 * (perfview_xml_attr.c), stacks and samples (perfview_xml_stacks.c), the saved GUI state
 * (perfview_xml_gui.c) and the SAX driver with the table entry (perfview_xml.c), each calling
 * only those before it; the writer is perfview_xml_write.c. formats/ only.
 * Ownership: one xml_ctx per import, in xml_import's stack frame; it owns every array and
 * tree it points to. */
#ifndef STACKVIEW_FORMATS_PERFVIEW_XML_INT_H
#define STACKVIEW_FORMATS_PERFVIEW_XML_INT_H

#include <libxml/parser.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackview/formats.h"
#include "sv/idmap.h"

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

/* perfview_xml_attr.c: the parser's line (at a start callback, its start tag's); an error
 * at a line (returns code); an attribute's double or integer (SV_EFORMAT naming it when it is
 * not one; `present` says whether it was there, `required` refuses its absence). */
long sv_pvx_line(xml_ctx *x);
int sv_pvx_fail(xml_ctx *x, long line, int code, const char *fmt, ...) SV_PRINTF(4, 5);
int sv_pvx_attr_double(xml_ctx *x, const xmlChar **attrs, int nattrs, const xmlChar *dname, double *out, bool *present);
int sv_pvx_attr_ll(xml_ctx *x, const xmlChar **attrs, int nattrs, const char *elem, const xmlChar *dname, long long *out, bool *present, bool required);
/* perfview_xml_stacks.c: stacks by id (resolved once their callers are known), samples,
 * and the element handlers for Frame, Stack and Sample. */
uint32_t sv_pvx_stack_find(const xml_ctx *x, long long id);
int sv_pvx_resolve_stack(xml_ctx *x, uint32_t *out, long long id, long line);
int sv_pvx_add_sample(xml_ctx *x, uint32_t stack, double time, double metric, long line);
int sv_pvx_on_frame(xml_ctx *x);
int sv_pvx_on_stack(xml_ctx *x, const xmlChar **attrs, int nattrs);
int sv_pvx_sample_start(xml_ctx *x, const xmlChar **attrs, int nattrs);
int sv_pvx_on_sample(xml_ctx *x);
/* perfview_xml_gui.c: the GUI-state subtree kept while it is read, then applied (boxes,
 * notes). */
void sv_pvx_gui_reset(gui_tree *g);
void sv_pvx_gui_dispose(gui_tree *g);
int sv_pvx_on_gui_state(xml_ctx *x);
int sv_pvx_gui_open(xml_ctx *x, const char *name);
int sv_pvx_gui_text(xml_ctx *x, const xmlChar *ch, int len);

#endif
