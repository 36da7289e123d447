/* SPDX-License-Identifier: MIT */
/* The in-memory stack source (see stackview/source.h): frames and stacks interned, samples
 * added, what it holds. Its sink is source_sink.c; its stacks' sums source_sums.c; events,
 * notes and processes source_meta.c. */
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

int sv_source_new(sv_source **out, const char *format)
{
	sv_source *src = calloc(1, sizeof(*src));
	if (!src)
		return SV_ENOMEM;
	sv_strtab_init(&src->frames);
	sv_idmap_init(&src->st_index);
	sv_idmap_init(&src->code_index);
	sv_strtab_init(&src->code_files);
	sv_strtab_init(&src->shorts);
	sv_strtab_init(&src->src_files);
	sv_idmap_init(&src->loc_index);
	sv_idmap_init(&src->cp_index);
	src->last_key = UINT64_MAX; /* no pair hashes to it before one is coded (see pair_key) */
	src->format = strdup(format ? format : "");
	src->notes = strdup("");
	src->min_time = INFINITY;
	src->max_time = -INFINITY;
	src->max_end = -INFINITY;
	if (!src->format || !src->notes) {
		sv_source_free(src);
		return SV_ENOMEM;
	}
	*out = src;
	return 0;
}

void sv_source_free(sv_source *src)
{
	if (!src)
		return;
	free(src->format);
	sv_strtab_dispose(&src->frames);
	free(src->short_off);
	free(src->st_caller);
	free(src->st_link);
	free(src->st_kid);
	free(src->st_frame);
	sv_idmap_dispose(&src->st_index);
	free(src->s_stack);
	free(src->s_time);
	free(src->s_code);
	free(src->s_metric);
	free(src->s_count);
	sv_idmap_dispose(&src->code_index);
	free(src->agg_slot);
	free(src->sums);
	sv_source_loc_free(src);
	sv_strtab_dispose(&src->shorts);
	free(src->short_id);
	free(src->short_rank);
	free(src->short_entry_rank);
	if (src->saved) {
		sv_params_dispose(src->saved);
		free(src->saved);
	}
	free(src->notes);
	for (size_t i = 0; i < src->nevents; i++)
		free(src->events[i].name);
	free(src->events);
	for (size_t i = 0; i < src->ninotes; i++)
		free(src->inotes[i].text);
	free(src->inotes);
	for (size_t i = 0; i < src->nuser_mods; i++)
		free(src->user_mods[i]);
	free(src);
}

/* Short name (spec §1.4): when the name has a `!` at position > 0, drop everything up to and
 * including the last `\` or `/` before that first `!`. */
uint32_t sv_source_short_offset(const char *name, size_t len)
{
	const char *bang = memchr(name, '!', len);
	if (!bang || bang == name)
		return 0;
	uint32_t off = 0;
	for (const char *p = name; p < bang; p++)
		if (*p == '\\' || *p == '/')
			off = (uint32_t)(p - name + 1);
	return off;
}

int sv_source_intern_frame(sv_source *src, sv_frame_id *out, const char *name, size_t len)
{
	if (len > SV_MAX_NAME_LEN)
		return SV_ELIMIT;
	/* Names are C strings from here on: a NUL byte becomes U+FFFD rather than cutting the
	 * name short (every importer hands over raw bytes). */
	if (len && memchr(name, '\0', len)) {
		size_t nul = 0;
		for (size_t i = 0; i < len; i++)
			nul += name[i] == '\0';
		char *fixed = malloc(len + 2 * nul + 1);
		if (!fixed)
			return SV_ENOMEM;
		size_t o = 0;
		for (size_t i = 0; i < len; i++) {
			if (name[i]) {
				fixed[o++] = name[i];
			} else {
				memcpy(fixed + o, "\xEF\xBF\xBD", 3);
				o += 3;
			}
		}
		int rc = o > SV_MAX_NAME_LEN ? SV_ELIMIT : sv_source_intern_frame(src, out, fixed, o);
		free(fixed);
		return rc;
	}
	uint32_t before = src->frames.count;
	uint32_t id;
	int rc = sv_strtab_intern(&src->frames, &id, name, len);
	if (rc)
		return rc;
	if (src->frames.count != before) {
		if (id >= src->short_cap) {
			uint32_t ncap = src->short_cap ? src->short_cap * 2 : 256;
			uint32_t *p = realloc(src->short_off, ncap * sizeof(*p));
			if (!p)
				return SV_ENOMEM;
			src->short_off = p;
			src->short_cap = ncap;
		}
		src->short_off[id] = sv_source_short_offset(name, len);
	}
	*out = id;
	return 0;
}

