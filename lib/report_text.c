/* SPDX-License-Identifier: MIT */
/* GCStats and JITStats as text tables (stackview report, the terminal UI's Reports view). */
#include <stdio.h>
#include <string.h>

#include "stackview/params.h"
#include "stackview/report.h"

/* "NAME (PID)", or the name alone when it is Process(PID) already */
static void proc_label(char *b, size_t cap, const char *name, long long pid)
{
	if (strncmp(name, "Process(", 8) == 0)
		snprintf(b, cap, "%s", name);
	else
		snprintf(b, cap, "%s (%lld)", name, pid);
}

static void num_or_dash(char *b, size_t cap, double v, int dec)
{
	if (v < 0)
		snprintf(b, cap, "-");
	else
		sv_format_number(b, cap, v, dec);
}

void sv_report_gcstats_print(FILE *f, const sv_gc_process *ps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const sv_gc_process *p = &ps[i];
		char span[32], pause[32], alloc[32];
		sv_format_number(span, sizeof(span), p->last_ms - p->first_ms, 3);
		sv_format_number(pause, sizeof(pause), p->all.total_pause_ms, 3);
		sv_format_number(alloc, sizeof(alloc), p->alloc_mb, 3);
		char who[200];
		proc_label(who, sizeof(who), p->name, p->pid);
		fprintf(f, "%s%s: %zu GCs, %zu induced; paused %s ms, %.2f %% of its %s ms in the trace",
			i ? "\n" : "", who, p->all.count, p->all.induced, pause, p->pct_paused, span);
		if (p->alloc_ticks)
			fprintf(f, "; %s MB allocated by %zu AllocationTick events", alloc, p->alloc_ticks);
		fputs("\n\n", f);
		fprintf(f, "%-5s %6s %8s %14s %13s %12s %13s %12s %11s\n", "Gen", "GCs", "Induced", "Total pause ms",
			"Mean pause ms", "Max pause ms", "Mean after MB", "Max after MB", "Promoted MB");
		for (int g = 0; g <= 3; g++) {
			const sv_gc_rollup *r = g < 3 ? &p->gen[g] : &p->all;
			fprintf(f, "%-5s %6zu %8zu %14.3f %13.3f %12.3f %13.3f %12.3f %11.3f\n", g == 3 ? "All" : g == 2 ? "2" : g ? "1" : "0",
				r->count, r->induced, r->total_pause_ms, r->mean_pause_ms, r->max_pause_ms, r->mean_after_mb,
				r->max_after_mb, r->promoted_mb);
		}
		fputc('\n', f);
		fprintf(f, "%6s %3s %-18s %-16s %12s %9s %10s %11s %9s %11s\n", "GC", "Gen", "Reason", "Type", "Start ms", "Pause ms",
			"Suspend ms", "Duration ms", "After MB", "Promoted MB");
		for (size_t j = 0; j < p->ngcs; j++) {
			const sv_gc *g = &p->gcs[j];
			char st[32], pa[32], su[32], du[32], af[32], pr[32];
			sv_format_number(st, sizeof(st), g->start_ms, 3);
			num_or_dash(pa, sizeof(pa), g->pause_ms, 3);
			num_or_dash(su, sizeof(su), g->suspend_ms, 3);
			num_or_dash(du, sizeof(du), g->duration_ms, 3);
			num_or_dash(af, sizeof(af), g->after_mb, 3);
			num_or_dash(pr, sizeof(pr), g->promoted_mb, 3);
			fprintf(f, "%6lld %3d %-18s %-16s %12s %9s %10s %11s %9s %11s\n", g->number, g->gen, g->reason, g->type, st, pa,
				su, du, af, pr);
		}
	}
}

void sv_report_jitstats_print(FILE *f, const sv_jit_process *ps, size_t n, size_t top)
{
	for (size_t i = 0; i < n; i++) {
		const sv_jit_process *p = &ps[i];
		char t[32];
		sv_format_number(t, sizeof(t), p->total_jit_ms, 3);
		char who[200];
		proc_label(who, sizeof(who), p->name, p->pid);
		fprintf(f, "%s%s: %zu methods jitted in %s ms; %llu bytes of IL, %llu of native code\n\n", i ? "\n" : "", who,
			p->nmethods, t, p->il_bytes, p->native_bytes);
		fprintf(f, "%9s %12s %7s %7s %8s  %s\n", "JIT ms", "Start ms", "IL", "Native", "Thread", "Method");
		for (size_t j = 0; j < p->nmethods && j < top; j++) {
			const sv_jit_method *m = &p->methods[j];
			char jm[32], sm[32];
			num_or_dash(jm, sizeof(jm), m->jit_ms, 3);
			sv_format_number(sm, sizeof(sm), m->start_ms, 3);
			fprintf(f, "%9s %12s %7u %7u %8lld  %s\n", jm, sm, m->il_size, m->native_size, m->tid, m->name);
		}
		if (p->nmethods > top)
			fprintf(f, "(%zu more: --top N)\n", p->nmethods - top);
	}
}
