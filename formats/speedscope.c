/* SPDX-License-Identifier: MIT */
/* speedscope, reader and writer (spec/formats.md). Reading: the shared frame table, then
 * "sampled" profiles (stacks of frame indices, root first, with weights) and "evented"
 * profiles (open/close events; each interval during which a stack is open becomes a sample
 * of that length). Every profile whose unit is the active profile's is imported; with more
 * than one, each profile's samples sit under a root frame `Profile <name>`. Time units make
 * a time-metric source in ms; "bytes" and "none" a scale-to-data one. Parsed with json-c.
 * Writing: one sampled profile. */
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"
#include "stackview/formats.h"
#include "sv/array.h"

typedef struct ss_ctx {
	sv_sink *sink;
	const sv_input *in;
	sv_error *err;
	sv_frame_id *frames; /* shared.frames index -> frame */
	size_t nframes;
	sv_stack_id *path;   /* evented: open frames' stacks */
	uint32_t *open;      /* evented: open frame indices */
	size_t depth, path_cap, open_cap;
} ss_ctx;

static int ss_fail(ss_ctx *c, const char *fmt, ...) SV_PRINTF(2, 3);
static int ss_fail(ss_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sv_error_vset(c->err, SV_EFORMAT, fmt, ap);
	va_end(ap);
	sv_error_locate(c->err, c->in->name, 0, -1);
	return SV_EFORMAT;
}

static json_object *member(json_object *o, const char *key, json_type type)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

static bool number(json_object *o, double *out)
{
	if (!o || !(json_object_is_type(o, json_type_int) || json_object_is_type(o, json_type_double)))
		return false;
	*out = json_object_get_double(o);
	return isfinite(*out);
}

/* ms per unit, or 0 for units that are not time. -1: unknown. */
static double unit_ms(const char *u)
{
	static const struct {
		const char *name;
		double ms;
	} units[] = { { "nanoseconds", 1e-6 }, { "microseconds", 1e-3 }, { "milliseconds", 1 },
		      { "seconds", 1e3 },      { "bytes", 0 },         { "none", 0 } };
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(u, units[i].name) == 0)
			return units[i].ms;
	return -1;
}

static const char *profile_unit(json_object *p)
{
	json_object *u = member(p, "unit", json_type_string);
	return u ? json_object_get_string(u) : "none";
}

static int frame_of(ss_ctx *c, sv_frame_id *out, json_object *idx, size_t pi, const char *where, size_t k)
{
	if (!json_object_is_type(idx, json_type_int))
		return ss_fail(c, "profile %zu, %s %zu: a frame index is not an integer", pi, where, k);
	int64_t i = json_object_get_int64(idx);
	if (i < 0 || (uint64_t)i >= c->nframes)
		return ss_fail(c, "profile %zu, %s %zu: frame index %lld is not in shared.frames (%zu frames)", pi, where, k,
			       (long long)i, c->nframes);
	*out = c->frames[i];
	return 0;
}

static int sampled(ss_ctx *c, json_object *p, size_t pi, sv_stack_id base, double scale)
{
	json_object *samples = member(p, "samples", json_type_array);
	json_object *weights = member(p, "weights", json_type_array);
	if (!samples)
		return ss_fail(c, "profile %zu: a sampled profile without a \"samples\" array", pi);
	size_t n = json_object_array_length(samples);
	if (weights && json_object_array_length(weights) != n)
		return ss_fail(c, "profile %zu: %zu samples but %zu weights", pi, n, json_object_array_length(weights));
	double start = 0, t;
	if (number(json_object_object_get(p, "startValue"), &t))
		start = t;
	double at = start;
	const sv_sink_ops *ops = c->sink->ops;
	for (size_t i = 0; i < n; i++) {
		json_object *st = json_object_array_get_idx(samples, i);
		if (!json_object_is_type(st, json_type_array))
			return ss_fail(c, "profile %zu, sample %zu: not an array of frame indices", pi, i);
		double w = 1;
		if (weights && !number(json_object_array_get_idx(weights, i), &w))
			return ss_fail(c, "profile %zu, weight %zu: not a number", pi, i);
		size_t d = json_object_array_length(st);
		if (d > SV_MAX_STACK_DEPTH)
			return ss_fail(c, "profile %zu, sample %zu: stack deeper than %u frames", pi, i, SV_MAX_STACK_DEPTH);
		sv_stack_id s = base;
		for (size_t k = 0; k < d; k++) {
			sv_frame_id f;
			int rc = frame_of(c, &f, json_object_array_get_idx(st, k), pi, "sample", i);
			if (rc || (rc = ops->intern_stack(c->sink->self, &s, s, f)))
				return rc;
		}
		/* Samples follow each other: a time-unit sample starts where the previous ended. */
		double time = scale > 0 ? (at - start) * scale : 0;
		int rc = ops->add_sample(c->sink->self, s, time, scale > 0 ? w * scale : w, 1);
		if (rc)
			return rc;
		at += w;
	}
	return 0;
}

