/* SPDX-License-Identifier: MIT */
/* pprof profiles (profile.proto: formats/json/pprof.proto, gzip or plain), reader and writer
 * (spec/formats.md, docs/input-json.md "pprof").
 *
 * Reading: protobuf-c decodes the profile's tables whole (small: functions, locations,
 * strings) and its samples one at a time, so memory follows what the source keeps, not what
 * a file declares (a few hundred KB of gzip can declare 75 million samples). Every sample type is an event;
 * the selected one (--event, else default_sample_type, else the last, as pprof) is the
 * metric, times converted to ms. A location's lines become frames `module!function`, the
 * inlined ones below their caller; a sample's string labels become root frames
 * `Label key=value`. pprof keeps no per-sample time: every sample is at time 0.
 *
 * The writer is pprof_write.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/export_int.h"
#include "perf/perf_int.h"
#include "pprof_int.h"
#include "sv/array.h"
#include "sv/idmap.h"


/* ---- reader ---- */

static bool varint(const unsigned char *d, size_t n, size_t *i, uint64_t *out);

/* The next top-level field of a message at d[*i..n): its number, where it starts (its tag)
 * and, for a length-delimited one, its bytes; *i moves past it. 1, 0 at the end, -1 when the
 * bytes do not read as a field. */
static int next_field(const unsigned char *d, size_t n, size_t *i, uint64_t *field, size_t *start,
		      const unsigned char **val, size_t *vlen)
{
	uint64_t key, v;
	if (*i >= n)
		return 0;
	*start = *i;
	if (!varint(d, n, i, &key))
		return -1;
	*field = key >> 3;
	*val = NULL;
	*vlen = 0;
	switch (key & 7) {
	case 0:
		return varint(d, n, i, &v) ? 1 : -1;
	case 1:
		return n - *i >= 8 ? (*i += 8, 1) : -1;
	case 5:
		return n - *i >= 4 ? (*i += 4, 1) : -1;
	case 2:
		if (!varint(d, n, i, &v) || v > n - *i)
			return -1;
		*val = d + *i;
		*vlen = (size_t)v;
		*i += (size_t)v;
		return 1;
	default:
		return -1;
	}
}

enum { PP_FIELD_SAMPLE = 2 };

typedef struct pp_ctx {
	const pb_profile *p;
	const sv_input *in;
	sv_sink *sink;
	sv_error *err;
	sv_idmap fn, loc, map;     /* id -> index */
	sv_frame_id *lframes;      /* frames of every location, root first */
	size_t *loff;              /* location index -> first of its frames in lframes */
	uint32_t *ln;              /* location index -> how many */
	size_t nlframes, lframes_cap;
	uint32_t *llocs;           /* per frame of lframes: its code location (SV_LOC_NONE: none) */
	size_t llocs_cap;
	bool code;                 /* the sink keeps code locations and paths */
	/* code files (annotate): each mapping's ELF file, found as perf.data's are (--symfs,
	 * build id in the debug directories), opened on its first location */
	const sv_import_opts *opts;
	sv_perf_syms *syms;
	sv_perf_dso **map_dso;     /* per mapping: its file, NULL when it has none */
	uint32_t *map_file;        /* per mapping: its code file + 1, 0 not looked at yet */
	char *name;                /* scratch for frame names */
	size_t name_cap;
	const pb_label **labels;
	size_t labels_cap;
} pp_ctx;

static int pp_fail(pp_ctx *c, const char *fmt, ...) SV_PRINTF(2, 3);
static int pp_fail(pp_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sv_error_vset(c->err, SV_EFORMAT, fmt, ap);
	va_end(ap);
	sv_error_locate(c->err, c->in->name, 0, -1);
	return SV_EFORMAT;
}

