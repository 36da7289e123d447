/* SPDX-License-Identifier: MIT */
/* perf.data reader, second half: side-band records applied to the address spaces and tasks
 * (tasks.c), frames named by frames.c (each address once per address space), samples turned
 * into stacks from their thread's last path, --call-graph dwarf samples unwound through
 * unwind.c, and the scheduler tracepoints for thread time. Records arrive here in time order from data.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_int.h"

static int tt_start(pdr *r, uint64_t time);

/* Apply one side-band record in time order. */
int sv_pdr_apply(pdr *r, uint32_t type, uint16_t misc, const unsigned char *p, size_t n)
{
	switch (type) {
	case R_SWITCH: {
		/* --switch-events: each switch in and out of the program's own threads, which a
		 * per-program recording's sched_switch samples only half see (they fire in the
		 * task that leaves, often another program's). The switch times are these records';
		 * a switch-out's state and stack are its sched_switch sample's, just before it. */
		int32_t tid;
		uint64_t t;
		uint32_t cpu;
		if (!r->tt_on || !sv_pdr_record_id(r, p, n, &tid, &t, &cpu) || tid <= 0)
			return 0;
		uint32_t c = cpu == UINT32_MAX ? SV_TT_NO_CPU : cpu;
		int rc = tt_start(r, t);
		if (!rc && !(misc & MISC_SWITCH_OUT)) {
			rc = sv_tt_switch(r->tt, t, c, 0, SV_TT_OUT_WAIT, NULL, SV_STACK_NONE, (uint32_t)tid, SV_STACK_NONE);
		} else if (!rc) {
			uint32_t i = sv_idmap_get(&r->thread_idx, (uint32_t)tid);
			thread *th = i != SV_IDMAP_NONE ? &r->threads[i] : NULL;
			sv_tt_out how = (misc & MISC_SWITCH_OUT_PREEMPT) ? SV_TT_OUT_RUNNABLE
					: th && th->sw_how ? (sv_tt_out)(th->sw_how - 1) : SV_TT_OUT_WAIT;
			rc = sv_tt_switch(r->tt, t, c, (uint32_t)tid, how, th && th->sw_how ? th->sw_reason : NULL,
					  th && th->sw_how ? th->sw_stack : SV_STACK_NONE, 0, SV_STACK_NONE);
			if (th)
				th->sw_how = 0;
		}
		return rc ? sv_pdr_oom(r) : 0;
	}
	case R_MMAP:
	case R_MMAP2: {
		size_t fo = type == R_MMAP ? 32 : 32 + 24 + 8;
		if (n <= fo)
			return 0;
		int32_t pid = (int32_t)rd32(p);
		uint64_t start = rd64(p + 8), len = rd64(p + 16), pgoff = rd64(p + 24);
		const char *fname = (const char *)p + fo;
		size_t fl = strnlen(fname, n - fo);
		if (misc & MISC_EXEC) /* data mapping */
			return 0;
		if (type == R_MMAP2 && !(rd32(p + 56) & 4) && rd32(p + 56)) /* prot without PROT_EXEC */
			return 0;
		sv_perf_dso *d = sv_perf_dso_get(r->syms, fname, fl);
		if (!d)
			return sv_pdr_oom(r);
		if (type == R_MMAP2 && (misc & MISC_MMAP_BUILD_ID) && !d->build_id_len) {
			size_t bl = p[32] <= 20 ? p[32] : 20;
			memcpy(d->build_id, p + 36, bl);
			d->build_id_len = (uint8_t)bl;
		}
		map nm = { start, start + len < start ? UINT64_MAX : start + len, pgoff, d };
		bool kernel = pid == -1 || (misc & MISC_CPUMODE) == MISC_KERNEL;
		if (kernel) {
			r->kgen = ++r->gen;
			return sv_pdr_maps_insert(&r->kmaps, nm) ? sv_pdr_oom(r) : 0;
		}
		proc *pr = sv_pdr_proc(r, pid);
		if (!pr || !(pr->m = sv_pdr_maps_own(pr->m)) || sv_pdr_maps_insert(pr->m, nm))
			return sv_pdr_oom(r);
		pr->gen = ++r->gen;
		return 0;
	}
	case R_COMM: {
		if (n <= 8)
			return 0;
		int32_t pid = (int32_t)rd32(p), tid = (int32_t)rd32(p + 4);
		const char *c = (const char *)p + 8;
		thread *t = sv_pdr_thread(r, pid, tid);
		if (!t || sv_pdr_comm_intern(r, c, strnlen(c, n - 8), &t->comm))
			return sv_pdr_oom(r);
		/* As perf: exec does not drop the old mappings; the new image's mmaps replace what
		 * they overlap, and samples taken inside execve still name the old frames. */
		return 0;
	}
	case R_FORK: {
		if (n < 16)
			return 0;
		int32_t pid = (int32_t)rd32(p), ppid = (int32_t)rd32(p + 4), tid = (int32_t)rd32(p + 8),
			ptid = (int32_t)rd32(p + 12);
		uint32_t pc = UINT32_MAX;
		uint32_t pi = sv_idmap_get(&r->thread_idx, (uint32_t)ptid);
		if (pi != SV_IDMAP_NONE)
			pc = r->threads[pi].comm;
		thread *t = sv_pdr_thread(r, pid, tid);
		if (!t)
			return sv_pdr_oom(r);
		t->comm = pc;
		if (pid != ppid) { /* a new process shares its parent's mappings until it changes them */
			proc *pp = sv_pdr_proc(r, ppid);
			proc *np = pp ? sv_pdr_proc(r, pid) : NULL;
			if (!np)
				return sv_pdr_oom(r);
			pp = sv_pdr_proc(r, ppid); /* proc_get may have moved the array */
			if (np != pp && np->m->n == 0) {
				sv_pdr_maps_unref(np->m);
				np->m = pp->m;
				np->m->refs++;
				np->gen = ++r->gen;
			}
		}
		return 0;
	}
	case R_LOST:
		if (n >= 16)
			r->lost += rd64(p + 8);
		return 0;
	case R_LOST_SAMPLES:
		if (n >= 8)
			r->lost_samples += rd64(p);
		return 0;
	default: return 0;
	}
}

