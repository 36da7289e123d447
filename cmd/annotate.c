/* SPDX-License-Identifier: MIT */
/* stackview annotate and stackview source (Goto Source). annotate FILE --name FUNC [FILTER...] [--json]: a function's machine code with each
 * instruction's share of the function's samples in the view (perf annotate's local period),
 * its source lines between the instructions, jump targets marked. formats/perf/annotate.c
 * joins the view's cost by address (lib/annotate.c) to the instructions and prints the text;
 * this file writes the JSON and says why nothing could be annotated. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "stackview/annotate.h"

static void print_json(FILE *f, const sv_annotation *a)
{
	const char *event = sv_source_event_name(a->src);
	const sv_disasm *d = &a->d;
	char hex[24];
	jw w = { .o.f = f };
	jw_begin_obj(&w);
	jw_key(&w, "function"); jw_str(&w, d->symbol);
	jw_key(&w, "frame"); jw_str(&w, sv_source_frame_name(a->src, a->fn->frame));
	jw_key(&w, "file"); jw_str(&w, a->path);
	jw_key(&w, "arch"); jw_str(&w, d->arch);
	jw_key(&w, "event");
	jw_str(&w, event);
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
		jw_key(&w, "percent"); jw_num(&w, sv_annotation_percent(a, i));
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

/* Why no function was found, on one line: the name is no frame's, no sample's leaf address is
 * in it (a caller only, or its code file was not found), or the view keeps none of them. */
/* The function an inline frame was inlined into: the nearest caller of the same module that
 * is not itself an inline frame (perf's convention: `m!f (inlined)` is called by the real
 * `m!g` it is part of, at the same address). */
static const char *inlined_into(const sv_source *src, sv_frame_id inl)
{
	const sv_stack_id *caller = sv_source_stack_callers(src);
	const sv_frame_id *frame = sv_source_stack_frames(src);
	const char *iname = sv_source_frame_name(src, inl), *ibang = strchr(iname, '!');
	size_t ml = ibang ? (size_t)(ibang - iname) + 1 : 0;
	for (uint32_t st = 0; st < sv_source_stack_count(src); st++) {
		if (frame[st] != inl)
			continue;
		for (sv_stack_id c = caller[st]; c != SV_STACK_NONE; c = caller[c]) {
			const char *name = sv_source_frame_name(src, frame[c]);
			size_t n = strlen(name);
			if (strncmp(name, iname, ml))
				break;
			if (n < 10 || strcmp(name + n - 10, " (inlined)"))
				return name;
		}
	}
	return NULL;
}

static int no_function(const sv_source *src, const char *name, const char *cmd)
{
	sv_frame_id frame = UINT32_MAX, inlined = UINT32_MAX;
	size_t nl = strlen(name);
	for (sv_frame_id f = 0; f < sv_source_frame_count(src) && frame == UINT32_MAX; f++) {
		if (sv_frame_is(src, f, name))
			frame = f;
		/* an inline frame, named with or without perf's mark */
		const char *full = sv_source_frame_name(src, f), *bang = strchr(full, '!');
		const char *fn = bang ? bang + 1 : full;
		if (inlined == UINT32_MAX && !strncmp(fn, name, nl) && !strcmp(fn + nl, " (inlined)"))
			inlined = f;
	}
	if (inlined != UINT32_MAX || (frame != UINT32_MAX && nl > 10 && !strcmp(name + nl - 10, " (inlined)"))) {
		sv_frame_id f = inlined != UINT32_MAX ? inlined : frame;
		const char *host = inlined_into(src, f);
		fprintf(stderr, "stackview: %s: %s is inlined: its code and lines are those of the function it was inlined "
				"into; %s --name '%s' shows them\n",
			cmd, sv_source_frame_name(src, f), cmd, host ? host : "FUNCTION");
		return EXIT_USAGE;
	}
	bool located = false, coded = false;
	for (uint32_t l = 0; l < sv_source_location_count(src) && !coded; l++)
		if (sv_frame_is(src, sv_source_location(src, l).frame, name)) {
			located = true;
			coded = sv_source_location(src, l).file != SV_LOC_NONE;
		}
	if (located && !coded) { /* kernel code read through kallsyms, JIT code, a file not here: names, no file */
		fprintf(stderr, "stackview: %s: '%s' has samples but no code file to read its instructions from "
				"(kernel functions are named from kallsyms; perf annotate needs the kernel's vmlinux or "
				"/proc/kcore for them, and JIT code has no file at all; a program's file is read at the path "
				"recorded or under --symfs DIR, and perf script text's only when it agrees with the text)\n",
			cmd, name);
		return EXIT_USAGE;
	}
	if (frame != UINT32_MAX && !located) {
		fprintf(stderr, "stackview: %s: %s: no sample's own address is in it (it has samples only as a caller, or "
				"its code file was not found when loading: give the binary with --symfs DIR or --debug-dir DIR)\n",
			cmd, sv_source_frame_name(src, frame));
		return EXIT_USAGE;
	}
	fprintf(stderr, "stackview: %s: no sample in the view executed in '%s' (%s)\n", cmd, name,
		located ? "the filters leave none of its samples"
			: "give a function as byname names it: 'module!function' or 'function'");
	return EXIT_USAGE;
}