/* String `i` of the table; index 0 is always "" (also in a profile with no table). */
static int str_at(pp_ctx *c, int64_t i, const char **out, const char *what, uint64_t k)
{
	if (i == 0) {
		*out = "";
		return 0;
	}
	if (i < 0 || (uint64_t)i >= c->p->n_string_table)
		return pp_fail(c, "%s %llu: string %lld is not in the string table (%zu strings)", what,
			       (unsigned long long)k, (long long)i, c->p->n_string_table);
	*out = c->p->string_table[i];
	return 0;
}

static int index_ids(pp_ctx *c, sv_idmap *m, size_t n, uint64_t (*id)(const pp_ctx *, size_t), const char *what)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t k = id(c, i);
		if (k == 0)
			return pp_fail(c, "%s %zu has id 0 (ids start at 1)", what, i + 1);
		if (sv_idmap_get(m, k) != SV_IDMAP_NONE)
			return pp_fail(c, "two %ss have id %llu", what, (unsigned long long)k);
		if (sv_idmap_put(m, k, (uint32_t)i))
			return SV_ENOMEM;
	}
	return 0;
}
static uint64_t fn_id(const pp_ctx *c, size_t i) { return c->p->function[i]->id; }
static uint64_t loc_id(const pp_ctx *c, size_t i) { return c->p->location[i]->id; }
static uint64_t map_id(const pp_ctx *c, size_t i) { return c->p->mapping[i]->id; }

static int put_name(pp_ctx *c, const char *module, const char *sym, size_t *len)
{
	size_t m = strlen(module), s = strlen(sym);
	size_t need = m + (m ? 1 : 0) + s + 1;
	if (SV_ARRAY_RESERVE(c->name, c->name_cap, need))
		return SV_ENOMEM;
	memcpy(c->name, module, m);
	if (m)
		c->name[m++] = '!';
	memcpy(c->name + m, sym, s + 1);
	*len = m + s;
	return 0;
}

/* The module of a location: its mapping's file name without the directory. */
static int module_of(pp_ctx *c, const pb_location *l, const char **out)
{
	*out = "";
	if (!l->mapping_id)
		return 0;
	uint32_t mi = sv_idmap_get(&c->map, l->mapping_id);
	if (mi == SV_IDMAP_NONE)
		return pp_fail(c, "location %llu: mapping %llu is not in the mapping table", (unsigned long long)l->id,
			       (unsigned long long)l->mapping_id);
	const char *file;
	int rc = str_at(c, c->p->mapping[mi]->filename, &file, "mapping", c->p->mapping[mi]->id);
	if (rc)
		return rc;
	const char *slash = strrchr(file, '/');
	*out = slash && slash[1] ? slash + 1 : file;
	return 0;
}

/* A build id as pprof writes it (hex) in bytes; 0 when it is none or not hex (Go's own ids). */
static size_t build_id_bytes(const char *hex, unsigned char *out, size_t max)
{
	size_t n = strlen(hex);
	if (!n || n % 2 || n / 2 > max)
		return 0;
	for (size_t i = 0; i < n; i += 2) {
		unsigned v = 0;
		for (size_t j = 0; j < 2; j++) {
			char ch = hex[i + j];
			int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
			if (d < 0)
				return 0;
			v = v << 4 | (unsigned)d;
		}
		out[i / 2] = (unsigned char)v;
	}
	return n / 2;
}

/* The code file of a location's mapping (*file SV_LOC_NONE when the file is not found) and
 * the location's address in it as the file's own addresses go (*addr): pprof's addresses are
 * the process's, the mapping says where the file was (start, offset). */
