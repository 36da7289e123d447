/* SPDX-License-Identifier: MIT */
/* Internals of the ETL importer (formats/ only; also its tests and fuzz targets).
 *
 * The importer is layered like the perf one:
 *   etl_common.c  byte readers' helpers, UTF-16, provider identities, warnings and errors
 *   etl_stream.c  the container: logfile header, buffers (Xpress), per-CPU streams merged
 *                 by timestamp, each record handed to sv_etl_on_record
 *   etl_events.c  event decoding: processes, threads, images, CLR methods, volumes, kinds
 *   etl_stacks.c  address stacks and stack stitching (samples <-> StackWalk / stack keys)
 *   etl_emit.c    the second pass: frame names and memoized stacks pushed into the sink
 *   etl.c         the format entry (probe, import driver, notes)
 *
 * Ownership: every array in etl_ctx is owned by the context and freed by the driver. */
#ifndef STACKVIEW_FORMATS_ETL_INT_H
#define STACKVIEW_FORMATS_ETL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/net.h"
#include "stackview/formats.h"
#include "sv/idmap.h"

/* [MS-XCA] Plain LZ77: decompress `in` into exactly `outlen` bytes of `out`. 0 on success;
 * SV_EFORMAT when the input is corrupt or too short, with *bad_at the input offset where it
 * failed. Never reads or writes out of bounds. */
int sv_xpress_decompress(const unsigned char *in, size_t inlen, unsigned char *out, size_t outlen,
			 size_t *bad_at);

#define BUF_HDR 0x48u
#define MAX_BUF_BYTES (64u << 20) /* decompressed size of one buffer */
#define MAX_CHAIN 64              /* samples tried per (timestamp) when matching a stack */
#define MAX_OVERLAP 256           /* images tried per address lookup */
#define PROC_MEMO 256
#define MAX_HISTORY 256           /* records tried per thread, process, image or module id */
#define MAX_RATIO 1000u           /* decompressed events / file size, as for zips */

#define AS_NONE UINT32_MAX         /* stack half not known (yet) */
#define AS_EMPTY (UINT32_MAX - 1)  /* stack half known to be empty */
#define AS_NOSTACK (UINT32_MAX - 2) /* pair marker: the sample had no stack at all */

/* ---- little-endian readers (bounds are the caller's) ---- */
static inline uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static inline uint64_t rdptr(const unsigned char *p, unsigned ptr) { return ptr == 8 ? rd64(p) : rd32(p); }

/* ---- provider identities ---- */

/* GUIDs as stored in the file (Data1..3 little-endian, then Data4). */
typedef struct guid_name {
	unsigned char g[16];
	int group; /* kernel task GUID: its hook group; -1 otherwise */
	const char *name;
} guid_name;

extern const guid_name sv_etl_guids[]; /* the providers this importer knows */

/* Views that put two kernel event kinds (hook group, opcodes) in one source: --event NAME,
 * listed by info when the trace has either kind; needs: what to record when it has neither. */
typedef struct etl_view {
	const char *name;
	int group, ops[3]; /* opcodes; -1: none */
	const char *needs;
} etl_view;
enum { V_NET_VALLOC, V_DISK_TIME, V_NET_HEAP, V_COUNT };
bool sv_etl_view_has(const etl_view *v, int group, int op);
extern const etl_view sv_etl_views[V_COUNT];
extern const size_t sv_etl_nguids;
enum { G_SYSCONFIGEX = 15, G_IMAGEID = 16, G_METADATA = 17, G_CLR = 18, G_CLR_RUNDOWN = 19 };  /* indices into sv_etl_guids: append new entries */

/* ---- what the first pass collects ---- */

typedef struct etl_buf {
	size_t off;        /* in the file */
	uint32_t size;     /* bytes in the file */
	uint32_t fill;     /* uncompressed bytes incl. the header */
	uint64_t seq;
	uint32_t cpu;
	uint32_t index;    /* file order */
	bool compressed;
} etl_buf;

enum rec_kind { REC_HOOK, REC_CLASSIC, REC_EVENT };

