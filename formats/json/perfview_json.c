/* SPDX-License-Identifier: MIT */
/* PerfView .perfView.json, reader and writer (spec/semantics.md §10.4 with D9): an object
 * "StackSource" with an array "Samples"; each sample has optional Time and Metric (numbers
 * or numeric strings) and one array of frame names, leaf first. Walked in place
 * (json_stream.h), each sample parsed with json-c. */
#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/export_int.h"
#include "core/json_stream.h"
#include "stackview/formats.h"

static int jfail(sv_error *err, const sv_input *in, int code, const char *what, size_t idx)
{
	sv_error_set(err, code, "sample %zu: %s", idx, what);
	sv_error_locate(err, in->name, 0, -1);
	return code;
}

/* Number or numeric string; absent -> dflt. */
static bool json_num(json_object *o, double dflt, double *out)
{
	if (!o) {
		*out = dflt;
		return true;
	}
	switch (json_object_get_type(o)) {
	case json_type_int:
	case json_type_double:
		*out = json_object_get_double(o);
		return isfinite(*out);
	case json_type_string: {
		const char *s = json_object_get_string(o);
		char *end;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			return false;
		errno = 0;
		*out = strtod(s, &end);
		while (isspace((unsigned char)*end))
			end++;
		return !*end && isfinite(*out);
	}
	default:
		return false;
	}
}

/* One sample object: optional Time and Metric, and its (first) array-valued member, the
 * stack, leaf first. */
static int one_sample(sv_sink *sink, const sv_input *in, json_object *s, size_t i, sv_error *err)
{
	if (!json_object_is_type(s, json_type_object))
		return jfail(err, in, SV_EFORMAT, "not an object", i);
	json_object *jt = NULL, *jm = NULL, *stack = NULL;
	json_object_object_get_ex(s, "Time", &jt);
	json_object_object_get_ex(s, "Metric", &jm);
	double t, m;
	if (!json_num(jt, 0, &t))
		return jfail(err, in, SV_EFORMAT, "Time is not a number", i);
	if (!json_num(jm, 1, &m))
		return jfail(err, in, SV_EFORMAT, "Metric is not a number", i);
	json_object_object_foreach(s, key, val)
	{
		(void)key;
		if (json_object_is_type(val, json_type_array)) {
			stack = val;
			break;
		}
	}
	sv_stack_id st = SV_STACK_NONE;
	size_t depth = stack ? json_object_array_length(stack) : 0;
	if (depth > SV_MAX_STACK_DEPTH)
		return jfail(err, in, SV_ELIMIT, "stack too deep", i);
	for (size_t k = depth; k-- > 0;) { /* leaf first in the file */
		json_object *f = json_object_array_get_idx(stack, k);
		if (!json_object_is_type(f, json_type_string))
			return jfail(err, in, SV_EFORMAT, "a frame is not a string", i);
		sv_frame_id fid;
		int rc = sink->ops->intern_frame(sink->self, &fid, json_object_get_string(f),
						 (size_t)json_object_get_string_len(f));
		if (!rc)
			rc = sink->ops->intern_stack(sink->self, &st, st, fid);
		if (rc)
			return jfail(err, in, rc, rc == SV_ELIMIT ? "frame name too long" : sv_status_str(rc), i);
	}
	int rc = sink->ops->add_sample(sink->self, st, t, m, 1.0);
	return rc ? jfail(err, in, rc, sv_status_str(rc), i) : 0;
}

