/* SPDX-License-Identifier: MIT */
/* What every subcommand shares: loading a file (with progress), the parameters from the command
 * line and the file's saved state, building the view, timing lines, errors on stderr. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

double cli_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void cli_report(const sv_error *err)
{
	char buf[1200];
	sv_error_format(buf, sizeof(buf), err);
	fprintf(stderr, "stackview: %s\n", buf);
}

sv_import_opts cli_import_opts(const cli_opts *o)
{
	/* symbols: the options, else the variables PerfView and perf read */
	const char *urls = getenv("DEBUGINFOD_URLS");
	return (sv_import_opts){ .format = o->format, .event = o->event, .kallsyms = o->kallsyms, .debug_dirs = o->debug_dirs,
				 .perf_map_dir = o->perf_map_dir, .no_inline = o->no_inline, .by_cpu = o->by_cpu, .threads = o->threads,
				 .code_paths = o->cmd && !strcmp(o->cmd, "source"),
				 /* code addresses for annotate, Goto Source and the TUI (a, Alt-D); info's notes
				  * say which files annotate would read, without the addresses */
				 .no_code = o->cmd && strcmp(o->cmd, "annotate") && strcmp(o->cmd, "source") && strcmp(o->cmd, "view"),
				 .code_notes = o->cmd && !strcmp(o->cmd, "info"),
				 .symfs = o->symfs, .debuginfod = urls && *urls,
				 .symbol_path = o->symbol_path ? o->symbol_path : getenv("_NT_SYMBOL_PATH"), .offline = o->offline, .priority = o->priority,
				 .symbol_modules = o->symbol_modules,
				 .net_file_s = o->net_timeout, .net_total_s = o->net_total };
}

/* Load a file (with progress and cancelling); `aggregate`: one sample per stack. */
int cli_load_as(sv_source **out, const char *path, const cli_opts *o, bool aggregate)
{
	sv_error err;
	sv_error_clear(&err);
	cli_progress cp;
	cli_progress_begin(&cp, path, o->progress);
	sv_import_opts io = cli_import_opts(o);
	io.progress = cli_progress_watch(&cp);
	io.aggregate = aggregate;
	int rc = sv_load(out, path, &io, &err);
	if (cli_progress_end(&cp, rc == 0) && rc == 0) {
		/* Ctrl-C after the loaders' last look (two threads joining, the last records): it
		 * still ends the program, as it would have a moment later, and nothing is written */
		sv_source_free(*out);
		*out = NULL;
		cli_signals_die(SIGINT);
	}
	if (rc) {
		cli_report(&err);
		return rc == SV_EINVAL ? EXIT_USAGE : EXIT_INPUT;
	}
	/* --by-cpu is never silently ignored: only perf and ETL inputs record CPUs */
	const char *fmt = sv_source_format(*out);
	if (o->by_cpu && strcmp(fmt, "perf-data") && strcmp(fmt, "perf-script") && strcmp(fmt, "etl")) {
		fprintf(stderr, "stackview: %s: --by-cpu needs an input that records each sample's CPU (perf.data, perf script "
				"text, ETL); this is %s\n", path, fmt);
		sv_source_free(*out);
		*out = NULL;
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < sv_source_note_count(*out); i++)
		if (sv_source_note(*out, i)->kind == SV_NOTE_WARNING)
			fprintf(stderr, "stackview: %s: warning: %s\n", path, sv_source_note(*out, i)->text);
	if (o->scaling)
		sv_source_set_scaling(*out, strcmp(o->scaling, "time") == 0 ? SV_SCALING_TIME : SV_SCALING_DATA);
	return 0;
}

int cli_load(sv_source **out, const char *path, const cli_opts *o)
{
	return cli_load_as(out, path, o, false);
}

/* The file's saved state (or empty boxes), then the command line's boxes on top. */
int cli_make_params(sv_params *p, const sv_source *src, const char *const box[SV_BOX_COUNT])
{
	const sv_params *saved = src ? sv_source_saved_params(src) : NULL;
	int rc = saved ? sv_params_copy(p, saved) : sv_params_init(p);
	for (int i = 0; !rc && i < SV_BOX_COUNT; i++) {
		if (!box[i])
			continue;
		/* --preset 'group system modules' or 'Just My App' (cli_resolve_preset): made for
		 * this profile from its program's modules, as the terminal UI makes them */
		char *made = NULL;
		if (i == SV_BOX_GROUP && src && strcmp(box[i], "[group system modules] ") == 0)
			rc = sv_preset_group_system(&made, src);
		else if (i == SV_BOX_GROUP && src && strcmp(box[i], "[Just My App] ") == 0)
			rc = sv_preset_just_my_app(&made, src);
		if (!rc)
			rc = sv_params_set(p, (sv_box)i, made ? made : box[i]);
		free(made);
	}
	return rc;
}

int cli_build_view(sv_view **out, const sv_source *src, const sv_params *p)
{
	sv_error err;
	sv_error_clear(&err);
	int rc = sv_view_new(out, src, p, &err);
	if (rc) {
		cli_report(&err);
		return rc == SV_ENOMEM ? EXIT_INPUT : EXIT_USAGE;
	}
	sv_view_trim(*out); /* a command makes no view like another */
	return 0;
}

void cli_timing(const cli_opts *o, const char *phase, double ms)
{
	if (o->timing)
		fprintf(stderr, "timing: %s %.1f ms\n", phase, ms);
}

/* Load files[0], fill the boxes (saved state, then the command line) and build the view.
 * On failure everything made so far is freed and the exit code returned. */
int cli_open_view(const cli_opts *o, sv_source **src, sv_params *p, sv_view **v)
{
	double t0 = cli_now_ms();
	*src = NULL;
	*v = NULL;
	int rc = cli_load(src, o->files[0], o);
	if (rc)
		return rc;
	cli_timing(o, "load", cli_now_ms() - t0);
	if (cli_make_params(p, *src, o->box))
		rc = EXIT_INPUT;
	else if ((rc = cli_build_view(v, *src, p)) == 0)
		return 0;
	sv_params_dispose(p);
	sv_source_free(*src);
	*src = NULL;
	return rc;
}

int cli_finish_output(FILE *f)
{
	if (fflush(f) != 0 || ferror(f)) {
		fprintf(stderr, "stackview: writing output failed\n");
		return EXIT_OUTPUT;
	}
	return EXIT_OK;
}
