/* SPDX-License-Identifier: MIT */
/* Internals of the perf.data reader, in three layers: records.c (errors, attrs,
 * features, the record index), frames.c and stacks.c (addresses named as frames; address
 * spaces, threads, samples; use the records layer) and data.c (file header, event choice, the driver; uses both).
 *
 * Ownership: one pdr per import, in data.c's stack frame; it owns every array, table
 * and string it points to, freed at the end of the import. */
#ifndef STACKVIEW_FORMATS_PERF_DATA_INT_H
#define STACKVIEW_FORMATS_PERF_DATA_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <zstd.h>

#include "core/net.h"
#include "perf_int.h"
#include "sv/idmap.h"
#include "sv/cpu_root.h"
#include "sv/thread_time.h"

/* sample_type bits */
enum {
	ST_IP = 1 << 0, ST_TID = 1 << 1, ST_TIME = 1 << 2, ST_ADDR = 1 << 3, ST_READ = 1 << 4,
	ST_CALLCHAIN = 1 << 5, ST_ID = 1 << 6, ST_CPU = 1 << 7, ST_PERIOD = 1 << 8, ST_STREAM_ID = 1 << 9,
	ST_RAW = 1 << 10, ST_BRANCH = 1 << 11, ST_REGS_USER = 1 << 12, ST_STACK_USER = 1 << 13,
	ST_WEIGHT = 1 << 14, ST_DATA_SRC = 1 << 15, ST_IDENTIFIER = 1 << 16, ST_TRANSACTION = 1 << 17,
	ST_REGS_INTR = 1 << 18, ST_PHYS_ADDR = 1 << 19, ST_AUX = 1 << 20, ST_CGROUP = 1 << 21,
	ST_DATA_PAGE = 1 << 22, ST_CODE_PAGE = 1 << 23, ST_WEIGHT_STRUCT = 1 << 24,
};
/* record types */
enum {
	R_MMAP = 1, R_LOST = 2, R_COMM = 3, R_EXIT = 4, R_FORK = 7, R_SAMPLE = 9, R_MMAP2 = 10, R_LOST_SAMPLES = 13,
	R_SWITCH = 14, /* --switch-events of a program's own threads (not -a: that is SWITCH_CPU_WIDE) */
	R_KINDS = 24, /* kernel record kinds counted by number */
	R_HEADER_ATTR = 64, R_TRACING_DATA = 66, R_HEADER_BUILD_ID = 67, R_AUXTRACE = 71, R_EVENT_UPDATE = 78,
	R_HEADER_FEATURE = 80, R_COMPRESSED = 81, R_COMPRESSED2 = 83,
};
#define MISC_CPUMODE 7u
#define MISC_KERNEL 1u
#define MISC_USER 2u
#define MISC_EXEC (1u << 13) /* COMM exec, MMAP data */
#define MISC_MMAP_BUILD_ID (1u << 14)
#define MISC_SWITCH_OUT (1u << 13)
#define MISC_SWITCH_OUT_PREEMPT (1u << 14)
#define CTX_MAX ((uint64_t)-4095)
#define CTX_HV ((uint64_t)-32)
#define CTX_KERNEL ((uint64_t)-128)
#define CTX_USER ((uint64_t)-512)
#define CTX_GUEST ((uint64_t)-2048)
#define CTX_GUEST_KERNEL ((uint64_t)-2176)
#define CTX_GUEST_USER ((uint64_t)-2560)
#define ATTR_FREQ (1ull << 10)
#define ATTR_ID_ALL (1ull << 18)
#define LOC_DECOMP (1ull << 63)
#define UNWIND_MAX 127              /* user frames per DWARF sample (perf's default max stack) */

/* The sched tracepoints thread time reads, and the fields it reads of each (offset, size). */
enum { TP_SWITCH, TP_WAKEUP, TP_WAKEUP_NEW, TP_WAKING, TP_KINDS };
enum { TPF_PREV_PID, TPF_PREV_STATE, TPF_NEXT_PID, TPF_PID = 0, TPF_MAX = 3 };
typedef struct tp_format {
	long id;
	int off[TPF_MAX], size[TPF_MAX];
} tp_format;

