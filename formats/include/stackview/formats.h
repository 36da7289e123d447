/* SPDX-License-Identifier: MIT */
/* The format table and loading: each format's probe, importer and writer, sniffing by
 * content first and by name second, and sv_load, which reads an input (stackview/input.h)
 * and pushes its frames, stacks and samples into a new source (design.md "Formats").
 * Writing lives in stackview/save.h.
 *
 * Ownership: sv_load returns a source the caller frees. Format table entries are static
 * and never freed. */
#ifndef STACKVIEW_FORMATS_H
#define STACKVIEW_FORMATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "stackview/annotate.h"
#include "stackview/input.h"
#include "stackview/save.h"
#include "stackview/source.h"
#include "stackview/status.h"

/* What the user asked of an import. */
typedef struct sv_import_opts {
	const char *format;       /* registry name; NULL = detect */
	const char *event;        /* perf: which event to load; NULL = the first one seen */
	const char *kallsyms;     /* perf.data: kernel symbols file (plain or gzip); NULL = decide */
	const char *debug_dirs;   /* perf.data: ':'-separated directories searched by build id */
	const char *perf_map_dir; /* perf.data: where perf-PID.map files are; NULL = /tmp */
	const char *symfs;        /* perf.data: the recording's files under this root (perf's --symfs) */
	bool debuginfod;          /* perf.data: ask debuginfod (DEBUGINFOD_URLS) by build id */
	sv_progress *progress;    /* borrowed; NULL = no progress reports */
	bool aggregate;           /* one sample per stack (sv_source_set_aggregate) */
	bool no_inline;           /* perf.data: no inline frames in DWARF-unwound stacks */
	bool code_paths;          /* perf.data: every caller's code address too, not only the leaf's
				   * (Goto Source's inclusive lines; a third more load time) */
	bool no_code;             /* no code addresses wanted (not annotate, Goto Source, the TUI):
				   * importers keep none and open no code files for them */
	bool code_notes;          /* with no_code: what `info` says about code all the same (which
				   * files annotate would read), without the samples' addresses */
	bool by_cpu;              /* perf, ETL: every stack under a "CPU n" root frame (WPA's Cpu) */
	const char *symbol_path;  /* ETL: where PDBs are (_NT_SYMBOL_PATH syntax); NULL = none */
	bool offline;             /* ETL: never download from the symbol path's servers */
	const char *symbol_modules; /* ETL: look only these modules' symbols up ("clr,ntdll", names
				     * without extension); NULL = every module the frames need */
	bool no_default_kind;     /* ETL: without CPU samples, show nothing rather than another kind */
	const char *priority;     /* gcdump: PerfView's Priority patterns ("PAT->NUM;..."), replacing
				   * its defaults; NULL = the defaults */
	unsigned threads;         /* perf script, folded text: 1 = one thread, 2 = two (any size),
				   * 0 = two for a whole input of 16 MiB or more when there are two CPUs */
	/* The network (ETL symbol servers, perf.data debuginfod): a file's transfer gives up
	 * after net_file_s seconds, all of a load's after net_total_s (0 = SV_NET_FILE_S,
	 * SV_NET_TOTAL_S); the progress watcher's cancel stops one within a second. */
	double net_file_s, net_total_s;
} sv_import_opts;

#define SV_NET_FILE_S 60.0
#define SV_NET_TOTAL_S 300.0

/* What PerfView opens a file of this kind with (semantics §11.2), when the file carries no
 * saved state: GroupPats and FoldPats (NULL = none), and whether the process picker comes
 * first (profiles of whole systems). */
typedef struct sv_format_defaults {
	const char *group, *fold;
	bool pick_process;
	/* GroupPats from sv_preset_group_system instead of `group`: system code grouped, the
	 * profiled program's own modules kept by function (perf: "Just My App"). */
	bool group_system;
} sv_format_defaults;


/* One event of a trace as the Events view lists it (PerfView's Events window): borrowed by
 * the callback for its call only. */