typedef struct etl_rec {
	int kind;
	unsigned ptr;      /* pointer size of the record's own fields (4 or 8) */
	int group, type;   /* REC_HOOK (and classic kernel events): hook id; type = opcode */
	int version;
	int id;            /* REC_EVENT: descriptor id; REC_CLASSIC: opcode */
	int guid;          /* index into sv_etl_guids, or -1 */
	const unsigned char *guid_bytes;
	uint32_t tid, pid;
	bool no_ids;       /* a compact header: tid and pid are not the record's */
	uint64_t ts;
	const unsigned char *payload;
	size_t plen;
	uint32_t cpu;
	const char *tl_provider, *tl_event; /* TraceLogging names (extended data), or NULL */
	const unsigned char *tl_fields;     /* ... and the schema's fields after the event name */
	size_t tl_fields_len;
	uint32_t buf;      /* file-order buffer index */
	size_t pos;        /* offset in the (decompressed) buffer */
} etl_rec;

typedef struct stream {
	uint32_t *bufs;    /* file-order indices, by sequence number */
	size_t nbufs, next;
	const unsigned char *data; /* current buffer payload (after the header) */
	size_t len, pos;
	unsigned char *own;
	size_t owncap;
	uint32_t cur;      /* file-order index of the current buffer */
	etl_rec rec;       /* the next record of this CPU */
} stream;

typedef struct esample {
	uint64_t ts, ip;
	uint32_t tid, spid; /* spid: StackProcess of a matched stack event + 1, 0 = none */
	uint32_t kid, uid;  /* address stacks, or AS_NONE / AS_EMPTY */
	uint32_t next_ts, next_pend, next_kw, next_uw; /* list links: index + 1, 0 = end */
	uint8_t state;
	uint8_t flags;      /* DPC/ISR bits of the sample */
	uint16_t cpu;
	double metric;      /* an event other than a CPU sample: its metric (bytes, or 1) */
	uint32_t leaf;      /* ... and its leaf frames: index + 1 into etl_ctx.leaves, 0 = none */
	uint64_t file;      /* ... or the file object it read (a "File PATH" leaf), 0 = none */
	/* thread time: what the record is (ES_*); a CSwitch's old thread, wait reason and state
	 * (its new thread is tid), a ReadyThread's awakened thread (the readier is tid) */
	uint8_t ekind, reason, ostate;
	uint8_t lend;       /* LEND_*: what the sample other names lends it */
	uint32_t other;
} esample;
/* LEND_STACK: a disk I/O takes its Init event's stack (and process) when it has none;
 * LEND_ALL: a heap free takes its allocation's thread, process and stack (net views) */
enum { LEND_NONE, LEND_STACK, LEND_ALL };
enum { ES_SAMPLE, ES_CSWITCH, ES_READY, ES_CARRIER }; /* ES_CARRIER: a DiskIO Init kept for its stack */
enum { IN_PEND = 1, IN_KW = 2, IN_UW = 4 };

typedef struct eproc {
	uint32_t pid;
	uint64_t ts;
	char *image;       /* ImageFileName, e.g. "Test.x64.exe" */
	char *cmdline;
	bool wow64;
	bool named;
	sv_frame_id frame;
	uint32_t next;     /* same pid, index + 1 */
} eproc;

typedef struct ethread {
	uint32_t tid, pid;
	uint64_t ts;
	bool start;
	uint32_t next;
} ethread;

typedef struct eimage {
	uint32_t pid;
	uint64_t base, size, load_ts, unload_ts;
	char *path;        /* as logged (NT path) */
	uint32_t next;     /* while reading: the previous image with the same (pid, base) key, + 1 */
} eimage;

typedef struct emethod {
	uint32_t pid;
	uint64_t start, size, module, ts;
	char *name;        /* Namespace.Name(args) */
} emethod;

typedef struct emodule {
	uint32_t pid;
	uint64_t id;
	char *path;
	uint32_t next;     /* the previous module with the same id key, + 1 */
} emodule;

typedef struct evolume {
	char *nt, *dos; /* "\Device\HarddiskVolume2" -> "C:" */
} evolume;

/* KernelTraceControl ImageID events: an image's PDB identity (DbgID_RSDS: GUID, age, PDB
 * name) or its own (ImageID: TimeDateStamp, SizeOfImage, file name), both keys of a store. */
typedef struct ersds {
	uint32_t pid;
	uint64_t base;
	bool image;        /* ImageID: the image itself (its exports), not its PDB */
	unsigned char guid[16];
	uint32_t age, stamp, size;
	char *name;        /* the PDB's, or the image's file name */
	uint32_t file;     /* index + 1 into etl_ctx.symfiles once looked for */
} ersds;