typedef struct attr {
	uint32_t type;
	uint64_t config, period, sample_type, read_format, flags, regs_user, branch_type;
	uint32_t stack_user;
	char *name;
	size_t samples;
	uint64_t first_time; /* its earliest sample's (UINT64_MAX: none) */
	bool selected;
} attr;

typedef struct rec {
	uint64_t time;
	uint64_t loc; /* byte offset in the input, or LOC_DECOMP | offset in the inflated records */
} rec;

typedef struct map {
	uint64_t start, end, pgoff;
	sv_perf_dso *dso;
} map;

typedef struct maps {
	map *v;
	size_t n, cap;
	uint32_t refs;
} maps;

typedef struct proc {
	int32_t pid;
	maps *m;
	uint64_t gen;
	sv_perf_unwinder *uw; /* --call-graph dwarf: created on the first such sample */
	uint64_t uw_gen;      /* maps generation the unwinder last saw */
} proc;

typedef struct thread {
	int32_t pid, tid;
	uint32_t comm;   /* offset into comm_names, UINT32_MAX = none */
	/* With --switch-events, a sched_switch sample's state and stack wait here for the
	 * switch-out record that follows it (sw_how: sv_tt_out + 1; 0 = none). */
	uint8_t sw_how;
	const char *sw_reason;
	sv_stack_id sw_stack;
	/* The thread's last sample's frames from the root and their stacks (path[2j] the frame,
	 * path[2j + 1] its stack) under path_base: a sample shares most of its callers with
	 * the one before it on its thread, and those are not looked up again (sample_stack). */
	uint32_t *path;
	uint32_t path_len, path_cap;
	sv_stack_id path_base;
} thread;

typedef struct pdr {
	sv_sink *sink;
	const sv_input *in;
	const sv_import_opts *opts;
	sv_error *err;
	const unsigned char *d;
	size_t n;
	bool pipe;
	size_t data_off, data_end, data_stop; /* the data section, and where its whole records end */

	attr *attrs;
	size_t nattrs, attr_cap;
	sv_idmap id_attr; /* sample id -> attr index */
	bool id_all;

	rec *recs;
	size_t nrecs, rcap;
	/* Inflated COMPRESSED records: dbuf holds dlen bytes of the inflated stream from
	 * offset dbase on (what came before is done with; between the first pass's compressed
	 * records, what is left is an unfinished record). The second pass inflates again,
	 * finding the compressed records from zpos up to zend. */
	unsigned char *dbuf;
	size_t dlen, dcap;
	uint64_t dbase;
	size_t zpos, zend;
	size_t released; /* the mapped input's bytes before this are handed back to the kernel */
	ZSTD_DStream *zs;
	uint64_t dlimit;
	size_t comp_off; /* the compressed record being inflated, for messages */
	uint64_t last_time;

	/* features */
	char *hostname, *osrelease, *version, *arch, *cmdline;
	uint32_t nrcpus;
	unsigned char kbid[20];
	size_t kbid_len;
	uint64_t kernel_text;
	/* the tracing data (every tracepoint's format), copied when keep_tracing is set */
	bool keep_tracing;
	unsigned char *tracing;
	size_t tracing_len;

	sv_perf_syms *syms;
	sv_net net; /* debuginfod's time and Ctrl-C */
	bool kallsyms_tried;
	char kallsyms_note[512];
	sv_frame_id *kfids; /* per kernel symbol (+1: unknown) */
	/* the frames of the kernel addresses met last, by address (direct-mapped): the same
	 * few thousand addresses recur in most samples, and finding each among the kernel's
	 * 150,000 symbols was a tenth of loading */
	struct { uint64_t ip; sv_frame_id fid; } *kcache;
	/* the same for user addresses, by the process's maps generation and the address (a
	 * generation is one state of one process's mappings: what an address names in it
	 * never changes) */
	struct { uint64_t gen, ip; sv_frame_id fid; } *ucache;
	maps kmaps;
	uint64_t kgen, gen;

	proc *procs;
	size_t nprocs, proc_cap;
	sv_idmap proc_idx;
	thread *threads;
	size_t nthreads, thread_cap;
	sv_idmap thread_idx;
	sv_perf_names names; /* Process and Thread frames */
	char *comm_names;
	size_t comm_len, comm_cap;

	uint32_t *locs; /* current sample's code locations, leaf first */
	size_t locs_cap;
	uint64_t *chain; /* current sample's callchain copy (native order, markers kept) */
	size_t chain_cap;
	sv_frame_id *fids;
	size_t fid_cap;
	sv_frame_id unknown_fid;
	bool have_unknown;
	/* thread time from the sched tracepoints (thread_time.h): each one's id and field
	 * offsets from the tracing data's format text (id -1: not in the file), their attrs
	 * (-1: not recorded), the computer while a thread-time view is loaded */
	tp_format tp[TP_KINDS];
	long tp_attr[TP_KINDS];
	sv_tt *tt;
	sv_tt_view tt_view;
	bool tt_on, tt_clock;       /* a thread-time view is loaded; with CPU samples of a clock event */
	size_t tt_sampled;          /* switches recorded with a period other than 1 */
	sv_cpu_root cpu_roots;      /* --by-cpu */
	/* inline frames of DWARF-unwound user frames, per (DSO, address): inl_idx gives
	 * index + 1 into inl (start and count in inl_fids) */
	sv_idmap inl_idx;
	/* frames named by address (no symbol there): kernel address, DSO index << 48 | file
	 * offset, or 0x7ffe << 48 | pid for JIT code no map names -> frame, so each is named once
	 * and not once a stack */
	sv_idmap addr_fids;
	uint32_t (*inl)[2];
	size_t ninl, inl_cap;
	sv_frame_id *inl_fids;
	size_t ninl_fids, inl_fids_cap;
	char *name;
	size_t name_cap;

	bool clock_event, have_t0;
	uint64_t t0;
	size_t counts[R_KINDS];
	size_t records, kept, samples_other, lost, lost_samples, skipped, bad_samples, unknown_id;
	char first_bad[200];
	char first_skipped[80];
	bool truncated;
	char trunc_msg[200];
} pdr;

