/* SPDX-License-Identifier: MIT */
/* Two parts of a text input read at once (see two_parts.h). */
#include "two_parts.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool sv_two_wanted(unsigned threads, const sv_input *in, const sv_sink *sink)
{
	if (in->partial || !sv_sink_source(sink) || threads == 1)
		return false;
	return threads == 2 || (in->len >= SV_TWO_MIN && sysconf(_SC_NPROCESSORS_ONLN) > 1);
}

/* The start of the first line after the first '\n' from d[from] on (after a blank line when
 * after_blank), looked for in the next 16 MiB; 0 when there is none. */
static size_t line_from(const char *d, size_t n, size_t from, bool after_blank)
{
	for (size_t i = from; i + 2 < n && i < from + (16u << 20); i++) {
		if (d[i] != '\n')
			continue;
		if (!after_blank)
			return i + 1;
		size_t j = i + 1;
		if (j < n && d[j] == '\r')
			j++;
		if (j + 1 < n && d[j] == '\n')
			return j + 1;
	}
	return 0;
}

unsigned sv_two_chunks(const char *d, size_t n, bool after_blank, size_t at[SV_TWO_CHUNKS + 1])
{
	unsigned m = 1;
	at[0] = 0;
	for (unsigned k = 1; k < SV_TWO_CHUNKS; k++) {
		size_t from = (size_t)((double)n * k / SV_TWO_CHUNKS);
		if (from < at[m - 1])
			from = at[m - 1];
		/* (from the byte before: a line that starts right there is the one) */
		size_t b = line_from(d, n, from ? from - 1 : 0, after_blank);
		if (b > at[m - 1])
			at[m++] = b;
	}
	at[m] = n;
	return m;
}

sv_input sv_two_window(const sv_input *in, size_t from, size_t to)
{
	sv_input r = *in;
	r.data += from;
	r.len = to - from;
	r.progress = NULL;
	r.mapped = false;
	r.anon = false; /* a window: its owner lets the data go */
	return r;
}

int sv_two_part_init(sv_two_part *p, const sv_input *in, const size_t *at, unsigned k, unsigned to)
{
	if (sv_source_new(&p->src, "part"))
		return SV_ENOMEM;
	p->in = sv_two_window(in, at[k], at[to]);
	p->have_lr = !(p->rc = sv_lines_init(&p->lr, &p->in));
	return 0;
}

bool sv_two_part_at(sv_two_part *p, const sv_input *in, const size_t *at, unsigned k)
{
	if (p->rc)
		return false;
	p->lr.end = (const char *)in->data + at[k + 1];
	return true;
}

void sv_two_part_dispose(sv_two_part *p)
{
	if (p->have_lr)
		sv_lines_dispose(&p->lr);
	sv_source_free(p->src);
}

/* Who reads which chunk. This thread reads [0, a) into the sink and the second [mid, b) into
 * its run; chunks [a, a_end) and [b, b_end) are still to be claimed: from their fronts by
 * their owners, from their backs by the other thread, which reads each alone. */
typedef struct two_sched {
	pthread_mutex_t mu;
	unsigned a, a_end, b, b_end;
	unsigned mid; /* the second thread's first chunk */
	const size_t *at;
	unsigned m;
	const sv_two_reader *rd;
	atomic_bool *cancel;
	atomic_ullong done; /* bytes of the chunks read, but for those in the sink */
	void *part[SV_TWO_CHUNKS]; /* each written by the thread that reads that chunk */
} two_sched;

/* A chunk from the front of the caller's own range, else (alone) one from the back of the
 * other's: false when none is left. */
static bool claim(two_sched *s, bool first, unsigned *k, bool *alone)
{
	unsigned *f = first ? &s->a : &s->b, *fe = first ? &s->a_end : &s->b_end;
	unsigned *o = first ? &s->b : &s->a, *oe = first ? &s->b_end : &s->a_end;
	pthread_mutex_lock(&s->mu);
	bool got = true;
	if (*f < *fe)
		*k = (*f)++, *alone = false;
	else if (*o < *oe)
		*k = --*oe, *alone = true;
	else
		got = false;
	pthread_mutex_unlock(&s->mu);
	return got;
}

/* Chunk k into a part of its own (alone), or into the second thread's run. */
static void read_part(two_sched *s, unsigned k, bool alone)
{
	void **p = &s->part[alone ? k : s->mid];
	if (alone || k == s->mid)
		*p = s->rd->open(s->rd->arg, k, alone ? k + 1 : s->m);
	if (*p)
		s->rd->read(s->rd->arg, *p, k);
	atomic_fetch_add(&s->done, (unsigned long long)(s->at[k + 1] - s->at[k]));
}

