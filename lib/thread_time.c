/* SPDX-License-Identifier: MIT */
/* Thread time: each thread's running, runnable and waiting intervals from context switches
 * and wake-ups, as samples (thread_time.h; PerfView's ThreadTimeStackComputer, made exact
 * for preemption and for incomplete input — docs/thread-time.md). */
#include "sv/thread_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv/cpu_root.h"
#include "sv/array.h"
#include "sv/idmap.h"

enum { T_UNKNOWN, T_RUNNING, T_OUT, T_DEAD };

typedef struct tthread {
	uint32_t tid;
	uint32_t cpu;       /* T_RUNNING: where */
	uint8_t state, how; /* how: sv_tt_out while T_OUT */
	bool woken;
	uint64_t since;     /* T_RUNNING: the open slice's start; T_OUT: the switch-out */
	uint64_t woken_t;
	uint64_t done;      /* end of the last interval emitted */
	sv_stack_id out_stack, cur_stack, waker_stack;
	sv_frame_id reason; /* UINT32_MAX: none */
	uint32_t waker;
} tthread;

typedef struct wait_reason {
	char *name;
	sv_frame_id fid;
} wait_reason;

struct sv_tt {
	sv_sink *sink;
	sv_tt_hooks hooks;
	sv_tt_view view;
	uint64_t t0;
	tthread *th;
	size_t nth, th_cap;
	sv_idmap th_idx;       /* tid -> index */
	wait_reason *reasons;
	size_t nreasons, reason_cap;
	sv_idmap suffixed;     /* frame -> its "(READIED_BY)" twin */
	sv_idmap readied;      /* (wait's stack, waker's stack) -> the two joined */
	sv_frame_id *walk;     /* a waker's frames, leaf first */
	size_t walk_cap;
	char *name;
	size_t name_cap;
	sv_frame_id cpu_fid, ready_fid, blocked_fid, preempt_fid;
	struct tcpu {
		uint32_t tid;      /* the thread last seen running there (0: none) */
		uint64_t switched; /* the time of its last switch on record (0: none yet) */
	} *on_cpu;             /* per CPU */
	size_t ncpus;
	bool by_cpu;
	sv_cpu_root roots;
	sv_tt_stats stats;
};

static const char *const view_names[] = { "thread-time", "thread-time-readied", "off-cpu", "ready-time" };

const char *sv_tt_view_name(sv_tt_view view)
{
	return (size_t)view < sizeof(view_names) / sizeof(view_names[0]) ? view_names[view] : "?";
}

bool sv_tt_view_parse(const char *name, sv_tt_view *out)
{
	for (size_t i = 0; name && i < sizeof(view_names) / sizeof(view_names[0]); i++)
		if (!strcmp(name, view_names[i])) {
			*out = (sv_tt_view)i;
			return true;
		}
	return false;
}

static int frame(sv_tt *tt, sv_frame_id *fid, const char *name)
{
	if (*fid != UINT32_MAX)
		return 0;
	return tt->sink->ops->intern_frame(tt->sink->self, fid, name, strlen(name));
}

int sv_tt_new(sv_tt **out, sv_sink *sink, const sv_tt_hooks *hooks, sv_tt_view view, uint64_t t0, bool by_cpu)
{
	sv_tt *tt = calloc(1, sizeof(*tt));
	if (!tt)
		return SV_ENOMEM;
	tt->sink = sink;
	tt->hooks = *hooks;
	tt->view = view;
	tt->t0 = t0;
	sv_idmap_init(&tt->th_idx);
	sv_idmap_init(&tt->suffixed);
	sv_idmap_init(&tt->readied);
	sv_cpu_root_init(&tt->roots);
	tt->by_cpu = by_cpu;
	tt->cpu_fid = tt->ready_fid = tt->blocked_fid = tt->preempt_fid = UINT32_MAX;
	if (sink->ops->set_intervals && sink->ops->set_intervals(sink->self)) {
		sv_tt_free(tt);
		return SV_ENOMEM;
	}
	/* every interval is whole ns (emit): sums kept in ns are exact */
	if (sink->ops->set_metric_quantum)
		sink->ops->set_metric_quantum(sink->self, 1e-6);
	*out = tt;
	return 0;
}