static void print_source_json(FILE *f, const sv_srcview *g)
{
	const char *event = sv_source_event_name(g->src);
	jw w = { .o.f = f };
	jw_begin_obj(&w);
	jw_key(&w, "function"); jw_str(&w, g->symbol);
	jw_key(&w, "frame"); jw_str(&w, sv_source_frame_name(g->src, g->frame));
	jw_key(&w, "file"); jw_str(&w, g->path);
	jw_key(&w, "event");
	jw_str(&w, event);
	jw_key(&w, "view_metric"); jw_num(&w, g->view_metric);
	jw_key(&w, "inc"); jw_num(&w, g->total.inc);
	jw_key(&w, "exc"); jw_num(&w, g->total.exc);
	jw_key(&w, "inc_count"); jw_num(&w, g->total.inc_ct);
	jw_key(&w, "exc_count"); jw_num(&w, g->total.exc_ct);
	jw_key(&w, "callers"); jw_bool(&w, g->callers);
	jw_key(&w, "lines");
	jw_begin_arr(&w);
	for (size_t i = 0; i < g->nlines; i++) {
		const sv_source_line *l = &g->lines[i];
		jw_begin_obj(&w);
		jw_key(&w, "source"); jw_str(&w, g->files[l->file]);
		jw_key(&w, "line"); jw_int(&w, l->line);
		jw_key(&w, "inc"); jw_num(&w, l->cost.inc);
		jw_key(&w, "exc"); jw_num(&w, l->cost.exc);
		jw_key(&w, "inc_count"); jw_num(&w, l->cost.inc_ct);
		jw_key(&w, "exc_count"); jw_num(&w, l->cost.exc_ct);
		jw_key(&w, "hottest"); jw_bool(&w, i == g->hottest);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_end_obj(&w);
	fputc('\n', f);
}

/* annotate and source: the view, the function's instructions or lines, text or JSON. */
static int code_command(const cli_opts *o, bool source)
{
	sv_source *src;
	sv_view *v;
	sv_params p = { 0 };
	int rc = cli_open_view(o, &src, &p, &v);
	if (rc)
		return rc;
	sv_annotation a = { 0 };
	sv_srcview g = { 0 };
	sv_error err;
	sv_error_clear(&err);
	/* annotate decodes code, so needs code files; Goto Source a profile's own lines too */
	if (source ? !sv_source_location_count(src) : !sv_source_code_file_count(src)) {
		fprintf(stderr, "stackview: %s: %s has no code addresses%s\n", o->cmd, o->files[0],
			source ? " (Goto Source reads perf.data, perf script text, pprof and V8 profiles, ETL traces "
				 "with their PDBs on --symbol-path)"
			       : " in files found here (annotate reads perf.data recordings, perf script text and pprof "
				 "profiles, with the profiled binary at the path they name or under --symfs; ETL traces, "
				 "with each image beside its PDB in a folder or store of --symbol-path)");
		rc = EXIT_INPUT;
		goto out;
	}
	rc = source ? sv_goto_source(&g, v, o->name, o->source_path, o->debug_dirs, &err)
		    : sv_annotate(&a, v, o->name, o->out != OUT_JSON, o->debug_dirs, &err);
	if (rc == SV_ENOTFOUND) {
		rc = no_function(src, o->name, o->cmd);
		goto out;
	}
	if (rc) {
		fprintf(stderr, "stackview: %s %s: %s\n", o->cmd, o->name, err.msg[0] ? err.msg : sv_status_str(rc));
		rc = EXIT_INPUT;
		goto out;
	}
	for (size_t i = 1; !source && i < a.nfns && i < 6; i++) {
		const sv_code_costs *f = &a.fns[i];
		fprintf(stderr, "stackview: annotate: also '%s' in %s (%.1f %% of the first's metric); --name '%s' picks it\n",
			sv_source_frame_name(src, f->frame), sv_source_code_file(src, f->file),
			a.fns[0].metric != 0 ? 100.0 * f->metric / a.fns[0].metric : 0, sv_source_frame_name(src, f->frame));
	}
	if (source && o->out == OUT_JSON)
		print_source_json(stdout, &g);
	else if (source)
		sv_srcview_print(stdout, &g, NULL);
	else if (o->out == OUT_JSON)
		print_json(stdout, &a);
	else
		sv_annotation_print(stdout, &a, NULL);
	rc = cli_finish_output(stdout);
out:
	sv_annotation_dispose(&a);
	sv_srcview_dispose(&g);
	sv_view_free(v);
	sv_params_dispose(&p);
	sv_source_free(src);
	return rc;
}

int cmd_annotate(const cli_opts *o)
{
	return code_command(o, false);
}

int cmd_source(const cli_opts *o)
{
	return code_command(o, true);
}
