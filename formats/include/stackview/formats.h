/* SPDX-License-Identifier: MIT */
/* Importers and the format registry: reading a file (or standard input), unwrapping a
 * single-entry zip, sniffing the format by content first and by name second, and pushing
 * frames, stacks and samples into an sv_sink (design.md "Formats").
 *
 * Ownership: sv_input owns its bytes (sv_input_dispose frees them). sv_load returns a source
 * the caller frees. Format table entries are static and never freed. */
#ifndef STACKVIEW_FORMATS_H
#define STACKVIEW_FORMATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "stackview/source.h"
#include "stackview/status.h"

/* Bounds on what an input may make us allocate (docs/guide.md "Limits"). */
#define SV_MAX_INPUT_BYTES (8ULL << 30)       /* 8 GiB read or unzipped */
#define SV_MAX_ZIP_RATIO 1000ULL              /* unzipped / zipped */

/* Progress of a load: fn is called with the bytes parsed so far and the input's size (0 when
 * unknown: a pipe still being read), at most once per `step` bytes; a non-zero return cancels
 * the load (SV_ECANCELED). The caller owns it; `next` is the loaders' bookkeeping. */
typedef struct sv_progress {
	int (*fn)(void *payload, unsigned long long done, unsigned long long total);
	void *payload;
	unsigned long long step; /* 0 = 1 MiB */
	unsigned long long next;
} sv_progress;

typedef struct sv_input {
	char *name;          /* file name as given ("-" = standard input) */
	char *inner;         /* name of the zip entry when unwrapped, else NULL */
	unsigned char *data; /* not NUL-terminated when mapped: parsers use len */
	size_t len;
	bool mapped;         /* data is an mmap of the file (munmap on dispose) */
	/* A pipe is read only as far as sniffing needs: then data/len are its first bytes and
	 * the rest is still to be read from fd (importers that stream read it through
	 * sv_lines; others get the whole input first). */
	bool partial;
	int fd;
	sv_progress *progress; /* borrowed; NULL = nobody is watching */
} sv_input;

/* Report that `done` bytes of the input are parsed: 0, or SV_ECANCELED (with err set and
 * located at the input) when the watcher asked to stop. Cheap between steps. */
int sv_input_progress(const sv_input *in, unsigned long long done, sv_error *err) SV_MUST_USE;

/* Lines of an input, whole or streamed. A line (without its "\n" or "\r\n") stays valid
 * only until the next call. Memory is bounded by the longest line (SV_MAX_LINE). */
#define SV_MAX_LINE (16u << 20)
typedef struct sv_lines {
	const sv_input *in;
	const char *p, *end; /* whole input */
	char *buf;           /* streamed input */
	size_t cap, start, len;
	bool eof;
	long line;           /* number of the line last returned */
	size_t released;     /* mapped input: bytes before this were dropped from our mapping */
	unsigned long long consumed; /* streamed input: bytes read so far */
} sv_lines;
int sv_lines_init(sv_lines *lr, const sv_input *in) SV_MUST_USE;
/* 1 with *out set, 0 at the end, or a negative sv_status (err says which line). */
int sv_lines_next(sv_lines *lr, const char **line, size_t *len, sv_error *err) SV_MUST_USE;
void sv_lines_dispose(sv_lines *lr);
/* Read what is left of a partial input into memory. */
int sv_input_complete(sv_input *in, sv_error *err) SV_MUST_USE;

/* Read a whole file, or standard input for "-". */
int sv_input_read(sv_input *out, const char *path, sv_error *err) SV_MUST_USE;
/* The same, reporting the bytes read from a pipe or FIFO to `progress` (may be NULL). */
int sv_input_read_watched(sv_input *out, const char *path, sv_progress *progress, sv_error *err) SV_MUST_USE;
/* Replace a zip input by the entry it carries: its only entry, or for a perfcollect
 * archive (several entries) the first whose name ends in ".data.txt". */
int sv_input_unzip(sv_input *in, sv_error *err) SV_MUST_USE;
bool sv_input_is_zip(const sv_input *in);
/* gzip, zlib and Qt qCompress inputs are inflated in place (bounded like zip entries). */
bool sv_input_is_compressed(const sv_input *in);
int sv_input_inflate(sv_input *in, sv_error *err) SV_MUST_USE;
void sv_input_dispose(sv_input *in);

