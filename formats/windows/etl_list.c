/* SPDX-License-Identifier: MIT */
/* ETL importer: the Events view's listing. A first pass reads the trace as an import does
 * (processes, threads, the kinds' final names); the second hands every record, in time
 * order, to the listing callback: its kind, process, thread, CPU, payload size and the
 * fields the trace describes (TraceLogging schemas, EventSource manifests and the merge's
 * TDH metadata) or the runtime's templates name; the kernel's classes are
 * etl_list_kernel.c's. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "clr_events.h"
#include "etl_list_int.h"

/* TraceLogging's in-types (TlgIn*): the low 5 bits of a field's InType byte. */
enum { TL_USTR = 1, TL_ASTR, TL_I8, TL_U8, TL_I16, TL_U16, TL_I32, TL_U32, TL_I64, TL_U64, TL_F32, TL_F64, TL_BOOL32,
       TL_BINARY, TL_GUID, TL_PTR, TL_FILETIME, TL_SYSTEMTIME, TL_SID, TL_HEX32, TL_HEX64, TL_CUSTR, TL_CASTR, TL_STRUCT,
       TL_CBINARY };

enum { OUT_BOOLEAN = 3, OUT_HEX = 4, OUT_SIGNED = 17, OUT_UNSIGNED = 18 }; /* TlgOut* that change a number's text */

/* One value of in-type t at p[*at..n) into o; false when it does not fit or is not known.
 * The out-type shows integers as booleans, hex, signed or unsigned. */
static bool tl_value(lbuf *o, unsigned t, unsigned out, const unsigned char *p, size_t n, size_t *at, unsigned ptr)
{
	static const unsigned char isz[] = { [TL_I8] = 1, [TL_U8] = 1, [TL_I16] = 2, [TL_U16] = 2, [TL_I32] = 4,
					     [TL_U32] = 4, [TL_I64] = 8, [TL_U64] = 8, [TL_HEX32] = 4, [TL_HEX64] = 8 };
	size_t w = t < sizeof(isz) ? isz[t] : 0;
	if (w && (out == OUT_BOOLEAN || out == OUT_HEX || out == OUT_SIGNED || out == OUT_UNSIGNED)) {
		if (n - *at < w)
			return false;
		const unsigned char *q = p + *at;
		uint64_t v = w == 1 ? q[0] : w == 2 ? rd16(q) : w == 4 ? rd32(q) : rd64(q);
		*at += w;
		if (out == OUT_BOOLEAN)
			put(o, v ? "True" : "False", v ? 4 : 5);
		else if (out == OUT_HEX)
			putf(o, "0x%" PRIx64, v);
		else if (out == OUT_SIGNED)
			putf(o, "%" PRId64, w == 8 ? (int64_t)v : (int64_t)(v << (64 - 8 * w)) >> (64 - 8 * w));
		else
			putf(o, "%" PRIu64, v);
		return true;
	}
	const unsigned char *q = p + *at;
	size_t left = n - *at, k = 0;
	switch (t) {
	case TL_USTR: {
		if (!sv_etl_utf16_ends(q, left, &k))
			return false;
		size_t used = 0;
		char *s = sv_etl_dup_utf16(q, left, &used);
		if (!s)
			return false;
		put(o, s, strlen(s));
		free(s);
		*at += used;
		return true;
	}
	case TL_ASTR: {
		const unsigned char *z = memchr(q, 0, left);
		if (!z)
			return false;
		put(o, (const char *)q, (size_t)(z - q));
		*at += (size_t)(z - q) + 1;
		return true;
	}
	case TL_CUSTR:
	case TL_CASTR:
	case TL_BINARY:
	case TL_CBINARY: {
		if (left < 2 || (size_t)rd16(q) > left - 2)
			return false;
		size_t len = rd16(q);
		if (t == TL_CUSTR) {
			char *s = sv_etl_dup_utf16(q + 2, len, &k);
			if (!s)
				return false;
			put(o, s, strlen(s));
			free(s);
		} else if (t == TL_CASTR) {
			put(o, (const char *)q + 2, len);
		} else {
			put(o, "0x", 2);
			for (size_t i = 0; i < len && i < 256; i++)
				putf(o, "%02X", q[2 + i]);
		}
		*at += 2 + len;
		return true;
	}
	case TL_SID: { /* revision, sub-authority count, 6-byte authority, the sub-authorities */
		if (left < 8 || left < 8 + 4 * (size_t)q[1])
			return false;
		uint64_t auth = 0;
		for (int i = 2; i < 8; i++)
			auth = auth << 8 | q[i];
		putf(o, "S-%u-%" PRIu64, q[0], auth);
		for (unsigned i = 0; i < q[1]; i++)
			putf(o, "-%u", rd32(q + 8 + 4 * i));
		*at += 8 + 4 * (size_t)q[1];
		return true;
	}
	default: break;
	}
	/* the in-types with a shared value kind (TL_PTR: the trace's pointer size, in hex) */
	static const signed char kind[] = { [TL_I8] = EV_I8 + 1,	[TL_U8] = EV_U8 + 1,	  [TL_I16] = EV_I16 + 1,
					    [TL_U16] = EV_U16 + 1,	[TL_I32] = EV_I32 + 1,	  [TL_U32] = EV_U32 + 1,
					    [TL_I64] = EV_I64 + 1,	[TL_U64] = EV_U64 + 1,	  [TL_F32] = EV_F32 + 1,
					    [TL_F64] = EV_F64 + 1,	[TL_BOOL32] = EV_BOOL32 + 1, [TL_GUID] = EV_GUID + 1,
					    [TL_FILETIME] = EV_FILETIME + 1, [TL_HEX32] = EV_HEX32 + 1,
					    [TL_HEX64] = EV_HEX64 + 1 };
	if (t == TL_SYSTEMTIME) {
		if (left < 16)
			return false;
		*at += 16;
		putf(o, "%04u-%02u-%02uT%02u:%02u:%02u.%03uZ", rd16(q), rd16(q + 2), rd16(q + 6), rd16(q + 8), rd16(q + 10),
		     rd16(q + 12), rd16(q + 14));
		return true;
	}
	etl_val v;
	if (t == TL_PTR)
		v = ptr == 8 ? EV_HEX64 : EV_HEX32;
	else if (t < sizeof(kind) && kind[t])
		v = (etl_val)(kind[t] - 1);
	else
		return false;
	k = sv_etl_val_size(v);
	if (left < k)
		return false;
	*at += k;
	char b[64];
	sv_etl_val_text(b, sizeof(b), v, q);
	put(o, b, strlen(b));
	return true;
}

