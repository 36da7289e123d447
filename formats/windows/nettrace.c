/* SPDX-License-Identifier: MIT */
/* .NET EventPipe traces (.nettrace: dotnet-trace, DiagnosticsClient, DOTNET_EnableEventPipe),
 * file format versions 4 and 5. No Debian library reads them: hand-written, every length,
 * count and offset checked (docs/nettrace.md has the layouts).
 *
 * The file: "Nettrace", the FastSerialization header, the Trace object (clock, pointer size,
 * process id), then one object per block: MetadataBlock (event kinds: provider, event id,
 * name), StackBlock (stacks by id, instruction pointers leaf first), EventBlock (events with
 * compressed or plain headers naming a kind, a thread and a stack), SPBlock (sequence points),
 * and a NullReference tag at the end. A trace cut short keeps what came before the cut, with
 * a warning; a structure that does not read is an error naming its byte offset.
 *
 * Views: `thread-time` (the default when the runtime's sample profiler ran: PerfView's
 * EventPipe thread time — each sample holds its thread's stack until that thread's next
 * sample, under CPU_TIME when it ran managed code and UNMANAGED_CODE_TIME otherwise), and
 * any event kind (one sample per event, weighing 1, with its stack). Managed frames are named
 * from the runtime's method and module events (MethodLoadVerbose, rundown MethodDCStart/
 * DCEndVerbose, ModuleLoad, rundown ModuleDCStart/DCEnd); other addresses are `?!?`. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl_int.h" /* UTF-16 strings and the CLR's event names, shared with the ETL reader */
#include "stackview/formats.h"
#include "sv/array.h"
#include "sv/idmap.h"

enum { R_OTHER, R_SAMPLE, R_PROCINFO, R_METHOD, R_MODULE };

typedef struct nt_kind {
	char *name;
	size_t count, stacks;
	bool samples; /* the sample profiler's */
} nt_kind;

typedef struct nt_meta {
	uint32_t kind;
	int role;
} nt_meta;

typedef struct nt_event {
	uint64_t ts, tid;
	uint32_t kind;
	uint32_t stack; /* index + 1 into stks, 0 = none */
	uint32_t type;  /* sample profiler: 0 error, 1 external code, 2 managed code */
} nt_event;

typedef struct nt_stack {
	size_t off;  /* into ips */
	uint32_t n;
} nt_stack;

typedef struct nt_method {
	uint64_t start, size, module;
	char *name;
} nt_method;

typedef struct nt_module {
	uint64_t id;
	char *path;
} nt_module;

typedef struct nt_seq {
	uint64_t capture;
	uint32_t last;
} nt_seq;

typedef struct nt_ctx {
	const sv_input *in;
	sv_sink *sink;
	sv_error *err;
	const unsigned char *d;
	size_t n;
	/* the Trace object */
	uint64_t sync_qpc, freq;
	uint32_t ptr, pid, ncpus, rate;
	char *cmdline;
	nt_kind *kinds;
	size_t nkinds, kindcap;
	sv_idmap kind_index;  /* name hash -> index + 1 (probed) */
	nt_meta *metas;
	size_t nmetas, metacap;
	sv_idmap meta_index;  /* metadata id -> index + 1 */
	nt_event *events;
	size_t nevents, eventcap;
	uint64_t *ips;
	size_t nips, ipcap;
	nt_stack *stks;
	size_t nstks, stkcap;
	sv_idmap stack_index; /* stack id -> index + 1 into stks (the last block that defined it) */
	nt_method *methods;
	size_t nmethods, methodcap;
	nt_module *modules;
	size_t nmodules, modulecap;
	nt_seq *seqs;
	size_t nseqs, seqcap;
	sv_idmap seq_index;   /* capture thread -> index + 1 into seqs */
	size_t lost, samples, blocks, unknown_meta, short_payloads;
	bool cut;             /* the trace ends before its end tag */
	bool partial;         /* reading the block the file's end cuts: stop at its first cut event */
	size_t cut_at;
} nt_ctx;

static int nt_fail(nt_ctx *c, size_t off, const char *fmt, ...) SV_PRINTF(3, 4);
static int nt_fail(nt_ctx *c, size_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sv_error_vset(c->err, SV_EFORMAT, fmt, ap);
	va_end(ap);
	sv_error_locate(c->err, c->in->name, -1, (long long)off);
	return SV_EFORMAT;
}

