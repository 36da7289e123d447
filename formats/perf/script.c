/* SPDX-License-Identifier: MIT */
/* `perf script` text importer (spec/perf.md §1, §9; semantics.md §1.5 with decision D3):
 * the driver. Every header form parses: comm with blanks and digits, pid/tid or tid only, with
 * or without [cpu], time and period, event names with `:` and `/`, tracepoint payloads,
 * one-line `-G` samples, `PERF_RECORD_*` lines. Frames are `module!symbol`; the metric is
 * perf's period (ms for cpu-clock/task-clock, which make the source time-metric); one event at
 * a time. This file reads a whole input on one thread or two and holds the format's table
 * entry; the reader itself is script_read.c (see script_int.h for the rest). */
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

/* ---- two cores ----
 * A large whole text is read in two parts at once (two_parts.h): this thread reads the first
 * part into the sink as one reader would; a second thread reads the rest, from the sample
 * after a blank line past the middle, into a source of its own, with the first part's time
 * origin. Its frames, stacks and samples then join the sink's, and its events, threads and
 * processes the first part's. Anything unusual in the second part (an error, a limit that
 * depends on what came before) and this thread reads on into it as one reader would: the
 * result is the one reader's, byte for byte, always. */

/* Chunks of a large input read into a source of their own (two_parts.h): one alone, or the
 * second thread's run of chunks. */
typedef struct ps_part {
	sv_two_part base;
	ps_ctx c;
	sv_sink sink;
	/* the user modules the part found, with the frame that made each one known */
	struct ps_um { char *name; size_t len; sv_frame_id frame; } *um; /* name: len bytes, as given */
	size_t num, um_cap;
} ps_part;

/* The chunks and what a part needs to read one: the input, the event, and the first part's
 * time origin (first_time, found once: a part from chunk k has it when it lies before at[k]). */
typedef struct ps_parts {
	const sv_input *in;
	const size_t *at;
	const sv_import_opts *opts;
	char *default_event; /* a copy: the first thread's context is its own */
	bool have_t0;
	long long t0_s, t0_ns;
	size_t t0_at;
	atomic_bool cancel;
	const sv_idmap *tasks; /* pid-less text: the first thread's task map, read-only by then */
	bool code;             /* the sink keeps code locations: so do the parts */
} ps_parts;

static int part_frame(void *self, sv_frame_id *out, const char *name, size_t len)
{
	return sv_source_intern_frame(((ps_part *)self)->base.src, out, name, len);
}

static int part_stack(void *self, sv_stack_id *out, sv_stack_id caller, sv_frame_id frame)
{
	return sv_source_intern_stack(((ps_part *)self)->base.src, out, caller, frame);
}

static int part_sample(void *self, sv_stack_id stack, double time, double metric, double count)
{
	return sv_source_add_sample(((ps_part *)self)->base.src, stack, time, metric, count);
}

static int part_user_module(void *self, const char *name, size_t len)
{
	ps_part *p = self;
	char *copy = malloc(len ? len : 1);
	if (copy)
		memcpy(copy, name, len);
	if (!copy || SV_ARRAY_PUSH(p->um, p->num, p->um_cap, ((struct ps_um){ copy, len, sv_source_frame_count(p->base.src) - 1 }))) {
		free(copy);
		return SV_ENOMEM;
	}
	return 0;
}

/* code locations into the part's own source, as the sink's would go (joined after) */
static int part_code_file(void *self, uint32_t *out, const char *path)
{
	return sv_source_intern_code_file(((ps_part *)self)->base.src, out, path);
}

static int part_location(void *self, uint32_t *out, sv_frame_id frame, uint32_t file, uint64_t addr)
{
	return sv_source_intern_location(((ps_part *)self)->base.src, out, frame, file, addr);
}

static int part_code_path(void *self, uint32_t *out, uint32_t caller, uint32_t loc)
{
	return sv_source_intern_code_path(((ps_part *)self)->base.src, out, caller, loc);
}

static int part_sample_at(void *self, sv_stack_id stack, double time, double metric, double count, uint32_t path)
{
	return sv_source_add_sample_at(((ps_part *)self)->base.src, stack, time, metric, count, path);
}