/* A PDB identity looked for on the symbol path: the table, or why there is none. */
typedef struct esymfile {
	char key[48];
	char *name;
	bool image;        /* an image's exports, not a PDB */
	struct sv_symtab *t;
	char *path;        /* where t was read from */
	char why[600];
	/* the image built with this PDB, for annotate (etl_code.c): looked for once */
	int8_t code;       /* 0 not looked for, 1 found (code_file), -1 none */
	uint32_t code_file;
	uint64_t code_base; /* its preferred load address */
	char code_name[64]; /* the image's file name, once looked for */
} esymfile;

/* An event kind named by the trace itself: a TRACE_EVENT_INFO (KernelTraceControl's
 * MetaData/EventInfo) or an EventSource's manifest. */
typedef struct emeta {
	unsigned char guid[16];
	int id;
	char *name; /* "Provider/Task[/Opcode]" */
	int tpl;    /* its fields: index into the context's tpls, -1 = not described */
} emeta;

/* A field of an event a manifest in the trace describes: its name, TDH in-type and out-type
 * (TraceLogging's numbering: 4 hex, 3 boolean; 25 a socket address, TDH's) and value map
 * (index into maps, -1 none). */
typedef struct emfield {
	char *name;
	uint8_t in, out;
	long map;
	char *map_name; /* a map a TRACE_EVENT_INFO names (found by name and provider when read) */
	int len_from;   /* a binary's: the field before it that gives its size in bytes (-1: none) */
} emfield;
/* A manifest template: its fields; partial when decoding stops after them (a field sized by
 * another, or of a type not read). */
typedef struct etpl {
	emfield *f;
	size_t n;
	bool partial;
	unsigned char guid[16]; /* the provider's (its maps) */
} etpl;
/* A manifest's <valueMap> (a value's name) or <bitMap> (the names of the bits set, '|'). */
typedef struct emap {
	char *name;
	unsigned char guid[16]; /* the provider whose map it is */
	bool bits;
	uint64_t *values;
	char **names;
	size_t n;
} emap;

typedef struct ekind {
	uint64_t key;
	char *name;
	size_t count;
	char *id_name;          /* a kind named only after its first event: the name it had */
	unsigned char guid[16]; /* an unnamed manifest event's provider and id, to name it later */
	int id;                 /* -1: named when first seen */
} ekind;

typedef struct pid_index {
	uint32_t pid;
	uint32_t first, n; /* range in a sorted array */
} pid_index;

typedef struct warn {
	size_t count;
	char first[200];
} warn;
enum { W_BUFFER, W_RECORD, W_DECOMPRESS, W_KIND, W_PAYLOAD, W_COUNT };