static int code_file(pp_ctx *c, const pb_location *l, uint32_t *file, uint64_t *addr)
{
	*file = SV_LOC_NONE;
	uint32_t mi = l->mapping_id ? sv_idmap_get(&c->map, l->mapping_id) : SV_IDMAP_NONE;
	if (mi == SV_IDMAP_NONE || !c->sink->ops->intern_code_file)
		return 0;
	const pb_mapping *m = c->p->mapping[mi];
	if (!c->map_file[mi]) {
		c->map_file[mi] = UINT32_MAX;
		const char *path, *bid;
		int rc;
		if ((rc = str_at(c, m->filename, &path, "mapping", m->id)) || (rc = str_at(c, m->build_id, &bid, "mapping", m->id)))
			return rc;
		if (path[0] != '/')
			return 0;
		unsigned char id[20];
		size_t idn = build_id_bytes(bid, id, sizeof(id));
		sv_perf_dso *d;
		if ((rc = sv_perf_dso_for(&c->syms, c->opts, path, strlen(path), id, idn, &d)) || !d)
			return rc;
		uint32_t f;
		if ((rc = c->sink->ops->intern_code_file(c->sink->self, &f, d->elf_path)))
			return rc;
		c->map_dso[mi] = d;
		c->map_file[mi] = f + 1;
	}
	if (c->map_file[mi] == UINT32_MAX || l->address < m->memory_start || l->address >= m->memory_limit)
		return 0;
	*file = c->map_file[mi] - 1;
	*addr = sv_perf_dso_addr(c->map_dso[mi], l->address - m->memory_start + m->file_offset);
	return 0;
}

/* A location line's code location (its address, in its mapping's file when that is found; its
 * source file and line when the profile gives them, for Goto Source), when the sink keeps
 * them. */
static int code_location(pp_ctx *c, const pb_location *l, size_t k, sv_frame_id frame, uint32_t *out)
{
	*out = SV_LOC_NONE;
	if (!c->code)
		return 0;
	const sv_sink_ops *ops = c->sink->ops;
	uint32_t cf;
	uint64_t addr = l->address;
	int rc = code_file(c, l, &cf, &addr);
	if (!rc)
		rc = ops->intern_location(c->sink->self, out, frame, cf, addr);
	if (rc || !l->n_line || l->line[k]->line <= 0 || l->line[k]->line > UINT32_MAX)
		return rc;
	uint32_t fi = sv_idmap_get(&c->fn, l->line[k]->function_id);
	const char *file;
	if ((rc = str_at(c, c->p->function[fi]->filename, &file, "function", c->p->function[fi]->id)))
		return rc;
	return file[0] ? ops->set_location_line(c->sink->self, *out, file, (uint32_t)l->line[k]->line) : 0;
}

/* Every location's frames, root first: its last line is the function the address is in,
 * the lines before it were inlined into it. An unsymbolized location is its address. */
static int location_frames(pp_ctx *c)
{
	const pb_profile *p = c->p;
	const sv_sink_ops *so = c->sink->ops;
	c->code = so->intern_location && so->intern_code_path && so->set_location_line && so->add_sample_at &&
		  !(c->opts && c->opts->no_code && !c->opts->code_notes); /* (per location, not per sample) */
	c->loff = malloc((p->n_location + 1) * sizeof(*c->loff));
	c->ln = malloc((p->n_location + 1) * sizeof(*c->ln));
	c->map_dso = calloc(p->n_mapping + 1, sizeof(*c->map_dso));
	c->map_file = calloc(p->n_mapping + 1, sizeof(*c->map_file));
	if (!c->loff || !c->ln || !c->map_dso || !c->map_file)
		return SV_ENOMEM;
	const sv_sink_ops *ops = c->sink->ops;
	int rc;
	for (size_t i = 0; i < p->n_location; i++) {
		const pb_location *l = p->location[i];
		const char *module;
		if ((rc = module_of(c, l, &module)))
			return rc;
		c->loff[i] = c->nlframes;
		c->ln[i] = 0;
		size_t nl = l->n_line ? l->n_line : 1;
		if (nl > SV_MAX_STACK_DEPTH)
			return pp_fail(c, "location %llu has %zu lines (at most %u)", (unsigned long long)l->id, nl,
				       SV_MAX_STACK_DEPTH);
		if (SV_ARRAY_RESERVE(c->lframes, c->lframes_cap, c->nlframes + nl) ||
		    SV_ARRAY_RESERVE(c->llocs, c->llocs_cap, c->nlframes + nl))
			return SV_ENOMEM;
		for (size_t k = nl; k-- > 0;) {
			size_t len;
			if (!l->n_line) {
				char addr[32];
				snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)l->address);
				rc = put_name(c, module, addr, &len);
			} else {
				const pb_line *ln = l->line[k];
				uint32_t fi = sv_idmap_get(&c->fn, ln->function_id);
				if (fi == SV_IDMAP_NONE)
					return pp_fail(c, "location %llu: function %llu is not in the function table",
						       (unsigned long long)l->id, (unsigned long long)ln->function_id);
				const pb_function *f = p->function[fi];
				const char *name;
				if ((rc = str_at(c, f->name, &name, "function", f->id)))
					return rc;
				if (!name[0] && (rc = str_at(c, f->system_name, &name, "function", f->id)))
					return rc;
				rc = put_name(c, module, name[0] ? name : "?", &len);
			}
			if (rc)
				return rc;
			if (len > SV_MAX_NAME_LEN)
				return pp_fail(c, "location %llu: a name of %zu bytes (at most %u)", (unsigned long long)l->id,
					       len, SV_MAX_NAME_LEN);
			if ((rc = ops->intern_frame(c->sink->self, &c->lframes[c->nlframes], c->name, len)) ||
			    (rc = code_location(c, l, k, c->lframes[c->nlframes], &c->llocs[c->nlframes])))
				return rc;
			c->nlframes++;
			c->ln[i]++;
		}
	}
	return 0;
}