void sv_source_trim(sv_source *src)
{
	if (!src->kid_only) {
		/* each stack's first callee kept, in place (each moves down: 4 bytes from 16), the
		 * rest of st_link let go */
		sv_stack_id *kid = (sv_stack_id *)src->st_link;
		for (uint32_t s = 0; s < src->nstacks; s++)
			kid[s] = src->st_link[s].kid;
		src->st_link = NULL;
		src->st_kid = kid;
		if (kid && src->st_cap) {
			sv_stack_id *k = realloc(kid, (size_t)src->st_cap * sizeof(*kid));
			src->st_kid = k ? k : kid; /* (smaller: it can only fail to move) */
		}
		src->kid_only = true;
	}
	sv_idmap_dispose(&src->st_index);
	sv_idmap_init(&src->st_index);
	src->trimmed = true;
	sv_source_loc_trim(src);
}

static uint64_t stack_key(sv_stack_id caller, sv_frame_id frame)
{
	return ((uint64_t)(caller + 1u) << 32) | frame;
}

/* st_index made again as interning made it: every stack but its caller's first. */
static int stacks_reindex(sv_source *src)
{
	for (uint32_t s = 0; s < src->nstacks; s++) {
		sv_stack_id c = src->st_caller[s];
		if (c != SV_STACK_NONE && src->st_kid[c] == s)
			continue;
		if (sv_idmap_put(&src->st_index, stack_key(c, src->st_frame[s]), s)) {
			sv_idmap_dispose(&src->st_index); /* all or nothing: the next intern tries again */
			sv_idmap_init(&src->st_index);
			return SV_ENOMEM;
		}
	}
	src->trimmed = false;
	return 0;
}

/* Room for ncap stacks in every per-stack array. */
static int stacks_grow(sv_source *src, uint32_t ncap)
{
	/* read at random (a stack's caller, its first child): on huge pages */
	if (sv_move_big(&src->st_caller, src->nstacks, ncap, sizeof(*src->st_caller)) ||
	    sv_move_big(&src->st_frame, src->nstacks, ncap, sizeof(*src->st_frame)) ||
	    (src->kid_only ? sv_move_big(&src->st_kid, src->nstacks, ncap, sizeof(*src->st_kid))
			   : sv_move_big(&src->st_link, src->nstacks, ncap, sizeof(*src->st_link))))
		return SV_ENOMEM;
	src->st_cap = ncap;
	return 0;
}

int sv_source_reserve_stacks(sv_source *src, size_t n)
{
	if (n <= src->st_cap)
		return 0;
	return stacks_grow(src, n < UINT32_MAX ? (uint32_t)n : UINT32_MAX);
}

/* caller's first callee (NONE: none yet). */
static inline sv_stack_id first_callee(const sv_source *src, sv_stack_id caller)
{
	return src->kid_only ? src->st_kid[caller] : src->st_link[caller].kid;
}

/* Whether the callee (caller, frame) is found in st_index rather than by st_link. */
static inline bool by_index(const sv_source *src, sv_stack_id caller)
{
	return caller == SV_STACK_NONE || src->kid_only || src->st_link[caller].last == LINK_INDEXED;
}

/* caller's callees but the first put in st_index (its frame bits no longer tell them apart). */
static int index_callees(sv_source *src, sv_stack_id caller)
{
	st_link *l = &src->st_link[caller];
	for (sv_stack_id s = l->last; s != SV_STACK_NONE; s = src->st_link[s].next)
		if (sv_idmap_put(&src->st_index, stack_key(caller, src->st_frame[s]), s))
			return SV_ENOMEM; /* (those put are put again next time) */
	l->last = LINK_INDEXED;
	return 0;
}