void sv_tt_free(sv_tt *tt)
{
	if (!tt)
		return;
	for (size_t i = 0; i < tt->nreasons; i++)
		free(tt->reasons[i].name);
	free(tt->reasons);
	free(tt->th);
	free(tt->walk);
	free(tt->name);
	free(tt->on_cpu);
	sv_cpu_root_dispose(&tt->roots);
	sv_idmap_dispose(&tt->th_idx);
	sv_idmap_dispose(&tt->suffixed);
	sv_idmap_dispose(&tt->readied);
	free(tt);
}

static int thread_of(sv_tt *tt, uint32_t tid, tthread **out)
{
	uint32_t i = sv_idmap_get(&tt->th_idx, tid);
	if (i == SV_IDMAP_NONE) {
		if (SV_ARRAY_RESERVE(tt->th, tt->th_cap, tt->nth + 1) || sv_idmap_put(&tt->th_idx, tid, (uint32_t)tt->nth))
			return SV_ENOMEM;
		i = (uint32_t)tt->nth++;
		tthread *t = &tt->th[i];
		memset(t, 0, sizeof(*t));
		t->tid = tid;
		t->out_stack = t->cur_stack = t->waker_stack = SV_STACK_NONE;
		t->reason = UINT32_MAX;
	}
	*out = &tt->th[i];
	return 0;
}

static int reason_frame(sv_tt *tt, const char *name, sv_frame_id *out)
{
	*out = UINT32_MAX;
	if (!name || !*name)
		return 0;
	for (size_t i = 0; i < tt->nreasons; i++)
		if (!strcmp(tt->reasons[i].name, name)) {
			*out = tt->reasons[i].fid;
			return 0;
		}
	char text[160];
	snprintf(text, sizeof(text), "Wait %s", name);
	wait_reason r = { strdup(name), UINT32_MAX };
	int rc = r.name ? frame(tt, &r.fid, text) : SV_ENOMEM;
	if (!rc && SV_ARRAY_PUSH(tt->reasons, tt->nreasons, tt->reason_cap, r))
		rc = SV_ENOMEM;
	if (rc) {
		free(r.name);
		return rc;
	}
	*out = r.fid;
	return 0;
}

static int push(sv_tt *tt, sv_stack_id *st, sv_frame_id fid)
{
	return tt->sink->ops->intern_stack(tt->sink->self, st, *st, fid);
}

/* A thread's stack where it waited: what the switch gave, else its bare thread. */
static int base_stack(sv_tt *tt, const tthread *t, sv_stack_id given, sv_stack_id *out)
{
	if (given != SV_STACK_NONE) {
		*out = given;
		return 0;
	}
	return tt->hooks.thread_root(tt->hooks.payload, t->tid, out);
}

/* The waker's frames under a wait: "READIED_BY Process X (pid) Thread (tid)", then the
 * waker's own frames root first, each "NAME (READIED_BY)" so that they never merge with the
 * waker's real frames (PerfView's Thread Time (with ReadyThread) view). */
static int readied_by_walk(sv_tt *tt, const tthread *t, sv_stack_id *st);

/* Memoized per (wait's stack, waker's stack): the walk is paid once per distinct pair. */
static int readied_by(sv_tt *tt, const tthread *t, sv_stack_id *st)
{
	uint64_t key = (uint64_t)*st << 32 | t->waker_stack;
	uint32_t v = t->waker_stack != SV_STACK_NONE ? sv_idmap_get(&tt->readied, key) : SV_IDMAP_NONE;
	if (v != SV_IDMAP_NONE) {
		*st = v;
		return 0;
	}
	int rc = readied_by_walk(tt, t, st);
	if (!rc && t->waker_stack != SV_STACK_NONE && *st != SV_IDMAP_NONE && sv_idmap_put(&tt->readied, key, *st))
		return SV_ENOMEM;
	return rc;
}