static double unit_ms(const char *u)
{
	static const struct {
		const char *name;
		double ms;
	} units[] = { { "nanoseconds", 1e-6 }, { "microseconds", 1e-3 }, { "milliseconds", 1 }, { "seconds", 1e3 } };
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(u, units[i].name) == 0)
			return units[i].ms;
	return 0;
}

/* Which value counts the samples beside the metric: the metric itself when it is a count,
 * else the count of the same prefix (alloc_space -> alloc_objects), else the only other
 * count (cpu -> samples, delay -> contentions); -1 = none (each pprof sample counts 1). */
static long count_index(const char *const *type, const char *const *unit, size_t n, size_t sel)
{
	if (strcmp(unit[sel], "count") == 0)
		return (long)sel;
	const char *us = strchr(type[sel], '_');
	size_t pre = us ? (size_t)(us - type[sel]) : 0;
	long only = -1;
	size_t counts = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == sel || strcmp(unit[i], "count") != 0)
			continue;
		if (pre && strncmp(type[i], type[sel], pre + 1) == 0)
			return (long)i;
		only = (long)i;
		counts++;
	}
	return counts == 1 ? only : -1;
}

static int label_cmp(const void *x, const void *y, void *arg)
{
	const pp_ctx *c = arg;
	const pb_label *a = *(const pb_label *const *)x, *b = *(const pb_label *const *)y;
	const char *const *t = (const char *const *)c->p->string_table;
	int d = strcmp(t[a->key], t[b->key]);
	return d ? d : strcmp(t[a->str], t[b->str]);
}

