/* SPDX-License-Identifier: MIT */
/* The stack source: interned frames, stacks as a prefix trie, and samples as arrays
 * (design.md "Data model"). Importers fill a source through the sv_sink builder interface;
 * once built, a source is read-only and every view is computed from it.
 *
 * Ownership: sv_source_new returns a source the caller frees with sv_source_free. Strings
 * returned by the getters are borrowed and live as long as the source. Ids are dense
 * uint32 values: frame ids index frames, stack ids index stacks; a stack's caller always
 * has a smaller id than the stack itself. */
#ifndef STACKVIEW_SOURCE_H
#define STACKVIEW_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackview/params.h"
#include "stackview/status.h"

typedef uint32_t sv_frame_id;
typedef uint32_t sv_stack_id;

/* "no stack": the caller of a root-most stack element, or a sample with no stack. */
#define SV_STACK_NONE UINT32_MAX

/* Documented limits (docs/limits.md). */
#define SV_MAX_NAME_LEN (64u * 1024u)
#define SV_MAX_STACK_DEPTH 100000u
#define SV_MAX_SAMPLES 1000000000u
#define SV_MAX_TIME_MS 1e15 /* |time| of a sample: ~31,700 years */

typedef enum sv_scaling {
	SV_SCALING_DATA, /* scale-to-data: a sample is an instant */
	SV_SCALING_TIME, /* time-metric: a sample occupies [time, time + |metric|] */
} sv_scaling;

typedef struct sv_source sv_source;

/* The builder interface importers push into (ncdu's dir_output seam). The in-memory source
 * is one implementation; a streaming exporter can be another. Every callback returns 0 or a
 * negative sv_status. */
typedef struct sv_sink_ops {
	int (*intern_frame)(void *self, sv_frame_id *out, const char *name, size_t len);
	int (*intern_stack)(void *self, sv_stack_id *out, sv_stack_id caller, sv_frame_id frame);
	int (*add_sample)(void *self, sv_stack_id stack, double time, double metric, double count);
	int (*set_scaling)(void *self, sv_scaling scaling);
	/* Saved filter state of a view file (advanced .perfView.xml); copied. */
	int (*set_params)(void *self, const sv_params *params);
	int (*set_notes)(void *self, const char *notes);
	/* An event kind the input holds, with its sample count (perf: every event name). */
	int (*add_event)(void *self, const char *name, size_t samples, bool selected);
	/* The metric's unit when the input says it ("ms", "bytes", "count"); copied. */
	int (*set_unit)(void *self, const char *unit);
	/* Give frames their final names once the whole input has been read (perf process
	 * frames are named after every comm their pid had). */
	int (*rename_frames)(void *self, const sv_frame_id *ids, const char *const *names, size_t n);
	/* What the importer found (a line for `info`) or a counted problem it skipped over. */
	int (*add_note)(void *self, int kind, const char *text);
	/* A module of the profiled program itself (not the system's), by its frame module name. */
	int (*add_user_module)(void *self, const char *name, size_t len);
	/* Read back what was interned (derived stacks, e.g. a waker's frames under a wait): a
	 * stack's leaf frame and caller, and a frame's name (borrowed until the next intern). */
	int (*stack_step)(void *self, sv_stack_id stack, sv_frame_id *frame, sv_stack_id *caller);
	const char *(*frame_name)(void *self, sv_frame_id frame);
	/* Each sample is one interval of a thread's time (thread time): its metric the length. */
	int (*set_intervals)(void *self);
	/* Code addresses (annotate and Goto Source, issue 36): a code file by its path, a
	 * location (the frame whose code it is, that file, the address in it as the file's own
	 * addresses go), a code path (locations from the outermost caller to the leaf, interned
	 * as stacks are: a path and its last location), and a sample on a code path
	 * (add_sample's, plus where it executed). NULL in sinks that keep no addresses:
	 * importers then call add_sample. */
	int (*intern_code_file)(void *self, uint32_t *out, const char *path);
	int (*intern_location)(void *self, uint32_t *out, sv_frame_id frame, uint32_t file, uint64_t addr);
	int (*intern_code_path)(void *self, uint32_t *out, uint32_t caller, uint32_t loc);
	/* The source line a location is at, when the input says it (pprof's lines). */
	int (*set_location_line)(void *self, uint32_t loc, const char *source_file, uint32_t line);
	int (*add_sample_at)(void *self, sv_stack_id stack, double time, double metric, double count, uint32_t path);
	/* A code file's symbol file (sv_source_set_code_symbols); NULL in sinks that keep none. */
	int (*set_code_symbols)(void *self, uint32_t file, const char *path);
	/* About how many samples will come (sv_source_reserve_samples); NULL where it does
	 * not matter. */
	int (*reserve_samples)(void *self, size_t n);
	/* About how many stacks there will be in all (sv_source_reserve_stacks); NULL where it
	 * does not matter. */
	int (*reserve_stacks)(void *self, size_t n);
	/* Every metric to come is a whole number of `quantum` (sv_source_set_metric_quantum):
	 * said before the first sample. NULL where it does not matter. */
	void (*set_metric_quantum)(void *self, double quantum);
} sv_sink_ops;

