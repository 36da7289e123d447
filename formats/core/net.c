/* SPDX-License-Identifier: MIT */
/* The network's budget for one load (see net.h). */
#include "net.h"

#include <time.h>

#include "hold.h"

double sv_net_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void sv_net_init(sv_net *n, const sv_import_opts *opts)
{
	*n = (sv_net){ .file_s = opts && opts->net_file_s > 0 ? opts->net_file_s : SV_NET_FILE_S,
		       .total_s = opts && opts->net_total_s > 0 ? opts->net_total_s : SV_NET_TOTAL_S,
		       .progress = opts ? opts->progress : NULL };
}

double sv_net_allow(sv_net *n)
{
	if (n->stopped || n->spent)
		return 0;
	double now = sv_net_now();
	if (!n->start)
		n->start = now;
	double left = n->total_s - (now - n->start);
	if (left <= 0) {
		n->spent = true;
		return 0;
	}
	return left < n->file_s ? left : n->file_s;
}

bool sv_net_stop(sv_net *n)
{
	/* done 0 of total 1 asks the watcher only whether to stop (stackview/input.h) */
	if (!n->stopped && (sv_hold_pending() || (n->progress && n->progress->fn &&
						  n->progress->fn(n->progress->payload, 0, 1))))
		n->stopped = true;
	return n->stopped;
}