static void human_ns(char *out, size_t n, double ns)
{
	if (ns >= 1e9)
		snprintf(out, n, "%.3g s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(out, n, "%.3g ms", ns / 1e6);
	else
		snprintf(out, n, "%.0f ns", ns);
}

/* What `info` shows: the sample types, the period, when and how long; and that there are no
 * per-sample times. */
static int describe(pp_ctx *c, const char *const *type, const char *const *unit, size_t sel, size_t numeric_labels,
		    const char *numeric_key)
{
	const pb_profile *p = c->p;
	char msg[900];
	size_t o = (size_t)snprintf(msg, sizeof(msg), "pprof sample types:");
	for (size_t i = 0; i < p->n_sample_type && o < sizeof(msg); i++)
		o += (size_t)snprintf(msg + o, sizeof(msg) - o, "%s %s/%s%s", i ? "," : "", type[i], unit[i],
				      i == sel ? " (shown)" : "");
	int rc = sv_sink_note(c->sink, SV_NOTE_INFO, "%s", msg);
	if (!rc && p->period_type && p->period) {
		const char *pt = "", *pu = "";
		if (!(rc = str_at(c, p->period_type->type, &pt, "period type", 0)) &&
		    !(rc = str_at(c, p->period_type->unit, &pu, "period type", 0)))
			rc = sv_sink_note(c->sink, SV_NOTE_INFO, "sampling period: %lld %s of %s", (long long)p->period, pu, pt);
	}
	if (!rc && (p->time_nanos || p->duration_nanos)) {
		char when[64] = "", dur[32] = "";
		if (p->time_nanos) {
			time_t t = (time_t)(p->time_nanos / 1000000000);
			struct tm tm;
			if (gmtime_r(&t, &tm))
				strftime(when, sizeof(when), " at %Y-%m-%d %H:%M:%S UTC", &tm);
		}
		if (p->duration_nanos)
			human_ns(dur, sizeof(dur), (double)p->duration_nanos);
		rc = sv_sink_note(c->sink, SV_NOTE_INFO, "recorded%s%s%s", when, dur[0] ? " for " : "", dur);
	}
	if (!rc)
		rc = sv_sink_note(c->sink, SV_NOTE_INFO, "pprof keeps no time per sample: every sample is at time 0, so When and "
					   "time ranges have nothing to select");
	for (size_t i = 0; !rc && i < p->n_comment; i++) {
		const char *s;
		if (!(rc = str_at(c, p->comment[i], &s, "comment", i + 1)))
			rc = sv_sink_note(c->sink, SV_NOTE_INFO, "comment: %s", s);
	}
	if (!rc && numeric_labels)
		rc = sv_sink_note(c->sink, SV_NOTE_INFO, "%zu numeric labels (such as '%s') are not shown as frames", numeric_labels,
			  numeric_key);
	/* whether annotate can read the code: the mappings' binaries found here, or the first not */
	size_t found = 0, missing = 0, first_missing = 0;
	for (size_t i = 0; c->map_file && i < p->n_mapping; i++) {
		if (c->map_file[i] && c->map_file[i] != UINT32_MAX)
			found++;
		else if (c->map_file[i] && !missing++)
			first_missing = i;
	}
	const char *path = "";
	if (!rc && found)
		rc = sv_sink_note(c->sink, SV_NOTE_INFO, "code for annotate: %zu of %zu binaries found", found, found + missing);
	else if (!rc && missing && !(rc = str_at(c, p->mapping[first_missing]->filename, &path, "mapping", 0)) && path[0] == '/')
		rc = sv_sink_note(c->sink, SV_NOTE_INFO,
				  "code for annotate: %s is not here (annotate reads it at that path, or under --symfs DIR)", path);
	if (!rc && (p->drop_frames || p->keep_frames)) {
		const char *d = "", *k = "";
		if (!(rc = str_at(c, p->drop_frames, &d, "drop_frames", 0)) && !(rc = str_at(c, p->keep_frames, &k, "keep_frames", 0)))
			rc = sv_sink_note(c->sink, SV_NOTE_WARNING, "the profile's drop_frames '%s' / keep_frames '%s' are not applied", d, k);
	}
	return rc;
}

static int select_type(pp_ctx *c, const sv_import_opts *opts, const char *const *type, size_t *sel)
{
	const pb_profile *p = c->p;
	size_t n = p->n_sample_type;
	const char *want = opts->event;
	const char *dflt = "";
	int rc;
	if (!want && p->default_sample_type && (rc = str_at(c, p->default_sample_type, &dflt, "default_sample_type", 0)))
		return rc;
	if (!want && dflt[0])
		want = dflt;
	*sel = n - 1; /* pprof's default: the last sample type */
	if (!want)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(type[i], want) == 0) {
			*sel = i;
			return 0;
		}
	if (!opts->event)
		return 0; /* a default_sample_type that names nothing: pprof's default */
	char msg[512];
	size_t o = (size_t)snprintf(msg, sizeof(msg), "no samples of event '%s'; the file has:", opts->event);
	for (size_t i = 0; i < n && o < sizeof(msg); i++)
		o += (size_t)snprintf(msg + o, sizeof(msg) - o, "%s %s", i ? "," : "", type[i]);
	return sv_error_set(c->err, SV_EINVAL, "%s", msg);
}