/* The callee (caller, frame) when there is one, not its caller's first (SV_IDMAP_NONE: none). */
static uint32_t find_callee(const sv_source *src, sv_stack_id caller, sv_frame_id frame)
{
	if (by_index(src, caller))
		return sv_idmap_get(&src->st_index, stack_key(caller, frame));
	for (sv_stack_id s = src->st_link[caller].last; s != SV_STACK_NONE; s = src->st_link[s].next)
		if (src->st_frame[s] == frame)
			return s;
	return SV_IDMAP_NONE;
}

int sv_source_intern_stack(sv_source *src, sv_stack_id *out, sv_stack_id caller, sv_frame_id frame)
{
	if (frame >= src->frames.count || (caller != SV_STACK_NONE && caller >= src->nstacks))
		return SV_EINVAL;
	sv_stack_id kid = caller != SV_STACK_NONE ? first_callee(src, caller) : SV_STACK_NONE;
	if (kid != SV_STACK_NONE && src->st_frame[kid] == frame) {
		*out = kid;
		return 0;
	}
	if (src->trimmed && stacks_reindex(src))
		return SV_ENOMEM;
	if (src->nstacks >= UINT32_MAX - 1) { /* full: only stacks already there */
		uint32_t id = caller != SV_STACK_NONE && kid == SV_STACK_NONE ? SV_IDMAP_NONE : find_callee(src, caller, frame);
		if (id == SV_IDMAP_NONE)
			return SV_ELIMIT;
		*out = id;
		return 0;
	}
	if (src->nstacks == src->st_cap && /* room for a new one before the one lookup */
	    stacks_grow(src, src->st_cap ? (src->st_cap > UINT32_MAX / 2 ? UINT32_MAX : src->st_cap * 2) : 1024))
		return SV_ENOMEM;
	uint32_t id = src->nstacks, bit = 1u << (frame & 31);
	bool link = false, indexed = by_index(src, caller);
	if (caller != SV_STACK_NONE && kid == SV_STACK_NONE) {
		/* a caller's first: no other can be there */
		if (src->kid_only)
			src->st_kid[caller] = id;
		else
			src->st_link[caller].kid = id;
	} else if (!indexed && !(src->st_link[caller].mask & bit)) {
		link = true; /* no callee of caller has a frame with this bit: a new one */
	} else {
		int rc = !indexed ? index_callees(src, caller) : 0;
		if (!rc)
			rc = sv_idmap_get_or_put(&src->st_index, stack_key(caller, frame), src->nstacks, &id);
		if (rc)
			return rc;
	}
	if (id == src->nstacks) {
		src->st_caller[id] = caller;
		src->st_frame[id] = frame;
		if (src->kid_only) {
			src->st_kid[id] = SV_STACK_NONE;
		} else {
			src->st_link[id] = (st_link){ SV_STACK_NONE, SV_STACK_NONE, SV_STACK_NONE, 0 };
			if (link) {
				st_link *l = &src->st_link[caller];
				src->st_link[id].next = l->last;
				l->last = id;
				l->mask |= bit;
			}
		}
		src->nstacks++;
	}
	*out = id;
	return 0;
}

int sv_source_intern_path(sv_source *src, sv_stack_id *out, const char *const *names, size_t n)
{
	sv_stack_id s = SV_STACK_NONE;
	if (n > SV_MAX_STACK_DEPTH)
		return SV_ELIMIT;
	for (size_t i = 0; i < n; i++) {
		sv_frame_id f;
		int rc = sv_source_intern_frame(src, &f, names[i], strlen(names[i]));
		if (!rc)
			rc = sv_source_intern_stack(src, &s, s, f);
		if (rc)
			return rc;
	}
	*out = s;
	return 0;
}

