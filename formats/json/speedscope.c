/* SPDX-License-Identifier: MIT */
/* speedscope, reader and writer (spec/formats.md). Reading: the shared frame table, then
 * "sampled" profiles (stacks of frame indices, root first, with weights) and "evented"
 * profiles (open/close events; each interval during which a stack is open becomes a sample
 * of that length). Every profile whose unit is the active profile's is imported; with more
 * than one, each profile's samples sit under a root frame `Profile <name>`. Time units make
 * a time-metric source in ms; "bytes" and "none" a scale-to-data one. Walked in place
 * (json_stream.h), each element parsed with json-c.
 * Writing: one sampled profile. */
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/export_int.h"
#include "core/json_stream.h"
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

/* What the first walk over a profile keeps: its small members, and where its big arrays are
 * (walked again, in place, when the profile is imported). */
typedef struct ss_profile {
	bool is_object;
	char unit[32], type[16], name[480];
	bool has_start;
	double start;
	size_t samples, weights, events; /* offsets of the arrays, 0 = absent */
	size_t nsamples, nweights;
	int depth; /* of the arrays' values */
} ss_profile;

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

/* A cursor at an array recorded by the first walk, entered. */
static int at_array(ss_ctx *c, sv_jcur *j, size_t pos, int depth)
{
	sv_jc_init(j, c->in);
	j->pos = pos;
	j->depth = depth;
	return sv_jc_enter(j, '[', c->err);
}

/* Whole sampled stacks already interned, by their frame indices: most samples repeat a
 * stack some sample had, and finding it whole is one hash and one compare instead of a
 * lookup per level. A slot per hash, kept by the first stack that takes it; the indices are
 * kept to compare, up to SS_KEEP_MAX of them (64 MB). */
#define SS_SLOTS (1u << 16)
#define SS_KEEP_MAX ((size_t)1 << 24)

typedef struct ss_slot {
	uint64_t hash;
	size_t at;      /* its indices in keep[at, at + depth) */
	uint32_t depth; /* 0: empty */
	sv_stack_id stack;
} ss_slot;

typedef struct ss_seen {
	ss_slot *slot;
	uint32_t *keep;
	size_t nkeep, keep_cap;
} ss_seen;

static uint64_t indices_hash(const uint64_t *idx, size_t d)
{
	uint64_t h = d;
	for (size_t k = 0; k < d; k++)
		h = (h ^ idx[k]) * 0x9E3779B97F4A7C15ull;
	return h ^ (h >> 29);
}

/* The stack of these indices when a sample had them before, else SV_STACK_NONE. */
static sv_stack_id seen_find(const ss_seen *sn, uint64_t h, const uint64_t *idx, size_t d)
{
	const ss_slot *sl = &sn->slot[h & (SS_SLOTS - 1)];
	if (!sl->depth || sl->hash != h || sl->depth != d)
		return SV_STACK_NONE;
	const uint32_t *kp = sn->keep + sl->at;
	for (size_t k = 0; k < d; k++)
		if (kp[k] != idx[k])
			return SV_STACK_NONE;
	return sl->stack;
}

/* Remember these indices' stack (nothing when their slot is taken or the kept indices are
 * at their bound). */
static void seen_add(ss_seen *sn, uint64_t h, const uint64_t *idx, size_t d, sv_stack_id stack)
{
	if (sn->slot[h & (SS_SLOTS - 1)].depth || sn->nkeep + d > SS_KEEP_MAX ||
	    SV_ARRAY_RESERVE(sn->keep, sn->keep_cap, sn->nkeep + d))
		return;
	for (size_t k = 0; k < d; k++)
		sn->keep[sn->nkeep + k] = (uint32_t)idx[k];
	sn->slot[h & (SS_SLOTS - 1)] = (ss_slot){ h, sn->nkeep, (uint32_t)d, stack };
	sn->nkeep += d;
}

