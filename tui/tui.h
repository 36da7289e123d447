/* SPDX-License-Identifier: MIT */
/* The terminal UI's entry points for cmd/. Ownership: borrows the source and parameters. */
#ifndef STACKVIEW_TUI_H
#define STACKVIEW_TUI_H

#include <stdio.h>

#include "stackview/params.h"
#include "stackview/preset.h"
#include "stackview/source.h"
#include <stddef.h>

typedef struct tui_options {
	const char *title;
	const char *script; /* headless: the key script's text; NULL = a real terminal */
	int width, height;  /* headless screen size */
	FILE *out;          /* headless: where screen dumps go */
	/* Save View writes through this (cmd/ owns the formats); NULL disables saving. */
	int (*save)(void *payload, const sv_source *src, const char *path, char *err, size_t errsize);
	void *save_payload;
	bool pick_process; /* start with the process picker (it only sets IncPats, spec §5.2) */
	/* The user's presets (changed in place by the Presets list and Save As Preset) and how
	 * to store them; NULL presets disables both. */
	sv_presets *presets;
	int (*store_presets)(void *payload, const sv_presets *ps, char *err, size_t errsize);
	void *presets_payload;
} tui_options;

/* Run the stack window until the user quits (or the script ends). Returns 0, or 1 when the
 * view could not be built (err says why), or 2 for a bad key script. */
int tui_run(sv_source *src, const sv_params *params, const tui_options *opts, char *err, size_t errsize);

#endif
