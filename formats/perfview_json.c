/* SPDX-License-Identifier: MIT */
/* PerfView .perfView.json, reader and writer (spec/semantics.md §10.4 with D9): an object
 * "StackSource" with an array "Samples"; each sample has optional Time and Metric (numbers
 * or numeric strings) and one array of frame names, leaf first. Parsed with json-c. */
#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"
#include "stackview/formats.h"

#define JSON_MAX_DEPTH 64

static long line_of(const sv_input *in, size_t off)
{
	long line = 1;
	for (size_t i = 0; i < off && i < in->len; i++)
		if (in->data[i] == '\n')
			line++;
	return line;
}

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

/* Parse a whole input as one JSON document (depth-limited, nothing after it). */
int sv_json_parse_input(struct json_object **out, const sv_input *in, sv_error *err)
{
	int rc = 0;
	json_tokener *tok = json_tokener_new_ex(JSON_MAX_DEPTH);
	json_object *root = NULL;
	*out = NULL;
	if (!tok)
		return sv_error_set(err, SV_ENOMEM, NULL);
	if (in->len > INT32_MAX) {
		json_tokener_free(tok);
		sv_error_set(err, SV_ELIMIT, "JSON input larger than 2 GiB");
		sv_error_locate(err, in->name, 0, -1);
		return SV_ELIMIT;
	}
	/* Fed in slices so a watcher sees progress (json-c keeps its state between them). */
	size_t base = 0, slice = in->progress ? (4u << 20) : in->len;
	enum json_tokener_error jerr = json_tokener_continue;
	while (!root && jerr == json_tokener_continue && base < in->len) {
		size_t n = in->len - base < slice ? in->len - base : slice;
		root = json_tokener_parse_ex(tok, (const char *)in->data + base, (int)n);
		jerr = json_tokener_get_error(tok);
		if (!root && jerr == json_tokener_continue) {
			base += n;
			if ((rc = sv_input_progress(in, base, err)))
				goto out;
		}
	}
	if (!root && jerr == json_tokener_success) { /* json-c says nothing went wrong: memory did */
		rc = sv_error_set(err, SV_ENOMEM, "out of memory while parsing JSON");
		sv_error_locate(err, in->name, 0, -1);
		goto out;
	}
	if (!root || jerr != json_tokener_success) {
		size_t off = base + json_tokener_get_parse_end(tok);
		sv_error_set(err, SV_EFORMAT, "malformed JSON: %s",
			     jerr == json_tokener_continue ? "unexpected end of input" : json_tokener_error_desc(jerr));
		sv_error_locate(err, in->name, line_of(in, off), -1);
		rc = SV_EFORMAT;
		goto out;
	}
	/* Trailing garbage after the document. */
	size_t end = base + json_tokener_get_parse_end(tok);
	for (size_t i = end; i < in->len; i++)
		if (!isspace(in->data[i])) {
			sv_error_set(err, SV_EFORMAT, "malformed JSON: unexpected text after the document");
			sv_error_locate(err, in->name, line_of(in, i), -1);
			rc = SV_EFORMAT;
			goto out;
		}
	*out = root;
	root = NULL;
out:
	json_object_put(root);
	json_tokener_free(tok);
	return rc;
}

static int json_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	(void)opts;
	json_object *root = NULL;
	int rc = sv_json_parse_input(&root, in, err);
	if (rc)
		return rc;
	json_object *ss, *samples;
	if (!json_object_is_type(root, json_type_object) || !json_object_object_get_ex(root, "StackSource", &ss) ||
	    !json_object_is_type(ss, json_type_object)) {
		sv_error_set(err, SV_EFORMAT, "no \"StackSource\" object at the top level");
		sv_error_locate(err, in->name, 1, -1);
		rc = SV_EFORMAT;
		goto out;
	}
	if (!json_object_object_get_ex(ss, "Samples", &samples) || !json_object_is_type(samples, json_type_array)) {
		sv_error_set(err, SV_EFORMAT, "\"StackSource\" has no \"Samples\" array");
		sv_error_locate(err, in->name, 1, -1);
		rc = SV_EFORMAT;
		goto out;
	}
	json_object *policy;
	if (json_object_object_get_ex(ss, "ScalingPolicy", &policy) && json_object_is_type(policy, json_type_string)) {
		if (!strcmp(json_object_get_string(policy), "TimeMetric"))
			sink->ops->set_scaling(sink->self, SV_SCALING_TIME);
		else if (!strcmp(json_object_get_string(policy), "ScaleToData"))
			sink->ops->set_scaling(sink->self, SV_SCALING_DATA);
	}
	size_t n = json_object_array_length(samples);
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(samples, i);
		if (!json_object_is_type(s, json_type_object)) {
			rc = jfail(err, in, SV_EFORMAT, "not an object", i);
			goto out;
		}
		json_object *jt = NULL, *jm = NULL, *stack = NULL;
		json_object_object_get_ex(s, "Time", &jt);
		json_object_object_get_ex(s, "Metric", &jm);
		double t, m;
		if (!json_num(jt, 0, &t)) {
			rc = jfail(err, in, SV_EFORMAT, "Time is not a number", i);
			goto out;
		}
		if (!json_num(jm, 1, &m)) {
			rc = jfail(err, in, SV_EFORMAT, "Metric is not a number", i);
			goto out;
		}
		/* The stack is the (first) array-valued member, conventionally "Stack". */
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
		if (depth > SV_MAX_STACK_DEPTH) {
			rc = jfail(err, in, SV_ELIMIT, "stack too deep", i);
			goto out;
		}
		for (size_t k = depth; k-- > 0;) { /* leaf first in the file */
			json_object *f = json_object_array_get_idx(stack, k);
			if (!json_object_is_type(f, json_type_string)) {
				rc = jfail(err, in, SV_EFORMAT, "a frame is not a string", i);
				goto out;
			}
			sv_frame_id fid;
			rc = sink->ops->intern_frame(sink->self, &fid, json_object_get_string(f),
						    (size_t)json_object_get_string_len(f));
			if (!rc)
				rc = sink->ops->intern_stack(sink->self, &st, st, fid);
			if (rc) {
				jfail(err, in, rc, rc == SV_ELIMIT ? "frame name too long" : sv_status_str(rc), i);
				goto out;
			}
		}
		if ((rc = sink->ops->add_sample(sink->self, st, t, m, 1.0))) {
			jfail(err, in, rc, sv_status_str(rc), i);
			goto out;
		}
	}
out:
	json_object_put(root);
	return rc;
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
	const double *tim = sv_source_sample_times(src), *met = sv_source_sample_metrics(src);
	fputs("{ \"StackSource\": { \"Samples\": [\n", f);
	for (size_t i = 0; i < ns && !ferror(f); i++) { /* a failed write (or a held signal) stops */
		fputs(i ? ",\n  { \"Time\": " : "  { \"Time\": ", f);
		sv_json_write_number(f, tim[i]);
		fputs(", \"Metric\": ", f);
		sv_json_write_number(f, met[i]);
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