static int sampled(ss_ctx *c, const ss_profile *p, size_t pi, sv_stack_id base, double scale)
{
	if (!p->samples)
		return ss_fail(c, "profile %zu: a sampled profile without a \"samples\" array", pi);
	size_t n = p->nsamples;
	if (p->weights && p->nweights != n)
		return ss_fail(c, "profile %zu: %zu samples but %zu weights", pi, n, p->nweights);
	double start = p->has_start ? p->start : 0;
	double at = start;
	const sv_sink_ops *ops = c->sink->ops;
	sv_jcur js, jw;
	int rc;
	if ((rc = at_array(c, &js, p->samples, p->depth)) || (p->weights && (rc = at_array(c, &jw, p->weights, p->depth))))
		return rc;
	uint64_t *idx = NULL; /* a sample's frame indices, read in place when plain */
	size_t nidx = 0, idx_cap = 0;
	/* indices fit the kept uint32 when shared.frames does */
	ss_seen seen = { c->nframes <= UINT32_MAX ? calloc(SS_SLOTS, sizeof(ss_slot)) : NULL, NULL, 0, 0 };
	for (size_t i = 0; i < n; i++) {
		json_object *st = NULL, *wo = NULL;
		if ((rc = sv_jc_elem(&js, c->err)) != 1 || (p->weights && (rc = sv_jc_elem(&jw, c->err)) != 1)) {
			rc = rc < 0 ? rc : ss_fail(c, "profile %zu: arrays shorter than counted", pi);
			goto out;
		}
		if ((i & 4095) == 0 && (rc = sv_input_progress(c->in, js.pos, c->err)))
			goto out;
		rc = 0;
		double w = 1;
		int plain = sv_jc_uint_array(&js, &idx, &nidx, &idx_cap), wplain = p->weights ? sv_jc_number(&jw, &w) : 1;
		if (plain < 0) {
			rc = sv_error_set(c->err, SV_ENOMEM, NULL);
			goto out;
		}
		if ((!plain && (rc = sv_jc_value(&js, &st, c->err))) || (!wplain && (rc = sv_jc_value(&jw, &wo, c->err)))) {
			json_object_put(st);
			goto out;
		}
		if (!plain && !json_object_is_type(st, json_type_array))
			rc = ss_fail(c, "profile %zu, sample %zu: not an array of frame indices", pi, i);
		else if (!wplain && !sv_json_number(wo, &w))
			rc = ss_fail(c, "profile %zu, weight %zu: not a number", pi, i);
		size_t d = rc ? 0 : plain ? nidx : json_object_array_length(st);
		if (d > SV_MAX_STACK_DEPTH)
			rc = ss_fail(c, "profile %zu, sample %zu: stack deeper than %u frames", pi, i, SV_MAX_STACK_DEPTH);
		/* a plain sample's stack as a sample had it before, else interned level by level */
		bool cached = !rc && plain && seen.slot && d;
		uint64_t h = cached ? indices_hash(idx, d) : 0;
		sv_stack_id known = cached ? seen_find(&seen, h, idx, d) : SV_STACK_NONE;
		sv_stack_id s = known != SV_STACK_NONE ? known : base;
		for (size_t k = 0; !rc && known == SV_STACK_NONE && k < d; k++) {
			sv_frame_id f = 0;
			if (plain && idx[k] >= c->nframes)
				rc = ss_fail(c, "profile %zu, %s %zu: frame index %lld is not in shared.frames (%zu frames)", pi, "sample", i,
					     (long long)idx[k], c->nframes);
			else if (plain)
				f = c->frames[idx[k]];
			else
				rc = frame_of(c, &f, json_object_array_get_idx(st, k), pi, "sample", i);
			if (!rc)
				rc = ops->intern_stack(c->sink->self, &s, s, f);
		}
		if (!rc && cached && known == SV_STACK_NONE)
			seen_add(&seen, h, idx, d, s);
		json_object_put(st);
		json_object_put(wo);
		if (rc)
			goto out;
		/* Samples follow each other: a time-unit sample starts where the previous ended. */
		double time = scale > 0 ? (at - start) * scale : 0;
		if ((rc = ops->add_sample(c->sink->self, s, time, scale > 0 ? w * scale : w, 1)))
			goto out;
		at += w;
	}
	rc = 0;
out:
	free(idx);
	free(seen.slot);
	free(seen.keep);
	return rc;
}

