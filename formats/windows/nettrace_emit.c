/* SPDX-License-Identifier: MIT */
/* .nettrace reader: samples for the chosen view (EventPipe thread time, or one sample per
 * event of a kind), managed frames named from the runtime's method and module events. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "etl_int.h" /* UTF-16 strings and the CLR's event names, shared with the ETL reader */
#include "stackview/formats.h"
#include "sv/array.h"
#include "sv/idmap.h"
#include "nettrace_int.h"

/* ---- emitting ---- */

typedef struct nt_emit {
	nt_ctx *c;
	sv_idmap frame_by_ip;   /* ip -> frame id + 1 */
	sv_idmap stack_memo;    /* (thread slot << 32 | stack index) -> sv_stack_id */
	sv_stack_id proc;
	sv_frame_id cpu, unmanaged;
	struct nt_thread { uint64_t tid; sv_stack_id root; } *threads; /* by slot */
	size_t nthreads, threadcap;
	sv_idmap thread_index;  /* tid hash -> slot + 1 (probed) */
} nt_emit;

static int method_cmp(const void *a, const void *b)
{
	const nt_method *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static const nt_method *find_method(const nt_ctx *c, uint64_t ip)
{
	size_t lo = 0, hi = c->nmethods;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->methods[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the last method starting at or below ip; tiered code leaves several versions */
	for (size_t i = lo; i-- > 0;) {
		const nt_method *m = &c->methods[i];
		if (ip - m->start < m->size)
			return m;
		if (ip - m->start >= (1u << 24))
			break;
	}
	return NULL;
}

static int ip_frame(nt_emit *e, uint64_t ip, sv_frame_id *out)
{
	nt_ctx *c = e->c;
	uint32_t i = sv_idmap_get(&e->frame_by_ip, ip);
	if (i != SV_IDMAP_NONE) {
		*out = i - 1;
		return 0;
	}
	char buf[1200];
	const nt_method *m = find_method(c, ip);
	if (m) {
		const char *path = NULL;
		for (size_t k = 0; k < c->nmodules && !path; k++)
			if (c->modules[k].id == m->module)
				path = c->modules[k].path;
		/* the module's path without its extension, as ETL frames (PerfView's full name) */
		size_t pl = path ? strlen(path) : 0;
		const char *dot = path ? strrchr(path, '.') : NULL, *slash = path ? strrchr(path, '/') : NULL,
			   *bslash = path ? strrchr(path, '\\') : NULL;
		if (dot && (!slash || dot > slash) && (!bslash || dot > bslash))
			pl = (size_t)(dot - path);
		snprintf(buf, sizeof(buf), "%.*s!%s", pl ? (int)pl : 1, pl ? path : "?", m->name);
	} else {
		snprintf(buf, sizeof(buf), "?!?");
		c->unnamed_ips++;
	}
	int rc = c->sink->ops->intern_frame(c->sink->self, out, buf, strlen(buf));
	return rc ? rc : sv_idmap_put(&e->frame_by_ip, ip, *out + 1);
}

static int intern(nt_emit *e, sv_stack_id *s, const char *name)
{
	sv_sink *k = e->c->sink;
	sv_frame_id f;
	int rc = k->ops->intern_frame(k->self, &f, name, strlen(name));
	return rc ? rc : k->ops->intern_stack(k->self, s, *s, f);
}

static int thread_slot(nt_emit *e, uint64_t tid, uint32_t *out)
{
	for (uint64_t h = sv_hash_mix64(tid);; h++) {
		uint32_t i = sv_idmap_get(&e->thread_index, h);
		if (i == SV_IDMAP_NONE)
			break;
		if (e->threads[i - 1].tid == tid) {
			*out = i - 1;
			return 0;
		}
	}
	char name[48];
	snprintf(name, sizeof(name), "Thread (%llu)", (unsigned long long)tid);
	sv_stack_id s = e->proc;
	int rc = intern(e, &s, name);
	if (rc || (rc = SV_ARRAY_PUSH(e->threads, e->nthreads, e->threadcap, ((struct nt_thread){ tid, s }))))
		return rc;
	*out = (uint32_t)e->nthreads - 1;
	uint64_t h = sv_hash_mix64(tid);
	while (sv_idmap_get(&e->thread_index, h) != SV_IDMAP_NONE)
		h++;
	return sv_idmap_put(&e->thread_index, h, *out + 1);
}

/* The stack of an event under its thread: frames root first (the IPs are leaf first). */
static int event_stack(nt_emit *e, const nt_event *ev, sv_stack_id *out)
{
	nt_ctx *c = e->c;
	uint32_t t;
	int rc = thread_slot(e, ev->tid, &t);
	if (rc)
		return rc;
	if (!ev->stack) {
		*out = e->threads[t].root;
		return 0;
	}
	uint64_t key = (uint64_t)t << 32 | ev->stack;
	uint32_t memo = sv_idmap_get(&e->stack_memo, key);
	if (memo != SV_IDMAP_NONE) {
		*out = memo;
		return 0;
	}
	const nt_stack *st = &c->stks[ev->stack - 1];
	sv_stack_id s = e->threads[t].root;
	sv_sink *k = c->sink;
	for (uint32_t i = st->n; i-- > 0;) {
		sv_frame_id f;
		if ((rc = ip_frame(e, c->ips[st->off + i], &f)) || (rc = k->ops->intern_stack(k->self, &s, s, f)))
			return rc;
	}
	*out = s;
	return sv_idmap_put(&e->stack_memo, key, s);
}

static int by_thread_time(const void *a, const void *b)
{
	const nt_event *x = *(const nt_event *const *)a, *y = *(const nt_event *const *)b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int by_time(const void *a, const void *b)
{
	const nt_event *x = *(const nt_event *const *)a, *y = *(const nt_event *const *)b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x < y ? -1 : x > y;
}

double sv_nt_ms(const nt_ctx *c, uint64_t ts)
{
	return ts >= c->sync_qpc ? (double)(ts - c->sync_qpc) * 1000.0 / (double)c->freq
				 : -(double)(c->sync_qpc - ts) * 1000.0 / (double)c->freq;
}

size_t sv_nt_program(const nt_ctx *c, const char **base)
{
	const char *cmd = c->cmdline ? c->cmdline : "";
	size_t first = strcspn(cmd, " ");
	*base = cmd;
	for (size_t i = 0; i < first; i++)
		if (cmd[i] == '/' || cmd[i] == '\\')
			*base = cmd + i + 1;
	size_t bl = (size_t)(cmd + first - *base);
	const char *dot = memchr(*base, '.', bl);
	return dot ? (size_t)(dot - *base) : bl;
}

void sv_nt_process_name(const nt_ctx *c, char *pname, size_t cap)
{
	/* Process64 dotnet (4242) Args: app.dll: the command line ProcessInfo logged */
	const char *cmd = c->cmdline ? c->cmdline : "", *base;
	size_t first = strcspn(cmd, " "), bl = sv_nt_program(c, &base);
	const char *args = cmd[first] ? cmd + first + 1 : "";
	if (bl)
		snprintf(pname, cap, "Process%u %.*s (%u) Args: %.900s", c->ptr * 8, (int)bl, base, c->pid, args);
	else
		snprintf(pname, cap, "Process(%u)", c->pid); /* no ProcessInfo: as PerfView names it */
}

/* The samples of kind `want`; thread time (tt) holds each until its thread's next one. */
int sv_nt_emit_samples(nt_ctx *c, uint32_t want, bool tt, size_t *shown)
{
	nt_emit e = { .c = c };
	sv_idmap_init(&e.frame_by_ip);
	sv_idmap_init(&e.stack_memo);
	sv_idmap_init(&e.thread_index);
	sv_sink *k = c->sink;
	const nt_event **order = NULL;
	size_t n = 0;
	int rc = 0;
	if (c->nmethods)
		qsort(c->methods, c->nmethods, sizeof(*c->methods), method_cmp);
	order = malloc((c->nevents ? c->nevents : 1) * sizeof(*order));
	if (!order) {
		rc = SV_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c->nevents; i++)
		if (c->events[i].kind == want)
			order[n++] = &c->events[i];
	qsort(order, n, sizeof(*order), tt ? by_thread_time : by_time);
	char pname[1024];
	sv_nt_process_name(c, pname, sizeof(pname));
	e.proc = SV_STACK_NONE;
	sv_frame_id f;
	if ((rc = k->ops->intern_frame(k->self, &f, pname, strlen(pname))) || (rc = k->ops->intern_stack(k->self, &e.proc, SV_STACK_NONE, f)) ||
	    (rc = k->ops->intern_frame(k->self, &e.cpu, "CPU_TIME", 8)) ||
	    (rc = k->ops->intern_frame(k->self, &e.unmanaged, "UNMANAGED_CODE_TIME", 19)))
		goto out;
	/* thread time's intervals are whole clock ticks: their sums kept in ticks are exact */
	if (tt && k->ops->set_metric_quantum)
		k->ops->set_metric_quantum(k->self, 1000.0 / (double)c->freq);
	for (size_t i = 0; i < n && !rc; i++) {
		const nt_event *ev = order[i];
		if (i % 65536 == 0 && (rc = sv_input_progress(c->in, c->n, c->err)))
			break;
		sv_stack_id s;
		if (tt) {
			/* held until the thread's next sample; the last one has no end (dropped) */
			if (i + 1 >= n || order[i + 1]->tid != ev->tid)
				continue;
			if ((rc = event_stack(&e, ev, &s)) ||
			    (rc = k->ops->intern_stack(k->self, &s, s, ev->type == 2 ? e.cpu : e.unmanaged)))
				break;
			/* the interval in whole clock ticks (a thread's events are in time order), as
			 * ms: the source sums the ticks */
			double len = (double)(order[i + 1]->ts - ev->ts) * 1000.0 / (double)c->freq;
			rc = k->ops->add_sample(k->self, s, sv_nt_ms(c, ev->ts), len, 1.0);
		} else {
			if ((rc = event_stack(&e, ev, &s)))
				break;
			if (c->kinds[ev->kind].bytes && ev->type) { /* AllocationTick: its Type leaf */
				const char *t = c->leaves[ev->type - 1];
				while (*t && !rc) {
					size_t l = strcspn(t, ";");
					sv_frame_id lf;
					if (!(rc = k->ops->intern_frame(k->self, &lf, t, l)))
						rc = k->ops->intern_stack(k->self, &s, s, lf);
					t += l + (t[l] == ';');
				}
				if (rc)
					break;
			}
			rc = k->ops->add_sample(k->self, s, sv_nt_ms(c, ev->ts), ev->metric, 1.0);
		}
		*shown += !rc;
	}
out:
	free(order);
	free(e.threads);
	sv_idmap_dispose(&e.frame_by_ip);
	sv_idmap_dispose(&e.stack_memo);
	sv_idmap_dispose(&e.thread_index);
	return rc;
}
