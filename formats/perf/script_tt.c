/* SPDX-License-Identifier: MIT */
/* `perf script` text: thread time from sched_switch and sched_wakeup tracepoints with their
 * payloads (lib/thread_time.c does the arithmetic), and what each thread is called. */
#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "script_int.h"
#include "sv/idmap.h"
#include "sv/cpu_root.h"
#include "sv/thread_time.h"
#include "core/two_parts.h"
#include "script_int.h"

/* ---- thread time ---- */

/* What a thread is called: its sample headers' pid and comm, else a payload's comm. */
static int tid_note(ps_ctx *c, long long tid, long long pid, span comm, bool from_header)
{
	if (tid <= 0 || tid > UINT32_MAX)
		return 0;
	uint32_t i = sv_idmap_get(&c->tid_idx, (uint64_t)tid);
	if (i == SV_IDMAP_NONE) {
		if (SV_ARRAY_RESERVE(c->tids, c->tid_cap, c->ntids + 1) || sv_idmap_put(&c->tid_idx, (uint64_t)tid, (uint32_t)c->ntids))
			return SV_ENOMEM;
		i = (uint32_t)c->ntids++;
		c->tids[i] = (struct ps_tid){ tid, "", false, 0, NULL, SV_STACK_NONE };
	} else if (c->tids[i].from_header && !from_header) {
		return 0;
	}
	struct ps_tid *t = &c->tids[i];
	if (from_header || pid >= 0)
		t->pid = pid;
	t->from_header |= from_header;
	size_t n = comm.n < sizeof(t->comm) - 1 ? comm.n : sizeof(t->comm) - 1;
	memcpy(t->comm, comm.p, n);
	t->comm[n] = '\0';
	return 0;
}

static int tt_thread_root(void *payload, uint32_t tid, sv_stack_id *out)
{
	ps_ctx *c = payload;
	uint32_t i = sv_idmap_get(&c->tid_idx, tid);
	char buf[24];
	if (i == SV_IDMAP_NONE) {
		int n = snprintf(buf, sizeof(buf), ":%u", tid);
		return sv_perf_names_thread(&c->names, c->sink, tid, tid, buf, (size_t)n, out);
	}
	const struct ps_tid *t = &c->tids[i];
	return sv_perf_names_thread(&c->names, c->sink, t->pid, tid, t->comm, strlen(t->comm), out);
}

static int tt_waker_frame(void *payload, uint32_t tid, sv_frame_id *out)
{
	ps_ctx *c = payload;
	sv_stack_id root;
	int rc = tt_thread_root(c, tid, &root);
	if (rc)
		return rc;
	uint32_t i = sv_idmap_get(&c->tid_idx, tid);
	return sv_perf_names_waker(&c->names, c->sink, i == SV_IDMAP_NONE ? tid : c->tids[i].pid, tid, out);
}

/* The value of " key=" in a tracepoint payload, up to the next " next_key=" (comms may hold
 * blanks) or the next blank. */
static bool payload_field(span pl, const char *key, const char *until, span *out)
{
	size_t kl = strlen(key);
	const char *p = pl.p, *end = pl.p + pl.n;
	for (;;) {
		const char *at = memmem(p, (size_t)(end - p), key, kl);
		if (!at)
			return false;
		if (at == pl.p || at[-1] == ' ') {
			const char *v = at + kl, *stop = NULL;
			if (until)
				stop = memmem(v, (size_t)(end - v), until, strlen(until));
			if (!stop) {
				stop = v;
				while (stop < end && *stop != ' ')
					stop++;
			}
			*out = (span){ v, (size_t)(stop - v) };
			return true;
		}
		p = at + kl;
	}
}

static bool payload_int(span pl, const char *key, long long *out)
{
	span v;
	if (!payload_field(pl, key, NULL, &v) || !v.n || v.n > 18)
		return false;
	long long x = 0;
	for (size_t i = 0; i < v.n; i++) {
		if (v.p[i] < '0' || v.p[i] > '9')
			return false;
		x = x * 10 + (v.p[i] - '0');
	}
	*out = x;
	return true;
}

static int tt_begin(ps_ctx *c, const header *h, uint64_t t)
{
	if (c->tt)
		return 0;
	sv_tt_hooks hooks = { tt_thread_root, tt_waker_frame, c };
	int rc = sv_tt_new(&c->tt, c->sink, &hooks, c->tt_view, t, c->opts->by_cpu);
	if (rc)
		return sv_ps_fail(c, rc, "out of memory");
	c->have_t0 = true;
	c->t0_s = h->time_s;
	c->t0_ns = h->time_ns;
	return 0;
}

