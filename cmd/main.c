/* SPDX-License-Identifier: MIT */
/* stackview: the subcommand table (as perf's and git's are) and main. Parsing (options.c),
 * validation, the presets and dispatch all read the one table; each subcommand family lives in
 * its own file (view.c, info.c, diff.c, convert.c, tui.c). */
#include <locale.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int run_view(const cli_opts *o)
{
	return cli_view(o, o->cmd);
}

static int run_presets(const cli_opts *o)
{
	return cli_presets_list(o, o->presets);
}

/* The first entry is the default: `stackview FILE` opens the terminal UI. */
static const cli_command commands[] = {
	{ .name = "view", .run = cmd_tui, .min_files = 0, .max_files = 1, .needs = CLI_WANTS_PRESETS, .files = "FILE" },
	{ .name = "info", .run = cmd_info, .min_files = 1, .max_files = 1, .files = "FILE" },
	{ .name = "byname", .run = run_view, .min_files = 1, .max_files = 1, .files = "FILE" },
	{ .name = "calltree", .run = run_view, .min_files = 1, .max_files = 1, .files = "FILE" },
	{ .name = "callers", .run = run_view, .min_files = 1, .max_files = 1, .needs = CLI_NEEDS_FOCUS, .files = "FILE" },
	{ .name = "callees", .run = run_view, .min_files = 1, .max_files = 1, .needs = CLI_NEEDS_FOCUS, .files = "FILE" },
	{ .name = "callercallee", .run = run_view, .min_files = 1, .max_files = 1, .needs = CLI_NEEDS_FOCUS, .files = "FILE" },
	{ .name = "flame", .run = run_view, .min_files = 1, .max_files = 1, .needs = CLI_NEEDS_OUTPUT, .files = "FILE" },
	{ .name = "diff", .run = cmd_diff, .min_files = 2, .max_files = CLI_MAX_FILES, .needs = CLI_WANTS_PRESETS | CLI_SPLITS,
	  .files = "BASE and TEST files (BASE... -- TEST... for several runs a side)" },
	{ .name = "overweight", .run = cmd_overweight, .min_files = 2, .max_files = CLI_MAX_FILES, .needs = CLI_SPLITS,
	  .files = "BASE and TEST files (BASE... -- TEST... for several runs a side)" },
	{ .name = "check", .run = cmd_check, .min_files = 2, .max_files = CLI_MAX_FILES, .needs = CLI_SPLITS,
	  .files = "a BUDGET file and PROFILE files (BUDGET BASE... -- PROFILE... for growth rules)" },
	{ .name = "explain", .run = cmd_explain, .min_files = 1, .max_files = 1, .needs = CLI_NEEDS_NAME, .files = "FILE" },
	{ .name = "convert", .run = cmd_convert, .min_files = 2, .max_files = 2, .files = "IN and OUT files" },
	{ .name = "symbols", .run = cmd_symbols, .min_files = 1, .max_files = 1, .files = "a PDB file" },
	{ .name = "presets", .run = run_presets, .min_files = 0, .max_files = 0, .needs = CLI_WANTS_PRESETS, .files = "" },
};

const cli_command *cli_command_find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

const cli_command *cli_command_default(void)
{
	return &commands[0];
}

size_t cli_command_names(const char **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]) && n < max; i++)
		out[n++] = commands[i].name;
	return n;
}

/* What the table says a subcommand needs, checked before anything is loaded. */
static int check(const cli_command *c, const cli_opts *o)
{
	if (o->nfiles < c->min_files || o->nfiles > c->max_files) {
		if (c->max_files == 0)
			fprintf(stderr, "stackview: %s takes no files\n", c->name);
		else if (c->max_files == 1)
			fprintf(stderr, "stackview: %s needs one FILE (see stackview --help)\n", c->name);
		else
			fprintf(stderr, "stackview: %s needs %s\n", c->name, c->files);
		return EXIT_USAGE;
	}
	if (c->needs & CLI_SPLITS) {
		/* diff and overweight: BASE TEST, or BASE... -- TEST...; check: BUDGET PROFILE...,
		 * or BUDGET BASE... -- PROFILE... */
		int first = !strcmp(c->name, "check");
		bool ok = o->split < 0 ? first || o->nfiles == 2 : o->split > first && o->nfiles > o->split;
		if (!ok) {
			fprintf(stderr, "stackview: %s needs %s\n", c->name, c->files);
			return EXIT_USAGE;
		}
	}
	if ((c->needs & CLI_NEEDS_NAME) && !o->name) {
		fprintf(stderr, "stackview: %s needs --name NAME\n", c->name);
		return EXIT_USAGE;
	}
	if ((c->needs & CLI_NEEDS_FOCUS) && !o->focus) {
		fprintf(stderr, "stackview: %s needs --focus NAME\n", c->name);
		return EXIT_USAGE;
	}
	if ((c->needs & CLI_NEEDS_OUTPUT) && !o->output) {
		fprintf(stderr, "stackview: %s needs -o OUT.svg\n", c->name);
		return EXIT_USAGE;
	}
	return 0;
}

int main(int argc, char **argv)
{
	setlocale(LC_CTYPE, "");
	/* A view's tables (tens of MB for 400k stacks) come back from the heap at the next
	 * refilter instead of fresh zeroed pages from the kernel: clearing pages was a fifth of a
	 * refilter. Only blocks past 64 MB (the sample arrays as they grow) are mapped on their own. */
#ifdef M_MMAP_THRESHOLD
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
	cli_opts o;
	int rc = cli_parse(&o, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	const cli_command *c = cli_command_find(o.cmd);
	if ((rc = check(c, &o)))
		return rc;
	/* The user's presets are read only by what uses them: --preset, the list, the TUI. */
	sv_presets user = { 0 };
	bool wants = o.preset || (c->needs & CLI_WANTS_PRESETS);
	if (wants && cli_presets_load(&user)) {
		fprintf(stderr, "stackview: out of memory\n");
		return EXIT_INPUT;
	}
	o.presets = wants ? &user : NULL; /* a TUI without them must not overwrite the file */
	rc = c->run == run_presets ? 0 : cli_resolve_preset(&o, &user);
	if (!rc)
		rc = c->run(&o);
	sv_presets_dispose(&user);
	return rc;
}
