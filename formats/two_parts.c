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

size_t sv_two_split(const char *d, size_t n, bool after_blank)
{
	for (size_t i = n / 2; i + 2 < n && i < n / 2 + (16u << 20); i++) {
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

sv_input sv_two_rest(const sv_input *in, size_t at)
{
	sv_input r = *in;
	r.data += at;
	r.len -= at;
	r.progress = NULL;
	r.mapped = false;
	return r;
}

/* The first part's progress, scaled to the whole input. */
typedef struct two_progress {
	sv_progress self;
	sv_progress *to;
	unsigned long long split, total;
} two_progress;

static int scaled(void *payload, unsigned long long done, unsigned long long total)
{
	(void)total;
	two_progress *w = payload;
	unsigned long long d = w->split ? (unsigned long long)((double)done * (double)w->total / (double)w->split) : done;
	return w->to->fn(w->to->payload, d < w->total ? d : w->total, w->total);
}

int sv_two_run(sv_lines *lr, size_t split, void *(*part)(void *), void *part_arg, atomic_bool *cancel,
	       int (*first)(void *, sv_lines *), void *first_arg, bool *started)
{
	const sv_input *in = lr->in;
	sv_input window = *in;
	two_progress watch;
	if (in->progress) {
		watch = (two_progress){ { scaled, &watch, in->progress->step, 0 }, in->progress, split, in->len };
		window.progress = &watch.self;
	}
	pthread_t th;
	*started = pthread_create(&th, NULL, part, part_arg) == 0;
	const char *end = lr->end;
	lr->end = (const char *)in->data + split;
	lr->in = &window;
	int rc = first(first_arg, lr);
	lr->end = end;
	lr->in = in;
	if (rc)
		atomic_store(cancel, true);
	if (*started)
		pthread_join(th, NULL);
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

int sv_two_join(sv_sink *sink, const sv_source *part, long line, sv_two_maps *maps)
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
	sv_samples smp = sv_source_samples(part);
	for (size_t i = 0; i < smp.n && !rc; i++)
		rc = sink->ops->add_sample(sink->self, smp.stack[i] == SV_STACK_NONE ? SV_STACK_NONE : m->stack[smp.stack[i]],
					   smp.time[i], sv_sample_metric(&smp, i), sv_sample_count(&smp, i));
	if (!rc)
		rc = sv_sink_note(sink, SV_NOTE_INFO, "read by two threads at once, the second from line %ld on", line);
	sv_two_maps_free(&own);
	return rc;
}
