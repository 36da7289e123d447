/* SPDX-License-Identifier: MIT */
/* ETL importer, event decoding: processes, threads, images, CLR methods and modules,
 * volume names and the per-kind event counts; on_record dispatches each record. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
			/* Namespace.Name(args): the arguments are what the signature has in parentheses. */
			const char *open = strchr(sig, '('), *close = strrchr(sig, ')');
			size_t al = open && close && close > open ? (size_t)(close - open - 1) : 0;
			size_t len = strlen(ns) + strlen(nm) + al + 4;
			char *full = malloc(len);
			if (!full) {
				rc = SV_ENOMEM;
			} else {
				snprintf(full, len, "%s%s%s(%.*s)", ns, ns[0] ? "." : "", nm, (int)al, open ? open + 1 : "");
				c->methods[c->nmethods++] = (emethod){ r->pid, rd64(p + 16), rd32(p + 24), rd64(p + 8), r->ts, full };
			}
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

static int count_kind(etl_ctx *c, const etl_rec *r, uint32_t *kind)
{
	uint64_t key;
	if (r->kind == REC_HOOK)
		key = 1ULL << 63 | (uint64_t)r->group << 8 | (uint64_t)r->type;
	else
		key = sv_hash_bytes((const char *)r->guid_bytes, 16) ^ ((uint64_t)r->id * 0x9E3779B97F4A7C15ULL) ^
		      (uint64_t)r->kind;
	key &= ~(uint64_t)0 >> 1 | (r->kind == REC_HOOK ? 1ULL << 63 : 0);
	uint32_t k = sv_idmap_get(&c->kind_index, key);
	if (k != SV_IDMAP_NONE) {
		c->kinds[k].count++;
		*kind = k;
		return 0;
	}
	char name[160];
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
		if (e)
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
	c->kinds[c->nkinds] = (ekind){ key, dup, 1 };
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
static int decode_alloc_tick(etl_ctx *c, const etl_rec *r, esample *s)
{
	const unsigned char *p = r->payload;
	size_t n = r->plen;
	if (n < 8)
		return 0;
	uint32_t amount = rd32(p), kind = rd32(p + 4);
	s->metric = amount;
	char leaf[700] = "Type ?";
	size_t at = 10 + 8 + r->ptr;
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

/* An event of the wanted kind becomes a sample; StackWalk events match it by time and thread
 * as they match CPU samples. */
static int on_wanted(etl_ctx *c, const etl_rec *r)
{
	if (c->nsamples >= SV_MAX_SAMPLES)
		return sv_etl_fail(c, SV_ELIMIT, c->bufs[r->buf].off, "more than %u events", SV_MAX_SAMPLES);
	if (SV_ARRAY_RESERVE(c->samples, c->samplecap, c->nsamples + 1))
		return SV_ENOMEM;
	esample *s = &c->samples[c->nsamples];
	memset(s, 0, sizeof(*s));
	s->ts = r->ts;
	s->tid = r->tid;
	s->spid = r->pid != UINT32_MAX ? r->pid + 1 : 0;
	s->kid = s->uid = AS_NONE;
	s->metric = 1;
	int rc = 0;
	unsigned P = r->kind == REC_HOOK ? c->ptr : r->ptr; /* kernel events: the trace's pointer size */
	const unsigned char *p = r->payload;
	if (r->kind == REC_EVENT && r->guid == G_CLR && r->id == 10) {
		c->want_bytes = true;
		rc = decode_alloc_tick(c, r, s);
	} else if (r->kind == REC_EVENT && r->guid == G_CLR && r->id == 80 && r->plen >= 2) {
		/* Exception/Start: UTF-16 ExceptionType, UTF-16 ExceptionMessage, ... */
		size_t used = 0;
		char *type = sv_etl_dup_utf16(p, r->plen, &used);
		if (!type)
			return SV_ENOMEM;
		char leaf[700];
		snprintf(leaf, sizeof(leaf), "Exception %.600s", type[0] ? type : "?");
		free(type);
		rc = leaf_id(c, leaf, &s->leaf);
	} else if (r->kind == REC_HOOK && r->group == 0x01 && (r->type == 10 || r->type == 11) && r->plen >= 24 + P) {
		/* DiskIO Read/Write: u32 DiskNumber, IrpFlags, TransferSize, Reserved; u64 ByteOffset;
		 * ptr FileObject, Irp; u64 HighResResponseTime; v3: u32 IssuingThreadId (whose the
		 * I/O is: the record's own thread is whoever completed it) */
		c->want_bytes = true;
		s->metric = rd32(p + 8);
		s->file = rdptr(p + 24, P);
		if (r->version >= 3 && r->plen >= 24 + 2 * (size_t)P + 12) {
			s->tid = rd32(p + 24 + 2 * P + 8);
			s->spid = 0;
		}
	} else if (r->kind == REC_HOOK && r->group == 0x02 && r->type == 32 && r->plen >= 16 + 2 * (size_t)P) {
		/* Memory HardFault: u64 InitialTime, ReadOffset; ptr VirtualAddress, FileObject; ... */
		s->file = rdptr(p + 16 + P, P);
	}
	if (rc)
		return rc;
	s->next_ts = sv_etl_list_get(&c->by_ts, r->ts);
	c->nsamples++;
	c->events_kept++;
	if (r->kind == REC_EVENT && (r->guid == G_CLR || r->guid == G_CLR_RUNDOWN) &&
	    (rc = sv_idmap_put(&c->clr_last, r->tid, (uint32_t)c->nsamples)))
		return rc;
	return sv_idmap_put(&c->by_ts, r->ts, (uint32_t)c->nsamples);
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

int sv_etl_on_record(etl_ctx *c, const etl_rec *r)
{
	uint32_t kind = 0;
	int rc = count_kind(c, r, &kind);
	if (rc)
		return rc;
	if (c->want && (long)kind == c->want_kind && (rc = on_wanted(c, r)))
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
	if (r->kind == REC_CLASSIC && r->guid == G_IMAGEID && r->id == 36)
		return sv_etl_on_rsds(c, r);
	if (r->kind == REC_CLASSIC && r->guid == G_IMAGEID && r->id == 0)
		return sv_etl_on_imageid(c, r);
	return 0;
}
