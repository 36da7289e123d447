/* SPDX-License-Identifier: MIT */
/* Internals of the `perf script` importer, one file a concern: the header-line lexer
 * (script_lex.c), frame lines (script_frames.c), events (script_events.c), thread time
 * (script_tt.c), the reader (script_read.c) and the driver with its two threads and the
 * format's table entry (script.c). Each calls only the ones listed before it. formats/ only.
 * Spans point into the caller's line.
 * Ownership: one ps_ctx per reader, initialised and disposed by its owner (script.c, or a
 * part of the two-thread read); it owns every array it points to. */
#ifndef STACKVIEW_FORMATS_PERF_SCRIPT_INT_H
#define STACKVIEW_FORMATS_PERF_SCRIPT_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "perf_int.h"
#include "stackview/input.h"
#include "sv/cpu_root.h"
#include "sv/idmap.h"
#include "sv/thread_time.h"

#define MAX_TOKENS 64

typedef struct span {
	const char *p;
	size_t n;
} span;

typedef struct header {
	span comm;
	long long pid, tid;
	long cpu; /* -1: not printed */
	bool has_time, has_period;
	long long time_s, time_ns; /* seconds and nanoseconds, kept apart so ms differences are exact */
	double period;
	span event;   /* without the final ':'; empty when the line ends after the ids */
	span payload; /* rest of the line after the event */
	bool record;  /* PERF_RECORD_* line, not a sample */
	bool has_pid; /* "pid/tid" printed; else only the tid (perf script's default fields) */
} header;

typedef struct raw_frame {
	span sym, dso;
	span addr; /* the address token (hex, as perf script prints the sample's ip) */
	bool inlined;
} raw_frame;

/* A blank between tokens (no locale tables: the importer's hot loop). */
static inline bool sv_ps_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* Split a line at blanks into at most max tokens; returns how many. */
size_t sv_ps_tokenize(span line, span *tok, size_t max);
/* A sample header line (perf.md §1.1: the pid/tid token is the first integer or int/int token
 * whose whole tail reads [cpu]? time:? period? event:); false when the line is not one. */
bool sv_ps_parse_header(span line, header *h);
/* The next sample header line from *p (before end), for scans that want only the headers
 * (frame lines, comments and PERF_RECORD_ lines skipped); *p moves past it. false at the end. */
bool sv_ps_next_header(const char **p, const char *end, header *h);
/* A frame line's symbol without its trailing "+0x<hex>" offset (as it is when it has none). */
span sv_ps_strip_offset(span s);

/* ---- the reader's state, shared by script*.c ---- */

typedef struct event_count {
	char *name;
	size_t samples;
} event_count;

typedef struct ps_ctx {
	sv_sink *sink;
	const sv_input *in;
	const sv_import_opts *opts;
	sv_error *err;
	long line;

	sv_perf_names names;  /* Process and Thread frames */

	event_count *events;
	size_t nevents, event_cap;
	long selected;        /* index into events, -1 = not chosen yet */
	bool clock_event, any_period;
	bool have_t0;
	long long t0_s, t0_ns;

	sv_frame_id frames_seen; /* frame ids below this have been seen (user modules noted) */
	sv_frame_id *fids;   /* this sample's frames, leaf first */
	size_t nframes, fid_cap;
	/* the last sample's chain, root first: its frames and the stack after each, so the next
	 * sample of the same thread interns only what differs below their common part */
	sv_stack_id last_root;
	struct ps_link { sv_frame_id frame; sv_stack_id stack; } *last;
	size_t nlast, last_cap;
	size_t *pend;        /* inlined frames waiting for their real frame: index into fids */
	size_t npend, pend_cap;
	char *pend_text;     /* their symbol texts, NUL-separated */
	size_t pend_len, pend_text_cap;
	/* frame lines seen before, by their exact text: the frame they name (a callchain line
	 * repeats for every sample through the same address, and naming it costs more than
	 * finding it) */
	struct ps_seen { uint64_t hash; uint32_t off, len; sv_frame_id frame; uint32_t loc[2]; } *seen; /* loc: as leaf, as caller */
	size_t seen_cap, nseen;
	size_t seen_tries, seen_hits; /* this window's lookups; too few hits turn the table off */
	bool seen_off;
	char *seen_text;
	size_t seen_len, seen_text_cap;
	char *hdr;           /* copy of the current header line (the input moves on) */
	size_t hdr_cap;
	char *name;
	size_t name_cap;
	char *default_event;

	/* thread time (thread_time.h): the view asked for, the computer, and each thread's pid
	 * and name as the sample headers (else the tracepoints' payloads) give them */
	bool tt_on;
	sv_tt_view tt_view;
	sv_tt *tt;
	size_t tt_switches, tt_sampled;
	bool tt_sw_records; /* PERF_RECORD_SWITCH lines (--switch-events): they give the switch times */
	/* Text without pids: each thread's process from --show-task-events' PERF_RECORD_FORK and
	 * PERF_RECORD_COMM lines (tid -> pid + 1), and the threads no line named */
	sv_idmap task_pid;
	size_t pid_from_tasks, pid_unknown;
	sv_idmap pid_seen; /* tids counted in those two */
	uint32_t *pid_tids; /* ... in the order met (a part's, for the join) */
	size_t npid_tids, pid_tids_cap;
	const sv_idmap *tasks; /* a later part's: the first reader's task_pid */
	bool tasks_read;       /* task_pid is complete (prescan) and no longer written */
	bool no_pids;      /* the first sample header has no pid */
	sv_idmap tid_idx; /* tid -> index into tids */
	struct ps_tid {
		long long pid;
		char comm[SV_PERF_COMM_MAX];
		bool from_header;
		/* --show-switch-events: a sched_switch's state and stack until its PERF_RECORD_SWITCH
		 * OUT line (sw_how: sv_tt_out + 1; 0 = none) */
		uint8_t sw_how;
		const char *sw_reason;
		sv_stack_id sw_stack;
	} *tids;
	size_t ntids, tid_cap;
	sv_cpu_root cpu_roots; /* --by-cpu */
	bool later_part; /* reading from the middle of the input (ps_parse_all) */
	/* code locations (script_code.c), when the sink keeps them: the sample's real frames'
	 * locations, leaf first (the leaf's always, callers' with opts->code_paths), and the
	 * files the frame lines name */
	bool code;
	bool leaf_done; /* the sample's first real frame is behind */
	uint32_t *locs;
	size_t nlocs, locs_cap;
	sv_perf_syms *syms;
} ps_ctx;

