/* SPDX-License-Identifier: MIT */
/* .nettrace reader: the Events view's listing. Each event kind's metadata describes its
 * payload (V1 field list, or format 5's V2Params tag with arrays); each event is decoded by
 * that description, in time order (blocks hold each thread's events in order, not the
 * trace's: the events' places are kept while reading, then sorted). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clr_events.h"
#include "etl_int.h" /* UTF-16 strings, shared with the ETL reader */
#include "stackview/formats.h"
#include "sv/array.h"
#include "nettrace_int.h"

typedef struct nt_lev {
	uint64_t ts, tid;
	size_t off;
	uint32_t size, meta, proc;
	bool stack;
} nt_lev;

enum { T_OBJECT = 1, T_BOOL = 3, T_CHAR, T_I8, T_U8, T_I16, T_U16, T_I32, T_U32, T_I64, T_U64, T_F32, T_F64,
       T_DECIMAL, T_DATETIME, T_GUID, T_STRING, T_ARRAY };

#define MAX_FIELDS 4096 /* descriptions a trace may hold in all */
#define MAX_DEPTH 8

/* ---- descriptions ---- */

static bool utf16_name(nt_ctx *c, const unsigned char *p, size_t n, size_t *at, char **out)
{
	size_t i;
	if (!sv_etl_utf16_ends(p + *at, n - *at, &i))
		return false;
	size_t used = 0;
	*out = sv_etl_dup_utf16(p + *at, n - *at, &used);
	(void)c;
	*at += used;
	return *out != NULL;
}

static int push_field(nt_ctx *c, uint32_t *idx)
{
	if (c->nfields >= MAX_FIELDS)
		return 1;
	if (SV_ARRAY_PUSH(c->fields, c->nfields, c->fieldcap, ((nt_field){ 0 })))
		return SV_ENOMEM;
	*idx = (uint32_t)c->nfields - 1;
	return 0;
}

/* V1: i32 count, then per field i32 TypeCode, (an object: its own list), UTF-16 name. 1 when
 * it does not read. */
static int v1_list(nt_ctx *c, const unsigned char *p, size_t n, size_t *at, int depth, uint32_t *count)
{
	if (depth > MAX_DEPTH || n - *at < 4)
		return 1;
	uint32_t k = rd32(p + *at);
	*at += 4;
	if (k > n - *at)
		return 1;
	for (uint32_t i = 0; i < k; i++) {
		if (n - *at < 4)
			return 1;
		uint32_t type = rd32(p + *at), idx, sub = 0;
		*at += 4;
		int rc = push_field(c, &idx);
		if (rc)
			return rc;
		if (type == T_OBJECT && (rc = v1_list(c, p, n, at, depth + 1, &sub)))
			return rc;
		nt_field *f = &c->fields[idx];
		f->type = (uint8_t)(type < 256 ? type : 0);
		f->nchild = sub;
		if (!utf16_name(c, p, n, at, &f->name))
			return 1;
		f->span = (uint32_t)(c->nfields - idx);
	}
	*count = k;
	return 0;
}

/* V2: i32 count, then per field i32 Size (with itself), UTF-16 name, i32 TypeCode, (array:
 * i32 element TypeCode), (object or array of objects: a V2 list), padding to Size. */
