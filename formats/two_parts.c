/* SPDX-License-Identifier: MIT */
/* Two parts of a text input read at once (see two_parts.h). */
#include "two_parts.h"

#include <math.h>
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

static int scaled(void *payload, unsigned long long done, unsigned long long total)
{
	(void)total;
	sv_two_progress *w = payload;
	unsigned long long d = w->split ? (unsigned long long)((double)done * (double)w->total / (double)w->split) : done;
	return w->to->fn(w->to->payload, d < w->total ? d : w->total, w->total);
}

void sv_two_watch_first(sv_input *first, sv_two_progress *w, const sv_input *in, size_t split)
{
	*first = *in;
	if (!in->progress)
		return;
	*w = (sv_two_progress){ { scaled, w, in->progress->step, 0 }, in->progress, split, in->len };
	first->progress = &w->self;
}

bool sv_two_fits(const sv_source *dst, const sv_source *part)
{
	sv_samples s = sv_source_samples(part);
	if (sv_source_sample_count(dst) + s.n > SV_MAX_SAMPLES)
		return false;
	double abs = 0, count = 0;
	for (size_t i = 0; i < s.n; i++) {
		abs += fabs(sv_sample_metric(&s, i));
		count += fabs(sv_sample_count(&s, i));
	}
	return sv_source_abs_metric(dst) + abs < 1e300 && fabs(sv_source_total_count(dst)) + count < 1e300;
}

int sv_two_join(sv_sink *sink, const sv_source *part, sv_frame_id **fmap, sv_stack_id **smap, bool **fnew)
{
	const sv_source *dst = sv_sink_source(sink);
	uint32_t nf = sv_source_frame_count(part), nst = sv_source_stack_count(part);
	*fmap = malloc(((size_t)nf + 1) * sizeof(**fmap));
	*smap = malloc(((size_t)nst + 1) * sizeof(**smap));
	*fnew = calloc((size_t)nf + 1, 1);
	if (!*fmap || !*smap || !*fnew)
		return SV_ENOMEM;
	int rc = 0;
	for (uint32_t f = 0; f < nf && !rc; f++) {
		const char *name = sv_source_frame_name(part, f);
		uint32_t before = sv_source_frame_count(dst);
		rc = sink->ops->intern_frame(sink->self, &(*fmap)[f], name, strlen(name));
		(*fnew)[f] = sv_source_frame_count(dst) != before;
	}
	for (uint32_t s = 0; s < nst && !rc; s++) {
		sv_stack_id caller = sv_source_stack_caller(part, s);
		rc = sink->ops->intern_stack(sink->self, &(*smap)[s], caller == SV_STACK_NONE ? SV_STACK_NONE : (*smap)[caller],
					     (*fmap)[sv_source_stack_frame(part, s)]);
	}
	sv_samples smp = sv_source_samples(part);
	for (size_t i = 0; i < smp.n && !rc; i++)
		rc = sink->ops->add_sample(sink->self, smp.stack[i] == SV_STACK_NONE ? SV_STACK_NONE : (*smap)[smp.stack[i]],
					   smp.time[i], sv_sample_metric(&smp, i), sv_sample_count(&smp, i));
	return rc;
}
