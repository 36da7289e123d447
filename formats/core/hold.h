/* SPDX-License-Identifier: MIT */
/* The signals that end the program (SIGINT, SIGTERM, SIGHUP, SIGQUIT), held — masked, not
 * handled — while a temporary file exists, so that one arriving then is seen (pending), the
 * temporary removed, and the signal delivered only when the hold ends. Used by the atomic
 * writer and by downloads into a cache. formats/ only.
 * Ownership: the caller keeps the old mask between begin and end. */
#ifndef STACKVIEW_FORMATS_HOLD_H
#define STACKVIEW_FORMATS_HOLD_H

#include <signal.h>
#include <stdbool.h>

/* Hold the signals that end the program; *old is the mask to give back to sv_hold_end. */
void sv_hold_begin(sigset_t *old);
/* Whether one of them arrived while held (it waits, pending). */
bool sv_hold_pending(void);
/* Give the old mask back: a pending signal is delivered now. */
void sv_hold_end(const sigset_t *old);

#endif
