/* SPDX-License-Identifier: MIT */
/* ETL importer: the fields of an EventSource's events from its manifest in the trace (the
 * ManifestData events etl_kinds.c puts together): each <template>'s <data> fields (name,
 * inType, outType, map) and the manifest's <valueMap>/<bitMap>s, their names from its
 * string table. The Events view decodes a payload by them (etl_list.c), as TraceEvent's
 * DynamicTraceEventParser does. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/tree.h>

#include "etl_int.h"
#include "sv/array.h"

struct etl_mf {
	char **tids; /* each template's id, and its index in c->tpls */
	size_t *tpl;
	size_t n, cap, tplcap;
};

/* TDH's in-types (the numbering TraceLogging's share). */
static uint8_t in_type(const char *s)
{
	static const char *const names[] = { NULL,	  "UnicodeString", "AnsiString", "Int8",	"UInt8",
					     "Int16",	  "UInt16",	   "Int32",	 "UInt32",	"Int64",
					     "UInt64",	  "Float",	   "Double",	 "Boolean",	"Binary",
					     "GUID",	  "Pointer",	   "FILETIME",	 "SYSTEMTIME",	"SID",
					     "HexInt32", "HexInt64" };
	if (!s || strncmp(s, "win:", 4) != 0)
		return 0;
	for (uint8_t i = 1; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s + 4, names[i]))
			return i;
	return 0;
}

/* The out-types that change a number's text (TraceLogging's numbering). */
static uint8_t out_type(const char *s)
{
	if (!s)
		return 0;
	if (!strcmp(s, "win:HexInt32") || !strcmp(s, "win:HexInt64"))
		return 4;
	if (!strcmp(s, "xs:boolean"))
		return 3;
	return 0;
}

static char *prop(xmlNode *n, const char *name)
{
	return (char *)xmlGetProp(n, (const xmlChar *)name);
}

static bool is_el(const xmlNode *x, const char *name)
{
	return x->type == XML_ELEMENT_NODE && !strcmp((const char *)x->name, name);
}

/* The element after x in document order (depth first, without recursion), or NULL. */
static xmlNode *next_el(xmlNode *x)
{
	if (x->children && x->type == XML_ELEMENT_NODE)
		return x->children;
	while (x && !x->next)
		x = x->parent && x->parent->type == XML_ELEMENT_NODE ? x->parent : NULL;
	return x ? x->next : NULL;
}

typedef struct strtab {
	char **id, **value;
	size_t n, idcap, valcap;
} strtab;

/* "$(string.ID)" through the string table; any other text as it is. */
static const char *message(const strtab *st, const char *m)
{
	if (!m || strncmp(m, "$(string.", 9) != 0)
		return m;
	size_t l = strlen(m + 9);
	if (!l || m[9 + l - 1] != ')')
		return m;
	for (size_t i = 0; i < st->n; i++)
		if (strlen(st->id[i]) == l - 1 && !memcmp(st->id[i], m + 9, l - 1))
			return st->value[i];
	return m;
}

static int read_strings(xmlNode *root, strtab *st)
{
	for (xmlNode *x = root; x; x = next_el(x)) {
		if (!is_el(x, "string"))
			continue;
		char *id = prop(x, "id"), *v = prop(x, "value");
		if (!id || !v) {
			xmlFree(id), xmlFree(v);
			continue;
		}
		if (SV_ARRAY_RESERVE(st->id, st->idcap, st->n + 1) || SV_ARRAY_RESERVE(st->value, st->valcap, st->n + 1)) {
			xmlFree(id), xmlFree(v);
			return SV_ENOMEM;
		}
		st->id[st->n] = id, st->value[st->n++] = v;
	}
	return 0;
}

static void free_strings(strtab *st)
{
	for (size_t i = 0; i < st->n; i++)
		xmlFree(st->id[i]), xmlFree(st->value[i]);
	free(st->id);
	free(st->value);
}

/* One <valueMap>/<bitMap> into c->maps. */
static int read_map(etl_ctx *c, xmlNode *m, const strtab *st)
{
	if (SV_ARRAY_RESERVE(c->maps, c->mapcap, c->nmaps + 1))
		return SV_ENOMEM;
	emap *e = &c->maps[c->nmaps];
	memset(e, 0, sizeof(*e));
	e->bits = is_el(m, "bitMap");
	e->name = prop(m, "name");
	if (!e->name)
		return 0;
	c->nmaps++;
	size_t vcap = 0, ncap = 0;
	for (xmlNode *x = m->children; x; x = x->next) {
		if (!is_el(x, "map"))
			continue;
		char *v = prop(x, "value"), *msg = prop(x, "message");
		const char *text = message(st, msg);
		char *end = NULL;
		uint64_t val = v ? strtoull(v, &end, 0) : 0;
		int rc = 0;
		if (v && end && !*end && text) {
			char *dup = strdup(text);
			if (!dup || SV_ARRAY_RESERVE(e->values, vcap, e->n + 1) || SV_ARRAY_RESERVE(e->names, ncap, e->n + 1)) {
				free(dup);
				rc = SV_ENOMEM;
			} else {
				e->values[e->n] = val, e->names[e->n++] = dup;
			}
		}
		xmlFree(v), xmlFree(msg);
		if (rc)
			return rc;
	}
	/* a bit map's names from the lowest value up (insertion: maps are short) */
	for (size_t i = 1; e->bits && i < e->n; i++)
		for (size_t k = i; k > 0 && e->values[k - 1] > e->values[k]; k--) {
			uint64_t tv = e->values[k];
			char *tn = e->names[k];
			e->values[k] = e->values[k - 1], e->names[k] = e->names[k - 1];
			e->values[k - 1] = tv, e->names[k - 1] = tn;
		}
	return 0;
}