/* A TraceLogging event's fields: the schema s[0..sn) (name, InType [, OutType [, tags]]
 * [, constant count] per field), the payload p[0..n). Structs are flattened into
 * "Struct.field"; stops at what it cannot read. */
static void tl_fields(lbuf *o, const unsigned char *s, size_t sn, const unsigned char *p, size_t n, unsigned ptr)
{
	size_t si = 0, at = 0;
	char prefix[128] = "";
	unsigned in_struct = 0; /* fields left in the struct being read */
	while (si < sn) {
		const unsigned char *z = memchr(s + si, 0, sn - si);
		if (!z || (size_t)(z - s) + 1 >= sn)
			return;
		const char *name = (const char *)s + si;
		si = (size_t)(z - s) + 1;
		unsigned in = s[si++], out = 0, count = 1;
		if (in & 0x80) {
			if (si >= sn)
				return;
			out = s[si++];
			while ((out & 0x80) && si < sn && (s[si++] & 0x80)) /* field tags */
				;
		}
		unsigned arr = in & 0x60, t = in & 0x1F;
		if (arr == 0x40) { /* a constant count */
			if (sn - si < 2)
				return;
			count = rd16(s + si);
			si += 2;
		} else if (arr == 0x60) { /* custom: its own schema, not read */
			return;
		}
		if (t == TL_STRUCT) {
			if (arr) /* arrays of structs: not read */
				return;
			snprintf(prefix, sizeof(prefix), "%s.", name);
			in_struct = out & 0x7F;
			continue;
		}
		if (arr == 0x20) { /* a variable count in the payload */
			if (n - at < 2)
				return;
			count = rd16(p + at);
			at += 2;
		}
		char full[256];
		int fl = snprintf(full, sizeof(full), "%s%s", in_struct ? prefix : "", name);
		if (!begin(o, full, fl > 0 && (size_t)fl < sizeof(full) ? (size_t)fl : 0))
			return;
		if (arr)
			put(o, "[", 1);
		bool ok = true;
		for (unsigned i = 0; i < count && ok; i++) {
			if (i)
				put(o, ", ", 2);
			ok = tl_value(o, t, out & 0x7F, p, n, &at, ptr);
		}
		if (arr)
			put(o, "]", 1);
		end(o);
		if (!ok) {
			o->n--; /* not there: left out, and what follows */
			return;
		}
		if (in_struct && !--in_struct)
			prefix[0] = '\0';
	}
}