/* Totals and time bounds take every sample, aggregated or not. */
static void account(sv_source *src, double time, double metric, double count)
{
	if (time > src->max_time)
		src->max_time = time;
	if (time < src->min_time)
		src->min_time = time;
	double end = time + fabs(metric);
	if (end > src->max_end)
		src->max_end = end;
	src->total_metric += metric;
	src->negative |= metric < 0;
	src->total_count += count;
	src->abs_metric += fabs(metric);
}

/* ---- metric and count: coded while the distinct pairs are few ---- */

#define MAX_CODES 65536u

static uint64_t pair_key(double metric, float count)
{
	uint64_t m;
	uint32_t c;
	memcpy(&m, &metric, sizeof(m));
	memcpy(&c, &count, sizeof(c));
	uint64_t k = sv_hash_mix64(m ^ sv_hash_mix64((uint64_t)c + 0x9E3779B97F4A7C15ULL));
	return k == UINT64_MAX ? 0 : k; /* UINT64_MAX marks "no last pair" */
}

static bool same_bits(double a, double b) { return !memcmp(&a, &b, sizeof(a)); }

/* The code of (metric, count), added when new; false when the table is full or two pairs
 * share a key (then the source holds them per sample). */
static bool code_of(sv_source *src, double metric, float count, uint16_t *out)
{
	uint64_t key = pair_key(metric, count);
	if (key == src->last_key) {
		*out = src->last_code;
	} else {
		uint32_t c = sv_idmap_get(&src->code_index, key);
		if (c == SV_IDMAP_NONE) {
			if (src->ncodes == MAX_CODES)
				return false;
			if (src->ncodes == src->code_cap) {
				uint32_t ncap = src->code_cap ? src->code_cap * 4 : 16;
				double *m = realloc(src->s_metric, ncap * sizeof(*m));
				if (m)
					src->s_metric = m;
				float *n = m ? realloc(src->s_count, ncap * sizeof(*n)) : NULL;
				if (!n)
					return false;
				src->s_count = n;
				src->code_cap = ncap;
			}
			c = src->ncodes;
			if (sv_idmap_put(&src->code_index, key, c))
				return false;
			src->ncodes++;
			src->s_metric[c] = metric;
			src->s_count[c] = count;
		}
		*out = (uint16_t)c;
	}
	if (!same_bits(src->s_metric[*out], metric) || memcmp(&src->s_count[*out], &count, sizeof(count)))
		return false;
	src->last_key = key;
	src->last_code = *out;
	return true;
}

/* Every sample's own metric and count from here on. */
static int go_wide(sv_source *src)
{
	size_t cap = src->s_cap ? src->s_cap : 1;
	double *m = malloc(cap * sizeof(*m));
	float *c = malloc(cap * sizeof(*c));
	if (!m || !c) {
		free(m);
		free(c);
		return SV_ENOMEM;
	}
	for (size_t i = 0; i < src->nsamples; i++) { /* nsamples > 0: s_code is there */
		m[i] = src->s_metric[src->s_code[i]];
		c[i] = src->s_count[src->s_code[i]];
	}
	free(src->s_code);
	free(src->s_metric);
	free(src->s_count);
	sv_idmap_dispose(&src->code_index);
	src->s_code = NULL;
	src->wide = true;
	src->s_metric = m;
	src->s_count = c;
	src->ncodes = src->code_cap = 0;
	return 0;
}

/* Sample i's metric and count become these. */
static int set_pair(sv_source *src, size_t i, double metric, float count)
{
	uint16_t code;
	if (!src->wide) {
		if (code_of(src, metric, count, &code)) {
			src->s_code[i] = code;
			return 0;
		}
		int rc = go_wide(src);
		if (rc)
			return rc;
	}
	src->s_metric[i] = metric;
	src->s_count[i] = count;
	return 0;
}

/* Times are kept from the first sample whose time is not 0 (heap snapshots, folded stacks
 * and other untimed inputs keep none: 8 bytes a sample). */
static int keep_times(sv_source *src)
{
	if (src->s_time)
		return 0;
	if (!(src->s_time = calloc(src->s_cap ? src->s_cap : 1, sizeof(*src->s_time))))
		return SV_ENOMEM;
	return 0;
}

