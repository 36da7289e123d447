/* SPDX-License-Identifier: MIT */
/* Firefox Profiler profiles: the processed format (what profiler.firefox.com saves and samply
 * writes: per thread, structure-of-arrays tables — samples {stack, time | timeDeltas, weight,
 * weightType}, stackTable {frame, prefix}, frameTable {func}, funcTable {name, resource},
 * resourceTable {name}, strings in the thread's stringArray/stringTable or shared.stringArray)
 * and the raw Gecko format (Firefox's own: tables of {schema, data} rows, location strings in
 * the thread's stringTable, child processes under "processes").
 *
 * Each thread's samples sit under `Process NAME (PID)` and `Thread (TID) NAME`. A frame is
 * `RESOURCE!FUNCTION` (the library or script the function belongs to) or the function alone.
 * Samples without a weight are time-weighted as the profiler's call tree shows them: each
 * counts the profile's interval in ms (time-metric); weightType "samples" multiplies it,
 * "tracing-ms" weights are ms, "bytes" weights make a scale-to-data profile in bytes. The
 * document is walked in place (json_stream.h); each thread's tables are parsed one at a time. */
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_stream.h"
#include "stackview/formats.h"
#include "sv/array.h"

typedef struct gk_ctx {
	sv_sink *sink;
	const sv_input *in;
	sv_error *err;
	double interval; /* ms */
	json_object *shared_strings;
	int unit;        /* 0 time (ms), 1 bytes; the first weighted thread decides */
	bool have_unit;
	size_t threads, samples, skipped_threads;
} gk_ctx;

static int gk_fail(gk_ctx *c, const char *fmt, ...) SV_PRINTF(2, 3);
static int gk_fail(gk_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sv_error_vset(c->err, SV_EFORMAT, fmt, ap);
	va_end(ap);
	sv_error_locate(c->err, c->in->name, 0, -1);
	return SV_EFORMAT;
}

static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;
	return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static json_object *array_member(json_object *o, const char *key)
{
	return sv_json_member(o, key, json_type_array);
}

static bool num_at(json_object *arr, size_t i, double *out)
{
	return arr && sv_json_number(json_object_array_get_idx(arr, i), out);
}

static long idx_at(json_object *arr, size_t i)
{
	double d;
	return num_at(arr, i, &d) && d >= 0 && d < 4e9 && d == floor(d) ? (long)d : -1;
}

static const char *str_at(json_object *strings, long i)
{
	json_object *v = strings && i >= 0 ? json_object_array_get_idx(strings, (size_t)i) : NULL;
	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* A table's column: processed {col: [...]} or raw {schema: {col: k}, data: [[...]]} (then the
 * column is gathered into a new array the caller puts). */
static json_object *column(json_object *table, const char *col, bool *owned)
{
	*owned = false;
	json_object *schema = member(table, "schema"), *data = array_member(table, "data");
	if (!schema || !data)
		return array_member(table, col);
	json_object *k = member(schema, col);
	if (!k || !json_object_is_type(k, json_type_int))
		return NULL;
	int64_t ki = json_object_get_int64(k);
	size_t n = json_object_array_length(data);
	json_object *out = json_object_new_array_ext((int)(n < INT32_MAX ? n : INT32_MAX));
	if (!out)
		return NULL;
	*owned = true;
	for (size_t i = 0; i < n; i++) {
		json_object *row = json_object_array_get_idx(data, i);
		json_object *v = row && json_object_is_type(row, json_type_array) && ki >= 0 &&
					 (size_t)ki < json_object_array_length(row)
				 ? json_object_array_get_idx(row, (size_t)ki)
				 : NULL;
		json_object_array_add(out, v ? json_object_get(v) : NULL);
	}
	return out;
}

static void put_col(json_object *col, bool owned)
{
	if (owned)
		json_object_put(col);
}