int sv_ps_tt_switch_record(ps_ctx *c, const header *h, span line)
{
	static const char key[] = "PERF_RECORD_SWITCH ";
	const char *at = memmem(line.p, line.n, key, sizeof(key) - 1);
	if (!at || !h->has_time || h->tid <= 0 || h->tid > UINT32_MAX)
		return 0; /* other records; SWITCH_CPU_WIDE (-a) repeats what sched_switch says */
	c->tt_sw_records = true;
	span rest = { at + sizeof(key) - 1, (size_t)(line.p + line.n - at - (sizeof(key) - 1)) };
	span tok[2];
	size_t nt = sv_ps_tokenize(rest, tok, 2);
	bool in = nt >= 1 && tok[0].n == 2 && !memcmp(tok[0].p, "IN", 2);
	bool preempt = nt >= 2 && tok[1].n == 7 && !memcmp(tok[1].p, "preempt", 7);
	if (!in && !(nt >= 1 && tok[0].n == 3 && !memcmp(tok[0].p, "OUT", 3)))
		return sv_ps_fail(c, SV_EFORMAT, "PERF_RECORD_SWITCH without IN or OUT");
	uint64_t t = (uint64_t)h->time_s * 1000000000ull + (uint64_t)h->time_ns;
	int rc = tt_begin(c, h, t);
	if (rc)
		return rc;
	if (h->pid >= 0 && (rc = tid_note(c, h->tid, h->pid, h->comm, true)))
		return sv_ps_fail(c, rc, "out of memory");
	uint32_t cpu = h->cpu >= 0 ? (uint32_t)h->cpu : SV_TT_NO_CPU;
	if (in) {
		rc = sv_tt_switch(c->tt, t, cpu, 0, SV_TT_OUT_WAIT, NULL, SV_STACK_NONE, (uint32_t)h->tid, SV_STACK_NONE);
	} else {
		uint32_t i = sv_idmap_get(&c->tid_idx, (uint64_t)h->tid);
		struct ps_tid *th = i != SV_IDMAP_NONE ? &c->tids[i] : NULL;
		bool have = th && th->sw_how;
		sv_tt_out how = preempt ? SV_TT_OUT_RUNNABLE : have ? (sv_tt_out)(th->sw_how - 1) : SV_TT_OUT_WAIT;
		rc = sv_tt_switch(c->tt, t, cpu, (uint32_t)h->tid, how, have ? th->sw_reason : NULL,
				  have ? th->sw_stack : SV_STACK_NONE, 0, SV_STACK_NONE);
		if (th)
			th->sw_how = 0;
	}
	return rc ? sv_ps_fail(c, rc, "cannot add sample") : 0;
}