/* The second thread: the middle chunk, which is always its own (so that the join is taken
 * whatever the timing, and what is tested is what runs), then on. */
static void *second(void *arg)
{
	two_sched *s = arg;
	unsigned k = s->mid;
	bool alone = false;
	do
		read_part(s, k, alone);
	while (!atomic_load(s->cancel) && claim(s, false, &k, &alone));
	return NULL;
}

/* This thread's progress, with the bytes read elsewhere. */
typedef struct two_progress {
	sv_progress self;
	sv_progress *to;
	two_sched *s;
	unsigned long long total;
} two_progress;

static int scaled(void *payload, unsigned long long done, unsigned long long total)
{
	(void)total;
	two_progress *w = payload;
	unsigned long long d = done + atomic_load(&w->s->done);
	return w->to->fn(w->to->payload, d < w->total ? d : w->total, w->total);
}

int sv_two_run(sv_lines *lr, const size_t *at, unsigned m, const sv_two_reader *rd, atomic_bool *cancel,
	       int (*first)(void *, sv_lines *), void *first_arg, sv_two_ranges *out)
{
	const sv_input *in = lr->in;
	unsigned mid = m / 2;
	two_sched s = { .a = 1, .a_end = mid, .b = mid + 1, .b_end = m, .mid = mid, .at = at, .m = m, .rd = rd, .cancel = cancel };
	pthread_mutex_init(&s.mu, NULL);
	atomic_init(&s.done, 0);
	sv_input window = *in;
	two_progress watch;
	if (in->progress) {
		watch = (two_progress){ { scaled, &watch, in->progress->step, 0 }, in->progress, &s, in->len };
		window.progress = &watch.self;
	}
	pthread_t th;
	bool started = pthread_create(&th, NULL, second, &s) == 0;
	if (!started) { /* this thread reads every chunk */
		s.a_end = m;
		s.b = s.b_end = mid;
	}
	const char *end = lr->end;
	lr->in = &window;
	unsigned k = 0;
	bool alone = false;
	int rc = 0;
	for (;;) {
		if (!alone) {
			lr->end = (const char *)in->data + at[k + 1];
			if ((rc = first(first_arg, lr)))
				break;
		} else {
			read_part(&s, k, true);
		}
		if (!claim(&s, true, &k, &alone))
			break;
	}
	lr->end = end;
	lr->in = in;
	if (rc)
		atomic_store(cancel, true);
	if (started)
		pthread_join(th, NULL);
	pthread_mutex_destroy(&s.mu);
	*out = (sv_two_ranges){ s.a, started ? mid : s.a, s.b, { 0 } };
	memcpy(out->part, s.part, sizeof(s.part));
	return rc;
}

bool sv_two_fits(const sv_source *dst, const sv_source *part)
{
	size_t n = sv_source_sample_count(part);
	return sv_source_sample_count(dst) + n <= SV_MAX_SAMPLES &&
	       sv_source_abs_metric(dst) + sv_source_abs_metric(part) < 1e300 &&
	       fabs(sv_source_total_count(dst)) + (double)n < 1e300;
}

void sv_two_maps_free(sv_two_maps *m)
{
	free(m->frame);
	free(m->stack);
	free(m->frame_new);
	m->frame = NULL, m->stack = NULL, m->frame_new = NULL;
}

/* The part's code files, locations (and their lines) and code paths into the sink, its
 * frames already mapped, as one reader would have interned them (a location of a sample not
 * kept too): *path (malloc'd) maps the part's code paths to the sink's; NULL when the part
 * has no code or the sink keeps none. */