static int intern(gk_ctx *c, sv_frame_id *out, const char *fmt, ...) SV_PRINTF(3, 4);
static int intern(gk_ctx *c, sv_frame_id *out, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	return c->sink->ops->intern_frame(c->sink->self, out, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static const char *id_text(json_object *v, char *buf, size_t n)
{
	if (v && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	if (v && json_object_is_type(v, json_type_int)) {
		snprintf(buf, n, "%lld", (long long)json_object_get_int64(v));
		return buf;
	}
	return "?";
}

/* One thread: frames named, stacks interned by the stack table's prefix links (each prefix
 * comes first, as the profiler writes it; anything else is an error), then its samples. */
static int thread(gk_ctx *c, json_object *th, size_t ti, const char *process_hint)
{
	const sv_sink_ops *ops = c->sink->ops;
	json_object *strings = array_member(th, "stringArray");
	if (!strings)
		strings = array_member(th, "stringTable");
	if (!strings)
		strings = c->shared_strings;
	json_object *samples = member(th, "samples"), *stacks = member(th, "stackTable"), *frames = member(th, "frameTable");
	json_object *funcs = member(th, "funcTable"), *res = member(th, "resourceTable");
	if (!samples || !stacks || !frames) {
		c->skipped_threads++;
		return 0;
	}
	bool ow_sfr, ow_pre, ow_ffn, ow_loc, ow_sst, ow_tim, ow_wgt;
	json_object *s_frame = column(stacks, "frame", &ow_sfr), *s_prefix = column(stacks, "prefix", &ow_pre);
	json_object *f_func = column(frames, "func", &ow_ffn), *f_loc = column(frames, "location", &ow_loc);
	json_object *x_stack = column(samples, "stack", &ow_sst), *x_time = column(samples, "time", &ow_tim);
	json_object *x_weight = column(samples, "weight", &ow_wgt);
	json_object *x_deltas = array_member(samples, "timeDeltas");
	json_object *fn_name = array_member(funcs, "name"), *fn_res = array_member(funcs, "resource");
	json_object *r_name = array_member(res, "name");
	json_object *wt = member(samples, "weightType");
	const char *weight_type = wt && json_object_is_type(wt, json_type_string) ? json_object_get_string(wt) : "samples";
	sv_stack_id *st = NULL;
	uint32_t *depth = NULL; /* frames on each stack */
	sv_frame_id *fr = NULL;
	int rc = 0;
	size_t ns = x_stack ? json_object_array_length(x_stack) : 0;
	size_t nst = s_frame ? json_object_array_length(s_frame) : 0;
	size_t nfr = f_func ? json_object_array_length(f_func) : f_loc ? json_object_array_length(f_loc) : 0;
	if (!x_stack || !s_frame || (!f_func && !f_loc) || (!x_time && !x_deltas)) {
		rc = gk_fail(c, "thread %zu: tables without their columns (samples.stack and .time or .timeDeltas, "
				"stackTable.frame, frameTable.func or .location)", ti);
		goto out;
	}
	bool bytes = strcmp(weight_type, "bytes") == 0, tracing = strcmp(weight_type, "tracing-ms") == 0;
	if (!c->have_unit) {
		c->unit = bytes;
		c->have_unit = true;
	} else if (c->unit != bytes) {
		c->skipped_threads++; /* one unit per profile: the first thread's */
		goto out;
	}
	/* root frames */
	char pb[32], tb[32];
	json_object *tn = member(th, "name"), *pn = member(th, "processName");
	if (!pn || !json_object_is_type(pn, json_type_string))
		pn = member(th, "processType"); /* the raw format names processes by type */
	const char *tname = tn && json_object_is_type(tn, json_type_string) ? json_object_get_string(tn) : "";
	const char *pname = pn && json_object_is_type(pn, json_type_string) ? json_object_get_string(pn) : process_hint;
	sv_frame_id pf, tf;
	sv_stack_id base;
	if ((rc = intern(c, &pf, "Process %.500s (%s)", pname && pname[0] ? pname : "?", id_text(member(th, "pid"), pb, sizeof(pb)))) ||
	    (rc = intern(c, &tf, "Thread (%s)%s%.500s", id_text(member(th, "tid"), tb, sizeof(tb)), tname[0] ? " " : "", tname)) ||
	    (rc = ops->intern_stack(c->sink->self, &base, SV_STACK_NONE, pf)) ||
	    (rc = ops->intern_stack(c->sink->self, &base, base, tf)))
		goto out;
	/* frames */
	fr = malloc((nfr ? nfr : 1) * sizeof(*fr));
	st = malloc((nst ? nst : 1) * sizeof(*st));
	depth = malloc((nst ? nst : 1) * sizeof(*depth));
	if (!fr || !st || !depth) {
		rc = SV_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nfr && !rc; i++) {
		if (f_func) {
			long f = idx_at(f_func, i);
			const char *name = str_at(strings, idx_at(fn_name, (size_t)(f < 0 ? 0 : f)));
			long r = f < 0 ? -1 : idx_at(fn_res, (size_t)f);
			const char *rname = r < 0 ? NULL : str_at(strings, idx_at(r_name, (size_t)r));
			if (f < 0 || !name) {
				rc = gk_fail(c, "thread %zu: frame %zu names no function in the function table", ti, i);
				break;
			}
			rc = rname && rname[0] ? intern(c, &fr[i], "%.500s!%.1200s", rname, name) : intern(c, &fr[i], "%.1700s", name);
		} else {
			const char *loc = str_at(strings, idx_at(f_loc, i));
			if (!loc) {
				rc = gk_fail(c, "thread %zu: frame %zu has no location string", ti, i);
				break;
			}
			rc = intern(c, &fr[i], "%.1700s", loc);
		}
	}
	/* stacks: a prefix before its stack */
	for (size_t i = 0; i < nst && !rc; i++) {
		long f = idx_at(s_frame, i);
		json_object *pv = s_prefix ? json_object_array_get_idx(s_prefix, i) : NULL;
		long p = pv ? idx_at(s_prefix, i) : -1;
		if (f < 0 || (size_t)f >= nfr || (pv && (p < 0 || (size_t)p >= i))) {
			rc = gk_fail(c, "thread %zu: stack %zu has a frame or prefix out of range (a prefix must come first)", ti, i);
			break;
		}
		depth[i] = p < 0 ? 1 : depth[p] + 1;
		if (depth[i] > SV_MAX_STACK_DEPTH) { /* as every reader: the documented limit */
			rc = gk_fail(c, "thread %zu: stack %zu is deeper than %u frames", ti, i, SV_MAX_STACK_DEPTH);
			break;
		}
		rc = ops->intern_stack(c->sink->self, &st[i], p < 0 ? base : st[p], fr[f]);
	}
	/* samples */
	double t = 0;
	for (size_t i = 0; i < ns && !rc; i++) {
		double w = 1, d;
		if (x_deltas) {
			if (!num_at(x_deltas, i, &d)) {
				rc = gk_fail(c, "thread %zu: sample %zu has no time delta", ti, i);
				break;
			}
			t += d;
		} else if (!num_at(x_time, i, &t)) {
			rc = gk_fail(c, "thread %zu: sample %zu has no time", ti, i);
			break;
		}
		if (x_weight && json_object_array_get_idx(x_weight, i) && !num_at(x_weight, i, &w)) {
			rc = gk_fail(c, "thread %zu: sample %zu has a weight that is not a number", ti, i);
			break;
		}
		json_object *sv = json_object_array_get_idx(x_stack, i);
		long s = sv ? idx_at(x_stack, i) : -1;
		if (sv && (s < 0 || (size_t)s >= nst)) {
			rc = gk_fail(c, "thread %zu: sample %zu names stack %ld of %zu", ti, i, s, nst);
			break;
		}
		double metric = bytes ? w : tracing ? w : w * c->interval;
		rc = ops->add_sample(c->sink->self, s < 0 ? base : st[s], t, metric, 1);
		c->samples++;
	}
	c->threads++;
out:
	put_col(s_frame, ow_sfr);
	put_col(s_prefix, ow_pre);
	put_col(f_func, ow_ffn);
	put_col(f_loc, ow_loc);
	put_col(x_stack, ow_sst);
	put_col(x_time, ow_tim);
	put_col(x_weight, ow_wgt);
	free(st);
	free(depth);
	free(fr);
	return rc;
}

/* The "threads" array of a profile (and the raw format's "processes", recursively). */
static int threads_of(gk_ctx *c, sv_jcur *j, const char *process_hint)
{
	int rc = sv_jc_enter(j, '[', c->err), more;
	if (rc)
		return rc;
	for (size_t i = 0; (more = sv_jc_elem(j, c->err)) == 1; i++) {
		json_object *th = NULL;
		if ((rc = sv_jc_value(j, &th, c->err)))
			return rc;
		if (json_object_is_type(th, json_type_object))
			rc = thread(c, th, c->threads + c->skipped_threads, process_hint);
		json_object_put(th);
		if (!rc)
			rc = sv_input_progress(c->in, j->pos, c->err);
		if (rc)
			return rc;
	}
	return more;
}

/* A profile; at the top (`wrapper`), also the object Firefox's DevTools performance panel
 * (Firefox 59-79) saves: {"label", "duration", "markers", "ticks", ..., "profile": {a raw
 * Gecko profile}}. */
static int profile(gk_ctx *c, sv_jcur *j, int depth, bool wrapper)
{
	if (depth > 8)
		return gk_fail(c, "processes nested deeper than 8");
	int rc = sv_jc_enter(j, '{', c->err), more;
	if (rc)
		return rc;
	char key[32];
	size_t threads_at = 0, procs_at = 0, inner_at = 0;
	int threads_depth = 0, procs_depth = 0, inner_depth = 0;
	while ((more = sv_jc_key(j, key, sizeof(key), c->err)) == 1) {
		int ch = sv_jc_peek(j);
		if (!strcmp(key, "meta") && ch == '{') {
			json_object *meta = NULL;
			if ((rc = sv_jc_value(j, &meta, c->err)))
				return rc;
			json_object *ivo = member(meta, "interval");
			if (depth == 0 && ivo && (json_object_is_type(ivo, json_type_double) || json_object_is_type(ivo, json_type_int)))
				c->interval = json_object_get_double(ivo);
			json_object_put(meta);
		} else if (!strcmp(key, "shared") && ch == '{' && depth == 0) {
			json_object *sh = NULL;
			if ((rc = sv_jc_value(j, &sh, c->err)))
				return rc;
			json_object *sa = array_member(sh, "stringArray");
			if (sa && !c->shared_strings)
				c->shared_strings = json_object_get(sa);
			json_object_put(sh);
		} else if (!strcmp(key, "threads") && ch == '[') {
			threads_at = j->pos; /* after "shared": strings may come later in the document */
			threads_depth = j->depth;
			rc = sv_jc_skip(j, c->err);
		} else if (!strcmp(key, "processes") && ch == '[') {
			procs_at = j->pos;
			procs_depth = j->depth;
			rc = sv_jc_skip(j, c->err);
		} else if (wrapper && !strcmp(key, "profile") && ch == '{') {
			inner_at = j->pos;
			inner_depth = j->depth;
			rc = sv_jc_skip(j, c->err);
		} else {
			rc = sv_jc_skip(j, c->err);
		}
		if (rc)
			return rc;
	}
	if (more < 0)
		return more;
	sv_jcur k;
	if (inner_at && !threads_at && !procs_at) { /* the DevTools export: the profile inside */
		sv_jc_init(&k, c->in);
		k.pos = inner_at;
		k.depth = inner_depth;
		return profile(c, &k, 0, false);
	}
	if (threads_at) {
		sv_jc_init(&k, c->in);
		k.pos = threads_at;
		k.depth = threads_depth;
		if ((rc = threads_of(c, &k, NULL)))
			return rc;
	}
	if (procs_at) { /* raw format: child processes are profiles of their own */
		sv_jc_init(&k, c->in);
		k.pos = procs_at;
		k.depth = procs_depth;
		if ((rc = sv_jc_enter(&k, '[', c->err)))
			return rc;
		while ((more = sv_jc_elem(&k, c->err)) == 1)
			if (sv_jc_peek(&k) == '{' ? (rc = profile(c, &k, depth + 1, false)) : (rc = sv_jc_skip(&k, c->err)))
				return rc;
		if (more < 0)
			return more;
	}
	return 0;
}

static int gk_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	(void)opts;
	gk_ctx c = { .sink = sink, .in = in, .err = err, .interval = 1 };
	sv_jcur j;
	sv_jc_init(&j, in);
	int rc = sv_jc_peek(&j) == '{' ? profile(&c, &j, 0, true) : gk_fail(&c, "not a Firefox profile: not a JSON object");
	if (!rc)
		rc = sv_jc_end(&j, err);
	if (!rc && !c.threads)
		rc = gk_fail(&c, "no thread with samples (a Firefox profile has \"threads\" with samples, stack, frame tables)");
	if (!rc && sink->ops->set_scaling)
		rc = sink->ops->set_scaling(sink->self, c.unit ? SV_SCALING_DATA : SV_SCALING_TIME);
	if (!rc && c.unit && sink->ops->set_unit)
		rc = sink->ops->set_unit(sink->self, "bytes");
	if (!rc && sink->ops->add_note) {
		char msg[300];
		snprintf(msg, sizeof(msg), "Firefox profile: %zu threads, %zu samples, interval %.4g ms%s", c.threads, c.samples,
			 c.interval, c.skipped_threads ? " (threads without samples or in another unit skipped)" : "");
		rc = sink->ops->add_note(sink->self, SV_NOTE_INFO, msg);
	}
	if (rc == SV_ENOMEM)
		sv_error_set(err, SV_ENOMEM, NULL);
	json_object_put(c.shared_strings);
	return rc;
}

/* The first key of the object at s (after '{' and blanks), or false. */
static bool first_key_is(const char *s, size_t n, const char *key)
{
	size_t i = 0, k = strlen(key);
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
		i++;
	return i + k + 2 <= n && s[i] == '"' && !memcmp(s + i + 1, key, k) && s[i + 1 + k] == '"';
}

/* A Gecko profile at s (just after its '{'): "meta", "threads" and a stack table in the first
 * 64 KiB, or, when a long "libs" list comes first (Firefox lists every library it loaded), the
 * libs with their Breakpad ids. */
static bool gecko_at(const char *s, size_t w)
{
	if (memmem(s, w, "\"meta\"", 6) && memmem(s, w, "\"threads\"", 9) && memmem(s, w, "\"stackTable\"", 12))
		return true;
	return (first_key_is(s, w, "libs") || first_key_is(s, w, "meta")) && memmem(s, w, "\"breakpadId\"", 12);
}

/* A Gecko or processed profile, or the DevTools export that holds one under "profile" with
 * its "duration". */
static bool gk_probe(const unsigned char *d, size_t n)
{
	size_t i = 0;
	while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'))
		i++;
	if (i >= n || d[i] != '{')
		return false;
	size_t w = n - i < 65536 ? n - i : 65536;
	const char *s = (const char *)d + i;
	if (gecko_at(s + 1, w - 1))
		return true;
	const char *p = memmem(s, w, "\"profile\"", 9);
	if (!p || !memmem(s, w, "\"duration\"", 10))
		return false;
	size_t at = (size_t)(p - s) + 9;
	while (at < w && (s[at] == ' ' || s[at] == ':' || s[at] == '\t' || s[at] == '\r' || s[at] == '\n'))
		at++;
	return at < w && s[at] == '{' && gecko_at(s + at + 1, w - at - 1);
}

const sv_format sv_fmt_gecko = {
	.name = "firefox", .patterns = NULL, .probe = gk_probe, .import = gk_import,
};
