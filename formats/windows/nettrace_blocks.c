/* SPDX-License-Identifier: MIT */
/* .nettrace reader: the FastSerialization object stream ("Nettrace", the Trace object, one
 * object per block) and its blocks: events with compressed or plain headers, stacks,
 * sequence points. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "etl_int.h" /* UTF-16 strings and the CLR's event names, shared with the ETL reader */
#include "stackview/formats.h"
#include "sv/array.h"
#include "sv/idmap.h"
#include "nettrace_int.h"

/* ---- blocks ---- */

typedef struct nt_hdr {
	uint32_t meta, seq, proc, stack, size;
	uint64_t capture, tid, ts;
} nt_hdr;

static bool varuint(const unsigned char *p, size_t n, size_t *at, unsigned bits, uint64_t *out)
{
	uint64_t v = 0;
	for (unsigned shift = 0; *at < n; shift += 7) {
		unsigned char b = p[(*at)++];
		if (shift >= 64 || (shift > 0 && bits - shift < 7 && (b & 0x7F) >> (bits - shift)))
			return false;
		v |= (uint64_t)(b & 0x7F) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return true;
		}
	}
	return false;
}

static int seq_check(nt_ctx *c, uint64_t capture, uint32_t seq)
{
	uint32_t i = sv_idmap_get(&c->seq_index, capture);
	if (i == SV_IDMAP_NONE) {
		if (SV_ARRAY_PUSH(c->seqs, c->nseqs, c->seqcap, ((nt_seq){ capture, seq })))
			return SV_ENOMEM;
		return sv_idmap_put(&c->seq_index, capture, (uint32_t)c->nseqs);
	}
	nt_seq *s = &c->seqs[i - 1];
	/* a gap means events the runtime dropped; back to 1 is a new thread with the same id */
	if (seq != 1 && seq - s->last > 1 && seq - s->last < 0x80000000u)
		c->lost += seq - s->last - 1;
	s->last = seq;
	return 0;
}

static int on_event(nt_ctx *c, const nt_hdr *h, const unsigned char *p, size_t off)
{
	uint32_t i = sv_idmap_get(&c->meta_index, h->meta);
	if (i == SV_IDMAP_NONE) {
		c->unknown_meta++;
		return 0;
	}
	const nt_meta *m = &c->metas[i - 1];
	int rc = seq_check(c, h->capture, h->seq);
	if (!rc && m->role == R_METHOD)
		rc = sv_nt_on_method(c, p, h->size);
	else if (!rc && m->role == R_MODULE)
		rc = sv_nt_on_module(c, p, h->size);
	else if (!rc && m->role == R_PROCINFO)
		rc = sv_nt_on_procinfo(c, p, h->size);
	if (rc)
		return rc;
	uint32_t stack = 0;
	if (h->stack) {
		uint32_t s = sv_idmap_get(&c->stack_index, h->stack);
		if (s == SV_IDMAP_NONE)
			return sv_nt_fail(c, off, "an event refers to stack %u, which no stack block defined before it", h->stack);
		stack = c->stks[s - 1].n ? s : 0;
	}
	uint32_t type = 0;
	double metric = 1;
	if (m->role == R_ALLOC && (rc = sv_nt_on_alloc_tick(c, p, h->size, &metric, &type)))
		return rc;
	if (m->role == R_SAMPLE) {
		c->samples++;
		if (h->size >= 4)
			type = rd32(p);
		else
			c->short_payloads++;
	}
	if (c->nevents >= SV_MAX_SAMPLES)
		return sv_nt_fail(c, off, "more than %u events", SV_MAX_SAMPLES);
	if (c->listing && (rc = sv_nt_keep_event(c, i - 1, h->ts, h->tid, h->proc, stack != 0, (size_t)(p - c->d), h->size)))
		return rc;
	nt_kind *k = &c->kinds[m->kind];
	k->count++;
	k->stacks += stack != 0;
	return SV_ARRAY_PUSH(c->events, c->nevents, c->eventcap, ((nt_event){ h->ts, h->tid, m->kind, stack, type, metric }));
}

/* A record that runs past its block: an error, or in the block the file's end cuts, the end
 * of what can be read (1). */
static int past(nt_ctx *c, size_t off, const char *what)
{
	return c->partial ? 1 : sv_nt_fail(c, off, "%s runs past its block", what);
}

/* An EventBlock or MetadataBlock at file offset off: u16 HeaderSize, u16 Flags, u64 Min and
 * Max timestamps, then event blobs (header compression when Flags & 1). */