/* ---- kinds ---- */

static int kind_of(nt_ctx *c, const char *name, uint32_t *out)
{
	size_t len = strlen(name);
	for (uint64_t h = sv_hash_bytes(name, len);; h++) {
		uint32_t i = sv_idmap_get(&c->kind_index, h);
		if (i == SV_IDMAP_NONE) {
			char *dup = strdup(name);
			if (!dup || SV_ARRAY_PUSH(c->kinds, c->nkinds, c->kindcap, ((nt_kind){ dup, 0, 0, false }))) {
				free(dup);
				return SV_ENOMEM;
			}
			*out = (uint32_t)c->nkinds - 1;
			return sv_idmap_put(&c->kind_index, h, (uint32_t)c->nkinds);
		}
		if (strcmp(c->kinds[i - 1].name, name) == 0) {
			*out = i - 1;
			return 0;
		}
	}
}

/* A UTF-16 string at p[*at..n) (NUL-terminated): a malloc'ed UTF-8 copy, *at past it; NULL
 * with *nomem for no memory, NULL alone when the string has no terminator. */
static char *utf16_field(const unsigned char *p, size_t n, size_t *at, bool *nomem)
{
	size_t i = *at;
	while (i + 2 <= n && (p[i] || p[i + 1]))
		i += 2;
	if (i + 2 > n)
		return NULL;
	size_t used = 0;
	char *s = sv_etl_dup_utf16(p + *at, n - *at, &used);
	if (!s)
		*nomem = true;
	*at += used;
	return s;
}

/* How TraceEvent names the events of the providers we know when the metadata carries no
 * name (the runtime's own events), else NULL. */
static const char *known_name(const char *provider, int id, int *role)
{
	*role = R_OTHER;
	if (strcmp(provider, "Microsoft-DotNETCore-SampleProfiler") == 0 && id == 0)
		return *role = R_SAMPLE, "Thread/Sample";
	if (strcmp(provider, "Microsoft-DotNETCore-EventPipe") == 0 && id == 1)
		return *role = R_PROCINFO, "ProcessInfo";
	bool rt = strcmp(provider, "Microsoft-Windows-DotNETRuntime") == 0;
	bool rundown = strcmp(provider, "Microsoft-Windows-DotNETRuntimeRundown") == 0;
	if ((rt && (id == 143 || id == 144)) || (rundown && (id == 143 || id == 144)))
		*role = R_METHOD;
	else if ((rt && id == 152) || (rundown && (id == 153 || id == 154)))
		*role = R_MODULE;
	const char *n = sv_etl_manifest_event_name(provider, id);
	if (!n && rundown && id == 143)
		n = "Method/DCStartVerbose";
	if (!n && rundown && id == 153)
		n = "Loader/ModuleDCStart";
	return n;
}

/* A metadata record: i32 MetaDataId, UTF-16 ProviderName, i32 EventId, UTF-16 EventName,
 * i64 Keywords, i32 Version, i32 Level, then the fields (not needed here). */
static int on_metadata(nt_ctx *c, const unsigned char *p, size_t n, size_t off)
{
	bool nomem = false;
	size_t at = 4;
	if (n < 4)
		return nt_fail(c, off, "a metadata record of %zu bytes is too short", n);
	uint32_t id = rd32(p);
	int eid = 0, role;
	char *prov = utf16_field(p, n, &at, &nomem), *name = NULL;
	if (prov && n - at >= 4) {
		eid = (int)rd32(p + at);
		at += 4;
		name = utf16_field(p, n, &at, &nomem);
	}
	int rc = 0;
	if (nomem) {
		rc = SV_ENOMEM;
	} else if (!prov || !name) {
		rc = nt_fail(c, off, "metadata record %u does not hold its provider and event names", id);
	} else {
		const char *known = known_name(prov, eid, &role);
		char full[512];
		if (name[0])
			snprintf(full, sizeof(full), "%s/%s", prov[0] ? prov : "?", name);
		else if (known)
			snprintf(full, sizeof(full), "%s/%s", prov, known);
		else
			snprintf(full, sizeof(full), "%s/EventID(%d)", prov[0] ? prov : "?", eid);
		uint32_t kind;
		if (!(rc = kind_of(c, full, &kind))) {
			c->kinds[kind].samples |= role == R_SAMPLE;
			uint32_t i = sv_idmap_get(&c->meta_index, id);
			if (i != SV_IDMAP_NONE) {
				c->metas[i - 1] = (nt_meta){ kind, role };
			} else if (SV_ARRAY_PUSH(c->metas, c->nmetas, c->metacap, ((nt_meta){ kind, role }))) {
				rc = SV_ENOMEM;
			} else {
				rc = sv_idmap_put(&c->meta_index, id, (uint32_t)c->nmetas);
			}
		}
	}
	free(prov);
	free(name);
	return rc;
}

