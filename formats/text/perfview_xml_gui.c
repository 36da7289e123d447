/* SPDX-License-Identifier: MIT */
/* .perfView.xml reader: the saved GUI state (filter boxes, notes), small enough to keep as a
 * little tree of its own. */
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

/* ---- GUI state (small: kept as a little tree) ---- */

void sv_pvx_gui_reset(gui_tree *g)
{
	g->n = g->nchunks = g->ntext = 0;
	g->depth = -1;
}

void sv_pvx_gui_dispose(gui_tree *g)
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
			return sv_pvx_fail(x, 0, SV_ENOMEM, "out of memory");
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
			return sv_pvx_fail(x, 0, rc, "out of memory");
	}
	return 0;
}

static int set_notes(xml_ctx *x, uint32_t n)
{
	char *t = gui_content(&x->gui, n);
	if (!t)
		return sv_pvx_fail(x, 0, SV_ENOMEM, "out of memory");
	int rc = x->sink->ops->set_notes ? x->sink->ops->set_notes(x->sink->self, t) : 0;
	free(t);
	return rc ? sv_pvx_fail(x, 0, rc, "out of memory") : 0;
}

/* A GUI-state subtree, read whole (node 0 is its root). */
int sv_pvx_on_gui_state(xml_ctx *x)
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
			return sv_pvx_fail(x, 0, SV_ENOMEM, "out of memory");
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

int sv_pvx_gui_open(xml_ctx *x, const char *name)
{
	gui_tree *g = &x->gui;
	if (SV_ARRAY_RESERVE(g->nodes, g->cap, g->n + 1))
		return sv_pvx_fail(x, sv_pvx_line(x), SV_ENOMEM, "out of memory");
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

int sv_pvx_gui_text(xml_ctx *x, const xmlChar *ch, int len)
{
	gui_tree *g = &x->gui;
	if (SV_ARRAY_RESERVE(g->text, g->text_cap, g->ntext + (size_t)len) ||
	    SV_ARRAY_RESERVE(g->chunks, g->chunk_cap, g->nchunks + 1))
		return sv_pvx_fail(x, sv_pvx_line(x), SV_ENOMEM, "out of memory");
	memcpy(g->text + g->ntext, ch, (size_t)len);
	g->chunks[g->nchunks++] = (gchunk){ g->open, g->ntext, (size_t)len };
	g->ntext += (size_t)len;
	return 0;
}
