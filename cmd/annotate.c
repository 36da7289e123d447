/* SPDX-License-Identifier: MIT */
/* stackview annotate FILE --name FUNC [FILTER...] [--json]: a function's machine code with each
 * instruction's share of the function's samples in the view (perf annotate's local period),
 * its source lines between the instructions, jump targets marked. The costs by address come
 * from lib/annotate.c, the instructions from the function's ELF file (formats/perf/disasm.c). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stackview/annotate.h"

#define MAX_SOURCE_BYTES (16u << 20)

/* A source file's lines, read once (NULL when unreadable). */
typedef struct src_text {
	char *text;
	const char **line; /* line[k]: line k + 1 */
	size_t n;
} src_text;

static void src_load(src_text *s, const char *path)
{
	memset(s, 0, sizeof(*s));
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	char *t = malloc(MAX_SOURCE_BYTES + 1);
	size_t len = t ? fread(t, 1, MAX_SOURCE_BYTES, f) : 0;
	fclose(f);
	if (!t)
		return;
	t[len] = '\0';
	size_t lines = 1;
	for (size_t i = 0; i < len; i++)
		lines += t[i] == '\n';
	s->line = malloc(lines * sizeof(*s->line));
	if (!s->line) {
		free(t);
		return;
	}
	s->text = t;
	char *p = t;
	while (p && *p) {
		s->line[s->n++] = p;
		if ((p = strchr(p, '\n')))
			*p++ = '\0';
	}
}

static const char *src_line(const src_text *s, uint32_t line)
{
	return s->text && line >= 1 && line <= s->n ? s->line[line - 1] : NULL;
}