int sv_ps_tt_event(ps_ctx *c, const header *h, const char *event)
{
	if (!h->has_time)
		return 0;
	uint64_t t = (uint64_t)h->time_s * 1000000000ull + (uint64_t)h->time_ns;
	bool sw = !strcmp(event, "sched:sched_switch");
	bool wake = !strcmp(event, "sched:sched_wakeup") || !strcmp(event, "sched:sched_wakeup_new") ||
		    !strcmp(event, "sched:sched_waking");
	if (!sw && !wake && !sv_ps_clock_name(event))
		return 0;
	int rc = h->tid > 0 && h->pid >= 0 ? tid_note(c, h->tid, h->pid, h->comm, true) : 0;
	if (rc)
		return sv_ps_fail(c, rc, "out of memory");
	if ((rc = tt_begin(c, h, t)))
		return rc;
	sv_stack_id st = SV_STACK_NONE;
	if (sw) {
		long long prev, next;
		span state, comm;
		if (!payload_int(h->payload, "prev_pid=", &prev) || !payload_int(h->payload, "next_pid=", &next) ||
		    !payload_field(h->payload, "prev_state=", NULL, &state) || !state.n || prev > UINT32_MAX ||
		    next > UINT32_MAX)
			return sv_ps_fail(c, SV_EFORMAT, "sched_switch without prev_pid, prev_state and next_pid");
		if (payload_field(h->payload, "next_comm=", " next_pid=", &comm) && (rc = tid_note(c, next, -1, comm, false)))
			return sv_ps_fail(c, rc, "out of memory");
		c->tt_switches++;
		if (h->has_period && h->period > 1)
			c->tt_sampled++;
		/* an exiting thread's last switch is printed with tid -1: no stack to keep */
		if (prev > 0 && h->tid == prev && (rc = sv_ps_sample_stack(c, h, &st)))
			return rc;
		static const char *const names[] = { "S (sleeping)", "D (disk)", "T (stopped)", "t (traced)", "P (parked)",
						     "I (idle)" };
		const char *reason = NULL;
		sv_tt_out how = SV_TT_OUT_WAIT;
		if (state.p[0] == 'R')
			how = SV_TT_OUT_RUNNABLE;
		else if (state.p[0] == 'X' || state.p[0] == 'Z')
			how = SV_TT_OUT_DEAD;
		for (size_t i = 0; how == SV_TT_OUT_WAIT && i < sizeof(names) / sizeof(names[0]) && !reason; i++)
			if (names[i][0] == state.p[0])
				reason = names[i];
		if (c->tt_sw_records && how != SV_TT_OUT_DEAD && prev > 0) {
			/* its PERF_RECORD_SWITCH OUT line does the switch (an exiting thread has none) */
			span pc = { "", 0 };
			if (sv_idmap_get(&c->tid_idx, (uint64_t)prev) == SV_IDMAP_NONE &&
			    ((void)payload_field(h->payload, "prev_comm=", " prev_pid=", &pc), (rc = tid_note(c, prev, -1, pc, false))))
				return sv_ps_fail(c, rc, "out of memory");
			struct ps_tid *th = &c->tids[sv_idmap_get(&c->tid_idx, (uint64_t)prev)];
			th->sw_how = (uint8_t)(how + 1);
			th->sw_reason = reason;
			th->sw_stack = st;
			return 0;
		}
		rc = sv_tt_switch(c->tt, t, h->cpu >= 0 ? (uint32_t)h->cpu : SV_TT_NO_CPU, (uint32_t)prev, how, reason, st,
				  c->tt_sw_records ? 0 : (uint32_t)next, SV_STACK_NONE);
	} else if (wake) {
		long long tid;
		span comm;
		if (!payload_int(h->payload, "pid=", &tid) || tid > UINT32_MAX)
			return sv_ps_fail(c, SV_EFORMAT, "sched_wakeup without pid");
		if (payload_field(h->payload, "comm=", " pid=", &comm) && (rc = tid_note(c, tid, -1, comm, false)))
			return sv_ps_fail(c, rc, "out of memory");
		if (h->tid > 0 && c->tt_view == SV_TT_READIED_BY && (rc = sv_ps_sample_stack(c, h, &st)))
			return rc;
		rc = sv_tt_wakeup(c->tt, t, (uint32_t)tid, h->tid > 0 ? (uint32_t)h->tid : 0, st);
	} else {
		if (h->tid <= 0)
			return 0; /* the idle task */
		if ((rc = sv_ps_sample_stack(c, h, &st)))
			return rc;
		rc = sv_tt_sample(c->tt, t, h->cpu >= 0 ? (uint32_t)h->cpu : SV_TT_NO_CPU, (uint32_t)h->tid, st);
	}
	return rc ? sv_ps_fail(c, rc, "cannot add sample") : 0;
}

/* Finish one sample: count its event, and add it when it is the selected event. */

/* Thread time names every thread by its sample headers, even where a switch or wake-up names
 * it before its first own sample: a whole input is scanned for them first. */
int sv_ps_tt_prescan(ps_ctx *c, const char *p, const char *end)
{
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		span line = { p, (size_t)((nl ? nl : end) - p) };
		p = nl ? nl + 1 : end;
		if (!line.n || line.p[0] == '\t' || line.p[0] == '#' || line.p[0] == ' ')
			continue;
		header h;
		if (!c->tt_sw_records && memmem(line.p, line.n, "PERF_RECORD_SWITCH ", 19))
			c->tt_sw_records = true;
		if (sv_ps_parse_header(line, &h) && !h.record && h.tid > 0 && sv_idmap_get(&c->tid_idx, (uint64_t)h.tid) == SV_IDMAP_NONE &&
		    tid_note(c, h.tid, h.pid, h.comm, true))
			return sv_ps_fail(c, SV_ENOMEM, "out of memory");
	}
	return 0;
}
