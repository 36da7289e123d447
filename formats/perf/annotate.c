/* SPDX-License-Identifier: MIT */
/* A function annotated (stackview/formats.h sv_annotate): the view's cost of its code by
 * address (lib/annotate.c) joined to its instructions (disasm.c), each instruction's share of
 * the function's metric (perf annotate's local period), the jumps' targets inside it, its
 * source lines with their text where the source file can be read; printed as text here (the
 * CLI writes JSON from the same structure, the TUI shows the text). */
#include "stackview/formats.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "code_int.h"

void sv_annotation_print(FILE *f, const sv_annotation *a, size_t *insn_line)
{
	size_t line = 2;
	const char *event = sv_source_event_name(a->src);
	const sv_disasm *d = &a->d;
	fprintf(f, "Annotate: %s in %s (%s, %.0f samples in the view; percent of the function's metric, as perf annotate's local period)\n",
		d->symbol, a->path, event ? event : "samples", a->fn->count);
	fprintf(f, " Percent    Samples | Address  Instruction                           (> jump target, * hottest)\n");
	uint32_t pf = UINT32_MAX, pl = 0;
	for (size_t i = 0; i < d->n; i++) {
		const sv_insn *x = &d->insns[i];
		if (x->line && (x->file != pf || x->line != pl)) {
			const char *txt = sv_src_line(&((const sv_src_text *)a->srcs)[x->file], x->line);
			fprintf(f, "                    |   %s:%u%s", sv_base_name(d->files[x->file]), x->line, txt ? "   " : "");
			sv_put_source(f, txt);
			fputc('\n', f);
			pf = x->file, pl = x->line;
			line++;
		}
		if (insn_line)
			insn_line[i] = line++;
		double pct = sv_annotation_percent(a, i);
		fprintf(f, "%8.2f %10.0f | %c%c%6" PRIx64 ":  %s", pct, a->count[i], i == a->hottest ? '*' : ' ',
			a->target[i] ? '>' : ' ', x->addr, x->text);
		if (x->jump && x->target >= d->start && x->target < d->end)
			fprintf(f, "   <%s+0x%" PRIx64 ">", d->symbol, x->target - d->start);
		fputc('\n', f);
	}
	if (a->outside != 0)
		fprintf(f, "(%.2f %% of the function's metric is at addresses outside its symbol's code)\n",
			100.0 * a->outside / a->fn->metric);
}

/* The instructions of the heaviest function (fns[0]) with their costs (a is zeroed but for
 * src and the functions). */
static int annotate_heaviest(sv_annotation *a, const sv_view *v, bool sources, const char *debug_dirs, sv_error *err)
{
	sv_code_costs *fn = &a->fns[0];
	a->fn = fn;
	a->path = sv_source_code_file(a->src, fn->file);
	/* the hottest address is surely inside the function */
	size_t hot = 0;
	for (size_t k = 1; k < fn->n; k++)
		if (fabs(fn->at[k].metric) > fabs(fn->at[hot].metric))
			hot = k;
	int rc = sv_disasm_function(&a->d, a->path, sv_source_code_file_symbols(a->src, fn->file), debug_dirs, fn->at[hot].addr, err);
	if (rc)
		return rc;
	if (a->d.end > a->d.start && (rc = sv_code_costs_in(fn, v, a->d.start, a->d.end)))
		return sv_error_set(err, rc, NULL);
	size_t n = a->d.n ? a->d.n : 1;
	a->metric = calloc(n, sizeof(*a->metric));
	a->count = calloc(n, sizeof(*a->count));
	a->target = calloc(n, sizeof(*a->target));
	sv_src_text *srcs = calloc(a->d.nfiles ? a->d.nfiles : 1, sizeof(*srcs));
	a->srcs = srcs;
	if (!a->metric || !a->count || !a->target || !srcs)
		return sv_error_set(err, SV_ENOMEM, NULL);
	for (size_t k = 0; k < fn->n; k++) {
		size_t i = sv_insn_at(&a->d, fn->at[k].addr);
		if (i == SIZE_MAX) {
			a->outside += fn->at[k].metric;
			continue;
		}
		a->metric[i] += fn->at[k].metric;
		a->count[i] += fn->at[k].count;
	}
	a->hottest = 0;
	for (size_t i = 0; i < a->d.n; i++) {
		if (fabs(a->metric[i]) > fabs(a->metric[a->hottest]))
			a->hottest = i;
		const sv_insn *x = &a->d.insns[i];
		size_t t = x->jump && x->target >= a->d.start && x->target < a->d.end ? sv_insn_at(&a->d, x->target) : SIZE_MAX;
		if (t != SIZE_MAX)
			a->target[t] = true;
	}
	for (size_t i = 0; sources && i < a->d.nfiles; i++)
		sv_src_load(&srcs[i], a->d.files[i], NULL, &a->d);
	return 0;
}

void sv_annotation_dispose(sv_annotation *a)
{
	sv_src_text *srcs = a->srcs;
	for (size_t k = 0; srcs && k < a->d.nfiles; k++)
		sv_src_dispose(&srcs[k]);
	free(srcs);
	sv_code_costs_free(a->fns, a->nfns);
	free(a->metric);
	free(a->count);
	free(a->target);
	sv_disasm_dispose(&a->d);
	memset(a, 0, sizeof(*a));
}

int sv_annotate(sv_annotation *a, const sv_view *v, const char *name, bool sources, const char *debug_dirs, sv_error *err)
{
	memset(a, 0, sizeof(*a));
	a->src = sv_view_source(v);
	int rc = sv_code_costs_new(&a->fns, &a->nfns, v, name);
	if (rc)
		return sv_error_set(err, rc, NULL);
	if (!a->nfns)
		return SV_ENOTFOUND;
	if ((rc = annotate_heaviest(a, v, sources, debug_dirs, err)))
		sv_annotation_dispose(a);
	return rc;
}


double sv_annotation_percent(const sv_annotation *a, size_t i)
{
	if (a->fn->metric == 0)
		return 0;
	return round(100.0 * a->metric[i] / a->fn->metric * 1e9) / 1e9;
}
