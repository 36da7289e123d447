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
#include "sv/cpu_root.h"
#include "stackview/symbols.h"
#include "sv/thread_time.h"
#include "sv/array.h"
#include "sv/idmap.h"

/* ---- the second pass: names and stacks ---- */

typedef struct ethr {
	uint32_t pid, tid;
	size_t samples;
	sv_stack_id stack; /* Process -> Thread */
	bool made;
} ethr;

typedef struct emit {
	etl_ctx *c;
	pid_index *img_pids; /* images sorted by (pid, base) */
	size_t nimg_pids;
	pid_index *meth_pids;
	size_t nmeth_pids;
	sv_frame_id broken;
	ethr *thr;           /* threads by (pid, tid) */
	size_t nthr, thrcap;
	sv_idmap thr_index;
	double ms;           /* the sampling interval */
	uint64_t now;        /* thread time: the record being fed (its threads are named as of then) */
	sv_idmap wakers;     /* thread time: tid -> READIED_BY frame + 1 */
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

static int intern_name(emit *e, sv_frame_id *out, const char *name)
{
	return e->c->sink->ops->intern_frame(e->c->sink->self, out, name, strlen(name));
}

/* The frame of one address; *imp (may be NULL) the image holding it, NULL for none. */
static int address_frame(emit *e, sv_frame_id *out, uint32_t pid, uint64_t addr, uint64_t ts, const eimage **imp)
{
	etl_ctx *c = e->c;
	char buf[1024];
	size_t len = 0;
	bool kernel = sv_etl_is_kernel(c, addr);
	const eimage *im = find_image(e, kernel ? 0 : pid, addr, ts);
	if (imp)
		*imp = im;
	const emethod *m = NULL;
	if (!im && !kernel)
		m = find_method(e, pid, addr, ts);
	if (im) {
		append_module(c, buf, sizeof(buf), &len, im->path);
		const sv_symtab *t = sv_etl_symtab(c, im);
		if (c->net.stopped)
			return sv_error_set(c->err, SV_ECANCELED, "loading canceled (while downloading symbols)");
		const sv_symbol *s = t && addr - im->base <= UINT32_MAX ? sv_symtab_lookup(t, (uint32_t)(addr - im->base)) : NULL;
		snprintf(buf + len, sizeof(buf) - len, "!%s", s ? s->name : "?");
		if (!s) { /* unnamed: counted, with its module, for the notes */
			c->unnamed_addrs++;
			uint64_t h = sv_hash_bytes(im->path, strlen(im->path));
			if (sv_idmap_get(&c->unnamed_mods, h) == SV_IDMAP_NONE) {
				int rc = sv_idmap_put(&c->unnamed_mods, h, 1);
				if (rc)
					return rc;
				c->unnamed_nmods++;
			}
		}
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

/* Where a frame's code executed (annotate and Goto Source), in image im (NULL: none): the
 * address, and its source line from its module's PDB line tables when the PDB has them (a
 * caller's one byte back: the call, not the return address). When the image itself is found
 * (etl_code.c) the location is in it, at its own address (its preferred base + RVA), else in
 * no file at the address executed. A caller without a line has none, a leaf always one (a
 * path ends at its sample's leaf). */
static int code_location(emit *e, sv_frame_id frame, const eimage *im, uint64_t addr, bool leaf, uint32_t *out)
{
	etl_ctx *c = e->c;
	*out = SV_LOC_NONE;
	const sv_symtab *t = im ? sv_etl_symtab(c, im) : NULL; /* (looked up once: address_frame's) */
	const char *file = NULL;
	uint64_t at = leaf ? addr : addr - 1;
	uint32_t line = t && at - im->base <= UINT32_MAX ? sv_symtab_line_of(t, (uint32_t)(at - im->base), &file) : 0;
	if (!line && !leaf)
		return 0;
	const sv_sink_ops *ops = c->sink->ops;
	uint32_t cf = SV_LOC_NONE;
	uint64_t cbase = 0;
	int rc = t ? sv_etl_code_file(c, im, &cf, &cbase) : 0;
	if (!rc)
		rc = ops->intern_location(c->sink->self, out, frame, cf, cf == SV_LOC_NONE ? at : at - im->base + cbase);
	return rc || !line ? rc : ops->set_location_line(c->sink->self, *out, file, line);
}

/* Is the outermost frame a plausible thread start (semantics §1.3)? */
static bool complete_stack(emit *e, uint32_t pid, uint64_t addr, uint64_t ts, const char *exe)
{
	const eimage *im = find_image(e, sv_etl_is_kernel(e->c, addr) ? 0 : pid, addr, ts);
	if (!im)
		return false;
	const char *b = sv_etl_base_name(im->path);
	if (strcasecmp(b, "ntdll.dll") == 0)
		return true;
	if (exe && exe[0] && strcasecmp(b, exe) == 0)
		return true;
	return (pid == 0 || pid == 4) && (strcasecmp(b, "ntoskrnl.exe") == 0 || strcasecmp(b, "ntkrnlmp.exe") == 0);
}

/* The process and thread frames of a thread, made when its first sample comes. */
static int thread_frames(emit *e, ethr *t, uint32_t pid, uint64_t ts, double ms)
{
	etl_ctx *c = e->c;
	const sv_sink_ops *ops = c->sink->ops;
	void *self = c->sink->self;
	int rc;
	const eproc *pr = pid != UINT32_MAX ? sv_etl_find_proc(c, pid, ts) : NULL;
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
	else if (!il) /* the trace never named it: as PerfView names such a process */
		snprintf(name, sizeof(name), "Process(%" PRIu32 ")", pid);
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

/* The thread entry of (pid, tid), made when first asked for; *out its index. */
static int thread_entry(emit *e, uint32_t pid, uint32_t tid, uint32_t *out)
{
	uint64_t key = (uint64_t)pid << 32 | tid;
	uint32_t t = sv_idmap_get(&e->thr_index, key);
	if (t == SV_IDMAP_NONE) {
		if (SV_ARRAY_RESERVE(e->thr, e->thrcap, e->nthr + 1))
			return SV_ENOMEM;
		e->thr[e->nthr] = (ethr){ pid, tid, 0, SV_STACK_NONE, false };
		t = (uint32_t)e->nthr++;
		if (sv_idmap_put(&e->thr_index, key, t))
			return SV_ENOMEM;
	}
	*out = t;
	return 0;
}

/* The process a sample's thread belongs to: its thread events, else the stack's process. */
static uint32_t sample_pid(const etl_ctx *c, uint32_t tid, uint64_t ts, uint32_t spid)
{
	uint32_t pid = 0;
	if (!sv_etl_thread_pid(c, tid, ts, &pid))
		pid = spid ? spid - 1 : tid == 0 ? 0 : UINT32_MAX;
	return pid;
}

/* ---- thread time (thread_time.h) ---- */

static int tt_thread_root(void *payload, uint32_t tid, sv_stack_id *out)
{
	emit *e = payload;
	uint32_t t;
	int rc = thread_entry(e, sample_pid(e->c, tid, e->now, 0), tid, &t);
	if (!rc && !e->thr[t].made)
		rc = thread_frames(e, &e->thr[t], e->thr[t].pid, e->now, e->ms);
	if (!rc)
		*out = e->thr[t].stack;
	return rc;
}

/* "READIED_BY Process NAME (pid) Thread (tid)": the waker as PerfView heads its frames. */
static int tt_waker_frame(void *payload, uint32_t tid, sv_frame_id *out)
{
	emit *e = payload;
	uint32_t v = sv_idmap_get(&e->wakers, tid);
	if (v != SV_IDMAP_NONE) {
		*out = v - 1;
		return 0;
	}
	uint32_t pid = sample_pid(e->c, tid, e->now, 0);
	const eproc *pr = pid != UINT32_MAX ? sv_etl_find_proc(e->c, pid, e->now) : NULL;
	const char *img = pr && pr->image && pr->image[0] ? pr->image : "?";
	const char *dot = strrchr(img, '.');
	int il = dot && dot != img ? (int)(dot - img) : (int)strlen(img);
	char name[400];
	if (pid == UINT32_MAX)
		snprintf(name, sizeof(name), "READIED_BY Process ? Thread (%" PRIu32 ")", tid);
	else
		snprintf(name, sizeof(name), "READIED_BY Process %.*s (%" PRIu32 ") Thread (%" PRIu32 ")", il > 300 ? 300 : il, img,
			 pid, tid);
	int rc = intern_name(e, out, name);
	return rc ? rc : sv_idmap_put(&e->wakers, tid, *out + 1);
}

/* KTHREAD_STATE of the thread switched out: Ready, Standby and DeferredReady are still
 * runnable (preempted), Terminated ends it, anything else waits for its wait reason. */
static sv_tt_out switch_out(const esample *s, const char **reason)
{
	*reason = NULL;
	switch (s->ostate) {
	case 1: case 3: case 7: return SV_TT_OUT_RUNNABLE;
	case 4: return SV_TT_OUT_DEAD;
	default: *reason = sv_etl_wait_reason(s->reason); return SV_TT_OUT_WAIT;
	}
}

const char *sv_etl_wait_reason(unsigned reason)
{
	/* TraceEvent's ThreadWaitReason (KWAIT_REASON) */
	static const char *const names[] = {
		"Executive", "FreePage", "PageIn", "PoolAllocation", "DelayExecution", "Suspended", "UserRequest",
		"WrExecutive", "WrFreePage", "WrPageIn", "WrPoolAllocation", "WrDelayExecution", "WrSuspended",
		"WrUserRequest", "WrEventPair", "WrQueue", "WrLpcReceive", "WrLpcReply", "WrVirtualMemory", "WrPageOut",
		"WrRendezvous", "WrKeyedEvent", "WrTerminated", "WrProcessInSwap", "WrCpuRateControl", "WrCalloutStack",
		"WrKernel", "WrResource", "WrPushLock", "WrMutex", "WrQuantumEnd", "WrDispatchInt", "WrPreempted",
		"WrYieldExecution", "WrFastMutex", "WrGuardedMutex", "WrRundown",
	};
	return reason < sizeof(names) / sizeof(names[0]) ? names[reason] : "(unknown reason)";
}

/* One record into the computer, at its time in ns from the trace's start. */
static int tt_feed(etl_ctx *c, sv_tt *tt, const esample *s, sv_stack_id st)
{
	uint64_t ticks = s->ts >= c->hdr_ts ? s->ts - c->hdr_ts : 0;
	double dns = (double)ticks * 1e9 / c->freq;
	if (!(dns < 9.2e18)) { /* past 292 years: a corrupt timestamp (or clock), not an interval */
		sv_etl_warn(c, W_PAYLOAD, "a thread-time event %.3g s after the trace's start ignored", dns / 1e9);
		return 0;
	}
	uint64_t ns = (uint64_t)dns;
	if (s->ekind == ES_CSWITCH) {
		const char *reason;
		sv_tt_out how = switch_out(s, &reason);
		/* the stack is the new thread's: where it had been waiting (PerfView) */
		return sv_tt_switch(tt, ns, s->cpu, s->other, how, reason, SV_STACK_NONE, s->tid, st);
	}
	if (s->ekind == ES_READY)
		return sv_tt_wakeup(tt, ns, s->other, s->tid, st);
	return s->tid ? sv_tt_sample(tt, ns, s->cpu, s->tid, st) : 0;
}

int sv_etl_emit_samples(etl_ctx *c, size_t *with_stack, size_t *jit_leaf, size_t *broken_count)
{
	emit e = { .c = c };
	int rc = 0;
	sv_idmap pair_index, memo;
	sv_idmap_init(&e.thr_index);
	sv_idmap_init(&e.wakers);
	sv_idmap_init(&pair_index);
	sv_idmap_init(&memo);
	size_t npairs = 0, nmemo = 0, memocap = 0;
	struct {
		sv_stack_id stack;
		uint32_t path; /* its code path (SV_LOC_NONE: none) */
		bool broken;
	} *memo_st = NULL; /* memoized stacks: (thread, kernel/user pair) -> stack */
	uint32_t *locs = NULL; /* a stack's locations being found, leaf first */
	size_t nlocs = 0, locs_cap = 0;
	uint32_t *spid = NULL; /* per sample: pid */
	uint32_t *sthr = NULL; /* per sample: thread index */
	sv_tt *tt = NULL;
	sv_cpu_root roots;
	sv_cpu_root_init(&roots);
	e.ms = c->interval ? (double)c->interval / 1e4 : 1.0;

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
	/* Threads and their CPU sample counts first: thread frames say how much CPU they used. */
	for (size_t i = 0; i < c->nsamples; i++) {
		const esample *s = &c->samples[i];
		if (s->lend == LEND_ALL) { /* a heap free: its allocation's thread (an earlier sample) */
			spid[i] = spid[s->other - 1], sthr[i] = sthr[s->other - 1];
		} else { /* a disk I/O with its Init event's stack: that stack's process */
			uint32_t sp = s->lend == LEND_STACK && !s->spid ? c->samples[s->other - 1].spid : s->spid;
			spid[i] = sample_pid(c, s->tid, s->ts, sp);
			if ((rc = thread_entry(&e, spid[i], s->tid, &sthr[i])))
				goto out;
		}
		e.thr[sthr[i]].samples += s->ekind == ES_SAMPLE;
	}
	if (c->nsamples && (rc = intern_name(&e, &e.broken, "BROKEN")))
		goto out;
	for (size_t i = 0; i < c->nsamples; i++)
		if (c->samples[i].ekind != ES_CARRIER) { /* carriers are not shown */
			c->first_pid = spid[i];
			break;
		}
	const sv_sink_ops *ops = c->sink->ops;
	void *self = c->sink->self;
	bool code = !c->tt_on && !c->no_code && ops->intern_location && ops->intern_code_path && ops->set_location_line && ops->add_sample_at;
	if (c->tt_on) {
		sv_tt_hooks hooks = { tt_thread_root, tt_waker_frame, &e };
		if ((rc = sv_tt_new(&tt, c->sink, &hooks, (sv_tt_view)c->tt_view, 0, c->by_cpu)))
			goto out;
	}
	for (size_t i = 0; i < c->nsamples; i++) {
		const esample *s = &c->samples[i];
		ethr *t = &e.thr[sthr[i]];
		uint32_t pid = spid[i];
		if (s->ekind == ES_CARRIER)
			continue;
		uint32_t kid = s->kid, uid = s->uid;
		if (s->lend == LEND_ALL || (s->lend == LEND_STACK && kid >= AS_EMPTY && uid >= AS_EMPTY))
			kid = c->samples[s->other - 1].kid, uid = c->samples[s->other - 1].uid; /* the lender's stack */
		bool any = kid < AS_EMPTY || uid < AS_EMPTY;
		e.now = s->ts;
		if (!any && (c->want || s->ekind != ES_SAMPLE)) { /* an event without a stack: under its thread */
			if (tt) { /* a switch or wake-up without a stack: the thread's own root */
				if ((rc = tt_feed(c, tt, s, SV_STACK_NONE)))
					goto out;
				continue;
			}
			if (!t->made && (rc = thread_frames(&e, t, pid, s->ts, e.ms)))
				goto out;
			sv_stack_id cur = t->stack;
			if ((rc = leaf_frames(&e, &cur, s->leaf, s->file)))
				goto out;
			if (c->by_cpu && (rc = sv_cpu_root_apply(&roots, c->sink, s->cpu, cur, &cur)))
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
		} else if (s->ekind == ES_SAMPLE) {
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
		const eproc *pr = (!t->made || st == SV_IDMAP_NONE) && pid != UINT32_MAX ? sv_etl_find_proc(c, pid, s->ts) : NULL;
		if (!t->made && (rc = thread_frames(&e, t, pid, s->ts, e.ms)))
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
			nlocs = 0;
			if (code && (rc = SV_ARRAY_RESERVE(locs, locs_cap, un + kn)))
				goto out;
			for (size_t k = un + kn; k-- > 0;) { /* the user half's outermost first, the kernel's leaf last */
				bool user = k >= kn;
				uint64_t addr = user ? ua[k - kn] : ka[k];
				sv_frame_id f;
				const eimage *im;
				if ((rc = address_frame(&e, &f, pid, addr, s->ts, &im)) || (rc = ops->intern_stack(self, &cur, cur, f)))
					goto out;
				uint32_t at = SV_LOC_NONE;
				if (code && (k == 0 || c->code_paths) && (rc = code_location(&e, f, im, addr, k == 0, &at)))
					goto out;
				if (at != SV_LOC_NONE)
					locs[nlocs++] = at;
			}
			uint32_t path = SV_LOC_NONE; /* the locations were found outermost first */
			for (size_t k = 0; k < nlocs && !rc; k++)
				rc = ops->intern_code_path(self, &path, path, locs[k]);
			if (rc || (rc = SV_ARRAY_RESERVE(memo_st, memocap, nmemo + 1)))
				goto out;
			memo_st[nmemo].stack = cur;
			memo_st[nmemo].path = path;
			memo_st[nmemo].broken = broken;
			st = (uint32_t)nmemo++;
			if ((rc = sv_idmap_put(&memo, mkey, st)))
				goto out;
		}
		if (s->ekind == ES_SAMPLE)
			*broken_count += memo_st[st].broken;
		if (!c->want && s->ekind == ES_SAMPLE && !sv_etl_is_kernel(c, s->ip) && find_method(&e, pid, s->ip, s->ts) &&
		    !find_image(&e, pid, s->ip, s->ts))
			(*jit_leaf)++;
		if (tt) {
			if ((rc = tt_feed(c, tt, s, memo_st[st].stack)))
				goto out;
			continue;
		}
		double t_ms = s->ts >= c->hdr_ts ? (double)(s->ts - c->hdr_ts) * 1000.0 / c->freq : 0.0;
		sv_stack_id leafed = memo_st[st].stack;
		if (c->want && (rc = leaf_frames(&e, &leafed, s->leaf, s->file)))
			goto out;
		if (c->by_cpu && (rc = sv_cpu_root_apply(&roots, c->sink, s->cpu, leafed, &leafed)))
			goto out;
		uint32_t path = memo_st[st].path;
		double metric = !c->want ? e.ms : s->metric;
		if ((rc = path != SV_LOC_NONE ? ops->add_sample_at(self, leafed, t_ms, metric, 1.0, path)
					       : ops->add_sample(self, leafed, t_ms, metric, 1.0)))
			goto out;
	}
	if (tt)
		rc = sv_tt_report(tt, c->sink, 0, c->events_lost);
out:
	sv_tt_free(tt);
	sv_cpu_root_dispose(&roots);
	free(memo_st);
	free(locs);
	sv_idmap_dispose(&e.thr_index);
	sv_idmap_dispose(&e.wakers);
	sv_idmap_dispose(&pair_index);
	sv_idmap_dispose(&memo);
	free(e.thr);
	free(spid);
	free(sthr);
	free(e.img_pids);
	free(e.meth_pids);
	return rc;
}
