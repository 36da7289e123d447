/* SPDX-License-Identifier: MIT */
/* The subcommand table (as perf's and git's are): each subcommand's name, files and needs,
 * read by the parser (options.c), the checks before loading, the view printer (view.c) and
 * the dispatch (main.c, which maps each id to the function that runs it). Data only: this
 * file calls no subcommand, so every file above can read it. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The first entry is the default: `stackview FILE` opens the terminal UI. */
static const cli_command commands[] = {
	{ .id = CLI_CMD_VIEW, .name = "view", .min_files = 0, .max_files = 1, .needs = CLI_WANTS_PRESETS, .files = "FILE" },
	{ .id = CLI_CMD_INFO, .name = "info", .min_files = 1, .max_files = 1, .files = "FILE" },
	{ .id = CLI_CMD_BYNAME, .name = "byname", .min_files = 1, .max_files = 1, .files = "FILE" },
	{ .id = CLI_CMD_CALLTREE, .name = "calltree", .min_files = 1, .max_files = 1, .files = "FILE" },
	{ .id = CLI_CMD_CALLERS, .name = "callers", .min_files = 1, .max_files = 1, .needs = CLI_NEEDS_FOCUS, .files = "FILE" },
	{ .id = CLI_CMD_CALLEES, .name = "callees", .min_files = 1, .max_files = 1, .needs = CLI_NEEDS_FOCUS, .files = "FILE" },
	{ .id = CLI_CMD_CALLERCALLEE, .name = "callercallee", .min_files = 1, .max_files = 1, .needs = CLI_NEEDS_FOCUS, .files = "FILE" },
	{ .id = CLI_CMD_FLAME, .name = "flame", .min_files = 1, .max_files = 1, .needs = CLI_NEEDS_OUTPUT, .files = "FILE" },
	{ .id = CLI_CMD_DIFF, .name = "diff", .min_files = 2, .max_files = CLI_MAX_FILES, .needs = CLI_WANTS_PRESETS | CLI_SPLITS,
	  .files = "BASE and TEST files (BASE... -- TEST... for several runs a side)" },
	{ .id = CLI_CMD_OVERWEIGHT, .name = "overweight", .min_files = 2, .max_files = CLI_MAX_FILES, .needs = CLI_SPLITS,
	  .files = "BASE and TEST files (BASE... -- TEST... for several runs a side)" },
	{ .id = CLI_CMD_CHECK, .name = "check", .min_files = 2, .max_files = CLI_MAX_FILES, .needs = CLI_SPLITS,
	  .files = "a BUDGET file and PROFILE files (BUDGET BASE... -- PROFILE... for growth rules)" },
	{ .id = CLI_CMD_EXPLAIN, .name = "explain", .min_files = 1, .max_files = 1, .needs = CLI_NEEDS_NAME, .files = "FILE" },
	{ .id = CLI_CMD_CONVERT, .name = "convert", .min_files = 2, .max_files = 2, .files = "IN and OUT files" },
	{ .id = CLI_CMD_SYMBOLS, .name = "symbols", .min_files = 1, .max_files = 1, .files = "a PDB file" },
	{ .id = CLI_CMD_EVENTS, .name = "events", .min_files = 1, .max_files = 1, .files = "FILE" },
	{ .id = CLI_CMD_REPORT, .name = "report", .min_files = 2, .max_files = 2,
	  .files = "a report (gcstats, jitstats or traceinfo) and a FILE" },
	{ .id = CLI_CMD_ANNOTATE, .name = "annotate", .min_files = 1, .max_files = 1, .needs = CLI_NEEDS_NAME, .files = "FILE" },
	{ .id = CLI_CMD_SOURCE, .name = "source", .min_files = 1, .max_files = 1, .needs = CLI_NEEDS_NAME, .files = "FILE" },
	{ .id = CLI_CMD_PRESETS, .name = "presets", .min_files = 0, .max_files = 0, .needs = CLI_WANTS_PRESETS, .files = "" },
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
int cli_command_check(const cli_command *c, const cli_opts *o)
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