/* A mapped value's text: a <valueMap>'s name for it; a <bitMap>'s names of the bits it has,
 * from the lowest value up, each taking its bits (a name for several bits shows only when
 * none of them was named before: TraceEvent's order), joined by '|'; the number when the
 * map has no name for it. */
static void map_text(lbuf *o, const emap *m, uint64_t v)
{
	size_t shown = 0;
	uint64_t left = v;
	for (size_t i = 0; i < m->n; i++) {
		uint64_t b = m->values[i];
		bool hit = m->bits ? b && (left & b) == b : b == v;
		if (!hit)
			continue;
		if (shown++)
			put(o, "|", 1);
		put(o, m->names[i], strlen(m->names[i]));
		if (!m->bits)
			return;
		left &= ~b;
	}
	if (!shown)
		putf(o, "%" PRIu64, v);
}

/* A binary field: a socket address (TDH's out-type) as "ADDR:PORT" ("[ADDR]:PORT" for IPv6),
 * else its bytes in hex as TraceLogging's binaries. */
static void binary(lbuf *o, uint8_t out, const unsigned char *q, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	if (out == 25 && len >= 8 && rd16(q) == 2 && inet_ntop(AF_INET, q + 4, a, sizeof(a))) {
		putf(o, "%s:%u", a, (unsigned)(q[2] << 8 | q[3]));
		return;
	}
	if (out == 25 && len >= 24 && rd16(q) == 23 && inet_ntop(AF_INET6, q + 8, a, sizeof(a))) {
		putf(o, "[%s]:%u", a, (unsigned)(q[2] << 8 | q[3]));
		return;
	}
	put(o, "0x", 2);
	for (size_t i = 0; i < len && i < 256; i++)
		putf(o, "%02X", q[i]);
}

/* An event a manifest in the trace describes (an EventSource's): its template's fields in
 * order, mapped ones by their map; stops at what it cannot read. */
static void man_fields(lbuf *o, const etl_ctx *c, const etpl *t, const unsigned char *p, size_t n, unsigned ptr)
{
	static const unsigned char width[] = { [TL_I8] = 1,  [TL_U8] = 1,	 [TL_I16] = 2,	  [TL_U16] = 2,
					       [TL_I32] = 4, [TL_U32] = 4,	 [TL_I64] = 8,	  [TL_U64] = 8,
					       [TL_BOOL32] = 4, [TL_HEX32] = 4, [TL_HEX64] = 8 };
	size_t at = 0;
	uint64_t num[64]; /* the integers read so far (a binary's size may be one of them) */
	for (size_t i = 0; i < t->n; i++) {
		const emfield *f = &t->f[i];
		if (!begin(o, f->name, strlen(f->name)))
			return;
		size_t w = f->in < sizeof(width) ? width[f->in] : 0;
		if (i < 64)
			num[i] = 0;
		if (w && i < 64 && n - at >= w) {
			const unsigned char *q = p + at;
			num[i] = w == 1 ? q[0] : w == 2 ? rd16(q) : w == 4 ? rd32(q) : rd64(q);
		}
		long map = sv_etl_field_map(c, t, f);
		bool ok;
		if (f->len_from >= 0) {
			uint64_t len = f->len_from < 64 ? num[f->len_from] : UINT64_MAX;
			ok = len <= n - at;
			if (ok) {
				binary(o, f->out, p + at, (size_t)len);
				at += (size_t)len;
			}
		} else if (map >= 0 && w) {
			ok = n - at >= w;
			if (ok) {
				const unsigned char *q = p + at;
				map_text(o, &c->maps[map], w == 1 ? q[0] : w == 2 ? rd16(q) : w == 4 ? rd32(q) : rd64(q));
				at += w;
			}
		} else {
			ok = tl_value(o, f->in, f->out, p, n, &at, ptr);
		}
		end(o);
		if (!ok) {
			o->n--; /* not there: left out, and what follows */
			return;
		}
	}
}