static inline int sv_ps_fail(ps_ctx *c, int code, const char *what)
{
	sv_error_set(c->err, code, "%s", what);
	sv_error_locate(c->err, c->in->name, c->line, -1);
	return code;
}

/* Byte tests without the locale tables: this is the hot loop of the importer. */
static inline bool sv_ps_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f';
}

static inline bool sv_ps_hexdigit(char ch)
{
	return (ch >= '0' && ch <= '9') || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f');
}

static inline span sv_ps_trim(span s)
{
	while (s.n && sv_ps_space(s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n && sv_ps_space(s.p[s.n - 1]))
		s.n--;
	return s;
}

static inline bool sv_ps_is_hex(span t)
{
	if (!t.n)
		return false;
	for (size_t i = 0; i < t.n; i++)
		if (!sv_ps_hexdigit(t.p[i]))
			return false;
	return true;
}

/* A frame line of a callchain: a TAB first, or (old outputs) blanks or nothing, a hex address
 * and more text on a line that does not read as a sample header. Srcline lines
 * ("  file.c:12", "  dso[1a2b]") are not frames. */
static inline bool sv_ps_frame_line(span line)
{
	if (line.n && line.p[0] == '\t')
		return true;
	span tok[2];
	header h;
	return sv_ps_tokenize(line, tok, 2) == 2 && sv_ps_is_hex(tok[0]) && !sv_ps_parse_header(line, &h);
}

static inline bool sv_ps_srcline_line(span line)
{
	return line.n >= 2 && line.p[0] == ' ' && line.p[1] == ' ';
}

/* script_frames.c: a frame line's frame added to the sample; the sample's stack under its
 * thread and process frames. */
int sv_ps_push_frame(ps_ctx *c, span line);
int sv_ps_sample_stack(ps_ctx *c, const header *h, sv_stack_id *out);
/* script_code.c: whether the sink keeps code locations (not in thread time); a frame line's
 * location (as the sample's leaf or as a caller; SV_LOC_NONE when none); the sample's code
 * path from its locations. */
#define SV_PS_LOC_UNSET (SV_LOC_NONE - 1)
bool sv_ps_code_wanted(const ps_ctx *c);
int sv_ps_frame_location(ps_ctx *c, const raw_frame *f, sv_frame_id frame, bool leaf, uint32_t *out);
int sv_ps_code_path(ps_ctx *c, uint32_t *out);
/* info's line on the code files found (when the lines name files). */
int sv_ps_code_note(ps_ctx *c);
/* script_events.c: the index of an event name (added when new; SV_ELIMIT past 4096); whether
 * an event is a clock (cpu-clock, task-clock: periods in ns); the event shown when the user
 * names none (malloc'd, NULL when the text has no sample). */
int sv_ps_event_index(ps_ctx *c, size_t *out, span ev);
bool sv_ps_clock_name(const char *e);
char *sv_ps_default_event(const char *p, const char *end);
/* script_tt.c: one sample of a thread-time read (switch, wake-up or CPU sample); every
 * thread's name from the sample headers of a whole input, before reading it. */
int sv_ps_tt_event(ps_ctx *c, const header *h, const char *event);
int sv_ps_tt_prescan(ps_ctx *c, const char *p, const char *end);
/* A PERF_RECORD_FORK / PERF_RECORD_COMM line: which process a thread is in. */
void sv_ps_task_line(ps_ctx *c, span line);
/* A sample header without a pid: the process its thread is in, when a task line said. */
int sv_ps_fix_pid(ps_ctx *c, header *h);
/* Count thread tid of pid-less text once (known: its process came from a task line). */
int sv_ps_count_pid(ps_ctx *c, uint32_t tid);
/* A whole input's task lines, read before its samples (pid-less text only). */
void sv_ps_task_prescan(ps_ctx *c, const char *p, const char *end);
/* Whether the input's first sample header lacks a pid. */
bool sv_ps_first_header_lacks_pid(const char *p, const char *end);
/* A PERF_RECORD_SWITCH IN/OUT line of a per-program recording with --switch-events. */
int sv_ps_tt_switch_record(ps_ctx *c, const header *h, span line);
/* script_read.c: the reader (init, dispose; the lines lr gives, read to their end or until
 * `cancel`; a sample finished; the events and views told to the sink at the end). */
void sv_ps_init(ps_ctx *c, sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err);
void sv_ps_dispose(ps_ctx *c);
int sv_ps_parse(ps_ctx *c, sv_lines *lr, const atomic_bool *cancel);
int sv_ps_emit(ps_ctx *c, const header *h);
int sv_ps_finish(ps_ctx *c);

#endif
