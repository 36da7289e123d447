/* SPDX-License-Identifier: MIT */
/* Internals of the .nettrace reader, one file a concern: event kinds and the runtime's
 * events it reads (nettrace_meta.c), blocks and the FastSerialization object stream
 * (nettrace_blocks.c), samples emitted per view (nettrace_emit.c) and the driver with the
 * table entry (nettrace.c), each calling only those before it. formats/ only.
 * Ownership: one nt_ctx per import, in nt_import's stack frame; it owns every array it points
 * to, borrows the input. */
#ifndef STACKVIEW_FORMATS_NETTRACE_INT_H
#define STACKVIEW_FORMATS_NETTRACE_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackview/formats.h"
#include "sv/idmap.h"

#include "sv/idmap.h"

enum { R_OTHER, R_SAMPLE, R_PROCINFO, R_METHOD, R_MODULE, R_ALLOC };

typedef struct nt_kind {
	char *name;
	size_t count, stacks;
	bool samples; /* the sample profiler's */
	bool bytes;   /* its events weigh bytes (the CLR's AllocationTick) */
} nt_kind;

typedef struct nt_meta {
	uint32_t kind;
	int role;
	uint32_t f0, nf; /* its payload's top-level fields: fields[f0 ..], nf of them (0: none described) */
} nt_meta;

/* A payload field from the metadata (V1 or V2 description), in pre-order: an object's
 * (type 1) nchild fields follow it, each with its own children. */
typedef struct nt_field {
	char *name;
	uint8_t type, elem;  /* TypeCode; elem: an array's (type 19) element type */
	uint32_t nchild;     /* an object's fields, or an array of objects' element fields */
	uint32_t span;       /* entries this field takes in the list, itself and all below it */
} nt_field;

typedef struct nt_event {
	uint64_t ts, tid;
	uint32_t kind;
	uint32_t stack; /* index + 1 into stks, 0 = none */
	uint32_t type;  /* sample profiler: 0 error, 1 external code, 2 managed code; AllocationTick:
			 * its leaf frames, index + 1 into leaves */
	double metric;  /* AllocationTick: the bytes allocated since the previous tick; else 1 */
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
	uint32_t ptr, pid, ncpus, rate; /* rate: the sample profiler's interval in ns */
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
	char **leaves;        /* AllocationTick leaf frames ("Type System.String") */
	size_t nleaves, leafcap;
	sv_idmap leaf_index;  /* text hash -> index + 1 (probed) */
	nt_field *fields;
	size_t nfields, fieldcap;
	/* listing (sv_list_events): field descriptions read, each event's place kept */
	bool listing;
	struct nt_lev *levs;
	size_t nlevs, levcap;
	sv_idmap seq_index;   /* capture thread -> index + 1 into seqs */
	size_t lost, samples, blocks, unknown_meta, short_payloads;
	size_t unnamed_ips;     /* distinct stack addresses of the shown samples no method covers */
	bool cut;             /* the trace ends before its end tag */
	bool partial;         /* reading the block the file's end cuts: stop at its first cut event */
	size_t cut_at;
} nt_ctx;

/* An error at byte offset off of the file (SV_EFORMAT). */
static inline int sv_nt_fail(nt_ctx *c, size_t off, const char *fmt, ...) SV_PRINTF(3, 4);
static inline int sv_nt_fail(nt_ctx *c, size_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sv_error_vset(c->err, SV_EFORMAT, fmt, ap);
	va_end(ap);
	sv_error_locate(c->err, c->in->name, -1, (long long)off);
	return SV_EFORMAT;
}

/* nettrace_meta.c: a MetadataBlock event (an event kind); the runtime's method, module and
 * process-info events. */
int sv_nt_on_metadata(nt_ctx *c, const unsigned char *p, size_t n, size_t off);
int sv_nt_on_method(nt_ctx *c, const unsigned char *p, size_t n);
int sv_nt_on_module(nt_ctx *c, const unsigned char *p, size_t n);
int sv_nt_on_procinfo(nt_ctx *c, const unsigned char *p, size_t n);
/* GC/AllocationTick: its bytes into *metric, its leaf frames (index + 1 into leaves) into *leaf. */
int sv_nt_on_alloc_tick(nt_ctx *c, const unsigned char *p, size_t n, double *metric, uint32_t *leaf);
/* nettrace_list.c: a metadata record's field descriptions (at p[at..n), after its Level)
 * into c->fields; an event's place kept for the listing (payload at file offset off). */
int sv_nt_meta_fields(nt_ctx *c, const unsigned char *p, size_t n, size_t at, uint32_t *f0, uint32_t *nf);
int sv_nt_keep_event(nt_ctx *c, uint32_t meta, uint64_t ts, uint64_t tid, uint32_t proc, bool stack, size_t off,
		     uint32_t size);
/* After sv_nt_parse with c->listing: every kept event to fn in time order. */
int sv_nt_list(nt_ctx *c, sv_trace_event_fn fn, void *payload);
void sv_nt_list_dispose(nt_ctx *c);
double sv_nt_ms(const nt_ctx *c, uint64_t ts);
/* The program's name from ProcessInfo's command line (its first word without folder and
 * extension): *base and the length; 0 without one. */
size_t sv_nt_program(const nt_ctx *c, const char **base);
/* The process frame's name: "Process64 NAME (PID) Args: ..." from ProcessInfo, else
 * "Process(PID)". */
void sv_nt_process_name(const nt_ctx *c, char *buf, size_t cap);
/* nettrace_blocks.c: the whole object stream, into c. */
int sv_nt_parse(nt_ctx *c);
/* nettrace_emit.c: the samples of event kind `want` (or thread time), into the sink. */
int sv_nt_emit_samples(nt_ctx *c, uint32_t want, bool tt, size_t *shown);

#endif
