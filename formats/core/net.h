/* SPDX-License-Identifier: MIT */
/* The network's budget for one load: symbol-server downloads (windows/symsrv.c) and
 * debuginfod requests (perf/sym.c) each give up after the per-file limit, all of a load's
 * together after the per-run limit, and any of them within a second of Ctrl-C (or another
 * signal that ends the program, or the progress watcher's cancel). formats/ only.
 * Ownership: one per load, in the reader's context; it borrows the progress watcher. */
#ifndef STACKVIEW_FORMATS_NET_H
#define STACKVIEW_FORMATS_NET_H

#include <stdbool.h>

#include "stackview/formats.h"

typedef struct sv_net {
	double file_s, total_s; /* the limits (sv_import_opts, else SV_NET_FILE_S, SV_NET_TOTAL_S) */
	double start;           /* monotonic seconds at the first request, 0 before */
	sv_progress *progress;  /* borrowed: its cancel stops a transfer */
	bool stopped;           /* the user asked to stop: no more requests this load */
	bool spent;             /* the run's time is spent: no more requests this load */
} sv_net;

void sv_net_init(sv_net *n, const sv_import_opts *opts);
/* Seconds the next transfer may take: the per-file limit, cut to what is left of the run's;
 * 0 when nothing may be asked any more (stopped, or the run's time spent: n->spent says). */
double sv_net_allow(sv_net *n);
/* Whether a transfer must stop now: a signal that ends the program is pending (held by
 * sv_hold_begin) or the progress watcher cancels. Sets n->stopped. Cheap: call it often. */
bool sv_net_stop(sv_net *n);
/* Monotonic seconds. */
double sv_net_now(void);

#endif
