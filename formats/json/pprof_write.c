/* SPDX-License-Identifier: MIT */
/* pprof writer (the reader is pprof.c): the samples of one stack add up into one pprof
 * sample with two values, the sample count ("samples"/"count") and the metric (times in
 * nanoseconds, as Go's CPU profiles); each frame is a function and a location of its own,
 * `module!` names the location's mapping, and root frames `Label key=value` become the
 * sample's labels again. Written gzip-compressed, as Go writes it. Values are integers:
 * other metrics are rounded. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/export_int.h"
#include "pprof_int.h"
#include "sv/array.h"
#include "sv/idmap.h"

typedef struct pw_strs {
	char **s;
	size_t n, cap;
	sv_idmap index; /* hash (probed on collision) -> index */
} pw_strs;

static int pw_str(pw_strs *t, const char *s, size_t len, int64_t *out)
{
	uint64_t h = sv_hash_bytes(s, len);
	for (;; h++) {
		uint32_t id = sv_idmap_get(&t->index, h);
		if (id == SV_IDMAP_NONE)
			break;
		if (strncmp(t->s[id], s, len) == 0 && t->s[id][len] == '\0') {
			*out = id;
			return 0;
		}
	}
	char *copy = strndup(s, len);
	if (!copy || t->n >= UINT32_MAX - 1 || SV_ARRAY_PUSH(t->s, t->n, t->cap, copy)) {
		free(copy);
		return SV_ENOMEM;
	}
	if (sv_idmap_put(&t->index, h, (uint32_t)(t->n - 1)))
		return SV_ENOMEM;
	*out = (int64_t)(t->n - 1);
	return 0;
}

/* gzip on the fly into the FILE: protobuf-c hands the packed bytes over in pieces. */
typedef struct pw_gz {
	ProtobufCBuffer base;
	z_stream z;
	FILE *f;
	bool failed;
	unsigned char out[1 << 16];
} pw_gz;

static void gz_pump(pw_gz *g, int flush)
{
	do {
		g->z.next_out = g->out;
		g->z.avail_out = sizeof(g->out);
		int zr = deflate(&g->z, flush);
		if (zr == Z_STREAM_ERROR) {
			g->failed = true;
			return;
		}
		size_t have = sizeof(g->out) - g->z.avail_out;
		if (have && fwrite(g->out, 1, have, g->f) != have) {
			g->failed = true;
			return;
		}
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && g->z.avail_in));
}

static void gz_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	pw_gz *g = (pw_gz *)b;
	while (len && !g->failed && !ferror(g->f)) {
		uInt n = len > (1u << 30) ? 1u << 30 : (uInt)len;
		g->z.next_in = (Bytef *)(uintptr_t)data;
		g->z.avail_in = n;
		gz_pump(g, Z_NO_FLUSH);
		data += n;
		len -= n;
	}
}

static bool is_label(const char *name)
{
	return strncmp(name, LABEL_PREFIX, sizeof(LABEL_PREFIX) - 1) == 0 && strchr(name + sizeof(LABEL_PREFIX) - 1, '=');
}

typedef struct pw_ctx {
	const sv_source *src;
	pw_strs strs;
	sv_idmap modules;             /* hash of a module name (probed) -> mapping index */
	pb_mapping *maps;
	size_t nmaps, maps_cap;
	uint64_t *loc_of;             /* frame -> location id (0 = none yet) */
	pb_location *locs;
	pb_location **locp;
	pb_line *lines;
	pb_line **linep;
	pb_function *fns;
	pb_function **fnp;
	size_t nlocs;
	uint8_t *qualify;             /* frame -> its function keeps the module in its name */
} pw_ctx;

/* A frame's function name and module: "module!sym" -> sym (the module's length in *mlen),
 * else the name itself (no module). */
static const char *pw_sym(const char *name, size_t *mlen)
{
	const char *bang = strchr(name, '!');
	*mlen = bang && bang[1] ? (size_t)(bang - name) : 0;
	return bang && bang[1] ? bang + 1 : name;
}

/* Functions are named by what follows the module (pprof's convention: Go's are unique
 * anyway), except where that part is the same in two modules (`(anonymous):1:1` of fib.js
 * and of node:stream; a `main` in two programs): those keep `module!` so that go tool
 * pprof, which totals by function name, still tells them apart. */
