/* SPDX-License-Identifier: MIT */
/* What a source says besides its samples: events, notes, user modules, renamed frames, and
 * the processes its Process frames name. */
#include "stackview/source.h"
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv/idmap.h"
#include "strtab_int.h"
#include "sv/array.h"
#include "source_int.h"

/* ---- events and renames ---- */

size_t sv_source_event_count(const sv_source *src) { return src->nevents; }

const char *sv_source_event_name(const sv_source *src)
{
	for (size_t i = 0; i < src->nevents; i++)
		if (src->events[i].selected)
			return src->events[i].name;
	return NULL;
}

void sv_source_set_intervals(sv_source *src, bool on) { src->intervals = on; }
bool sv_source_intervals(const sv_source *src) { return src->intervals; }

void sv_source_set_unit(sv_source *src, const char *unit)
{
	snprintf(src->unit, sizeof(src->unit), "%s", unit ? unit : "");
}

const char *sv_source_unit(const sv_source *src)
{
	if (src->unit[0])
		return src->unit;
	return sv_source_scaling(src) == SV_SCALING_TIME ? "ms" : sv_source_event_name(src);
}
const sv_event *sv_source_event(const sv_source *src, size_t i) { return &src->events[i]; }

int sv_source_add_event(sv_source *src, const char *name, size_t samples, bool selected)
{
	char *copy = strdup(name);
	if (!copy || SV_ARRAY_PUSH(src->events, src->nevents, src->event_cap, ((sv_event){ copy, samples, selected }))) {
		free(copy);
		return SV_ENOMEM;
	}
	return 0;
}

int sv_source_add_user_module(sv_source *src, const char *name, size_t len)
{
	if (!len || src->nuser_mods == SV_MAX_USER_MODULES)
		return 0;
	for (size_t i = 0; i < src->nuser_mods; i++)
		if (strlen(src->user_mods[i]) == len && memcmp(src->user_mods[i], name, len) == 0)
			return 0;
	char *copy = strndup(name, len);
	if (!copy)
		return SV_ENOMEM;
	src->user_mods[src->nuser_mods++] = copy;
	return 0;
}

size_t sv_source_user_module_count(const sv_source *src) { return src->nuser_mods; }
const char *sv_source_user_module(const sv_source *src, size_t i) { return src->user_mods[i]; }

size_t sv_source_note_count(const sv_source *src) { return src->ninotes; }
const sv_note *sv_source_note(const sv_source *src, size_t i) { return &src->inotes[i]; }

int sv_source_add_note(sv_source *src, int kind, const char *text)
{
	char *copy = strdup(text);
	if (!copy || SV_ARRAY_PUSH(src->inotes, src->ninotes, src->inote_cap, ((sv_note){ kind, copy }))) {
		free(copy);
		return SV_ENOMEM;
	}
	return 0;
}

int sv_source_rename_frames(sv_source *src, const sv_frame_id *ids, const char *const *names, size_t n)
{
	size_t *lens = calloc(n ? n : 1, sizeof(*lens));
	if (!lens)
		return SV_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		lens[i] = strlen(names[i]);
		if (lens[i] > SV_MAX_NAME_LEN || ids[i] >= src->frames.count) {
			int bad = lens[i] > SV_MAX_NAME_LEN ? SV_ELIMIT : SV_EINVAL;
			free(lens);
			return bad;
		}
	}
	int rc = sv_strtab_rename(&src->frames, ids, names, lens, n);
	for (size_t i = 0; !rc && i < n; i++)
		src->short_off[ids[i]] = sv_source_short_offset(names[i], lens[i]);
	free(lens);
	return rc;
}

/* ---- processes ---- */

/* Recognise `Process<digits> <name> (<pid>)[ anything]` (spec §12; ETL frames carry
 * `Args: ...` after the pid). */