static int v2_list(nt_ctx *c, const unsigned char *p, size_t n, size_t *at, int depth, uint32_t *count)
{
	if (depth > MAX_DEPTH || n - *at < 4)
		return 1;
	uint32_t k = rd32(p + *at);
	*at += 4;
	if (k > n - *at)
		return 1;
	for (uint32_t i = 0; i < k; i++) {
		if (n - *at < 4)
			return 1;
		size_t start = *at, size = rd32(p + *at);
		if (size < 4 || size > n - start)
			return 1;
		size_t end = start + size;
		*at += 4;
		uint32_t idx, sub = 0;
		int rc = push_field(c, &idx);
		if (rc)
			return rc;
		char *name = NULL;
		if (!utf16_name(c, p, end, at, &name))
			return 1;
		c->fields[idx].name = name;
		if (end - *at < 4)
			return 1;
		uint32_t type = rd32(p + *at), elem = 0;
		*at += 4;
		if (type == T_ARRAY) {
			if (end - *at < 4)
				return 1;
			elem = rd32(p + *at);
			*at += 4;
		}
		if ((type == T_OBJECT || (type == T_ARRAY && elem == T_OBJECT)) && (rc = v2_list(c, p, end, at, depth + 1, &sub)))
			return rc;
		nt_field *f = &c->fields[idx];
		f->type = (uint8_t)(type < 256 ? type : 0);
		f->elem = (uint8_t)(elem < 256 ? elem : 0);
		f->nchild = sub;
		f->span = (uint32_t)(c->nfields - idx);
		*at = end;
	}
	*count = k;
	return 0;
}

int sv_nt_meta_fields(nt_ctx *c, const unsigned char *p, size_t n, size_t at, uint32_t *f0, uint32_t *nf)
{
	size_t mark = c->nfields;
	uint32_t k = 0;
	int rc = v1_list(c, p, n, &at, 0, &k);
	/* format 5's tags: a V2Params tag (kind 2) replaces an empty V1 list */
	while (!rc && n - at >= 5) {
		uint32_t len = rd32(p + at);
		uint8_t tag = p[at + 4];
		at += 5;
		if (len > n - at)
			break;
		if (tag == 2) {
			for (size_t i = mark; i < c->nfields; i++)
				free(c->fields[i].name);
			c->nfields = mark;
			size_t t = at;
			rc = v2_list(c, p, at + len, &t, 0, &k);
			break;
		}
		at += len;
	}
	if (rc) { /* not described (or beyond the limits): the kind is listed without fields */
		for (size_t i = mark; i < c->nfields; i++)
			free(c->fields[i].name);
		c->nfields = mark;
		k = 0;
	}
	*f0 = (uint32_t)mark;
	*nf = k;
	return rc == SV_ENOMEM ? rc : 0;
}

int sv_nt_keep_event(nt_ctx *c, uint32_t meta, uint64_t ts, uint64_t tid, uint32_t proc, bool stack, size_t off,
		     uint32_t size)
{
	return SV_ARRAY_PUSH(c->levs, c->nlevs, c->levcap, ((nt_lev){ ts, tid, off, size, meta, proc, stack }));
}

/* ---- values ---- */

typedef struct out_buf {
	char *text;
	size_t len, cap;
	size_t *name_at, *value_at;
	size_t n, ncap, vcap;
	bool nomem;
} out_buf;

static void put(out_buf *o, const char *s, size_t k)
{
	if (o->nomem)
		return;
	if (SV_ARRAY_RESERVE(o->text, o->cap, o->len + k + 1)) {
		o->nomem = true;
		return;
	}
	memcpy(o->text + o->len, s, k);
	o->len += k;
	o->text[o->len] = '\0';
}

static void putf(out_buf *o, const char *fmt, ...) SV_PRINTF(2, 3);
static void putf(out_buf *o, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (k > 0)
		put(o, tmp, (size_t)k < sizeof(tmp) ? (size_t)k : sizeof(tmp) - 1);
}

static void begin_field(out_buf *o, const char *prefix, const char *name)
{
	if (o->nomem)
		return;
	if (SV_ARRAY_RESERVE(o->name_at, o->ncap, o->n + 1) || SV_ARRAY_RESERVE(o->value_at, o->vcap, o->n + 1)) {
		o->nomem = true;
		return;
	}
	o->name_at[o->n] = o->len;
	if (prefix[0]) {
		put(o, prefix, strlen(prefix));
		put(o, ".", 1);
	}
	put(o, name, strlen(name));
	put(o, "", 1); /* the name's NUL */
	o->value_at[o->n++] = o->len;
}

