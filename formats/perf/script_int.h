/* SPDX-License-Identifier: MIT */
/* Internals of the `perf script` importer: the header-line lexer (script_lex.c) and what
 * it hands to the importer (script.c). formats/ only. Spans point into the caller's line. */
#ifndef STACKVIEW_FORMATS_PERF_SCRIPT_INT_H
#define STACKVIEW_FORMATS_PERF_SCRIPT_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "perf_int.h"

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

#endif