typedef struct etl_ctx {
	sv_sink *sink;
	const sv_input *in;
	unsigned long long loaded; /* bytes of buffers read so far (progress) */
	sv_error *err;
	const unsigned char *file;
	size_t flen;

	/* logfile header */
	unsigned ptr;
	uint64_t hdr_ts;
	double freq;
	unsigned os_major, os_minor, build, ncpus;
	int compression;
	uint64_t interval; /* 100 ns units */

	etl_buf *bufs;
	size_t nbufs, bufcap, ncompressed;
	stream *streams;
	size_t nstreams;
	uint32_t *heap;
	size_t nheap;
	size_t inflight; /* decompressed bytes held by streams */
	/* sv_etl_find_proc's last answers, by pid (direct-mapped, PROC_MEMO entries; allocated by
	 * sv_etl_read_events): an answer holds for the times [lo, hi) while no process is added */
	struct proc_memo {
		uint32_t pid, nprocs, found; /* found: procs index + 1, 0 = none */
		uint64_t lo, hi;
	} *proc_memo;
	/* the same for sv_etl_thread_pid, by tid: an answer holds for [lo, hi) while no thread
	 * is added */
	struct thread_memo {
		uint32_t tid, nthreads, pid;
		bool found;
		uint64_t lo, hi;
	} *thread_memo;
	unsigned char last_guid[16]; /* the last record's provider and its sv_etl_guid_index */
	int last_guid_index;
	size_t records;
	size_t event_bytes; /* buffer contents read, after decompression */

	/* address stacks: interned arrays of addresses */
	uint64_t *addrs;
	size_t naddrs, addrcap;
	size_t *as_start;
	uint32_t *as_len;
	size_t nas, ascap, aslencap, asnextcap;
	sv_idmap as_index; /* hash -> id + 1 (collisions chained through as_next) */
	uint32_t *as_next;

	esample *samples;
	size_t nsamples, samplecap, raw_samples, idle_samples;
	sv_idmap by_ts, pend, kwait, uwait; /* values: sample index + 1, 0 = empty list */
	size_t stacks32, keyrefs, keydefs;

	eproc *procs;
	size_t nprocs, proccap;
	sv_idmap proc_by_pid; /* pid -> last entry + 1 */
	ethread *threads;
	size_t nthreads, threadcap;
	sv_idmap thread_by_tid; /* tid -> last entry + 1 */
	eimage *images;
	size_t nimages, imagecap;
	sv_idmap image_by_key; /* (pid, base) hash -> last image + 1 (chained by eimage.next) */
	emethod *methods;
	size_t nmethods, methodcap;
	emodule *modules;
	size_t nmodules, modulecap;
	sv_idmap module_by_key; /* (pid, id) hash -> last module + 1 (chained by emodule.next) */
	evolume *vols;
	size_t nvols, volcap;

	ekind *kinds;
	size_t nkinds, kindcap;
	sv_idmap kind_index;
	emeta *metas;         /* names of manifest events the trace carries */
	size_t nmetas, metacap;
	sv_idmap meta_index;  /* (GUID, id) hash -> index + 1 (probed) */
	etpl *tpls;           /* the manifests' templates and maps (etl_manifest.c) */
	size_t ntpls, tplcap;
	emap *maps;
	size_t nmaps, mapcap;
	unsigned char *man_buf; /* an EventSource manifest being put together from its chunks */
	size_t man_len, man_cap;
	unsigned man_next;      /* the chunk expected next */
	unsigned char man_guid[16];

	/* --event: the event kind that is the stack source (NULL: the CPU samples) */
	const char *want;
	long want_kind;       /* its index in kinds once seen, else -1 */
	bool want_bytes;      /* its decoder weighs events in bytes (else 1 each) */
	int view;             /* --event names one of sv_etl_views (two kinds in one source), or -1 */
	bool want_disk;       /* DiskIO Read/Write wanted: their Init events' stacks are theirs */
	sv_idmap disk_init;   /* Irp -> the Init carrier (sample index + 1) awaiting its completion */
	size_t disk_inits;    /* disk I/Os that found their Init event */
	bool want_heap;       /* a heap kind or net-os-heap wanted: live blocks are tracked */
	sv_idmap heap_index;  /* (pid, address) hash -> index + 1 into heap_blocks (probed) */
	struct heap_block { uint64_t addr, size; uint32_t pid, sample; } *heap_blocks; /* sample: index + 1, 0 none */
	size_t nheap_blocks, heap_blockcap;
	uint32_t *heap_free_slots; /* freed entries of heap_blocks, reused */
	size_t nheap_free_slots, heap_free_slotcap;
	size_t heap_unmatched; /* frees (or reallocs) of blocks allocated before the trace: left out */
	double heap_extra;     /* a ReAlloc's old block: its negative bytes, sample queued after the new one */
	uint32_t heap_extra_donor;
	char **leaves;        /* leaf frame texts of events ("Type System.String") */
	size_t nleaves, leafcap;
	sv_idmap leaf_index;  /* hash -> index + 1 (probed) */
	size_t events_kept;   /* events of the wanted kind kept as samples */
	sv_idmap clr_last;    /* tid -> the thread's last wanted CLR event (sample index + 1) */
	bool listing;         /* an Events listing (its first pass keeps what fields need) */
	sv_idmap stacked;     /* listing: (time, thread) of the events a stack was logged for */
	sv_idmap clr_prev;    /* listing: thread -> its last runtime event's time (index + 1 into clr_ts) */
	uint64_t *clr_ts;
	size_t nclr_ts, clr_ts_cap;
	char **tnames;        /* BulkType's type names (listing), by (pid, TypeID) in tname_index */
	size_t ntnames, tnamecap;
	sv_idmap tname_index;
	char **fnames;        /* FileIO names of file objects (the last one each object had) */
	size_t nfnames, fnamecap;
	sv_idmap fname_index; /* file object -> index + 1 */
	size_t clr_stacks;    /* ClrStackWalk events given to them */

	/* symbols (etl_symbols.c): the images' PDB identities, the PDBs looked for */
	const char *symbol_path; /* NULL: frames stay module!? */
	const char *symbol_modules; /* only these modules' symbols ("clr,ntdll"); NULL: all */
	ersds *rsds;
	size_t nrsds, rsdscap;
	sv_idmap rsds_by_key; /* (base, pid) hash -> index + 1 */
	sv_idmap imageid_by_key; /* the same for ImageID records */
	esymfile *symfiles;
	size_t nsymfiles, symfilecap;
	bool offline;         /* never download */
	sv_net net;           /* the downloads' time and Ctrl-C (core/net.h) */
	size_t unnamed_addrs, unnamed_nmods; /* addresses in images no symbol names, their modules */
	sv_idmap unnamed_mods;                /* module path hash -> 1 */
	char **noid;          /* images the frames need whose PDB identity the trace does not give */
	size_t nnoid, noidcap;
	char **failed;        /* servers that could not be reached this run */
	size_t nfailed, failedcap, downloads;

	/* thread time (thread_time.h): CSwitch and ReadyThread records kept as samples */
	bool tt_on;
	int tt_view;          /* sv_tt_view */
	bool by_cpu;          /* --by-cpu: every stack under its CPU */
	bool code_paths;      /* callers' code locations too (Goto Source), not only the leaf's */
	bool no_code;         /* no code locations at all (no command will ask for them) */
	bool code_notes;      /* but which images annotate would read, for info's notes */
	uint32_t *cpu_cur;    /* per CPU, the thread its last CSwitch switched in */
	size_t ncpu_cur;
	size_t cswitches, readies, cpu_kept;
	uint32_t events_lost; /* the logfile header's EventsLost */
	/* the listing pass: each record to list_fn (no samples kept) */
	sv_trace_event_fn list_fn;
	void *list_payload;
	void *list_buf; /* etl_list.c's field text (owned) */

	warn warns[W_COUNT];
	uint32_t first_pid;
} etl_ctx;