static int evented(ss_ctx *c, json_object *p, size_t pi, sv_stack_id base, double scale)
{
	json_object *events = member(p, "events", json_type_array);
	if (!events)
		return ss_fail(c, "profile %zu: an evented profile without an \"events\" array", pi);
	double start = 0, t;
	if (number(json_object_object_get(p, "startValue"), &t))
		start = t;
	size_t n = json_object_array_length(events);
	double last = start;
	c->depth = 0;
	const sv_sink_ops *ops = c->sink->ops;
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(events, i);
		json_object *type = e ? member(e, "type", json_type_string) : NULL;
		double at;
		if (!type || !number(json_object_object_get(e, "at"), &at))
			return ss_fail(c, "profile %zu, event %zu: needs \"type\" and a numeric \"at\"", pi, i);
		if (at < last)
			return ss_fail(c, "profile %zu, event %zu: \"at\" goes back in time", pi, i);
		json_object *fr = json_object_object_get(e, "frame");
		sv_frame_id f;
		int rc = fr ? frame_of(c, &f, fr, pi, "event", i) : ss_fail(c, "profile %zu, event %zu: no frame", pi, i);
		if (rc)
			return rc;
		/* The interval since the last event belongs to the stack open during it. */
		if (at > last && c->depth) {
			double time = scale > 0 ? (last - start) * scale : 0;
			double m = scale > 0 ? (at - last) * scale : at - last;
			if ((rc = ops->add_sample(c->sink->self, c->path[c->depth - 1], time, m, 1)))
				return rc;
		}
		last = at;
		const char *ty = json_object_get_string(type);
		int64_t fi = json_object_get_int64(fr);
		if (strcmp(ty, "O") == 0) {
			if (c->depth == SV_MAX_STACK_DEPTH)
				return ss_fail(c, "profile %zu, event %zu: stack deeper than %u frames", pi, i, SV_MAX_STACK_DEPTH);
			if (SV_ARRAY_RESERVE(c->path, c->path_cap, c->depth + 1) ||
			    SV_ARRAY_RESERVE(c->open, c->open_cap, c->depth + 1))
				return SV_ENOMEM;
			sv_stack_id caller = c->depth ? c->path[c->depth - 1] : base;
			if ((rc = ops->intern_stack(c->sink->self, &c->path[c->depth], caller, f)))
				return rc;
			c->open[c->depth++] = (uint32_t)fi;
		} else if (strcmp(ty, "C") == 0) {
			if (!c->depth || c->open[c->depth - 1] != (uint32_t)fi)
				return ss_fail(c, "profile %zu, event %zu: closes frame %lld, which is not the innermost open frame",
					       pi, i, (long long)fi);
			c->depth--;
		} else {
			return ss_fail(c, "profile %zu, event %zu: unknown type \"%s\"", pi, i, ty);
		}
	}
	if (c->depth)
		return ss_fail(c, "profile %zu: %zu frames still open at the end", pi, c->depth);
	return 0;
}

