/* SPDX-License-Identifier: MIT */
/* A source as the sink importers push into (stackview/source.h's sv_sink): each builder
 * operation on the in-memory source. */
#include "stackview/source.h"
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv/idmap.h"
#include "strtab_int.h"
#include "sv/array.h"
#include "source_int.h"

/* ---- sink implementation ---- */

static int sink_frame(void *self, sv_frame_id *out, const char *name, size_t len)
{
	return sv_source_intern_frame(self, out, name, len);
}

static int sink_stack(void *self, sv_stack_id *out, sv_stack_id caller, sv_frame_id frame)
{
	return sv_source_intern_stack(self, out, caller, frame);
}

static int sink_sample(void *self, sv_stack_id stack, double time, double metric, double count)
{
	return sv_source_add_sample(self, stack, time, metric, count);
}

static int sink_scaling(void *self, sv_scaling scaling)
{
	sv_source_set_scaling(self, scaling);
	return 0;
}

static int sink_params(void *self, const sv_params *params)
{
	return sv_source_set_params(self, params);
}

static int sink_notes(void *self, const char *notes)
{
	return sv_source_set_notes(self, notes);
}

static int sink_event(void *self, const char *name, size_t samples, bool selected)
{
	return sv_source_add_event(self, name, samples, selected);
}

static void sink_quantum(void *self, double quantum)
{
	sv_source_set_metric_quantum(self, quantum);
}

static int sink_unit(void *self, const char *unit)
{
	sv_source_set_unit(self, unit);
	return 0;
}

static int sink_intervals(void *self)
{
	sv_source_set_intervals(self, true);
	return 0;
}

static int sink_rename(void *self, const sv_frame_id *ids, const char *const *names, size_t n)
{
	return sv_source_rename_frames(self, ids, names, n);
}

static int sink_note(void *self, int kind, const char *text)
{
	return sv_source_add_note(self, kind, text);
}

static int sink_user_module(void *self, const char *name, size_t len)
{
	return sv_source_add_user_module(self, name, len);
}

static int sink_stack_step(void *self, sv_stack_id stack, sv_frame_id *frame, sv_stack_id *caller)
{
	const sv_source *src = self;
	if (stack >= src->nstacks)
		return SV_EINVAL;
	*frame = sv_source_stack_frame(src, stack);
	*caller = sv_source_stack_caller(src, stack);
	return 0;
}

static const char *sink_frame_name(void *self, sv_frame_id frame)
{
	return sv_source_frame_name(self, frame);
}

static int sink_code_file(void *self, uint32_t *out, const char *path)
{
	return sv_source_intern_code_file(self, out, path);
}

static int sink_location(void *self, uint32_t *out, sv_frame_id frame, uint32_t file, uint64_t addr)
{
	return sv_source_intern_location(self, out, frame, file, addr);
}

static int sink_code_path(void *self, uint32_t *out, uint32_t caller, uint32_t loc)
{
	return sv_source_intern_code_path(self, out, caller, loc);
}

static int sink_location_line(void *self, uint32_t loc, const char *source_file, uint32_t line)
{
	return sv_source_set_location_line(self, loc, source_file, line);
}

static int sink_sample_at(void *self, sv_stack_id stack, double time, double metric, double count, uint32_t path)
{
	return sv_source_add_sample_at(self, stack, time, metric, count, path);
}

static int sink_code_symbols(void *self, uint32_t file, const char *path)
{
	return sv_source_set_code_symbols(self, file, path);
}

static int sink_reserve(void *self, size_t n)
{
	return sv_source_reserve_samples(self, n);
}

static int sink_reserve_stacks(void *self, size_t n)
{
	return sv_source_reserve_stacks(self, n);
}

static const sv_sink_ops source_sink_ops = {
	.intern_frame = sink_frame,
	.intern_stack = sink_stack,
	.add_sample = sink_sample,
	.set_scaling = sink_scaling,
	.set_params = sink_params,
	.set_notes = sink_notes,
	.add_event = sink_event,
	.set_unit = sink_unit,
	.rename_frames = sink_rename,
	.add_note = sink_note,
	.add_user_module = sink_user_module,
	.stack_step = sink_stack_step,
	.set_intervals = sink_intervals,
	.reserve_samples = sink_reserve,
	.reserve_stacks = sink_reserve_stacks,
	.frame_name = sink_frame_name,
	.intern_code_file = sink_code_file,
	.intern_location = sink_location,
	.intern_code_path = sink_code_path,
	.set_location_line = sink_location_line,
	.add_sample_at = sink_sample_at,
	.set_code_symbols = sink_code_symbols,
	.set_metric_quantum = sink_quantum,
};

int sv_sink_note(const sv_sink *sink, int kind, const char *fmt, ...)
{
	if (!sink->ops->add_note)
		return 0;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sink->ops->add_note(sink->self, kind, msg);
}

sv_sink sv_source_sink(sv_source *src)
{
	sv_sink s = { &source_sink_ops, src };
	return s;
}

sv_source *sv_sink_source(const sv_sink *sink)
{
	return sink->ops == &source_sink_ops ? sink->self : NULL;
}