/* ---- etl_common.c ---- */

/* A malloc'ed UTF-8 copy of a UTF-16LE string field (at most n bytes, up to a NUL);
 * *used = input bytes consumed. NULL when out of memory. */
char *sv_etl_method_name(const char *ns, const char *name, const char *sig);
char *sv_etl_dup_utf16(const unsigned char *p, size_t n, size_t *used);
/* Is there a NUL-terminated UTF-16 string at p[0..n)? *len = its bytes before the NUL. */
bool sv_etl_utf16_ends(const unsigned char *p, size_t n, size_t *len);
/* The same into out (cap bytes, NUL-terminated; what does not fit is left out): its length. */
size_t sv_etl_utf16_into(const unsigned char *p, size_t n, char *out, size_t cap, size_t *used);
/* Payload values as the Events view shows them, shared by the ETL (TraceLogging, kernel),
 * .nettrace and runtime-template decoders: integers in decimal, HEX ones 0x..., floats to
 * their precision, BOOL32 True/False, GUIDs 8-4-4-4-12, FILETIME (100 ns from 1601) and .NET
 * DateTime (100 ns from year 1, the kind in the top two bits) as ISO 8601 UTC. */
typedef enum etl_val {
	EV_I8, EV_U8, EV_I16, EV_U16, EV_I32, EV_U32, EV_I64, EV_U64, EV_F32, EV_F64, EV_BOOL32, EV_HEX32, EV_HEX64,
	EV_GUID, EV_FILETIME, EV_DATETIME
} etl_val;
/* The value's size in bytes. */
size_t sv_etl_val_size(etl_val v);
/* Its text into buf (cap >= 48); q holds sv_etl_val_size(v) bytes. */
void sv_etl_val_text(char *buf, size_t cap, etl_val v, const unsigned char *q);
/* An integer in decimal (neg: with a minus) or in hex after "0x", into buf (cap bytes):
 * what snprintf's %llu / %llx write, without its cost (the listing writes millions). */
