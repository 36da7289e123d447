/* SPDX-License-Identifier: MIT */
/* ETL importer, event decoding: processes, threads, images, CLR methods and modules, volume
 * names; sv_etl_on_record dispatches each record (to etl_kinds.c, etl_decode.c, etl_stacks.c
 * and etl_symbols.c as well). */
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

/* BulkType (listing only): each type's name by (pid, TypeID): Count, ClrInstanceID, then per
 * type u64 TypeID, u64 ModuleID, u32 TypeNameID, u32 Flags, u8 CorElementType, UTF-16
 * TypeName, u32 TypeParameterCount and that many u64s. */
static int on_bulk_type(etl_ctx *c, const etl_rec *r)
{
	const unsigned char *p = r->payload;
	size_t n = r->plen, at = 6;
	uint32_t count = n >= 6 ? rd32(p) : 0;
	for (uint32_t i = 0; i < count && at <= n && n - at >= 25; i++) {
		uint64_t id = rd64(p + at);
		size_t used = 0;
		char *name = sv_etl_dup_utf16(p + at + 25, n - at - 25, &used);
		if (!name)
			return SV_ENOMEM;
		at += 25 + used;
		uint32_t params = at <= n && n - at >= 4 ? rd32(p + at) : 0;
		at += 4;
		if (at > n || params > (n - at) / 8) {
			free(name);
			return 0;
		}
		at += 8 * (size_t)params;
		uint64_t key = sv_hash_mix64(id) ^ r->pid;
		if (sv_idmap_get(&c->tname_index, key) != SV_IDMAP_NONE || SV_ARRAY_PUSH(c->tnames, c->ntnames, c->tnamecap, name)) {
			free(name);
			continue;
		}
		int rc = sv_idmap_put(&c->tname_index, key, (uint32_t)c->ntnames);
		if (rc)
			return rc;
	}
	return 0;
}

static uint64_t stack_key(uint64_t ts, uint32_t tid)
{
	return sv_hash_mix64(ts) ^ ((uint64_t)tid << 1 | 1);
}

bool sv_etl_has_stack(const etl_ctx *c, uint64_t ts, uint32_t tid)
{
	/* an event whose thread the listing does not know (a compact header's: context switches,
	 * ready threads): a stack logged at its very time */
	return sv_idmap_get(&c->stacked, tid == UINT32_MAX ? sv_hash_mix64(ts) << 1 : stack_key(ts, tid)) != SV_IDMAP_NONE;
}

/* Listing, first pass: the events a stack was logged for. A kernel stack event (StackWalk
 * Stack or a stack key's reference) names its event by time and thread; a ClrStack/Walk is
 * the stack of its thread's runtime event before it. */
static int note_stack(etl_ctx *c, const etl_rec *r)
{
	if (r->kind == REC_HOOK && r->group == 0x18 && r->type != 35 && r->type != 36 && r->plen >= 16) {
		int rc = sv_idmap_put(&c->stacked, stack_key(rd64(r->payload), rd32(r->payload + 12)), 1);
		return rc ? rc : sv_idmap_put(&c->stacked, sv_hash_mix64(rd64(r->payload)) << 1, 1);
	}
	if (r->kind != REC_EVENT || r->guid != G_CLR)
		return 0;
	uint32_t i = sv_idmap_get(&c->clr_prev, r->tid);
	if (r->id == 82)
		return i == SV_IDMAP_NONE ? 0 : sv_idmap_put(&c->stacked, stack_key(c->clr_ts[i - 1], r->tid), 1);
	if (i != SV_IDMAP_NONE) {
		c->clr_ts[i - 1] = r->ts;
		return 0;
	}
	if (SV_ARRAY_PUSH(c->clr_ts, c->nclr_ts, c->clr_ts_cap, r->ts))
		return SV_ENOMEM;
	return sv_idmap_put(&c->clr_prev, r->tid, (uint32_t)c->nclr_ts);
}

