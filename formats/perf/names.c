/* SPDX-License-Identifier: MIT */
/* Process and Thread frames of both perf importers, named as perf names them (issue 14): a
 * process after its main thread's comm (the one after its last exec, what perf report shows
 * for the pid), else the first comm seen in it; a thread "Thread (TID) COMM" after its own
 * latest comm, so `--inc 'Thread% worker'` works. Frames start as placeholders and get their
 * names once the whole input has been read. perf.data and perf script text of one recording
 * (with pids) give the same frames. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_int.h"
#include "sv/array.h"

void sv_perf_names_init(sv_perf_names *n)
{
	memset(n, 0, sizeof(*n));
	sv_idmap_init(&n->pidx);
	sv_idmap_init(&n->tidx);
}

void sv_perf_names_dispose(sv_perf_names *n)
{
	free(n->p);
	free(n->t);
	sv_idmap_dispose(&n->pidx);
	sv_idmap_dispose(&n->tidx);
}

static void set_comm(char dst[SV_PERF_COMM_MAX], const char *comm, size_t len)
{
	if (len >= SV_PERF_COMM_MAX)
		len = SV_PERF_COMM_MAX - 1;
	memcpy(dst, comm, len);
	dst[len] = '\0';
}

static int process(sv_perf_names *n, sv_sink *sink, long long pid, const char *comm, size_t len, uint32_t *out)
{
	uint32_t i = sv_idmap_get(&n->pidx, (uint64_t)pid);
	if (i != SV_IDMAP_NONE) {
		*out = i;
		return 0;
	}
	if (SV_ARRAY_RESERVE(n->p, n->pcap, n->np + 1) || sv_idmap_put(&n->pidx, (uint64_t)pid, (uint32_t)n->np))
		return SV_ENOMEM;
	sv_perf_nproc *p = &n->p[n->np];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	set_comm(p->first, comm, len);
	char buf[64];
	int k = snprintf(buf, sizeof(buf), "Process (%lld)", pid); /* named at the end */
	int rc = sink->ops->intern_frame(sink->self, &p->frame, buf, (size_t)k);
	if (rc)
		return rc;
	*out = (uint32_t)n->np++;
	return 0;
}

int sv_perf_names_thread(sv_perf_names *n, sv_sink *sink, long long pid, long long tid, const char *comm, size_t len,
			 sv_stack_id *out)
{
	uint64_t key = ((uint64_t)(uint32_t)pid << 32) | (uint32_t)tid;
	uint32_t i = sv_idmap_get(&n->tidx, key);
	if (i != SV_IDMAP_NONE) {
		set_comm(n->t[i].comm, comm, len); /* the latest name is the thread's */
		*out = n->t[i].stack;
		return 0;
	}
	uint32_t pi;
	int rc = process(n, sink, pid, comm, len, &pi);
	if (rc)
		return rc;
	if (SV_ARRAY_RESERVE(n->t, n->tcap, n->nt + 1))
		return SV_ENOMEM;
	sv_perf_nthread *t = &n->t[n->nt];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	set_comm(t->comm, comm, len);
	/* a placeholder unique to (pid, tid): two processes may reuse a tid */
	char buf[64];
	int k = snprintf(buf, sizeof(buf), "Thread (%lld) of %lld", tid, pid);
	sv_stack_id ps;
	if ((rc = sink->ops->intern_frame(sink->self, &t->frame, buf, (size_t)k)) ||
	    (rc = sink->ops->intern_stack(sink->self, &ps, SV_STACK_NONE, n->p[pi].frame)) ||
	    (rc = sink->ops->intern_stack(sink->self, &t->stack, ps, t->frame)))
		return rc;
	if (sv_idmap_put(&n->tidx, key, (uint32_t)n->nt))
		return SV_ENOMEM;
	n->nt++;
	*out = t->stack;
	return 0;
}

int sv_perf_names_waker(sv_perf_names *n, sv_sink *sink, long long pid, long long tid, sv_frame_id *out)
{
	uint32_t i = sv_idmap_get(&n->tidx, ((uint64_t)(uint32_t)pid << 32) | (uint32_t)tid);
	if (i == SV_IDMAP_NONE)
		return SV_EINVAL;
	sv_perf_nthread *t = &n->t[i];
	if (!t->has_waker) {
		char buf[80];
		int k = snprintf(buf, sizeof(buf), "READIED_BY (%lld) of %lld", tid, pid); /* named at the end */
		int rc = sink->ops->intern_frame(sink->self, &t->waker, buf, (size_t)k);
		if (rc)
			return rc;
		t->has_waker = true;
	}
	*out = t->waker;
	return 0;
}