/* One sample into the sink (those whose selected value is 0 are left out, as pprof does);
 * nonzero[t] counts the samples with a value of type t. */
static int pp_sample(pp_ctx *c, const pb_sample *s, size_t i, size_t sel, long ci, double scale, size_t *numeric,
		     const char **numeric_key, size_t *nonzero)
{
	const pb_profile *p = c->p;
	const sv_sink_ops *ops = c->sink->ops;
	int rc;
	if (s->n_value != p->n_sample_type)
		return pp_fail(c, "sample %zu has %zu values for %zu sample types", i + 1, s->n_value, p->n_sample_type);
	for (size_t t = 0; t < s->n_value; t++)
		nonzero[t] += s->value[t] != 0;
	double metric = (double)s->value[sel] * scale;
	if (s->value[sel] == 0)
		return 0;
	double count = ci < 0 ? 1 : (double)s->value[ci];
	sv_stack_id st = SV_STACK_NONE;
	/* string labels, sorted by key, as root frames */
	size_t nl = 0;
	if (SV_ARRAY_RESERVE(c->labels, c->labels_cap, s->n_label))
		return SV_ENOMEM;
	for (size_t k = 0; k < s->n_label; k++) {
		const pb_label *l = s->label[k];
		const char *key, *val;
		if ((rc = str_at(c, l->key, &key, "sample", i + 1)) || (rc = str_at(c, l->str, &val, "sample", i + 1)))
			return rc;
		if (!l->str) {
			if (!*numeric)
				*numeric_key = key;
			(*numeric)++;
			continue;
		}
		c->labels[nl++] = l;
	}
	if (nl > 1)
		qsort_r(c->labels, nl, sizeof(*c->labels), label_cmp, c);
	for (size_t k = 0; k < nl; k++) {
		const char *key = p->string_table[c->labels[k]->key], *val = p->string_table[c->labels[k]->str];
		size_t kl = strlen(key), vl = strlen(val), need = sizeof(LABEL_PREFIX) + kl + 1 + vl;
		if (need > SV_MAX_NAME_LEN)
			return pp_fail(c, "sample %zu: a label of %zu bytes", i + 1, need);
		if (SV_ARRAY_RESERVE(c->name, c->name_cap, need))
			return SV_ENOMEM;
		int len = snprintf(c->name, need, LABEL_PREFIX "%s=%s", key, val);
		sv_frame_id f;
		if ((rc = ops->intern_frame(c->sink->self, &f, c->name, (size_t)len)) ||
		    (rc = ops->intern_stack(c->sink->self, &st, st, f)))
			return rc;
	}
	uint32_t path = SV_LOC_NONE;
	for (size_t k = s->n_location_id; k-- > 0;) {
		uint32_t li = sv_idmap_get(&c->loc, s->location_id[k]);
		if (li == SV_IDMAP_NONE)
			return pp_fail(c, "sample %zu: location %llu is not in the location table", i + 1,
				       (unsigned long long)s->location_id[k]);
		for (uint32_t j = 0; j < c->ln[li]; j++) {
			size_t at = c->loff[li] + j;
			if ((rc = ops->intern_stack(c->sink->self, &st, st, c->lframes[at])))
				return rc;
			if (c->code && c->llocs[at] != SV_LOC_NONE &&
			    (rc = ops->intern_code_path(c->sink->self, &path, path, c->llocs[at])))
				return rc;
		}
	}
	return path != SV_LOC_NONE ? ops->add_sample_at(c->sink->self, st, 0, metric, count, path)
				   : ops->add_sample(c->sink->self, st, 0, metric, count);
}

