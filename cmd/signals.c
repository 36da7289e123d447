/* SPDX-License-Identifier: MIT */
/* The one owner of signal handlers (see cli.h). Whoever changes the terminal (the progress
 * bar's raw keys, the TUI's curses) registers how to give it back for as long as it holds
 * it; a fatal signal then runs that and dies of the signal as it would have. A load listening
 * for Ctrl-C turns the first one into a cancel request. Outside those windows no handler is
 * installed, so the default actions (and a sanitizer's reports) are untouched.
 * sv_write_atomic's blocking of signals while a temporary file exists (formats/core/writer.c) is
 * masking, not handling, and stays with the writer. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGABRT, SIGBUS, SIGFPE };
#define NSIGS (sizeof(sigs) / sizeof(sigs[0]))

static void (*volatile restore_hook)(void);
static volatile sig_atomic_t listening, interrupted;
static struct sigaction old_action[NSIGS];
static bool ours[NSIGS];

static void put_back(size_t i)
{
	if (ours[i]) {
		sigaction(sigs[i], &old_action[i], NULL);
		ours[i] = false;
	}
}

static void on_signal(int sig)
{
	/* The first Ctrl-C asks a listening loader to stop at its next report; a second one,
	 * for a loader stuck waiting on a pipe, is the default action. */
	if (sig == SIGINT && listening && !interrupted) {
		interrupted = 1;
		return;
	}
	void (*hook)(void) = restore_hook;
	restore_hook = NULL;
	if (hook)
		hook();
	for (size_t i = 0; i < NSIGS; i++)
		if (sigs[i] == sig)
			put_back(i);
	raise(sig);
}

/* Handlers on the signals that should reach on_signal now, the old ones back elsewhere. */
static void update(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < NSIGS; i++) {
		bool want = restore_hook || (sigs[i] == SIGINT && listening);
		if (want && !ours[i]) {
			sigaction(sigs[i], &sa, &old_action[i]);
			ours[i] = true;
			/* A signal the parent ignores (nohup's SIGHUP) stays ignored; only a load's
			 * cancel takes SIGINT even from a background job, where the shell ignores it,
			 * as `kill -INT` there is a deliberate request. */
			if (old_action[i].sa_handler == SIG_IGN && !(sigs[i] == SIGINT && listening))
				put_back(i);
		} else if (!want) {
			put_back(i);
		}
	}
}

void cli_signals_on_fatal(void (*restore)(void))
{
	restore_hook = restore;
	update();
}

bool cli_signals_listen(bool on)
{
	/* SIGINT held while the flag is read and the handler changes: a Ctrl-C in between is
	 * either seen here or delivered to the handler that follows, never lost. */
	sigset_t hold, old;
	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigprocmask(SIG_BLOCK, &hold, &old);
	bool was = interrupted;
	interrupted = 0;
	listening = on;
	update();
	sigprocmask(SIG_SETMASK, &old, NULL);
	return was;
}

static const int end_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

void cli_signals_hold(sigset_t *old)
{
	sigset_t hold;
	sigemptyset(&hold);
	for (size_t i = 0; i < sizeof(end_sigs) / sizeof(end_sigs[0]); i++)
		sigaddset(&hold, end_sigs[i]);
	sigprocmask(SIG_BLOCK, &hold, old);
}

int cli_signals_release(const sigset_t *old, bool committed)
{
	int got = 0;
	if (committed) {
		/* The file is complete and in place: a signal that came while it was written is
		 * taken here, and the command ends as the success it is. */
		sigset_t pending;
		struct timespec now = { 0, 0 };
		for (size_t i = 0; sigpending(&pending) == 0 && i < sizeof(end_sigs) / sizeof(end_sigs[0]); i++) {
			sigset_t one;
			sigemptyset(&one);
			sigaddset(&one, end_sigs[i]);
			if (sigismember(&pending, end_sigs[i]) == 1 && sigtimedwait(&one, NULL, &now) == end_sigs[i])
				got = end_sigs[i];
		}
	}
	sigprocmask(SIG_SETMASK, old, NULL); /* not committed: a pending signal ends the program now */
	return got;
}

void cli_signals_die(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
}

bool cli_signals_interrupted(void)
{
	return interrupted;
}
