/* SPDX-License-Identifier: MIT */
/* The Events view's reading on a thread of its own (dlg_evlist.c shows its rows as they
 * come). Ownership: a reading borrows the log and the payload until tui_ev_read_finish,
 * which frees it. Threads: only the key loop's thread calls these. */
#ifndef STACKVIEW_TUI_EVREAD_H
#define STACKVIEW_TUI_EVREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "tui.h"

typedef struct tui_ev_read tui_ev_read;
typedef int (*tui_ev_load_fn)(const void *payload, sv_evlog *log, tui_ev_reading *rd, char *warn, size_t warncap,
			      sv_error *err);

/* Start load(payload, log, ...) on a new thread (signals stay with the caller's). 0,
 * SV_ENOMEM, or SV_EUNSUPPORTED when no thread can be started. */
int tui_ev_read_start(tui_ev_read **out, tui_ev_load_fn load, const void *payload, sv_evlog *log);
/* Whether the load has returned. */
bool tui_ev_read_ended(const tui_ev_read *r);
/* How far it is: bytes read of total (total 0 = not known). */
void tui_ev_read_progress(const tui_ev_read *r, unsigned long long *done, unsigned long long *total);
/* Wait for the load (asked to stop first when `cancel`), copy its warning into warn and its
 * error into err (may be NULL), free r. The load's return. */
int tui_ev_read_finish(tui_ev_read *r, bool cancel, char *warn, size_t warncap, sv_error *err);

#endif
