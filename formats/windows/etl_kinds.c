/* SPDX-License-Identifier: MIT */
/* ETL importer, event kinds: their names from the trace's own metadata (TraceLogging
 * manifests, EventInfo records) or the known providers', and each kind's count. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include "etl_int.h"
#include "sv/array.h"
#include "sv/idmap.h"
#include "etl_int.h"

static uint64_t meta_key(const unsigned char *guid, int id)
{
	return sv_hash_bytes((const char *)guid, 16) ^ ((uint64_t)(unsigned)id * 0x9E3779B97F4A7C15ULL);
}

const emeta *sv_etl_find_meta(const etl_ctx *c, const unsigned char *guid, int id)
{
	for (uint64_t h = meta_key(guid, id);; h++) {
		uint32_t i = sv_idmap_get(&c->meta_index, h);
		if (i == SV_IDMAP_NONE)
			return NULL;
		const emeta *m = &c->metas[i - 1];
		if (m->id == id && memcmp(m->guid, guid, 16) == 0)
			return m;
	}
}

/* Names event id of the provider guid, its fields described by template tpl (-1: none); the
 * first name given wins. */
static int add_meta(etl_ctx *c, const unsigned char *guid, int id, const char *name, int tpl)
{
	if (sv_etl_find_meta(c, guid, id))
		return 0;
	char *dup = strdup(name);
	if (!dup || SV_ARRAY_RESERVE(c->metas, c->metacap, c->nmetas + 1)) {
		free(dup);
		return SV_ENOMEM;
	}
	emeta *m = &c->metas[c->nmetas++];
	memcpy(m->guid, guid, 16);
	m->id = id;
	m->name = dup;
	m->tpl = tpl;
	uint64_t h = meta_key(guid, id);
	while (sv_idmap_get(&c->meta_index, h) != SV_IDMAP_NONE)
		h++;
	return sv_idmap_put(&c->meta_index, h, (uint32_t)c->nmetas);
}

/* Provider/Task[/Opcode] as TraceEvent names a manifest event: the "win:" prefix of the
 * standard opcodes dropped, win:Info (or no opcode) left out. */
static void task_opcode_name(char *buf, size_t cap, const char *prov, const char *task, const char *op)
{
	const char *o = op && strncmp(op, "win:", 4) == 0 ? op + 4 : op;
	if (o && *o && strcmp(o, "Info") != 0)
		snprintf(buf, cap, "%s/%s/%s", prov, task, o);
	else
		snprintf(buf, cap, "%s/%s", prov, task);
}

/* The attribute name of an element, or NULL (the caller frees it with xmlFree). */
static char *xattr(xmlNode *n, const char *name)
{
	return (char *)xmlGetProp(n, (const xmlChar *)name);
}

/* Names the events of an EventSource manifest (UTF-8 XML): <provider name=...> and each
 * <event value=ID task=TASK opcode=OPCODE> (an event without a task by its symbol); the
 * manifest event itself is Provider/ManifestData. */
static int name_manifest(etl_ctx *c, const unsigned char *guid, const unsigned char *xml, size_t n)
{
	if (n > INT_MAX)
		return 0;
	xmlDoc *doc = xmlReadMemory((const char *)xml, (int)n, NULL, NULL,
				    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		sv_etl_warn(c, W_PAYLOAD, "an EventSource manifest (ManifestData event) is not well-formed XML");
		return 0;
	}
	char *prov = NULL;
	etl_mf *mf = NULL;
	int rc = sv_etl_manifest_read(c, guid, xmlDocGetRootElement(doc), &mf);
	/* depth-first over the document, without recursion */
	for (xmlNode *x = xmlDocGetRootElement(doc); x && !rc;) {
		if (x->type == XML_ELEMENT_NODE && !prov && strcmp((const char *)x->name, "provider") == 0)
			prov = xattr(x, "name");
		if (x->type == XML_ELEMENT_NODE && prov && strcmp((const char *)x->name, "event") == 0) {
			char *v = xattr(x, "value"), *task = xattr(x, "task"), *op = xattr(x, "opcode"), *sym = xattr(x, "symbol"),
			     *tid = xattr(x, "template");
			char *end = NULL;
			long id = v ? strtol(v, &end, 10) : -1;
			const char *t = task ? task : sym;
			if (v && end && !*end && id >= 0 && id <= 0xFFFF && t) {
				char name[200];
				task_opcode_name(name, sizeof(name), prov, t, op);
				rc = add_meta(c, guid, (int)id, name, sv_etl_manifest_template(mf, tid));
			}
			xmlFree(v), xmlFree(task), xmlFree(op), xmlFree(sym), xmlFree(tid);
		}
		if (x->children && x->type == XML_ELEMENT_NODE) {
			x = x->children;
			continue;
		}
		while (x && !x->next)
			x = x->parent && x->parent->type == XML_ELEMENT_NODE ? x->parent : NULL;
		if (x)
			x = x->next;
	}
	if (!rc && prov) {
		char name[200];
		snprintf(name, sizeof(name), "%s/ManifestData", prov);
		rc = add_meta(c, guid, 65534, name, -1);
	}
	sv_etl_manifest_done(mf);
	xmlFree(prov);
	xmlFreeDoc(doc);
	return rc;
}