static int evented(ss_ctx *c, const ss_profile *p, size_t pi, sv_stack_id base, double scale)
{
	if (!p->events)
		return ss_fail(c, "profile %zu: an evented profile without an \"events\" array", pi);
	double start = p->has_start ? p->start : 0;
	double last = start;
	c->depth = 0;
	const sv_sink_ops *ops = c->sink->ops;
	sv_jcur je;
	int rc = at_array(c, &je, p->events, p->depth), more;
	if (rc)
		return rc;
	for (size_t i = 0; (more = sv_jc_elem(&je, c->err)) == 1; i++) {
		if ((i & 4095) == 0 && (rc = sv_input_progress(c->in, je.pos, c->err)))
			return rc;
		json_object *e = NULL;
		if ((rc = sv_jc_value(&je, &e, c->err)))
			return rc;
		rc = 0;
		json_object *type = json_object_is_type(e, json_type_object) ? sv_json_member(e, "type", json_type_string) : NULL;
		json_object *fr = type ? json_object_object_get(e, "frame") : NULL;
		double at;
		sv_frame_id f;
		if (!type || !sv_json_number(json_object_object_get(e, "at"), &at))
			rc = ss_fail(c, "profile %zu, event %zu: needs \"type\" and a numeric \"at\"", pi, i);
		else if (at < last)
			rc = ss_fail(c, "profile %zu, event %zu: \"at\" goes back in time", pi, i);
		else
			rc = fr ? frame_of(c, &f, fr, pi, "event", i) : ss_fail(c, "profile %zu, event %zu: no frame", pi, i);
		/* The interval since the last event belongs to the stack open during it. */
		if (!rc && at > last && c->depth) {
			double time = scale > 0 ? (last - start) * scale : 0;
			double m = scale > 0 ? (at - last) * scale : at - last;
			rc = ops->add_sample(c->sink->self, c->path[c->depth - 1], time, m, 1);
		}
		if (!rc) {
			last = at;
			const char *ty = json_object_get_string(type);
			int64_t fi = json_object_get_int64(fr);
			if (strcmp(ty, "O") == 0) {
				if (c->depth == SV_MAX_STACK_DEPTH)
					rc = ss_fail(c, "profile %zu, event %zu: stack deeper than %u frames", pi, i, SV_MAX_STACK_DEPTH);
				else if (SV_ARRAY_RESERVE(c->path, c->path_cap, c->depth + 1) ||
					 SV_ARRAY_RESERVE(c->open, c->open_cap, c->depth + 1))
					rc = SV_ENOMEM;
				else if (!(rc = ops->intern_stack(c->sink->self, &c->path[c->depth],
								  c->depth ? c->path[c->depth - 1] : base, f)))
					c->open[c->depth++] = (uint32_t)fi;
			} else if (strcmp(ty, "C") == 0) {
				if (!c->depth || c->open[c->depth - 1] != (uint32_t)fi)
					rc = ss_fail(c, "profile %zu, event %zu: closes frame %lld, which is not the innermost open frame",
						     pi, i, (long long)fi);
				else
					c->depth--;
			} else {
				rc = ss_fail(c, "profile %zu, event %zu: unknown type \"%s\"", pi, i, ty);
			}
		}
		json_object_put(e);
		if (rc)
			return rc;
	}
	if (more < 0)
		return more;
	if (c->depth)
		return ss_fail(c, "profile %zu: %zu frames still open at the end", pi, c->depth);
	return 0;
}

/* Skip an array's elements one by one, counting them. */
/* The elements of a compact array at d[pos] == '[': arrays of digit runs (`[[1,2],[3]]`, as
 * exporters write samples) or digit runs with points (`[1,0.25]`, weights), no blanks and
 * nothing else. false for anything else, which the general walk then counts (and reports
 * as it would have). */
static bool count_compact(const unsigned char *d, size_t n, size_t pos, size_t *count, size_t *end)
{
	size_t i = pos + 1, k = 0;
	if (i < n && d[i] == ']') {
		*count = 0;
		*end = i + 1;
		return true;
	}
	for (;;) {
		if (i >= n)
			return false;
		if (d[i] == '[') {
			i++;
			if (i < n && d[i] == ']') {
				i++;
			} else {
				for (;;) {
					size_t at = i;
					while (i < n && d[i] >= '0' && d[i] <= '9')
						i++;
					if (i == at || i >= n)
						return false;
					if (d[i] == ']') {
						i++;
						break;
					}
					if (d[i] != ',')
						return false;
					i++;
				}
			}
		} else {
			size_t at = i;
			while (i < n && ((d[i] >= '0' && d[i] <= '9') || d[i] == '.'))
				i++;
			if (i == at)
				return false;
		}
		k++;
		if (i >= n)
			return false;
		if (d[i] == ']') {
			*count = k;
			*end = i + 1;
			return true;
		}
		if (d[i] != ',')
			return false;
		i++;
	}
}

static int count_array(sv_jcur *j, size_t *n, sv_error *err)
{
	size_t end;
	if (sv_jc_peek(j) == '[' && j->depth < SV_JSON_MAX_DEPTH - 1 &&
	    count_compact(j->in->data, j->in->len, j->pos, n, &end)) {
		j->pos = end; /* as entering, walking and leaving it would */
		j->first = false;
		return 0;
	}
	int rc = sv_jc_enter(j, '[', err), more;
	if (rc)
		return rc;
	*n = 0;
	while ((more = sv_jc_elem(j, err)) == 1) {
		if ((rc = sv_jc_skip(j, err)))
			return rc;
		++*n;
	}
	return more;
}

