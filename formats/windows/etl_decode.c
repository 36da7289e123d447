/* SPDX-License-Identifier: MIT */
/* ETL importer, events as samples: the kinds with a natural metric or leaf frames
 * (docs/etl-events.md: exceptions, disk and file I/O, hard faults, VirtualAlloc, the OS heap,
 * allocation ticks), and the file names and CLR stacks they need. */
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
int sv_etl_heap_track(etl_ctx *c, const etl_rec *r, uint32_t sample)
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
int sv_etl_on_disk_init(etl_ctx *c, const etl_rec *r)
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
int sv_etl_on_wanted(etl_ctx *c, const etl_rec *r)
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
int sv_etl_on_file_name(etl_ctx *c, const etl_rec *r)
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
int sv_etl_on_clr_stack(etl_ctx *c, const etl_rec *r)
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
