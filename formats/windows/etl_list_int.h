/* SPDX-License-Identifier: MIT */
/* The ETL listing's field buffer, shared by etl_list.c (the driver, TraceLogging, manifests,
 * the runtime's templates) and etl_list_kernel.c (the kernel's classes). formats/windows/
 * only. One buffer per listing (etl_ctx.list_buf, owned by the context): each record's
 * fields are written into it as name and value text, NUL-terminated, and borrowed by the
 * listing callback for the call. Text that does not fit is cut, a field that does not fit
 * is left out. */
#ifndef STACKVIEW_FORMATS_ETL_LIST_INT_H
#define STACKVIEW_FORMATS_ETL_LIST_INT_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "etl_int.h"

typedef struct lbuf {
	char text[65536];
	size_t len;
	size_t name_at[256], value_at[256];
	size_t n;
} lbuf;

static inline void put(lbuf *o, const char *s, size_t k)
{
	if (o->len + k + 1 > sizeof(o->text))
		k = sizeof(o->text) - o->len - 1;
	memcpy(o->text + o->len, s, k);
	o->len += k;
	o->text[o->len] = '\0';
}

static inline void vputf(lbuf *o, const char *fmt, va_list ap) SV_PRINTF(2, 0);
static inline void vputf(lbuf *o, const char *fmt, va_list ap)
{
	char tmp[1024];
	int k = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	if (k > 0)
		put(o, tmp, (size_t)k < sizeof(tmp) ? (size_t)k : sizeof(tmp) - 1);
}

static inline void putf(lbuf *o, const char *fmt, ...) SV_PRINTF(2, 3);
static inline void putf(lbuf *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vputf(o, fmt, ap);
	va_end(ap);
}

static inline bool begin(lbuf *o, const char *name, size_t nl)
{
	if (o->n >= 256 || o->len + nl + 64 > sizeof(o->text))
		return false;
	o->name_at[o->n] = o->len;
	put(o, name, nl);
	o->len++; /* the name's NUL */
	o->value_at[o->n] = o->len;
	o->text[o->len] = '\0';
	return true;
}

static inline void end(lbuf *o)
{
	if (o->len + 1 < sizeof(o->text))
		o->len++;
	o->n++;
}

/* A field's value as fmt writes it. The kernel's classes write millions of fields with a
 * handful of formats: those are written here without vsnprintf's cost. */
static inline void kv(lbuf *o, const char *name, const char *fmt, ...) SV_PRINTF(3, 4);
static inline void kv(lbuf *o, const char *name, const char *fmt, ...)
{
	if (!begin(o, name, strlen(name)))
		return;
	va_list ap;
	va_start(ap, fmt);
	char t[24];
	t[0] = '\0';
	if (!strcmp(fmt, "%u")) {
		sv_etl_int_text(t, sizeof(t), va_arg(ap, unsigned), false, false);
	} else if (!strcmp(fmt, "%d")) {
		int v = va_arg(ap, int);
		sv_etl_int_text(t, sizeof(t), v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0, false);
	} else if (!strcmp(fmt, "0x%" PRIx64)) {
		sv_etl_int_text(t, sizeof(t), va_arg(ap, uint64_t), false, true);
	} else if (!strcmp(fmt, "%" PRIu64)) {
		sv_etl_int_text(t, sizeof(t), va_arg(ap, uint64_t), false, false);
	} else if (!strcmp(fmt, "%" PRId64)) {
		int64_t v = va_arg(ap, int64_t);
		sv_etl_int_text(t, sizeof(t), v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0, false);
	} else if (!strcmp(fmt, "%s")) {
		const char *v = va_arg(ap, const char *);
		put(o, v, strlen(v));
	} else {
		vputf(o, fmt, ap);
	}
	va_end(ap);
	if (t[0])
		put(o, t, strlen(t));
	end(o);
}

/* etl_list_kernel.c: the fields of the kernel's own events (MOF classes, which the trace does
 * not describe) and of KernelTraceControl's ImageID, as TraceEvent shows them, with whose
 * process and thread the event is (*pid, *tid; *no_pid: none, as TraceEvent has it).
 * `kind` is the record's kind name. False: not one of those records. */
bool sv_etl_list_kernel(lbuf *o, const etl_ctx *c, const etl_rec *r, const char *kind, uint32_t *pid, uint32_t *tid,
			bool *no_pid);

#endif
