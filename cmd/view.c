/* SPDX-License-Identifier: MIT */
/* The view subcommands: byname, calltree, callers, callees, callercallee (text, TSV, JSON
 * through output.c) and flame (SVG). */
#include <string.h>

#include "cli.h"
#include "stackview/commands.h"
#include "stackview/flame.h"

typedef struct flame_job {
	const sv_view *v;
	const sv_flame *fl;
	const char *title;
	char subtitle[1024];
} flame_job;

/* Print the view chosen by `what` (byname, calltree, callers, callees, callercallee). */
/* One line: the focus matched no name; the closest names, when there are some. */
void cli_name_not_found(sv_view *v, const char *option, const char *focus)
{
	const char *near[3];
	size_t n = cli_suggest_names(v, focus, near, 3);
	/* A grouped name copied from the terminal UI ("module libm.so.6 <<libm.so.6!__sin_fma>>",
	 * whose default boxes group system modules): the frame between << >> is the name here. */
	char inner[1024];
	if (sv_cmd_entry_frame(inner, sizeof(inner), focus) && !n)
		n = cli_suggest_names(v, inner, near, 3);
	fprintf(stderr, "stackview: %s '%s': no such name in the view", option, focus);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s'%s'", i ? ", " : "; did you mean ", near[i]);
	fputs(n ? "?" : "", stderr);
	if (inner[0])
		fprintf(stderr, " (a name the terminal UI's grouping of system modules makes: --preset 'group system modules' "
				"groups them so here; ungrouped, its entry frame is '%s')",
			inner);
	fputs("\n", stderr);
}

int cli_print_view(sv_view *v, const char *what, const cli_opts *o)
{
	double t0 = cli_now_ms();
	int rc = EXIT_OK, out_rc = 0;
	/* The command table says which views need a focus (diff --view reaches here too). */
	const cli_command *c = cli_command_find(what);
	if (c && (c->needs & CLI_NEEDS_FOCUS) && !o->focus) {
		fprintf(stderr, "stackview: %s needs --focus NAME\n", what);
		return EXIT_USAGE;
	}
	if (strcmp(what, "byname") == 0) {
		cli_timing(o, "view", cli_now_ms() - t0);
		t0 = cli_now_ms();
		out_rc = out_byname(stdout, v, o);
	} else if (strcmp(what, "calltree") == 0) {
		cli_timing(o, "view", cli_now_ms() - t0);
		t0 = cli_now_ms();
		out_rc = out_calltree(stdout, v, o);
	} else if (strcmp(what, "callers") == 0 || strcmp(what, "callees") == 0) {
		sv_name_id id = sv_view_name_find(v, o->focus);
		sv_aggtree *t = NULL;
		int r = id == SV_NAME_NONE ? SV_ENOTFOUND
					 : sv_aggtree_new(&t, v, strcmp(what, "callers") == 0 ? SV_AGG_CALLERS : SV_AGG_CALLEES, id);
		if (r == SV_ENOTFOUND) {
			cli_name_not_found(v, "--focus", o->focus);
			return EXIT_USAGE;
		}
		if (r) {
			fprintf(stderr, "stackview: %s\n", sv_status_str(r));
			return EXIT_INPUT;
		}
		cli_timing(o, "view", cli_now_ms() - t0);
		t0 = cli_now_ms();
		out_rc = out_aggtree(stdout, v, t, o);
		sv_aggtree_free(t);
	} else if (strcmp(what, "callercallee") == 0) {
		sv_callercallee *cc;
		int r = sv_callercallee_new(&cc, v, o->focus);
		if (r) {
			fprintf(stderr, "stackview: %s\n", sv_status_str(r));
			return EXIT_INPUT;
		}
		cli_timing(o, "view", cli_now_ms() - t0);
		t0 = cli_now_ms();
		out_rc = out_callercallee(stdout, v, cc, o);
		sv_callercallee_free(cc);
	} else {
		fprintf(stderr, "stackview: unknown view '%s'\n", what);
		return EXIT_USAGE;
	}
	rc = cli_finish_output(stdout);
	if (out_rc) {
		fprintf(stderr, "stackview: out of memory while printing the view\n");
		rc = EXIT_INPUT;
	}
	cli_timing(o, "output", cli_now_ms() - t0);
	return rc;
}

static int write_flame(FILE *f, void *payload, sv_error *err)
{
	flame_job *j = payload;
	return sv_flame_svg_write(f, j->v, j->fl, j->title, j->subtitle, err);
}

/* A flame graph of the view to `path`, atomically; the subtitle states the filter. */
int cli_flame_to(const sv_view *v, const char *path, const char *title)
{
	sv_flame *fl;
	if (sv_flame_new(&fl, v, SV_NODE_ROOT, 0.1 / 1180)) {
		fprintf(stderr, "stackview: out of memory\n");
		return EXIT_INPUT;
	}
	flame_job j = { v, fl, title, "" };
	size_t o = 0;
	const sv_params *p = sv_view_params(v);
	for (int b = 0; b < SV_BOX_COUNT && o < sizeof(j.subtitle); b++) {
		const char *t = sv_params_get(p, (sv_box)b);
		if (t[0] && b != SV_BOX_START && b != SV_BOX_END)
			o += (size_t)snprintf(j.subtitle + o, sizeof(j.subtitle) - o, "%s%s: %s", o ? "   " : "",
					      sv_box_name((sv_box)b), t);
	}
	if (o < sizeof(j.subtitle))
		snprintf(j.subtitle + o, sizeof(j.subtitle) - o, "%s%s .. %s ms", o ? "   " : "",
			 sv_params_get(p, SV_BOX_START), sv_params_get(p, SV_BOX_END));
	sv_error err;
	sv_error_clear(&err);
	int rc = cli_write_atomic(path, write_flame, &j, &err);
	sv_flame_free(fl);
	if (rc) {
		cli_report(&err);
		return EXIT_OUTPUT;
	}
	return EXIT_OK;
}

int cli_view(const cli_opts *o, const char *what)
{
	sv_source *src;
	sv_view *v;
	sv_params p = { 0 };
	int rc = cli_open_view(o, &src, &p, &v);
	if (rc)
		return rc;
	cli_explain_empty(src, v, &p);
	double fm, tm;
	sv_view_timing(v, &fm, &tm);
	cli_timing(o, "filter", fm);
	cli_timing(o, "tree", tm);
	if (strcmp(what, "flame") == 0) {
		double t1 = cli_now_ms();
		char title[600];
		const char *slash = strrchr(o->files[0], '/');
		snprintf(title, sizeof(title), "Flame Graph: %s", slash ? slash + 1 : o->files[0]);
		rc = cli_flame_to(v, o->output, title); /* the command table made sure of -o */
		cli_timing(o, "output", cli_now_ms() - t1);
	} else {
		rc = cli_print_view(v, what, o);
	}
	if (o->timing)
		fprintf(stderr, "timing: memory source %.1f MB, view %.1f MB (%zu samples, %u stacks, %u frames)\n",
			(double)sv_source_memory(src) / 1e6, (double)sv_view_memory(v) / 1e6, sv_source_sample_count(src),
			sv_source_stack_count(src), sv_source_frame_count(src));
	sv_view_free(v);
	sv_params_dispose(&p);
	sv_source_free(src);
	return rc;
}
