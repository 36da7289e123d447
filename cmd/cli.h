/* SPDX-License-Identifier: MIT */
/* The stackview command: options, output writers and subcommands (spec/cli.md).
 * Ownership: cli_opts owns its params (cli_opts_dispose); everything else is borrowed. */
#ifndef STACKVIEW_CMD_CLI_H
#define STACKVIEW_CMD_CLI_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <termios.h>

#include "stackview/aggview.h"
#include "stackview/evlog.h"
#include "stackview/formats.h"
#include "stackview/grid.h"
#include "stackview/params.h"
#include "stackview/preset.h"
#include "stackview/view.h"

enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2, EXIT_OUTPUT = 3 };

/* Files on one command line (diff and check take several runs a side). */
#define CLI_MAX_FILES 256

typedef enum cli_out { OUT_TEXT, OUT_JSON, OUT_TSV, OUT_CSV } cli_out;

typedef struct cli_opts {
	const char *cmd;
	const char *files[CLI_MAX_FILES];
	int nfiles;
	int split; /* diff, overweight, check: the files before `--` are the base runs; -1 = no `--` */
	const char *match;  /* diff, overweight: --match 'OLD=>NEW;...' */
	bool no_auto_match; /* --no-auto-match */
	bool welch;         /* --welch: Welch's t instead of the pooled variance */
	const char *junit;  /* check: --junit FILE */
	const char *name;   /* explain: --name NAME */
	const char *lookup[CLI_MAX_FILES]; /* symbols: --lookup ADDR[,ADDR...], each as given */
	int nlookup;
	bool lines; /* symbols: the source lines instead of the functions */
	struct sv_compare *compare; /* diff: the runs compared, for the rows' Base/Test/CI columns */
	bool compare_cols;  /* several runs on a side: those columns are shown by default */
	/* Boxes given on the command line; NULL = not given (keep the file's saved state). */
	const char *box[SV_BOX_COUNT];
	const char *select_box[SV_BOX_COUNT]; /* diff: --select-* */
	const char *focus;
	const char *view;    /* diff --view */
	const char *format;  /* --format */
	const char *event;   /* --event */
	const char *kallsyms;     /* --kallsyms */
	bool no_inline;           /* --no-inline */
	unsigned threads;         /* --threads (0 = decide) */
	bool by_cpu;              /* --by-cpu */
	const char *symbol_path;  /* --symbol-path, else $_NT_SYMBOL_PATH */
	bool offline;             /* --offline */
	const char *priority;     /* --priority */
	const char *symbol_modules; /* --symbol-modules */
	/* events: --process, --thread, --grep, --fields, --limit (-1 = all) */
	const char *ev_process, *ev_thread, *ev_grep, *ev_fields;
	long ev_limit;
	bool perf_layout;         /* diff --layout perf */
	double net_timeout, net_total; /* --net-timeout, --net-total (0 = the defaults) */
	const char *symfs;        /* --symfs */
	const char *source_path;  /* --source-path */
	const char *perf_map_dir; /* --perf-map-dir */
	const char *debug_dirs;   /* --debug-dir (each), then $PERF_BUILDID_DIR or ~/.debug, ':'-joined */
	char debug_buf[4096];
	const char *scaling; /* --scaling */
	const char *columns;
	sv_col cols[SV_COL_COUNT]; /* --columns parsed; ncols 0 = each view's default */
	size_t ncols;
	const char *output;  /* -o */
	const char *script;  /* --script: headless TUI key script file */
	int width, height;   /* --size WxH */
	long top, depth;
	double min_pct;      /* --min-pct: rows under this share are left out (0 = all) */
	int sort_col;        /* --sort: a column (sv_col), -1 = each view's own order */
	bool sort_asc;
	char *perf_inc;      /* --comm, --pid, --tid, --dsos, --symbols as IncPats entries (owned) */
	cli_out out;
	bool timing;
	int progress;        /* --progress 1, --no-progress 0, default -1 (when stderr is a terminal) */
	bool grouped;        /* convert --grouped */
	bool folded_flamegraph; /* --folded-style flamegraph[-…] */
	unsigned collapse;      /* its stackcollapse-perf.pl options (SV_COLLAPSE_*) */
	const char *preset; /* --preset NAME, resolved once the user's presets are read */
	sv_presets *presets; /* the user's presets (main owns them) */
	char preset_buf[512];
} cli_opts;