/* ---- samples ---- */

/* The Process -> Thread root of a sample's thread, named as the thread is called now. */
static int thread_stack(pdr *r, sv_stack_id *out, thread *t)
{
	const char *comm = r->comm_names + t->comm;
	return sv_perf_names_thread(&r->names, r->sink, t->pid, t->tid, comm, strlen(comm), out);
}

/* A thread without a COMM record is called as its process's main thread, else ":tid" (the
 * idle task: "swapper"). */
static int ensure_comm(pdr *r, thread *t)
{
	if (t->comm != UINT32_MAX)
		return 0;
	uint32_t li = sv_idmap_get(&r->thread_idx, (uint32_t)t->pid);
	if (li != SV_IDMAP_NONE && r->threads[li].comm != UINT32_MAX) {
		t->comm = r->threads[li].comm;
		return 0;
	}
	char buf[24];
	int n = t->tid == 0 ? snprintf(buf, sizeof(buf), "swapper") /* the idle task, as perf names it */
			    : snprintf(buf, sizeof(buf), ":%d", t->tid);
	return sv_pdr_comm_intern(r, buf, (size_t)n, &t->comm) ? SV_ENOMEM : 0;
}

/* The user part of a --call-graph dwarf sample, unwound into pcs. */
static size_t unwind_user(pdr *r, proc *pr, const sample *s, uint64_t *pcs)
{
	if (!pr->uw && sv_perf_unwinder_new(&pr->uw, sv_perf_syms_callbacks(r->syms), pr->pid))
		return 0;
	if (pr->uw_gen != pr->gen) {
		pr->uw_gen = pr->gen;
		const sv_perf_dso *dsos[256];
		uint64_t bias[256];
		size_t nd = 0;
		for (size_t i = 0; i < pr->m->n && nd < 256; i++) {
			const map *m = &pr->m->v[i];
			sv_perf_dso *d = m->dso;
			if (d->jit)
				continue;
			sv_perf_dso_load(r->syms, d);
			if (!d->elf_path || d->elf_path[0] == '[')
				continue;
			/* load bias: runtime address minus the ELF address of the mapped offset */
			uint64_t b = m->start - sv_perf_dso_addr(d, m->pgoff);
			bool dup = false;
			for (size_t k = 0; k < nd; k++)
				dup |= dsos[k] == d;
			if (!dup) {
				dsos[nd] = d;
				bias[nd++] = b;
			}
		}
		if (sv_perf_unwinder_sync(pr->uw, dsos, bias, nd))
			return 0;
	}
	uint64_t regs[64];
	size_t nregs = s->nregs < 64 ? s->nregs : 64;
	memcpy(regs, s->regs, nregs * 8);
	return sv_perf_unwinder_run(pr->uw, regs, nregs, r->attrs[s->attr].regs_user, s->stack, (size_t)s->stack_size, pcs,
				    UNWIND_MAX);
}

