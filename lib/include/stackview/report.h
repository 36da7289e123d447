/* SPDX-License-Identifier: MIT */
/* PerfView's first stops for a .NET process, computed from a trace's events (an event log,
 * stackview/evlog.h): GCStats (every GC with its generation, reason, pause and heap size; a
 * rollup by generation) and JITStats (methods jitted, JIT time by method).
 *
 * Definitions (docs/events.md): a GC is a GC/Start .. GC/Stop pair (same Count; a second
 * GC/Start of the GC in flight, as .NET 4.5 logs, is the same GC); its pause is
 * the execution engine's suspension that holds its start (SuspendEEStart for a GC, to the
 * RestartEEStop after it); its heap after is the sum of the GenerationSize fields of the
 * HeapStats event that follows its stop, its promoted bytes the TotalPromotedSize fields.
 * A process's span is its first to its last event in the trace; % paused = pauses / span.
 * JIT time of a method: its Method/JittingStarted to the Method/LoadVerbose of the same
 * MethodID on the same thread.
 *
 * Ownership: the results are malloc'ed; free them with the matching _free. */
#ifndef STACKVIEW_REPORT_H
#define STACKVIEW_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "stackview/evlog.h"
#include "stackview/status.h"

typedef struct sv_gc {
	long long number;            /* Count */
	int gen;                     /* Depth */
	char reason[32], type[24];
	bool induced;
	double start_ms, duration_ms;
	double pause_ms, suspend_ms; /* -1: the trace does not show it */
	double after_mb, promoted_mb; /* -1: no HeapStats for it */
} sv_gc;

typedef struct sv_gc_rollup {
	size_t count, induced;
	double total_pause_ms, max_pause_ms, mean_pause_ms;
	double max_after_mb, mean_after_mb, promoted_mb;
} sv_gc_rollup;

typedef struct sv_gc_process {
	long long pid;
	char name[128];
	double first_ms, last_ms;    /* its span in the trace */
	sv_gc *gcs;
	size_t ngcs;
	sv_gc_rollup gen[3], all;    /* gen[2] holds 2 and above */
	double pct_paused;           /* all.total_pause_ms / span, in % */
	double alloc_mb;             /* AllocationTick bytes (one tick about every 100 KB) */
	size_t alloc_ticks;
} sv_gc_process;

/* The processes with GC events, by pid. 0 or SV_ENOMEM. */
SV_API int sv_report_gcstats(const sv_evlog *l, sv_gc_process **out, size_t *n) SV_MUST_USE;
SV_API void sv_report_gcstats_free(sv_gc_process *p, size_t n);

typedef struct sv_jit_method {
	char name[768];              /* Namespace.Name(signature) */
	double start_ms, jit_ms;     /* jit_ms: -1 when the start was not seen */
	unsigned il_size, native_size;
	long long tid;
} sv_jit_method;

typedef struct sv_jit_process {
	long long pid;
	char name[128];
	sv_jit_method *methods;      /* by JIT time, longest first */
	size_t nmethods;
	double total_jit_ms;
	unsigned long long il_bytes, native_bytes;
} sv_jit_process;

SV_API int sv_report_jitstats(const sv_evlog *l, sv_jit_process **out, size_t *n) SV_MUST_USE;
SV_API void sv_report_jitstats_free(sv_jit_process *p, size_t n);

/* The reports as text tables (stackview report's; the terminal UI's Reports view): per process
 * a summary line, GCStats' rollup by generation and its GCs; JITStats' top methods by JIT
 * time (at most `top`). */
SV_API void sv_report_gcstats_print(FILE *f, const sv_gc_process *p, size_t n);
SV_API void sv_report_jitstats_print(FILE *f, const sv_jit_process *p, size_t n, size_t top);

/* A field's value from an event row's fields text (name="value" pairs): into buf, false when
 * the row has no such field. */
SV_API bool sv_evrow_field(const sv_evrow *r, const char *name, char *buf, size_t cap);

#endif