static int ss_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	(void)opts;
	ss_ctx c = { .sink = sink, .in = in, .err = err };
	json_object *root = NULL;
	int rc = sv_json_parse_input(&root, in, err);
	if (rc)
		return rc;
	json_object *shared = json_object_is_type(root, json_type_object) ? member(root, "shared", json_type_object) : NULL;
	json_object *frames = shared ? member(shared, "frames", json_type_array) : NULL;
	json_object *profiles = json_object_is_type(root, json_type_object) ? member(root, "profiles", json_type_array) : NULL;
	if (!frames || !profiles) {
		rc = ss_fail(&c, "not a speedscope file: no \"shared.frames\" and \"profiles\" arrays");
		goto out;
	}
	c.nframes = json_object_array_length(frames);
	c.frames = malloc((c.nframes ? c.nframes : 1) * sizeof(*c.frames));
	if (!c.frames) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	for (size_t i = 0; i < c.nframes; i++) {
		json_object *f = json_object_array_get_idx(frames, i);
		json_object *name = f ? member(f, "name", json_type_string) : NULL;
		if (!name) {
			rc = ss_fail(&c, "shared.frames[%zu] has no \"name\" string", i);
			goto out;
		}
		const char *s = json_object_get_string(name);
		size_t len = (size_t)json_object_get_string_len(name);
		if (len > SV_MAX_NAME_LEN) {
			rc = ss_fail(&c, "shared.frames[%zu]: frame name too long", i);
			goto out;
		}
		if ((rc = sink->ops->intern_frame(sink->self, &c.frames[i], len ? s : "(anonymous)", len ? len : 11)))
			goto out;
	}
	size_t np = json_object_array_length(profiles);
	size_t active = 0;
	json_object *ai = json_object_object_get(root, "activeProfileIndex");
	if (ai && json_object_is_type(ai, json_type_int) && json_object_get_int64(ai) >= 0 &&
	    (uint64_t)json_object_get_int64(ai) < np)
		active = (size_t)json_object_get_int64(ai);
	if (np == 0) {
		rc = ss_fail(&c, "no profiles");
		goto out;
	}
	json_object *ap = json_object_array_get_idx(profiles, active);
	if (!json_object_is_type(ap, json_type_object)) {
		rc = ss_fail(&c, "profile %zu is not an object", active);
		goto out;
	}
	const char *unit = profile_unit(ap);
	double scale = unit_ms(unit);
	if (scale < 0) {
		rc = ss_fail(&c, "profile %zu: unknown unit \"%s\"", active, unit);
		goto out;
	}
	size_t used = 0, skipped = 0;
	for (size_t i = 0; i < np; i++) {
		json_object *p = json_object_array_get_idx(profiles, i);
		if (json_object_is_type(p, json_type_object) && strcmp(profile_unit(p), unit) == 0)
			used++;
	}
	for (size_t i = 0; i < np && !rc; i++) {
		json_object *p = json_object_array_get_idx(profiles, i);
		if (!json_object_is_type(p, json_type_object) || strcmp(profile_unit(p), unit) != 0) {
			skipped++;
			continue;
		}
		json_object *type = member(p, "type", json_type_string);
		sv_stack_id base = SV_STACK_NONE;
		if (used > 1) { /* several profiles: each under its own root frame */
			json_object *pn = member(p, "name", json_type_string);
			char name[512];
			snprintf(name, sizeof(name), "Profile %s", pn ? json_object_get_string(pn) : "");
			sv_frame_id f;
			if ((rc = sink->ops->intern_frame(sink->self, &f, name, strlen(name))) ||
			    (rc = sink->ops->intern_stack(sink->self, &base, SV_STACK_NONE, f)))
				break;
		}
		if (type && strcmp(json_object_get_string(type), "sampled") == 0)
			rc = sampled(&c, p, i, base, scale);
		else if (type && strcmp(json_object_get_string(type), "evented") == 0)
			rc = evented(&c, p, i, base, scale);
		else
			rc = ss_fail(&c, "profile %zu: type is neither \"sampled\" nor \"evented\"", i);
	}
	if (!rc && sink->ops->set_scaling)
		rc = sink->ops->set_scaling(sink->self, scale > 0 ? SV_SCALING_TIME : SV_SCALING_DATA);
	if (!rc && skipped && sink->ops->add_note) {
		char msg[200];
		snprintf(msg, sizeof(msg), "%zu of %zu profiles skipped: their unit is not \"%s\" (the active profile's)", skipped,
			 np, unit);
		rc = sink->ops->add_note(sink->self, SV_NOTE_INFO, msg);
	}
	if (rc == SV_ENOMEM)
		sv_error_set(err, SV_ENOMEM, NULL);