void sv_perf_names_main_comm(sv_perf_names *n, long long pid, const char *comm, size_t len)
{
	uint32_t i = sv_idmap_get(&n->pidx, (uint64_t)pid);
	if (i != SV_IDMAP_NONE && len) {
		set_comm(n->p[i].main, comm, len);
		n->p[i].has_main = true;
	}
}

/* A process is called after its main thread's own latest name when it took samples, else its
 * name as the recording knew it, else the first name seen in it. */
static const char *process_comm(const sv_perf_names *n, const sv_perf_nproc *p)
{
	uint32_t mi = sv_idmap_get(&n->tidx, ((uint64_t)(uint32_t)p->pid << 32) | (uint32_t)p->pid);
	return mi != SV_IDMAP_NONE ? n->t[mi].comm : p->has_main ? p->main : p->first;
}

int sv_perf_names_finish(sv_perf_names *n, sv_sink *sink)
{
	if (!sink->ops->rename_frames || !(n->np + n->nt))
		return 0;
	size_t total = n->np + 2 * n->nt;
	sv_frame_id *ids = malloc(total * sizeof(*ids));
	char *text = malloc(total * 224);
	const char **names = malloc(total * sizeof(*names));
	int rc = ids && text && names ? 0 : SV_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; !rc && i < n->np; i++, k++) {
		const sv_perf_nproc *p = &n->p[i];
		snprintf(text + k * 224, 224, "Process %s (%lld)", process_comm(n, p), p->pid);
		ids[k] = p->frame;
		names[k] = text + k * 224;
	}
	for (size_t i = 0; !rc && i < n->nt; i++, k++) {
		const sv_perf_nthread *t = &n->t[i];
		snprintf(text + k * 224, 224, "Thread (%lld) %s", t->tid, t->comm);
		ids[k] = t->frame;
		names[k] = text + k * 224;
	}
	for (size_t i = 0; !rc && i < n->nt; i++) {
		const sv_perf_nthread *t = &n->t[i];
		if (!t->has_waker)
			continue;
		uint32_t pi = sv_idmap_get(&n->pidx, (uint64_t)t->pid);
		snprintf(text + k * 224, 224, "READIED_BY Process %s (%lld) Thread (%lld) %s",
			 pi != SV_IDMAP_NONE ? process_comm(n, &n->p[pi]) : "?", t->pid, t->tid, t->comm);
		ids[k] = t->waker;
		names[k] = text + k * 224;
		k++;
	}
	if (!rc)
		rc = sink->ops->rename_frames(sink->self, ids, names, k);
	free(ids);
	free(text);
	free(names);
	return rc;
}

int sv_perf_names_join(sv_perf_names *n, const sv_perf_names *later, const sv_frame_id *fmap, const sv_stack_id *smap)
{
	for (size_t i = 0; i < later->np; i++) {
		const sv_perf_nproc *q = &later->p[i];
		uint32_t k = sv_idmap_get(&n->pidx, (uint64_t)q->pid);
		if (k != SV_IDMAP_NONE) { /* the first name seen stays the earlier part's */
			if (q->has_main) {
				memcpy(n->p[k].main, q->main, sizeof(q->main));
				n->p[k].has_main = true;
			}
			continue;
		}
		if (SV_ARRAY_RESERVE(n->p, n->pcap, n->np + 1) || sv_idmap_put(&n->pidx, (uint64_t)q->pid, (uint32_t)n->np))
			return SV_ENOMEM;
		n->p[n->np] = *q;
		n->p[n->np++].frame = fmap[q->frame];
	}
	for (size_t i = 0; i < later->nt; i++) {
		const sv_perf_nthread *q = &later->t[i];
		uint64_t key = ((uint64_t)(uint32_t)q->pid << 32) | (uint32_t)q->tid;
		uint32_t k = sv_idmap_get(&n->tidx, key);
		if (k != SV_IDMAP_NONE) { /* the latest name is the later part's */
			memcpy(n->t[k].comm, q->comm, sizeof(q->comm));
			if (q->has_waker && !n->t[k].has_waker) {
				n->t[k].waker = fmap[q->waker];
				n->t[k].has_waker = true;
			}
			continue;
		}
		if (SV_ARRAY_RESERVE(n->t, n->tcap, n->nt + 1) || sv_idmap_put(&n->tidx, key, (uint32_t)n->nt))
			return SV_ENOMEM;
		sv_perf_nthread *t = &n->t[n->nt++];
		*t = *q;
		t->frame = fmap[q->frame];
		t->stack = smap[q->stack];
		if (q->has_waker)
			t->waker = fmap[q->waker];
	}
	return 0;
}
