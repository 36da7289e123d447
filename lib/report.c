/* SPDX-License-Identifier: MIT */
/* GCStats and JITStats from an event log (see stackview/report.h for the definitions). */
#include "stackview/report.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv/array.h"

static const char rt[] = "Microsoft-Windows-DotNETRuntime/";

bool sv_evrow_field(const sv_evrow *r, const char *name, char *buf, size_t cap)
{
	size_t nl = strlen(name);
	for (const char *p = r->fields; *p;) {
		while (*p == ' ')
			p++;
		const char *eq = strchr(p, '=');
		if (!eq || eq[1] != '"')
			return false;
		const char *v = eq + 2;
		/* the value runs to its closing quote (\" and \\ escaped) */
		size_t o = 0;
		const char *q = v;
		bool match = (size_t)(eq - p) == nl && memcmp(p, name, nl) == 0;
		for (; *q && *q != '"'; q++) {
			if (*q == '\\' && q[1])
				q++;
			if (match && o + 1 < cap)
				buf[o++] = *q;
		}
		if (match) {
			if (cap)
				buf[o < cap ? o : cap - 1] = '\0';
			return true;
		}
		p = *q ? q + 1 : q;
	}
	return false;
}

static double num(const sv_evrow *r, const char *name, double dflt)
{
	char b[64];
	if (!sv_evrow_field(r, name, b, sizeof(b)) || !b[0])
		return dflt;
	char *end;
	double v = strtod(b, &end);
	return end == b ? dflt : v;
}

static bool is(const sv_evrow *r, const char *event)
{
	size_t n = sizeof(rt) - 1;
	return strncmp(r->kind, rt, n) == 0 && strcmp(r->kind + n, event) == 0;
}

/* ---- GCStats ---- */

typedef struct gc_state {
	double sus_start;  /* the open suspension for a GC, or -1 */
	double sus_stop;
	size_t open_from;  /* GCs started inside it: gcs[open_from ..] */
} gc_state;

static int proc_of(sv_gc_process **ps, size_t *n, size_t *cap, gc_state **st, const sv_evrow *r, size_t *out)
{
	for (size_t i = 0; i < *n; i++)
		if ((*ps)[i].pid == r->pid) {
			*out = i;
			return 0;
		}
	size_t scap = *cap;
	if (SV_ARRAY_RESERVE(*ps, *cap, *n + 1))
		return SV_ENOMEM;
	if (scap != *cap) {
		gc_state *ns = realloc(*st, *cap * sizeof(**st));
		if (!ns)
			return SV_ENOMEM;
		*st = ns;
	}
	sv_gc_process *p = &(*ps)[*n];
	memset(p, 0, sizeof(*p));
	p->pid = r->pid;
	snprintf(p->name, sizeof(p->name), "%s", r->process);
	p->first_ms = p->last_ms = r->ms;
	(*st)[*n] = (gc_state){ -1, -1, 0 };
	*out = (*n)++;
	return 0;
}

static void rollup_add(sv_gc_rollup *g, const sv_gc *gc)
{
	g->count++;
	g->induced += gc->induced;
	if (gc->pause_ms >= 0) {
		g->total_pause_ms += gc->pause_ms;
		if (gc->pause_ms > g->max_pause_ms)
			g->max_pause_ms = gc->pause_ms;
	}
	if (gc->after_mb >= 0) {
		g->mean_after_mb += gc->after_mb; /* a sum until finished */
		if (gc->after_mb > g->max_after_mb)
			g->max_after_mb = gc->after_mb;
		g->promoted_mb += gc->promoted_mb;
	}
}

static void rollup_done(sv_gc_rollup *g, size_t with_heap)
{
	g->mean_pause_ms = g->count ? g->total_pause_ms / (double)g->count : 0;
	g->mean_after_mb = with_heap ? g->mean_after_mb / (double)with_heap : 0;
}

