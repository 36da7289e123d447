/* SPDX-License-Identifier: MIT */
/* stackview report gcstats|jitstats|traceinfo FILE: PerfView's first stops for a .NET
 * process, from the trace's events (lib/report.c computes them; this file prints them as
 * text or JSON). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stackview/report.h"

static void put_ms(jw *w, const char *key, double v)
{
	jw_key(w, key);
	if (v < 0)
		jw_null(w);
	else
		jw_num(w, v);
}

static void rollup_json(jw *w, const sv_gc_rollup *g)
{
	jw_begin_obj(w);
	jw_key(w, "count"); jw_int(w, (long long)g->count);
	jw_key(w, "induced"); jw_int(w, (long long)g->induced);
	jw_key(w, "total_pause_ms"); jw_num(w, g->total_pause_ms);
	jw_key(w, "mean_pause_ms"); jw_num(w, g->mean_pause_ms);
	jw_key(w, "max_pause_ms"); jw_num(w, g->max_pause_ms);
	jw_key(w, "mean_after_mb"); jw_num(w, g->mean_after_mb);
	jw_key(w, "max_after_mb"); jw_num(w, g->max_after_mb);
	jw_key(w, "promoted_mb"); jw_num(w, g->promoted_mb);
	jw_end_obj(w);
}

static int gcstats(const cli_opts *o, const sv_evlog *log)
{
	sv_gc_process *ps;
	size_t n;
	if (sv_report_gcstats(log, &ps, &n)) {
		fprintf(stderr, "stackview: out of memory\n");
		return EXIT_INPUT;
	}
	FILE *f = stdout;
	if (o->out == OUT_JSON) {
		jw w = { .o.f = f };
		jw_begin_obj(&w);
		jw_key(&w, "processes");
		jw_begin_arr(&w);
		for (size_t i = 0; i < n; i++) {
			const sv_gc_process *p = &ps[i];
			jw_begin_obj(&w);
			jw_key(&w, "pid"); jw_int(&w, p->pid);
			jw_key(&w, "name"); jw_str(&w, p->name);
			jw_key(&w, "first_ms"); jw_num(&w, p->first_ms);
			jw_key(&w, "last_ms"); jw_num(&w, p->last_ms);
			jw_key(&w, "pct_paused"); jw_num(&w, p->pct_paused);
			jw_key(&w, "alloc_mb"); jw_num(&w, p->alloc_mb);
			jw_key(&w, "alloc_ticks"); jw_int(&w, (long long)p->alloc_ticks);
			jw_key(&w, "all"); rollup_json(&w, &p->all);
			jw_key(&w, "gen");
			jw_begin_arr(&w);
			for (int g = 0; g < 3; g++)
				rollup_json(&w, &p->gen[g]);
			jw_end_arr(&w);
			jw_key(&w, "gcs");
			jw_begin_arr(&w);
			for (size_t j = 0; j < p->ngcs; j++) {
				const sv_gc *g = &p->gcs[j];
				jw_begin_obj(&w);
				jw_key(&w, "number"); jw_int(&w, g->number);
				jw_key(&w, "gen"); jw_int(&w, g->gen);
				jw_key(&w, "reason"); jw_str(&w, g->reason);
				jw_key(&w, "type"); jw_str(&w, g->type);
				jw_key(&w, "induced"); jw_bool(&w, g->induced);
				jw_key(&w, "start_ms"); jw_num(&w, g->start_ms);
				put_ms(&w, "pause_ms", g->pause_ms);
				put_ms(&w, "suspend_ms", g->suspend_ms);
				put_ms(&w, "duration_ms", g->duration_ms);
				put_ms(&w, "after_mb", g->after_mb);
				put_ms(&w, "promoted_mb", g->promoted_mb);
				jw_end_obj(&w);
			}
			jw_end_arr(&w);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_end_obj(&w);
		fputc('\n', f);
	} else {
		if (!n)
			fprintf(stderr, "stackview: %s: no GC events (the runtime's GC keyword, on by default in dotnet-trace and PerfView)\n",
				o->files[1]);
		sv_report_gcstats_print(f, ps, n);
	}
	sv_report_gcstats_free(ps, n);
	return 0;
}

static int jitstats(const cli_opts *o, const sv_evlog *log)
{
	sv_jit_process *ps;
	size_t n;
	if (sv_report_jitstats(log, &ps, &n)) {
		fprintf(stderr, "stackview: out of memory\n");
		return EXIT_INPUT;
	}
	size_t top = o->top >= 0 ? (size_t)o->top : 20;
	FILE *f = stdout;
	if (o->out == OUT_JSON) {
		jw w = { .o.f = f };
		jw_begin_obj(&w);
		jw_key(&w, "processes");
		jw_begin_arr(&w);
		for (size_t i = 0; i < n; i++) {
			const sv_jit_process *p = &ps[i];
			jw_begin_obj(&w);
			jw_key(&w, "pid"); jw_int(&w, p->pid);
			jw_key(&w, "name"); jw_str(&w, p->name);
			jw_key(&w, "methods_jitted"); jw_int(&w, (long long)p->nmethods);
			jw_key(&w, "jit_ms"); jw_num(&w, p->total_jit_ms);
			jw_key(&w, "il_bytes"); jw_int(&w, (long long)p->il_bytes);
			jw_key(&w, "native_bytes"); jw_int(&w, (long long)p->native_bytes);
			jw_key(&w, "methods");
			jw_begin_arr(&w);
			for (size_t j = 0; j < p->nmethods && (o->top < 0 || j < top); j++) {
				const sv_jit_method *m = &p->methods[j];
				jw_begin_obj(&w);
				jw_key(&w, "name"); jw_str(&w, m->name);
				jw_key(&w, "start_ms"); jw_num(&w, m->start_ms);
				put_ms(&w, "jit_ms", m->jit_ms);
				jw_key(&w, "il_size"); jw_int(&w, m->il_size);
				jw_key(&w, "native_size"); jw_int(&w, m->native_size);
				jw_key(&w, "tid"); jw_int(&w, m->tid);
				jw_end_obj(&w);
			}
			jw_end_arr(&w);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_end_obj(&w);
		fputc('\n', f);
	} else {
		if (!n)
			fprintf(stderr, "stackview: %s: no methods jitted in the trace (the runtime's JIT keyword, on by default)\n",
				o->files[1]);
		sv_report_jitstats_print(f, ps, n, top);
	}
	sv_report_jitstats_free(ps, n);
	return 0;
}

/* The fields of the first event of a kind that describes the trace (names, values). */
typedef struct desc {
	const char *kind;
	const char *const *fields;
	const char *title;
} desc;