/* The location of code at ip whose symbol's frame is `frame`: its file (the ELF file whose
 * symbols name it) and the address in that file, `back` bytes before ip (a return address's
 * call instruction). Code that is no file's (the kernel's, JIT, anonymous memory, no file
 * found, pr NULL) has a location without a file when it is the leaf (back 0), so that a path
 * ends at its sample's leaf; as a caller, none. SV_LOC_NONE when the sink keeps none. */
static int code_location(pdr *r, const proc *pr, uint64_t ip, unsigned back, sv_frame_id frame, uint32_t *out)
{
	*out = SV_LOC_NONE;
	const sv_sink_ops *ops = r->sink->ops;
	if (!ops->intern_location || !ops->intern_code_file || !ops->intern_code_path || !ops->add_sample_at || r->opts->no_code)
		return 0;
	const map *m = pr ? sv_pdr_maps_find(pr->m, ip) : NULL;
	if (!m || m->dso->jit || !m->dso->elf_path || m->dso->elf_path[0] == '[')
		return back ? 0 : ops->intern_location(r->sink->self, out, frame, SV_LOC_NONE, ip); /* a leaf: no file */
	uint32_t file = m->dso->code_file - 1;
	int rc = 0;
	if (!m->dso->code_file && !(rc = ops->intern_code_file(r->sink->self, &file, m->dso->elf_path)))
		m->dso->code_file = file + 1;
	if (!rc)
		rc = ops->intern_location(r->sink->self, out, frame, file,
					  sv_perf_dso_addr(m->dso, ip - m->start + m->pgoff) - back);
	return rc;
}

/* The code path of the locations found leaf first (r->locs, n of them): interned from the
 * outermost caller. */