int sv_report_gcstats(const sv_evlog *l, sv_gc_process **out, size_t *n)
{
	sv_gc_process *ps = NULL;
	gc_state *st = NULL;
	size_t np = 0, cap = 0;
	size_t *gccap = NULL; /* per process: its gcs' capacity */
	int rc = 0;
	for (size_t i = 0; i < sv_evlog_count(l) && !rc; i++) {
		sv_evrow r;
		sv_evlog_get(l, i, &r);
		if (strncmp(r.kind, rt, sizeof(rt) - 1) != 0 || r.pid < 0)
			continue;
		bool gc_event = strncmp(r.kind + sizeof(rt) - 1, "GC/", 3) == 0;
		if (!gc_event)
			continue;
		size_t k, before = cap;
		if ((rc = proc_of(&ps, &np, &cap, &st, &r, &k)))
			break;
		if (cap != before) {
			size_t *ng = realloc(gccap, cap * sizeof(*gccap));
			if (!ng) {
				rc = SV_ENOMEM;
				break;
			}
			gccap = ng;
			for (size_t j = before; j < cap; j++)
				gccap[j] = 0;
		}
		sv_gc_process *p = &ps[k];
		gc_state *s = &st[k];
		p->last_ms = r.ms;
		char buf[64];
		if (is(&r, "GC/SuspendEEStart")) {
			if (sv_evrow_field(&r, "Reason", buf, sizeof(buf)) &&
			    (!strcmp(buf, "SuspendForGC") || !strcmp(buf, "SuspendForGCPrep"))) {
				s->sus_start = r.ms, s->sus_stop = -1;
				s->open_from = p->ngcs;
			}
		} else if (is(&r, "GC/SuspendEEStop")) {
			if (s->sus_start >= 0)
				s->sus_stop = r.ms;
		} else if (is(&r, "GC/Start")) {
			/* .NET 4.5 logs each GC/Start twice (versions 1 and 2, the same Count): one GC */
			long long c = (long long)num(&r, "Count", 0);
			if (p->ngcs && p->gcs[p->ngcs - 1].number == c && p->gcs[p->ngcs - 1].duration_ms < 0)
				continue;
			if (SV_ARRAY_RESERVE(p->gcs, gccap[k], p->ngcs + 1)) {
				rc = SV_ENOMEM;
				break;
			}
			sv_gc *g = &p->gcs[p->ngcs++];
			memset(g, 0, sizeof(*g));
			g->number = c;
			g->gen = (int)num(&r, "Depth", 0);
			if (!sv_evrow_field(&r, "Reason", g->reason, sizeof(g->reason)))
				snprintf(g->reason, sizeof(g->reason), "?");
			if (!sv_evrow_field(&r, "Type", g->type, sizeof(g->type)))
				snprintf(g->type, sizeof(g->type), "NonConcurrentGC"); /* version 0 has no Type */
			g->induced = strncmp(g->reason, "Induced", 7) == 0;
			g->start_ms = r.ms;
			g->duration_ms = g->pause_ms = g->after_mb = g->promoted_mb = -1;
			g->suspend_ms = s->sus_start >= 0 && s->sus_stop >= 0 ? s->sus_stop - s->sus_start : -1;
		} else if (is(&r, "GC/RestartEEStop")) {
			/* the suspension ends: the pause of every GC that started inside it */
			for (size_t j = s->open_from; s->sus_start >= 0 && j < p->ngcs; j++)
				if (p->gcs[j].pause_ms < 0 && p->gcs[j].start_ms >= s->sus_start)
					p->gcs[j].pause_ms = r.ms - s->sus_start;
			s->sus_start = s->sus_stop = -1;
		} else if (is(&r, "GC/Stop")) {
			long long c = (long long)num(&r, "Count", -1);
			for (size_t j = p->ngcs; j-- > 0;)
				if (p->gcs[j].number == c && p->gcs[j].duration_ms < 0) {
					p->gcs[j].duration_ms = r.ms - p->gcs[j].start_ms;
					break;
				}
		} else if (is(&r, "GC/HeapStats")) {
			/* the GC that stopped last without its heap's sizes */
			for (size_t j = p->ngcs; j-- > 0;)
				if (p->gcs[j].duration_ms >= 0 && p->gcs[j].after_mb < 0) {
					double after = 0, prom = 0;
					for (int gi = 0; gi <= 4; gi++) {
						char f[32];
						snprintf(f, sizeof(f), "GenerationSize%d", gi);
						after += num(&r, f, 0);
						snprintf(f, sizeof(f), "TotalPromotedSize%d", gi);
						prom += num(&r, f, 0);
					}
					p->gcs[j].after_mb = after / 1048576.0;
					p->gcs[j].promoted_mb = prom / 1048576.0;
					break;
				}
		} else if (is(&r, "GC/AllocationTick")) {
			p->alloc_ticks++;
			p->alloc_mb += num(&r, "AllocationAmount64", num(&r, "AllocationAmount", 0)) / 1048576.0;
		}
	}
	for (size_t k = 0; k < np && !rc; k++) {
		sv_gc_process *p = &ps[k];
		size_t heaps[3] = { 0 }, all_heaps = 0;
		for (size_t j = 0; j < p->ngcs; j++) {
			const sv_gc *g = &p->gcs[j];
			int gi = g->gen < 0 ? 0 : g->gen > 2 ? 2 : g->gen;
			rollup_add(&p->gen[gi], g);
			rollup_add(&p->all, g);
			heaps[gi] += g->after_mb >= 0;
			all_heaps += g->after_mb >= 0;
		}
		for (int gi = 0; gi < 3; gi++)
			rollup_done(&p->gen[gi], heaps[gi]);
		rollup_done(&p->all, all_heaps);
		double span = p->last_ms - p->first_ms;
		p->pct_paused = span > 0 ? 100.0 * p->all.total_pause_ms / span : 0;
	}
	free(st);
	free(gccap);
	if (rc) {
		sv_report_gcstats_free(ps, np);
		return rc;
	}
	*out = ps;
	*n = np;
	return 0;
}

