/* SPDX-License-Identifier: MIT */
/* ETL importer, event decoding: processes, threads, images, CLR methods and modules,
 * volume names and the per-kind event counts; on_record dispatches each record. */
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

/* ---- processes, threads, images, CLR methods ---- */

static int on_process(etl_ctx *c, const etl_rec *r)
{
	unsigned P = c->ptr;
	const unsigned char *p = r->payload;
	size_t n = r->plen;
	if (r->version < 2 || n < P + 16)
		return 0;
	uint32_t pid = rd32(p + P);
	size_t sid = r->version >= 4 ? 2 * P + 20 : r->version == 3 ? 2 * P + 16 : P + 16;
	bool wow64 = r->version >= 4 && n >= 2 * P + 20 && (rd32(p + 2 * P + 16) & 2);
	if (sid + 4 > n) {
		sv_etl_warn(c, W_PAYLOAD, "short Process event for pid %" PRIu32, pid);
		return 0;
	}
	size_t name = sid + 4;
	if (rd32(p + sid) != 0) {
		if (sid + 2 * P + 2 > n) {
			sv_etl_warn(c, W_PAYLOAD, "short Process event for pid %" PRIu32, pid);
			return 0;
		}
		name = sid + 2 * P + 8 + 4 * (size_t)p[sid + 2 * P + 1];
	}
	if (name > n) {
		sv_etl_warn(c, W_PAYLOAD, "Process event for pid %" PRIu32 ": SID overruns the event", pid);
		return 0;
	}
	const unsigned char *nm = p + name;
	size_t nl = strnlen((const char *)nm, n - name);
	size_t cmd = name + nl + (nl < n - name);
	bool update = r->type == 2 || r->type == 4 || r->type == 39; /* End, DCEnd, Defunct */
	uint32_t last = sv_etl_list_get(&c->proc_by_pid, pid);
	if (update && last) {
		eproc *e = &c->procs[last - 1];
		if (e->image && e->image[0])
			return 0;
	} else {
		if (SV_ARRAY_RESERVE(c->procs, c->proccap, c->nprocs + 1))
			return SV_ENOMEM;
		last = (uint32_t)++c->nprocs;
		c->procs[last - 1] = (eproc){ .pid = pid, .ts = r->ts, .next = sv_etl_list_get(&c->proc_by_pid, pid) };
		int rc = sv_idmap_put(&c->proc_by_pid, pid, last);
		if (rc)
			return rc;
	}
	eproc *e = &c->procs[last - 1];
	free(e->image);
	free(e->cmdline);
	e->image = strndup((const char *)nm, nl);
	e->cmdline = sv_etl_dup_utf16(p + cmd, n - cmd, NULL);
	e->wow64 = wow64;
	return e->image && e->cmdline ? 0 : SV_ENOMEM;
}

static int on_thread(etl_ctx *c, const etl_rec *r)
{
	if (r->plen < 8)
		return 0;
	uint32_t pid = rd32(r->payload), tid = rd32(r->payload + 4);
	if (r->version == 0) {
		tid = rd32(r->payload);
		pid = rd32(r->payload + 4);
	}
	if (SV_ARRAY_RESERVE(c->threads, c->threadcap, c->nthreads + 1))
		return SV_ENOMEM;
	c->threads[c->nthreads] = (ethread){ tid, pid, r->ts, r->type == 1 || r->type == 3, sv_etl_list_get(&c->thread_by_tid, tid) };
	c->nthreads++;
	return sv_idmap_put(&c->thread_by_tid, tid, (uint32_t)c->nthreads);
}

static int on_image(etl_ctx *c, const etl_rec *r)
{
	unsigned P = c->ptr;
	const unsigned char *p = r->payload;
	size_t fname = r->version >= 2 ? 3 * (size_t)P + 32 : 2 * (size_t)P + 4;
	if (r->plen < fname)
		return 0;
	uint64_t base = rdptr(p, P), size = rdptr(p + P, P);
	uint32_t pid = rd32(p + 2 * P);
	uint64_t key = sv_hash_mix64(base) ^ pid;
	uint32_t head = sv_etl_list_get(&c->image_by_key, key);
	bool unload = r->group == 0x14 && r->type == 2, dcend = r->group == 0x14 && r->type == 4;
	for (uint32_t v = head, k = 0; (unload || dcend) && v && k < MAX_HISTORY; v = c->images[v - 1].next, k++) {
		eimage *im = &c->images[v - 1];
		if (im->pid != pid || im->base != base)
			continue;
		if (dcend) /* DCEnd adds only an image never seen */
			return 0;
		if (im->unload_ts == UINT64_MAX) {
			im->unload_ts = r->ts;
			return 0;
		}
	}
	if (unload)
		return 0;
	if (SV_ARRAY_RESERVE(c->images, c->imagecap, c->nimages + 1))
		return SV_ENOMEM;
	char *path = sv_etl_dup_utf16(p + fname, r->plen - fname, NULL);
	if (!path)
		return SV_ENOMEM;
	c->images[c->nimages++] = (eimage){ pid, base, size, r->ts, UINT64_MAX, path, head };
	return sv_idmap_put(&c->image_by_key, key, (uint32_t)c->nimages);
}

