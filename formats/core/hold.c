/* SPDX-License-Identifier: MIT */
/* Holding the signals that end the program while a temporary file exists (see hold.h). */
#include "hold.h"

static const int end_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NEND (sizeof(end_signals) / sizeof(end_signals[0]))

void sv_hold_begin(sigset_t *old)
{
	sigset_t hold;
	sigemptyset(&hold);
	for (size_t i = 0; i < NEND; i++)
		sigaddset(&hold, end_signals[i]);
	sigprocmask(SIG_BLOCK, &hold, old);
}

bool sv_hold_pending(void)
{
	sigset_t pending;
	if (sigpending(&pending) != 0)
		return false;
	for (size_t i = 0; i < NEND; i++)
		if (sigismember(&pending, end_signals[i]) == 1)
			return true;
	return false;
}

void sv_hold_end(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}