/* The first walk over one profile: small members parsed, big arrays located and counted. */
static int scan_profile(ss_ctx *c, sv_jcur *j, ss_profile *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->unit, sizeof(p->unit), "none");
	if (sv_jc_peek(j) != '{')
		return sv_jc_skip(j, c->err);
	p->is_object = true;
	int rc = sv_jc_enter(j, '{', c->err), more;
	if (rc)
		return rc;
	char key[32];
	while ((more = sv_jc_key(j, key, sizeof(key), c->err)) == 1) {
		int ch = sv_jc_peek(j);
		if ((!strcmp(key, "samples") || !strcmp(key, "weights") || !strcmp(key, "events")) && ch == '[') {
			p->depth = j->depth;
			if (key[0] == 's') {
				p->samples = j->pos;
				rc = count_array(j, &p->nsamples, c->err);
			} else if (key[0] == 'w') {
				p->weights = j->pos;
				rc = count_array(j, &p->nweights, c->err);
			} else {
				p->events = j->pos;
				rc = sv_jc_skip(j, c->err);
			}
		} else if (!strcmp(key, "unit") || !strcmp(key, "type") || !strcmp(key, "name") || !strcmp(key, "startValue")) {
			json_object *v = NULL;
			if (!(rc = sv_jc_value(j, &v, c->err))) {
				bool str = json_object_is_type(v, json_type_string);
				if (!strcmp(key, "unit") && str)
					snprintf(p->unit, sizeof(p->unit), "%s", json_object_get_string(v));
				else if (!strcmp(key, "type") && str)
					snprintf(p->type, sizeof(p->type), "%s", json_object_get_string(v));
				else if (!strcmp(key, "name") && str)
					snprintf(p->name, sizeof(p->name), "%s", json_object_get_string(v));
				else if (!strcmp(key, "startValue"))
					p->has_start = sv_json_number(v, &p->start);
			}
			json_object_put(v);
		} else {
			rc = sv_jc_skip(j, c->err);
		}
		if (rc)
			return rc;
	}
	return more < 0 ? more : 0;
}

/* The shared frame table, one frame object at a time. 1 when there is no "frames" array. */
static int read_frames(ss_ctx *c, sv_jcur *j)
{
	int rc = sv_jc_enter(j, '{', c->err), more;
	if (rc)
		return rc;
	char key[32];
	bool found = false;
	while ((more = sv_jc_key(j, key, sizeof(key), c->err)) == 1) {
		if (strcmp(key, "frames") != 0 || found || sv_jc_peek(j) != '[') {
			if ((rc = sv_jc_skip(j, c->err)))
				return rc;
			continue;
		}
		found = true;
		sv_jcur count = *j;
		if ((rc = count_array(&count, &c->nframes, c->err)))
			return rc;
		c->frames = malloc((c->nframes ? c->nframes : 1) * sizeof(*c->frames));
		if (!c->frames)
			return sv_error_set(c->err, SV_ENOMEM, NULL);
		if ((rc = sv_jc_enter(j, '[', c->err)))
			return rc;
		for (size_t i = 0; (more = sv_jc_elem(j, c->err)) == 1; i++) {
			json_object *f = NULL;
			if ((rc = sv_jc_value(j, &f, c->err)))
				return rc;
			json_object *name = json_object_is_type(f, json_type_object) ? sv_json_member(f, "name", json_type_string) : NULL;
			if (!name) {
				rc = ss_fail(c, "shared.frames[%zu] has no \"name\" string", i);
			} else {
				const char *s = json_object_get_string(name);
				size_t len = (size_t)json_object_get_string_len(name);
				if (len > SV_MAX_NAME_LEN)
					rc = ss_fail(c, "shared.frames[%zu]: frame name too long", i);
				else
					rc = c->sink->ops->intern_frame(c->sink->self, &c->frames[i], len ? s : "(anonymous)",
									len ? len : 11);
			}
			json_object_put(f);
			if (rc)
				return rc;
		}
		if (more < 0)
			return more;
	}
	if (more < 0)
		return more;
	return found ? 0 : 1;
}

/* The document is walked in place: the top level once (frames read, profiles scanned and
 * their arrays located), then each imported profile's arrays again, an element at a time. */