static int pw_qualify(pw_ctx *c, uint32_t nf)
{
	sv_idmap seen; /* hash of a sym (probed) -> index into first */
	sv_idmap_init(&seen);
	uint32_t *first = malloc(((size_t)nf + 1) * sizeof(*first)); /* each sym's first frame */
	uint32_t *sym_of = malloc(((size_t)nf + 1) * sizeof(*sym_of)); /* frame -> its sym's index */
	uint8_t *shared = calloc((size_t)nf + 1, 1);                   /* sym -> in two modules */
	uint32_t nsyms = 0;
	int rc = first && sym_of && shared ? 0 : SV_ENOMEM;
	for (uint32_t f = 0; f < nf && !rc; f++) {
		const char *name = sv_source_frame_name(c->src, f);
		size_t ml, ol;
		const char *sym = pw_sym(name, &ml);
		for (uint64_t h = sv_hash_bytes(sym, strlen(sym));; h++) {
			uint32_t e = sv_idmap_get(&seen, h);
			if (e == SV_IDMAP_NONE) {
				first[nsyms] = f;
				sym_of[f] = nsyms;
				rc = sv_idmap_put(&seen, h, nsyms++);
				break;
			}
			const char *other = sv_source_frame_name(c->src, first[e]);
			if (strcmp(pw_sym(other, &ol), sym) != 0)
				continue; /* another sym with this hash */
			sym_of[f] = e;
			if (ml != ol || memcmp(name, other, ml) != 0)
				shared[e] = 1;
			break;
		}
	}
	for (uint32_t f = 0; f < nf && !rc; f++)
		c->qualify[f] = shared[sym_of[f]];
	free(first);
	free(sym_of);
	free(shared);
	sv_idmap_dispose(&seen);
	return rc ? SV_ENOMEM : 0;
}

static int pw_mapping(pw_ctx *c, const char *module, size_t len, uint64_t *id)
{
	uint64_t h = sv_hash_bytes(module, len);
	int64_t name;
	int rc = pw_str(&c->strs, module, len, &name);
	if (rc)
		return rc;
	for (;; h++) {
		uint32_t i = sv_idmap_get(&c->modules, h);
		if (i == SV_IDMAP_NONE)
			break;
		if (c->maps[i].filename == name) {
			*id = c->maps[i].id;
			return 0;
		}
	}
	pb_mapping m = PERFTOOLS__PROFILES__MAPPING__INIT;
	m.id = c->nmaps + 1;
	m.filename = name;
	m.has_functions = 1;
	if (SV_ARRAY_PUSH(c->maps, c->nmaps, c->maps_cap, m) || sv_idmap_put(&c->modules, h, (uint32_t)(c->nmaps - 1)))
		return SV_ENOMEM;
	*id = m.id;
	return 0;
}

/* The location of a frame: one function and one line; `module!` names the mapping. */
static int pw_location(pw_ctx *c, sv_frame_id f, uint64_t *out)
{
	if (c->loc_of[f]) {
		*out = c->loc_of[f];
		return 0;
	}
	const char *name = sv_source_frame_name(c->src, f);
	size_t ml;
	const char *sym = pw_sym(name, &ml);
	uint64_t mapping = 0;
	int rc;
	if (ml && (rc = pw_mapping(c, name, ml, &mapping)))
		return rc;
	if (c->qualify[f])
		sym = name;
	size_t i = c->nlocs++;
	pb_function fn = PERFTOOLS__PROFILES__FUNCTION__INIT;
	fn.id = i + 1;
	if ((rc = pw_str(&c->strs, sym, strlen(sym), &fn.name)))
		return rc;
	fn.system_name = fn.name;
	c->fns[i] = fn;
	c->fnp[i] = &c->fns[i];
	pb_line line = PERFTOOLS__PROFILES__LINE__INIT;
	line.function_id = fn.id;
	c->lines[i] = line;
	c->linep[i] = &c->lines[i];
	pb_location loc = PERFTOOLS__PROFILES__LOCATION__INIT;
	loc.id = i + 1;
	loc.mapping_id = mapping;
	loc.n_line = 1;
	loc.line = &c->linep[i];
	c->locs[i] = loc;
	c->locp[i] = &c->locs[i];
	*out = c->loc_of[f] = loc.id;
	return 0;
}

static int64_t round64(double d)
{
	if (!(d > -9.2e18 && d < 9.2e18))
		return d > 0 ? INT64_MAX : INT64_MIN;
	return (int64_t)llround(d);
}