/* The samples, decoded one at a time from the message's sample fields. */
static int pp_samples(pp_ctx *c, size_t sel, long ci, double scale, size_t *numeric, const char **numeric_key,
		      size_t *nonzero)
{
	const unsigned char *d = c->in->data, *val;
	size_t n = c->in->len, at = 0, start, vlen;
	uint64_t field;
	int rc = 0, got;
	for (size_t k = 0; !rc && (got = next_field(d, n, &at, &field, &start, &val, &vlen)) == 1;) {
		if (field != PP_FIELD_SAMPLE)
			continue;
		pb_sample *s = perftools__profiles__sample__unpack(NULL, vlen, val);
		if (!s)
			return pp_fail(c, "sample %zu does not decode (at byte %zu of the profile)", k + 1, start);
		rc = pp_sample(c, s, k, sel, ci, scale, numeric, numeric_key, nonzero);
		perftools__profiles__sample__free_unpacked(s, NULL);
		if (!rc && (k & 0xffff) == 0)
			rc = sv_input_progress(c->in, start, c->err);
		k++;
	}
	return rc;
}

static int pp_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	static const sv_import_opts none = { 0 };
	if (!opts)
		opts = &none;
	pp_ctx c = { .in = in, .sink = sink, .err = err, .opts = opts };
	sv_idmap_init(&c.fn);
	sv_idmap_init(&c.loc);
	sv_idmap_init(&c.map);
	const char **type = NULL, **unit = NULL;
	size_t *nonzero = NULL;
	pb_profile *p = NULL;
	int rc = 0;
	/* Everything but the samples, decoded whole: the tables (a copy of the message's other
	 * fields, no larger than the input); the samples are read one at a time later. */
	unsigned char *rest = malloc(in->len ? in->len : 1);
	size_t nrest = 0, at = 0, start, vlen;
	const unsigned char *val;
	uint64_t field;
	int got;
	if (!rest) {
		rc = SV_ENOMEM;
		goto out;
	}
	while ((got = next_field(in->data, in->len, &at, &field, &start, &val, &vlen)) == 1)
		if (field != PP_FIELD_SAMPLE) {
			memcpy(rest + nrest, in->data + start, at - start);
			nrest += at - start;
		}
	if (got < 0) {
		free(rest);
		rc = pp_fail(&c, "not a pprof profile: the protocol buffer does not decode at byte %zu (truncated or corrupt)", start);
		goto out;
	}
	p = perftools__profiles__profile__unpack(NULL, nrest, rest);
	free(rest);
	if (!p) {
		rc = pp_fail(&c, "not a pprof profile: its tables do not decode (corrupt, or too large for the memory at hand)");
		goto out;
	}
	c.p = p;
	if (!p->n_sample_type) {
		rc = pp_fail(&c, "the profile has no sample types");
		goto out;
	}
	if (p->n_string_table && p->string_table[0][0]) {
		rc = pp_fail(&c, "the string table does not start with \"\"");
		goto out;
	}
	if ((rc = index_ids(&c, &c.fn, p->n_function, fn_id, "function")) ||
	    (rc = index_ids(&c, &c.loc, p->n_location, loc_id, "location")) ||
	    (rc = index_ids(&c, &c.map, p->n_mapping, map_id, "mapping")))
		goto out;
	type = calloc(p->n_sample_type, sizeof(*type));
	unit = calloc(p->n_sample_type, sizeof(*unit));
	if (!type || !unit) {
		rc = SV_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < p->n_sample_type; i++)
		if ((rc = str_at(&c, p->sample_type[i]->type, &type[i], "sample type", i + 1)) ||
		    (rc = str_at(&c, p->sample_type[i]->unit, &unit[i], "sample type", i + 1)))
			goto out;
	size_t sel;
	if ((rc = select_type(&c, opts, type, &sel)))
		goto out;
	if (!(nonzero = calloc(p->n_sample_type, sizeof(*nonzero)))) {
		rc = SV_ENOMEM;
		goto out;
	}
	double ms = unit_ms(unit[sel]);
	if (!rc && sink->ops->set_unit)
		rc = sink->ops->set_unit(sink->self, ms ? "ms" : unit[sel]);
	if (!rc && sink->ops->set_scaling)
		rc = sink->ops->set_scaling(sink->self, SV_SCALING_DATA);
	size_t numeric = 0;
	const char *numeric_key = "";
	if (rc || (rc = location_frames(&c)) ||
	    (rc = pp_samples(&c, sel, count_index(type, unit, p->n_sample_type, sel), ms ? ms : 1, &numeric, &numeric_key,
			     nonzero)))
		goto out;
	/* every sample type is an event, with the samples that have a value of it */
	for (size_t i = 0; sink->ops->add_event && i < p->n_sample_type && !rc; i++)
		rc = sink->ops->add_event(sink->self, type[i], nonzero[i], i == sel);
	if (rc)
		goto out;
	rc = describe(&c, type, unit, sel, numeric, numeric_key);