/* Aggregating: another sample of a stack already seen adds to its one sample, which keeps
 * the earliest time (with a quantum, summed in whole quanta: the sum read back rounded once). */
static int add_to(sv_source *src, size_t i, double time, double metric, double count)
{
	size_t k = src->wide ? i : src->s_code[i];
	double sum = src->s_metric[k] + metric;
	if (src->qscale)
		sum = (nearbyint(src->s_metric[k] * src->qscale) + nearbyint(metric * src->qscale)) / src->qscale;
	int rc = set_pair(src, i, sum, (float)((double)src->s_count[k] + count));
	if (rc)
		return rc;
	if (time < (src->s_time ? src->s_time[i] : 0)) {
		if ((rc = keep_times(src)))
			return rc;
		src->s_time[i] = time;
	}
	account(src, time, metric, count);
	return 0;
}

void sv_source_set_aggregate(sv_source *src, bool on)
{
	src->aggregate = on && src->nsamples == 0;
}

/* Room for ncap samples in every per-sample array there is. */
static int samples_grow(sv_source *src, size_t ncap)
{
	sv_stack_id *s = realloc(src->s_stack, ncap * sizeof(*s));
	if (!s)
		return SV_ENOMEM;
	src->s_stack = s;
	if (src->s_time) {
		double *t = realloc(src->s_time, ncap * sizeof(*t));
		if (!t)
			return SV_ENOMEM;
		src->s_time = t;
	}
	if (!src->wide) {
		uint16_t *k = realloc(src->s_code, ncap * sizeof(*k));
		if (!k)
			return SV_ENOMEM;
		src->s_code = k;
	} else {
		double *m = realloc(src->s_metric, ncap * sizeof(*m));
		if (!m)
			return SV_ENOMEM;
		src->s_metric = m;
		float *c = realloc(src->s_count, ncap * sizeof(*c));
		if (!c)
			return SV_ENOMEM;
		src->s_count = c;
	}
	if (sv_source_loc_grow(src, ncap))
		return SV_ENOMEM;
	src->s_cap = ncap;
	return 0;
}

int sv_source_reserve_samples(sv_source *src, size_t n)
{
	if (src->aggregate || n <= src->s_cap)
		return 0;
	return samples_grow(src, n < SV_MAX_SAMPLES ? n : SV_MAX_SAMPLES);
}