typedef struct sv_sink {
	const sv_sink_ops *ops;
	void *self;
} sv_sink;

/* A formatted note through the sink's add_note (0 when the sink takes none). */
SV_API int sv_sink_note(const sv_sink *sink, int kind, const char *fmt, ...) SV_PRINTF(3, 4);

/* A new empty source; `format` names the importer (copied). */
SV_API int sv_source_new(sv_source **out, const char *format) SV_MUST_USE;
SV_API void sv_source_free(sv_source *src);
/* The sink that fills this source. */
SV_API sv_sink sv_source_sink(sv_source *src);
/* The source a sink fills, when it is one's (sv_source_sink), else NULL. */
SV_API sv_source *sv_sink_source(const sv_sink *sink);
/* The sum of |metric| over every sample added so far (what the "metrics add up" limit
 * watches). */
SV_API double sv_source_abs_metric(const sv_source *src);

SV_API int sv_source_intern_frame(sv_source *src, sv_frame_id *out, const char *name, size_t len) SV_MUST_USE;
SV_API int sv_source_intern_stack(sv_source *src, sv_stack_id *out, sv_stack_id caller, sv_frame_id frame) SV_MUST_USE;
/* A sample is kept in every view, or refused: SV_EFORMAT for a time, metric or count that is
 * not a finite number, SV_ELIMIT for |time| past SV_MAX_TIME_MS or metrics adding up past the
 * largest double. sv_source_refusal says which, in words, until the next refusal. */
SV_API int sv_source_add_sample(sv_source *src, sv_stack_id stack, double time, double metric, double count) SV_MUST_USE;
SV_API const char *sv_source_refusal(const sv_source *src);
/* From now on (before the first sample), samples of one stack add up into one: metric and
 * count summed, the earliest time kept. Memory then scales with distinct stacks — for
 * outputs that hold no time (folded stacks, `convert` streaming them). */
SV_API void sv_source_set_aggregate(sv_source *src, bool on);
/* Room for n samples in all, asked for at once (a reader that knows how many it will add:
 * no copying as the arrays grow). A hint: nothing when aggregating. 0 or SV_ENOMEM. */
SV_API int sv_source_reserve_samples(sv_source *src, size_t n) SV_MUST_USE;
/* Room for n stacks in all, asked for at once (a reader that knows how many there can be: a
 * heap's spanning tree has at most a stack an object; or about how many: perf.data's
 * samples). A hint: room not used costs addresses, not memory (it is never written). 0 or
 * SV_ENOMEM. */
SV_API int sv_source_reserve_stacks(sv_source *src, size_t n) SV_MUST_USE;
/* The reading is done: the indexes interning looks in for the stacks, code locations and
 * code paths made already are let go (on a big profile, tens of MB); interning anything
 * later makes them again first. Nothing else changes. */
SV_API void sv_source_trim(sv_source *src);
/* Intern a whole stack given root-first frame names. */
SV_API int sv_source_intern_path(sv_source *src, sv_stack_id *out, const char *const *names_root_first, size_t n) SV_MUST_USE;