/* A time in ns as ms from the origin t0 (exact differences either side of it). */
static inline double sv_pdr_rel_ms(uint64_t t0, uint64_t t)
{
	return t >= t0 ? (double)(t - t0) / 1e6 : -(double)(t0 - t) / 1e6;
}

static inline uint64_t rd64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t rd32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline size_t popcount64(uint64_t v)
{
	return (size_t)__builtin_popcountll(v);
}

/* A SAMPLE record's fields (pointers into the record). */
typedef struct sample {
	uint64_t ip, time, period;
	int32_t pid, tid;
	uint32_t cpu; /* UINT32_MAX: not recorded */
	const unsigned char *chain; /* nr u64 entries */
	uint64_t nchain;
	bool has_chain;
	uint64_t regs_abi;
	const unsigned char *regs;
	size_t nregs;
	const unsigned char *stack;
	uint64_t stack_size;
	const unsigned char *raw; /* tracepoint data */
	uint32_t raw_size;
	size_t attr;
} sample;

/* ---- records.c: errors, attrs, features, the record index, samples ---- */

/* Errors name the input and the byte offset; they return code. */
int sv_pdr_fail(pdr *r, int code, size_t off, const char *fmt, ...) SV_PRINTF(4, 5);
int sv_pdr_oom(pdr *r);
/* A malformed sample: counted, the first one described. */
void sv_pdr_bad_sample(pdr *r, size_t off, const char *what);
/* The attr index of a SAMPLE record's payload, -1 when its id is unknown. */
long sv_pdr_sample_attr(pdr *r, const unsigned char *p, size_t n);
/* A side-band record's sample_id trailer (sample_id_all): its thread, time and CPU
 * (UINT32_MAX when not recorded). False when the record has no trailer to read. */