/* ---- the runtime's events we read ---- */

/* MethodLoadVerbose / MethodDCStart|EndVerbose: u64 MethodID, ModuleID, MethodStartAddress;
 * u32 MethodSize, MethodToken, MethodFlags; UTF-16 Namespace, Name, Signature; ... */
static int on_method(nt_ctx *c, const unsigned char *p, size_t n)
{
	if (n < 36) {
		c->short_payloads++;
		return 0;
	}
	bool nomem = false;
	size_t at = 36;
	char *ns = utf16_field(p, n, &at, &nomem);
	char *nm = ns ? utf16_field(p, n, &at, &nomem) : NULL;
	char *sig = nm ? utf16_field(p, n, &at, &nomem) : NULL;
	int rc = 0;
	if (nomem) {
		rc = SV_ENOMEM;
	} else if (!sig) {
		c->short_payloads++;
	} else {
		char *full = sv_etl_method_name(ns, nm, sig);
		nt_method m = { rd64(p + 16), rd32(p + 24), rd64(p + 8), full };
		if (!full || SV_ARRAY_PUSH(c->methods, c->nmethods, c->methodcap, m)) {
			free(full);
			rc = SV_ENOMEM;
		}
	}
	free(ns);
	free(nm);
	free(sig);
	return rc;
}

/* ModuleLoad / ModuleDCStart|DCEnd: u64 ModuleID, AssemblyID; u32 ModuleFlags, Reserved1;
 * UTF-16 ModuleILPath, ... */
static int on_module(nt_ctx *c, const unsigned char *p, size_t n)
{
	bool nomem = false;
	size_t at = 24;
	char *path = n > 24 ? utf16_field(p, n, &at, &nomem) : NULL;
	if (nomem)
		return SV_ENOMEM;
	if (!path) {
		c->short_payloads++;
		return 0;
	}
	if (SV_ARRAY_PUSH(c->modules, c->nmodules, c->modulecap, ((nt_module){ rd64(p), path }))) {
		free(path);
		return SV_ENOMEM;
	}
	return 0;
}

/* Microsoft-DotNETCore-EventPipe/ProcessInfo: UTF-16 CommandLine, OSInformation, ArchInformation. */
static int on_procinfo(nt_ctx *c, const unsigned char *p, size_t n)
{
	bool nomem = false;
	size_t at = 0;
	char *cmd = utf16_field(p, n, &at, &nomem);
	if (nomem)
		return SV_ENOMEM;
	if (cmd) {
		free(c->cmdline);
		c->cmdline = cmd;
	}
	return 0;
}

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
		rc = on_method(c, p, h->size);
	else if (!rc && m->role == R_MODULE)
		rc = on_module(c, p, h->size);
	else if (!rc && m->role == R_PROCINFO)
		rc = on_procinfo(c, p, h->size);
	if (rc)
		return rc;
	uint32_t stack = 0;
	if (h->stack) {
		uint32_t s = sv_idmap_get(&c->stack_index, h->stack);
		if (s == SV_IDMAP_NONE)
			return nt_fail(c, off, "an event refers to stack %u, which no stack block defined before it", h->stack);
		stack = c->stks[s - 1].n ? s : 0;
	}
	uint32_t type = 0;
	if (m->role == R_SAMPLE) {
		c->samples++;
		if (h->size >= 4)
			type = rd32(p);
		else
			c->short_payloads++;
	}
	if (c->nevents >= SV_MAX_SAMPLES)
		return nt_fail(c, off, "more than %u events", SV_MAX_SAMPLES);
	nt_kind *k = &c->kinds[m->kind];
	k->count++;
	k->stacks += stack != 0;
	return SV_ARRAY_PUSH(c->events, c->nevents, c->eventcap, ((nt_event){ h->ts, h->tid, m->kind, stack, type }));
}