/* The module a JIT method belongs to, or NULL. */
const emodule *sv_etl_find_module(const etl_ctx *c, uint32_t pid, uint64_t id)
{
	uint32_t v = sv_etl_list_get(&c->module_by_key, sv_hash_mix64(id) ^ pid);
	for (int k = 0; v && k < MAX_HISTORY; v = c->modules[v - 1].next, k++)
		if (c->modules[v - 1].id == id && c->modules[v - 1].pid == pid)
			return &c->modules[v - 1];
	return NULL;
}

static int on_clr(etl_ctx *c, const etl_rec *r)
{
	const unsigned char *p = r->payload;
	size_t n = r->plen;
	bool method = r->id == 143 || (r->guid == G_CLR_RUNDOWN && r->id == 144);
	bool module = (r->guid == G_CLR && r->id == 152) || (r->guid == G_CLR_RUNDOWN && (r->id == 153 || r->id == 154));
	if (method && n >= 36) {
		size_t u1 = 0, u2 = 0;
		char *ns = sv_etl_dup_utf16(p + 36, n - 36, &u1);
		char *nm = ns ? sv_etl_dup_utf16(p + 36 + u1, n - 36 - u1, &u2) : NULL;
		char *sig = nm ? sv_etl_dup_utf16(p + 36 + u1 + u2, n - 36 - u1 - u2, NULL) : NULL;
		int rc = 0;
		if (!sig || SV_ARRAY_RESERVE(c->methods, c->methodcap, c->nmethods + 1)) {
			rc = SV_ENOMEM;
		} else {
			char *full = sv_etl_method_name(ns, nm, sig);
			if (!full)
				rc = SV_ENOMEM;
			else
				c->methods[c->nmethods++] = (emethod){ r->pid, rd64(p + 16), rd32(p + 24), rd64(p + 8), r->ts, full };
		}
		free(ns);
		free(nm);
		free(sig);
		return rc;
	}
	if (module && n >= 24) {
		uint64_t id = rd64(p);
		if (sv_etl_find_module(c, r->pid, id))
			return 0;
		if (SV_ARRAY_RESERVE(c->modules, c->modulecap, c->nmodules + 1))
			return SV_ENOMEM;
		char *path = sv_etl_dup_utf16(p + 24, n - 24, NULL);
		if (!path)
			return SV_ENOMEM;
		uint64_t key = sv_hash_mix64(id) ^ r->pid;
		c->modules[c->nmodules++] = (emodule){ r->pid, id, path, sv_etl_list_get(&c->module_by_key, key) };
		return sv_idmap_put(&c->module_by_key, key, (uint32_t)c->nmodules);
	}
	return 0;
}

static int on_volume(etl_ctx *c, const etl_rec *r)
{
	size_t u = 0;
	char *nt = sv_etl_dup_utf16(r->payload, r->plen, &u);
	char *dos = nt ? sv_etl_dup_utf16(r->payload + u, r->plen - u, NULL) : NULL;
	if (!dos || SV_ARRAY_RESERVE(c->vols, c->volcap, c->nvols + 1)) {
		free(nt);
		free(dos);
		return SV_ENOMEM;
	}
	if (!nt[0] || !dos[0]) {
		free(nt);
		free(dos);
		return 0;
	}
	c->vols[c->nvols++] = (evolume){ nt, dos };
	return 0;
}

static uint64_t meta_key(const unsigned char *guid, int id)
{
	return sv_hash_bytes((const char *)guid, 16) ^ ((uint64_t)(unsigned)id * 0x9E3779B97F4A7C15ULL);
}

static const emeta *find_meta(const etl_ctx *c, const unsigned char *guid, int id)
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