static bool parse_process(const char *s, char *name, size_t size, long *pid)
{
	if (strncmp(s, "Process", 7) != 0)
		return false;
	const char *p = s + 7;
	while (isdigit((unsigned char)*p))
		p++;
	if (!isspace((unsigned char)*p))
		return false;
	while (isspace((unsigned char)*p))
		p++;
	const char *start = p;
	const char *open = NULL;
	/* The pid group is the first "(digits)" followed by end or a blank. */
	for (const char *q = p; *q; q++) {
		if (*q != '(')
			continue;
		const char *d = q + 1;
		while (*d == ' ')
			d++;
		const char *ds = d;
		while (isdigit((unsigned char)*d))
			d++;
		if (d == ds)
			continue;
		while (*d == ' ')
			d++;
		if (*d == ')' && (d[1] == '\0' || isspace((unsigned char)d[1]))) {
			open = q;
			*pid = strtol(ds, NULL, 10);
			break;
		}
	}
	const char *end = open ? open : start + strlen(start);
	while (end > start && isspace((unsigned char)end[-1]))
		end--;
	if (!open)
		*pid = -1;
	size_t n = (size_t)(end - start);
	if (n >= size)
		n = size - 1;
	memcpy(name, start, n);
	name[n] = '\0';
	return true;
}

static int process_cmp(const void *a, const void *b)
{
	const sv_process *x = a, *y = b;
	if (x->metric != y->metric)
		return x->metric > y->metric ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

int sv_source_processes(sv_process **out, size_t *n, const sv_source *src)
{
	int rc = 0;
	sv_process *procs = NULL;
	size_t nprocs = 0, proc_cap = 0;
	/* Root-most frame per stack, then the process index per root frame. */
	uint32_t *proc_of_frame = malloc((size_t)(src->frames.count + 1) * sizeof(*proc_of_frame));
	uint32_t *proc_of_stack = malloc((size_t)(src->nstacks + 1) * sizeof(*proc_of_stack));
	if (!proc_of_frame || !proc_of_stack) {
		rc = SV_ENOMEM;
		goto out;
	}
	memset(proc_of_frame, 0xff, (size_t)src->frames.count * sizeof(*proc_of_frame));
	for (uint32_t s = 0; s < src->nstacks; s++) {
		if (src->st_caller[s] != SV_STACK_NONE) {
			proc_of_stack[s] = proc_of_stack[src->st_caller[s]];
			continue;
		}
		sv_frame_id f = src->st_frame[s];
		if (proc_of_frame[f] == UINT32_MAX - 1) {
			proc_of_stack[s] = UINT32_MAX;
			continue;
		}
		if (proc_of_frame[f] == UINT32_MAX) {
			sv_process p;
			memset(&p, 0, sizeof(p));
			if (!parse_process(sv_strtab_str(&src->frames, f), p.name, sizeof(p.name), &p.pid)) {
				proc_of_frame[f] = UINT32_MAX - 1;
				proc_of_stack[s] = UINT32_MAX;
				continue;
			}
			p.frame = sv_strtab_str(&src->frames, f);
			if (SV_ARRAY_PUSH(procs, nprocs, proc_cap, p)) {
				rc = SV_ENOMEM;
				goto out;
			}
			proc_of_frame[f] = (uint32_t)(nprocs - 1);
		}
		proc_of_stack[s] = proc_of_frame[f];
	}
	sv_samples smp = sv_source_samples(src);
	for (size_t i = 0; i < src->nsamples; i++) {
		sv_stack_id s = src->s_stack[i];
		if (s == SV_STACK_NONE || proc_of_stack[s] == UINT32_MAX)
			continue;
		procs[proc_of_stack[s]].samples++;
		procs[proc_of_stack[s]].metric += sv_sample_metric(&smp, i);
	}
	if (nprocs)
		qsort(procs, nprocs, sizeof(*procs), process_cmp);
	*out = procs;
	*n = nprocs;
	procs = NULL;
out:
	free(procs);
	free(proc_of_frame);
	free(proc_of_stack);
	return rc;
}