static const sv_sink_ops part_ops = { .intern_frame = part_frame, .intern_stack = part_stack,
				      .add_sample = part_sample, .add_user_module = part_user_module };
static const sv_sink_ops part_code_ops = { .intern_frame = part_frame, .intern_stack = part_stack,
					   .add_sample = part_sample, .add_user_module = part_user_module,
					   .intern_code_file = part_code_file, .intern_location = part_location,
					   .intern_code_path = part_code_path, .add_sample_at = part_sample_at };

/* The time of the first sample of event `want` with a time, in d[0, n) (what the first part
 * takes as time 0) and where its header line is, header lines told from frame lines as
 * ps_parse tells them; false when there is none (or where one reader stops). */
static bool first_time(const char *d, size_t n, const char *want, long long *s, long long *ns, size_t *where)
{
	bool frames = false;
	size_t nframes = 0;
	for (const char *p = d, *end = d + n; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		span line = { p, (size_t)((nl ? nl : end) - p) };
		if (p == d && line.n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) { /* as one reader skips it */
			line.p += 3;
			line.n -= 3;
		}
		p = nl ? nl + 1 : end;
		if (line.n && line.p[line.n - 1] == '\r')
			line.n--;
		if (frames) {
			if (sv_ps_trim(line).n == 0) {
				frames = false;
				continue;
			}
			if (sv_ps_frame_line(line)) {
				nframes++;
				continue;
			}
			if (sv_ps_srcline_line(line) && nframes)
				continue;
			frames = false;
		}
		span t = sv_ps_trim(line);
		if (!t.n || t.p[0] == '#')
			continue;
		header h;
		if (!sv_ps_parse_header(line, &h))
			return false; /* one reader stops here too */
		if (h.record)
			continue;
		span ev = h.event.n ? h.event : (span){ "(none)", 6 };
		if (h.has_time && ev.n == strlen(want) && memcmp(ev.p, want, ev.n) == 0) {
			*s = h.time_s, *ns = h.time_ns;
			*where = (size_t)(line.p - d);
			return true;
		}
		span ptok[2];
		bool one_line = h.payload.n && sv_ps_tokenize(h.payload, ptok, 2) == 2 && sv_ps_is_hex(ptok[0]);
		frames = !one_line;
		nframes = 0;
	}
	return false;
}

static void part_dispose(ps_part *p);

static void *part_open(void *arg, unsigned k, unsigned to)
{
	ps_parts *s = arg;
	ps_part *p = calloc(1, sizeof(*p));
	if (!p || sv_two_part_init(&p->base, s->in, s->at, k, to)) {
		free(p);
		return NULL;
	}
	p->sink = (sv_sink){ s->code ? &part_code_ops : &part_ops, p };
	sv_ps_init(&p->c, &p->sink, &p->base.in, s->opts, &p->base.err);
	p->c.later_part = true;
	p->c.tasks = s->tasks;
	p->c.default_event = s->default_event ? strdup(s->default_event) : NULL;
	if (!s->opts->event && !p->c.default_event) { /* (the copy failed: the first thread reads this chunk) */
		part_dispose(p);
		free(p);
		return NULL;
	}
	if ((p->c.have_t0 = s->have_t0 && s->t0_at < s->at[k]))
		p->c.t0_s = s->t0_s, p->c.t0_ns = s->t0_ns;
	return p;
}

static void part_read(void *arg, void *part, unsigned k)
{
	ps_parts *s = arg;
	ps_part *p = part;
	if (sv_two_part_at(&p->base, s->in, s->at, k))
		p->base.rc = sv_ps_parse(&p->c, &p->base.lr, &s->cancel);
}

static int first_run(void *c, sv_lines *lr)
{
	return sv_ps_parse(c, lr, NULL);
}

/* A chunk's part joins the first thread's reading (c): not taken when it cannot be without
 * changing the result (then c reads on into that chunk's text itself). */