/* A record that runs past its block: an error, or in the block the file's end cuts, the end
 * of what can be read (1). */
static int past(nt_ctx *c, size_t off, const char *what)
{
	return c->partial ? 1 : nt_fail(c, off, "%s runs past its block", what);
}

/* An EventBlock or MetadataBlock at file offset off: u16 HeaderSize, u16 Flags, u64 Min and
 * Max timestamps, then event blobs (header compression when Flags & 1). */
static int on_event_block(nt_ctx *c, const unsigned char *b, size_t n, size_t off, bool meta)
{
	if (n < 20 || b[0] + ((size_t)b[1] << 8) > n)
		return past(c, off, "an event block's header");
	if (b[0] + ((size_t)b[1] << 8) < 20)
		return nt_fail(c, off, "an event block's header of %u bytes is shorter than its fields", b[0] + ((unsigned)b[1] << 8));
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
				return nt_fail(c, off + start, "an event of %zu bytes does not hold its %u-byte payload", size, h.size);
			at += 4 + 76;
			end = at + h.size;
			size_t next = start + 4 + size;
			next += (4 - (off + next) % 4) % 4;
			int rc = meta ? on_metadata(c, b + at, h.size, off + at) : on_event(c, &h, b + at, off + start);
			if (rc)
				return rc;
			at = next < n ? next : n;
			continue;
		}
		if (h.size > n - at)
			return past(c, off + start, "an event's payload");
		int rc = meta ? on_metadata(c, b + at, h.size, off + at) : on_event(c, &h, b + at, off + start);
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
			return nt_fail(c, off + at - 4, "stack %u of %u bytes is not whole %u-byte addresses", id, size, c->ptr);
		uint32_t nips = size / c->ptr;
		if (nips > SV_MAX_STACK_DEPTH)
			return nt_fail(c, off + at - 4, "stack %u is %u frames deep (at most %u)", id, nips, SV_MAX_STACK_DEPTH);
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
		return nt_fail(c, p, "expected an object's type here");
	*version = (int32_t)rd32(c->d + p + 2);
	uint32_t len = rd32(c->d + p + 10);
	if (len > 0 && len < cap && c->n - p - 14 < (size_t)len + 1)
		return 1;
	if (len == 0 || len >= cap || c->d[p + 14 + len] != 6)
		return nt_fail(c, p, "an object's type name does not read");
	memcpy(name, c->d + p + 14, len);
	name[len] = 0;
	*at = p + 15 + len;
	return 0;
}

static int nt_parse(nt_ctx *c)
{
	static const char fs[] = "!FastSerialization.1";
	const unsigned char *d = c->d;
	if (c->n >= 24 && rd32(d) == 20 && memcmp(d + 4, fs, 20) == 0)
		return nt_fail(c, 0, "a NetPerf trace (.NET Core 2.x, before 'Nettrace'): not read; record with .NET Core 3.0 or later");
	if (c->n < 16 || memcmp(d, "Nettrace", 8) != 0)
		return nt_fail(c, 0, "not a .nettrace file: it does not start with 'Nettrace'");
	if (rd32(d + 8) == 0)
		return nt_fail(c, 8, "nettrace format version %u.%u: only format versions 4 and 5 are read",
			       c->n >= 20 ? rd32(d + 12) : 0, c->n >= 20 ? rd32(d + 16) : 0);
	if (c->n < 32 || rd32(d + 8) != 20 || memcmp(d + 12, fs, 20) != 0)
		return nt_fail(c, 8, "the 'Nettrace' magic is not followed by the FastSerialization header");
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
			return nt_fail(c, at, "expected an object (tag 5) or the end (tag 1), found byte 0x%02x", d[at]);
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
				return nt_fail(c, obj, "the first object is a '%s', not the Trace", name);
			if (version < 4)
				return nt_fail(c, obj, "Trace object version %d: a NetPerf trace (.NET Core 2.x) is not read", version);
			/* SyncTimeUTC (8 x i16), i64 SyncTimeQPC, QPCFrequency, i32 PointerSize,
			 * ProcessId, NumberOfProcessors, ExpectedCPUSamplingRate */
			if (c->n - at < 49)
				return nt_fail(c, at, "the Trace object is cut short");
			c->sync_qpc = rd64(d + at + 16), c->freq = rd64(d + at + 24);
			c->ptr = rd32(d + at + 32), c->pid = rd32(d + at + 36), c->ncpus = rd32(d + at + 40), c->rate = rd32(d + at + 44);
			if (c->ptr != 4 && c->ptr != 8)
				return nt_fail(c, at + 32, "pointer size %u (4 or 8 expected)", c->ptr);
			if (c->freq == 0)
				return nt_fail(c, at + 24, "the clock frequency is 0");
			at += 48;
			if (d[at] != 6)
				return nt_fail(c, at, "the Trace object does not end where its fields do");
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
			return nt_fail(c, at, "the %s does not end where its size says", name);
		at++;
	}
	return trace ? 0 : nt_fail(c, at, "the trace ends before its Trace object");
}