static void clr_field(void *payload, const char *name, const char *value)
{
	lbuf *o = payload;
	if (begin(o, name, strlen(name))) {
		put(o, value, strlen(value));
		end(o);
	}
}

int sv_etl_list_record(etl_ctx *c, const etl_rec *r)
{
	uint32_t kind = 0;
	int rc = sv_etl_count_kind(c, r, &kind);
	if (rc)
		return rc;
	uint32_t pid = r->pid, tid = r->tid;
	if (r->kind == REC_HOOK && r->group == 0x0F && r->type == 46 && r->plen >= c->ptr + 7) {
		/* a CPU sample: its thread is the payload's; the idle loop's (thread 0, not DPC or
		 * ISR work) are not events, as TraceEvent's TraceLog drops them */
		tid = rd32(r->payload + c->ptr);
		if (tid == 0 && !(r->payload[c->ptr + 6] & 3))
			return 0;
		pid = UINT32_MAX;
	}
	lbuf *o = c->list_buf;
	o->len = o->n = 0;
	bool no_pid = false;
	const char *name = c->kinds[kind].name;
	const emeta *meta;
	if (r->kind == REC_EVENT && r->tl_fields)
		tl_fields(o, r->tl_fields, r->tl_fields_len, r->payload, r->plen, r->ptr);
	else if (r->kind == REC_EVENT && r->guid < 0 && r->id == 65534 && r->plen >= 8 && r->payload[3] == 0x5B) {
		/* an EventSource's manifest (a chunk of it): the envelope, as TraceEvent shows it */
		const unsigned char *q = r->payload;
		kv(o, "Format", "%u", q[0]);
		kv(o, "MajorVersion", "%u", q[1]);
		kv(o, "MinorVersion", "%u", q[2]);
		kv(o, "Magic", "%u", q[3]);
		kv(o, "TotalChunks", "%u", rd16(q + 4));
		kv(o, "ChunkNumber", "%u", rd16(q + 6));
		kv(o, "PayloadLength", "%zu", r->plen);
	} else if (r->kind == REC_EVENT && r->guid < 0 && (meta = sv_etl_find_meta(c, r->guid_bytes, r->id)) && meta->tpl >= 0)
		man_fields(o, c, &c->tpls[meta->tpl], r->payload, r->plen, r->ptr);
	else if (sv_etl_list_kernel(o, c, r, name, &pid, &tid, &no_pid))
		;
	else if (r->kind == REC_EVENT || r->kind == REC_CLASSIC) { /* the runtime's (by name: its three providers) */
		sv_clr_decode(name, r->payload, r->plen, r->ptr, clr_field, o);
		const char *tn; /* a finalized object's type, named by the BulkType events (TraceEvent's) */
		if (r->plen >= r->ptr && !strcmp(name, "Microsoft-Windows-DotNETRuntime/GC/FinalizeObject") &&
		    (tn = sv_etl_type_name(c, r->pid, rdptr(r->payload, r->ptr))))
			kv(o, "TypeName", "%s", tn);
	}
	if (pid == UINT32_MAX && tid != UINT32_MAX && !no_pid)
		(void)sv_etl_thread_pid(c, tid, r->ts, &pid);
	char pname[300];
	sv_etl_proc_label(c, pid, r->ts, pname, sizeof(pname));
	const char *names[256], *values[256];
	for (size_t i = 0; i < o->n; i++)
		names[i] = o->text + o->name_at[i], values[i] = o->text + o->value_at[i];
	sv_trace_event e = { .ms = r->ts >= c->hdr_ts ? (double)(r->ts - c->hdr_ts) * 1000.0 / c->freq : 0.0,
			     .name = name,
			     .pid = pid == UINT32_MAX ? -1 : (long long)pid,
			     .tid = tid == UINT32_MAX ? -1 : (long long)tid,
			     .cpu = (int)r->cpu,
			     .process = pid == UINT32_MAX ? NULL : pname,
			     .data_len = r->plen,
			     .has_stack = !(r->kind == REC_HOOK && r->group == 0x18) && sv_etl_has_stack(c, r->ts, tid),
			     .nfields = o->n,
			     .field_names = names,
			     .field_values = values };
	return c->list_fn(c->list_payload, &e);
}

void *sv_etl_list_buf_new(void)
{
	return calloc(1, sizeof(lbuf));
}