typedef struct sv_trace_event {
	double ms;               /* on the stack views' time axis */
	const char *name;        /* the event kind, as info and --event name it */
	long long pid, tid;      /* -1 = not known */
	int cpu;                 /* -1 = not known */
	const char *process;     /* its process's name as the stack views give it; NULL = none */
	size_t data_len;         /* payload bytes */
	bool has_stack;
	/* the payload's fields decoded from what the trace says of them (EventPipe metadata,
	 * TraceLogging schemas ...): numbers in decimal (hex for pointers and addresses:
	 * 0x...), strings as they are, GUIDs 8-4-4-4-12, times ISO 8601 UTC; nfields = 0 when
	 * the trace does not describe the kind */
	size_t nfields;
	const char *const *field_names;
	const char *const *field_values;
} sv_trace_event;

/* Called for each event in time order; a nonzero return stops the listing and is returned. */
typedef int (*sv_trace_event_fn)(void *payload, const sv_trace_event *e);

/* Where a listing goes: each event, and each warning about the trace (cut short, events
 * dropped, records skipped) after the events, as one line naming the file (NULL = none). */
typedef struct sv_event_lister {
	sv_trace_event_fn event;
	void (*warning)(void *payload, const char *text);
	void *payload;
} sv_event_lister;

struct sv_format {
	const char *name;                 /* "perfview-xml", ... */
	const char *const *patterns;      /* file-name suffixes, NULL-terminated */
	bool (*probe)(const unsigned char *data, size_t len);
	int (*import)(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err);
	bool streams; /* import reads a partial input through sv_lines */
	/* Write a source (NULL when the format cannot be written). */
	int (*export)(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err);
	const sv_format_defaults *defaults; /* NULL = PerfView's plain defaults */
	/* Every event of the trace to fn (NULL when the format holds no event list). */
	int (*list_events)(const sv_input *in, const sv_import_opts *opts, const sv_event_lister *l, sv_error *err);
	/* A listing in two parts (ETL: a first pass for the processes, threads, kinds and
	 * metadata, then the events): list_prepare does the first into *state; list_prepared
	 * the second from it, on the same input read again, and frees state; list_state_free
	 * frees a state not used. NULL: a listing is one part. */
	int (*list_prepare)(const sv_input *in, const sv_import_opts *opts, void **state, sv_error *err);
	int (*list_prepared)(const sv_input *in, void *state, const sv_import_opts *opts, const sv_event_lister *l,
			     sv_error *err);
	void (*list_state_free)(void *state);
};

extern SV_API const sv_format sv_fmt_perfview_xml;
extern SV_API const sv_format sv_fmt_perfview_json;
extern SV_API const sv_format sv_fmt_perf_script;
extern SV_API const sv_format sv_fmt_perf_data;
extern SV_API const sv_format sv_fmt_folded;
extern SV_API const sv_format sv_fmt_etl;
extern SV_API const sv_format sv_fmt_svg;
extern SV_API const sv_format sv_fmt_speedscope;
extern SV_API const sv_format sv_fmt_pprof;
extern SV_API const sv_format sv_fmt_chrome;
extern SV_API const sv_format sv_fmt_gecko;
extern SV_API const sv_format sv_fmt_wperf;
extern SV_API const sv_format sv_fmt_nettrace;
extern SV_API const sv_format sv_fmt_dtrace;
extern SV_API const sv_format sv_fmt_mac_sample;
extern SV_API const sv_format sv_fmt_heaptrack;
extern SV_API const sv_format sv_fmt_gcdump;

/* The registry, NULL-terminated. */
SV_API const sv_format *const *sv_formats(void);
SV_API const sv_format *sv_format_find(const char *name);
/* Content first, then name; NULL when nothing claims the input. */
SV_API const sv_format *sv_format_detect(const sv_input *in);

/* Read an input and unwrap it as sv_load does (a zip's entry, gzip/zlib, UTF-16 text):
 * `format_named` = the user named the format (then a zlib stream is not guessed at). On
 * failure nothing is left to dispose. */
SV_API int sv_input_open(sv_input *in, const char *path, bool format_named, sv_progress *progress,
			 sv_error *err) SV_MUST_USE;

