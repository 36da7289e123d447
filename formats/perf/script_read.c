/* SPDX-License-Identifier: MIT */
/* `perf script` text: the reader proper: lines to samples, a sample at a time, each added
 * when its event is the one selected; what it found told at the end. */
#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "script_int.h"
#include "sv/idmap.h"
#include "sv/cpu_root.h"
#include "sv/thread_time.h"
#include "core/two_parts.h"
#include "script_int.h"

int sv_ps_emit(ps_ctx *c, const header *h)
{
	size_t ei;
	int rc = sv_ps_event_index(c, &ei, h->event.n ? h->event : (span){ "(none)", 6 });
	if (rc)
		return sv_ps_fail(c, rc, rc == SV_ELIMIT ? "more than 4096 event names" : "out of memory");
	c->events[ei].samples++;
	if (c->tt_on)
		return sv_ps_tt_event(c, h, c->events[ei].name);
	if (c->selected < 0) {
		const char *want = c->opts->event ? c->opts->event : c->default_event;
		if (want && strcmp(want, c->events[ei].name) != 0)
			return 0;
		c->selected = (long)ei;
		c->clock_event = sv_ps_clock_name(c->events[ei].name);
		/* its periods are whole ns, its metric ms (1 without a period): sums kept in ns
		 * are exact */
		if (c->clock_event && c->sink->ops->set_metric_quantum)
			c->sink->ops->set_metric_quantum(c->sink->self, 1e-6);
	}
	if ((long)ei != c->selected)
		return 0;
	if (!c->have_t0 && h->has_time) {
		c->have_t0 = true;
		c->t0_s = h->time_s;
		c->t0_ns = h->time_ns;
	}
	double t = h->has_time ? (double)((h->time_s - c->t0_s) * 1000000000LL + (h->time_ns - c->t0_ns)) / 1e6 : 0;
	double m = 1;
	if (h->has_period) {
		c->any_period = true;
		m = c->clock_event ? h->period / 1e6 : h->period;
	}
	sv_stack_id st;
	if ((rc = sv_ps_sample_stack(c, h, &st)))
		return rc;
	if (c->opts->by_cpu &&
	    (rc = sv_cpu_root_apply(&c->cpu_roots, c->sink, h->cpu >= 0 ? (uint32_t)h->cpu : SV_CPU_UNKNOWN, st, &st)))
		return sv_ps_fail(c, rc, "cannot intern stack");
	uint32_t path = SV_LOC_NONE;
	if (c->code && c->nlocs && (rc = sv_ps_code_path(c, &path)))
		return sv_ps_fail(c, rc, "out of memory");
	rc = path != SV_LOC_NONE ? c->sink->ops->add_sample_at(c->sink->self, st, t, m, 1.0, path)
				 : c->sink->ops->add_sample(c->sink->self, st, t, m, 1.0);
	return rc ? sv_ps_fail(c, rc, "cannot add sample") : 0;
}

int sv_ps_finish(ps_ctx *c)
{
	int rc = 0;
	size_t sw = 0;
	for (size_t i = 0; i < c->nevents; i++)
		if (!strcmp(c->events[i].name, "sched:sched_switch"))
			sw = c->events[i].samples;
	if (c->tt_on && !sw) {
		c->line = 0;
		char msg[200];
		snprintf(msg, sizeof(msg), "event '%s' needs sched:sched_switch samples with their payloads "
					   "(perf record -e sched:sched_switch -e sched:sched_wakeup -a -g; perf script)",
			 c->opts->event);
		return sv_ps_fail(c, SV_EINVAL, msg);
	}
	if (c->opts->event && c->selected < 0 && !c->tt_on) {
		char msg[400];
		size_t o = (size_t)snprintf(msg, sizeof(msg), "no samples of event '%s'; the file has:", c->opts->event);
		for (size_t i = 0; i < c->nevents && o < sizeof(msg) - 1; i++)
			o += (size_t)snprintf(msg + o, sizeof(msg) - o, "%s %s", i ? "," : "", c->events[i].name);
		if (!c->nevents)
			snprintf(msg + o, sizeof(msg) - o, " no samples");
		c->line = 0;
		return sv_ps_fail(c, SV_EINVAL, msg);
	}
	bool wakeups = false;
	for (size_t i = 0; !rc && i < c->nevents; i++) {
		wakeups |= !strcmp(c->events[i].name, "sched:sched_wakeup") || !strcmp(c->events[i].name, "sched:sched_waking");
		if (c->sink->ops->add_event)
			rc = c->sink->ops->add_event(c->sink->self, c->events[i].name, c->events[i].samples,
						     (long)i == c->selected && !c->tt_on);
	}
	/* what sched_switch makes possible: the thread-time views */
	for (int v = 0; !rc && sw && c->sink->ops->add_event && v <= SV_TT_READY_TIME; v++)
		if (v != SV_TT_READIED_BY || wakeups)
			rc = c->sink->ops->add_event(c->sink->self, sv_tt_view_name((sv_tt_view)v), sw,
						     c->tt_on && (int)c->tt_view == v);
	if (!rc && c->sink->ops->set_scaling)
		rc = c->sink->ops->set_scaling(c->sink->self, c->tt_on || (c->clock_event && c->any_period) ? SV_SCALING_TIME
													   : SV_SCALING_DATA);
	if (!rc && c->pid_unknown)
		rc = sv_sink_note(c->sink, SV_NOTE_INFO,
				  "the text has no pids (perf script's default fields): %zu threads are shown as processes of "
				  "their own%s; perf script -F +pid, or --show-task-events, says which process each is in",
				  c->pid_unknown, c->pid_from_tasks ? " (the others' pids came from its task lines)" : "");
	else if (!rc && c->pid_from_tasks)
		rc = sv_sink_note(c->sink, SV_NOTE_INFO,
				  "the text has no pids: the process of each of its %zu threads is from its task lines "
				  "(--show-task-events: PERF_RECORD_FORK, PERF_RECORD_COMM)",
				  c->pid_from_tasks);
	if (!rc && c->tt)
		rc = sv_tt_report(c->tt, c->sink, c->tt_sampled, 0);
	if (!rc && c->code)
		rc = sv_ps_code_note(c);
	if (!rc)
		rc = sv_perf_names_finish(&c->names, c->sink);
	return rc ? sv_ps_fail(c, rc, "out of memory") : 0;
}