/* Signals (signals.c, the only place with handlers). on_fatal: while `restore` is set, a
 * fatal signal (INT, TERM, HUP, QUIT, SEGV, ABRT, BUS, FPE) calls it (it must be
 * async-signal-safe) before dying of the signal; NULL clears it. listen: while on, the first
 * Ctrl-C only sets the flag cli_signals_interrupted reads (a second one is fatal). */
void cli_signals_on_fatal(void (*restore)(void));
/* Listen for Ctrl-C (on) or stop listening; returns whether one came while listening. */
bool cli_signals_listen(bool on);
/* End the program by sig as its default action would (exit 128 + sig to the shell). */
void cli_signals_die(int sig);
/* Around a write that commits a file: the signals that end the program held; released with
 * whether the file was committed. Committed: a signal that came meanwhile is taken (its
 * number returned; the exit says the file is written); else it is delivered on release. */
void cli_signals_hold(sigset_t *old);
int cli_signals_release(const sigset_t *old, bool committed);
/* sv_write_atomic and sv_save with the signals that end the program held around them
 * (output.c): a signal that came once the file was committed is taken and noted on stderr,
 * and the command ends as the success it is; one that came before ends the program by it,
 * the old file in place. */
int cli_write_atomic(const char *path, int (*write)(FILE *f, void *payload, sv_error *err), void *payload,
		     sv_error *err);
int cli_save(const sv_source *src, const char *path, const sv_export_opts *eo, sv_error *err);
bool cli_signals_interrupted(void);

/* The progress bar while a file loads (progress.c): begin listens for Ctrl-C (the first
 * cancels the load) and, on a terminal, reads Esc / q; end stops both and clears the bar.
 * mode: 1 on, 0 off, -1 when stderr is a terminal. */
typedef struct cli_progress {
	sv_progress p;
	const char *name;
	bool on, tty, keys, drawn;
	double t0, last;
	struct termios saved;
} cli_progress;
void cli_progress_begin(cli_progress *cp, const char *path, int mode);
sv_progress *cli_progress_watch(cli_progress *cp);
/* The bar gone, keys and Ctrl-C no longer listened for; returns whether a Ctrl-C came that
 * the load did not see (in its last moments). */
bool cli_progress_end(cli_progress *cp, bool ok);

/* The subcommands (commands.c): one row each, read by the parser, the checks before loading
 * (file count, --focus, -o) and the dispatch (main.c maps each id to its function). */
typedef enum cli_command_id {
	CLI_CMD_VIEW, CLI_CMD_INFO, CLI_CMD_BYNAME, CLI_CMD_CALLTREE, CLI_CMD_CALLERS, CLI_CMD_CALLEES,
	CLI_CMD_CALLERCALLEE, CLI_CMD_FLAME, CLI_CMD_DIFF, CLI_CMD_OVERWEIGHT, CLI_CMD_CHECK, CLI_CMD_EXPLAIN,
	CLI_CMD_CONVERT, CLI_CMD_SYMBOLS, CLI_CMD_PRESETS, CLI_CMD_EVENTS, CLI_CMD_REPORT, CLI_CMD_ANNOTATE, CLI_CMD_SOURCE, CLI_CMD_COUNT
} cli_command_id;
enum { CLI_NEEDS_FOCUS = 1, CLI_NEEDS_OUTPUT = 2, CLI_WANTS_PRESETS = 4, CLI_SPLITS = 8 /* BASE... -- TEST... */,
       CLI_NEEDS_NAME = 16 };
