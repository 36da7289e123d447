/* SPDX-License-Identifier: MIT */
/* perf.data reader: per-process address spaces (MMAP/MMAP2 sorted and trimmed, shared
 * copy-on-write after FORK), processes, threads and their comms, as stacks.c keeps them
 * while it applies the records. */
#include <stdlib.h>
#include <string.h>

#include "data_int.h"

/* ---- address spaces ---- */

maps *sv_pdr_maps_new(void)
{
	maps *m = calloc(1, sizeof(*m));
	if (m)
		m->refs = 1;
	return m;
}

void sv_pdr_maps_unref(maps *m)
{
	if (m && --m->refs == 0) {
		free(m->v);
		free(m);
	}
}

/* A private copy before changing a shared table. */
maps *sv_pdr_maps_own(maps *m)
{
	if (m->refs == 1)
		return m;
	maps *c = sv_pdr_maps_new();
	if (!c || (m->n && !(c->v = malloc(m->n * sizeof(*c->v))))) {
		free(c);
		return NULL;
	}
	if (m->n)
		memcpy(c->v, m->v, m->n * sizeof(*c->v));
	c->n = c->cap = m->n;
	m->refs--;
	return c;
}

/* Insert [start, end): what it overlaps is trimmed or dropped (the newest mapping wins). */
int sv_pdr_maps_insert(maps *m, map nm)
{
	if (nm.end <= nm.start)
		return 0;
	size_t lo = 0, hi = m->n;
	while (lo < hi) { /* first map ending after nm.start */
		size_t mid = lo + (hi - lo) / 2;
		if (m->v[mid].end <= nm.start)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t first = lo, last = lo;
	while (last < m->n && m->v[last].start < nm.end)
		last++;
	/* first..last-1 overlap: keep a head of the first and a tail of the last. */
	map keep[2];
	size_t nk = 0;
	if (first < last && m->v[first].start < nm.start) {
		keep[nk] = m->v[first];
		keep[nk++].end = nm.start;
	}
	map insert_after = { 0, 0, 0, NULL };
	bool tail = false;
	if (first < last && m->v[last - 1].end > nm.end) {
		insert_after = m->v[last - 1];
		insert_after.pgoff += nm.end - insert_after.start;
		insert_after.start = nm.end;
		tail = true;
	}
	size_t nnew = nk + 1 + (tail ? 1 : 0);
	size_t removed = last - first;
	if (m->n - removed + nnew > m->cap && SV_ARRAY_RESERVE(m->v, m->cap, m->n - removed + nnew))
		return SV_ENOMEM;
	memmove(m->v + first + nnew, m->v + last, (m->n - last) * sizeof(*m->v));
	size_t k = first;
	for (size_t i = 0; i < nk; i++)
		m->v[k++] = keep[i];
	m->v[k++] = nm;
	if (tail)
		m->v[k++] = insert_after;
	m->n = m->n - removed + nnew;
	return 0;
}

const map *sv_pdr_maps_find(const maps *m, uint64_t addr)
{
	if (!m)
		return NULL;
	size_t lo = sv_perf_upper(m->v, m->n, sizeof(*m->v), offsetof(map, start), addr);
	return lo && addr < m->v[lo - 1].end ? &m->v[lo - 1] : NULL;
}

/* ---- processes and threads ---- */

proc *sv_pdr_proc(pdr *r, int32_t pid)
{
	uint32_t i = sv_idmap_get(&r->proc_idx, (uint32_t)pid);
	if (i != SV_IDMAP_NONE)
		return &r->procs[i];
	if (SV_ARRAY_RESERVE(r->procs, r->proc_cap, r->nprocs + 1))
		return NULL;
	proc *p = &r->procs[r->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->gen = ++r->gen;
	if (!(p->m = sv_pdr_maps_new()) || sv_idmap_put(&r->proc_idx, (uint32_t)pid, (uint32_t)r->nprocs)) {
		sv_pdr_maps_unref(p->m);
		return NULL;
	}
	r->nprocs++;
	return p;
}

thread *sv_pdr_thread(pdr *r, int32_t pid, int32_t tid)
{
	uint32_t i = sv_idmap_get(&r->thread_idx, (uint32_t)tid);
	if (i != SV_IDMAP_NONE) {
		thread *t = &r->threads[i];
		if (pid != -1 && t->pid != pid) { /* tid reused by another process */
			t->pid = pid;
		}
		return t;
	}
	if (SV_ARRAY_RESERVE(r->threads, r->thread_cap, r->nthreads + 1))
		return NULL;
	thread *t = &r->threads[r->nthreads];
	*t = (thread){ pid, tid, UINT32_MAX, 0, NULL, SV_STACK_NONE, NULL, 0, 0, SV_STACK_NONE };
	if (sv_idmap_put(&r->thread_idx, (uint32_t)tid, (uint32_t)r->nthreads))
		return NULL;
	r->nthreads++;
	return t;
}

int sv_pdr_comm_intern(pdr *r, const char *s, size_t n, uint32_t *out)
{
	if (n > 255)
		n = 255;
	if (r->comm_len + n + 1 > (256u << 20))
		return SV_ELIMIT;
	if (sv_array_reserve(&r->comm_names, &r->comm_cap, r->comm_len + n + 1, 1))
		return SV_ENOMEM;
	memcpy(r->comm_names + r->comm_len, s, n);
	r->comm_names[r->comm_len + n] = '\0';
	*out = (uint32_t)r->comm_len;
	r->comm_len += n + 1;
	return 0;
}