/* Names event id of the provider guid (the first name given wins). */
static int add_meta(etl_ctx *c, const unsigned char *guid, int id, const char *name)
{
	if (find_meta(c, guid, id))
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
	int rc = 0;
	char *prov = NULL;
	/* depth-first over the document, without recursion */
	for (xmlNode *x = xmlDocGetRootElement(doc); x && !rc;) {
		if (x->type == XML_ELEMENT_NODE && !prov && strcmp((const char *)x->name, "provider") == 0)
			prov = xattr(x, "name");
		if (x->type == XML_ELEMENT_NODE && prov && strcmp((const char *)x->name, "event") == 0) {
			char *v = xattr(x, "value"), *task = xattr(x, "task"), *op = xattr(x, "opcode"), *sym = xattr(x, "symbol");
			char *end = NULL;
			long id = v ? strtol(v, &end, 10) : -1;
			const char *t = task ? task : sym;
			if (v && end && !*end && id >= 0 && id <= 0xFFFF && t) {
				char name[200];
				task_opcode_name(name, sizeof(name), prov, t, op);
				rc = add_meta(c, guid, (int)id, name);
			}
			xmlFree(v), xmlFree(task), xmlFree(op), xmlFree(sym);
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
		rc = add_meta(c, guid, 65534, name);
	}
	xmlFree(prov);
	xmlFreeDoc(doc);
	return rc;
}

/* An EventSource's manifest event (id 65534), logged when a session enables it: an 8-byte
 * envelope (u8 Format 1 = XML, u8 MajorVersion, u8 MinorVersion, u8 Magic 0x5B,
 * u16 TotalChunks, u16 ChunkNumber), then the chunk. Chunks of one provider arrive in
 * order; the whole manifest names the provider's events. */
static int on_manifest(etl_ctx *c, const etl_rec *r)
{
	const unsigned char *p = r->payload;
	if (r->plen < 8 || p[0] != 1 || p[3] != 0x5B || find_meta(c, r->guid_bytes, 65534))
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
static int on_event_info(etl_ctx *c, const etl_rec *r)
{
	if (r->plen < 112) {
		sv_etl_warn(c, W_PAYLOAD, "a MetaData/EventInfo event of %zu bytes is too short for its TRACE_EVENT_INFO", r->plen);
		return 0;
	}
	const unsigned char *p = r->payload;
	int id = rd16(p + 32);
	if (find_meta(c, p, id))
		return 0;
	bool nomem = false;
	char *prov = tei_string(r, rd32(p + 52), &nomem), *task = tei_string(r, rd32(p + 68), &nomem),
	     *op = tei_string(r, rd32(p + 72), &nomem);
	int rc = nomem ? SV_ENOMEM : 0;
	if (!rc && prov && task) {
		char name[200];
		task_opcode_name(name, sizeof(name), prov, task, op);
		rc = add_meta(c, p, id, name);
	}
	free(prov);
	free(task);
	free(op);
	return rc;
}

static int count_kind(etl_ctx *c, const etl_rec *r, uint32_t *kind)
{
	uint64_t key;
	if (r->kind == REC_HOOK)
		key = 1ULL << 63 | (uint64_t)r->group << 8 | (uint64_t)r->type;
	else
		key = sv_hash_bytes((const char *)r->guid_bytes, 16) ^ ((uint64_t)r->id * 0x9E3779B97F4A7C15ULL) ^
		      (uint64_t)r->kind ^ (r->tl_event ? sv_hash_bytes(r->tl_event, strlen(r->tl_event)) : 0);
	key &= ~(uint64_t)0 >> 1 | (r->kind == REC_HOOK ? 1ULL << 63 : 0);
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
		const emeta *m = r->kind == REC_EVENT && r->guid < 0 ? find_meta(c, r->guid_bytes, r->id) : NULL;
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

/* A leaf frame text, interned: its index + 1. */
static int leaf_id(etl_ctx *c, const char *text, uint32_t *out)
{
	size_t n = strlen(text);
	uint64_t h = sv_hash_bytes(text, n);
	for (;; h++) {
		uint32_t i = sv_idmap_get(&c->leaf_index, h);
		if (i == SV_IDMAP_NONE)
			break;
		if (strcmp(c->leaves[i - 1], text) == 0) {
			*out = i;
			return 0;
		}
	}
	char *dup = strdup(text);
	if (!dup || SV_ARRAY_PUSH(c->leaves, c->nleaves, c->leafcap, dup)) {
		free(dup);
		return SV_ENOMEM;
	}
	*out = (uint32_t)c->nleaves;
	return sv_idmap_put(&c->leaf_index, h, *out);
}

/* The CLR's GC/AllocationTick (PerfView's "GC Heap Alloc" view): the bytes allocated since the
 * previous tick, under the allocated type (and LargeObject for the large object heap).
 * Payload by version: u32 AllocationAmount, u32 AllocationKind; v1 + u16 ClrInstanceID; v2 +
 * u64 AllocationAmount64, pointer TypeID, UTF-16 TypeName, u32 HeapIndex; v3 + pointer
 * Address; v4 + u64 ObjectSize. */
static int decode_alloc_tick(etl_ctx *c, const etl_rec *r, unsigned P, esample *s)
{
	const unsigned char *p = r->payload;
	size_t n = r->plen;
	uint32_t amount = rd32(p), kind = rd32(p + 4);
	s->metric = amount;
	char leaf[700] = "Type ?";
	size_t at = 10 + 8 + P;
	if (r->version >= 2 && n >= at) {
		uint64_t a64 = (uint64_t)rd32(p + 10) | (uint64_t)rd32(p + 14) << 32;
		s->metric = (double)a64;
		size_t used = 0;
		char *type = sv_etl_dup_utf16(p + at, n - at, &used);
		if (!type)
			return SV_ENOMEM;
		snprintf(leaf, sizeof(leaf), "%s%.600s", kind == 1 ? "LargeObject;Type " : "Type ", type[0] ? type : "?");
		free(type);
	} else if (kind == 1) {
		snprintf(leaf, sizeof(leaf), "LargeObject;Type ?");
	}
	return leaf_id(c, leaf, &s->leaf);
}

/* ---- per-kind decoders: the kinds with a natural metric or leaf frames (docs/etl-events.md) ---- */

/* CLR Exception/Start: UTF-16 ExceptionType, UTF-16 ExceptionMessage, ... */
static int decode_exception(etl_ctx *c, const etl_rec *r, unsigned P, esample *s)
{
	(void)P;
	char *type = sv_etl_dup_utf16(r->payload, r->plen, NULL);
	if (!type)
		return SV_ENOMEM;
	char leaf[700];
	snprintf(leaf, sizeof(leaf), "Exception %.600s", type[0] ? type : "?");
	free(type);
	return leaf_id(c, leaf, &s->leaf);
}

/* DiskIO Read/Write: u32 DiskNumber, IrpFlags, TransferSize, Reserved; u64 ByteOffset; ptr
 * FileObject, Irp; u64 HighResResponseTime; v3: u32 IssuingThreadId (whose the I/O is: the
 * record's own thread is whoever completed it). */
static int decode_disk_io(etl_ctx *c, const etl_rec *r, unsigned P, esample *s)
{
	const unsigned char *p = r->payload;
	s->metric = rd32(p + 8);
	if (c->view == V_DISK_TIME) /* HighResResponseTime: QPC ticks from issue to completion */
		s->metric = r->plen >= 24 + 2 * (size_t)P + 8 ? (double)rd64(p + 24 + 2 * P) * 1000.0 / c->freq : 0;
	s->file = rdptr(p + 24, P);
	/* the stack is its Init event's, logged on the issuing thread when the I/O began */
	uint64_t irp = rdptr(p + 24 + P, P);
	uint32_t init = sv_idmap_get(&c->disk_init, irp);
	if (init != SV_IDMAP_NONE && init) {
		s->other = init;
		s->lend = LEND_STACK;
		c->disk_inits++;
		int rc = sv_idmap_put(&c->disk_init, irp, 0);
		if (rc)
			return rc;
	}
	if (r->version >= 3 && r->plen >= 24 + 2 * (size_t)P + 12) {
		s->tid = rd32(p + 24 + 2 * P + 8);
		s->spid = 0;
	}
	return 0;
}

/* Memory HardFault: u64 InitialTime, ReadOffset; ptr VirtualAddress, FileObject; ... */
static int decode_hard_fault(etl_ctx *c, const etl_rec *r, unsigned P, esample *s)
{
	(void)c;
	s->file = rdptr(r->payload + 16 + P, P);
	return 0;
}

/* FileIO Read/Write: u64 Offset; ptr IrpPtr, FileObject, FileKey; u32 IssuingThreadId, IoSize,
 * IoFlags. The names (FileIO Name, FileCreate, FileRundown) are logged by the key the
 * record's FileKey holds. */
static int decode_file_io(etl_ctx *c, const etl_rec *r, unsigned P, esample *s)
{
	(void)c;
	const unsigned char *p = r->payload;
	s->file = rdptr(p + 8 + 2 * P, P);
	if (!s->file)
		s->file = rdptr(p + 8 + P, P);
	s->tid = rd32(p + 8 + 3 * P);
	s->spid = 0;
	s->metric = rd32(p + 8 + 3 * P + 4);
	return 0;
}

/* Memory VirtualAlloc / VirtualFree: ptr BaseAddress, RegionSize; u32 ProcessId, Flags. The
 * bytes committed count up and the bytes decommitted or released down, in the process the
 * memory belongs to, so a time range's net is what it kept (PerfView's Net VirtualAlloc). */
static int decode_virtual_alloc(etl_ctx *c, const etl_rec *r, unsigned P, esample *s)
{
	(void)c;
	const unsigned char *p = r->payload;
	double size = (double)rdptr(p + P, P);
	uint32_t pid = rd32(p + 2 * P), flags = rd32(p + 2 * P + 4);
	bool alloc = r->type == 98;
	bool counted = alloc ? (flags & 0x1000) != 0 : (flags & (0x4000 | 0x8000)) != 0; /* MEM_COMMIT; MEM_DECOMMIT, MEM_RELEASE */
	s->metric = !counted ? 0 : alloc ? size : -size;
	s->spid = pid + 1;
	return 0;
}

/* ---- the OS heap: live blocks by (process, address), so a free knows its allocation ---- */

static uint64_t heap_key(uint32_t pid, uint64_t addr)
{
	return (addr ^ (uint64_t)pid * 0x9E3779B97F4A7C15ULL) & ~(uint64_t)0 >> 1;
}

/* The live block at addr in process pid: its index + 1 in heap_blocks, 0 when none. */
static uint32_t heap_find(const etl_ctx *c, uint32_t pid, uint64_t addr, uint64_t *slot_key)
{
	for (uint64_t h = heap_key(pid, addr);; h = (h + 1) & ~(uint64_t)0 >> 1) {
		uint32_t i = sv_idmap_get(&c->heap_index, h);
		if (i == SV_IDMAP_NONE) {
			if (slot_key)
				*slot_key = h;
			return 0;
		}
		if (i && c->heap_blocks[i - 1].pid == pid && c->heap_blocks[i - 1].addr == addr) {
			if (slot_key)
				*slot_key = h;
			return i;
		}
	}
}

/* Heap Alloc, ReAlloc and Free update the live blocks (after the sample, if any, is made:
 * sample is its index + 1). A removed block leaves a tombstone (0) in the probe chain. */
static int heap_track(etl_ctx *c, const etl_rec *r, uint32_t sample)
{
	unsigned P = r->ptr;
	const unsigned char *p = r->payload;
	uint64_t addr, size, old = 0, h;
	bool has_old = r->type != 33, has_new = r->type != 36;
	if (r->type == 33) { /* HeapHandle, Size, Address, Source */
		if (r->plen < 3 * (size_t)P)
			return 0;
		size = rdptr(p + P, P), addr = rdptr(p + 2 * P, P);
	} else if (r->type == 34) { /* HeapHandle, NewAddress, OldAddress, NewSize, OldSize, Source */
		if (r->plen < 5 * (size_t)P)
			return 0;
		addr = rdptr(p + P, P), old = rdptr(p + 2 * P, P), size = rdptr(p + 3 * P, P);
	} else { /* Free: HeapHandle, Address, Source */
		if (r->plen < 2 * (size_t)P)
			return 0;
		old = rdptr(p + P, P), addr = size = 0;
	}
	if (has_old) {
		uint32_t i = heap_find(c, r->pid, old, &h);
		if (i) {
			int rc = sv_idmap_put(&c->heap_index, h, 0);
			if (rc || SV_ARRAY_PUSH(c->heap_free_slots, c->nheap_free_slots, c->heap_free_slotcap, i - 1))
				return rc ? rc : SV_ENOMEM;
		}
	}
	if (!has_new)
		return 0;
	uint32_t i = heap_find(c, r->pid, addr, &h);
	if (!i) {
		if (c->nheap_free_slots)
			i = c->heap_free_slots[--c->nheap_free_slots] + 1;
		else if (SV_ARRAY_RESERVE(c->heap_blocks, c->heap_blockcap, c->nheap_blocks + 1))
			return SV_ENOMEM;
		else
			i = (uint32_t)++c->nheap_blocks;
		int rc = sv_idmap_put(&c->heap_index, h, i);
		if (rc)
			return rc;
	}
	c->heap_blocks[i - 1] = (struct heap_block){ addr, size, r->pid, sample };
	return 0;
}

/* Heap Alloc: +Size. ReAlloc: +NewSize for the new block; in net-os-heap the old block's
 * bytes come off under its allocation (a second sample), else the sample is the change.
 * Free: −the block's size, in net-os-heap under its allocation's thread and stack. A free
 * of a block allocated before the trace is left out (1: no sample) and counted. */
static int decode_heap(etl_ctx *c, const etl_rec *r, unsigned Q, esample *s)
{
	const unsigned char *p = r->payload;
	if (r->type == 33) {
		s->metric = (double)rdptr(p + Q, Q);
		return 0;
	}
	uint64_t old = rdptr(p + (r->type == 34 ? 2 : 1) * Q, Q);
	uint32_t i = heap_find(c, r->pid, old, NULL);
	const struct heap_block *b = i ? &c->heap_blocks[i - 1] : NULL;
	if (r->type == 34) {
		double grown = (double)rdptr(p + 3 * Q, Q), shrunk = (double)rdptr(p + 4 * Q, Q);
		if (c->view != V_NET_HEAP) {
			s->metric = grown - shrunk;
			return 0;
		}
		s->metric = grown;
		if (b && b->sample)
			c->heap_extra = -(double)b->size, c->heap_extra_donor = b->sample;
		else
			c->heap_unmatched++;
		return 0;
	}
	if (!b) {
		c->heap_unmatched++;
		return 1;
	}
	s->metric = -(double)b->size;
	if (c->view == V_NET_HEAP && b->sample)
		s->other = b->sample, s->lend = LEND_ALL;
	return 0;
}

/* The next sample slot for an event record: its time, thread and process, no stack yet (the
 * caller counts it in once it is filled). */
static int new_event_sample(etl_ctx *c, const etl_rec *r, esample **out)
{
	if (c->nsamples >= SV_MAX_SAMPLES)
		return sv_etl_fail(c, SV_ELIMIT, c->bufs[r->buf].off, "more than %u events", SV_MAX_SAMPLES);
	if (SV_ARRAY_RESERVE(c->samples, c->samplecap, c->nsamples + 1))
		return SV_ENOMEM;
	esample *s = *out = &c->samples[c->nsamples];
	memset(s, 0, sizeof(*s));
	s->ts = r->ts;
	s->tid = r->tid;
	s->spid = r->pid != UINT32_MAX ? r->pid + 1 : 0;
	s->kid = s->uid = AS_NONE;
	return 0;
}

/* DiskIO ReadInit/WriteInit (opcodes 12, 13): ptr Irp (v3: u32 IssuingThreadId). Logged with a
 * stack when the I/O is issued; kept, unshown, to lend that stack to the Read or Write that
 * completes the same Irp (as PerfView's Disk I/O view). */
static int on_disk_init(etl_ctx *c, const etl_rec *r)
{
	unsigned P = c->ptr;
	if (r->plen < P)
		return 0;
	esample *s;
	int rc = new_event_sample(c, r, &s);
	if (rc)
		return rc;
	s->ekind = ES_CARRIER;
	s->next_ts = sv_etl_list_get(&c->by_ts, r->ts);
	c->nsamples++;
	rc = sv_idmap_put(&c->disk_init, rdptr(r->payload, P), (uint32_t)c->nsamples);
	return rc ? rc : sv_idmap_put(&c->by_ts, r->ts, (uint32_t)c->nsamples);
}

/* One row per event kind: which records (kernel hook group and opcode, or a manifest
 * provider's event id), the smallest payload (bytes + pointers of the trace's size), whether
 * the metric is bytes, and the decoder that sets the metric and leaf frames. Any other kind
 * counts 1 per event. */
typedef struct kind_decoder {
	int rec;      /* REC_HOOK or REC_EVENT */
	int provider; /* REC_HOOK: hook group; REC_EVENT: index into sv_etl_guids */
	int op;       /* REC_HOOK: opcode; REC_EVENT: event id */
	size_t min_bytes;
	unsigned min_ptrs;
	bool user;    /* REC_HOOK logged in user mode: pointers of the record's own size */
	bool bytes;
	int (*decode)(etl_ctx *c, const etl_rec *r, unsigned P, esample *s);
} kind_decoder;

static const kind_decoder decoders[] = {
	{ REC_EVENT, G_CLR, 10, 8, 0, false, true, decode_alloc_tick },           /* GC/AllocationTick */
	{ REC_EVENT, G_CLR, 80, 2, 0, false, false, decode_exception },          /* Exception/Start */
	{ REC_HOOK, 0x01, 10, 24, 1, false, true, decode_disk_io },              /* DiskIO/Read */
	{ REC_HOOK, 0x01, 11, 24, 1, false, true, decode_disk_io },              /* DiskIO/Write */
	{ REC_HOOK, 0x02, 32, 16, 2, false, false, decode_hard_fault },          /* Memory/HardFault */
	{ REC_HOOK, 0x02, 98, 8, 2, false, true, decode_virtual_alloc },         /* Memory/VirtualAlloc */
	{ REC_HOOK, 0x02, 99, 8, 2, false, true, decode_virtual_alloc },         /* Memory/VirtualFree */
	{ REC_HOOK, 0x04, 67, 16, 3, false, true, decode_file_io },              /* FileIO/Read */
	{ REC_HOOK, 0x04, 68, 16, 3, false, true, decode_file_io },              /* FileIO/Write */
	{ REC_HOOK, 0x10, 33, 0, 3, true, true, decode_heap },                  /* Heap/Alloc */
	{ REC_HOOK, 0x10, 34, 0, 5, true, true, decode_heap },                  /* Heap/ReAlloc */
	{ REC_HOOK, 0x10, 36, 0, 2, true, true, decode_heap },                  /* Heap/Free */
};

static const kind_decoder *find_decoder(const etl_rec *r)
{
	for (size_t i = 0; i < sizeof(decoders) / sizeof(decoders[0]); i++) {
		const kind_decoder *d = &decoders[i];
		if (d->rec == r->kind && (r->kind == REC_HOOK ? d->provider == r->group && d->op == r->type
							      : d->provider == r->guid && d->op == r->id))
			return d;
	}
	return NULL;
}

/* An event of the wanted kind becomes a sample; StackWalk events match it by time and thread
 * as they match CPU samples. */
static int on_wanted(etl_ctx *c, const etl_rec *r)
{
	esample *s;
	int rc = new_event_sample(c, r, &s);
	if (rc)
		return rc;
	s->metric = 1;
	const kind_decoder *d = find_decoder(r);
	/* kernel events: the trace's pointer size */
	unsigned P = r->kind == REC_HOOK && !(d && d->user) ? c->ptr : r->ptr;
	if (d) {
		c->want_bytes = d->bytes;
		if (r->plen >= d->min_bytes + (size_t)d->min_ptrs * P)
			rc = d->decode(c, r, P, s);
		else
			sv_etl_warn(c, W_PAYLOAD, "a %s event of %zu bytes is too short for its payload; counted without it",
				    c->want, r->plen);
	}
	if (rc)
		return rc > 0 ? 0 : rc; /* > 0: the decoder leaves the event out */
	s->next_ts = sv_etl_list_get(&c->by_ts, r->ts);
	c->nsamples++;
	c->events_kept++;
	if (r->kind == REC_EVENT && (r->guid == G_CLR || r->guid == G_CLR_RUNDOWN) &&
	    (rc = sv_idmap_put(&c->clr_last, r->tid, (uint32_t)c->nsamples)))
		return rc;
	if ((rc = sv_idmap_put(&c->by_ts, r->ts, (uint32_t)c->nsamples)) || !c->heap_extra)
		return rc;
	/* a ReAlloc's old block, off under its allocation (not matched to a stack of its own) */
	if ((rc = new_event_sample(c, r, &s)))
		return rc;
	s->metric = c->heap_extra;
	s->other = c->heap_extra_donor;
	s->lend = LEND_ALL;
	c->heap_extra = 0;
	c->nsamples++;
	return 0;
}

/* FileIO Name / FileCreate / FileDelete / FileRundown: ptr FileObject, UTF-16 FileName. */
static int on_file_name(etl_ctx *c, const etl_rec *r)
{
	unsigned P = c->ptr;
	if (r->plen <= P)
		return 0;
	uint64_t obj = rdptr(r->payload, P);
	size_t used;
	char *name = sv_etl_dup_utf16(r->payload + P, r->plen - P, &used);
	if (!name)
		return SV_ENOMEM;
	uint32_t i = sv_idmap_get(&c->fname_index, obj);
	if (i != SV_IDMAP_NONE) {
		free(c->fnames[i - 1]);
		c->fnames[i - 1] = name;
		return 0;
	}
	if (SV_ARRAY_PUSH(c->fnames, c->nfnames, c->fnamecap, name)) {
		free(name);
		return SV_ENOMEM;
	}
	return sv_idmap_put(&c->fname_index, obj, (uint32_t)c->nfnames);
}

/* ClrStack/Walk follows the CLR event it belongs to on the same thread: u16 ClrInstanceID,
 * u8, u8, u32 FrameCount, then the frames' addresses (leaf first). */
static int on_clr_stack(etl_ctx *c, const etl_rec *r)
{
	uint32_t i = sv_idmap_get(&c->clr_last, r->tid);
	if (i == SV_IDMAP_NONE || i == 0 || r->plen < 8)
		return 0;
	esample *s = &c->samples[i - 1];
	if (sv_idmap_put(&c->clr_last, r->tid, 0))
		return SV_ENOMEM;
	uint32_t n = rd32(r->payload + 4);
	unsigned P = r->ptr == 4 ? 4 : 8;
	if (s->uid != AS_NONE || n == 0 || n > (r->plen - 8) / P || n > SV_MAX_STACK_DEPTH)
		return 0;
	s->kid = AS_EMPTY;
	c->clr_stacks++;
	return sv_etl_intern_addrs(c, &s->uid, r->payload + 8, n, P);
}

/* Kinds whose metadata came after their first event (a manifest in chunks names its own
 * first chunk's kind) take the name it gives; the name they had is kept for --event. */
int sv_etl_name_late_kinds(etl_ctx *c)
{
	for (size_t k = 0; k < c->nkinds; k++) {
		ekind *e = &c->kinds[k];
		const emeta *m = e->id >= 0 ? find_meta(c, e->guid, e->id) : NULL;
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

int sv_etl_on_record(etl_ctx *c, const etl_rec *r)
{
	uint32_t kind = 0;
	int rc = r->kind == REC_EVENT && r->id == 65534 && r->guid < 0 ? on_manifest(c, r) : 0;
	if (!rc)
		rc = count_kind(c, r, &kind);
	if (rc)
		return rc;
	if (c->want_disk && r->kind == REC_HOOK && r->group == 0x01 && (r->type == 12 || r->type == 13) &&
	    (rc = on_disk_init(c, r)))
		return rc;
	const etl_view *v = c->view >= 0 ? &sv_etl_views[c->view] : NULL;
	bool in_view = v && r->kind == REC_HOOK && sv_etl_view_has(v, r->group, r->type);
	size_t before = c->nsamples;
	if (c->want && ((long)kind == c->want_kind || in_view) && (rc = on_wanted(c, r)))
		return rc;
	if (c->want_heap && r->kind == REC_HOOK && r->group == 0x10 && (r->type == 33 || r->type == 34 || r->type == 36) &&
	    (rc = heap_track(c, r, c->nsamples > before ? (uint32_t)before + 1 : 0)))
		return rc;
	if (c->want && r->kind == REC_EVENT && r->guid == G_CLR && r->id == 82 && (rc = on_clr_stack(c, r)))
		return rc;
	if (c->want && r->kind == REC_HOOK && r->group == 0x04 &&
	    (r->type == 0 || r->type == 32 || r->type == 35 || r->type == 36) && (rc = on_file_name(c, r)))
		return rc;
	if (r->kind == REC_HOOK) {
		switch (r->group) {
		case 0x0F:
			if (r->type == 46)
				return !c->want ? sv_etl_on_sample(c, r) : 0;
			if ((r->type == 72 || r->type == 73) && r->plen >= 8 && rd32(r->payload) == 0 && rd32(r->payload + 4))
				c->interval = rd32(r->payload + 4);
			return 0;
		case 0x18:
			return sv_etl_on_stackwalk(c, r);
		case 0x03:
			if (r->type == 10)
				return on_image(c, r);
			if (r->type == 1 || r->type == 2 || r->type == 3 || r->type == 4 || r->type == 39)
				return on_process(c, r);
			return 0;
		case 0x05:
			if (c->tt_on && (r->type == 36 || r->type == 50))
				return sv_etl_on_switch(c, r);
			return r->type >= 1 && r->type <= 4 ? on_thread(c, r) : 0;
		case 0x14:
			return r->type >= 2 && r->type <= 4 ? on_image(c, r) : 0;
		default:
			return 0;
		}
	}
	if (r->kind == REC_EVENT && (r->guid == G_CLR || r->guid == G_CLR_RUNDOWN))
		return on_clr(c, r);
	if (r->kind == REC_CLASSIC && r->guid == G_SYSCONFIGEX && r->id == 35)
		return on_volume(c, r);
	if (r->kind == REC_CLASSIC && r->guid == G_METADATA && r->id == 32)
		return on_event_info(c, r);
	if (r->kind == REC_CLASSIC && r->guid == G_IMAGEID && r->id == 36)
		return sv_etl_on_rsds(c, r);
	if (r->kind == REC_CLASSIC && r->guid == G_IMAGEID && r->id == 0)
		return sv_etl_on_imageid(c, r);
	return 0;
}
