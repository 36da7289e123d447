/* SPDX-License-Identifier: MIT */
/* The event log of the Events view (see stackview/evlog.h): rows of fixed size, kind and
 * process names interned, the fields' text in an arena. A lock lets one thread add rows
 * while another reads them (the TUI lists the rows read so far); the texts handed out never
 * move, so a row read stays valid after the lock is let go. */
#include "stackview/evlog.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arena_int.h"
#include "strtab_int.h"
#include "sv/array.h"

typedef struct ev {
	double ms;
	long long pid, tid;
	const char *fields;
	uint32_t kind, process;
	int cpu;
	bool stack;
} ev;

struct sv_evlog {
	pthread_mutex_t *lock; /* over everything below (apart, so readers of a const log take it) */
	ev *rows;
	size_t n, cap;
	strtab names; /* kinds and processes */
	arena text;   /* fields */
};

int sv_evlog_new(sv_evlog **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return SV_ENOMEM;
	if (!((*out)->lock = malloc(sizeof(*(*out)->lock))) || pthread_mutex_init((*out)->lock, NULL)) {
		free((*out)->lock);
		free(*out);
		*out = NULL;
		return SV_ENOMEM;
	}
	sv_strtab_init(&(*out)->names);
	sv_arena_init(&(*out)->text);
	return 0;
}

void sv_evlog_free(sv_evlog *l)
{
	if (!l)
		return;
	free(l->rows);
	sv_strtab_dispose(&l->names);
	sv_arena_dispose(&l->text);
	pthread_mutex_destroy(l->lock);
	free(l->lock);
	free(l);
}

static int add_locked(sv_evlog *l, const sv_evrow *r)
{
	if (l->n >= SV_EVLOG_MAX)
		return SV_ELIMIT;
	const char *proc = r->process ? r->process : "", *fields = r->fields ? r->fields : "";
	ev e = { .ms = r->ms, .pid = r->pid, .tid = r->tid, .cpu = r->cpu, .stack = r->has_stack };
	int rc = sv_strtab_intern(&l->names, &e.kind, r->kind, strlen(r->kind));
	if (!rc)
		rc = sv_strtab_intern(&l->names, &e.process, proc, strlen(proc));
	if (rc)
		return rc;
	if (!(e.fields = sv_arena_strndup(&l->text, fields, strlen(fields))))
		return SV_ENOMEM;
	return SV_ARRAY_PUSH(l->rows, l->n, l->cap, e) ? SV_ENOMEM : 0;
}

int sv_evlog_add(sv_evlog *l, const sv_evrow *r)
{
	pthread_mutex_lock(l->lock);
	int rc = add_locked(l, r);
	pthread_mutex_unlock(l->lock);
	return rc;
}

size_t sv_evlog_count(const sv_evlog *l)
{
	if (!l)
		return 0;
	pthread_mutex_lock(l->lock);
	size_t n = l->n;
	pthread_mutex_unlock(l->lock);
	return n;
}

void sv_evlog_get(const sv_evlog *l, size_t i, sv_evrow *out)
{
	pthread_mutex_lock(l->lock);
	const ev *e = &l->rows[i];
	*out = (sv_evrow){ .ms = e->ms, .kind = sv_strtab_str(&l->names, e->kind),
			   .process = sv_strtab_str(&l->names, e->process), .fields = e->fields, .pid = e->pid,
			   .tid = e->tid, .cpu = e->cpu, .has_stack = e->stack };
	pthread_mutex_unlock(l->lock);
}

static bool has_ci(const char *hay, const char *needle, size_t nl)
{
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, nl) == 0)
			return true;
	return false;
}

int sv_evlog_filter_more(const sv_evlog *l, const char *text, double start, double end, size_t *from, size_t **idx,
			 size_t *n, size_t *cap)
{
	size_t nl = text ? strlen(text) : 0;
	pthread_mutex_lock(l->lock);
	/* a kind or process matches for all its rows: decided once per name */
	uint8_t *name_hit = nl ? calloc(l->names.count ? l->names.count : 1, 1) : NULL;
	int rc = nl && !name_hit ? SV_ENOMEM : 0;
	for (uint32_t i = 0; !rc && nl && i < l->names.count; i++)
		name_hit[i] = has_ci(sv_strtab_str(&l->names, i), text, nl);
	size_t i = *from;
	for (; !rc && i < l->n; i++) {
		const ev *e = &l->rows[i];
		if (e->ms < start || e->ms > end)
			continue;
		if (nl && !name_hit[e->kind] && !name_hit[e->process] && !has_ci(e->fields, text, nl))
			continue;
		if (SV_ARRAY_PUSH(*idx, *n, *cap, i)) {
			rc = SV_ENOMEM;
			break;
		}
	}
	*from = i; /* on failure: the row that did not fit */
	pthread_mutex_unlock(l->lock);
	free(name_hit);
	return rc;
}

int sv_evlog_filter(const sv_evlog *l, const char *text, double start, double end, size_t **idx, size_t *n)
{
	*idx = NULL;
	*n = 0;
	size_t from = 0, cap = 0;
	int rc = sv_evlog_filter_more(l, text, start, end, &from, idx, n, &cap);
	if (rc) {
		free(*idx);
		*idx = NULL;
		*n = 0;
	}
	return rc;
}

size_t sv_evlog_seek(const sv_evlog *l, const size_t *idx, size_t n, double ms)
{
	size_t lo = 0, hi = n;
	pthread_mutex_lock(l->lock);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->rows[idx[mid]].ms < ms)
			lo = mid + 1;
		else
			hi = mid;
	}
	pthread_mutex_unlock(l->lock);
	return lo;
}