static int readied_by_walk(sv_tt *tt, const tthread *t, sv_stack_id *st)
{
	const sv_sink_ops *ops = tt->sink->ops;
	if (!ops->stack_step || !ops->frame_name)
		return 0;
	sv_stack_id root, s = t->waker_stack;
	sv_frame_id head;
	int rc = tt->hooks.thread_root(tt->hooks.payload, t->waker, &root);
	if (!rc)
		rc = tt->hooks.waker_frame(tt->hooks.payload, t->waker, &head);
	if (!rc)
		rc = push(tt, st, head);
	size_t n = 0;
	while (!rc && s != SV_STACK_NONE && s != root && n < SV_MAX_STACK_DEPTH) {
		sv_frame_id f;
		sv_stack_id caller;
		if ((rc = ops->stack_step(tt->sink->self, s, &f, &caller)))
			break;
		if (SV_ARRAY_RESERVE(tt->walk, tt->walk_cap, n + 1))
			return SV_ENOMEM;
		tt->walk[n++] = f;
		s = caller;
	}
	if (s != root)
		return rc; /* not under the waker's thread (or too deep): the header alone */
	while (!rc && n-- > 0) {
		sv_frame_id f = tt->walk[n];
		uint32_t twin = sv_idmap_get(&tt->suffixed, f);
		if (twin == SV_IDMAP_NONE) {
			const char *name = ops->frame_name(tt->sink->self, f);
			size_t len = name ? strlen(name) : 0;
			if (sv_array_reserve(&tt->name, &tt->name_cap, len + 16, 1))
				return SV_ENOMEM;
			memcpy(tt->name, name ? name : "", len);
			memcpy(tt->name + len, " (READIED_BY)", 14);
			if ((rc = ops->intern_frame(tt->sink->self, &twin, tt->name, len + 13)))
				break;
			if (sv_idmap_put(&tt->suffixed, f, twin))
				return SV_ENOMEM;
		}
		rc = push(tt, st, twin);
	}
	return rc;
}

enum kind { K_CPU, K_READIED, K_PREEMPTED, K_BLOCKED };

/* One interval [start, end) of thread t at stack st (its leaf frames added here), on cpu. */
static int emit(sv_tt *tt, tthread *t, uint64_t start, uint64_t end, sv_stack_id st, enum kind k, uint32_t cpu)
{
	if (start < t->done || end < start) {
		tt->stats.disordered++;
		return 0;
	}
	t->done = end;
	double ms = (double)(end - start) / 1e6;
	if (k == K_CPU)
		tt->stats.cpu_ms += ms;
	else if (k == K_BLOCKED)
		tt->stats.blocked_ms += ms;
	else
		tt->stats.readied_ms += ms;
	if (end == start || (k == K_CPU && tt->view >= SV_TT_OFF_CPU) || (k == K_BLOCKED && tt->view == SV_TT_READY_TIME))
		return 0;
	int rc = 0;
	sv_frame_id *leaf = k == K_CPU ? &tt->cpu_fid : k == K_BLOCKED ? &tt->blocked_fid : &tt->ready_fid;
	const char *leaf_name = k == K_CPU ? "CPU_TIME" : k == K_BLOCKED ? "BLOCKED_TIME" : "READIED_TIME";
	if (k == K_PREEMPTED && !(rc = frame(tt, &tt->preempt_fid, "Preempted")))
		rc = push(tt, &st, tt->preempt_fid);
	if (!rc && k == K_BLOCKED && t->reason != UINT32_MAX)
		rc = push(tt, &st, t->reason);
	if (!rc && k == K_BLOCKED && tt->view == SV_TT_READIED_BY && t->woken && t->waker)
		rc = readied_by(tt, t, &st);
	if (!rc && !(rc = frame(tt, leaf, leaf_name)))
		rc = push(tt, &st, *leaf);
	if (!rc && tt->by_cpu)
		rc = sv_cpu_root_apply(&tt->roots, tt->sink, cpu, st, &st);
	if (rc)
		return rc;
	tt->stats.intervals++;
	double at = start >= tt->t0 ? (double)(start - tt->t0) / 1e6 : -(double)(tt->t0 - start) / 1e6;
	return tt->sink->ops->add_sample(tt->sink->self, st, at, ms, 1.0);
}

