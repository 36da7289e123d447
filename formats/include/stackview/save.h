/* SPDX-License-Identifier: MIT */
/* Writing: saving a source in any writable format (atomically), the atomic-write primitive,
 * a view's flame graph as SVG, and the JSON string writer the command line shares.
 *
 * Ownership: nothing returned is heap-allocated; FILEs and sources stay the caller's. */
#ifndef STACKVIEW_SAVE_H
#define STACKVIEW_SAVE_H

#include <stdbool.h>
#include <stdio.h>

#include "stackview/source.h"
#include "stackview/status.h"

typedef struct sv_format sv_format;

/* Export choices. */
typedef enum sv_folded_style {
	SV_FOLDED_PLAIN,      /* display names as they are */
	SV_FOLDED_FLAMEGRAPH, /* as stackcollapse-perf.pl --all: comm root, no module, _[k] / _[j] */
} sv_folded_style;

typedef struct sv_export_opts {
	sv_folded_style folded_style;
} sv_export_opts;

/* The format a file name asks for when writing (a ".zip" suffix wraps the inner format). */
SV_API const sv_format *sv_format_for_output(const char *path, bool *zipped);

/* Write src to path, atomically: a temporary file in the target directory, fsync, rename;
 * on any failure the temporary is removed and an existing file is left as it was. `format`
 * NULL = from the name. Errors name the path. */
SV_API int sv_save(const sv_source *src, const char *path, const char *format, const sv_export_opts *opts,
	    sv_error *err) SV_MUST_USE;

/* Atomically replace `path` with what `write` produces into the FILE it is given.
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT are held while the temporary file exists; if one
 * arrived, the old file is kept, the temporary removed (SV_ECANCELED), and the signal is
 * delivered when the call returns. */
SV_API int sv_write_atomic(const char *path, int (*write)(FILE *f, void *payload, sv_error *err), void *payload,
		    sv_error *err) SV_MUST_USE;

/* A flame graph of a view as a self-contained SVG (see formats/flame_svg.c). */
struct sv_flame;
struct sv_view;
SV_API int sv_flame_svg_write(FILE *f, const struct sv_view *v, const struct sv_flame *fl, const char *title,
		       const char *subtitle, sv_error *err) SV_MUST_USE;

/* FlameGraph's stackcollapse-perf.pl, rule for rule, on perf script text (formats/
 * text/collapse.c): folded lines "comm;root;...;leaf COUNT" sorted by byte order, written to
 * `out`. Flags are the script's options; none is its default. */
enum {
	SV_COLLAPSE_KERNEL = 1, /* --kernel: _[k] on kernel frames */
	SV_COLLAPSE_JIT = 2,    /* --jit: _[j] on /tmp/perf-PID.map frames */
	SV_COLLAPSE_PID = 4,    /* --pid: comm-PID roots */
	SV_COLLAPSE_TID = 8,    /* --tid: comm-PID/TID roots */
	SV_COLLAPSE_ADDRS = 16, /* --addrs: [module <address>] for unknown symbols */
};
typedef struct sv_collapse_report {
	char event[128];           /* the event kept (the first one seen) */
	size_t samples, stacks;    /* samples collapsed; distinct lines written */
	size_t filtered;           /* samples of other events, left out */
	size_t unrecognized;       /* lines that read as neither a sample header nor a frame */
	long first_unrecognized;
	size_t oneline;            /* samples whose header line held their only frame (no -g; ours) */
	bool kept_last;            /* a last sample no blank line ended: kept (the script drops it) */
} sv_collapse_report;
struct sv_input;
SV_API int sv_collapse_perf_script(FILE *out, const struct sv_input *in, unsigned flags, sv_collapse_report *rep,
				   sv_error *err) SV_MUST_USE;

/* A JSON string literal for UTF-8 text: quotes and escapes, invalid UTF-8 as \ufffd. Shared
 * by the JSON writers here and the command line's JSON output. */
SV_API void sv_json_write_string(FILE *f, const char *s);
/* A JSON number with the fewest digits that read back to the same double (no "-0"); NaN and
 * the infinities, which JSON cannot hold, as null. */
SV_API void sv_json_write_number(FILE *f, double d);
/* The same for a writer that keeps its own buffer: sv_json_plain_len is how many leading
 * bytes of s (len bytes before its NUL) a JSON string holds as they are (printable ASCII but the quote and backslash,
 * whole UTF-8 characters); sv_json_escape writes the escape of s's first byte, where
 * sv_json_plain_len stopped and not the NUL, into out (NUL-terminated): its length (the
 * byte is consumed). sv_json_number_text writes sv_json_write_number's text into buf: its
 * length (not terminated). */
SV_API size_t sv_json_plain_len(const char *s, size_t len);
SV_API size_t sv_json_escape(const char *s, char out[8]);
#define SV_NUMBER_TEXT 64
SV_API size_t sv_json_number_text(char buf[SV_NUMBER_TEXT], double d);

#endif
