/* SPDX-License-Identifier: MIT */
/* An event log: the events of a trace as the Events view shows them (one row each: time,
 * kind, process, thread, CPU, the payload's fields as text), and the rows a filter keeps.
 * The formats fill it (cmd/ hands each listed event over); the TUI paints it.
 *
 * Ownership: the log owns every text it was given (copied); rows returned by sv_evlog_get
 * point into it and stay valid until sv_evlog_free.
 * Threads: one thread may add rows while others read the rows added so far (each call takes
 * the log's lock); sv_evlog_free only when no other thread uses the log. */
#ifndef STACKVIEW_EVLOG_H
#define STACKVIEW_EVLOG_H

#include <stdbool.h>
#include <stddef.h>

#include "stackview/status.h"

typedef struct sv_evlog sv_evlog;

typedef struct sv_evrow {
	double ms;
	const char *kind, *process; /* process: "" when not known */
	const char *fields;         /* name="value" pairs, space-separated */
	long long pid, tid;         /* -1: not known */
	int cpu;                    /* -1: not known */
	bool has_stack;
} sv_evrow;

/* Events kept at most (a listing stops there and says so). */
#define SV_EVLOG_MAX 4000000u

SV_API int sv_evlog_new(sv_evlog **out) SV_MUST_USE;
SV_API void sv_evlog_free(sv_evlog *l);
/* Append one event (texts copied; NULL process or fields = ""). SV_ELIMIT past
 * SV_EVLOG_MAX, SV_ENOMEM. */
SV_API int sv_evlog_add(sv_evlog *l, const sv_evrow *row) SV_MUST_USE;
SV_API size_t sv_evlog_count(const sv_evlog *l);
SV_API void sv_evlog_get(const sv_evlog *l, size_t i, sv_evrow *out);
/* The rows whose time is within [start, end] and whose kind, process or fields contain
 * `text` (ASCII case-insensitive; NULL or "" = any), in order: a malloc'ed index array into
 * *idx (NULL when none), the count into *n. 0 or SV_ENOMEM. */
SV_API int sv_evlog_filter(const sv_evlog *l, const char *text, double start, double end, size_t **idx,
			   size_t *n) SV_MUST_USE;
/* The same for the rows from *from on, appended to *idx (*n used, *cap allocated: both 0
 * with *idx NULL to start); *from becomes the count of rows looked at, so the next call goes
 * on with the rows added since. 0 or SV_ENOMEM (the rows before the one that did not fit are
 * in, and *from is that row). */
SV_API int sv_evlog_filter_more(const sv_evlog *l, const char *text, double start, double end, size_t *from, size_t **idx,
				size_t *n, size_t *cap) SV_MUST_USE;
/* The first row at or after `ms` among idx[0..n) (n when none). */
SV_API size_t sv_evlog_seek(const sv_evlog *l, const size_t *idx, size_t n, double ms);

#endif