SV_API uint32_t sv_source_frame_count(const sv_source *src);
SV_API uint32_t sv_source_stack_count(const sv_source *src);
SV_API size_t sv_source_sample_count(const sv_source *src);

/* Full name (pattern matching) and short name (display, spec §1.4) of a frame. */
SV_API const char *sv_source_frame_name(const sv_source *src, sv_frame_id id);
SV_API const char *sv_source_frame_short(const sv_source *src, sv_frame_id id);
SV_API sv_frame_id sv_source_stack_frame(const sv_source *src, sv_stack_id id);
SV_API sv_stack_id sv_source_stack_caller(const sv_source *src, sv_stack_id id);
/* The same as arrays indexed by stack id, for passes over every stack. Borrowed: valid
 * until the next stack is interned. */
SV_API const sv_frame_id *sv_source_stack_frames(const sv_source *src);
SV_API const sv_stack_id *sv_source_stack_callers(const sv_source *src);

/* Sample arrays (structure of arrays, index = sample number). Borrowed. */
SV_API const sv_stack_id *sv_source_sample_stacks(const sv_source *src);
/* NULL while every sample's time is 0 (sv_sample_time reads either way). */
SV_API const double *sv_source_sample_times(const sv_source *src);

/* All the samples, borrowed until the next sample is added. A sample's metric and count are
 * read with sv_sample_metric / sv_sample_count: a profile's (metric, count) pairs are mostly
 * few (every cpu-clock sample is 1 ms, 1 sample), so while there are at most 65,536 distinct
 * ones a sample holds a 2-byte code into a table of them (14 bytes a sample in all, 6 while
 * every time is 0), and one double and one float of its own otherwise (24 bytes). */
typedef struct sv_samples {
	size_t n;
	const sv_stack_id *stack;
	const double *time;   /* NULL: every sample's time is 0 */
	const uint16_t *code; /* NULL: metric and count are per sample */
	const double *metric; /* indexed by code[i], or by i when code is NULL */
	const float *count;
} sv_samples;
SV_API sv_samples sv_source_samples(const sv_source *src);

/* Each stack's samples summed (index nstacks: the samples without a stack), for views that
 * add a stack's samples at once instead of one by one. Kept only when every sum a view takes
 * of metrics, and of counts, is exact in whatever order it is taken — each value a multiple
 * of a power of two that no total outgrows, as 1 ms and 0.25 ms samples are, or a whole
 * number of the source's quantum (sv_source_set_metric_quantum) — so the view
 * gets the bits it would sample by sample; only with at least 4 samples a stack (so they
 * cost no more than the samples) and no metric or count below 0. */
typedef struct sv_stack_sums {
	double metric, count; /* metric: in whole quanta with a quantum (sv_source_metric_scale) */
	double first;    /* the earliest time */
	double last;     /* the latest time */
	double last_end; /* the latest time + |metric| */
	double max;      /* the largest metric */
	uint64_t n;      /* samples */
} sv_stack_sums;

/* Builds them (one pass over the samples) when they can be kept, and the frames' short names
 * once for every view: for a source that makes many views (the terminal UI). 0 (built, or
 * not to be had) or SV_ENOMEM. Adding a sample drops the sums. */
SV_API int sv_source_sum_stacks(sv_source *src) SV_MUST_USE;
/* Borrowed until the next sample is added; NULL when not built, or a stack was made since. */
SV_API const sv_stack_sums *sv_source_stack_sums(const sv_source *src);
static inline size_t sv_sample_slot(const sv_samples *s, size_t i) { return s->code ? s->code[i] : i; }
static inline double sv_sample_metric(const sv_samples *s, size_t i) { return s->metric[sv_sample_slot(s, i)]; }
static inline double sv_sample_count(const sv_samples *s, size_t i) { return s->count[sv_sample_slot(s, i)]; }
static inline double sv_sample_time(const sv_samples *s, size_t i) { return s->time ? s->time[i] : 0; }

/* ---- code locations (where the input gives the addresses a sample's frames executed at) ---- */

