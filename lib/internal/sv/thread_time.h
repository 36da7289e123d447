/* SPDX-License-Identifier: MIT */
/* Thread time (issue 16; PerfView's "Thread Time" views, WPA's CPU Usage (Precise)): a small
 * simulation of every thread's state, fed in time order with context switches, wake-ups and
 * CPU samples by the perf.data, perf script and ETL readers, that pushes one sample per
 * interval into a sink:
 *
 *   running              CPU_TIME, cut at every CPU sample; a slice has the stack of the
 *                        event that began it (the switch-in, then each sample), as PerfView
 *   switched out, runnable (preempted)        Preempted;READIED_TIME
 *   waiting              Wait REASON;BLOCKED_TIME, until the wake-up, then READIED_TIME
 *                        until the switch-in (waiting for a CPU)
 *
 * An interval's stack is where the thread switched out (the caller gives it with the switch
 * or, as ETL does, with the switch back in). Times are the input's nanoseconds; samples are
 * in ms from t0. Intervals are exact: one that cannot be paired (a switch-in or switch-out
 * missing, events out of order) is dropped and counted, never guessed, so a thread's
 * CPU + READIED + BLOCKED never exceeds its life in the trace. Open intervals at the end of
 * the trace are not counted either (as perf sched timehist).
 *
 * Ownership: sv_tt_new returns a computer the caller frees with sv_tt_free; it borrows the
 * sink and hooks for its whole life. */
#ifndef SV_THREAD_TIME_H
#define SV_THREAD_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackview/source.h"

/* Which samples a computer emits (the event names the readers offer). */
typedef enum sv_tt_view {
	SV_TT_THREAD_TIME, /* "thread-time": CPU_TIME, READIED_TIME, BLOCKED_TIME */
	SV_TT_READIED_BY,  /* "thread-time-readied": the same, a wait's stack extended by its waker's */
	SV_TT_OFF_CPU,     /* "off-cpu": READIED_TIME and BLOCKED_TIME only */
	SV_TT_READY_TIME,  /* "ready-time": READIED_TIME only */
} sv_tt_view;

/* How a thread left the CPU. */
typedef enum sv_tt_out {
	SV_TT_OUT_WAIT,     /* waiting: the reason names it ("S (sleeping)", "Executive", ...) */
	SV_TT_OUT_RUNNABLE, /* still runnable: preempted or yielded */
	SV_TT_OUT_DEAD,     /* exited: its last switch */
} sv_tt_out;

typedef struct sv_tt_hooks {
	/* The stack of a thread with no frames: its Process and Thread frames. */
	int (*thread_root)(void *payload, uint32_t tid, sv_stack_id *out);
	/* The frame that heads a waker's frames: "READIED_BY Process X (pid) Thread (tid)". */
	int (*waker_frame)(void *payload, uint32_t tid, sv_frame_id *out);
	void *payload;
} sv_tt_hooks;

typedef struct sv_tt_stats {
	size_t switches, wakeups, cpu_samples;
	size_t intervals;   /* samples emitted */
	size_t unpaired;    /* intervals dropped: a switch-in or switch-out missing */
	size_t untraced;    /* switch-ins missing: the wait counted to its known end, the run from a sample */
	double untraced_ms; /* ... and the time between, not counted */
	size_t disordered;  /* intervals dropped: an event before the thread's last one */
	size_t open_at_end; /* intervals still open when the trace ended, not counted */
	size_t threads;
	double cpu_ms, readied_ms, blocked_ms;
} sv_tt_stats;

typedef struct sv_tt sv_tt;

/* A computer emitting `view` into sink, times relative to t0 (ns); with by_cpu every interval
 * under a "CPU n" root (cpu_root.h): CPU_TIME the CPU it ran on, a wait or ready interval
 * the CPU it ended on (where the thread came back in, as WPA's CSwitch rows). SV_ENOMEM. */
int sv_tt_new(sv_tt **out, sv_sink *sink, const sv_tt_hooks *hooks, sv_tt_view view, uint64_t t0, bool by_cpu);
void sv_tt_free(sv_tt *tt);

/* CPU numbers: SV_TT_NO_CPU where the input has none (the checks below are then skipped). */
#define SV_TT_NO_CPU UINT32_MAX

/* On CPU cpu at time t, thread prev (0: idle) left the CPU as `how` (reason: the wait's
 * name, or NULL), with prev_stack where it left (SV_STACK_NONE: not given), and thread next
 * (0: idle) came in, with next_stack where it had been waiting (ETL's CSwitch stack;
 * SV_STACK_NONE: use the stack of its switch-out). A thread another event shows off the CPU
 * it was running on (a switch missing) loses its open slice: unknown, so dropped. */
int sv_tt_switch(sv_tt *tt, uint64_t t, uint32_t cpu, uint32_t prev, sv_tt_out how, const char *reason,
		 sv_stack_id prev_stack, uint32_t next, sv_stack_id next_stack);
/* At time t, thread waker (0: an interrupt or unknown) made thread tid runnable; its stack
 * waker_stack (SV_STACK_NONE: none). The first wake-up of a wait counts. */
int sv_tt_wakeup(sv_tt *tt, uint64_t t, uint32_t tid, uint32_t waker, sv_stack_id waker_stack);
/* A CPU sample of thread tid on cpu at time t with its full stack. (Clock ticks do not prove
 * a thread left the CPU: they come late under load, so only switches and other threads'
 * events on its CPU end a slice.) */
int sv_tt_sample(sv_tt *tt, uint64_t t, uint32_t cpu, uint32_t tid, sv_stack_id stack);
/* The trace ended: counts what is still open; *out (may be NULL) gets the totals. */
int sv_tt_finish(sv_tt *tt, sv_tt_stats *out);

/* finish, then the notes a reader adds to `info` (SV_NOTE_INFO/WARNING through the sink):
 * what was counted, and warnings for what makes the numbers incomplete — `sampled` switches
 * recorded with a period other than 1, `lost` events the recorder lost, intervals dropped. */
int sv_tt_report(sv_tt *tt, sv_sink *sink, size_t sampled, size_t lost);

/* The event name of a view, and the view of an event name (false: not a thread-time name). */
const char *sv_tt_view_name(sv_tt_view view);
bool sv_tt_view_parse(const char *name, sv_tt_view *out);

#endif