int sv_source_add_sample(sv_source *src, sv_stack_id stack, double time, double metric, double count)
{
	if (stack != SV_STACK_NONE && stack >= src->nstacks)
		return SV_EINVAL;
	if (!isfinite(time) || !isfinite(metric) || !isfinite(count)) {
		snprintf(src->refusal, sizeof(src->refusal), "a sample's %s is not a finite number",
			 !isfinite(time) ? "time" : !isfinite(metric) ? "metric" : "count");
		return SV_EFORMAT; /* what an input says, never the caller's mistake: not SV_EINVAL */
	}
	/* A time no range could show (the boxes hold 3 decimals of it) is refused rather than
	 * counted by info and left out of every view. */
	if (fabs(time) > SV_MAX_TIME_MS) {
		snprintf(src->refusal, sizeof(src->refusal), "a sample's time (%.6g ms) is beyond +-%.0e ms", time,
			 SV_MAX_TIME_MS);
		return SV_ELIMIT;
	}
	/* Metrics that add up past the largest double would make every total infinite and every
	 * percentage NaN: refused (the importer says where). */
	if (!isfinite(src->abs_metric + fabs(metric)) || !isfinite(src->total_count + count)) {
		snprintf(src->refusal, sizeof(src->refusal), "metrics add up past the largest number");
		return SV_ELIMIT;
	}
	free(src->sums); /* the stacks' sums no longer hold */
	src->sums = NULL;
	if (src->qscale) { /* still a whole number of quanta, and the sums below 2^52 of them? */
		double q = nearbyint(metric * src->qscale);
		if (q / src->qscale == metric && src->qabs + fabs(q) < 0x1p52) {
			src->qsum += q;
			src->qabs += fabs(q);
		} else {
			src->qscale = 0;
		}
	}
	uint32_t *slot = NULL; /* aggregating: this stack's sample index + 1, 0 = none yet */
	if (src->aggregate) {
		if (stack == SV_STACK_NONE) {
			slot = &src->agg_none;
		} else {
			if (stack >= src->agg_cap) {
				size_t ncap = src->agg_cap ? src->agg_cap : 1024;
				while (ncap <= stack)
					ncap *= 2;
				if (ncap > UINT32_MAX) /* stack ids stay below UINT32_MAX - 1 */
					ncap = UINT32_MAX;
				uint32_t *ns = realloc(src->agg_slot, ncap * sizeof(*ns));
				if (!ns)
					return SV_ENOMEM;
				memset(ns + src->agg_cap, 0, (ncap - src->agg_cap) * sizeof(*ns));
				src->agg_slot = ns;
				src->agg_cap = (uint32_t)ncap;
			}
			slot = &src->agg_slot[stack];
		}
		if (*slot)
			return add_to(src, *slot - 1u, time, metric, count);
	}
	if (src->nsamples >= SV_MAX_SAMPLES)
		return SV_ELIMIT;
	if (src->nsamples == src->s_cap && samples_grow(src, src->s_cap ? src->s_cap + src->s_cap / 2 : 4096))
		return SV_ENOMEM;
	size_t i = src->nsamples;
	int rc = set_pair(src, i, metric, (float)count);
	if (!rc && time != 0)
		rc = keep_times(src);
	if (rc)
		return rc;
	src->nsamples++;
	if (slot)
		*slot = (uint32_t)(i + 1); /* i < SV_MAX_SAMPLES < 2^32 */
	src->s_stack[i] = stack;
	if (src->s_time)
		src->s_time[i] = time;
	if (src->s_loc)
		src->s_loc[i] = SV_LOC_NONE;
	account(src, time, metric, count);
	return 0;
}

int sv_source_add_sample_at(sv_source *src, sv_stack_id stack, double time, double metric, double count, uint32_t path)
{
	size_t before = src->nsamples;
	int rc = sv_source_add_sample(src, stack, time, metric, count);
	if (rc || src->nsamples == before || path == SV_LOC_NONE)
		return rc;
	if (path >= src->ncps)
		return SV_EINVAL;
	if (!src->s_loc) { /* the first sample with a location: every earlier one has none */
		if (!(src->s_loc = malloc(src->s_cap * sizeof(*src->s_loc))))
			return SV_ENOMEM;
		memset(src->s_loc, 0xff, src->s_cap * sizeof(*src->s_loc));
	}
	src->s_loc[src->nsamples - 1] = path;
	return 0;
}

const sv_stack_sums *sv_source_stack_sums(const sv_source *src)
{
	return src->sums_nstacks == src->nstacks ? src->sums : NULL;
}

double sv_source_abs_metric(const sv_source *src) { return src->abs_metric; }

/* ---- getters ---- */

uint32_t sv_source_frame_count(const sv_source *src) { return src->frames.count; }
uint32_t sv_source_stack_count(const sv_source *src) { return src->nstacks; }
size_t sv_source_sample_count(const sv_source *src) { return src->nsamples; }

const char *sv_source_frame_name(const sv_source *src, sv_frame_id id)
{
	return sv_strtab_str(&src->frames, id);
}

const char *sv_source_frame_short(const sv_source *src, sv_frame_id id)
{
	return sv_strtab_str(&src->frames, id) + src->short_off[id];
}

sv_frame_id sv_source_stack_frame(const sv_source *src, sv_stack_id id) { return src->st_frame[id]; }
sv_stack_id sv_source_stack_caller(const sv_source *src, sv_stack_id id) { return src->st_caller[id]; }
const sv_frame_id *sv_source_stack_frames(const sv_source *src) { return src->st_frame; }
const sv_stack_id *sv_source_stack_callers(const sv_source *src) { return src->st_caller; }
const sv_stack_id *sv_source_sample_stacks(const sv_source *src) { return src->s_stack; }
const double *sv_source_sample_times(const sv_source *src) { return src->s_time; }

