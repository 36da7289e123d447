/* SPDX-License-Identifier: MIT */
/* ETL importer, second pass: frames named `module!?` or after CLR methods (semantics
 * §1.3/§1.4), kernel and user halves stitched, thread -> process back-filled, memoized
 * stacks pushed into the sink. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "etl_int.h"
#include "sv/array.h"
#include "sv/idmap.h"

/* ---- the second pass: names and stacks ---- */

typedef struct emit {
	etl_ctx *c;
	pid_index *img_pids; /* images sorted by (pid, base) */
	size_t nimg_pids;
	pid_index *meth_pids;
	size_t nmeth_pids;
	sv_frame_id broken;
} emit;

static int image_cmp(const void *a, const void *b)
{
	const eimage *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return x->load_ts < y->load_ts ? -1 : x->load_ts > y->load_ts;
}

static int method_cmp(const void *a, const void *b)
{
	const emethod *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int build_pid_index(pid_index **out, size_t *n, const void *arr, size_t count, size_t size)
{
	*out = NULL;
	*n = 0;
	size_t cap = 0;
	for (size_t i = 0; i < count; i++) {
		uint32_t pid = *(const uint32_t *)((const char *)arr + i * size); /* pid is the first member */
		if (*n && (*out)[*n - 1].pid == pid) {
			(*out)[*n - 1].n++;
			continue;
		}
		if (SV_ARRAY_RESERVE(*out, cap, *n + 1))
			return SV_ENOMEM;
		(*out)[(*n)++] = (pid_index){ pid, (uint32_t)i, 1 };
	}
	return 0;
}

static const pid_index *find_pid(const pid_index *idx, size_t n, uint32_t pid)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (idx[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && idx[lo].pid == pid ? &idx[lo] : NULL;
}

/* The image holding addr in pid at time ts: among those containing it, the latest loaded at
 * or before ts (not unloaded before it), else the earliest. */
static const eimage *find_image(const emit *e, uint32_t pid, uint64_t addr, uint64_t ts)
{
	const pid_index *pi = find_pid(e->img_pids, e->nimg_pids, pid);
	if (!pi)
		return NULL;
	const eimage *im = e->c->images + pi->first;
	size_t lo = 0, hi = pi->n;
	while (lo < hi) { /* first image with base > addr */
		size_t mid = (lo + hi) / 2;
		if (im[mid].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	const eimage *best = NULL;
	for (size_t i = lo, k = 0; i-- > 0 && k < MAX_OVERLAP; k++) {
		const eimage *x = &im[i];
		if (addr - x->base >= x->size)
			continue;
		bool live = x->load_ts <= ts && ts < x->unload_ts;
		bool best_live = best && best->load_ts <= ts && ts < best->unload_ts;
		if (!best || (live && (!best_live || x->load_ts > best->load_ts)) ||
		    (!live && !best_live && x->load_ts < best->load_ts))
			best = x;
	}
	return best;
}

static const emethod *find_method(const emit *e, uint32_t pid, uint64_t addr, uint64_t ts)
{
	const pid_index *pi = find_pid(e->meth_pids, e->nmeth_pids, pid);
	if (!pi)
		return NULL;
	const emethod *m = e->c->methods + pi->first;
	size_t lo = 0, hi = pi->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	const emethod *best = NULL;
	for (size_t i = lo, k = 0; i-- > 0 && k < MAX_OVERLAP; k++) {
		const emethod *x = &m[i];
		if (addr - x->start >= x->size)
			continue;
		if (!best || (x->ts <= ts && (best->ts > ts || x->ts > best->ts)))
			best = x;
	}
	return best;
}

/* "C:\dir\name.ext" -> appends "C:\dir\name" (NT device prefixes mapped to drive letters). */
static void append_module(const etl_ctx *c, char *out, size_t cap, size_t *len, const char *path)
{
	const char *rest = path;
	const char *dos = "";
	for (size_t i = 0; i < c->nvols; i++) {
		size_t l = strlen(c->vols[i].nt);
		if (strncasecmp(path, c->vols[i].nt, l) == 0) {
			dos = c->vols[i].dos;
			rest = path + l;
			break;
		}
	}
	const char *base = rest;
	for (const char *q = rest; *q; q++)
		if (*q == '\\' || *q == '/')
			base = q + 1;
	const char *dot = strrchr(base, '.');
	size_t rl = dot && dot != base ? (size_t)(dot - rest) : strlen(rest);
	int n = snprintf(out + *len, cap - *len, "%s%.*s", dos, (int)rl, rest);
	if (n > 0)
		*len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

/* A path with its NT device prefix as a drive letter ("\Device\HarddiskVolume2\x" -> "C:\x"). */
static void append_path(const etl_ctx *c, char *out, size_t cap, size_t *len, const char *path)
{
	const char *rest = path, *dos = "";
	for (size_t i = 0; i < c->nvols; i++) {
		size_t l = strlen(c->vols[i].nt);
		if (strncasecmp(path, c->vols[i].nt, l) == 0) {
			dos = c->vols[i].dos;
			rest = path + l;
			break;
		}
	}
	int n = snprintf(out + *len, cap - *len, "%s%s", dos, rest);
	if (n > 0)
		*len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

static const char *base_name(const char *path)
{
	const char *b = path;
	for (const char *q = path; *q; q++)
		if (*q == '\\' || *q == '/')
			b = q + 1;
	return b;
}

static int intern_name(emit *e, sv_frame_id *out, const char *name)
{
	return e->c->sink->ops->intern_frame(e->c->sink->self, out, name, strlen(name));
}

/* The frame of one address. */
static int address_frame(emit *e, sv_frame_id *out, uint32_t pid, uint64_t addr, uint64_t ts)
{
	etl_ctx *c = e->c;
	char buf[1024];
	size_t len = 0;
	bool kernel = sv_etl_is_kernel(c, addr);
	const eimage *im = find_image(e, kernel ? 0 : pid, addr, ts);
	const emethod *m = NULL;
	if (!im && !kernel)
		m = find_method(e, pid, addr, ts);
	if (im) {
		append_module(c, buf, sizeof(buf), &len, im->path);
		snprintf(buf + len, sizeof(buf) - len, "!?");
	} else if (m) {
		const emodule *mod = sv_etl_find_module(c, pid, m->module);
		const char *path = mod ? mod->path : NULL;
		if (path && path[0])
			append_module(c, buf, sizeof(buf), &len, path);
		else
			buf[len++] = '?';
		snprintf(buf + len, sizeof(buf) - len, "!%s", m->name);
	} else {
		snprintf(buf, sizeof(buf), "?!?");
	}
	return intern_name(e, out, buf);
}

/* Is the outermost frame a plausible thread start (semantics §1.3)? */
static bool complete_stack(emit *e, uint32_t pid, uint64_t addr, uint64_t ts, const char *exe)
{
	const eimage *im = find_image(e, sv_etl_is_kernel(e->c, addr) ? 0 : pid, addr, ts);
	if (!im)
		return false;
	const char *b = base_name(im->path);
	if (strcasecmp(b, "ntdll.dll") == 0)
		return true;
	if (exe && exe[0] && strcasecmp(b, exe) == 0)
		return true;
	return (pid == 0 || pid == 4) && (strcasecmp(b, "ntoskrnl.exe") == 0 || strcasecmp(b, "ntkrnlmp.exe") == 0);
}

static const eproc *find_proc(const etl_ctx *c, uint32_t pid, uint64_t ts)
{
	const eproc *best = NULL, *first = NULL;
	uint32_t k = 0;
	for (uint32_t v = sv_etl_list_get(&c->proc_by_pid, pid); v && k < MAX_HISTORY; v = c->procs[v - 1].next, k++) {
		const eproc *p = &c->procs[v - 1];
		first = p; /* the list runs newest to oldest */
		if (p->ts <= ts && (!best || p->ts > best->ts))
			best = p;
	}
	return best ? best : first;
}

/* tid -> pid at time ts: the latest Start/DCStart at or before ts, else the first thread
 * event after it (back-filling, etl.md §10). */
static bool thread_pid(const etl_ctx *c, uint32_t tid, uint64_t ts, uint32_t *pid)
{
	const ethread *best = NULL, *after = NULL;
	uint32_t k = 0;
	for (uint32_t v = sv_etl_list_get(&c->thread_by_tid, tid); v && k < MAX_HISTORY; v = c->threads[v - 1].next, k++) {
		const ethread *t = &c->threads[v - 1];
		if (t->start && t->ts <= ts) {
			if (!best || t->ts > best->ts)
				best = t;
		} else if (t->ts > ts && (!after || t->ts < after->ts)) {
			after = t;
		}
	}
	if (!best)
		best = after;
	if (!best)
		return false;
	*pid = best->pid;
	return true;
}

typedef struct ethr {
	uint32_t pid, tid;
	size_t samples;
	sv_stack_id stack; /* Process -> Thread */
	bool made;
} ethr;

/* The process and thread frames of a thread, made when its first sample comes. */
static int thread_frames(emit *e, ethr *t, uint32_t pid, uint64_t ts, double ms)
{
	etl_ctx *c = e->c;
	const sv_sink_ops *ops = c->sink->ops;
	void *self = c->sink->self;
	int rc;
	const eproc *pr = pid != UINT32_MAX ? find_proc(c, pid, ts) : NULL;
	char name[1200];
	const char *img = pr && pr->image ? pr->image : "";
	const char *dot = strrchr(img, '.');
	int il = dot && dot != img ? (int)(dot - img) : (int)strlen(img);
	/* Args: the command line without the program (quoted or up to the first blank). */
	const char *args = pr && pr->cmdline ? pr->cmdline : "";
	if (*args == '"') {
		const char *q = strchr(args + 1, '"');
		args = q ? q + 1 : args + strlen(args);
	} else {
		while (*args && *args != ' ')
			args++;
	}
	while (*args == ' ')
		args++;
	bool is32 = pr ? pr->wow64 || c->ptr == 4 : c->ptr == 4;
	if (pid == UINT32_MAX)
		snprintf(name, sizeof(name), "Process%d ? Args:", is32 ? 32 : 64);
	else
		snprintf(name, sizeof(name), "Process%d %.*s (%" PRIu32 ") Args:%s%.900s", is32 ? 32 : 64, il ? il : 1,
			 il ? img : "?", pid, args[0] ? " " : "", args);
	sv_frame_id pf, tf;
	sv_stack_id ps;
	if ((rc = intern_name(e, &pf, name)))
		return rc;
	double cpu = (double)t->samples * ms;
	if (!c->want)
		snprintf(name, sizeof(name), "Thread (%" PRIu32 ") CPU=%.0fms", t->tid, cpu);
	else /* events: the thread's CPU time is not in them */
		snprintf(name, sizeof(name), "Thread (%" PRIu32 ")", t->tid);
	if ((rc = intern_name(e, &tf, name)) || (rc = ops->intern_stack(self, &ps, SV_STACK_NONE, pf)) ||
	    (rc = ops->intern_stack(self, &t->stack, ps, tf)))
		return rc;
	t->made = true;
	return 0;
}

/* An event's leaf frames (";"-separated text, or the file it read) below cur. */
static int leaf_frames(emit *e, sv_stack_id *cur, uint32_t leaf, uint64_t file)
{
	etl_ctx *c = e->c;
	if (!leaf && file) {
		uint32_t i = sv_idmap_get(&c->fname_index, file);
		char name[1100] = "File ";
		size_t len = 5;
		if (i == SV_IDMAP_NONE)
			snprintf(name + len, sizeof(name) - len, "?");
		else
			append_path(c, name, sizeof(name), &len, c->fnames[i - 1]);
		sv_frame_id f;
		int rc = c->sink->ops->intern_frame(c->sink->self, &f, name, strlen(name));
		return rc ? rc : c->sink->ops->intern_stack(c->sink->self, cur, *cur, f);
	}
	if (!leaf)
		return 0;
	const char *p = c->leaves[leaf - 1];
	while (*p) {
		const char *semi = strchr(p, ';');
		size_t n = semi ? (size_t)(semi - p) : strlen(p);
		sv_frame_id f;
		int rc = e->c->sink->ops->intern_frame(e->c->sink->self, &f, p, n);
		if (!rc)
			rc = e->c->sink->ops->intern_stack(e->c->sink->self, cur, *cur, f);
		if (rc)
			return rc;
		p += n + (semi ? 1 : 0);
	}
	return 0;
}

int sv_etl_emit_samples(etl_ctx *c, size_t *with_stack, size_t *jit_leaf, size_t *broken_count)
{
	emit e = { .c = c };
	int rc = 0;
	sv_idmap thr_index, pair_index, memo;
	sv_idmap_init(&thr_index);
	sv_idmap_init(&pair_index);
	sv_idmap_init(&memo);
	ethr *thr = NULL;
	size_t nthr = 0, thrcap = 0, npairs = 0, nmemo = 0, memocap = 0;
	struct {
		sv_stack_id stack;
		bool broken;
	} *memo_st = NULL; /* memoized stacks: (thread, kernel/user pair) -> stack */
	uint32_t *spid = NULL; /* per sample: pid */
	uint32_t *sthr = NULL; /* per sample: thread index */
	double ms = c->interval ? (double)c->interval / 1e4 : 1.0;

	if (c->nimages)
		qsort(c->images, c->nimages, sizeof(*c->images), image_cmp);
	if (c->nmethods)
		qsort(c->methods, c->nmethods, sizeof(*c->methods), method_cmp);
	if ((rc = build_pid_index(&e.img_pids, &e.nimg_pids, c->images, c->nimages, sizeof(*c->images))) ||
	    (rc = build_pid_index(&e.meth_pids, &e.nmeth_pids, c->methods, c->nmethods, sizeof(*c->methods))))
		goto out;
	spid = malloc((c->nsamples ? c->nsamples : 1) * sizeof(*spid));
	sthr = malloc((c->nsamples ? c->nsamples : 1) * sizeof(*sthr));
	if (!spid || !sthr) {
		rc = SV_ENOMEM;
		goto out;
	}
	/* Threads and their sample counts first: thread frames say how much CPU they used. */
	for (size_t i = 0; i < c->nsamples; i++) {
		const esample *s = &c->samples[i];
		uint32_t pid = 0;
		if (!thread_pid(c, s->tid, s->ts, &pid))
			pid = s->spid ? s->spid - 1 : s->tid == 0 ? 0 : UINT32_MAX;
		spid[i] = pid;
		uint64_t key = (uint64_t)pid << 32 | s->tid;
		uint32_t t = sv_idmap_get(&thr_index, key);
		if (t == SV_IDMAP_NONE) {
			if ((rc = SV_ARRAY_RESERVE(thr, thrcap, nthr + 1)))
				goto out;
			thr[nthr] = (ethr){ pid, s->tid, 0, SV_STACK_NONE, false };
			t = (uint32_t)nthr++;
			if ((rc = sv_idmap_put(&thr_index, key, t)))
				goto out;
		}
		thr[t].samples++;
		sthr[i] = t;
	}
	if (c->nsamples && (rc = intern_name(&e, &e.broken, "BROKEN")))
		goto out;
	if (c->nsamples)
		c->first_pid = spid[0];
	const sv_sink_ops *ops = c->sink->ops;
	void *self = c->sink->self;
	for (size_t i = 0; i < c->nsamples; i++) {
		const esample *s = &c->samples[i];
		ethr *t = &thr[sthr[i]];
		uint32_t pid = spid[i];
		uint32_t kid = s->kid, uid = s->uid;
		bool any = kid < AS_EMPTY || uid < AS_EMPTY;
		if (!any && c->want) { /* an event without a stack: under its thread */
			if (!t->made && (rc = thread_frames(&e, t, pid, s->ts, ms)))
				goto out;
			sv_stack_id cur = t->stack;
			if ((rc = leaf_frames(&e, &cur, s->leaf, s->file)))
				goto out;
			double t_ms = s->ts >= c->hdr_ts ? (double)(s->ts - c->hdr_ts) * 1000.0 / c->freq : 0.0;
			if ((rc = ops->add_sample(self, cur, t_ms, s->metric, 1.0)))
				goto out;
			continue;
		}
		if (!any) { /* no stack: the IP alone, under BROKEN */
			unsigned char ipb[8];
			for (int b = 0; b < 8; b++)
				ipb[b] = (unsigned char)(s->ip >> (8 * b));
			if ((rc = sv_etl_intern_addrs(c, &uid, ipb, 1, 8)))
				goto out;
			kid = AS_NOSTACK;
		} else {
			(*with_stack)++;
		}
		uint64_t pkey = (uint64_t)kid << 32 | uid;
		uint32_t pair = sv_idmap_get(&pair_index, pkey);
		if (pair == SV_IDMAP_NONE) {
			pair = (uint32_t)npairs++;
			if ((rc = sv_idmap_put(&pair_index, pkey, pair)))
				goto out;
		}
		uint64_t mkey = (uint64_t)sthr[i] << 32 | pair;
		uint32_t st = sv_idmap_get(&memo, mkey);
		/* The process record is needed only to name a new thread or a new stack. */
		const eproc *pr = (!t->made || st == SV_IDMAP_NONE) && pid != UINT32_MAX ? find_proc(c, pid, s->ts) : NULL;
		if (!t->made && (rc = thread_frames(&e, t, pid, s->ts, ms)))
			goto out;
		/* innermost first: kernel half then user half */
		size_t kn = kid < AS_NOSTACK ? c->as_len[kid] : 0, un = uid < AS_EMPTY ? c->as_len[uid] : 0;
		const uint64_t *ka = kn ? c->addrs + c->as_start[kid] : NULL, *ua = un ? c->addrs + c->as_start[uid] : NULL;
		if (st == SV_IDMAP_NONE) {
			uint64_t outer = un ? ua[un - 1] : ka[kn - 1];
			bool broken = kid == AS_NOSTACK ||
				      !complete_stack(&e, pid, outer, s->ts, pr && pr->image ? pr->image : NULL);
			sv_stack_id cur = t->stack;
			if (broken && (rc = ops->intern_stack(self, &cur, cur, e.broken)))
				goto out;
			for (size_t k = un; k-- > 0;) {
				sv_frame_id f;
				if ((rc = address_frame(&e, &f, pid, ua[k], s->ts)) ||
				    (rc = ops->intern_stack(self, &cur, cur, f)))
					goto out;
			}
			for (size_t k = kn; k-- > 0;) {
				sv_frame_id f;
				if ((rc = address_frame(&e, &f, pid, ka[k], s->ts)) ||
				    (rc = ops->intern_stack(self, &cur, cur, f)))
					goto out;
			}
			if ((rc = SV_ARRAY_RESERVE(memo_st, memocap, nmemo + 1)))
				goto out;
			memo_st[nmemo].stack = cur;
			memo_st[nmemo].broken = broken;
			st = (uint32_t)nmemo++;
			if ((rc = sv_idmap_put(&memo, mkey, st)))
				goto out;
		}
		*broken_count += memo_st[st].broken;
		if (!c->want && !sv_etl_is_kernel(c, s->ip) && find_method(&e, pid, s->ip, s->ts) &&
		    !find_image(&e, pid, s->ip, s->ts))
			(*jit_leaf)++;
		double t_ms = s->ts >= c->hdr_ts ? (double)(s->ts - c->hdr_ts) * 1000.0 / c->freq : 0.0;
		sv_stack_id leafed = memo_st[st].stack;
		if (c->want && (rc = leaf_frames(&e, &leafed, s->leaf, s->file)))
			goto out;
		if ((rc = ops->add_sample(self, leafed, t_ms, !c->want ? ms : s->metric, 1.0)))
			goto out;
	}
out:
	free(memo_st);
	sv_idmap_dispose(&thr_index);
	sv_idmap_dispose(&pair_index);
	sv_idmap_dispose(&memo);
	free(thr);
	free(spid);
	free(sthr);
	free(e.img_pids);
	free(e.meth_pids);
	return rc;
}