static int join_part(void *arg, sv_two_part *part, bool *joined)
{
	ps_ctx *c = arg;
	ps_part *p = (ps_part *)part;
	*joined = false;
	const ps_ctx *b = &p->c;
	size_t new_events = 0;
	for (size_t i = 0; i < b->nevents; i++) {
		bool found = false;
		for (size_t k = 0; k < c->nevents && !found; k++)
			found = !strcmp(c->events[k].name, b->events[i].name);
		new_events += !found;
	}
	if (c->nevents + new_events > 4096)
		return 0;
	*joined = true;
	sv_two_maps m = { 0 };
	int rc = sv_two_join(c->sink, part->src, &m);
	/* a user module one reader would have met: its frame was new to the first part */
	for (size_t i = 0; i < p->num && !rc; i++)
		if (m.frame_new[p->um[i].frame] && c->sink->ops->add_user_module)
			rc = c->sink->ops->add_user_module(c->sink->self, p->um[i].name, p->um[i].len);
	/* events: counts added, the selected one's state taken when only the second part met it */
	for (size_t i = 0; i < b->nevents && !rc; i++) {
		size_t k;
		span ev = { b->events[i].name, strlen(b->events[i].name) };
		if ((rc = sv_ps_event_index(c, &k, ev)))
			break;
		c->events[k].samples += b->events[i].samples;
		if ((long)i == b->selected && c->selected < 0) {
			c->selected = (long)k;
			c->clock_event = b->clock_event;
		}
	}
	c->any_period |= b->any_period;
	/* the threads of pid-less text the part met, counted once */
	for (size_t i = 0; i < b->npid_tids && !rc; i++)
		rc = sv_ps_count_pid(c, b->pid_tids[i]);
	if (!rc)
		rc = sv_perf_names_join(&c->names, &b->names, m.frame, m.stack);
	sv_two_maps_free(&m);
	return rc;
}

static void part_dispose(ps_part *p)
{
	sv_two_part_dispose(&p->base);
	sv_ps_dispose(&p->c);
	for (size_t i = 0; i < p->num; i++)
		free(p->um[i].name);
	free(p->um);
}

/* Read lr's input on two threads when that helps (see above); else, or from the first chunk
 * the second thread could not read or join, on this one. */
static int ps_parse_all(ps_ctx *c, sv_lines *lr)
{
	const sv_input *in = c->in;
	const char *want = c->opts->event ? c->opts->event : c->default_event;
	size_t at[SV_TWO_CHUNKS + 1];
	unsigned m = 1;
	if (sv_two_wanted(c->opts->threads, in, c->sink) && !c->tt_on && !c->opts->by_cpu && want &&
	    lr->p == (const char *)in->data)
		m = sv_two_chunks((const char *)in->data, in->len, true, at);
	if (m < 2)
		return sv_ps_parse(c, lr, NULL);
	ps_parts *s = calloc(1, sizeof(*s));
	if (!s || (c->default_event && !(s->default_event = strdup(c->default_event)))) {
		free(s);
		return sv_ps_fail(c, SV_ENOMEM, "out of memory");
	}
	s->in = in;
	s->at = at;
	s->tasks = &c->task_pid;
	s->opts = c->opts;
	s->code = c->code;
	s->have_t0 = first_time((const char *)in->data, at[m - 1], want, &s->t0_s, &s->t0_ns, &s->t0_at);
	atomic_init(&s->cancel, false);
	sv_two_reader rd = { part_open, part_read, s };
	sv_two_ranges rg;
	int rc = sv_two_run(lr, at, m, &rd, &s->cancel, first_run, c, &rg);
	unsigned k = 0;
	if (!rc && (rc = sv_two_join_all(c->sink, lr, at, m, &rg, join_part, c, &k)))
		sv_ps_fail(c, rc, "out of memory");
	for (unsigned i = 0; i < m; i++) {
		if (rg.part[i]) {
			part_dispose(rg.part[i]);
			free(rg.part[i]);
		}
	}
	free(s->default_event);
	free(s);
	if (rc || k == m)
		return rc;
	return sv_ps_parse(c, lr, NULL); /* the rest as one reader reads it */
}