static const char *const header_fields[] = { "SessionName", "LogFileName", "StartTime", "EndTime", "BootTime",
					     "NumberOfProcessors", "CPUSpeed", "PointerSize", "EventsLost", "BuffersLost",
					     "ProviderVersion", "UtcOffsetMinutes", NULL };
static const char *const cpu_fields[] = { "ComputerName", "DomainName", "NumberOfProcessors", "MHz", "MemSize", NULL };
static const char *const procinfo_fields[] = { "CommandLine", "OSInformation", "ArchInformation", NULL };
static const desc descs[] = {
	{ "Windows Kernel/EventTrace", header_fields, "session" },
	{ "Windows Kernel/SystemConfig/CPU", cpu_fields, "machine" },
	{ "Microsoft-DotNETCore-EventPipe/ProcessInfo", procinfo_fields, "process" },
};

/* What the trace is: its span, events, kinds, providers and processes. */
static int traceinfo(const cli_opts *o, const sv_evlog *log, const char *warn)
{
	size_t n = sv_evlog_count(log);
	double first = 0, last = 0;
	/* providers and processes, counted */
	struct cnt { char name[256]; long long pid; size_t n; } *prov = NULL, *proc = NULL;
	size_t np = 0, npr = 0, kinds = 0;
	char **kind_seen = NULL;
	for (size_t i = 0; i < n; i++) {
		sv_evrow r;
		sv_evlog_get(log, i, &r);
		if (!i)
			first = r.ms;
		last = r.ms;
		size_t pl = strcspn(r.kind, "/");
		size_t k;
		for (k = 0; k < np && !(strlen(prov[k].name) == pl && !strncmp(prov[k].name, r.kind, pl)); k++)
			;
		if (k == np) {
			void *g = realloc(prov, (np + 1) * sizeof(*prov));
			if (!g)
				break;
			prov = g;
			snprintf(prov[np].name, sizeof(prov[np].name), "%.*s", (int)pl, r.kind);
			prov[np++].n = 0;
		}
		prov[k].n++;
		for (k = 0; k < npr && proc[k].pid != r.pid; k++)
			;
		if (k == npr) {
			void *g = realloc(proc, (npr + 1) * sizeof(*proc));
			if (!g)
				break;
			proc = g;
			snprintf(proc[npr].name, sizeof(proc[npr].name), "%s", r.process);
			proc[npr].pid = r.pid;
			proc[npr++].n = 0;
		}
		proc[k].n++;
		for (k = 0; k < kinds && kind_seen[k] != r.kind; k++) /* interned: one pointer a kind */
			;
		if (k == kinds) {
			void *g = realloc(kind_seen, (kinds + 1) * sizeof(*kind_seen));
			if (!g)
				break;
			kind_seen = g;
			kind_seen[kinds++] = (char *)(uintptr_t)r.kind;
		}
	}
	/* the events that describe the trace, its machine, its process */
	sv_evrow found[sizeof(descs) / sizeof(descs[0])];
	bool have[sizeof(descs) / sizeof(descs[0])] = { false };
	for (size_t i = 0; i < n; i++) {
		sv_evrow r;
		sv_evlog_get(log, i, &r);
		for (size_t d = 0; d < sizeof(descs) / sizeof(descs[0]); d++)
			if (!have[d] && !strcmp(r.kind, descs[d].kind) && r.fields[0])
				found[d] = r, have[d] = true;
	}
	FILE *f = stdout;
	if (o->out == OUT_JSON) {
		jw w = { .o.f = f };
		jw_begin_obj(&w);
		for (size_t d = 0; d < sizeof(descs) / sizeof(descs[0]); d++) {
			if (!have[d])
				continue;
			jw_key(&w, descs[d].title);
			jw_begin_obj(&w);
			for (const char *const *fl = descs[d].fields; *fl; fl++) {
				char v[1024];
				if (sv_evrow_field(&found[d], *fl, v, sizeof(v))) {
					jw_key(&w, *fl);
					jw_str(&w, v);
				}
			}
			jw_end_obj(&w);
		}
		jw_key(&w, "events"); jw_int(&w, (long long)n);
		jw_key(&w, "kinds"); jw_int(&w, (long long)kinds);
		jw_key(&w, "first_ms"); jw_num(&w, first);
		jw_key(&w, "last_ms"); jw_num(&w, last);
		jw_key(&w, "warning"); if (warn[0]) jw_str(&w, warn); else jw_null(&w);
		jw_key(&w, "providers");
		jw_begin_arr(&w);
		for (size_t i = 0; i < np; i++) {
			jw_begin_obj(&w);
			jw_key(&w, "name"); jw_str(&w, prov[i].name);
			jw_key(&w, "events"); jw_int(&w, (long long)prov[i].n);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_key(&w, "processes");
		jw_begin_arr(&w);
		for (size_t i = 0; i < npr; i++) {
			jw_begin_obj(&w);
			jw_key(&w, "pid"); if (proc[i].pid >= 0) jw_int(&w, proc[i].pid); else jw_null(&w);
			jw_key(&w, "name"); jw_str(&w, proc[i].name);
			jw_key(&w, "events"); jw_int(&w, (long long)proc[i].n);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_end_obj(&w);
		fputc('\n', f);
	} else {
		char a[32], b[32], d[32], e[32];
		sv_format_number(a, sizeof(a), first, 3);
		sv_format_number(b, sizeof(b), last, 3);
		sv_format_number(d, sizeof(d), last - first, 3);
		sv_format_number(e, sizeof(e), (double)n, 0);
		for (size_t di = 0; di < sizeof(descs) / sizeof(descs[0]); di++) {
			if (!have[di])
				continue;
			fprintf(f, "%c%s:", descs[di].title[0] - 32, descs[di].title + 1);
			for (const char *const *fl = descs[di].fields; *fl; fl++) {
				char v[1024];
				if (sv_evrow_field(&found[di], *fl, v, sizeof(v)) && v[0])
					fprintf(f, " %s=%s", *fl, v);
			}
			fputc('\n', f);
		}
		fprintf(f, "%s events of %zu kinds from %s to %s ms (%s ms)\n", e, kinds, a, b, d);
		if (warn[0])
			fprintf(f, "warning: %s\n", warn);
		fprintf(f, "\n%10s  %s\n", "Events", "Provider");
		for (size_t i = 0; i < np; i++)
			fprintf(f, "%10zu  %s\n", prov[i].n, prov[i].name);
		fprintf(f, "\n%10s %8s  %s\n", "Events", "PID", "Process");
		for (size_t i = 0; i < npr; i++)
			fprintf(f, "%10zu %8lld  %s\n", proc[i].n, proc[i].pid, proc[i].name);
	}
	free(prov);
	free(proc);
	free(kind_seen);
	return 0;
}

int cmd_report(const cli_opts *o)
{
	const char *kind = o->files[0];
	if (strcmp(kind, "gcstats") && strcmp(kind, "jitstats") && strcmp(kind, "traceinfo")) {
		fprintf(stderr, "stackview: report '%s': the reports are gcstats, jitstats and traceinfo\n", kind);
		return EXIT_USAGE;
	}
	sv_evlog *log;
	sv_error err;
	sv_error_clear(&err);
	char warn[400];
	int rc = sv_evlog_new(&log);
	if (rc)
		sv_error_set(&err, rc, NULL);
	else if ((rc = cli_events_log(o, o->files[1], NULL, log, NULL, NULL, warn, sizeof(warn), &err)))
		sv_evlog_free(log);
	if (rc) {
		cli_report(&err);
		return rc == SV_EINVAL ? EXIT_USAGE : EXIT_INPUT;
	}
	if (warn[0] && strcmp(kind, "traceinfo"))
		fprintf(stderr, "stackview: %s: warning: %s\n", o->files[1], warn);
	rc = !strcmp(kind, "gcstats") ? gcstats(o, log) : !strcmp(kind, "jitstats") ? jitstats(o, log) : traceinfo(o, log, warn);
	sv_evlog_free(log);
	return rc ? rc : cli_finish_output(stdout);
}