/* ---- emitting ---- */

typedef struct nt_emit {
	nt_ctx *c;
	sv_idmap frame_by_ip;   /* ip -> frame id + 1 */
	sv_idmap stack_memo;    /* (thread slot << 32 | stack index) -> sv_stack_id */
	sv_stack_id proc;
	sv_frame_id cpu, unmanaged;
	struct nt_thread { uint64_t tid; sv_stack_id root; } *threads; /* by slot */
	size_t nthreads, threadcap;
	sv_idmap thread_index;  /* tid hash -> slot + 1 (probed) */
} nt_emit;

static int method_cmp(const void *a, const void *b)
{
	const nt_method *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static const nt_method *find_method(const nt_ctx *c, uint64_t ip)
{
	size_t lo = 0, hi = c->nmethods;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->methods[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the last method starting at or below ip; tiered code leaves several versions */
	for (size_t i = lo; i-- > 0;) {
		const nt_method *m = &c->methods[i];
		if (ip - m->start < m->size)
			return m;
		if (ip - m->start >= (1u << 24))
			break;
	}
	return NULL;
}

static int ip_frame(nt_emit *e, uint64_t ip, sv_frame_id *out)
{
	nt_ctx *c = e->c;
	uint32_t i = sv_idmap_get(&e->frame_by_ip, ip);
	if (i != SV_IDMAP_NONE) {
		*out = i - 1;
		return 0;
	}
	char buf[1200];
	const nt_method *m = find_method(c, ip);
	if (m) {
		const char *path = NULL;
		for (size_t k = 0; k < c->nmodules && !path; k++)
			if (c->modules[k].id == m->module)
				path = c->modules[k].path;
		/* the module's path without its extension, as ETL frames (PerfView's full name) */
		size_t pl = path ? strlen(path) : 0;
		const char *dot = path ? strrchr(path, '.') : NULL, *slash = path ? strrchr(path, '/') : NULL,
			   *bslash = path ? strrchr(path, '\\') : NULL;
		if (dot && (!slash || dot > slash) && (!bslash || dot > bslash))
			pl = (size_t)(dot - path);
		snprintf(buf, sizeof(buf), "%.*s!%s", pl ? (int)pl : 1, pl ? path : "?", m->name);
	} else {
		snprintf(buf, sizeof(buf), "?!?");
	}
	int rc = c->sink->ops->intern_frame(c->sink->self, out, buf, strlen(buf));
	return rc ? rc : sv_idmap_put(&e->frame_by_ip, ip, *out + 1);
}

static int intern(nt_emit *e, sv_stack_id *s, const char *name)
{
	sv_sink *k = e->c->sink;
	sv_frame_id f;
	int rc = k->ops->intern_frame(k->self, &f, name, strlen(name));
	return rc ? rc : k->ops->intern_stack(k->self, s, *s, f);
}

static int thread_slot(nt_emit *e, uint64_t tid, uint32_t *out)
{
	for (uint64_t h = sv_hash_mix64(tid);; h++) {
		uint32_t i = sv_idmap_get(&e->thread_index, h);
		if (i == SV_IDMAP_NONE)
			break;
		if (e->threads[i - 1].tid == tid) {
			*out = i - 1;
			return 0;
		}
	}
	char name[48];
	snprintf(name, sizeof(name), "Thread (%llu)", (unsigned long long)tid);
	sv_stack_id s = e->proc;
	int rc = intern(e, &s, name);
	if (rc || (rc = SV_ARRAY_PUSH(e->threads, e->nthreads, e->threadcap, ((struct nt_thread){ tid, s }))))
		return rc;
	*out = (uint32_t)e->nthreads - 1;
	uint64_t h = sv_hash_mix64(tid);
	while (sv_idmap_get(&e->thread_index, h) != SV_IDMAP_NONE)
		h++;
	return sv_idmap_put(&e->thread_index, h, *out + 1);
}

/* The stack of an event under its thread: frames root first (the IPs are leaf first). */
static int event_stack(nt_emit *e, const nt_event *ev, sv_stack_id *out)
{
	nt_ctx *c = e->c;
	uint32_t t;
	int rc = thread_slot(e, ev->tid, &t);
	if (rc)
		return rc;
	if (!ev->stack) {
		*out = e->threads[t].root;
		return 0;
	}
	uint64_t key = (uint64_t)t << 32 | ev->stack;
	uint32_t memo = sv_idmap_get(&e->stack_memo, key);
	if (memo != SV_IDMAP_NONE) {
		*out = memo;
		return 0;
	}
	const nt_stack *st = &c->stks[ev->stack - 1];
	sv_stack_id s = e->threads[t].root;
	sv_sink *k = c->sink;
	for (uint32_t i = st->n; i-- > 0;) {
		sv_frame_id f;
		if ((rc = ip_frame(e, c->ips[st->off + i], &f)) || (rc = k->ops->intern_stack(k->self, &s, s, f)))
			return rc;
	}
	*out = s;
	return sv_idmap_put(&e->stack_memo, key, s);
}

static int by_thread_time(const void *a, const void *b)
{
	const nt_event *x = *(const nt_event *const *)a, *y = *(const nt_event *const *)b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int by_time(const void *a, const void *b)
{
	const nt_event *x = *(const nt_event *const *)a, *y = *(const nt_event *const *)b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x < y ? -1 : x > y;
}

static double ms_of(const nt_ctx *c, uint64_t ts)
{
	return ts >= c->sync_qpc ? (double)(ts - c->sync_qpc) * 1000.0 / (double)c->freq
				 : -(double)(c->sync_qpc - ts) * 1000.0 / (double)c->freq;
}

/* The samples of kind `want`; thread time (tt) holds each until its thread's next one. */
static int nt_emit_samples(nt_ctx *c, uint32_t want, bool tt, size_t *shown)
{
	nt_emit e = { .c = c };
	sv_idmap_init(&e.frame_by_ip);
	sv_idmap_init(&e.stack_memo);
	sv_idmap_init(&e.thread_index);
	sv_sink *k = c->sink;
	const nt_event **order = NULL;
	size_t n = 0;
	int rc = 0;
	if (c->nmethods)
		qsort(c->methods, c->nmethods, sizeof(*c->methods), method_cmp);
	order = malloc((c->nevents ? c->nevents : 1) * sizeof(*order));
	if (!order) {
		rc = SV_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c->nevents; i++)
		if (c->events[i].kind == want)
			order[n++] = &c->events[i];
	qsort(order, n, sizeof(*order), tt ? by_thread_time : by_time);
	/* Process64 dotnet (4242) Args: app.dll: the command line ProcessInfo logged */
	char pname[1024];
	const char *cmd = c->cmdline ? c->cmdline : "";
	size_t first = strcspn(cmd, " ");
	const char *base = cmd;
	for (size_t i = 0; i < first; i++)
		if (cmd[i] == '/' || cmd[i] == '\\')
			base = cmd + i + 1;
	size_t bl = (size_t)(cmd + first - base);
	const char *dot = memchr(base, '.', bl);
	if (dot)
		bl = (size_t)(dot - base);
	const char *args = cmd[first] ? cmd + first + 1 : "";
	if (bl)
		snprintf(pname, sizeof(pname), "Process%u %.*s (%u) Args: %.900s", c->ptr * 8, (int)bl, base, c->pid, args);
	else
		snprintf(pname, sizeof(pname), "Process%u (%u)", c->ptr * 8, c->pid);
	e.proc = SV_STACK_NONE;
	sv_frame_id f;
	if ((rc = k->ops->intern_frame(k->self, &f, pname, strlen(pname))) || (rc = k->ops->intern_stack(k->self, &e.proc, SV_STACK_NONE, f)) ||
	    (rc = k->ops->intern_frame(k->self, &e.cpu, "CPU_TIME", 8)) ||
	    (rc = k->ops->intern_frame(k->self, &e.unmanaged, "UNMANAGED_CODE_TIME", 19)))
		goto out;
	for (size_t i = 0; i < n && !rc; i++) {
		const nt_event *ev = order[i];
		if (i % 65536 == 0 && (rc = sv_input_progress(c->in, c->n, c->err)))
			break;
		sv_stack_id s;
		if (tt) {
			/* held until the thread's next sample; the last one has no end (dropped) */
			if (i + 1 >= n || order[i + 1]->tid != ev->tid)
				continue;
			if ((rc = event_stack(&e, ev, &s)) ||
			    (rc = k->ops->intern_stack(k->self, &s, s, ev->type == 2 ? e.cpu : e.unmanaged)))
				break;
			rc = k->ops->add_sample(k->self, s, ms_of(c, ev->ts), ms_of(c, order[i + 1]->ts) - ms_of(c, ev->ts), 1.0);
		} else {
			if ((rc = event_stack(&e, ev, &s)))
				break;
			rc = k->ops->add_sample(k->self, s, ms_of(c, ev->ts), 1.0, 1.0);
		}
		*shown += !rc;
	}
out:
	free(order);
	free(e.threads);
	sv_idmap_dispose(&e.frame_by_ip);
	sv_idmap_dispose(&e.stack_memo);
	sv_idmap_dispose(&e.thread_index);
	return rc;
}

static void nt_dispose(nt_ctx *c)
{
	for (size_t i = 0; i < c->nkinds; i++)
		free(c->kinds[i].name);
	for (size_t i = 0; i < c->nmethods; i++)
		free(c->methods[i].name);
	for (size_t i = 0; i < c->nmodules; i++)
		free(c->modules[i].path);
	free(c->kinds);
	free(c->metas);
	free(c->events);
	free(c->ips);
	free(c->stks);
	free(c->methods);
	free(c->modules);
	free(c->seqs);
	free(c->cmdline);
	sv_idmap_dispose(&c->kind_index);
	sv_idmap_dispose(&c->meta_index);
	sv_idmap_dispose(&c->stack_index);
	sv_idmap_dispose(&c->seq_index);
}

static int nt_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	nt_ctx c = { .in = in, .sink = sink, .err = err, .d = in->data, .n = in->len };
	sv_idmap_init(&c.kind_index);
	sv_idmap_init(&c.meta_index);
	sv_idmap_init(&c.stack_index);
	sv_idmap_init(&c.seq_index);
	const char *event = opts ? opts->event : NULL;
	int rc = nt_parse(&c);
	uint32_t want = UINT32_MAX, sample_kind = UINT32_MAX;
	for (size_t i = 0; !rc && i < c.nkinds; i++)
		if (c.kinds[i].count && c.kinds[i].samples)
			sample_kind = (uint32_t)i;
	bool tt = event ? strcmp(event, "thread-time") == 0 : sample_kind != UINT32_MAX;
	if (!rc && tt && sample_kind == UINT32_MAX)
		rc = sv_error_set(err, SV_EINVAL, "event 'thread-time' needs the runtime's sample profiler "
						 "(dotnet-trace collect --profile cpu-sampling, the default)");
	if (!rc && !tt) {
		/* --event KIND, or with no samples the kind with the most stacks */
		size_t best = 0;
		for (size_t i = 0; i < c.nkinds; i++)
			if (event ? strcmp(c.kinds[i].name, event) == 0 : c.kinds[i].stacks > best)
				want = (uint32_t)i, best = c.kinds[i].stacks;
		if (!event && want == UINT32_MAX && c.nkinds)
			want = 0;
		if (want == UINT32_MAX) {
			char msg[1024];
			size_t o = (size_t)snprintf(msg, sizeof(msg), event ? "no event '%s' in the trace; it has:" : "%sthe trace has no events",
						    event ? event : "");
			for (size_t k = 0; event && k < c.nkinds && o < sizeof(msg); k++)
				o += (size_t)snprintf(msg + o, sizeof(msg) - o, "%s %s", k ? "," : "", c.kinds[k].name);
			if (event && sample_kind != UINT32_MAX && o < sizeof(msg))
				snprintf(msg + o, sizeof(msg) - o, ", thread-time");
			rc = sv_error_set(err, event ? SV_EINVAL : SV_EFORMAT, "%s", msg);
			if (!event)
				sv_error_locate(err, in->name, -1, -1);
		}
	}
	for (size_t i = 0; !rc && sink->ops->add_event && i < c.nkinds; i++)
		rc = sink->ops->add_event(sink->self, c.kinds[i].name, c.kinds[i].count, !tt && i == want);
	if (!rc && sink->ops->add_event && sample_kind != UINT32_MAX)
		rc = sink->ops->add_event(sink->self, "thread-time", c.kinds[sample_kind].count, tt);
	if (!rc && sink->ops->set_scaling)
		rc = sink->ops->set_scaling(sink->self, tt ? SV_SCALING_TIME : SV_SCALING_DATA);
	if (!rc && tt && sink->ops->set_intervals)
		rc = sink->ops->set_intervals(sink->self);
	if (!rc && !tt && sink->ops->set_unit)
		rc = sink->ops->set_unit(sink->self, "events");
	size_t shown = 0;
	if (!rc)
		rc = nt_emit_samples(&c, tt ? sample_kind : want, tt, &shown);
	if (!rc)
		rc = sv_sink_note(sink, SV_NOTE_INFO, "nettrace: pointer size %u, process %u, %u CPUs, clock %llu Hz, %zu blocks, "
						      "%zu events of %zu kinds",
				  c.ptr, c.pid, c.ncpus, (unsigned long long)c.freq, c.blocks, c.nevents, c.nkinds);
	if (!rc)
		rc = sv_sink_note(sink, SV_NOTE_INFO, "managed code: %zu methods named (method load and rundown events), %zu modules",
				  c.nmethods, c.nmodules);
	if (!rc && tt)
		rc = sv_sink_note(sink, SV_NOTE_INFO,
				  "thread-time: %zu sample profiler samples (every %.3g ms), each holding its thread's stack until the thread's "
				  "next sample: CPU_TIME in managed code, UNMANAGED_CODE_TIME elsewhere (a thread's last sample has no end)",
				  c.samples, c.rate ? 1000.0 / c.rate : 1.0);
	else if (!rc && !event)
		rc = sv_sink_note(sink, SV_NOTE_INFO, "no sample profiler events: showing '%s', the kind with the most stacks",
				  c.kinds[want].name);
	if (!rc && c.lost)
		rc = sv_sink_note(sink, SV_NOTE_WARNING, "%zu events were dropped by the runtime (gaps in the sequence numbers)", c.lost);
	if (!rc && c.cut)
		rc = sv_sink_note(sink, SV_NOTE_WARNING, "the trace is cut short at byte %zu (no end tag): what came before is shown",
				  c.cut_at);
	if (!rc && c.unknown_meta)
		rc = sv_sink_note(sink, SV_NOTE_WARNING, "%zu events name metadata the trace does not define: left out", c.unknown_meta);
	if (!rc && c.short_payloads)
		rc = sv_sink_note(sink, SV_NOTE_WARNING, "%zu events are too short for their payload: read without it", c.short_payloads);
	if (rc == SV_ENOMEM)
		sv_error_set(err, SV_ENOMEM, NULL);
	nt_dispose(&c);
	return rc;
}

static bool nt_probe(const unsigned char *data, size_t len)
{
	return len >= 8 && memcmp(data, "Nettrace", 8) == 0;
}

static const char *const nt_patterns[] = { ".nettrace", ".netperf", NULL };

const sv_format sv_fmt_nettrace = {
	.name = "nettrace", .patterns = nt_patterns, .probe = nt_probe, .import = nt_import,
};