/* The document is walked in place: only one sample's objects exist at a time. */
static int json_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	(void)opts;
	sv_jcur c;
	sv_jc_init(&c, in);
	char key[64];
	bool have_ss = false, have_samples = false;
	size_t n = 0;
	int rc, more;
	if (sv_jc_peek(&c) != '{') {
		if (sv_jc_peek(&c) < 0)
			return sv_jc_fail(&c, err, "unexpected end of input");
		if (sv_jc_peek(&c) == '[')
			goto no_ss;
		json_object *v = NULL; /* a scalar or garbage: the tokenizer names it */
		if ((rc = sv_jc_value(&c, &v, err)))
			return rc;
		json_object_put(v);
		goto no_ss;
	}
	if ((rc = sv_jc_enter(&c, '{', err)))
		return rc;
	while ((more = sv_jc_key(&c, key, sizeof(key), err)) == 1) {
		if (strcmp(key, "StackSource") != 0 || have_ss || sv_jc_peek(&c) != '{') {
			if ((rc = sv_jc_skip(&c, err)))
				return rc;
			continue;
		}
		have_ss = true;
		if ((rc = sv_jc_enter(&c, '{', err)))
			return rc;
		while ((more = sv_jc_key(&c, key, sizeof(key), err)) == 1) {
			if (!strcmp(key, "Samples") && !have_samples && sv_jc_peek(&c) == '[') {
				have_samples = true;
				if ((rc = sv_jc_enter(&c, '[', err)))
					return rc;
				while ((more = sv_jc_elem(&c, err)) == 1) {
					if ((n & 4095) == 0 && (rc = sv_input_progress(in, c.pos, err)))
						return rc;
					json_object *s = NULL;
					if ((rc = sv_jc_value(&c, &s, err)))
						return rc;
					rc = one_sample(sink, in, s, n++, err);
					json_object_put(s);
					if (rc)
						return rc;
				}
				if (more < 0)
					return more;
			} else if (!strcmp(key, "ScalingPolicy") && sv_jc_peek(&c) == '"') {
				json_object *v = NULL;
				if ((rc = sv_jc_value(&c, &v, err)))
					return rc;
				if (!strcmp(json_object_get_string(v), "TimeMetric"))
					sink->ops->set_scaling(sink->self, SV_SCALING_TIME);
				else if (!strcmp(json_object_get_string(v), "ScaleToData"))
					sink->ops->set_scaling(sink->self, SV_SCALING_DATA);
				json_object_put(v);
			} else if ((rc = sv_jc_skip(&c, err))) {
				return rc;
			}
		}
		if (more < 0)
			return more;
	}
	if (more < 0)
		return more;
	if ((rc = sv_jc_end(&c, err)))
		return rc;
	if (!have_ss)
		goto no_ss;
	if (!have_samples) {
		sv_error_set(err, SV_EFORMAT, "\"StackSource\" has no \"Samples\" array");
		sv_error_locate(err, in->name, 1, -1);
		return SV_EFORMAT;
	}
	return 0;
no_ss:
	sv_error_set(err, SV_EFORMAT, "no \"StackSource\" object at the top level");
	sv_error_locate(err, in->name, 1, -1);
	return SV_EFORMAT;
}

static bool json_probe(const unsigned char *d, size_t n)
{
	size_t i = 0;
	if (n >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF)
		i = 3;
	while (i < n && isspace(d[i]))
		i++;
	if (i >= n || d[i] != '{')
		return false;
	size_t window = n - i < 4096 ? n - i : 4096;
	for (size_t k = i; k + 13 <= i + window; k++)
		if (memcmp(d + k, "\"StackSource\"", 13) == 0)
			return true;
	return false;
}

static const char *const json_patterns[] = { ".perfView.json", ".perfView.json.zip", ".json", NULL };

const sv_format sv_fmt_perfview_json = {
	.name = "perfview-json", .patterns = json_patterns, .probe = json_probe, .import = json_import,
	.export = sv_fmt_perfview_json_export,
};

/* ---- writer (§10.4) ---- */

int sv_fmt_perfview_json_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err)
{
	(void)opts;
	size_t ns = sv_source_sample_count(src);
	const sv_stack_id *stk = sv_source_sample_stacks(src);
	sv_samples smp = sv_source_samples(src);
	fputs("{ \"StackSource\": { \"Samples\": [\n", f);
	for (size_t i = 0; i < ns && !ferror(f); i++) { /* a failed write (or a held signal) stops */
		fputs(i ? ",\n  { \"Time\": " : "  { \"Time\": ", f);
		sv_json_write_number(f, sv_sample_time(&smp, i));
		fputs(", \"Metric\": ", f);
		sv_json_write_number(f, sv_sample_metric(&smp, i));
		fputs(", \"Stack\": [", f);
		int k = 0;
		for (sv_stack_id s = stk[i]; s != SV_STACK_NONE; s = sv_source_stack_caller(src, s)) {
			if (k++)
				fputs(", ", f);
			sv_json_write_string(f, sv_source_frame_name(src, sv_source_stack_frame(src, s)));
		}
		fputs("] }", f);
	}
	/* PerfView's JSON has no scaling policy; ours keeps a time-metric source's beside the
	 * samples (readers that do not know it skip it). */
	fputs(sv_source_scaling(src) == SV_SCALING_TIME ? "\n], \"ScalingPolicy\": \"TimeMetric\" } }\n" : "\n] } }\n", f);
	return sv_write_check(f, err);
}
