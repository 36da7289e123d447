/* SPDX-License-Identifier: MIT */
/* The Events view's reading thread (see evread.h): the load runs with every signal blocked,
 * so Ctrl-C and a resized terminal reach the key loop; the thread's result is read only
 * after it is joined. */
#include "evread.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

struct tui_ev_read {
	pthread_t th;
	tui_ev_reading rd;
	atomic_bool ended;
	tui_ev_load_fn load;
	const void *payload;
	sv_evlog *log;
	int rc;          /* these three: the thread's until joined */
	sv_error err;
	char warn[300];
};

static void *run(void *arg)
{
	tui_ev_read *r = arg;
	r->rc = r->load(r->payload, r->log, &r->rd, r->warn, sizeof(r->warn), &r->err);
	atomic_store(&r->ended, true);
	return NULL;
}

int tui_ev_read_start(tui_ev_read **out, tui_ev_load_fn load, const void *payload, sv_evlog *log)
{
	tui_ev_read *r = *out = calloc(1, sizeof(*r));
	if (!r)
		return SV_ENOMEM;
	r->load = load;
	r->payload = payload;
	r->log = log;
	atomic_init(&r->rd.cancel, false);
	atomic_init(&r->rd.done, 0);
	atomic_init(&r->rd.total, 0);
	atomic_init(&r->ended, false);
	sv_error_clear(&r->err);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* the new thread starts with this mask */
	int rc = pthread_create(&r->th, NULL, run, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		free(r);
		*out = NULL;
		return SV_EUNSUPPORTED;
	}
	return 0;
}

bool tui_ev_read_ended(const tui_ev_read *r)
{
	return atomic_load(&r->ended);
}

void tui_ev_read_progress(const tui_ev_read *r, unsigned long long *done, unsigned long long *total)
{
	*done = atomic_load(&r->rd.done);
	*total = atomic_load(&r->rd.total);
}

int tui_ev_read_finish(tui_ev_read *r, bool cancel, char *warn, size_t warncap, sv_error *err)
{
	if (cancel)
		atomic_store(&r->rd.cancel, true);
	pthread_join(r->th, NULL);
	if (warncap)
		snprintf(warn, warncap, "%s", r->warn);
	if (err)
		*err = r->err;
	int rc = r->rc;
	free(r);
	return rc;
}
