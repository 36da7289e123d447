/* SPDX-License-Identifier: MIT */
/* The user's presets file ($XDG_CONFIG_HOME/stackview/presets, else ~/.config/…), in
 * PerfView's text form (lib/preset.c), read at start and written atomically when the TUI
 * changes it; and --preset NAME: the user's presets first, then the built-ins. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "stackview/formats.h"

/* The file's path; with make_dir, its directory is created. false when there is no home. */
static bool presets_path(char *buf, size_t size, bool make_dir)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char dir[4096];
	if (xdg && xdg[0] == '/')
		snprintf(dir, sizeof(dir), "%s/stackview", xdg);
	else if (home && home[0])
		snprintf(dir, sizeof(dir), "%s/.config/stackview", home);
	else
		return false;
	if (make_dir) {
		/* mkdir -p: the parents first */
		for (char *p = dir + 1; *p; p++)
			if (*p == '/') {
				*p = '\0';
				(void)mkdir(dir, 0700);
				*p = '/';
			}
		(void)mkdir(dir, 0700);
	}
	return (size_t)snprintf(buf, size, "%s/presets", dir) < size;
}

int cli_presets_load(sv_presets *ps)
{
	*ps = (sv_presets){ 0 };
	char path[4200];
	if (!presets_path(path, sizeof(path), false))
		return 0;
	FILE *f = fopen(path, "rb");
	if (!f) {
		if (errno != ENOENT)
			fprintf(stderr, "stackview: %s: cannot read your presets: %s\n", path, strerror(errno));
		return 0;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	char buf[8192];
	size_t n;
	while (m && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, m);
	fclose(f);
	if (!m || fclose(m) != 0 || !text) {
		free(text);
		return SV_ENOMEM;
	}
	int rc = sv_presets_parse(ps, text);
	free(text);
	return rc;
}

static int write_text(FILE *f, void *payload, sv_error *err)
{
	(void)err;
	fputs(payload, f);
	return 0;
}

int cli_presets_store(void *payload, const sv_presets *ps, sv_error *err)
{
	(void)payload;
	char path[4200], *text = NULL;
	if (!presets_path(path, sizeof(path), true))
		return sv_error_set(err, SV_EINVAL, "no place for presets: set HOME or XDG_CONFIG_HOME");
	int rc = sv_presets_format(&text, ps);
	if (rc)
		return sv_error_set(err, rc, NULL);
	rc = sv_write_atomic(path, write_text, text, err);
	free(text);
	return rc;
}

int cli_resolve_preset(cli_opts *o, const sv_presets *user)
{
	if (!o->preset)
		return 0;
	const char *group = NULL, *pct = NULL, *fold = NULL;
	long u = sv_presets_find(user, o->preset);
	if (u >= 0) {
		group = user->p[u].group;
		pct = user->p[u].fold_pct;
		fold = user->p[u].fold;
	} else {
		for (size_t i = 0; i < sv_builtin_preset_count(); i++)
			if (strcmp(sv_builtin_preset_name(i), o->preset) == 0)
				group = sv_builtin_preset_group(i);
	}
	if (!group) {
		fprintf(stderr, "stackview: unknown preset '%s' (stackview presets lists them)\n", o->preset);
		return EXIT_USAGE;
	}
	snprintf(o->preset_buf, sizeof(o->preset_buf), "[%s] %s", o->preset, group);
	o->box[SV_BOX_GROUP] = o->preset_buf;
	/* A preset of yours also carries Fold% and FoldPats, unless given on the command line. */
	if (pct && !o->box[SV_BOX_FOLD_PCT])
		o->box[SV_BOX_FOLD_PCT] = pct;
	if (fold && !o->box[SV_BOX_FOLD])
		o->box[SV_BOX_FOLD] = fold;
	return 0;
}

int cli_presets_list(const cli_opts *o, const sv_presets *user)
{
	(void)o;
	char path[4200];
	for (size_t i = 0; i < sv_builtin_preset_count(); i++)
		printf("built-in  %-32s %s\n", sv_builtin_preset_name(i), sv_builtin_preset_describe(i));
	for (size_t i = 0; i < user->n; i++)
		printf("yours     %-32s %s%s%s%s%s\n", user->p[i].name, user->p[i].group,
		       user->p[i].fold_pct[0] ? "  Fold% " : "", user->p[i].fold_pct, user->p[i].fold[0] ? "  FoldPats " : "",
		       user->p[i].fold);
	if (presets_path(path, sizeof(path), false))
		printf("(yours are kept in %s)\n", path);
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_OUTPUT;
}