typedef struct cli_command {
	cli_command_id id;
	const char *name;
	int min_files, max_files;
	unsigned needs;    /* CLI_NEEDS_* and CLI_WANTS_PRESETS (the user's presets are read) */
	const char *files; /* what the files are, for the usage error */
} cli_command;
const cli_command *cli_command_find(const char *name);
const cli_command *cli_command_default(void);
/* The subcommand names, for "did you mean". */
size_t cli_command_names(const char **out, size_t max);
/* What the table says c needs (file count, --focus, --name, -o), checked before anything is
 * loaded: 0, or EXIT_USAGE after the error line. */
int cli_command_check(const cli_command *c, const cli_opts *o);

/* suggest.c: the commands among names that `word` (not an existing file) is a typo or a
 * prefix of, quoted and joined with "or" into buf (false: none is close); up to max names of v closest to a --focus that matched none (names
 * containing it, heaviest first, else those a few edits away), borrowed from v. */
bool cli_suggest_command(const char *word, const char *const *names, size_t n, char *buf, size_t size);
size_t cli_suggest_names(sv_view *v, const char *focus, const char **out, size_t max);
/* An empty view of a source with samples: a warning on stderr saying why (an IncPats entry
 * that matches no frame, with the frames closest to it; entries that never meet on one
 * stack; ExcPats; the time range). */
void cli_explain_empty(const sv_source *src, const sv_view *v, const sv_params *p);
/* The error line for a --focus / --name that matched no name, with those suggestions (view.c). */
void cli_name_not_found(sv_view *v, const char *option, const char *name);

/* Shared by the subcommands (load.c). */
double cli_now_ms(void);
void cli_report(const sv_error *err);
int cli_load_as(sv_source **out, const char *path, const cli_opts *o, bool aggregate);
int cli_load(sv_source **out, const char *path, const cli_opts *o);
int cli_make_params(sv_params *p, const sv_source *src, const char *const box[SV_BOX_COUNT]);
int cli_build_view(sv_view **out, const sv_source *src, const sv_params *p);
void cli_timing(const cli_opts *o, const char *phase, double ms);
int cli_open_view(const cli_opts *o, sv_source **src, sv_params *p, sv_view **v);
int cli_finish_output(FILE *f);

/* The subcommands: view.c (cli_view: byname, calltree, callers, callees, callercallee, flame),
 * info.c, diff.c, convert.c, tui.c. Each returns an exit code. */
int cli_view(const cli_opts *o, const char *what);
/* A built view printed as `what` (byname, calltree, ...), or as a flame graph SVG to path. */
int cli_print_view(sv_view *v, const char *what, const cli_opts *o);
int cli_flame_to(const sv_view *v, const char *path, const char *title);
int cmd_info(const cli_opts *o);
int cmd_events(const cli_opts *o);
/* The file's events into an event log (the terminal UI's Events view, the reports), from
 * its first part read ahead when prep is not NULL (freed here), read with `progress` (NULL = none) and stopped when *cancel becomes true (NULL = never:
 * SV_ECANCELED); the first warning about the trace into warn ("" when none). 0, or the
 * listing's error in err (the events before it stay in the log). */
int cli_events_log(const cli_opts *o, const char *path, sv_list_prep *prep, sv_evlog *log, sv_progress *progress,
		   const atomic_bool *cancel, char *warn, size_t warncap, sv_error *err);
int cmd_report(const cli_opts *o);
int cmd_annotate(const cli_opts *o); /* annotate.c */
int cmd_source(const cli_opts *o);   /* annotate.c */
int cmd_diff(const cli_opts *o);
int cmd_overweight(const cli_opts *o);
/* The runs of a diff, overweight or check (diff.c): files[first ..], the base runs up to
 * `--` (one when there is none; none for check), each filtered with `box` (and, with
 * `saved`, the file's saved boxes first; Fold% cleared) and compared (names lined up, the
 * automatic matches said on stderr). Returns an exit code; dispose in any case. */