/* Thread tid is (or was until now) the one on cpu: whoever the CPU ran before, if it is not
 * tid and still counted as running there, left without a switch on record — its open slice
 * is unknown and dropped. A thread running elsewhere that shows up here likewise. */
static int cpu_check(sv_tt *tt, uint32_t cpu, uint32_t tid)
{
	if (cpu == SV_TT_NO_CPU || cpu >= 65536)
		return 0;
	if (cpu >= tt->ncpus) {
		size_t n = tt->ncpus;
		if (SV_ARRAY_RESERVE(tt->on_cpu, tt->ncpus, (size_t)cpu + 1))
			return SV_ENOMEM;
		memset(tt->on_cpu + n, 0, (tt->ncpus - n) * sizeof(*tt->on_cpu));
	}
	uint32_t was = tt->on_cpu[cpu].tid;
	if (was && was != tid) {
		uint32_t i = sv_idmap_get(&tt->th_idx, was);
		tthread *o = i != SV_IDMAP_NONE ? &tt->th[i] : NULL;
		if (o && o->state == T_RUNNING && o->cpu == cpu) {
			o->state = T_UNKNOWN;
			tt->stats.unpaired++;
		}
	}
	if (tid) {
		uint32_t i = sv_idmap_get(&tt->th_idx, tid);
		tthread *o = i != SV_IDMAP_NONE ? &tt->th[i] : NULL;
		if (o && o->state == T_RUNNING && o->cpu != cpu && o->cpu != SV_TT_NO_CPU) {
			o->state = T_UNKNOWN; /* moved CPUs without a switch on record */
			tt->stats.unpaired++;
		}
	}
	tt->on_cpu[cpu].tid = tid;
	return 0;
}

/* When thread th shows up running on cpu at t (switching out, or in a sample) with its
 * switch-in not on record (the kernel leaves switches out of the idle task, and the wake-ups
 * before them, untraced at times): the latest time it is known to have been waiting still,
 * or 0 when nothing says. It waited at least until the CPU's previous switch (someone else
 * ran or went idle there) and until it was woken; when it switched in after that is unknown.
 * perf sched timehist starts the run at the CPU's previous switch, which counts the CPU's
 * idle time, or the thread's own sleep, as run time. */
static uint64_t untraced_wait_end(const sv_tt *tt, const tthread *th, uint32_t cpu, uint64_t t)
{
	if (cpu == SV_TT_NO_CPU || cpu >= tt->ncpus)
		return 0; /* no CPUs recorded: nothing to say which switch is missing */
	uint64_t last = tt->on_cpu[cpu].switched, from;
	if (th->state == T_OUT && th->how == SV_TT_OUT_RUNNABLE)
		from = th->since;
	else if ((th->state == T_OUT || th->state == T_UNKNOWN) && th->woken)
		from = th->woken_t;
	else if (th->state == T_OUT)
		from = th->since;
	else
		return 0;
	uint64_t end = last > from ? last : from;
	return end && end <= t ? end : 0;
}

/* The waiting interval of thread n, switched out at n->since, until it runs at t. */
static int emit_wait(sv_tt *tt, tthread *n, uint64_t t, sv_stack_id at, uint32_t cpu)
{
	if (n->how == SV_TT_OUT_RUNNABLE)
		return emit(tt, n, n->since, t, at, K_PREEMPTED, cpu);
	if (!n->woken)
		return emit(tt, n, n->since, t, at, K_BLOCKED, cpu);
	int rc = emit(tt, n, n->since, n->woken_t, at, K_BLOCKED, cpu);
	return rc ? rc : emit(tt, n, n->woken_t, t, at, K_READIED, cpu);
}

/* Thread th, its switch-in untraced, waited until `end` (untraced_wait_end) and is seen
 * running at t: that wait is counted; the time from `end` to t, when it switched in and ran
 * for an unknown part of it, is not (the run counts from t, a CPU sample, or not at all). */