sv_samples sv_source_samples(const sv_source *src)
{
	sv_samples s = { src->nsamples, src->s_stack, src->s_time, src->s_code, src->s_metric, src->s_count };
	return s;
}
const char *sv_source_format(const sv_source *src) { return src->format; }
sv_scaling sv_source_scaling(const sv_source *src) { return src->scaling; }
void sv_source_set_scaling(sv_source *src, sv_scaling scaling) { src->scaling = scaling; }
void sv_source_set_limit_from_end(sv_source *src, bool by_end) { src->limit_by_end = by_end; }
double sv_source_total_metric(const sv_source *src)
{
	return src->qscale ? src->qsum / src->qscale : src->total_metric;
}

void sv_source_set_metric_quantum(sv_source *src, double quantum)
{
	if (src->nsamples == 0 && quantum > 0 && isfinite(1 / quantum))
		src->qscale = 1 / quantum;
}

double sv_source_metric_scale(const sv_source *src)
{
	return src->qscale ? src->qscale : 1;
}
bool sv_source_has_negative(const sv_source *src) { return src->negative; }
double sv_source_total_count(const sv_source *src) { return src->total_count; }

double sv_source_time_limit(const sv_source *src)
{
	if (!src->nsamples)
		return 0;
	if (src->limit_by_end || src->scaling == SV_SCALING_TIME)
		return src->max_end;
	return src->max_time;
}

const char *sv_source_refusal(const sv_source *src)
{
	return src->refusal[0] ? src->refusal : NULL;
}

double sv_source_first_time(const sv_source *src)
{
	return src->nsamples ? src->min_time : 0;
}

double sv_source_last_time(const sv_source *src)
{
	return src->nsamples ? src->max_time : 0;
}

const sv_params *sv_source_saved_params(const sv_source *src) { return src->saved; }
const char *sv_source_notes(const sv_source *src) { return src->notes; }

int sv_source_set_params(sv_source *src, const sv_params *params)
{
	sv_params *p = malloc(sizeof(*p));
	if (!p)
		return SV_ENOMEM;
	if (sv_params_copy(p, params)) {
		sv_params_dispose(p);
		free(p);
		return SV_ENOMEM;
	}
	if (src->saved) {
		sv_params_dispose(src->saved);
		free(src->saved);
	}
	src->saved = p;
	return 0;
}

int sv_source_set_notes(sv_source *src, const char *notes)
{
	char *n = strdup(notes ? notes : "");
	if (!n)
		return SV_ENOMEM;
	free(src->notes);
	src->notes = n;
	return 0;
}

size_t sv_source_memory(const sv_source *src)
{
	return src->frames.text.total + (size_t)src->frames.cap * (sizeof(char *) + 4) +
	       (size_t)src->frames.slot_cap * 8 + (size_t)src->short_cap * 4 +
	       (size_t)src->st_cap * (src->kid_only ? 12 : 8 + sizeof(st_link)) + src->st_index.cap * 12 +
	       src->s_cap * sizeof(sv_stack_id) + (src->s_time ? src->s_cap * sizeof(double) : 0) +
	       (!src->wide ? src->s_cap * sizeof(uint16_t) + src->code_cap * (sizeof(double) + sizeof(float)) +
				      src->code_index.cap * 12
			    : src->s_cap * (sizeof(double) + sizeof(float))) +
	       (src->s_loc ? src->s_cap * sizeof(uint32_t) : 0) + (size_t)src->loc_cap * sizeof(sv_location) +
	       src->loc_index.cap * 12 + src->cp_cap * 8 + src->cp_index.cap * 12 + src->shorts.text.total +
	       (size_t)src->shorts.cap * 12 + (size_t)src->shorts.slot_cap * 8 + (size_t)src->nshort_id * 4 +
	       (src->short_rank ? (size_t)src->shorts.count * 8 : 0) +
	       src->loc_lines_cap * sizeof(*src->loc_lines) + src->src_files.text.total;
}