void sv_etl_int_text(char *buf, size_t cap, uint64_t u, bool neg, bool hex);
/* A logged path's file name (after its last '\\' or '/'). */
const char *sv_etl_base_name(const char *path);
/* The name of a kernel hook group, or NULL. */
const char *sv_etl_group_name(int group);
/* Index into sv_etl_guids of the 16-byte GUID at g, or -1. */
int sv_etl_guid_index(const unsigned char *g);
/* The name of a kernel event this importer reads, or NULL. */
const char *sv_etl_hook_event_name(int group, int op);
const char *sv_etl_trace_event_name(const char *provider, int op);
const char *sv_etl_manifest_event_name(const char *provider, int id);
/* Count a warning of class w (W_*); the first message of each class is kept for the notes. */
void sv_etl_warn(etl_ctx *c, int w, const char *fmt, ...) SV_PRINTF(3, 4);
/* Set c->err to `code` with the message, located at byte `off` of the .etl; returns code. */
int sv_etl_fail(etl_ctx *c, int code, size_t off, const char *fmt, ...) SV_PRINTF(4, 5);

/* ---- etl_stream.c ---- */

/* Read the logfile header (pointer size, clock, OS version, interval); 0 or an error. */
int sv_etl_read_header(etl_ctx *c);
/* Index every buffer of the file (c->bufs); 0 or an error. */
int sv_etl_walk_buffers(etl_ctx *c);
/* Merge the per-CPU streams by timestamp, handing each record to sv_etl_on_record. */
int sv_etl_read_events(etl_ctx *c);

/* ---- etl_events.c ---- */

/* Decode one record into the context (first pass). 0 or an error. */
int sv_etl_on_record(etl_ctx *c, const etl_rec *r);
/* etl_events.c: a process at a time (the latest started at or before it), a thread's pid. */
const eproc *sv_etl_find_proc(const etl_ctx *c, uint32_t pid, uint64_t ts);
bool sv_etl_thread_pid(const etl_ctx *c, uint32_t tid, uint64_t ts, uint32_t *pid);
/* A process as the Events view names it, into buf[0..cap): its program's name without the
 * extension, else Process(PID) as TraceEvent calls a process the trace does not name. */
void sv_etl_proc_label(const etl_ctx *c, uint32_t pid, uint64_t ts, char *buf, size_t cap);
/* etl_list.c: the listing pass (sv_list_events) hands each record here. */
int sv_etl_list_record(etl_ctx *c, const etl_rec *r);
void *sv_etl_list_buf_new(void);
/* Listing: whether a stack was logged for the event at ts on thread tid. */
bool sv_etl_has_stack(const etl_ctx *c, uint64_t ts, uint32_t tid);
/* A type's name from the BulkType events (pid, TypeID), or NULL. */
const char *sv_etl_type_name(const etl_ctx *c, uint32_t pid, uint64_t id);
/* The CLR module with this id in process pid, or NULL. */
const emodule *sv_etl_find_module(const etl_ctx *c, uint32_t pid, uint64_t id);

/* ---- etl_kinds.c ---- */

/* Names the kinds whose metadata came after their first event (see etl_kinds.c). */
int sv_etl_name_late_kinds(etl_ctx *c);
/* A TraceLogging manifest record (its kinds named); a record counted under its kind (*kind);
 * an EventInfo record (a classic provider's event names). */
int sv_etl_on_manifest(etl_ctx *c, const etl_rec *r);
int sv_etl_count_kind(etl_ctx *c, const etl_rec *r, uint32_t *kind);
int sv_etl_on_event_info(etl_ctx *c, const etl_rec *r);
/* KernelTraceControl/MetaData/EventMapInfo: a manifest provider's value or bit map. */
int sv_etl_on_event_map_info(etl_ctx *c, const etl_rec *r);

/* ---- etl_manifest.c ---- */

/* A manifest document's templates and maps (provider guid), read into c->tpls and c->maps; the handle
 * gives a template's index by its tid until sv_etl_manifest_done. */
typedef struct etl_mf etl_mf;
struct _xmlNode;
int sv_etl_manifest_read(etl_ctx *c, const unsigned char *guid, struct _xmlNode *root, etl_mf **out);
int sv_etl_manifest_template(const etl_mf *mf, const char *tid);
void sv_etl_manifest_done(etl_mf *mf);
void sv_etl_manifest_free_all(etl_ctx *c);
/* A template from a TRACE_EVENT_INFO's properties (p, n bytes: the EventInfo payload) into
 * c->tpls: *tpl its index, -1 when it describes none. */
int sv_etl_tei_template(etl_ctx *c, const unsigned char *p, size_t n, int *tpl);
/* The map a field names, or -1. */
long sv_etl_field_map(const etl_ctx *c, const etpl *t, const emfield *f);
/* The metadata of a manifest event (GUID, id), or NULL. */
const emeta *sv_etl_find_meta(const etl_ctx *c, const unsigned char *guid, int id);