typedef struct cli_runs {
	size_t n, nbase;
	sv_source **src;
	sv_view **v;
	sv_params *p;
	struct sv_compare *cmp; /* NULL without base runs */
} cli_runs;
int cli_runs_load(cli_runs *r, const cli_opts *o, int first, const char *const box[SV_BOX_COUNT], bool saved);
void cli_runs_dispose(cli_runs *r);
/* A comparison's fields of a JSON row (output.c). */
struct sv_cmpstat;
struct jw;
void cli_json_cmpstat(struct jw *w, const struct sv_cmpstat *s);
int cmd_check(const cli_opts *o);   /* check.c */
int cmd_explain(const cli_opts *o); /* explain.c */
int cmd_symbols(const cli_opts *o); /* symbols.c */
/* What the options ask of an import (load.c); the caller adds progress and aggregation. */
sv_import_opts cli_import_opts(const cli_opts *o);
int cmd_convert(const cli_opts *o);
int cmd_tui(const cli_opts *o);
/* pick: open on the process picker; hot: open the call tree along its hot path. */
/* prep: the Events view's first part read ahead (tui.c), or NULL. src is taken over (the
 * window may free it before it ends: a heap snapshot's earlier tree on a Priority change). */
struct ev_prep;
int cli_run_tui(const cli_opts *o, sv_source *src, const char *title, const sv_params *p, bool pick, bool hot,
		const char *hello, struct ev_prep *prep);
const char *cli_tutorial_path(char *buf, size_t size);

/* Parse argv; on a usage error print it and return EXIT_USAGE. 0 = proceed, -1 = done (help). */
int cli_parse(cli_opts *o, int argc, char **argv);
void cli_usage(FILE *f);

/* The user's presets (presets.c): read them (a missing file is no presets), store them
 * atomically (the TUI's callback), resolve --preset NAME into boxes, list them all. */
int cli_presets_load(sv_presets *ps);
int cli_presets_store(void *payload, const sv_presets *ps, sv_error *err);
int cli_resolve_preset(cli_opts *o, const sv_presets *user);
int cli_presets_list(const cli_opts *o, const sv_presets *user);

/* Output of views. `depth` < 0 = unlimited. 0, or SV_ENOMEM (write errors are left to
 * cli_finish_output, which names them). */
int out_byname(FILE *f, sv_view *v, const cli_opts *o);
int out_calltree(FILE *f, sv_view *v, const cli_opts *o);
int out_aggtree(FILE *f, sv_view *v, const sv_aggtree *t, const cli_opts *o);
int out_callercallee(FILE *f, sv_view *v, const sv_callercallee *cc, const cli_opts *o);

/* Output buffer (outbuf.c): text kept in buf and written to f when buf is full and at
 * ob_flush; whoever writes to f itself flushes first. */
typedef struct ob {
	FILE *f;
	size_t n; /* bytes in buf */
	char buf[8192];
} ob;
void ob_put(ob *o, const char *s, size_t n);
void ob_puts(ob *o, const char *s);
void ob_putc(ob *o, char c);
void ob_int(ob *o, long long i);
void ob_flush(ob *o);

/* JSON writer (json_out.c), through an output buffer that is flushed when the outermost
 * container closes: a caller writes to o.f itself only between documents. */
typedef struct jw {
	ob o;
	long depth;
	bool comma; /* the innermost open container has a value already */
	bool after_key;
} jw;
void jw_begin_obj(jw *w);
void jw_end_obj(jw *w);
void jw_begin_arr(jw *w);
void jw_end_arr(jw *w);
void jw_key(jw *w, const char *k);
/* A key the caller writes as its JSON text with the colon (n bytes): JW_KEY(w, "ms") for a
 * literal key that needs no escape, in a loop that writes millions. */
void jw_keyn(jw *w, const char *text, size_t n);
#define JW_KEY(w, lit) jw_keyn((w), "\"" lit "\":", sizeof(lit) + 2)
void jw_str(jw *w, const char *s); /* NULL: null */
void jw_num(jw *w, double d);
void jw_int(jw *w, long long i);
void jw_null(jw *w);
void jw_bool(jw *w, bool b);

#endif
