/* SPDX-License-Identifier: MIT */
/* stackview: main. Parsing (options.c), validation, the presets and dispatch all read the one
 * subcommand table (commands.c); each subcommand family lives in its own file (view.c,
 * info.c, diff.c, convert.c, tui.c). */
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

/* Each subcommand's function, by the table's id (commands.c). */
static int (*const run[CLI_CMD_COUNT])(const cli_opts *o) = {
	[CLI_CMD_VIEW] = cmd_tui,
	[CLI_CMD_INFO] = cmd_info,
	[CLI_CMD_BYNAME] = run_view,
	[CLI_CMD_CALLTREE] = run_view,
	[CLI_CMD_CALLERS] = run_view,
	[CLI_CMD_CALLEES] = run_view,
	[CLI_CMD_CALLERCALLEE] = run_view,
	[CLI_CMD_FLAME] = run_view,
	[CLI_CMD_DIFF] = cmd_diff,
	[CLI_CMD_OVERWEIGHT] = cmd_overweight,
	[CLI_CMD_CHECK] = cmd_check,
	[CLI_CMD_EXPLAIN] = cmd_explain,
	[CLI_CMD_CONVERT] = cmd_convert,
	[CLI_CMD_SYMBOLS] = cmd_symbols,
	[CLI_CMD_PRESETS] = run_presets,
	[CLI_CMD_EVENTS] = cmd_events,
	[CLI_CMD_REPORT] = cmd_report,
	[CLI_CMD_ANNOTATE] = cmd_annotate,
	[CLI_CMD_SOURCE] = cmd_source,
};

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
	if (rc) {
		free(o.perf_inc);
		return rc < 0 ? EXIT_OK : rc;
	}
	const cli_command *c = cli_command_find(o.cmd);
	if ((rc = cli_command_check(c, &o))) {
		free(o.perf_inc);
		return rc;
	}
	/* The user's presets are read only by what uses them: --preset, the list, the TUI. */
	sv_presets user = { 0 };
	bool wants = o.preset || (c->needs & CLI_WANTS_PRESETS);
	if (wants && cli_presets_load(&user)) {
		fprintf(stderr, "stackview: out of memory\n");
		return EXIT_INPUT;
	}
	o.presets = wants ? &user : NULL; /* a TUI without them must not overwrite the file */
	rc = c->id == CLI_CMD_PRESETS ? 0 : cli_resolve_preset(&o, &user);
	if (!rc)
		rc = run[c->id](&o);
	sv_presets_dispose(&user);
	free(o.perf_inc);
	return rc;
}