static int join_code(sv_sink *sink, const sv_source *part, const sv_two_maps *m, uint32_t **path)
{
	*path = NULL;
	const sv_sink_ops *o = sink->ops;
	uint32_t nfile = sv_source_code_file_count(part), nloc = sv_source_location_count(part),
		 npath = sv_source_code_path_count(part);
	if ((!nfile && !nloc) || !o->intern_code_file || !o->intern_location || !o->intern_code_path || !o->add_sample_at)
		return 0;
	uint32_t *file = malloc(((size_t)nfile + 1) * sizeof(*file)), *loc = malloc(((size_t)nloc + 1) * sizeof(*loc));
	*path = malloc(((size_t)npath + 1) * sizeof(**path));
	int rc = file && loc && *path ? 0 : SV_ENOMEM;
	for (uint32_t i = 0; i < nfile && !rc; i++)
		rc = o->intern_code_file(sink->self, &file[i], sv_source_code_file(part, i));
	for (uint32_t i = 0; i < nloc && !rc; i++) {
		sv_location l = sv_source_location(part, i);
		rc = o->intern_location(sink->self, &loc[i], m->frame[l.frame], l.file == SV_LOC_NONE ? SV_LOC_NONE : file[l.file],
					l.addr);
		const char *src;
		uint32_t line = sv_source_location_line(part, i, &src);
		if (!rc && src && o->set_location_line)
			rc = o->set_location_line(sink->self, loc[i], src, line);
	}
	const uint32_t *callers = npath ? sv_source_code_path_callers(part) : NULL, *locs = sv_source_code_path_locs(part);
	for (uint32_t i = 0; i < npath && !rc; i++) /* a path's caller comes before it */
		rc = o->intern_code_path(sink->self, &(*path)[i], callers[i] == SV_LOC_NONE ? SV_LOC_NONE : (*path)[callers[i]],
					 loc[locs[i]]);
	free(file);
	free(loc);
	if (rc) {
		free(*path);
		*path = NULL;
	}
	return rc;
}

int sv_two_join(sv_sink *sink, const sv_source *part, sv_two_maps *maps)
{
	const sv_source *dst = sv_sink_source(sink);
	uint32_t nf = sv_source_frame_count(part), nst = sv_source_stack_count(part);
	sv_two_maps own = { 0 }, *m = maps ? maps : &own;
	m->frame = malloc(((size_t)nf + 1) * sizeof(*m->frame));
	m->stack = malloc(((size_t)nst + 1) * sizeof(*m->stack));
	m->frame_new = calloc((size_t)nf + 1, 1);
	int rc = m->frame && m->stack && m->frame_new ? 0 : SV_ENOMEM;
	for (uint32_t f = 0; f < nf && !rc; f++) {
		const char *name = sv_source_frame_name(part, f);
		uint32_t before = sv_source_frame_count(dst);
		rc = sink->ops->intern_frame(sink->self, &m->frame[f], name, strlen(name));
		m->frame_new[f] = sv_source_frame_count(dst) != before;
	}
	for (uint32_t s = 0; s < nst && !rc; s++) {
		sv_stack_id caller = sv_source_stack_caller(part, s);
		rc = sink->ops->intern_stack(sink->self, &m->stack[s], caller == SV_STACK_NONE ? SV_STACK_NONE : m->stack[caller],
					     m->frame[sv_source_stack_frame(part, s)]);
	}
	uint32_t *path = NULL;
	if (!rc)
		rc = join_code(sink, part, m, &path);
	sv_samples smp = sv_source_samples(part);
	const uint32_t *spath = path ? sv_source_sample_code_paths(part) : NULL;
	for (size_t i = 0; i < smp.n && !rc; i++) {
		sv_stack_id st = smp.stack[i] == SV_STACK_NONE ? SV_STACK_NONE : m->stack[smp.stack[i]];
		if (spath && spath[i] != SV_LOC_NONE)
			rc = sink->ops->add_sample_at(sink->self, st, sv_sample_time(&smp, i), sv_sample_metric(&smp, i),
						      sv_sample_count(&smp, i), path[spath[i]]);
		else
			rc = sink->ops->add_sample(sink->self, st, sv_sample_time(&smp, i), sv_sample_metric(&smp, i),
						   sv_sample_count(&smp, i));
	}
	free(path);
	sv_two_maps_free(&own);
	return rc;
}

int sv_two_join_all(sv_sink *sink, sv_lines *lr, const size_t *at, unsigned m, const sv_two_ranges *rg,
		    int (*join)(void *arg, sv_two_part *part, bool *taken), void *arg, unsigned *k)
{
	long from = lr->line + 1;
	bool any = false;
	int rc = 0;
	for (*k = rg->front; *k < m; *k = sv_two_next(rg, *k)) {
		sv_two_part *p = rg->part[*k];
		bool taken = false;
		if (!p || p->rc || !sv_two_fits(sv_sink_source(sink), p->src) || (rc = join(arg, p, &taken)) || !taken)
			break;
		any = true;
		lr->p = (const char *)lr->in->data + at[sv_two_next(rg, *k)];
		lr->line += p->lr.line;
	}
	if (!rc && any)
		rc = sv_sink_note(sink, SV_NOTE_INFO, "read by two threads at once, the second from line %ld on", from);
	return rc;
}