#define SV_LOC_NONE UINT32_MAX
/* A code file (an executable or library) by its path; the same path, the same id. */
SV_API int sv_source_intern_code_file(sv_source *src, uint32_t *out, const char *path) SV_MUST_USE;
/* A location: the frame whose code holds it, its code file and the address in that file (a
 * leaf's executing instruction; a caller's call instruction, not its return address). File
 * SV_LOC_NONE: code in no file known (a leaf in the kernel, JIT code), addr as executed. */
SV_API int sv_source_intern_location(sv_source *src, uint32_t *out, sv_frame_id frame, uint32_t file,
				     uint64_t addr) SV_MUST_USE;
/* A code path: `caller` (a code path, SV_LOC_NONE for none) then `loc`. */
SV_API int sv_source_intern_code_path(sv_source *src, uint32_t *out, uint32_t caller, uint32_t loc) SV_MUST_USE;
/* sv_source_add_sample, the sample having executed along code path `path` (SV_LOC_NONE:
 * unknown). An aggregating source keeps no code paths. */
SV_API int sv_source_add_sample_at(sv_source *src, sv_stack_id stack, double time, double metric, double count,
				   uint32_t path) SV_MUST_USE;
SV_API uint32_t sv_source_location_count(const sv_source *src);
SV_API uint32_t sv_source_code_path_count(const sv_source *src);
SV_API uint32_t sv_source_code_file_count(const sv_source *src);
SV_API const char *sv_source_code_file(const sv_source *src, uint32_t file);
/* A code file's symbol file, where the file's functions and lines are (a Windows image's
 * PDB: annotate reads both); NULL when none was set (an ELF file finds its own). The path is
 * copied. */
SV_API int sv_source_set_code_symbols(sv_source *src, uint32_t file, const char *path) SV_MUST_USE;
SV_API const char *sv_source_code_file_symbols(const sv_source *src, uint32_t file);
typedef struct sv_location {
	sv_frame_id frame;
	uint32_t file;
	uint64_t addr;
} sv_location;
SV_API sv_location sv_source_location(const sv_source *src, uint32_t loc);
/* The source line of a location as the input gave it (pprof: each location line's file and
 * number), for Goto Source without debug information. */
SV_API int sv_source_set_location_line(sv_source *src, uint32_t loc, const char *source_file, uint32_t line) SV_MUST_USE;
/* 0 and *file NULL when the input gave none. */
SV_API uint32_t sv_source_location_line(const sv_source *src, uint32_t loc, const char **file);
/* Per code path: its caller path (SV_LOC_NONE at the outermost) and its own (last) location;
 * borrowed until the next path is interned. */
SV_API const uint32_t *sv_source_code_path_callers(const sv_source *src);
/* Whether some code path has a caller: the input gave callers' addresses, not leaves' only. */
SV_API bool sv_source_has_code_callers(const sv_source *src);
SV_API const uint32_t *sv_source_code_path_locs(const sv_source *src);
/* Per sample, its code path (SV_LOC_NONE for none); NULL when no sample has one. Borrowed
 * until the next sample is added. */
SV_API const uint32_t *sv_source_sample_code_paths(const sv_source *src);

SV_API const char *sv_source_format(const sv_source *src);
SV_API sv_scaling sv_source_scaling(const sv_source *src);
/* The event the samples are of (perf: "cpu-clock", "cycles"; the selected one of
 * sv_source_event), or NULL when the input names none. */
SV_API const char *sv_source_event_name(const sv_source *src);
/* The metric's unit: the one the input named (sv_source_set_unit: a pprof profile's "bytes"
 * or, for its times, "ms"), else "ms" for time-metric sources, else the event's name (a
 * cycles profile counts cycles), else NULL (unknown). */
SV_API const char *sv_source_unit(const sv_source *src);
/* Whether each sample is one interval of a thread's time (thread time: CPU_TIME, READIED_TIME,
 * BLOCKED_TIME), which makes the longest one (the Max column) worth showing. */
SV_API bool sv_source_intervals(const sv_source *src);
SV_API void sv_source_set_intervals(sv_source *src, bool on);
/* Name the metric's unit (at most 31 bytes kept; NULL or "" = derive it as above). */
SV_API void sv_source_set_unit(sv_source *src, const char *unit);
SV_API void sv_source_set_scaling(sv_source *src, sv_scaling scaling);
/* Default End (spec §5.3 with D4): max(time + |metric|) for time-metric sources and for
 * sources that asked for it (diff, drill-into copies), else max(time). */