int sv_fmt_pprof_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err)
{
	(void)opts;
	uint32_t nst = sv_source_stack_count(src), nf = sv_source_frame_count(src);
	size_t ns = sv_source_sample_count(src);
	pw_ctx c;
	memset(&c, 0, sizeof(c));
	c.src = src;
	sv_idmap_init(&c.strs.index);
	sv_idmap_init(&c.modules);
	double *metric = calloc((size_t)nst + 1, sizeof(*metric)); /* per stack; [nst] = no stack */
	double *count = calloc((size_t)nst + 1, sizeof(*count));
	c.loc_of = calloc((size_t)nf + 1, sizeof(*c.loc_of));
	c.locs = malloc(((size_t)nf + 1) * sizeof(*c.locs));
	c.locp = malloc(((size_t)nf + 1) * sizeof(*c.locp));
	c.lines = malloc(((size_t)nf + 1) * sizeof(*c.lines));
	c.linep = malloc(((size_t)nf + 1) * sizeof(*c.linep));
	c.fns = malloc(((size_t)nf + 1) * sizeof(*c.fns));
	c.fnp = malloc(((size_t)nf + 1) * sizeof(*c.fnp));
	c.qualify = calloc((size_t)nf + 1, 1);
	pb_sample *samples = NULL, **samplep = NULL;
	uint64_t *ids = NULL;
	int64_t *values = NULL;
	pb_label *labels = NULL, **labelp = NULL;
	pb_mapping **mapp = NULL;
	pw_gz g;
	bool z_open = false;
	int rc = SV_ENOMEM;
	int64_t empty;
	if (!metric || !count || !c.loc_of || !c.locs || !c.locp || !c.lines || !c.linep || !c.fns || !c.fnp ||
	    !c.qualify || pw_str(&c.strs, "", 0, &empty) || pw_qualify(&c, nf))
		goto out;
	const sv_stack_id *stk = sv_source_sample_stacks(src);
	sv_samples smp = sv_source_samples(src);
	for (size_t i = 0; i < ns; i++) {
		size_t k = stk[i] == SV_STACK_NONE ? nst : stk[i];
		metric[k] += sv_sample_metric(&smp, i);
		count[k] += sv_sample_count(&smp, i);
	}
	/* What the values are: the sample count, and the metric (times in nanoseconds). */
	const char *ev = sv_source_event_name(src), *unit = sv_source_unit(src);
	bool ms = unit && strcmp(unit, "ms") == 0;
	const char *mtype = ev ? ev : ms ? "cpu" : "value";
	const char *munit = ms ? "nanoseconds" : unit && strcmp(unit, mtype) != 0 ? unit : "count";
	bool two = strcmp(mtype, "samples") != 0;
	double mscale = ms ? 1e6 : 1;
	size_t nv = two ? 2 : 1;
	pb_valuetype vt[2] = { PERFTOOLS__PROFILES__VALUE_TYPE__INIT, PERFTOOLS__PROFILES__VALUE_TYPE__INIT };
	pb_valuetype *vtp[2] = { &vt[0], &vt[1] };
	if ((two && (pw_str(&c.strs, "samples", 7, &vt[0].type) || pw_str(&c.strs, "count", 5, &vt[0].unit))) ||
	    pw_str(&c.strs, mtype, strlen(mtype), &vt[nv - 1].type) || pw_str(&c.strs, munit, strlen(munit), &vt[nv - 1].unit))
		goto out;
	/* Pass 1: how many samples, locations and labels. */
	size_t nsamples = 0, nids = 0, nlabels = 0;
	for (size_t k = 0; k <= nst; k++) {
		if (metric[k] == 0 && count[k] == 0)
			continue;
		nsamples++;
		for (sv_stack_id s = k == nst ? SV_STACK_NONE : (sv_stack_id)k; s != SV_STACK_NONE; s = sv_source_stack_caller(src, s)) {
			nids++;
			nlabels += is_label(sv_source_frame_name(src, sv_source_stack_frame(src, s)));
		}
	}
	samples = malloc((nsamples + 1) * sizeof(*samples));
	samplep = malloc((nsamples + 1) * sizeof(*samplep));
	ids = malloc((nids + 1) * sizeof(*ids));
	values = malloc((nsamples * nv + 1) * sizeof(*values));
	labels = malloc((nlabels + 1) * sizeof(*labels));
	labelp = malloc((nlabels + 1) * sizeof(*labelp));
	if (!samples || !samplep || !ids || !values || !labels || !labelp)
		goto out;
	/* Pass 2: the samples, leaf first; root frames `Label key=value` become labels. */
	size_t si = 0, ii = 0, li = 0;
	for (size_t k = 0; k <= nst; k++) {
		if (metric[k] == 0 && count[k] == 0)
			continue;
		pb_sample s = PERFTOOLS__PROFILES__SAMPLE__INIT;
		s.location_id = &ids[ii];
		s.label = &labelp[li];
		/* From the root: frames `Label key=value` until the first that is not one. */
		size_t depth = 0, root_labels = 0;
		for (sv_stack_id st = k == nst ? SV_STACK_NONE : (sv_stack_id)k; st != SV_STACK_NONE;
		     st = sv_source_stack_caller(src, st), depth++)
			root_labels = is_label(sv_source_frame_name(src, sv_source_stack_frame(src, st))) ? root_labels + 1 : 0;
		size_t d = 0;
		for (sv_stack_id st = k == nst ? SV_STACK_NONE : (sv_stack_id)k; st != SV_STACK_NONE;
		     st = sv_source_stack_caller(src, st), d++) {
			sv_frame_id fr = sv_source_stack_frame(src, st);
			if (d < depth - root_labels) {
				if ((rc = pw_location(&c, fr, &ids[ii++])))
					goto out;
				s.n_location_id++;
				continue;
			}
			const char *text = sv_source_frame_name(src, fr) + sizeof(LABEL_PREFIX) - 1;
			const char *eq = strchr(text, '=');
			pb_label l = PERFTOOLS__PROFILES__LABEL__INIT;
			if ((rc = pw_str(&c.strs, text, (size_t)(eq - text), &l.key)) ||
			    (rc = pw_str(&c.strs, eq + 1, strlen(eq + 1), &l.str)))
				goto out;
			labels[li] = l;
			labelp[li] = &labels[li];
			li++;
			s.n_label++;
		}
		s.value = &values[si * nv];
		s.n_value = nv;
		if (two)
			s.value[0] = round64(count[k]);
		s.value[nv - 1] = round64(metric[k] * mscale);
		samples[si] = s;
		samplep[si] = &samples[si];
		si++;
	}
	mapp = malloc((c.nmaps + 1) * sizeof(*mapp));
	if (!mapp) {
		rc = SV_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c.nmaps; i++)
		mapp[i] = &c.maps[i];
	pb_profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	p.n_sample_type = nv;
	p.sample_type = vtp;
	p.n_sample = si;
	p.sample = samplep;
	p.n_mapping = c.nmaps;
	p.mapping = mapp;
	p.n_location = c.nlocs;
	p.location = c.locp;
	p.n_function = c.nlocs;
	p.function = c.fnp;
	p.n_string_table = c.strs.n;
	p.string_table = c.strs.s;
	p.period_type = vtp[nv - 1];
	p.default_sample_type = vt[nv - 1].type;
	if (ms && sv_source_scaling(src) == SV_SCALING_TIME && ns)
		p.duration_nanos = round64((sv_source_time_limit(src) - sv_source_first_time(src)) * 1e6);
	memset(&g, 0, sizeof(g));
	g.base.append = gz_append;
	g.f = f;
	if (deflateInit2(&g.z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		rc = SV_ENOMEM;
		goto out;
	}
	z_open = true;
	perftools__profiles__profile__pack_to_buffer(&p, &g.base);
	g.z.next_in = NULL;
	g.z.avail_in = 0;
	if (!g.failed)
		gz_pump(&g, Z_FINISH);
	rc = sv_write_check(f, err);
	if (!rc && g.failed)
		rc = sv_error_set(err, SV_EIO, "compressing the profile failed");
out:
	if (rc == SV_ENOMEM)
		sv_error_set(err, SV_ENOMEM, NULL);
	if (z_open)
		deflateEnd(&g.z);
	for (size_t i = 0; i < c.strs.n; i++)
		free(c.strs.s[i]);
	free(c.strs.s);
	sv_idmap_dispose(&c.strs.index);
	sv_idmap_dispose(&c.modules);
	free(c.maps);
	free(mapp);
	free(metric);
	free(count);
	free(c.loc_of);
	free(c.locs);
	free(c.locp);
	free(c.lines);
	free(c.linep);
	free(c.fns);
	free(c.fnp);
	free(c.qualify);
	free(samples);
	free(samplep);
	free(ids);
	free(values);
	free(labels);
	free(labelp);
	return rc;
}