out:
	free(c.frames);
	free(c.path);
	free(c.open);
	json_object_put(root);
	return rc;
}

/* A JSON object naming speedscope's schema, or with "shared" and "profiles" near the top. */
static bool ss_probe(const unsigned char *d, size_t n)
{
	size_t i = 0;
	while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'))
		i++;
	if (i >= n || d[i] != '{')
		return false;
	size_t window = n - i < 4096 ? n - i : 4096;
	const char *w = (const char *)d + i;
	bool schema = false, shared = false, profiles = false;
	for (size_t k = 0; k + 10 <= window; k++) {
		if (!schema && k + 40 <= window && memcmp(w + k, "speedscope.app/file-format-schema.json", 38) == 0)
			schema = true;
		if (memcmp(w + k, "\"shared\"", 8) == 0)
			shared = true;
		if (memcmp(w + k, "\"profiles\"", 10) == 0)
			profiles = true;
	}
	return schema || (shared && profiles);
}

static const char *const speedscope_patterns[] = { ".speedscope.json", NULL };

const sv_format sv_fmt_speedscope = {
	.name = "speedscope", .patterns = speedscope_patterns, .probe = ss_probe, .import = ss_import,
	.export = sv_fmt_speedscope_export,
};

/* ---- speedscope (sampled profile) ---- */

int sv_fmt_speedscope_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err)
{
	(void)opts;
	uint32_t nf = sv_source_frame_count(src);
	size_t ns = sv_source_sample_count(src);
	/* Only frames some stack uses go into the table; indexes are assigned in frame-id order. */
	uint32_t *index = malloc(((size_t)nf + 1) * sizeof(*index));
	sv_stack_id *path = NULL;
	size_t path_cap = 0;
	int rc = 0;
	if (!index)
		return sv_error_set(err, SV_ENOMEM, NULL);
	memset(index, 0xff, ((size_t)nf + 1) * sizeof(*index));
	for (uint32_t s = 0; s < sv_source_stack_count(src); s++)
		index[sv_source_stack_frame(src, s)] = 0;
	uint32_t next = 0;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"stackview "
	      SV_VERSION "\",\"name\":", f);
	sv_json_write_string(f, sv_source_format(src));
	fputs(",\"activeProfileIndex\":0,\"shared\":{\"frames\":[", f);
	for (uint32_t i = 0; i < nf; i++) {
		if (index[i] == UINT32_MAX)
			continue;
		index[i] = next;
		fputs(next++ ? ",{\"name\":" : "{\"name\":", f);
		sv_json_write_string(f, sv_source_frame_short(src, i));
		fputc('}', f);
	}
	double total = 0;
	const double *met = sv_source_sample_metrics(src);
	for (size_t i = 0; i < ns; i++)
		total += met[i];
	bool ms = sv_source_scaling(src) == SV_SCALING_TIME;
	fprintf(f, "]},\"profiles\":[{\"type\":\"sampled\",\"name\":");
	sv_json_write_string(f, sv_source_format(src));
	fprintf(f, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":", ms ? "milliseconds" : "none");
	sv_json_write_number(f, total);
	fputs(",\"samples\":[", f);
	const sv_stack_id *stk = sv_source_sample_stacks(src);
	for (size_t i = 0; i < ns && !rc && !ferror(f); i++) { /* a failed write (or a held signal) stops */
		size_t depth = 0;
		for (sv_stack_id x = stk[i]; x != SV_STACK_NONE; x = sv_source_stack_caller(src, x)) {
			if (SV_ARRAY_RESERVE(path, path_cap, depth + 1)) {
				rc = sv_error_set(err, SV_ENOMEM, NULL);
				break;
			}
			path[depth++] = x;
		}
		fputs(i ? ",[" : "[", f);
		for (size_t k = depth; k-- > 0;)
			fprintf(f, k + 1 == depth ? "%u" : ",%u", index[sv_source_stack_frame(src, path[k])]);
		fputc(']', f);
	}
	fputs("],\"weights\":[", f);
	for (size_t i = 0; i < ns && !ferror(f); i++) {
		if (i)
			fputc(',', f);
		sv_json_write_number(f, met[i]);
	}
	fputs("]}]}\n", f);
	free(index);
	free(path);
	return rc ? rc : sv_write_check(f, err);
}
