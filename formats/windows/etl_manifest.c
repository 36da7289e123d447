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

/* A bit map's names from the lowest value up (insertion: maps are short). */
static void sort_bits(emap *e)
{
	for (size_t i = 1; e->bits && i < e->n; i++)
		for (size_t k = i; k > 0 && e->values[k - 1] > e->values[k]; k--) {
			uint64_t tv = e->values[k];
			char *tn = e->names[k];
			e->values[k] = e->values[k - 1], e->names[k] = e->names[k - 1];
			e->values[k - 1] = tv, e->names[k - 1] = tn;
		}
}

/* One <valueMap>/<bitMap> into c->maps. */
static int read_map(etl_ctx *c, const unsigned char *guid, xmlNode *m, const strtab *st)
{
	if (SV_ARRAY_RESERVE(c->maps, c->mapcap, c->nmaps + 1))
		return SV_ENOMEM;
	emap *e = &c->maps[c->nmaps];
	memset(e, 0, sizeof(*e));
	memcpy(e->guid, guid, 16);
	e->bits = is_el(m, "bitMap");
	char *nm = prop(m, "name");
	e->name = nm ? strdup(nm) : NULL;
	xmlFree(nm);
	if (!e->name)
		return nm ? SV_ENOMEM : 0;
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
	sort_bits(e);
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
static int read_template(etl_ctx *c, const unsigned char *guid, xmlNode *t, size_t maps_from)
{
	if (SV_ARRAY_RESERVE(c->tpls, c->tplcap, c->ntpls + 1))
		return SV_ENOMEM;
	etpl *tp = &c->tpls[c->ntpls++];
	memset(tp, 0, sizeof(*tp));
	memcpy(tp->guid, guid, 16);
	size_t cap = 0;
	for (xmlNode *x = t->children; x && !tp->partial; x = x->next) {
		if (!is_el(x, "data"))
			continue;
		char *name = prop(x, "name"), *in = prop(x, "inType"), *out = prop(x, "outType"), *map = prop(x, "map"),
		     *count = prop(x, "count"), *len = prop(x, "length");
		uint8_t it = in_type(in);
		int rc = 0, from = -1;
		for (size_t k = 0; len && k < tp->n; k++) /* a binary sized by a field before it */
			if (!strcmp(tp->f[k].name, len))
				from = (int)k;
		if (!name || !it || (it == 14 && from < 0) || count || (len && (it != 14 || from < 0))) {
			tp->partial = true;
		} else if (SV_ARRAY_RESERVE(tp->f, cap, tp->n + 1)) {
			rc = SV_ENOMEM;
		} else {
			emfield *f = &tp->f[tp->n];
			f->name = strdup(name);
			f->in = it;
			f->out = out_type(out);
			f->map = find_map(c, maps_from, map);
			f->map_name = NULL;
			f->len_from = from;
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

int sv_etl_manifest_read(etl_ctx *c, const unsigned char *guid, xmlNode *root, etl_mf **out)
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
			rc = read_map(c, guid, x, &st);
	for (xmlNode *x = root; x && !rc; x = next_el(x)) {
		if (!is_el(x, "template"))
			continue;
		char *tid = prop(x, "tid");
		if (!tid)
			continue;
		if (SV_ARRAY_RESERVE(mf->tids, mf->cap, mf->n + 1) || SV_ARRAY_RESERVE(mf->tpl, mf->tplcap, mf->n + 1) ||
		    (rc = read_template(c, guid, x, maps_from))) {
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
		for (size_t k = 0; k < c->tpls[i].n; k++) {
			free(c->tpls[i].f[k].name);
			free(c->tpls[i].f[k].map_name);
		}
		free(c->tpls[i].f);
	}
	free(c->tpls);
	for (size_t i = 0; i < c->nmaps; i++) {
		for (size_t k = 0; k < c->maps[i].n; k++)
			free(c->maps[i].names[k]);
		free(c->maps[i].names);
		free(c->maps[i].values);
		free(c->maps[i].name);
	}
	free(c->maps);
}

/* ---- TDH: a TRACE_EVENT_INFO's properties and EVENT_MAP_INFO maps (KernelTraceControl) ---- */

/* A UTF-16 string at offset off of p (n bytes; 0: none), or NULL. */
static char *tei_str(const unsigned char *p, size_t n, uint32_t off, size_t head)
{
	if (off < head || off >= n)
		return NULL;
	return sv_etl_dup_utf16(p + off, n - off, NULL);
}

int sv_etl_tei_template(etl_ctx *c, const unsigned char *p, size_t n, int *tpl)
{
	*tpl = -1;
	if (n < 112)
		return 0;
	uint32_t count = rd32(p + 100), top = rd32(p + 104);
	if (!top || top > count || count > (n - 112) / 24)
		return 0;
	if (SV_ARRAY_RESERVE(c->tpls, c->tplcap, c->ntpls + 1))
		return SV_ENOMEM;
	etpl *tp = &c->tpls[c->ntpls];
	memset(tp, 0, sizeof(*tp));
	memcpy(tp->guid, p, 16);
	size_t cap = 0;
	int rc = 0;
	for (uint32_t i = 0; i < top && !tp->partial && !rc; i++) {
		const unsigned char *q = p + 112 + 24 * (size_t)i;
		uint32_t flags = rd32(q);
		unsigned in = rd16(q + 8), out = rd16(q + 10), cnt = rd16(q + 16), len = rd16(q + 18);
		/* a struct, a size or count another property gives, an array, a fixed-length
		 * string, a binary, a custom schema: decoding stops before it (a number's length
		 * is its size) */
		bool sized = (flags & 0x2) && in == 14 && len < i; /* a binary sized by a property before it */
		if ((flags & (0x1 | 0x4 | 0x8 | 0x80)) || ((flags & 0x2) && !sized) || cnt > 1 || (len && (in == 1 || in == 2)) ||
		    (in == 14 && !sized) || !in || in > 21) {
			tp->partial = true;
			break;
		}
		char *name = tei_str(p, n, rd32(q + 4), 112);
		if (!name) {
			tp->partial = true;
			break;
		}
		char *map = tei_str(p, n, rd32(q + 12), 112);
		if (SV_ARRAY_RESERVE(tp->f, cap, tp->n + 1)) {
			free(name), free(map);
			rc = SV_ENOMEM;
			break;
		}
		/* TDH's out-types that change a number's text: the hex ones (TraceLogging's 4) */
		uint8_t o = out >= 16 && out <= 19 ? 4 : out == 25 ? 25 : 0;
		tp->f[tp->n++] = (emfield){ name, (uint8_t)in, o, -1, map && *map ? map : NULL, sized ? (int)len : -1 };
		if (map && !*map)
			free(map);
	}
	if (rc) {
		for (size_t k = 0; k < tp->n; k++)
			free(tp->f[k].name), free(tp->f[k].map_name);
		free(tp->f);
		return rc;
	}
	if (!tp->n && !tp->partial) {
		free(tp->f);
		return 0;
	}
	*tpl = (int)c->ntpls++;
	return 0;
}

int sv_etl_on_event_map_info(etl_ctx *c, const etl_rec *r)
{
	/* the provider's GUID, then EVENT_MAP_INFO: NameOffset, Flag, EntryCount, the value
	 * type, then (OutputOffset, Value) entries; offsets from the EVENT_MAP_INFO */
	const unsigned char *p = r->payload;
	size_t n = r->plen;
	if (n < 32)
		return 0;
	const unsigned char *m = p + 16;
	size_t mn = n - 16;
	uint32_t flag = rd32(m + 4), count = rd32(m + 8);
	bool bits = flag & (0x2 | 0x10);
	if (!(flag & (0x1 | 0x2 | 0x8 | 0x10)) || count > (mn - 16) / 8)
		return 0;
	char *name = tei_str(m, mn, rd32(m), 16);
	if (!name)
		return 0;
	for (size_t i = 0; i < c->nmaps; i++) /* the listing's second pass meets it again */
		if (!memcmp(c->maps[i].guid, p, 16) && !strcmp(c->maps[i].name, name)) {
			free(name);
			return 0;
		}
	if (SV_ARRAY_RESERVE(c->maps, c->mapcap, c->nmaps + 1)) {
		free(name);
		return SV_ENOMEM;
	}
	emap *e = &c->maps[c->nmaps++];
	memset(e, 0, sizeof(*e));
	memcpy(e->guid, p, 16);
	e->name = name;
	e->bits = bits;
	size_t vcap = 0, ncap = 0;
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *q = m + 16 + 8 * (size_t)i;
		char *t = tei_str(m, mn, rd32(q), 16);
		if (!t)
			continue;
		size_t l = strlen(t);
		while (l && t[l - 1] == ' ') /* TDH's names often end in a space */
			t[--l] = '\0';
		if (SV_ARRAY_RESERVE(e->values, vcap, e->n + 1) || SV_ARRAY_RESERVE(e->names, ncap, e->n + 1)) {
			free(t);
			return SV_ENOMEM;
		}
		e->values[e->n] = rd32(q + 4), e->names[e->n++] = t;
	}
	sort_bits(e);
	return 0;
}

long sv_etl_field_map(const etl_ctx *c, const etpl *t, const emfield *f)
{
	if (f->map >= 0 || !f->map_name)
		return f->map;
	for (size_t i = 0; i < c->nmaps; i++)
		if (!memcmp(c->maps[i].guid, t->guid, 16) && !strcmp(c->maps[i].name, f->map_name))
			return (long)i;
	return -1;
}