bool sv_pdr_record_id(pdr *r, const unsigned char *p, size_t n, int32_t *tid, uint64_t *time, uint32_t *cpu);
/* perf's name of a built-in event (cpu-clock, cycles, ...), or NULL. */
const char *sv_pdr_builtin_name(uint32_t type, uint64_t config);
/* An attr (perf_event_attr of `size` bytes at file offset off) and the sample ids of one. */
int sv_pdr_add_attr(pdr *r, const unsigned char *p, size_t size, size_t off);
int sv_pdr_map_ids(pdr *r, size_t ai, const unsigned char *ids, size_t nids);
/* One header feature section (HEADER_BUILD_ID, TRACING_DATA, HOSTNAME, ...). */
int sv_pdr_feature(pdr *r, unsigned id, const unsigned char *p, size_t n);
/* Index the records in base[from, to) (decomp: inside an inflated COMPRESSED stream);
 * *stop = where indexing stopped: `to`, or the start of a record that does not fit. */
int sv_pdr_index_buffer(pdr *r, const unsigned char *base, size_t from, size_t to, bool decomp, size_t *stop);
/* Split a SAMPLE payload of n bytes by attr a's sample_type into *s; false with *why when
 * the record is malformed. */
bool sv_pdr_parse_sample(const attr *a, const unsigned char *p, size_t n, sample *s, const char **why);
/* Hand the mapped input's pages before byte `upto` back to the kernel, in 32 MB steps (they
 * come back from the page cache if read again); nothing for an input in memory. */
void sv_pdr_release(pdr *r, size_t upto);
/* Start the second pass's inflating over: compressed records are looked for in the data
 * section's [from, to). */
void sv_pdr_rewind(pdr *r, size_t from, size_t to);
/* Point *out at bytes [at, at + need) of the inflated stream, inflating further as needed;
 * the bytes before `keep` are no longer needed (dbuf may move). */
int sv_pdr_inflated(pdr *r, uint64_t at, size_t need, uint64_t keep, const unsigned char **out);
/* record_sort.c: stable sort of the record index by time (tmp: room for n records): 0 or
 * SV_ENOMEM (v untouched). */
int sv_pdr_sort_recs(rec *v, size_t n, rec *tmp);

/* frames.c: an address as a frame of a sample's stack: in the kernel, in a process's
 * mappings (pr), nowhere known ("unknown"); and the inline frames at a DWARF-unwound user
 * address, innermost first (*fids points into a cache until the next call). 0, SV_ENOMEM or
 * the sink's error. */
int sv_pdr_kernel_frame(pdr *r, sv_frame_id *out, uint64_t ip);
int sv_pdr_user_frame(pdr *r, sv_frame_id *out, const proc *pr, uint64_t ip);
int sv_pdr_unknown_frame(pdr *r, sv_frame_id *out);
int sv_pdr_inline_frames(pdr *r, const proc *pr, uint64_t ip, const sv_frame_id **fids, size_t *n);

/* stacks.c: apply one side-band record, or turn one sample into a stack, in time order. */
int sv_pdr_apply(pdr *r, uint32_t type, uint16_t misc, const unsigned char *p, size_t n);
int sv_pdr_sample(pdr *r, const unsigned char *p, size_t n, uint16_t misc, size_t off);

/* data_events.c: the Events view's listing (one lister per listing, owned by the caller):
 * made after the records are indexed, handed each record in time order, ended with the
 * listing's warnings. */
typedef struct sv_pdr_lister sv_pdr_lister;
int sv_pdr_lister_new(sv_pdr_lister **out, pdr *r, const sv_event_lister *l);
int sv_pdr_lister_record(pdr *r, void *x, uint32_t type, uint16_t misc, const unsigned char *p, size_t n, size_t off);
int sv_pdr_lister_end(sv_pdr_lister *x, pdr *r);
void sv_pdr_lister_free(sv_pdr_lister *x);

/* tasks.c: address spaces (a table of maps, reference-counted; own before changing a shared
 * one; insert trims what the new map overlaps), processes and threads by id (made on first
 * use; NULL when out of memory), comm names (interned in r->comm_names). */
maps *sv_pdr_maps_new(void);
void sv_pdr_maps_unref(maps *m);
maps *sv_pdr_maps_own(maps *m);
int sv_pdr_maps_insert(maps *m, map nm);
const map *sv_pdr_maps_find(const maps *m, uint64_t addr);
proc *sv_pdr_proc(pdr *r, int32_t pid);
thread *sv_pdr_thread(pdr *r, int32_t pid, int32_t tid);
int sv_pdr_comm_intern(pdr *r, const char *s, size_t n, uint32_t *out);

#endif
