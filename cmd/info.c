/* SPDX-License-Identifier: MIT */
/* stackview info: what a file holds (format, events, samples, processes, saved state). */
#include <stdlib.h>

#include "cli.h"

int cmd_info(const cli_opts *o)
{
	sv_source *src;
	double t0 = cli_now_ms();
	int rc = cli_load(&src, o->files[0], o);
	if (rc)
		return rc;
	cli_timing(o, "load", cli_now_ms() - t0);
	sv_process *procs = NULL;
	size_t np = 0;
	if (sv_source_processes(&procs, &np, src)) {
		sv_source_free(src);
		fprintf(stderr, "stackview: out of memory\n");
		return EXIT_INPUT;
	}
	if (o->out == OUT_JSON) {
		jw w = { .o.f = stdout };
		jw_begin_obj(&w);
		jw_key(&w, "format"); jw_str(&w, sv_source_format(src));
		jw_key(&w, "events");
		jw_begin_arr(&w);
		for (size_t i = 0; i < sv_source_event_count(src); i++) {
			const sv_event *e = sv_source_event(src, i);
			jw_begin_obj(&w);
			jw_key(&w, "name"); jw_str(&w, e->name);
			jw_key(&w, "samples"); jw_int(&w, (long long)e->samples);
			jw_key(&w, "selected"); jw_bool(&w, e->selected);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_key(&w, "samples"); jw_int(&w, (long long)sv_source_sample_count(src));
		jw_key(&w, "frames"); jw_int(&w, sv_source_frame_count(src));
		jw_key(&w, "stacks"); jw_int(&w, sv_source_stack_count(src));
		jw_key(&w, "metric"); jw_num(&w, sv_source_total_metric(src));
		jw_key(&w, "count"); jw_num(&w, sv_source_total_count(src));
		jw_key(&w, "first"); jw_num(&w, sv_source_first_time(src));
		jw_key(&w, "last"); jw_num(&w, sv_source_last_time(src));
		jw_key(&w, "scaling"); jw_str(&w, sv_source_scaling(src) == SV_SCALING_TIME ? "time" : "data");
		for (int kind = SV_NOTE_INFO; kind <= SV_NOTE_WARNING; kind++) {
			jw_key(&w, kind == SV_NOTE_INFO ? "found" : "warnings");
			jw_begin_arr(&w);
			for (size_t i = 0; i < sv_source_note_count(src); i++)
				if (sv_source_note(src, i)->kind == kind)
					jw_str(&w, sv_source_note(src, i)->text);
			jw_end_arr(&w);
		}
		jw_key(&w, "program_modules");
		jw_begin_arr(&w);
		for (size_t i = 0; i < sv_source_user_module_count(src); i++)
			jw_str(&w, sv_source_user_module(src, i));
		jw_end_arr(&w);
		jw_key(&w, "processes");
		jw_begin_arr(&w);
		for (size_t i = 0; i < np; i++) {
			jw_begin_obj(&w);
			jw_key(&w, "pid"); jw_int(&w, procs[i].pid);
			jw_key(&w, "name"); jw_str(&w, procs[i].name);
			jw_key(&w, "samples"); jw_int(&w, (long long)procs[i].samples);
			jw_key(&w, "metric"); jw_num(&w, procs[i].metric);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_end_obj(&w);
		putchar('\n');
	} else {
		char a[64], b[64], c[64];
		printf("format     %s\n", sv_source_format(src));
		for (size_t i = 0; i < sv_source_event_count(src); i++) {
			const sv_event *e = sv_source_event(src, i);
			printf("event      %-40s %10zu%s\n", e->name, e->samples, e->selected ? "  (shown)" : "");
		}
		printf("samples    %zu\n", sv_source_sample_count(src));
		printf("frames     %u\n", sv_source_frame_count(src));
		printf("stacks     %u\n", sv_source_stack_count(src));
		sv_format_number(a, sizeof(a), sv_source_total_metric(src), 1);
		printf("metric     %s\n", a);
		sv_format_number(a, sizeof(a), sv_source_first_time(src), 3);
		sv_format_number(b, sizeof(b), sv_source_last_time(src), 3);
		printf("time       %s .. %s ms\n", a, b);
		printf("scaling    %s\n", sv_source_scaling(src) == SV_SCALING_TIME ? "time-metric" : "scale-to-data");
		if (sv_source_user_module_count(src)) {
			printf("programs  ");
			for (size_t i = 0; i < sv_source_user_module_count(src); i++)
				printf(" %s", sv_source_user_module(src, i));
			printf("   (their own code: by function in the TUI, system code grouped)\n");
		}
		if (np) {
			printf("processes  %zu\n", np);
			for (size_t i = 0; i < np; i++) {
				sv_format_number(c, sizeof(c), procs[i].metric, 1);
				printf("  %8ld  %-32s %10zu samples  %s\n", procs[i].pid, procs[i].name, procs[i].samples, c);
			}
		}
		for (size_t i = 0; i < sv_source_note_count(src); i++) {
			const sv_note *n = sv_source_note(src, i);
			printf("%-10s %s\n", n->kind == SV_NOTE_WARNING ? "warning" : "found", n->text);
		}
		if (sv_source_notes(src)[0])
			printf("notes      %s\n", sv_source_notes(src));
		const sv_params *sp = sv_source_saved_params(src);
		if (sp)
			for (int i = 0; i < SV_BOX_COUNT; i++)
				if (sp->box[i][0])
					printf("saved %-9s %s\n", sv_box_name((sv_box)i), sp->box[i]);
	}
	free(procs);
	sv_source_free(src);
	return cli_finish_output(stdout);
}
