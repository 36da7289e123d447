/* SPDX-License-Identifier: MIT */
/* Reading an input: a whole file or standard input (mapped, read, or streamed from a pipe),
 * unwrapping a zip or gzip, line reading with bounded memory, and progress reports.
 *
 * Ownership: sv_input owns its bytes (sv_input_dispose frees them); sv_lines borrows its
 * input and owns only its line buffer (sv_lines_dispose). */
#ifndef STACKVIEW_INPUT_H
#define STACKVIEW_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "stackview/status.h"

/* Bounds on what an input may make us allocate (docs/guide.md "Limits"). */
#define SV_MAX_INPUT_BYTES (8ULL << 30)       /* 8 GiB read or unzipped */
#define SV_MAX_ZIP_RATIO 1000ULL              /* unzipped / zipped (deflate cannot pass 1032) */
#define SV_MAX_ZSTD_RATIO 10000ULL            /* zstd: a heaptrack recording of a tight loop
                                               * inflates 2,500 times; zeros 32,000 */

/* Progress of a load: fn is called with the bytes parsed so far and the input's size (0 when
 * unknown: a pipe still being read), at most once per `step` bytes; a non-zero return cancels
 * the load (SV_ECANCELED). A call with done 0 and total 1 asks only whether to cancel (a
 * download polls it so) and draws nothing. The caller owns it; `next` is the loaders' bookkeeping. */
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
	bool anon;           /* data is len + 1 bytes (a NUL last) of memory an inflater mapped
			      * (munmap on dispose); not a file's pages: never given back early */
	/* A pipe is read only as far as sniffing needs: then data/len are its first bytes and
	 * the rest is still to be read from fd (importers that stream read it through
	 * sv_lines; others get the whole input first). */
	bool partial;
	int fd;
	sv_progress *progress; /* borrowed; NULL = nobody is watching */
	unsigned long long max_bytes; /* bound on what it holds unpacked; 0 = SV_MAX_INPUT_BYTES */
	bool from_utf16; /* converted to UTF-8 by sv_input_from_utf16: a declared encoding
			  * (an XML declaration's) no longer says what the bytes are */
	/* A pipe read whole holds its first spill_bytes in memory (0 = SV_SPILL_BYTES); the rest
	 * goes to an unlinked file in $TMPDIR (else /tmp), mapped once complete, so a long pipe
	 * costs no more memory than a file (no file to be had: it stays in memory). */
	unsigned long long spill_bytes;
} sv_input;

#define SV_SPILL_BYTES (64ULL << 20)

/* Report that `done` bytes of the input are parsed: 0, or SV_ECANCELED (with err set and
 * located at the input) when the watcher asked to stop. Cheap between steps. */
SV_API int sv_input_progress(const sv_input *in, unsigned long long done, sv_error *err) SV_MUST_USE;
/* The same for work that is not the input's bytes read once (a reader that reads it twice
 * reports `done` of 2 x len). */
SV_API int sv_input_progress_of(const sv_input *in, unsigned long long done, unsigned long long total,
				sv_error *err) SV_MUST_USE;

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
SV_API int sv_lines_init(sv_lines *lr, const sv_input *in) SV_MUST_USE;
/* 1 with *out set, 0 at the end, or a negative sv_status (err says which line). */
SV_API int sv_lines_next(sv_lines *lr, const char **line, size_t *len, sv_error *err) SV_MUST_USE;
SV_API void sv_lines_dispose(sv_lines *lr);
/* Read what is left of a partial input into memory. */
SV_API int sv_input_complete(sv_input *in, sv_error *err) SV_MUST_USE;

/* Read a whole file, or standard input for "-". */
SV_API int sv_input_read(sv_input *out, const char *path, sv_error *err) SV_MUST_USE;
/* The same, reporting the bytes read from a pipe or FIFO to `progress` (may be NULL). */
SV_API int sv_input_read_watched(sv_input *out, const char *path, sv_progress *progress, sv_error *err) SV_MUST_USE;
/* The same with a tighter bound than SV_MAX_INPUT_BYTES on what the input may hold, read or
 * unpacked (0 = that default): for embedders with less memory, and for testing the bound. */
SV_API int sv_input_read_bounded(sv_input *out, const char *path, sv_progress *progress,
				 unsigned long long max_bytes, sv_error *err) SV_MUST_USE;
/* Replace a zip input by the entry it carries: its only entry, or for a perfcollect
 * archive (several entries) the first whose name ends in ".data.txt". */
SV_API int sv_input_unzip(sv_input *in, sv_error *err) SV_MUST_USE;
SV_API bool sv_input_is_zip(const sv_input *in);
/* gzip, zlib and Qt qCompress inputs are inflated in place (bounded like zip entries). */
SV_API bool sv_input_is_compressed(const sv_input *in);
/* gzip or zstd by its magic number (a bare zlib stream has none worth trusting). */
SV_API bool sv_input_is_compressed_by_magic(const sv_input *in);
SV_API int sv_input_inflate(sv_input *in, sv_error *err) SV_MUST_USE;
/* A text with a UTF-16 byte order mark (what Windows tools often write) is converted to
 * UTF-8 in place, so every text reader sees UTF-8. */
SV_API bool sv_input_is_utf16(const sv_input *in);
SV_API int sv_input_from_utf16(sv_input *in, sv_error *err) SV_MUST_USE;
/* Bytes [off, off + len) of the input where reading them at random is cheap: a mapped file's
 * (on small pages, a miss in the TLB for most random reads) copied to memory on huge pages,
 * the caller's (sv_input_copy_free with len); the file's pages are let go of as they are
 * copied, so resident memory does not grow by the copy (they stay in the page cache, and are
 * read again from it if the input's own bytes there are read again). NULL: read the input's
 * bytes in place (any other input is in such memory already, the range is too small to
 * matter, or there is no room for a copy). */
SV_API unsigned char *sv_input_copy_range(const sv_input *in, size_t off, size_t len) SV_MUST_USE;
SV_API void sv_input_copy_free(unsigned char *copy, size_t len);
SV_API void sv_input_dispose(sv_input *in);

#endif