void sv_report_gcstats_free(sv_gc_process *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++)
		free(p[i].gcs);
	free(p);
}

/* ---- JITStats ---- */

typedef struct jit_open {
	char id[32];
	long long tid;
	double ms;
	unsigned il_size;
} jit_open;

static int by_jit_time(const void *a, const void *b)
{
	const sv_jit_method *x = a, *y = b;
	if (x->jit_ms != y->jit_ms)
		return x->jit_ms > y->jit_ms ? -1 : 1;
	return x->start_ms < y->start_ms ? -1 : x->start_ms > y->start_ms;
}

int sv_report_jitstats(const sv_evlog *l, sv_jit_process **out, size_t *n)
{
	sv_jit_process *ps = NULL;
	size_t np = 0, cap = 0;
	size_t *mcap = NULL;
	jit_open *open = NULL;
	size_t nopen = 0, opencap = 0;
	int rc = 0;
	for (size_t i = 0; i < sv_evlog_count(l) && !rc; i++) {
		sv_evrow r;
		sv_evlog_get(l, i, &r);
		bool start = is(&r, "Method/JittingStarted"), load = is(&r, "Method/LoadVerbose");
		if (!start && !load)
			continue;
		char id[32];
		if (!sv_evrow_field(&r, "MethodID", id, sizeof(id)))
			continue;
		if (start) {
			if (SV_ARRAY_PUSH(open, nopen, opencap,
					  ((jit_open){ .tid = r.tid, .ms = r.ms, .il_size = (unsigned)num(&r, "MethodILSize", 0) }))) {
				rc = SV_ENOMEM;
				break;
			}
			snprintf(open[nopen - 1].id, sizeof(open[nopen - 1].id), "%s", id);
			continue;
		}
		char flags[128];
		/* methods loaded without jitting (precompiled, ReadyToRun) are not JIT work */
		if (sv_evrow_field(&r, "MethodFlags", flags, sizeof(flags)) && !strstr(flags, "Jitted"))
			continue;
		size_t k = np;
		for (size_t j = 0; j < np; j++)
			if (ps[j].pid == r.pid)
				k = j;
		if (k == np) {
			size_t before = cap;
			if (SV_ARRAY_RESERVE(ps, cap, np + 1)) {
				rc = SV_ENOMEM;
				break;
			}
			if (cap != before) {
				size_t *nm = realloc(mcap, cap * sizeof(*mcap));
				if (!nm) {
					rc = SV_ENOMEM;
					break;
				}
				mcap = nm;
			}
			memset(&ps[np], 0, sizeof(ps[np]));
			ps[np].pid = r.pid;
			snprintf(ps[np].name, sizeof(ps[np].name), "%s", r.process);
			mcap[np] = 0;
			np++;
		}
		sv_jit_process *p = &ps[k];
		if (SV_ARRAY_RESERVE(p->methods, mcap[k], p->nmethods + 1)) {
			rc = SV_ENOMEM;
			break;
		}
		sv_jit_method *m = &p->methods[p->nmethods++];
		memset(m, 0, sizeof(*m));
		char ns[200] = "", nm[200] = "", sig[300] = "";
		sv_evrow_field(&r, "MethodNamespace", ns, sizeof(ns));
		sv_evrow_field(&r, "MethodName", nm, sizeof(nm));
		sv_evrow_field(&r, "MethodSignature", sig, sizeof(sig));
		/* "ret  (args)" as PerfView shows a method: Namespace.Name(args) */
		const char *args = strchr(sig, '(');
		snprintf(m->name, sizeof(m->name), "%s%s%s%s", ns, ns[0] ? "." : "", nm, args ? args : "()");
		m->tid = r.tid;
		m->native_size = (unsigned)num(&r, "MethodSize", 0);
		m->jit_ms = -1;
		m->start_ms = r.ms;
		for (size_t j = nopen; j-- > 0;)
			if (open[j].tid == r.tid && strcmp(open[j].id, id) == 0) {
				m->start_ms = open[j].ms;
				m->jit_ms = r.ms - open[j].ms;
				m->il_size = open[j].il_size;
				p->il_bytes += m->il_size;
				open[j] = open[--nopen];
				break;
			}
		p->native_bytes += m->native_size;
		if (m->jit_ms > 0)
			p->total_jit_ms += m->jit_ms;
	}
	for (size_t k = 0; k < np; k++)
		if (ps[k].nmethods)
			qsort(ps[k].methods, ps[k].nmethods, sizeof(*ps[k].methods), by_jit_time);
	free(open);
	free(mcap);
	if (rc) {
		sv_report_jitstats_free(ps, np);
		return rc;
	}
	*out = ps;
	*n = np;
	return 0;
}

void sv_report_jitstats_free(sv_jit_process *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++)
		free(p[i].methods);
	free(p);
}
