/* SPDX-License-Identifier: MIT */
/* Status codes and the error record every fallible stackview call fills in.
 *
 * Ownership: sv_error lives in caller storage; nothing in it is heap-allocated, so it never
 * needs freeing. A function that fails writes its code and a one-line message into the
 * caller's sv_error (when one is given) and returns the negative code. */
#ifndef STACKVIEW_STATUS_H
#define STACKVIEW_STATUS_H

#include <stdarg.h>
#include <stddef.h>

/* SV_API marks what libstackview exports; everything else is built with hidden visibility,
 * so internal helpers (sv/ headers, the importers' layers) never leak into the ABI. */
#if defined(__GNUC__)
#define SV_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define SV_MUST_USE __attribute__((warn_unused_result))
#define SV_API __attribute__((visibility("default")))
#else
#define SV_PRINTF(f, a)
#define SV_MUST_USE
#define SV_API
#endif

/* X(name, value, message) */
#define SV_STATUS_LIST(X)                                   \
	X(SV_OK, 0, "success")                              \
	X(SV_ENOMEM, -1, "out of memory")                   \
	X(SV_EIO, -2, "input/output error")                 \
	X(SV_EFORMAT, -3, "malformed input")                \
	X(SV_EUNSUPPORTED, -4, "unsupported")               \
	X(SV_ENOTFOUND, -5, "not found")                    \
	X(SV_EINVAL, -6, "invalid argument")                \
	X(SV_ELIMIT, -7, "limit exceeded")                  \
	X(SV_ECANCELED, -8, "canceled")

typedef enum sv_status {
#define SV_STATUS_ENUM(name, value, msg) name = value,
	SV_STATUS_LIST(SV_STATUS_ENUM)
#undef SV_STATUS_ENUM
} sv_status;

/* A one-line error. `line` is 0 and `offset` is -1 when they do not apply. */
typedef struct sv_error {
	int code;
	long line;
	long long offset;
	char file[512];
	char msg[512];
} sv_error;

/* The fixed message of a status code. */
SV_API const char *sv_status_str(int code);

/* Reset an error record to "no error". Accepts NULL. */
SV_API void sv_error_clear(sv_error *err);

/* Record an error and return `code` (negative), so callers can write
 * `return sv_error_set(err, SV_EFORMAT, "bad %s", x);`. Accepts a NULL err. */
SV_API int sv_error_set(sv_error *err, int code, const char *fmt, ...) SV_PRINTF(3, 4);

/* The same with a va_list, for importers' own error helpers that add a location. */
SV_API int sv_error_vset(sv_error *err, int code, const char *fmt, va_list ap) SV_PRINTF(3, 0);

/* Attach a location (file name, line, byte offset) to an error already set. */
SV_API void sv_error_locate(sv_error *err, const char *file, long line, long long offset);

/* Format as "FILE:LINE: message" (or "FILE: byte N: message", or just the message) into buf. */
SV_API void sv_error_format(char *buf, size_t size, const sv_error *err);

#endif