static int waited_until(sv_tt *tt, tthread *th, uint64_t end, uint64_t t, sv_stack_id stack, uint32_t cpu)
{
	sv_stack_id at;
	int rc = base_stack(tt, th, stack != SV_STACK_NONE ? stack : th->out_stack, &at);
	if (!rc && th->state == T_OUT)
		rc = emit_wait(tt, th, end, at, cpu);
	else if (!rc && th->woken)
		rc = emit(tt, th, th->woken_t, end, at, K_READIED, cpu); /* new: ready since its wake-up */
	th->done = t;
	tt->stats.untraced++;
	tt->stats.untraced_ms += (double)(t - end) / 1e6;
	return rc;
}

int sv_tt_switch(sv_tt *tt, uint64_t t, uint32_t cpu, uint32_t prev, sv_tt_out how, const char *reason,
		 sv_stack_id prev_stack, uint32_t next, sv_stack_id next_stack)
{
	tthread *p, *n;
	int rc;
	tt->stats.switches++;
	if ((rc = cpu_check(tt, cpu, prev)))
		return rc;
	if (prev) {
		if ((rc = thread_of(tt, prev, &p)))
			return rc;
		uint64_t end = p->state != T_RUNNING ? untraced_wait_end(tt, p, cpu, t) : 0;
		if (p->state == T_RUNNING) {
			if ((rc = emit(tt, p, p->since, t, p->cur_stack, K_CPU, p->cpu)))
				return rc;
		} else if (end) {
			if ((rc = waited_until(tt, p, end, t, prev_stack, cpu)))
				return rc;
		} else if (p->state == T_OUT) {
			tt->stats.unpaired++; /* its switch-in is missing: the time since is unknown */
		}
		p->state = how == SV_TT_OUT_DEAD ? T_DEAD : T_OUT;
		p->how = (uint8_t)how;
		p->since = t;
		p->woken = false;
		p->out_stack = prev_stack;
		if ((rc = reason_frame(tt, how == SV_TT_OUT_WAIT ? reason : NULL, &p->reason)))
			return rc;
	}
	if (cpu != SV_TT_NO_CPU && cpu < tt->ncpus)
		tt->on_cpu[cpu].switched = t;
	if (!next) {
		if (cpu != SV_TT_NO_CPU && cpu < tt->ncpus)
			tt->on_cpu[cpu].tid = 0;
		return 0;
	}
	if ((rc = thread_of(tt, next, &n)))
		return rc;
	sv_stack_id at;
	if ((rc = base_stack(tt, n, next_stack != SV_STACK_NONE ? next_stack : n->state == T_OUT ? n->out_stack : SV_STACK_NONE,
			     &at)))
		return rc;
	if (n->state == T_OUT) {
		rc = emit_wait(tt, n, t, at, cpu);
	} else if (n->state == T_RUNNING) {
		tt->stats.unpaired++;/* its switch-out is missing */
	} else if (n->woken) {
		rc = emit(tt, n, n->woken_t, t, at, K_READIED, cpu); /* new (or first seen): ready since its wake-up */
	}
	if (rc)
		return rc;
	n->state = T_RUNNING;
	n->since = t;
	n->cpu = cpu;
	n->cur_stack = at;
	n->woken = false;
	if (cpu != SV_TT_NO_CPU && cpu < tt->ncpus)
		tt->on_cpu[cpu].tid = next;
	return 0;
}

int sv_tt_wakeup(sv_tt *tt, uint64_t t, uint32_t tid, uint32_t waker, sv_stack_id waker_stack)
{
	tthread *th;
	int rc = thread_of(tt, tid, &th);
	if (rc)
		return rc;
	tt->stats.wakeups++;
	if (th->woken || th->state == T_RUNNING || (th->state == T_OUT && (th->how != SV_TT_OUT_WAIT || t < th->since)))
		return 0;
	th->woken = true;
	th->woken_t = t;
	th->waker = waker;
	th->waker_stack = waker ? waker_stack : SV_STACK_NONE; /* 0: an interrupt, no thread to name */
	return 0;
}