static long find_map(const etl_ctx *c, size_t from, const char *name)
{
	for (size_t i = from; name && i < c->nmaps; i++)
		if (!strcmp(c->maps[i].name, name))
			return (long)i;
	return -1;
}

/* One <template> into c->tpls: its fields up to the first one whose size another field
 * gives (count=, length=) or whose type is not read (decoding stops there). */
static int read_template(etl_ctx *c, xmlNode *t, size_t maps_from)
{
	if (SV_ARRAY_RESERVE(c->tpls, c->tplcap, c->ntpls + 1))
		return SV_ENOMEM;
	etpl *tp = &c->tpls[c->ntpls++];
	memset(tp, 0, sizeof(*tp));
	size_t cap = 0;
	for (xmlNode *x = t->children; x && !tp->partial; x = x->next) {
		if (!is_el(x, "data"))
			continue;
		char *name = prop(x, "name"), *in = prop(x, "inType"), *out = prop(x, "outType"), *map = prop(x, "map"),
		     *count = prop(x, "count"), *len = prop(x, "length");
		uint8_t it = in_type(in);
		int rc = 0;
		if (!name || !it || it == 14 /* win:Binary: sized by another field */ || count || len) {
			tp->partial = true;
		} else if (SV_ARRAY_RESERVE(tp->f, cap, tp->n + 1)) {
			rc = SV_ENOMEM;
		} else {
			emfield *f = &tp->f[tp->n];
			f->name = strdup(name);
			f->in = it;
			f->out = out_type(out);
			f->map = find_map(c, maps_from, map);
			if (!f->name)
				rc = SV_ENOMEM;
			else
				tp->n++;
		}
		xmlFree(name), xmlFree(in), xmlFree(out), xmlFree(map), xmlFree(count), xmlFree(len);
		if (rc)
			return rc;
	}
	return 0;
}

int sv_etl_manifest_read(etl_ctx *c, xmlNode *root, etl_mf **out)
{
	*out = NULL;
	etl_mf *mf = calloc(1, sizeof(*mf));
	if (!mf)
		return SV_ENOMEM;
	strtab st = { 0 };
	size_t maps_from = c->nmaps;
	int rc = read_strings(root, &st);
	for (xmlNode *x = root; x && !rc; x = next_el(x))
		if (is_el(x, "valueMap") || is_el(x, "bitMap"))
			rc = read_map(c, x, &st);
	for (xmlNode *x = root; x && !rc; x = next_el(x)) {
		if (!is_el(x, "template"))
			continue;
		char *tid = prop(x, "tid");
		if (!tid)
			continue;
		if (SV_ARRAY_RESERVE(mf->tids, mf->cap, mf->n + 1) || SV_ARRAY_RESERVE(mf->tpl, mf->tplcap, mf->n + 1) ||
		    (rc = read_template(c, x, maps_from))) {
			xmlFree(tid);
			rc = rc ? rc : SV_ENOMEM;
			break;
		}
		mf->tids[mf->n] = tid;
		mf->tpl[mf->n++] = c->ntpls - 1;
	}
	free_strings(&st);
	if (rc) {
		sv_etl_manifest_done(mf);
		return rc;
	}
	*out = mf;
	return 0;
}

int sv_etl_manifest_template(const etl_mf *mf, const char *tid)
{
	for (size_t i = 0; mf && tid && i < mf->n; i++)
		if (!strcmp(mf->tids[i], tid))
			return (int)mf->tpl[i];
	return -1;
}

void sv_etl_manifest_done(etl_mf *mf)
{
	if (!mf)
		return;
	for (size_t i = 0; i < mf->n; i++)
		xmlFree(mf->tids[i]);
	free(mf->tids);
	free(mf->tpl);
	free(mf);
}

void sv_etl_manifest_free_all(etl_ctx *c)
{
	for (size_t i = 0; i < c->ntpls; i++) {
		for (size_t k = 0; k < c->tpls[i].n; k++)
			free(c->tpls[i].f[k].name);
		free(c->tpls[i].f);
	}
	free(c->tpls);
	for (size_t i = 0; i < c->nmaps; i++) {
		for (size_t k = 0; k < c->maps[i].n; k++)
			free(c->maps[i].names[k]);
		free(c->maps[i].names);
		free(c->maps[i].values);
		xmlFree(c->maps[i].name);
	}
	free(c->maps);
}