/* An EventSource's manifest event (id 65534), logged when a session enables it: an 8-byte
 * envelope (u8 Format 1 = XML, u8 MajorVersion, u8 MinorVersion, u8 Magic 0x5B,
 * u16 TotalChunks, u16 ChunkNumber), then the chunk. Chunks of one provider arrive in
 * order; the whole manifest names the provider's events. */
int sv_etl_on_manifest(etl_ctx *c, const etl_rec *r)
{
	const unsigned char *p = r->payload;
	if (r->plen < 8 || p[0] != 1 || p[3] != 0x5B || sv_etl_find_meta(c, r->guid_bytes, 65534))
		return 0;
	unsigned total = rd16(p + 4), chunk = rd16(p + 6);
	if (total == 1 && chunk == 0)
		return name_manifest(c, r->guid_bytes, p + 8, r->plen - 8);
	if (chunk >= total)
		return 0;
	if (chunk == 0) {
		c->man_len = 0;
		memcpy(c->man_guid, r->guid_bytes, 16);
	} else if (chunk != c->man_next || memcmp(c->man_guid, r->guid_bytes, 16) != 0)
		return 0; /* out of order: the provider stays unnamed */
	if (c->man_len + (r->plen - 8) > (64u << 20)) {
		c->man_next = 0;
		return 0;
	}
	if (SV_ARRAY_RESERVE(c->man_buf, c->man_cap, c->man_len + (r->plen - 8)))
		return SV_ENOMEM;
	memcpy(c->man_buf + c->man_len, p + 8, r->plen - 8);
	c->man_len += r->plen - 8;
	c->man_next = chunk + 1;
	if (chunk + 1 < total)
		return 0;
	c->man_next = 0;
	return name_manifest(c, r->guid_bytes, c->man_buf, c->man_len);
}

/* A UTF-16 string of a TRACE_EVENT_INFO at offset off (0: none), or NULL. */
static char *tei_string(const etl_rec *r, uint32_t off, bool *nomem)
{
	if (off < 112 || off >= r->plen)
		return NULL;
	char *t = sv_etl_dup_utf16(r->payload + off, r->plen - off, NULL);
	if (!t)
		*nomem = true;
	else if (!*t) {
		free(t);
		t = NULL;
	}
	return t;
}

/* KernelTraceControl/MetaData/EventInfo: the TRACE_EVENT_INFO (TDH) of a manifest event the
 * merge found registered, logged before the first such event: provider GUID at 0, the event
 * descriptor at 32 (u16 Id, ...), then u32 offsets of the provider name (52), task name (68)
 * and opcode name (72). Kinds already named by a table of ours (the CLR's) keep their names. */
int sv_etl_on_event_info(etl_ctx *c, const etl_rec *r)
{
	if (r->plen < 112) {
		sv_etl_warn(c, W_PAYLOAD, "a MetaData/EventInfo event of %zu bytes is too short for its TRACE_EVENT_INFO", r->plen);
		return 0;
	}
	const unsigned char *p = r->payload;
	int id = rd16(p + 32);
	if (sv_etl_find_meta(c, p, id))
		return 0;
	bool nomem = false;
	char *prov = tei_string(r, rd32(p + 52), &nomem), *task = tei_string(r, rd32(p + 68), &nomem),
	     *op = tei_string(r, rd32(p + 72), &nomem);
	int rc = nomem ? SV_ENOMEM : 0, tpl = -1;
	if (!rc && prov && task && !(rc = sv_etl_tei_template(c, p, r->plen, &tpl))) {
		char name[200];
		task_opcode_name(name, sizeof(name), prov, task, op);
		rc = add_meta(c, p, id, name, tpl);
	}
	free(prov);
	free(task);
	free(op);
	return rc;
}