void sv_ps_init(ps_ctx *c, sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	static const sv_import_opts none = { 0 };
	memset(c, 0, sizeof(*c));
	c->sink = sink;
	c->in = in;
	c->opts = opts ? opts : &none;
	c->err = err;
	c->selected = -1;
	sv_perf_names_init(&c->names);
	sv_idmap_init(&c->tid_idx);
	sv_idmap_init(&c->task_pid);
	sv_idmap_init(&c->pid_seen);
	sv_cpu_root_init(&c->cpu_roots);
	c->tt_on = sv_tt_view_parse(c->opts->event, &c->tt_view);
	c->code = sv_ps_code_wanted(c);
}

void sv_ps_dispose(ps_ctx *c)
{
	for (size_t i = 0; i < c->nevents; i++)
		free(c->events[i].name);
	free(c->events);
	free(c->fids);
	free(c->last);
	free(c->seen);
	free(c->seen_text);
	free(c->pend);
	free(c->pend_text);
	free(c->hdr);
	free(c->name);
	free(c->default_event);
	sv_tt_free(c->tt);
	free(c->tids);
	sv_idmap_dispose(&c->tid_idx);
	sv_idmap_dispose(&c->task_pid);
	sv_idmap_dispose(&c->pid_seen);
	free(c->pid_tids);
	sv_cpu_root_dispose(&c->cpu_roots);
	sv_perf_names_dispose(&c->names);
	free(c->locs);
	if (c->syms)
		sv_perf_syms_free(c->syms);
}

/* The samples of the lines lr gives, to its end (a sample ends at a blank line or at the
 * end). `cancel`, when set, stops the reading early (another part failed). */
int sv_ps_parse(ps_ctx *c, sv_lines *lr, const atomic_bool *cancel)
{
	int rc = 0;
	enum { S_HEADER, S_FRAMES } state = S_HEADER;
	header h;
	memset(&h, 0, sizeof(h));
	for (unsigned n = 0;; n++) {
		if (cancel && (n & 4095) == 0 && atomic_load_explicit(cancel, memory_order_relaxed))
			return SV_EINVAL;
		const char *lp = NULL;
		size_t ln = 0;
		int got = sv_lines_next(lr, &lp, &ln, c->err);
		if (got < 0)
			return got;
		c->line = lr->line;
		span line = { lp, got ? ln : 0 };
		if (lr->line == 1 && !c->later_part && got && ln >= 3 && memcmp(lp, "\xEF\xBB\xBF", 3) == 0) {
			line.p += 3;
			line.n -= 3;
		}
		if (state == S_FRAMES) {
			if (!got || sv_ps_trim(line).n == 0) {
				if ((rc = sv_ps_emit(c, &h)))
					return rc;
				state = S_HEADER;
				if (!got)
					break;
				continue;
			}
			if (sv_ps_frame_line(line)) {
				if ((rc = sv_ps_push_frame(c, line)))
					return rc;
				continue;
			}
			if (sv_ps_srcline_line(line) && c->nframes)
				continue;
			/* A header without the blank line before it: end this sample. */
			if ((rc = sv_ps_emit(c, &h)))
				return rc;
			state = S_HEADER;
		}
		if (!got)
			break;
		span t = sv_ps_trim(line);
		if (!t.n || t.p[0] == '#')
			continue;
		/* Keep the header: the input moves on while the sample's frames are read. */
		if (sv_array_reserve(&c->hdr, &c->hdr_cap, line.n + 1, 1))
			return sv_ps_fail(c, SV_ENOMEM, "out of memory");
		memcpy(c->hdr, line.p, line.n);
		line.p = c->hdr;
		if (!sv_ps_parse_header(line, &h))
			return sv_ps_fail(c, SV_EFORMAT, line.n && line.p[0] == '\t' ? "frame line outside a sample"
										 : "cannot parse as a perf script sample header");
		if (h.record) {
			sv_ps_task_line(c, line);
			if (c->tt_on && (rc = sv_ps_tt_switch_record(c, &h, line)))
				return rc;
			continue;
		}
		if (!h.has_pid && (rc = sv_ps_fix_pid(c, &h)))
			return rc;
		c->nframes = 0;
		c->npend = 0;
		c->pend_len = 0;
		c->nlocs = 0;
		c->leaf_done = false;
		/* A one-line sample (-G, or no callchain): "ip sym (dso)" after the event. */
		span ptok[2];
		if (h.payload.n && sv_ps_tokenize(h.payload, ptok, 2) == 2 && sv_ps_is_hex(ptok[0])) {
			if ((rc = sv_ps_push_frame(c, h.payload)) || (rc = sv_ps_emit(c, &h)))
				return rc;
			continue;
		}
		state = S_FRAMES;
	}
	return 0;
}