static int on_event_block(nt_ctx *c, const unsigned char *b, size_t n, size_t off, bool meta)
{
	if (n < 20 || b[0] + ((size_t)b[1] << 8) > n)
		return past(c, off, "an event block's header");
	if (b[0] + ((size_t)b[1] << 8) < 20)
		return sv_nt_fail(c, off, "an event block's header of %u bytes is shorter than its fields", b[0] + ((unsigned)b[1] << 8));
	size_t at = b[0] + ((size_t)b[1] << 8);
	bool compressed = b[2] & 1;
	nt_hdr h = { 0 };
	while (at < n) {
		size_t start = at, end;
		if (compressed) {
			uint64_t v;
			unsigned flags = b[at++];
			bool ok = true;
			if (flags & 1)
				ok = varuint(b, n, &at, 32, &v) && (h.meta = (uint32_t)v, true);
			if (ok && (flags & 2)) {
				ok = varuint(b, n, &at, 32, &v) && (h.seq += (uint32_t)v, true) && varuint(b, n, &at, 64, &h.capture) &&
				     varuint(b, n, &at, 32, &v) && (h.proc = (uint32_t)v, true);
			}
			if (h.meta)
				h.seq++;
			if (ok && (flags & 4))
				ok = varuint(b, n, &at, 64, &h.tid);
			if (ok && (flags & 8))
				ok = varuint(b, n, &at, 32, &v) && (h.stack = (uint32_t)v, true);
			ok = ok && varuint(b, n, &at, 64, &v) && (h.ts += v, true);
			if (ok && (flags & 16))
				ok = (at += 16) <= n;
			if (ok && (flags & 32))
				ok = (at += 16) <= n;
			if (ok && (flags & 128))
				ok = varuint(b, n, &at, 32, &v) && (h.size = (uint32_t)v, true);
			if (!ok)
				return past(c, off + start, "an event header");
			end = at + h.size;
		} else {
			/* i32 EventSize, MetadataId, SequenceNumber; i64 ThreadId, CaptureThreadId;
			 * i32 ProcessorNumber, StackId; i64 TimeStamp; GUID ActivityID, RelatedActivityID;
			 * i32 PayloadSize; payload; padding to 4 bytes of the file */
			if (n - at < 4 + 76)
				return past(c, off + start, "an event header");
			size_t size = rd32(b + at);
			const unsigned char *q = b + at + 4;
			h.meta = rd32(q) & 0x7FFFFFFF, h.seq = rd32(q + 4), h.tid = rd64(q + 8), h.capture = rd64(q + 16);
			h.proc = rd32(q + 24), h.stack = rd32(q + 28), h.ts = rd64(q + 32), h.size = rd32(q + 72);
			if (size > n - at - 4 && size >= 76)
				return past(c, off + start, "an event");
			if (size < 76 || h.size > size - 76)
				return sv_nt_fail(c, off + start, "an event of %zu bytes does not hold its %u-byte payload", size, h.size);
			at += 4 + 76;
			end = at + h.size;
			size_t next = start + 4 + size;
			next += (4 - (off + next) % 4) % 4;
			int rc = meta ? sv_nt_on_metadata(c, b + at, h.size, off + at) : on_event(c, &h, b + at, off + start);
			if (rc)
				return rc;
			at = next < n ? next : n;
			continue;
		}
		if (h.size > n - at)
			return past(c, off + start, "an event's payload");
		int rc = meta ? sv_nt_on_metadata(c, b + at, h.size, off + at) : on_event(c, &h, b + at, off + start);
		if (rc)
			return rc;
		at = end;
	}
	return 0;
}