/* ---- etl_decode.c ---- */

/* A record of the kind or view asked for, as a sample (its metric and leaf frames); the OS
 * heap's live blocks kept (an allocation's sample found by its free); a CLR stack event; a
 * FileIo name record; a DiskIo init record (the I/O's stack). */
int sv_etl_on_wanted(etl_ctx *c, const etl_rec *r);
int sv_etl_heap_track(etl_ctx *c, const etl_rec *r, uint32_t sample);
int sv_etl_on_clr_stack(etl_ctx *c, const etl_rec *r);
int sv_etl_on_file_name(etl_ctx *c, const etl_rec *r);
int sv_etl_on_disk_init(etl_ctx *c, const etl_rec *r);

/* ---- etl_stacks.c ---- */

/* Whether an address is in kernel space for this trace's pointer size. */
bool sv_etl_is_kernel(const etl_ctx *c, uint64_t a);
/* Intern the n bytes of addresses at p (ptr bytes each) as an address stack; *out = its id. */
int sv_etl_intern_addrs(etl_ctx *c, uint32_t *out, const unsigned char *p, size_t n, unsigned ptr);
/* The head (index + 1) of the sample list stored under key, 0 when none. */
uint32_t sv_etl_list_get(const sv_idmap *m, uint64_t key);
/* A PerfInfo Sample event; a StackWalk Stack event (or a stack-key reference). */
int sv_etl_on_sample(etl_ctx *c, const etl_rec *r);
/* Thread time: a CSwitch (0x05/36) or ReadyThread (0x05/50) record as a sample its stack can
 * find (CSwitch: the new thread's; ReadyThread: the readier's, the thread its CPU runs). */
int sv_etl_on_switch(etl_ctx *c, const etl_rec *r);
int sv_etl_on_stackwalk(etl_ctx *c, const etl_rec *r);

/* ---- etl_symbols.c ---- */

/* An ImageID/DbgID_RSDS event: the PDB identity of the image at (pid, base); an ImageID
 * event: the image's own. */
int sv_etl_on_rsds(etl_ctx *c, const etl_rec *r);
int sv_etl_on_imageid(etl_ctx *c, const etl_rec *r);
/* The PDB of an image on the symbol path (looked for once), or NULL. */
const struct sv_symtab *sv_etl_symtab(etl_ctx *c, const eimage *im);
/* The PDB found for an image (NULL: none, or only the image's exports; look: search for it
 * if no frame has asked yet, else only one looked for already), and the image's own
 * store key (TimeDateStamp and SizeOfImage) in image_key when the trace gives it, else "". */
esymfile *sv_etl_pdb_file(etl_ctx *c, const eimage *im, bool look, char *image_key, size_t keycap);
/* The next element of the symbol path (etl_symbols.c). */
bool sv_etl_symbol_dir(const char **p, char *el, size_t elcap, const char **dir, const char **url, bool *store_only);
/* ---- etl_code.c ---- */
/* The code file of an image for annotate: the image itself, found on the symbol path's local
 * folders and stores and built with the PDB its frames were named from, given to the sink
 * with that PDB (set_code_symbols); *file_base: its preferred load address (its own
 * addresses are file_base + RVA). SV_LOC_NONE in *file when none is found. 0 or SV_ENOMEM. */
int sv_etl_code_file(etl_ctx *c, const eimage *im, uint32_t *file, uint64_t *file_base);
/* The code files of the images whose PDBs named frames, without locations (info's notes
 * when no code addresses are kept). 0 or SV_ENOMEM. */
int sv_etl_code_notes(etl_ctx *c);
/* info lines: each PDB found and where, each one not and why. */
int sv_etl_symbols_notes(etl_ctx *c);

/* ---- etl_emit.c ---- */

/* Name frames and push every kept sample's stack into the sink (second pass); counts the
 * samples with a stack, those whose leaf is JIT code and those under BROKEN. With thread
 * time, the samples, switches and wake-ups go through the thread-time computer instead. */
int sv_etl_emit_samples(etl_ctx *c, size_t *with_stack, size_t *jit_leaf, size_t *broken_count);
/* The wait reason TraceEvent names a CSwitch's OldThreadWaitReason by ("WrQueue"). */
const char *sv_etl_wait_reason(unsigned reason);

#endif