static void end_value(out_buf *o)
{
	put(o, "", 1);
}

static bool value(out_buf *o, const unsigned char *p, size_t n, size_t *at, unsigned type, const nt_ctx *c);

/* The shared value kind of a scalar TypeCode (T_CHAR shows its code unit; decimal its bytes),
 * false for the others. */
static bool scalar_kind(unsigned type, etl_val *v, size_t *k)
{
	static const signed char kind[] = { [T_BOOL] = EV_BOOL32 + 1, [T_CHAR] = EV_U16 + 1, [T_I8] = EV_I8 + 1,
					    [T_U8] = EV_U8 + 1,	      [T_I16] = EV_I16 + 1, [T_U16] = EV_U16 + 1,
					    [T_I32] = EV_I32 + 1,     [T_U32] = EV_U32 + 1, [T_I64] = EV_I64 + 1,
					    [T_U64] = EV_U64 + 1,     [T_F32] = EV_F32 + 1, [T_F64] = EV_F64 + 1,
					    [T_DATETIME] = EV_DATETIME + 1, [T_GUID] = EV_GUID + 1 };
	if (type == T_DECIMAL) {
		*k = 16;
		return true;
	}
	if (type >= sizeof(kind) || !kind[type])
		return false;
	*v = (etl_val)(kind[type] - 1);
	*k = sv_etl_val_size(*v);
	return true;
}

/* One value of a scalar or string type at p[*at..n), appended to o; false when it does
 * not fit or the type is not one. */
static bool value(out_buf *o, const unsigned char *p, size_t n, size_t *at, unsigned type, const nt_ctx *c)
{
	(void)c;
	if (type == T_STRING) {
		size_t i;
		if (!sv_etl_utf16_ends(p + *at, n - *at, &i))
			return false;
		size_t used = 0;
		char *s = sv_etl_dup_utf16(p + *at, n - *at, &used);
		if (!s) {
			o->nomem = true;
			return false;
		}
		put(o, s, strlen(s));
		free(s);
		*at += used;
		return true;
	}
	size_t k;
	etl_val v = EV_U8;
	if (!scalar_kind(type, &v, &k) || n - *at < k)
		return false;
	const unsigned char *q = p + *at;
	*at += k;
	if (type == T_DECIMAL) { /* its 16 bytes */
		for (size_t i = 0; i < k; i++)
			putf(o, "%02x", q[i]);
		return true;
	}
	char b[64];
	sv_etl_val_text(b, sizeof(b), v, q);
	put(o, b, strlen(b));
	return true;
}

#define MAX_ELEMS 64 /* array elements shown; the rest counted */

/* The fields fields[f .. ] (count of them) at p[*at..n): false when the payload ends
 * before them (what was decoded stays). */
static bool fields(out_buf *o, const nt_ctx *c, uint32_t f, uint32_t count, const char *prefix, const unsigned char *p,
		   size_t n, size_t *at)
{
	for (uint32_t i = 0; i < count; i++) {
		const nt_field *fd = &c->fields[f];
		if (fd->type == T_OBJECT) {
			char pre[256];
			snprintf(pre, sizeof(pre), "%s%s%s", prefix, prefix[0] ? "." : "", fd->name);
			if (!fields(o, c, f + 1, fd->nchild, pre, p, n, at))
				return false;
		} else if (fd->type == T_ARRAY) {
			if (n - *at < 2)
				return false;
			unsigned k = rd16(p + *at);
			*at += 2;
			begin_field(o, prefix, fd->name);
			put(o, "[", 1);
			for (unsigned e = 0; e < k; e++) {
				if (e && e < MAX_ELEMS)
					put(o, ", ", 2);
				if (fd->elem == T_OBJECT) { /* an array of objects: its elements' fields, braced */
					out_buf sub = { 0 };
					size_t before = *at;
					bool ok = fields(&sub, c, f + 1, fd->nchild, "", p, n, at);
					if (e < MAX_ELEMS) {
						put(o, "{", 1);
						for (size_t j = 0; j < sub.n; j++)
							putf(o, "%s%.60s=%.60s", j ? " " : "", sub.text + sub.name_at[j], sub.text + sub.value_at[j]);
						put(o, "}", 1);
					}
					o->nomem |= sub.nomem;
					free(sub.text), free(sub.name_at), free(sub.value_at);
					if (!ok || *at == before)
						break;
				} else if (e < MAX_ELEMS) {
					if (!value(o, p, n, at, fd->elem, c))
						break;
				} else {
					size_t sz;
					etl_val ev;
					if (fd->elem == T_STRING || !scalar_kind(fd->elem, &ev, &sz) || n - *at < sz)
						break;
					*at += sz;
				}
			}
			if (k > MAX_ELEMS)
				putf(o, ", ... %u in all", k);
			put(o, "]", 1);
			end_value(o);
		} else {
			size_t before = o->len;
			begin_field(o, prefix, fd->name);
			if (!value(o, p, n, at, fd->type, c)) {
				/* not there (or a type not known): the field is left out, the rest too */
				o->len = before;
				o->n--;
				return false;
			}
			end_value(o);
		}
		f += fd->span;
	}
	return true;
}

