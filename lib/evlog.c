/* SPDX-License-Identifier: MIT */
/* The event log of the Events view (see stackview/evlog.h): rows of fixed size, kind and
 * process names interned, the fields' text in an arena. */
#include "stackview/evlog.h"

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
	free(l);
}

int sv_evlog_add(sv_evlog *l, const sv_evrow *r)
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

size_t sv_evlog_count(const sv_evlog *l)
{
	return l ? l->n : 0;
}

void sv_evlog_get(const sv_evlog *l, size_t i, sv_evrow *out)
{
	const ev *e = &l->rows[i];
	*out = (sv_evrow){ .ms = e->ms, .kind = sv_strtab_str(&l->names, e->kind),
			   .process = sv_strtab_str(&l->names, e->process), .fields = e->fields, .pid = e->pid,
			   .tid = e->tid, .cpu = e->cpu, .has_stack = e->stack };
}

static bool has_ci(const char *hay, const char *needle, size_t nl)
{
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, nl) == 0)
			return true;
	return false;
}

int sv_evlog_filter(const sv_evlog *l, const char *text, double start, double end, size_t **idx, size_t *n)
{
	*idx = NULL;
	*n = 0;
	size_t nl = text ? strlen(text) : 0, cap = 0;
	/* a kind or process matches for all its rows: decided once per name */
	uint8_t *name_hit = nl ? calloc(l->names.count ? l->names.count : 1, 1) : NULL;
	if (nl && !name_hit)
		return SV_ENOMEM;
	for (uint32_t i = 0; nl && i < l->names.count; i++)
		name_hit[i] = has_ci(sv_strtab_str(&l->names, i), text, nl);
	for (size_t i = 0; i < l->n; i++) {
		const ev *e = &l->rows[i];
		if (e->ms < start || e->ms > end)
			continue;
		if (nl && !name_hit[e->kind] && !name_hit[e->process] && !has_ci(e->fields, text, nl))
			continue;
		if (SV_ARRAY_PUSH(*idx, *n, cap, i)) {
			free(name_hit);
			free(*idx);
			*idx = NULL, *n = 0;
			return SV_ENOMEM;
		}
	}
	free(name_hit);
	return 0;
}

size_t sv_evlog_seek(const sv_evlog *l, const size_t *idx, size_t n, double ms)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->rows[idx[mid]].ms < ms)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