SV_API double sv_source_time_limit(const sv_source *src);
SV_API void sv_source_set_limit_from_end(sv_source *src, bool by_end);
SV_API double sv_source_total_metric(const sv_source *src);
/* Every metric is a whole number of `quantum` (perf's periods in ns, the metric in ms: 1e-6),
 * said before the first sample: sums are then kept in whole quanta, exact in whatever order
 * they are taken, and read back rounded once (the stacks' sums, every view's). A sample
 * whose metric is not metric = q / (1 / quantum) for a whole q, or sums past 2^52 quanta,
 * end it. 1 / quantum for views' sums (sv_source_metric_scale), 1 without one. */
SV_API void sv_source_set_metric_quantum(sv_source *src, double quantum);
SV_API double sv_source_metric_scale(const sv_source *src);
/* Whether some sample's metric is negative (frees, a diff). */
SV_API bool sv_source_has_negative(const sv_source *src);
SV_API double sv_source_total_count(const sv_source *src);
SV_API double sv_source_first_time(const sv_source *src);
SV_API double sv_source_last_time(const sv_source *src);

/* Saved state (NULL when the file had none) and notes ("" when none). */
SV_API const sv_params *sv_source_saved_params(const sv_source *src);
SV_API int sv_source_set_params(sv_source *src, const sv_params *params) SV_MUST_USE;
SV_API const char *sv_source_notes(const sv_source *src);
SV_API int sv_source_set_notes(sv_source *src, const char *notes) SV_MUST_USE;

/* Events of the input (name and sample count), in the order first seen. */
typedef struct sv_event {
	char *name; /* owned by the source */
	size_t samples;
	bool selected; /* the event this source holds samples of */
} sv_event;
SV_API size_t sv_source_event_count(const sv_source *src);
SV_API const sv_event *sv_source_event(const sv_source *src, size_t i);
SV_API int sv_source_add_event(sv_source *src, const char *name, size_t samples, bool selected) SV_MUST_USE;
SV_API int sv_source_rename_frames(sv_source *src, const sv_frame_id *ids, const char *const *names, size_t n) SV_MUST_USE;

/* Notes an importer left: facts about the input, and warnings about parts it skipped
 * (the rest of the input was still usable). */
enum { SV_NOTE_INFO, SV_NOTE_WARNING };
typedef struct sv_note {
	int kind;
	char *text; /* owned by the source */
} sv_note;
SV_API size_t sv_source_note_count(const sv_source *src);
SV_API const sv_note *sv_source_note(const sv_source *src, size_t i);
SV_API int sv_source_add_note(sv_source *src, int kind, const char *text) SV_MUST_USE;

/* Modules of the profiled programs themselves (perf: executables and libraries outside the
 * system's directories), as the importer found them; at most SV_MAX_USER_MODULES, repeats
 * ignored. The TUI's opening GroupPats keeps these by function (sv_preset_group_system). */
#define SV_MAX_USER_MODULES 64
SV_API int sv_source_add_user_module(sv_source *src, const char *name, size_t len) SV_MUST_USE;
SV_API size_t sv_source_user_module_count(const sv_source *src);
SV_API const char *sv_source_user_module(const sv_source *src, size_t i);

/* Bytes the source holds (arrays, tables and interned text), for memory reports. */
SV_API size_t sv_source_memory(const sv_source *src);

/* Processes, recognised from root-most frames `Process... name (pid)` (spec §12). */
typedef struct sv_process {
	long pid;             /* -1 when the frame names none */
	char name[256];       /* the name between "Process.. " and " (pid)" */
	const char *frame;    /* the whole frame name */
	size_t samples;
	double metric;
} sv_process;

/* Processes sorted by metric descending. *out is malloc'ed (free it), *n its length. */
SV_API int sv_source_processes(sv_process **out, size_t *n, const sv_source *src) SV_MUST_USE;

#endif
