/* SPDX-License-Identifier: MIT */
/* The terminal UI's entry points for cmd/. Ownership: borrows the source (unless
 * tui_options.give_source) and the parameters. */
#ifndef STACKVIEW_TUI_H
#define STACKVIEW_TUI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "stackview/evlog.h"
#include "stackview/params.h"
#include "stackview/preset.h"
#include "stackview/source.h"
#include "stackview/status.h"
#include "stackview/view.h"

/* What a reload changes (NULL: as the file was first opened). */
typedef struct tui_reload {
	const char *event;          /* another event of the file */
	const char *priority;       /* a heap snapshot's Priority patterns */
	const char *symbol_modules; /* ETL: the modules whose symbols to look up ("clr,ntdll") */
	bool code_paths;            /* perf.data: every caller's code address too (Goto Source) */
	/* how far the read is (an sv_progress's function: bytes done, of total; 0 goes on), for
	 * the status line; NULL: nobody watches */
	int (*progress)(void *payload, unsigned long long done, unsigned long long total);
	void *progress_payload;
} tui_reload;

/* The Events view's reading, on a thread beside the keys: the reader adds the events to the
 * log as it reads them, says how far it is (bytes of the input; total 0 = not known) and
 * stops soon after `cancel` is set (SV_ECANCELED). */
typedef struct tui_ev_reading {
	atomic_bool cancel;
	atomic_ullong done, total;
} tui_ev_reading;

typedef struct tui_options {
	const char *title;
	const char *script; /* headless: the key script's text; NULL = a real terminal */
	int width, height;  /* headless screen size */
	FILE *out;          /* headless: where screen dumps go */
	/* Save View writes through this (cmd/ owns the formats); NULL disables saving. */
	int (*save)(void *payload, const sv_source *src, const char *path, sv_error *err);
	void *save_payload;
	bool pick_process; /* start with the process picker (it only sets IncPats, spec §5.2) */
	/* The user's presets (changed in place by the Presets list and Save As Preset) and how
	 * to store them; NULL presets disables both. */
	sv_presets *presets;
	int (*store_presets)(void *payload, const sv_presets *ps, sv_error *err);
	void *presets_payload;
	/* A first status line (what the opening boxes do), borrowed for the run; NULL = none. */
	const char *hello;
	/* Open the file again for another of its events (the event picker) or, on a heap
	 * snapshot, with other Priority patterns (`priority`; NULL = as first opened); NULL
	 * disables both. */
	int (*reload)(const void *payload, const tui_reload *r, sv_source **out, sv_error *err);
	const void *reload_payload;
	/* Read the file's events into `log` for the Events view (reload_payload is its payload;
	 * called on a thread of its own, so it may touch nothing else of the run); a warning
	 * about the trace into warn. NULL disables the view. */
	int (*load_events)(const void *payload, sv_evlog *log, tui_ev_reading *rd, char *warn, size_t warncap, sv_error *err);
	/* Annotate (source false) or Goto Source (true): the function `name` of view v as text
	 * (lines ending in \n), per line whether it is hot (an instruction or line with at least
	 * 0.5 % of the function), and the hottest one's line; all malloc'd, the caller's.
	 * SV_ENOTFOUND when no sample of the view has a code address in such a function; other
	 * errors in err. payload: reload_payload. NULL disables both (a source without code
	 * addresses). */
	int (*code_text)(const void *payload, const sv_view *v, const char *name, bool source, char **text, bool **hot, size_t *nlines,
			 size_t *hottest, sv_error *err);
	/* Open each new call tree along its hot path (profiles of whole programs), not only ROOT. */
	bool expand_hot;
	/* A heap snapshot: the Priority patterns its tree was built with (the Priority box and
	 * its commands then work); NULL = not a heap graph. Borrowed for the run. */
	const char *priority;
	/* A diff of several runs: the first view's rows get its Base, Test, 95 % CI, p and Sig
	 * columns (the comparison follows the boxes). Borrowed for the run; NULL = none. */
	struct sv_compare *compare;
	/* tui_run takes the source over: it frees it, and may before it returns (a heap
	 * snapshot's first tree, asleep under another Priority's). false: borrowed. */
	bool give_source;
} tui_options;

/* Give the terminal back if the TUI holds it; safe from a fatal-signal handler, which the
 * caller owns (register it while tui_run runs). */
void tui_term_restore(void);

/* Run the stack window until the user quits (or the script ends). 0, or a negative status
 * with err set: SV_EINVAL for a bad key script or screen size, anything else when the view
 * could not be built or the terminal not started. */
int tui_run(sv_source *src, const sv_params *params, const tui_options *opts, sv_error *err);

#endif