/* Read an input as sv_load does and hand each of its events to l->event, in time order
 * (ETL, .nettrace). SV_EINVAL when the format holds no event list; a nonzero return of
 * l->event stops it and is returned. */
SV_API int sv_list_events(const char *path, const sv_import_opts *opts, const sv_event_lister *l,
			  sv_error *err) SV_MUST_USE;

/* A listing's first part done ahead, so that a listing asked for later starts at its events
 * (the TUI reads it on another thread while the trace loads): an ETL's first pass; nothing
 * for the other formats. Ownership: *out is the caller's, for sv_list_events_prepared (which
 * frees it) or sv_list_prep_free; the path is copied. SV_ECANCELED when opts' progress
 * callback stopped it. */
typedef struct sv_list_prep sv_list_prep;
SV_API int sv_list_prepare(sv_list_prep **out, const char *path, const sv_import_opts *opts, sv_error *err) SV_MUST_USE;
/* sv_list_events of the prepared file, from where the preparation stopped: the file is read
 * again (a file whose size changed since is listed from the start). Frees p. */
SV_API int sv_list_events_prepared(sv_list_prep *p, const sv_import_opts *opts, const sv_event_lister *l,
				   sv_error *err) SV_MUST_USE;
SV_API void sv_list_prep_free(sv_list_prep *p);
/* Whether a listing of the file at path (format: the format the user named, or NULL) has a
 * first part worth doing ahead, by the file's name: a trace.etl or trace.etl.zip. */
SV_API bool sv_list_prepares(const char *path, const char *format);

/* ---- a function's machine code (annotate) ---- */

typedef struct sv_insn {
	uint64_t addr;   /* in the file, as its symbols and perf annotate give addresses */
	uint16_t size;
	bool jump;       /* a jump (not a call) */
	uint64_t target; /* a direct jump's or call's target, 0 when none */
	uint32_t file;   /* its source file (index into files), UINT32_MAX when unknown */
	uint32_t line;   /* its source line, 0 when unknown */
	uint32_t site, nsite; /* inlined code: the lines it was inlined at, sites[site, site + nsite),
			       * innermost first (the line of the call in the function around it) */
	char text[112];  /* mnemonic and operands (AT&T syntax on x86) */
} sv_insn;

typedef struct sv_callsite {
	uint32_t file, line; /* file: index into sv_disasm.files */
} sv_callsite;

typedef struct sv_disasm {
	char *symbol;        /* the function's symbol */
	const char *arch;    /* "x86-64", "x86", "aarch64" (static) */
	uint64_t start, end; /* its code: [start, end) */
	sv_insn *insns;
	size_t n, insns_cap;
	char **files; /* source files named by the instructions' lines */
	size_t nfiles, files_cap;
	sv_callsite *sites; /* the instructions' inline call sites */
	size_t nsites, sites_cap;
	unsigned char build_id[20]; /* the file's GNU build id (what debuginfod serves sources by) */
	size_t build_id_len;        /* 0: none */
} sv_disasm;

/* The function whose symbol holds `addr` in the ELF file at `path`, decoded; its symbols and
 * lines from the file itself or its debug file (beside it, by build id in `debug_dirs`, ':'
 * separated absolute directories or NULL, then /usr/lib/debug). With `symbols` (a PDB), path
 * is a Windows image built with that PDB: the procedure and its lines come from the PDB, addr
 * and the instructions' addresses are the image's (ImageBase + RVA). On failure (not ELF, no
 * symbol there, a debug-only file without code, an image of another build than the PDB, an
 * architecture not decoded) err says which and nothing is left to dispose. */
SV_API int sv_disasm_function(sv_disasm *out, const char *path, const char *symbols, const char *debug_dirs,
			      uint64_t addr, sv_error *err) SV_MUST_USE;
SV_API void sv_disasm_dispose(sv_disasm *d);

/* A function annotated: the heaviest of the functions `name` means (sv_code_costs_new) with
 * each instruction's cost in the view. Owns what it points to; sv_annotation_dispose frees. */