/* A StackBlock: i32 FirstId, Count, then Count stacks of i32 size + size bytes of IPs. */
static int on_stack_block(nt_ctx *c, const unsigned char *b, size_t n, size_t off)
{
	if (n < 8)
		return past(c, off, "a stack block's header");
	uint32_t id = rd32(b), count = rd32(b + 4);
	size_t at = 8;
	for (uint32_t k = 0; k < count; k++, id++) {
		if (n - at < 4)
			return past(c, off + at, "a stack");
		uint32_t size = rd32(b + at);
		at += 4;
		if (size > n - at)
			return past(c, off + at - 4, "a stack");
		if (size % c->ptr)
			return sv_nt_fail(c, off + at - 4, "stack %u of %u bytes is not whole %u-byte addresses", id, size, c->ptr);
		uint32_t nips = size / c->ptr;
		if (nips > SV_MAX_STACK_DEPTH)
			return sv_nt_fail(c, off + at - 4, "stack %u is %u frames deep (at most %u)", id, nips, SV_MAX_STACK_DEPTH);
		if (SV_ARRAY_RESERVE(c->ips, c->ipcap, c->nips + nips) ||
		    SV_ARRAY_PUSH(c->stks, c->nstks, c->stkcap, ((nt_stack){ c->nips, nips })))
			return SV_ENOMEM;
		for (uint32_t i = 0; i < nips; i++)
			c->ips[c->nips++] = c->ptr == 8 ? rd64(b + at + 8 * (size_t)i) : rd32(b + at + 4 * (size_t)i);
		at += size;
		int rc = sv_idmap_put(&c->stack_index, id, (uint32_t)c->nstks);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- the object stream ---- */

/* The type of an object: 5 (BeginPrivateObject), 1 (NullReference: the type's type), i32
 * Version, i32 MinimumReaderVersion, i32 name length, name, 6 (EndObject). 1 when the file
 * ends inside it. */
static int read_type(nt_ctx *c, size_t *at, char *name, size_t cap, int32_t *version)
{
	size_t p = *at;
	if (c->n - p < 14)
		return 1; /* the file ends inside it */
	if (c->d[p] != 5 || c->d[p + 1] != 1)
		return sv_nt_fail(c, p, "expected an object's type here");
	*version = (int32_t)rd32(c->d + p + 2);
	uint32_t len = rd32(c->d + p + 10);
	if (len > 0 && len < cap && c->n - p - 14 < (size_t)len + 1)
		return 1;
	if (len == 0 || len >= cap || c->d[p + 14 + len] != 6)
		return sv_nt_fail(c, p, "an object's type name does not read");
	memcpy(name, c->d + p + 14, len);
	name[len] = 0;
	*at = p + 15 + len;
	return 0;
}

int sv_nt_parse(nt_ctx *c)
{
	static const char fs[] = "!FastSerialization.1";
	const unsigned char *d = c->d;
	if (c->n >= 24 && rd32(d) == 20 && memcmp(d + 4, fs, 20) == 0)
		return sv_nt_fail(c, 0, "a NetPerf trace (.NET Core 2.x, before 'Nettrace'): not read; record with .NET Core 3.0 or later");
	if (c->n < 16 || memcmp(d, "Nettrace", 8) != 0)
		return sv_nt_fail(c, 0, "not a .nettrace file: it does not start with 'Nettrace'");
	if (rd32(d + 8) == 0)
		return sv_nt_fail(c, 8, "nettrace format version %u.%u: only format versions 4 and 5 are read",
			       c->n >= 20 ? rd32(d + 12) : 0, c->n >= 20 ? rd32(d + 16) : 0);
	if (c->n < 32 || rd32(d + 8) != 20 || memcmp(d + 12, fs, 20) != 0)
		return sv_nt_fail(c, 8, "the 'Nettrace' magic is not followed by the FastSerialization header");
	size_t at = 32;
	bool trace = false;
	for (;;) {
		if (sv_input_progress(c->in, at, c->err)) /* cheap between its steps */
			return SV_ECANCELED;
		if (at >= c->n) {
			c->cut = true, c->cut_at = at;
			break;
		}
		if (d[at] == 1) /* NullReference: the end of the stream */
			break;
		if (d[at] != 5)
			return sv_nt_fail(c, at, "expected an object (tag 5) or the end (tag 1), found byte 0x%02x", d[at]);
		size_t obj = at++;
		char name[64];
		int32_t version = 0;
		int rc = read_type(c, &at, name, sizeof(name), &version);
		if (rc == 1) { /* cut inside the last object's type */
			c->cut = true, c->cut_at = obj;
			break;
		}
		if (rc)
			return rc;
		if (!trace) {
			if (strcmp(name, "Trace") != 0)
				return sv_nt_fail(c, obj, "the first object is a '%s', not the Trace", name);
			if (version < 4)
				return sv_nt_fail(c, obj, "Trace object version %d: a NetPerf trace (.NET Core 2.x) is not read", version);
			/* SyncTimeUTC (8 x i16), i64 SyncTimeQPC, QPCFrequency, i32 PointerSize,
			 * ProcessId, NumberOfProcessors, ExpectedCPUSamplingRate */
			if (c->n - at < 49)
				return sv_nt_fail(c, at, "the Trace object is cut short");
			c->sync_qpc = rd64(d + at + 16), c->freq = rd64(d + at + 24);
			c->ptr = rd32(d + at + 32), c->pid = rd32(d + at + 36), c->ncpus = rd32(d + at + 40), c->rate = rd32(d + at + 44);
			if (c->ptr != 4 && c->ptr != 8)
				return sv_nt_fail(c, at + 32, "pointer size %u (4 or 8 expected)", c->ptr);
			if (c->freq == 0)
				return sv_nt_fail(c, at + 24, "the clock frequency is 0");
			at += 48;
			if (d[at] != 6)
				return sv_nt_fail(c, at, "the Trace object does not end where its fields do");
			at++;
			trace = true;
			continue;
		}
		if (c->n - at < 4) {
			c->cut = true, c->cut_at = obj;
			break;
		}
		size_t size = rd32(d + at);
		at += 4;
		at += (4 - at % 4) % 4;
		if (at > c->n)
			at = c->n;
		/* the block the file's end cuts: its whole events are read */
		c->partial = size > c->n - at || c->n - at - size < 1;
		size_t have = c->partial ? (size < c->n - at ? size : c->n - at) : size;
		const unsigned char *b = d + at;
		if (strcmp(name, "EventBlock") == 0 || strcmp(name, "MetadataBlock") == 0)
			rc = on_event_block(c, b, have, at, name[0] == 'M');
		else if (strcmp(name, "StackBlock") == 0)
			rc = on_stack_block(c, b, have, at);
		if (rc < 0)
			return rc;
		if (c->partial) {
			c->cut = true, c->cut_at = at + have;
			break;
		}
		c->blocks++;
		at += size;
		if (d[at] != 6)
			return sv_nt_fail(c, at, "the %s does not end where its size says", name);
		at++;
	}
	return trace ? 0 : sv_nt_fail(c, at, "the trace ends before its Trace object");
}
