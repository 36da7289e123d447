/* SPDX-License-Identifier: MIT */
/* `perf script` text: the events a file holds, which are clocks and which tracepoints, and
 * the one shown when the user names none. */
#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "script_int.h"
#include "sv/idmap.h"
#include "sv/cpu_root.h"
#include "sv/thread_time.h"
#include "core/two_parts.h"
#include "script_int.h"

/* ---- processes, threads, events ---- */

/* Index of the event name, adding it when new. */
int sv_ps_event_index(ps_ctx *c, size_t *out, span ev)
{
	/* a NUL byte in the name becomes U+FFFD (as in frame names): the name stays whole */
	char fixed[4 * 256];
	if (memchr(ev.p, '\0', ev.n)) {
		size_t o = 0;
		for (size_t i = 0; i < ev.n && o + 3 < sizeof(fixed); i++) {
			if (ev.p[i]) {
				fixed[o++] = ev.p[i];
			} else {
				memcpy(fixed + o, "\xEF\xBF\xBD", 3);
				o += 3;
			}
		}
		ev = (span){ fixed, o };
	}
	for (size_t i = 0; i < c->nevents; i++)
		if (strlen(c->events[i].name) == ev.n && memcmp(c->events[i].name, ev.p, ev.n) == 0) {
			*out = i;
			return 0;
		}
	if (c->nevents >= 4096)
		return SV_ELIMIT;
	if (SV_ARRAY_RESERVE(c->events, c->event_cap, c->nevents + 1))
		return SV_ENOMEM;
	event_count *ne = c->events;
	if (!(ne[c->nevents].name = strndup(ev.p, ev.n)))
		return SV_ENOMEM;
	ne[c->nevents].samples = 0;
	*out = c->nevents++;
	return 0;
}

bool sv_ps_clock_name(const char *e)
{
	static const char *const clocks[] = { "cpu-clock", "task-clock" };
	for (size_t i = 0; i < 2; i++) {
		size_t l = strlen(clocks[i]);
		if (strncmp(e, clocks[i], l) == 0 && (e[l] == '\0' || e[l] == ':' || e[l] == '/'))
			return true;
	}
	return false;
}

/* A tracepoint name is "subsystem:event" ("sched:sched_switch"); "cycles:u" and
 * "cycles:ppp" are an event with modifiers. */
static bool tracepoint_name(span e)
{
	const char *colon = memchr(e.p, ':', e.n);
	if (!colon)
		return false;
	span mod = { colon + 1, (size_t)(e.p + e.n - colon - 1) };
	if (!mod.n || mod.n > 6)
		return mod.n > 0;
	for (size_t i = 0; i < mod.n; i++)
		if (!strchr("ukhGHpPSDIWe", mod.p[i]))
			return true;
	return false;
}

/* The event a source shows when the user names none: the first one that is not a tracepoint
 * (what `perf report` lists first for `-e cpu-clock -e sched:...`), else the first one. The
 * whole input is in memory, so a scan of the header lines is cheap. */
char *sv_ps_default_event(const char *p, const char *end)
{
	char *first = NULL;
	header h;
	while (sv_ps_next_header(&p, end, &h)) {
		if (!tracepoint_name(h.event)) {
			free(first);
			return strndup(h.event.p, h.event.n);
		}
		if (!first)
			first = strndup(h.event.p, h.event.n);
	}
	return first;
}

/* The current sample's stack under its thread and process frames. */