typedef struct sv_annotation {
	const sv_source *src;
	sv_code_costs *fns; /* every function the name means, heaviest first */
	size_t nfns;
	const sv_code_costs *fn; /* the one annotated: fns[0] */
	const char *path;        /* its code file */
	sv_disasm d;
	double *metric, *count; /* per instruction */
	bool *target;           /* per instruction: a jump inside the function lands there */
	double outside;         /* metric at addresses no instruction holds */
	size_t hottest;         /* the instruction with the most metric */
	void *srcs;             /* the source files' text, when asked for */
} sv_annotation;

/* 0; SV_ENOTFOUND when no sample the view keeps executed in a function of that name (or the
 * source has no code locations); else an error in err (the code file unreadable, not ELF,
 * debug-only, ...). `sources`: read the source files for their lines' text; debug_dirs: as
 * sv_disasm_function's. */
SV_API int sv_annotate(sv_annotation *a, const sv_view *v, const char *name, bool sources, const char *debug_dirs,
			sv_error *err) SV_MUST_USE;
/* As text: two header lines, then per instruction its percent and samples, `*` on the hottest,
 * `>` on jump targets, address and instruction, each source line above its first instruction.
 * insn_line (NULL, or room for a->d.n): each instruction's line number, the first line 0. */
SV_API void sv_annotation_print(FILE *f, const sv_annotation *a, size_t *insn_line);
SV_API void sv_annotation_dispose(sv_annotation *a);
/* Instruction i's percent of the function's metric, to 9 decimals: the metric's sums carry
 * float noise (0.1 ms periods added up), so an exact tie (9.375) rounds as perf's does from
 * its integer periods. */
SV_API double sv_annotation_percent(const sv_annotation *a, size_t i);

/* Goto Source (PerfView's name): a function's source lines, each with what the view keeps of
 * the samples whose leaf is at that line (exclusive) and of those whose code path passes it
 * (inclusive: the callers' lines too when the source has every caller's code address,
 * sv_import_opts.code_paths). Owns what it points to; sv_srcview_dispose frees. */
typedef struct sv_source_line {
	uint32_t file, line; /* index into files; the line number */
	sv_key_cost cost;
} sv_source_line;

typedef struct sv_srcview {
	const sv_source *src;
	sv_frame_id frame;  /* the function's frame */
	const char *path;   /* its code file */
	char *symbol;
	sv_key_cost total;  /* the function's own: samples through any of its addresses */
	double view_metric; /* the view's total, for percentages */
	bool callers;       /* the source has callers' addresses (inclusive lines complete) */
	char **files;       /* source files its code's lines are in */
	size_t nfiles;
	uint32_t own_file;  /* the function's own (the others hold code inlined into it) */
	sv_source_line *lines; /* every line its code has or was inlined at, by file then line */
	size_t nlines;
	size_t hottest;     /* the line with the most inclusive metric (then exclusive) */
	void *srcs;         /* the source files' text */
} sv_srcview;

/* 0; SV_ENOTFOUND when no sample the view keeps has a code address in a function of that name
 * (or the source has no code locations); else an error in err. source_path: where else to
 * look for the source files (NULL = only where DWARF says); debug_dirs: as sv_disasm_function's. */
SV_API int sv_goto_source(sv_srcview *g, const sv_view *v, const char *name, const char *source_path,
			  const char *debug_dirs, sv_error *err) SV_MUST_USE;
/* As text: a header, then per source file its lines (from the function's first line to its
 * last; other files' lines, inlined code, only where they have code) with Inc %, Exc % (of
 * the view's metric), Inc, Exc and the text. line_row (NULL, or room for g->nlines): each
 * line's row in that text, the first row 0. */
SV_API void sv_srcview_print(FILE *f, const sv_srcview *g, size_t *line_row);
SV_API void sv_srcview_dispose(sv_srcview *g);

/* Read, unzip if needed, detect (or use opts->format) and import into a new source. opts
 * may be NULL. Errors carry the file name and a line or byte offset. */
SV_API int sv_load(sv_source **out, const char *path, const sv_import_opts *opts, sv_error *err) SV_MUST_USE;

#endif