static int ss_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	(void)opts;
	ss_ctx c = { .sink = sink, .in = in, .err = err };
	ss_profile *prof = NULL;
	size_t np = 0, pcap = 0;
	bool have_frames = false, have_profiles = false;
	long long active_index = -1;
	sv_jcur j;
	sv_jc_init(&j, in);
	char key[32];
	int rc = 0, more = 0;
	if (sv_jc_peek(&j) != '{') {
		json_object *v = NULL;
		if (sv_jc_peek(&j) >= 0 && sv_jc_peek(&j) != '[' && (rc = sv_jc_value(&j, &v, err)))
			goto out;
		json_object_put(v);
		rc = ss_fail(&c, "not a speedscope file: no \"shared.frames\" and \"profiles\" arrays");
		goto out;
	}
	if ((rc = sv_jc_enter(&j, '{', err)))
		goto out;
	/* Frames are needed before samples: when "profiles" comes first, it is scanned now and
	 * imported after the frames anyway (the scan keeps only offsets). */
	while ((more = sv_jc_key(&j, key, sizeof(key), err)) == 1) {
		int ch = sv_jc_peek(&j);
		if (!strcmp(key, "shared") && ch == '{' && !have_frames) {
			rc = read_frames(&c, &j);
			if (rc == 1) {
				rc = 0;
			} else if (!rc) {
				have_frames = true;
			}
		} else if (!strcmp(key, "profiles") && ch == '[' && !have_profiles) {
			have_profiles = true;
			if ((rc = sv_jc_enter(&j, '[', err)))
				goto out;
			while (!rc && (more = sv_jc_elem(&j, err)) == 1) {
				if (SV_ARRAY_RESERVE(prof, pcap, np + 1)) {
					rc = sv_error_set(err, SV_ENOMEM, NULL);
					goto out;
				}
				rc = scan_profile(&c, &j, &prof[np++]);
			}
			if (more < 0)
				rc = more;
		} else if (!strcmp(key, "activeProfileIndex") && ch != '{' && ch != '[') {
			json_object *v = NULL;
			if (!(rc = sv_jc_value(&j, &v, err)) && json_object_is_type(v, json_type_int))
				active_index = json_object_get_int64(v);
			json_object_put(v);
		} else {
			rc = sv_jc_skip(&j, err);
		}
		if (rc)
			goto out;
	}
	if (more < 0 || (rc = sv_jc_end(&j, err))) {
		rc = more < 0 ? more : rc;
		goto out;
	}
	if (!have_frames || !have_profiles) {
		rc = ss_fail(&c, "not a speedscope file: no \"shared.frames\" and \"profiles\" arrays");
		goto out;
	}
	size_t active = active_index >= 0 && (unsigned long long)active_index < np ? (size_t)active_index : 0;
	if (np == 0) {
		rc = ss_fail(&c, "no profiles");
		goto out;
	}
	if (!prof[active].is_object) {
		rc = ss_fail(&c, "profile %zu is not an object", active);
		goto out;
	}
	const char *unit = prof[active].unit;
	double scale = unit_ms(unit);
	if (scale < 0) {
		rc = ss_fail(&c, "profile %zu: unknown unit \"%s\"", active, unit);
		goto out;
	}
	size_t used = 0, skipped = 0;
	for (size_t i = 0; i < np; i++)
		if (prof[i].is_object && strcmp(prof[i].unit, unit) == 0)
			used++;
	for (size_t i = 0; i < np && !rc; i++) {
		const ss_profile *p = &prof[i];
		if (!p->is_object || strcmp(p->unit, unit) != 0) {
			skipped++;
			continue;
		}
		sv_stack_id base = SV_STACK_NONE;
		if (used > 1) { /* several profiles: each under its own root frame */
			char name[512];
			snprintf(name, sizeof(name), "Profile %s", p->name);
			sv_frame_id f;
			if ((rc = sink->ops->intern_frame(sink->self, &f, name, strlen(name))) ||
			    (rc = sink->ops->intern_stack(sink->self, &base, SV_STACK_NONE, f)))
				break;
		}
		if (strcmp(p->type, "sampled") == 0)
			rc = sampled(&c, p, i, base, scale);
		else if (strcmp(p->type, "evented") == 0)
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
	free(prof);
	free(c.frames);
	free(c.path);
	free(c.open);
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
	sv_samples smp = sv_source_samples(src);
	for (size_t i = 0; i < ns; i++)
		total += sv_sample_metric(&smp, i);
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
		sv_json_write_number(f, sv_sample_metric(&smp, i));
	}
	fputs("]}]}\n", f);
	free(index);
	free(path);
	return rc ? rc : sv_write_check(f, err);
}