/* ---- processes of pid-less text ---- */

static bool read_int(const char **p, const char *end, long long *out)
{
	const char *s = *p;
	long long v = 0;
	while (*p < end && **p >= '0' && **p <= '9' && *p - s < 18)
		v = v * 10 + (*(*p)++ - '0');
	*out = v;
	return *p > s;
}

/* "PERF_RECORD_FORK(pid:tid):(ppid:ptid)", "PERF_RECORD_COMM[ exec]: comm:pid/tid" */
void sv_ps_task_line(ps_ctx *c, span line)
{
	const char *end = line.p + line.n, *at;
	long long pid, tid;
	if ((at = memmem(line.p, line.n, "PERF_RECORD_FORK(", 17))) {
		const char *q = at + 17;
		if (!read_int(&q, end, &pid) || q >= end || *q++ != ':' || !read_int(&q, end, &tid))
			return;
	} else if ((at = memmem(line.p, line.n, "PERF_RECORD_COMM", 16))) {
		const char *slash = NULL;
		for (const char *q = end; q > at; q--)
			if (q[-1] == '/') {
				slash = q - 1;
				break;
			}
		const char *colon = slash;
		while (colon && colon > at && colon[-1] != ':')
			colon--;
		if (!slash || !colon || colon == at)
			return;
		const char *q = colon, *r = slash + 1;
		if (!read_int(&q, slash, &pid) || q != slash || !read_int(&r, end, &tid))
			return;
	} else {
		return;
	}
	if (pid > 0 && tid > 0 && tid <= UINT32_MAX && pid < UINT32_MAX && !c->tasks && !c->tasks_read)
		(void)sv_idmap_put(&c->task_pid, (uint32_t)tid, (uint32_t)pid + 1); /* no memory: the tid stays alone */
}

int sv_ps_count_pid(ps_ctx *c, uint32_t tid)
{
	if (sv_idmap_get(&c->pid_seen, tid) != SV_IDMAP_NONE)
		return 0;
	if (sv_idmap_put(&c->pid_seen, tid, 1) || SV_ARRAY_PUSH(c->pid_tids, c->npid_tids, c->pid_tids_cap, tid))
		return SV_ENOMEM;
	if (sv_idmap_get(c->tasks ? c->tasks : &c->task_pid, tid) != SV_IDMAP_NONE)
		c->pid_from_tasks++;
	else
		c->pid_unknown++;
	return 0;
}

int sv_ps_fix_pid(ps_ctx *c, header *h)
{
	if (h->tid <= 0 || h->tid > UINT32_MAX)
		return 0;
	uint32_t pid = sv_idmap_get(c->tasks ? c->tasks : &c->task_pid, (uint32_t)h->tid);
	if (pid != SV_IDMAP_NONE)
		h->pid = pid - 1;
	return sv_ps_count_pid(c, (uint32_t)h->tid) ? sv_ps_fail(c, SV_ENOMEM, "out of memory") : 0;
}

void sv_ps_task_prescan(ps_ctx *c, const char *p, const char *end)
{
	for (;;) {
		if (p >= end) {
			c->tasks_read = true; /* read-only from now on: a second reading thread shares it */
			return;
		}
		const char *at = memmem(p, (size_t)(end - p), "PERF_RECORD_", 12);
		if (!at) {
			c->tasks_read = true;
			return;
		}
		const char *ls = at, *nl = memchr(at, '\n', (size_t)(end - at));
		while (ls > p && ls[-1] != '\n')
			ls--;
		sv_ps_task_line(c, (span){ ls, (size_t)((nl ? nl : end) - ls) });
		p = nl ? nl + 1 : end;
	}
}

bool sv_ps_first_header_lacks_pid(const char *p, const char *end)
{
	for (int lines = 0; p < end && lines < 4096; lines++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		span line = { p, (size_t)((nl ? nl : end) - p) };
		p = nl ? nl + 1 : end;
		if (!line.n || line.p[0] == '\t' || line.p[0] == '#')
			continue;
		header h;
		if (sv_ps_parse_header(line, &h) && !h.record)
			return !h.has_pid;
	}
	return false;
}