const char *sv_etl_type_name(const etl_ctx *c, uint32_t pid, uint64_t id)
{
	uint32_t i = sv_idmap_get(&c->tname_index, sv_hash_mix64(id) ^ pid);
	return i == SV_IDMAP_NONE ? NULL : c->tnames[i - 1];
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

/* A process at a time: the latest entry for pid started at or before ts, else the oldest.
 * The answer is the same for every time from the latest start at or before ts up to the next
 * start after it: it is kept for them (the listing asks for every event). */
const eproc *sv_etl_find_proc(const etl_ctx *c, uint32_t pid, uint64_t ts)
{
	struct proc_memo *m = c->proc_memo ? &c->proc_memo[(pid ^ pid >> 8) % PROC_MEMO] : NULL;
	if (m && m->pid == pid && m->nprocs == c->nprocs && m->lo <= ts && ts < m->hi)
		return m->found ? &c->procs[m->found - 1] : NULL;
	const eproc *best = NULL, *first = NULL;
	uint64_t lo = 0, hi = UINT64_MAX;
	uint32_t k = 0;
	for (uint32_t v = sv_etl_list_get(&c->proc_by_pid, pid); v && k < MAX_HISTORY; v = c->procs[v - 1].next, k++) {
		const eproc *p = &c->procs[v - 1];
		first = p; /* the list runs newest to oldest */
		if (p->ts <= ts && (!best || p->ts > best->ts))
			best = p;
		if (p->ts <= ts && p->ts > lo)
			lo = p->ts;
		else if (p->ts > ts && p->ts < hi)
			hi = p->ts;
	}
	const eproc *r = best ? best : first;
	if (m)
		*m = (struct proc_memo){ pid, (uint32_t)c->nprocs, r ? (uint32_t)(r - c->procs) + 1 : 0, lo, hi };
	return r;
}

/* A process as the listing names it: its program's name without the extension, else
 * Process(PID) as TraceEvent calls a process the trace does not name. */
void sv_etl_proc_label(const etl_ctx *c, uint32_t pid, uint64_t ts, char *buf, size_t cap)
{
	const eproc *pr = pid != UINT32_MAX ? sv_etl_find_proc(c, pid, ts) : NULL;
	const char *img = pr && pr->image ? pr->image : "";
	const char *dot = strrchr(img, '.');
	size_t il = dot && dot != img ? (size_t)(dot - img) : strlen(img);
	if (il) { /* without snprintf: once per listed event */
		il = il < cap ? il : cap - 1;
		memcpy(buf, img, il);
		buf[il] = '\0';
	} else {
		snprintf(buf, cap, "Process(%u)", pid);
	}
}

/* tid -> pid at time ts: the latest Start/DCStart at or before ts, else the first thread
 * event after it (back-filling, etl.md §10). */
bool sv_etl_thread_pid(const etl_ctx *c, uint32_t tid, uint64_t ts, uint32_t *pid)
{
	/* kept as sv_etl_find_proc keeps its answers: the same for every time between the
	 * latest entry at or before ts and the next entry after it */
	struct thread_memo *m = c->thread_memo ? &c->thread_memo[(tid ^ tid >> 8) % PROC_MEMO] : NULL;
	if (m && m->tid == tid && m->nthreads == c->nthreads && m->lo <= ts && ts < m->hi) {
		if (m->found) /* (*pid is left as it is when none is found) */
			*pid = m->pid;
		return m->found;
	}
	const ethread *best = NULL, *after = NULL;
	uint64_t lo = 0, hi = UINT64_MAX;
	uint32_t k = 0;
	for (uint32_t v = sv_etl_list_get(&c->thread_by_tid, tid); v && k < MAX_HISTORY; v = c->threads[v - 1].next, k++) {
		const ethread *t = &c->threads[v - 1];
		if (t->start && t->ts <= ts) {
			if (!best || t->ts > best->ts)
				best = t;
		} else if (t->ts > ts && (!after || t->ts < after->ts)) {
			after = t;
		}
		if (t->ts <= ts && t->ts > lo)
			lo = t->ts;
		else if (t->ts > ts && t->ts < hi)
			hi = t->ts;
	}
	if (!best)
		best = after;
	if (m)
		*m = (struct thread_memo){ tid, (uint32_t)c->nthreads, best ? best->pid : 0, best != NULL, lo, hi };
	if (!best)
		return false;
	*pid = best->pid;
	return true;
}

int sv_etl_on_record(etl_ctx *c, const etl_rec *r)
{
	uint32_t kind = 0;
	int rc = r->kind == REC_EVENT && r->id == 65534 && r->guid < 0 ? sv_etl_on_manifest(c, r) : 0;
	if (!rc)
		rc = sv_etl_count_kind(c, r, &kind);
	if (rc)
		return rc;
	if (c->listing && !c->list_fn && (rc = note_stack(c, r)))
		return rc;
	if (c->want_disk && r->kind == REC_HOOK && r->group == 0x01 && (r->type == 12 || r->type == 13) &&
	    (rc = sv_etl_on_disk_init(c, r)))
		return rc;
	const etl_view *v = c->view >= 0 ? &sv_etl_views[c->view] : NULL;
	bool in_view = v && r->kind == REC_HOOK && sv_etl_view_has(v, r->group, r->type);
	size_t before = c->nsamples;
	if (c->want && ((long)kind == c->want_kind || in_view) && (rc = sv_etl_on_wanted(c, r)))
		return rc;
	if (c->want_heap && r->kind == REC_HOOK && r->group == 0x10 && (r->type == 33 || r->type == 34 || r->type == 36) &&
	    (rc = sv_etl_heap_track(c, r, c->nsamples > before ? (uint32_t)before + 1 : 0)))
		return rc;
	if (c->want && r->kind == REC_EVENT && r->guid == G_CLR && r->id == 82 && (rc = sv_etl_on_clr_stack(c, r)))
		return rc;
	if (c->want && r->kind == REC_HOOK && r->group == 0x04 &&
	    (r->type == 0 || r->type == 32 || r->type == 35 || r->type == 36) && (rc = sv_etl_on_file_name(c, r)))
		return rc;
	if (r->kind == REC_HOOK) {
		switch (r->group) {
		case 0x0F:
			if (r->type == 46)
				return !c->want ? sv_etl_on_sample(c, r) : 0;
			if ((r->type == 72 || r->type == 73) && r->plen >= 8 && rd32(r->payload) == 0 && rd32(r->payload + 4))
				c->interval = rd32(r->payload + 4);
			return 0;
		case 0x18: /* stacks: not listed (the listing's first pass leaves them) */
			return c->listing ? 0 : sv_etl_on_stackwalk(c, r);
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
	if (r->kind == REC_EVENT && r->guid == G_CLR && r->id == 15 && c->listing && !c->list_fn)
		return on_bulk_type(c, r);
	if (r->kind == REC_EVENT && (r->guid == G_CLR || r->guid == G_CLR_RUNDOWN) && !c->listing)
		return on_clr(c, r); /* methods and modules name frames: not listed */
	if (r->kind == REC_CLASSIC && r->guid == G_SYSCONFIGEX && r->id == 35)
		return on_volume(c, r);
	if (r->kind == REC_CLASSIC && r->guid == G_METADATA && r->id == 32)
		return sv_etl_on_event_info(c, r);
	if (r->kind == REC_CLASSIC && r->guid == G_METADATA && r->id == 33)
		return sv_etl_on_event_map_info(c, r);
	if (r->kind == REC_CLASSIC && r->guid == G_IMAGEID && r->id == 36)
		return sv_etl_on_rsds(c, r);
	if (r->kind == REC_CLASSIC && r->guid == G_IMAGEID && r->id == 0)
		return sv_etl_on_imageid(c, r);
	return 0;
}