/* What the user asked of an import. */
typedef struct sv_import_opts {
	const char *format;       /* registry name; NULL = detect */
	const char *event;        /* perf: which event to load; NULL = the first one seen */
	const char *kallsyms;     /* perf.data: kernel symbols file (plain or gzip); NULL = decide */
	const char *debug_dirs;   /* perf.data: ':'-separated directories searched by build id */
	const char *perf_map_dir; /* perf.data: where perf-PID.map files are; NULL = /tmp */
	sv_progress *progress;    /* borrowed; NULL = no progress reports */
	bool aggregate;           /* one sample per stack (sv_source_set_aggregate) */
	bool no_inline;           /* perf.data: no inline frames in DWARF-unwound stacks */
} sv_import_opts;

/* Export choices. */
typedef enum sv_folded_style {
	SV_FOLDED_PLAIN,      /* display names as they are */
	SV_FOLDED_FLAMEGRAPH, /* as stackcollapse-perf.pl --all: comm root, no module, _[k] / _[j] */
} sv_folded_style;

typedef struct sv_export_opts {
	sv_folded_style folded_style;
} sv_export_opts;

typedef struct sv_format sv_format;
struct sv_format {
	const char *name;                 /* "perfview-xml", ... */
	const char *const *patterns;      /* file-name suffixes, NULL-terminated */
	bool (*probe)(const unsigned char *data, size_t len);
	int (*import)(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err);
	bool streams; /* import reads a partial input through sv_lines */
	/* Write a source (NULL when the format cannot be written). */
	int (*export)(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err);
};

extern const sv_format sv_fmt_perfview_xml;
extern const sv_format sv_fmt_perfview_json;
extern const sv_format sv_fmt_perf_script;
extern const sv_format sv_fmt_perf_data;
extern const sv_format sv_fmt_folded;
extern const sv_format sv_fmt_etl;
extern const sv_format sv_fmt_svg;
extern const sv_format sv_fmt_speedscope;

/* The registry, NULL-terminated. */
const sv_format *const *sv_formats(void);
const sv_format *sv_format_find(const char *name);
/* Content first, then name; NULL when nothing claims the input. */
const sv_format *sv_format_detect(const sv_input *in);

/* A JSON string literal for UTF-8 text: quotes and escapes, invalid UTF-8 as \ufffd. Shared
 * by the JSON writers here and the command line's JSON output. */
void sv_json_write_string(FILE *f, const char *s);

/* The format a file name asks for when writing (a ".zip" suffix wraps the inner format). */
const sv_format *sv_format_for_output(const char *path, bool *zipped);

/* Write src to path, atomically: a temporary file in the target directory, fsync, rename;
 * on any failure the temporary is removed and an existing file is left as it was. `format`
 * NULL = from the name. Errors name the path. */
int sv_save(const sv_source *src, const char *path, const char *format, const sv_export_opts *opts,
	    sv_error *err) SV_MUST_USE;

/* Atomically replace `path` with what `write` produces into the FILE it is given.
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT are held while the temporary file exists; if one
 * arrived, the old file is kept, the temporary removed (SV_ECANCELED), and the signal is
 * delivered when the call returns. */
int sv_write_atomic(const char *path, int (*write)(FILE *f, void *payload, sv_error *err), void *payload,
		    sv_error *err) SV_MUST_USE;

/* A flame graph of a view as a self-contained SVG (see formats/flame_svg.c). */
struct sv_flame;
struct sv_view;
int sv_flame_svg_write(FILE *f, const struct sv_view *v, const struct sv_flame *fl, const char *title,
		       const char *subtitle, sv_error *err) SV_MUST_USE;

/* Read, unzip if needed, detect (or use opts->format) and import into a new source. opts
 * may be NULL. Errors carry the file name and a line or byte offset. */
int sv_load(sv_source **out, const char *path, const sv_import_opts *opts, sv_error *err) SV_MUST_USE;

#endif