int sv_etl_count_kind(etl_ctx *c, const etl_rec *r, uint32_t *kind)
{
	uint64_t key;
	/* three key spaces: kernel hooks (top bit), a known provider's events (the next bit: its
	 * index, no hashing), the others (hashed) */
	if (r->kind == REC_HOOK)
		key = 1ULL << 63 | (uint64_t)r->group << 8 | (uint64_t)r->type;
	else if (r->guid >= 0 && !r->tl_event)
		key = 1ULL << 62 | (uint64_t)r->guid << 24 | (uint64_t)(uint16_t)r->id << 8 | (uint64_t)r->kind;
	else
		key = (sv_hash_bytes((const char *)r->guid_bytes, 16) ^ ((uint64_t)r->id * 0x9E3779B97F4A7C15ULL) ^
		       (uint64_t)r->kind ^ (r->tl_event ? sv_hash_bytes(r->tl_event, strlen(r->tl_event)) : 0)) &
		      (~(uint64_t)0 >> 2);
	uint32_t k = sv_idmap_get(&c->kind_index, key);
	if (k != SV_IDMAP_NONE) {
		c->kinds[k].count++;
		*kind = k;
		return 0;
	}
	char name[160];
	bool unnamed = false;
	if (r->kind == REC_HOOK) {
		const char *g = sv_etl_group_name(r->group), *e = sv_etl_hook_event_name(r->group, r->type);
		char gb[16], eb[24];
		if (!g)
			snprintf(gb, sizeof(gb), "Group(%d)", r->group), g = gb;
		if (!e)
			snprintf(eb, sizeof(eb), "Opcode(%d)", r->type), e = eb;
		if (r->group == 0x03 && r->type == 10) /* Image Load is logged under the Process group */
			g = "Image", e = "Load";
		if (r->group == 0x00 && r->type == 0) /* the header: an opcode-0 (Info) event */
			snprintf(name, sizeof(name), "Windows Kernel/%s", g);
		else if ((r->group == 0x0B && r->type == 25) || (r->group == 0x14 && r->type == 33))
			/* decoded by TraceEvent's MSNT_SystemTrace templates, and named after them */
			snprintf(name, sizeof(name), "MSNT_SystemTrace/%s/%s", g, r->group == 0x0B ? "Platform" : "KernelBase");
		else
			snprintf(name, sizeof(name), "Windows Kernel/%s/%s", g, e);
	} else {
		char gb[40];
		const char *g = r->guid >= 0 ? sv_etl_guids[r->guid].name : NULL;
		if (!g) {
			const unsigned char *b = r->guid_bytes;
			snprintf(gb, sizeof(gb), "%08" PRIx32 "-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", rd32(b), rd16(b + 4),
				 rd16(b + 6), b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
			g = gb;
		}
		const char *e = r->kind == REC_EVENT ? sv_etl_manifest_event_name(g, r->id) : sv_etl_trace_event_name(g, r->id);
		const emeta *m = r->kind == REC_EVENT && r->guid < 0 ? sv_etl_find_meta(c, r->guid_bytes, r->id) : NULL;
		unnamed = r->kind == REC_EVENT && r->guid < 0 && !r->tl_event && !m;
		if (r->kind == REC_EVENT && r->tl_event) /* TraceLogging: provider and event named in the record */
			snprintf(name, sizeof(name), "%s/%s", r->tl_provider ? r->tl_provider : g, r->tl_event);
		else if (m)
			snprintf(name, sizeof(name), "%s", m->name);
		else if (e)
			snprintf(name, sizeof(name), "%s/%s", g, e);
		else if (r->kind != REC_EVENT && r->id == 0 && sv_etl_trace_event_name(g, 32))
			snprintf(name, sizeof(name), "%s", g); /* a known provider's opcode-0 (Info) event */
		else
			snprintf(name, sizeof(name), "%s/%s(%d)", g, r->kind == REC_EVENT ? "Event" : "Opcode", r->id);
	}
	if (SV_ARRAY_RESERVE(c->kinds, c->kindcap, c->nkinds + 1))
		return SV_ENOMEM;
	char *dup = strdup(name);
	if (!dup)
		return SV_ENOMEM;
	c->kinds[c->nkinds] = (ekind){ key, dup, 1, NULL, { 0 }, -1 };
	if (unnamed) { /* a manifest event nothing names yet: named later if its metadata comes */
		memcpy(c->kinds[c->nkinds].guid, r->guid_bytes, 16);
		c->kinds[c->nkinds].id = r->id;
	}
	if (c->want && c->want_kind < 0 && strcmp(dup, c->want) == 0)
		c->want_kind = (long)c->nkinds;
	*kind = (uint32_t)c->nkinds;
	return sv_idmap_put(&c->kind_index, key, (uint32_t)c->nkinds++);
}

/* Kinds whose metadata came after their first event (a manifest in chunks names its own
 * first chunk's kind) take the name it gives; the name they had is kept for --event. */
int sv_etl_name_late_kinds(etl_ctx *c)
{
	for (size_t k = 0; k < c->nkinds; k++) {
		ekind *e = &c->kinds[k];
		const emeta *m = e->id >= 0 ? sv_etl_find_meta(c, e->guid, e->id) : NULL;
		if (!m)
			continue;
		char *dup = strdup(m->name);
		if (!dup)
			return SV_ENOMEM;
		e->id_name = e->name;
		e->name = dup;
	}
	return 0;
}