out:
	if (rc == SV_ENOMEM)
		sv_error_set(err, SV_ENOMEM, NULL);
	free(type);
	free(unit);
	free(nonzero);
	free(c.lframes);
	free(c.llocs);
	free(c.loff);
	free(c.ln);
	free(c.map_dso);
	free(c.map_file);
	if (c.syms)
		sv_perf_syms_free(c.syms);
	free(c.name);
	free(c.labels);
	sv_idmap_dispose(&c.fn);
	sv_idmap_dispose(&c.loc);
	sv_idmap_dispose(&c.map);
	if (p)
		perftools__profiles__profile__free_unpacked(p, NULL);
	return rc;
}

/* ---- probe ---- */

static bool varint(const unsigned char *d, size_t n, size_t *i, uint64_t *out)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64 && *i < n; shift += 7) {
		unsigned char b = d[(*i)++];
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return true;
		}
	}
	return false;
}

/* A ValueType: varint fields 1 and 2 only. */
static bool value_type(const unsigned char *d, size_t i, size_t end)
{
	uint64_t v;
	while (i < end) {
		if (d[i] != 0x08 && d[i] != 0x10)
			return false;
		i++;
		if (!varint(d, end, &i, &v))
			return false;
	}
	return true;
}

/* A profile message: top-level fields of pprof's numbers and wire types (the first 64, or as
 * far as a partial input goes), among them a sample type (field 1) that reads as one. Writers
 * order the fields as they like (Go writes time_nanos first). */
static bool pprof_probe(const unsigned char *d, size_t n)
{
	size_t i = 0;
	uint64_t key, len, v;
	bool sample_type = false;
	for (int fields = 0; i < n && fields < 64; fields++) {
		if (!varint(d, n, &i, &key))
			return sample_type;
		uint64_t field = key >> 3, wt = key & 7;
		bool lenfield = field <= 6 || field == 11 || field == 13 || field == 15;
		bool ok = field >= 1 && field <= 15 && (wt == 2 ? lenfield : wt == 0 && (!lenfield || field == 13));
		if (!ok)
			return false;
		if (wt == 0) {
			if (!varint(d, n, &i, &v))
				return sample_type;
			continue;
		}
		if (!varint(d, n, &i, &len))
			return sample_type;
		if (len > n - i)
			return sample_type; /* a partial input: as far as it goes */
		if (field == 1) {
			if (!value_type(d, i, i + len))
				return false;
			sample_type = true;
		}
		i += len;
	}
	return sample_type;
}

static const char *const pprof_patterns[] = { ".pb.gz", ".pprof", ".pprof.gz", ".pb", NULL };

const sv_format sv_fmt_pprof = {
	.name = "pprof", .patterns = pprof_patterns, .probe = pprof_probe, .import = pp_import,
	.export = sv_fmt_pprof_export,
};