static int ps_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	ps_ctx c;
	sv_ps_init(&c, sink, in, opts, err);
	int rc = 0;
	sv_lines lr;
	if ((rc = sv_lines_init(&lr, in))) {
		sv_ps_fail(&c, rc, "out of memory");
		sv_ps_dispose(&c);
		return rc;
	}
	/* A whole (mapped or read) input is scanned first for the default event; a stream takes
	 * the first event it meets. */
	if (!c.opts->event && !in->partial)
		c.default_event = sv_ps_default_event((const char *)in->data, (const char *)in->data + in->len);
	if (c.tt_on && !in->partial && (rc = sv_ps_tt_prescan(&c, (const char *)in->data, (const char *)in->data + in->len)))
		goto out;
	/* Text without pids: which process each thread is in, from the task lines it may have,
	 * read before the samples (a second reading thread shares the map). */
	if (!in->partial && sv_ps_first_header_lacks_pid((const char *)in->data, (const char *)in->data + in->len)) {
		c.no_pids = true;
		sv_ps_task_prescan(&c, (const char *)in->data, (const char *)in->data + in->len);
	}
	if (!(rc = ps_parse_all(&c, &lr)))
		rc = sv_ps_finish(&c);
out:
	sv_lines_dispose(&lr);
	sv_ps_dispose(&c);
	return rc;
}

/* The first line that is not blank or a comment reads as a sample header, and either names an
 * event or is followed by a frame line. */
static bool ps_probe(const unsigned char *d, size_t n)
{
	const char *p = (const char *)d, *end = p + (n < 65536 ? n : 65536);
	if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return false;
		span line = { p, (size_t)(nl - p) };
		if (line.n && line.p[line.n - 1] == '\r')
			line.n--;
		p = nl + 1;
		span t = sv_ps_trim(line);
		if (!t.n || t.p[0] == '#')
			continue;
		header h;
		if (!sv_ps_parse_header(line, &h))
			return false;
		if (h.event.n || h.record)
			return true;
		return p < end && *p == '\t';
	}
	return false;
}

static const char *const ps_patterns[] = { ".data.txt", ".perf.txt", ".perf.data.dump", ".trace.zip", NULL };

/* The Events view's listing of perf script text: every sample line (the event perf recorded:
 * cpu-clock, cycles, a tracepoint) with its comm, pid, tid, CPU and time on the stack views'
 * axis (from the first sample of the event they open by default), the tracepoint's name=value
 * fields (or the line's text), and whether a stack follows. */
static int ps_list_events(const sv_input *in, const sv_import_opts *opts, const sv_event_lister *l, sv_error *err)
{
	(void)err;
	const char *d = (const char *)in->data, *end = d + in->len;
	char *def = opts && opts->event ? strdup(opts->event) : sv_ps_default_event(d, end);
	long long t0s = 0, t0ns = 0;
	size_t where;
	bool t0 = def && first_time(d, in->len, def, &t0s, &t0ns, &where);
	free(def);
	char *text = NULL;
	size_t cap = 0;
	int rc = 0;
	const char *names[128], *values[128];
	header h;
	for (const char *p = d; !rc && sv_ps_next_header(&p, end, &h);) {
		/* the texts: comm, event, fields, NUL-separated in one buffer */
		size_t need = h.comm.n + h.event.n + 2 * h.payload.n + 16;
		if (need > cap) {
			char *t = realloc(text, need);
			if (!t) {
				rc = SV_ENOMEM;
				break;
			}
			text = t, cap = need;
		}
		size_t o = 0;
		const char *comm = text + o;
		memcpy(text + o, h.comm.p, h.comm.n), o += h.comm.n, text[o++] = '\0';
		const char *event = text + o;
		memcpy(text + o, h.event.p, h.event.n), o += h.event.n, text[o++] = '\0';
		size_t nf = sv_perf_text_fields(h.payload.p, h.payload.n, text + o, names, values, 128);
		double ms = h.has_time ? (double)((h.time_s - t0s) * 1000000000LL + (h.time_ns - t0ns)) / 1e6 : 0;
		sv_trace_event e = { .ms = t0 ? ms : 0, .name = event, .pid = h.has_pid ? h.pid : -1, .tid = h.tid,
				     .cpu = (int)h.cpu, .process = comm, .data_len = h.payload.n,
				     .has_stack = p < end && *p == '\t', .nfields = nf, .field_names = names,
				     .field_values = values };
		rc = l->event(l->payload, &e);
	}
	free(text);
	return rc;
}

const sv_format sv_fmt_perf_script = {
	.name = "perf-script", .patterns = ps_patterns, .probe = ps_probe, .import = ps_import, .streams = true,
	.list_events = ps_list_events,
	.defaults = &sv_perf_defaults,
};