static int code_path(pdr *r, size_t n, uint32_t *out)
{
	*out = SV_LOC_NONE;
	for (size_t i = n; i-- > 0;) {
		int rc = r->sink->ops->intern_code_path(r->sink->self, out, *out, r->locs[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* The stack of frames r->fids[nf - 1] (the root-most) .. r->fids[0] under *st (the thread's
 * stack), into *st: the callers the thread's last sample had too are taken from it, the
 * rest interned. 0 or an error. */
static int intern_path(pdr *r, thread *t, size_t nf, sv_stack_id *st)
{
	size_t same = 0;
	if (t->path_base == *st)
		while (same < nf && same < t->path_len && t->path[2 * same] == r->fids[nf - 1 - same])
			same++;
	if (nf > t->path_cap) {
		size_t cap = t->path_cap;
		if (sv_array_reserve(&t->path, &cap, nf, 2 * sizeof(*t->path)))
			return SV_ENOMEM;
		t->path_cap = (uint32_t)cap;
	}
	t->path_base = *st;
	sv_stack_id cur = same ? t->path[2 * same - 1] : *st;
	for (size_t j = same; j < nf; j++) {
		int rc = r->sink->ops->intern_stack(r->sink->self, &cur, cur, r->fids[nf - 1 - j]);
		if (rc) {
			t->path_len = 0;
			return rc;
		}
		t->path[2 * j] = r->fids[nf - 1 - j];
		t->path[2 * j + 1] = cur;
	}
	t->path_len = (uint32_t)nf;
	*st = cur;
	return 0;
}

/* The stack of a parsed sample, under its thread and process frames, and the code path it
 * executed along (loc: NULL when not wanted). 0, or a failure already reported. */
static int sample_stack(pdr *r, const sample *sp, uint16_t misc, size_t off, sv_stack_id *out, uint32_t *loc)
{
	sample s = *sp; /* a copy: DWARF unwinding rewrites its chain fields */
	const attr *a = &r->attrs[s.attr];
	if (!r->have_t0) {
		r->have_t0 = true;
		r->t0 = s.time;
	}
	proc *pr = sv_pdr_proc(r, s.pid);
	thread *t = pr ? sv_pdr_thread(r, s.pid, s.tid) : NULL; /* (a new thread moves no process) */
	if (!t || ensure_comm(r, t))
		return sv_pdr_oom(r);
	sv_stack_id st;
	int rc = thread_stack(r, &st, t);
	if (rc)
		return sv_pdr_fail(r, rc, off, "cannot intern thread");

	/* The callchain's entries (kernel, then user); a DWARF sample's user part unwound. */
	size_t nchain = s.has_chain ? (size_t)s.nchain : 1;
	if (nchain > SV_MAX_STACK_DEPTH)
		nchain = SV_MAX_STACK_DEPTH;
	bool dwarf = s.regs && s.stack && (a->sample_type & ST_REGS_USER) && (a->sample_type & ST_STACK_USER);
	if (sv_array_reserve(&r->chain, &r->chain_cap, nchain + 1 + (dwarf ? UNWIND_MAX : 0), 8))
		return sv_pdr_oom(r);
	uint64_t *ips = r->chain;
	if (s.has_chain) {
		for (size_t i = 0; i < nchain; i++)
			ips[i] = rd64(s.chain + 8 * i);
	} else {
		ips[0] = s.ip;
	}
	if (dwarf) {
		/* The chain holds the kernel part; the user part is unwound from the stack copy. */
		size_t k = 0;
		if (s.has_chain)
			while (k < nchain && ips[k] != CTX_USER)
				k++;
		else
			k = (misc & MISC_CPUMODE) == MISC_KERNEL ? 1 : 0;
		ips[k] = CTX_USER;
		size_t nu = unwind_user(r, pr, &s, ips + 1 + k);
		nchain = k + 1 + nu;
		s.has_chain = true;
	}
	uint32_t leaf = SV_LOC_NONE;
	if (SV_ARRAY_RESERVE(r->fids, r->fid_cap, nchain + 1))
		return sv_pdr_oom(r);
	size_t nf = 0;
	unsigned mode = misc & MISC_CPUMODE;
	bool leaf_seen = false, exact = false; /* exact: the entry is where user code was interrupted */
	size_t nloc = 0;
	if (loc && SV_ARRAY_RESERVE(r->locs, r->locs_cap, nchain + 1))
		return sv_pdr_oom(r);
	for (size_t i = 0; i < nchain; i++) {
		uint64_t ip = ips[i];
		if (s.has_chain && ip >= CTX_MAX) {
			if (ip != CTX_KERNEL && ip != CTX_USER && ip != CTX_HV && ip != CTX_GUEST &&
			    ip != CTX_GUEST_KERNEL && ip != CTX_GUEST_USER) {
				nf = 0; /* as perf: an invalid context drops the whole callchain */
				break;
			}
			mode = ip == CTX_KERNEL ? MISC_KERNEL : ip == CTX_USER ? MISC_USER : 0;
			/* the user part after the kernel's starts at the interrupted instruction
			 * itself (the registers' ip), not at a return address */
			exact = ip == CTX_USER && leaf_seen;
			continue;
		}
		if (dwarf && mode == MISC_USER && !r->opts->no_inline) {
			const sv_frame_id *inl = NULL;
			size_t ni = 0;
			if ((rc = sv_pdr_inline_frames(r, pr, ip, &inl, &ni)) ||
			    SV_ARRAY_RESERVE(r->fids, r->fid_cap, nf + ni + (nchain - i) + 1))
				return sv_pdr_fail(r, rc ? rc : SV_ENOMEM, off, "cannot name a frame");
			if (ni)
				memcpy(r->fids + nf, inl, ni * sizeof(*inl));
			nf += ni;
		}
		if (mode == MISC_KERNEL)
			rc = sv_pdr_kernel_frame(r, &r->fids[nf], ip);
		else if (mode == MISC_USER)
			rc = sv_pdr_user_frame(r, &r->fids[nf], pr, ip);
		else
			rc = sv_pdr_unknown_frame(r, &r->fids[nf]);
		/* where it executed: a leaf's instruction, a caller's call (a frame-pointer chain
		 * holds return addresses; the unwinder gives calls already) */
		uint32_t at = SV_LOC_NONE;
		if (!rc && loc && (!leaf_seen || (r->opts->code_paths && mode == MISC_USER)))
			rc = code_location(r, mode == MISC_USER ? pr : NULL, ip, leaf_seen && !dwarf && !exact ? 1 : 0,
					   r->fids[nf], &at);
		if (at != SV_LOC_NONE)
			r->locs[nloc++] = at;
		leaf_seen = true;
		exact = false;
		if (rc)
			return sv_pdr_fail(r, rc, off, "cannot name a frame");
		nf++;
	}
	if ((rc = intern_path(r, t, nf, &st)))
		return sv_pdr_fail(r, rc, off, "cannot intern stack");
	if (loc && (rc = code_path(r, nloc, &leaf)))
		return sv_pdr_fail(r, rc, off, "cannot intern a code path");
	*out = st;
	if (loc)
		*loc = leaf;
	return 0;
}

/* ---- thread time (thread_time.h) ---- */

/* A thread's Process -> Thread root, for a thread known only by its tid. */
static int tt_thread_root(void *payload, uint32_t tid, sv_stack_id *out)
{
	pdr *r = payload;
	thread *t = sv_pdr_thread(r, -1, (int32_t)tid);
	if (!t)
		return SV_ENOMEM;
	if (t->pid == -1)
		t->pid = t->tid; /* never named by a record: a kernel thread or the idle task */
	if (ensure_comm(r, t))
		return SV_ENOMEM;
	return thread_stack(r, out, t);
}

static int tt_waker_frame(void *payload, uint32_t tid, sv_frame_id *out)
{
	pdr *r = payload;
	sv_stack_id root;
	int rc = tt_thread_root(r, tid, &root);
	if (rc)
		return rc;
	uint32_t i = sv_idmap_get(&r->thread_idx, tid);
	return sv_perf_names_waker(&r->names, r->sink, r->threads[i].pid, tid, out);
}

static int tt_start(pdr *r, uint64_t time)
{
	if (!r->have_t0) {
		r->have_t0 = true;
		r->t0 = time;
	}
	if (r->tt)
		return 0;
	sv_tt_hooks hooks = { tt_thread_root, tt_waker_frame, r };
	return sv_tt_new(&r->tt, r->sink, &hooks, r->tt_view, r->t0, r->opts->by_cpu);
}

static int64_t raw_int(const sample *s, const tp_format *f, int k, bool *ok)
{
	int at = f->off[k], sz = f->size[k];
	if (at < 0 || !s->raw || (size_t)at + (size_t)sz > s->raw_size) {
		*ok = false;
		return -1;
	}
	if (sz == 8) {
		int64_t v;
		memcpy(&v, s->raw + at, 8);
		return v;
	}
	int32_t v;
	memcpy(&v, s->raw + at, 4);
	return v;
}

/* prev_state as the kernel reports it (sched_switch's print fmt): 0 running, or the bits
 * S D T t X Z P I (0x01 .. 0x80); preemption sets the bit above them (R+). */
static sv_tt_out switch_state(int64_t state, const char **reason)
{
	static const char *const names[] = { "S (sleeping)", "D (disk)", "T (stopped)", "t (traced)", "X (dead)",
					     "Z (zombie)", "P (parked)", "I (idle)" };
	*reason = NULL;
	if (!(state & 0xff))
		return SV_TT_OUT_RUNNABLE;
	if (state & 0x30)
		return SV_TT_OUT_DEAD;
	for (int b = 0; b < 8; b++)
		if (state & (1 << b)) {
			*reason = names[b];
			break;
		}
	return SV_TT_OUT_WAIT;
}

/* sched:sched_switch: the thread switched out leaves at this sample's stack. */
static int switch_sample(pdr *r, sample *s, uint16_t misc, size_t off)
{
	const tp_format *f = &r->tp[TP_SWITCH];
	bool ok = true;
	int64_t prev = raw_int(s, f, TPF_PREV_PID, &ok), state = raw_int(s, f, TPF_PREV_STATE, &ok),
		next = raw_int(s, f, TPF_NEXT_PID, &ok);
	if (!ok || prev < 0 || next < 0 || prev > UINT32_MAX || next > UINT32_MAX) {
		sv_pdr_bad_sample(r, off, "sched_switch data too short for its format");
		return 0;
	}
	if (s->period > 1)
		r->tt_sampled++;
	/* the stack is prev's own, except on an exiting thread's last switch, which perf records
	 * with pid and tid -1 (the task is already released): it has no interval to carry */
	sv_stack_id st = SV_STACK_NONE;
	int rc = prev > 0 && s->tid == prev ? sample_stack(r, s, misc, off, &st, NULL) : 0;
	if (rc)
		return rc;
	const char *reason;
	sv_tt_out how = switch_state(state, &reason);
	if (r->counts[R_SWITCH] && how != SV_TT_OUT_DEAD) { /* the switch-out record that follows does the switch (an exiting thread has none) */
		thread *th = prev > 0 ? sv_pdr_thread(r, s->pid, (int32_t)prev) : NULL;
		if (prev > 0 && !th)
			return sv_pdr_oom(r);
		if (th) {
			th->sw_how = (uint8_t)(how + 1);
			th->sw_reason = reason;
			th->sw_stack = st;
		}
		r->kept++;
		return tt_start(r, s->time) ? sv_pdr_oom(r) : 0;
	}
	if (r->counts[R_SWITCH])
		next = 0; /* switch-ins come from the records */
	if ((rc = tt_start(r, s->time)) ||
	    (rc = sv_tt_switch(r->tt, s->time, s->cpu, (uint32_t)prev, how, reason, st, (uint32_t)next, SV_STACK_NONE)))
		return sv_pdr_fail(r, rc, off, "cannot add sample");
	r->kept++;
	return 0;
}

/* sched:sched_wakeup (_new, sched_waking): the sample's thread makes `pid` runnable. */
static int wakeup_sample(pdr *r, sample *s, uint16_t misc, size_t off, int k)
{
	bool ok = true;
	int64_t tid = raw_int(s, &r->tp[k], TPF_PID, &ok);
	if (!ok || tid < 0 || tid > UINT32_MAX) {
		sv_pdr_bad_sample(r, off, "sched_wakeup data too short for its format");
		return 0;
	}
	sv_stack_id st = SV_STACK_NONE;
	int rc = 0;
	if (s->tid > 0 && r->tt_view == SV_TT_READIED_BY && (rc = sample_stack(r, s, misc, off, &st, NULL)))
		return rc;
	if ((rc = tt_start(r, s->time)) || (rc = sv_tt_wakeup(r->tt, s->time, (uint32_t)tid, s->tid > 0 ? (uint32_t)s->tid : 0, st)))
		return sv_pdr_fail(r, rc, off, "cannot add sample");
	return 0;
}

int sv_pdr_sample(pdr *r, const unsigned char *p, size_t n, uint16_t misc, size_t off)
{
	long ai = sv_pdr_sample_attr(r, p, n);
	int tp = -1;
	for (int k = 0; r->tt_on && ai >= 0 && k < TP_KINDS && tp < 0; k++)
		if (ai == r->tp_attr[k])
			tp = k;
	if (ai < 0 || (!r->attrs[ai].selected && tp < 0)) {
		r->samples_other++;
		return 0;
	}
	sample s;
	const char *why = NULL;
	if (!sv_pdr_parse_sample(&r->attrs[ai], p, n, &s, &why)) {
		sv_pdr_bad_sample(r, off, why);
		return 0;
	}
	s.attr = (size_t)ai;
	if (tp == TP_SWITCH)
		return switch_sample(r, &s, misc, off);
	if (tp >= 0)
		return wakeup_sample(r, &s, misc, off, tp);
	sv_stack_id st;
	uint32_t loc;
	int rc = sample_stack(r, &s, misc, off, &st, &loc);
	if (rc)
		return rc;
	if (r->tt_on) { /* a CPU sample slices its thread's running time */
		if (s.tid <= 0)
			return 0; /* the idle task */
		if ((rc = tt_start(r, s.time)) || (rc = sv_tt_sample(r->tt, s.time, s.cpu, (uint32_t)s.tid, st)))
			return sv_pdr_fail(r, rc, off, "cannot add sample");
		return 0;
	}
	double m = r->clock_event ? (double)s.period / 1e6 : (double)s.period;
	if (r->opts->by_cpu && (rc = sv_cpu_root_apply(&r->cpu_roots, r->sink, s.cpu, st, &st)))
		return sv_pdr_fail(r, rc, off, "cannot intern stack");
	r->kept++;
	rc = loc != SV_LOC_NONE ? r->sink->ops->add_sample_at(r->sink->self, st, sv_pdr_rel_ms(r->t0, s.time), m, 1.0, loc)
				: r->sink->ops->add_sample(r->sink->self, st, sv_pdr_rel_ms(r->t0, s.time), m, 1.0);
	return rc ? sv_pdr_fail(r, rc, off, "cannot add sample") : 0;
}