static void clr_field(void *payload, const char *name, const char *value)
{
	out_buf *o = payload;
	begin_field(o, "", name);
	put(o, value, strlen(value));
	end_value(o);
}

/* ---- the listing ---- */

static int by_ts(const void *a, const void *b)
{
	const nt_lev *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off; /* file order among equal times */
}

int sv_nt_list(nt_ctx *c, sv_trace_event_fn fn, void *payload)
{
	if (c->nlevs)
		qsort(c->levs, c->nlevs, sizeof(*c->levs), by_ts);
	/* the program's name, as TraceEvent's PName (the command line's first word, without
	 * its folder and extension), else Process(PID) */
	char pname[256];
	const char *base;
	size_t bl = sv_nt_program(c, &base);
	if (bl)
		snprintf(pname, sizeof(pname), "%.*s", (int)(bl < 200 ? bl : 200), base);
	else
		snprintf(pname, sizeof(pname), "Process(%u)", c->pid);
	out_buf o = { 0 };
	const char **names = NULL, **values = NULL;
	size_t ncap = 0, vcap = 0;
	int rc = 0;
	for (size_t i = 0; i < c->nlevs && !rc; i++) {
		const nt_lev *l = &c->levs[i];
		const nt_meta *m = &c->metas[l->meta];
		o.len = o.n = 0;
		size_t at = 0;
		if (m->nf)
			fields(&o, c, m->f0, m->nf, "", c->d + l->off, l->size, &at);
		else /* the runtime's own events: described by its manifest, not the trace */
			sv_clr_decode(c->kinds[m->kind].name, c->d + l->off, l->size, c->ptr, clr_field, &o);
		if (o.nomem || SV_ARRAY_RESERVE(names, ncap, o.n + 1) || SV_ARRAY_RESERVE(values, vcap, o.n + 1)) {
			rc = SV_ENOMEM;
			break;
		}
		for (size_t j = 0; j < o.n; j++)
			names[j] = o.text + o.name_at[j], values[j] = o.text + o.value_at[j];
		sv_trace_event e = { .ms = sv_nt_ms(c, l->ts), .name = c->kinds[m->kind].name, .pid = c->pid,
				     .tid = (long long)l->tid, .cpu = (int)l->proc, .process = pname, .data_len = l->size,
				     .has_stack = l->stack, .nfields = o.n, .field_names = names, .field_values = values };
		rc = fn(payload, &e);
	}
	free(o.text), free(o.name_at), free(o.value_at);
	free(names);
	free(values);
	return rc;
}

void sv_nt_list_dispose(nt_ctx *c)
{
	for (size_t i = 0; i < c->nfields; i++)
		free(c->fields[i].name);
	free(c->fields);
	free(c->levs);
}