/* The instruction at addr (binary search), or SIZE_MAX. */
static size_t insn_at(const sv_disasm *d, uint64_t addr)
{
	size_t lo = 0, hi = d->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->insns[mid].addr + d->insns[mid].size <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->n && d->insns[lo].addr <= addr ? lo : SIZE_MAX;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

typedef struct annotation {
	const sv_source *src;
	const sv_code_costs *fn;
	const char *path;
	sv_disasm d;
	double *metric, *count; /* per instruction */
	bool *target;           /* per instruction: a jump in the function lands there */
	double outside;         /* metric at addresses no instruction holds */
	size_t hottest;
	src_text *srcs; /* per source file of d */
} annotation;

static void print_text(FILE *f, const annotation *a, const char *event)
{
	const sv_disasm *d = &a->d;
	fprintf(f, "Annotate: %s in %s (%s, %.0f samples in the view; percent of the function's metric, as perf annotate's local period)\n",
		d->symbol, a->path, event ? event : "samples", a->fn->count);
	fprintf(f, " Percent    Samples | Address  Instruction                           (> jump target, * hottest)\n");
	uint32_t pf = UINT32_MAX, pl = 0;
	for (size_t i = 0; i < d->n; i++) {
		const sv_insn *x = &d->insns[i];
		if (x->line && (x->file != pf || x->line != pl)) {
			const char *txt = src_line(&a->srcs[x->file], x->line);
			fprintf(f, "                    |   %s:%u%s%s\n", base_name(d->files[x->file]), x->line, txt ? "   " : "",
				txt ? txt : "");
			pf = x->file, pl = x->line;
		}
		double pct = a->fn->metric != 0 ? 100.0 * a->metric[i] / a->fn->metric : 0;
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

static void print_json(FILE *f, const annotation *a, const char *event)
{
	const sv_disasm *d = &a->d;
	char hex[24];
	jw w = { .f = f };
	jw_begin_obj(&w);
	jw_key(&w, "function"); jw_str(&w, d->symbol);
	jw_key(&w, "frame"); jw_str(&w, sv_source_frame_name(a->src, a->fn->frame));
	jw_key(&w, "file"); jw_str(&w, a->path);
	jw_key(&w, "arch"); jw_str(&w, d->arch);
	jw_key(&w, "event");
	if (event)
		jw_str(&w, event);
	else
		jw_null(&w);
	snprintf(hex, sizeof(hex), "%" PRIx64, d->start);
	jw_key(&w, "start"); jw_str(&w, hex);
	snprintf(hex, sizeof(hex), "%" PRIx64, d->end);
	jw_key(&w, "end"); jw_str(&w, hex);
	jw_key(&w, "metric"); jw_num(&w, a->fn->metric);
	jw_key(&w, "count"); jw_num(&w, a->fn->count);
	jw_key(&w, "outside_metric"); jw_num(&w, a->outside);
	jw_key(&w, "instructions");
	jw_begin_arr(&w);
	for (size_t i = 0; i < d->n; i++) {
		const sv_insn *x = &d->insns[i];
		jw_begin_obj(&w);
		snprintf(hex, sizeof(hex), "%" PRIx64, x->addr);
		jw_key(&w, "address"); jw_str(&w, hex);
		jw_key(&w, "percent"); jw_num(&w, a->fn->metric != 0 ? 100.0 * a->metric[i] / a->fn->metric : 0);
		jw_key(&w, "metric"); jw_num(&w, a->metric[i]);
		jw_key(&w, "count"); jw_num(&w, a->count[i]);
		jw_key(&w, "text"); jw_str(&w, x->text);
		jw_key(&w, "jump_target"); jw_bool(&w, a->target[i]);
		if (x->target) {
			snprintf(hex, sizeof(hex), "%" PRIx64, x->target);
			jw_key(&w, x->jump ? "jumps_to" : "calls"); jw_str(&w, hex);
		}
		if (x->line) {
			jw_key(&w, "source"); jw_str(&w, d->files[x->file]);
			jw_key(&w, "line"); jw_int(&w, x->line);
		}
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_end_obj(&w);
	fputc('\n', f);
}

/* The function's instructions with their costs; 0 or an exit code (said on stderr). */
static int annotate_one(annotation *a, const cli_opts *o)
{
	sv_error err;
	sv_error_clear(&err);
	const sv_code_costs *fn = a->fn;
	a->path = sv_source_code_file(a->src, fn->file);
	/* the hottest address is surely inside the function */
	size_t hot = 0;
	for (size_t k = 1; k < fn->n; k++)
		if (fabs(fn->at[k].metric) > fabs(fn->at[hot].metric))
			hot = k;
	if (sv_disasm_function(&a->d, a->path, fn->at[hot].addr, &err)) {
		fprintf(stderr, "stackview: annotate %s: %s\n", o->name, err.msg);
		return EXIT_INPUT;
	}
	size_t n = a->d.n ? a->d.n : 1;
	a->metric = calloc(n, sizeof(*a->metric));
	a->count = calloc(n, sizeof(*a->count));
	a->target = calloc(n, sizeof(*a->target));
	a->srcs = calloc(a->d.nfiles ? a->d.nfiles : 1, sizeof(*a->srcs));
	if (!a->metric || !a->count || !a->target || !a->srcs) {
		fprintf(stderr, "stackview: out of memory\n");
		return EXIT_INPUT;
	}
	for (size_t k = 0; k < fn->n; k++) {
		size_t i = insn_at(&a->d, fn->at[k].addr);
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
		size_t t = x->jump && x->target >= a->d.start && x->target < a->d.end ? insn_at(&a->d, x->target) : SIZE_MAX;
		if (t != SIZE_MAX)
			a->target[t] = true;
	}
	if (o->out != OUT_JSON)
		for (size_t k = 0; k < a->d.nfiles; k++)
			src_load(&a->srcs[k], a->d.files[k]);
	return 0;
}

static void annotation_dispose(annotation *a)
{
	for (size_t k = 0; a->srcs && k < a->d.nfiles; k++) {
		free(a->srcs[k].text);
		free(a->srcs[k].line);
	}
	free(a->srcs);
	free(a->metric);
	free(a->count);
	free(a->target);
	sv_disasm_dispose(&a->d);
}

int cmd_annotate(const cli_opts *o)
{
	sv_source *src;
	sv_view *v;
	sv_params p = { 0 };
	int rc = cli_open_view(o, &src, &p, &v);
	if (rc)
		return rc;
	sv_code_costs *fns = NULL;
	size_t nfn = 0;
	annotation a = { .src = src };
	if (sv_code_costs_new(&fns, &nfn, v, o->name)) {
		fprintf(stderr, "stackview: out of memory\n");
		rc = EXIT_INPUT;
		goto out;
	}
	if (!sv_source_location_count(src)) {
		fprintf(stderr, "stackview: annotate: %s has no code addresses (annotate reads perf.data recordings)\n",
			o->files[0]);
		rc = EXIT_INPUT;
		goto out;
	}
	if (!nfn) {
		fprintf(stderr, "stackview: annotate: no sample in the view executed in '%s' (give a function as byname "
				"names it: 'module!function' or 'function')\n",
			o->name);
		rc = EXIT_USAGE;
		goto out;
	}
	for (size_t i = 1; i < nfn && i < 6; i++)
		fprintf(stderr, "stackview: annotate: also '%s' in %s (%.1f %% of the first's metric); --name '%s' picks it\n",
			sv_source_frame_name(src, fns[i].frame), sv_source_code_file(src, fns[i].file),
			fns[0].metric != 0 ? 100.0 * fns[i].metric / fns[0].metric : 0, sv_source_frame_name(src, fns[i].frame));
	a.fn = &fns[0];
	if ((rc = annotate_one(&a, o)))
		goto out;
	const char *event = sv_source_event_name(src);
	if (o->out == OUT_JSON)
		print_json(stdout, &a, event);
	else
		print_text(stdout, &a, event);
	rc = cli_finish_output(stdout);
out:
	annotation_dispose(&a);
	sv_code_costs_free(fns, nfn);
	sv_view_free(v);
	sv_params_dispose(&p);
	sv_source_free(src);
	return rc;
}