int sv_tt_sample(sv_tt *tt, uint64_t t, uint32_t cpu, uint32_t tid, sv_stack_id stack)
{
	tthread *th;
	int rc = cpu_check(tt, cpu, tid);
	if (!rc)
		rc = thread_of(tt, tid, &th);
	if (rc)
		return rc;
	tt->stats.cpu_samples++;
	uint64_t end = th->state != T_RUNNING ? untraced_wait_end(tt, th, cpu, t) : 0;
	if (th->state == T_RUNNING) {
		if ((rc = emit(tt, th, th->since, t, th->cur_stack, K_CPU, th->cpu)))
			return rc;
	} else if (end) {
		if ((rc = waited_until(tt, th, end, t, stack, cpu)))
			return rc;
	} else if (th->state == T_OUT) {
		tt->stats.unpaired++; /* running, so its switch-in was lost */
	}
	th->state = T_RUNNING; /* a sample proves it runs from now on */
	th->since = t;
	th->cpu = cpu;
	th->cur_stack = stack;
	return 0;
}

int sv_tt_finish(sv_tt *tt, sv_tt_stats *out)
{
	for (size_t i = 0; i < tt->nth; i++)
		if (tt->th[i].state == T_RUNNING || tt->th[i].state == T_OUT)
			tt->stats.open_at_end++;
	tt->stats.threads = tt->nth;
	if (out)
		*out = tt->stats;
	return 0;
}

int sv_tt_report(sv_tt *tt, sv_sink *sink, size_t sampled, size_t lost)
{
	sv_tt_stats st;
	int rc = sv_tt_finish(tt, &st);
	if (!rc)
		rc = sv_sink_note(sink, SV_NOTE_INFO,
			     "thread time (%s): %zu switches, %zu wake-ups, %zu CPU samples, %zu threads; "
			     "CPU_TIME %.3f ms, READIED_TIME %.3f ms, BLOCKED_TIME %.3f ms in %zu intervals",
			     sv_tt_view_name(tt->view), st.switches, st.wakeups, st.cpu_samples, st.threads, st.cpu_ms,
			     st.readied_ms, st.blocked_ms, st.intervals);
	if (!rc && st.open_at_end)
		rc = sv_sink_note(sink, SV_NOTE_INFO, "thread time: %zu intervals still open when the trace ended are not counted",
			     st.open_at_end);
	if (!rc && sampled)
		rc = sv_sink_note(sink, SV_NOTE_WARNING,
			     "thread time: %zu context switches were recorded with a period other than 1 (sampled, "
			     "e.g. with -F or -c): intervals between the kept ones are missing", sampled);
	if (!rc && lost)
		rc = sv_sink_note(sink, SV_NOTE_WARNING,
			     "thread time: the recorder lost %zu events: intervals around them are missing", lost);
	if (!rc && (st.unpaired || st.disordered))
		rc = sv_sink_note(sink, SV_NOTE_WARNING,
			     "thread time: %zu intervals dropped because a switch-in or switch-out was missing and %zu "
			     "because events were out of order (record every switch: perf record -a, or --switch-events for "
			     "the program's own threads)",
			     st.unpaired, st.disordered);
	if (!rc && st.untraced)
		rc = sv_sink_note(sink, SV_NOTE_WARNING,
			     "thread time: %zu switch-ins are missing from the trace (the kernel leaves switches out of the "
			     "idle task untraced at times): each wait is counted until the CPU's previous switch or the "
			     "wake-up, each run from the thread's first CPU sample; the %.3f ms between are not counted "
			     "(perf sched timehist counts them as run time). Keeping the CPUs busy while recording avoids "
			     "it: a SCHED_IDLE spinner per CPU (chrt -i 0)",
			     st.untraced, st.untraced_ms);
	if (!rc && st.switches && !st.wakeups)
		rc = sv_sink_note(sink, SV_NOTE_INFO,
			     "thread time: no wake-ups recorded, so a wait's READIED_TIME (waiting for a CPU) counts as "
			     "BLOCKED_TIME; record sched:sched_wakeup too");
	return rc;
}
