/* SPDX-License-Identifier: MIT */
/* Native perf.data reader (spec/perf.md §5–7; semantics.md §1.5 with decision D3).
 *
 * File and pipe mode; attrs of any size; features (build ids, hostname, release, version,
 * arch, CPUs, command line, event names); records walked by their size, zstd-compressed
 * records inflated as one stream. Kernel records are indexed with their time, stably sorted,
 * then applied in time order: MMAP/MMAP2/COMM/FORK build per-process address spaces (shared
 * on fork, dropped on exec), samples of the chosen event become stacks: callchain frames
 * named `module!symbol` through perf_sym.c (or unwound from the user stack copy by
 * perf_unwind.c for --call-graph dwarf), under `Thread (tid)` and `Process comm (pid)`.
 * Stacks are memoized per (thread, address space, callchain), so symbol work scales with
 * distinct stacks, not samples. The metric is perf's period (ms for cpu-clock/task-clock). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "perf_int.h"
#include "stackview/idmap.h"

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
	R_KINDS = 24, /* kernel record kinds counted by number */
	R_HEADER_ATTR = 64, R_TRACING_DATA = 66, R_HEADER_BUILD_ID = 67, R_AUXTRACE = 71, R_EVENT_UPDATE = 78,
	R_HEADER_FEATURE = 80, R_COMPRESSED = 81, R_COMPRESSED2 = 83,
};
#define MISC_CPUMODE 7u
#define MISC_KERNEL 1u
#define MISC_USER 2u
#define MISC_EXEC (1u << 13) /* COMM exec, MMAP data */
#define MISC_MMAP_BUILD_ID (1u << 14)
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
#define MEMO_MAX_WORDS (64u << 20) /* 512 MiB of remembered callchains at most */
#define UNWIND_MAX 127              /* user frames per DWARF sample (perf's default max stack) */

typedef struct attr {
	uint32_t type;
	uint64_t config, period, sample_type, read_format, flags, regs_user, branch_type;
	uint32_t stack_user;
	char *name;
	size_t samples;
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
	sv_frame_id frame;
	uint32_t *comms; /* offsets into comm_names, distinct, first-seen order */
	size_t ncomms, comm_cap;
	sv_perf_unwinder *uw; /* --call-graph dwarf: created on the first such sample */
	uint64_t uw_gen;      /* maps generation the unwinder last saw */
} proc;

typedef struct thread {
	int32_t pid, tid;
	uint32_t comm;   /* offset into comm_names, UINT32_MAX = none */
	bool comm_added; /* the current comm is among its process's comms */
} thread;

typedef struct memo_slot {
	uint64_t hash;
	uint64_t off; /* into memo_words; 0 = empty */
	uint32_t stack;
} memo_slot;

typedef struct pdr {
	sv_sink *sink;
	const sv_input *in;
	const sv_import_opts *opts;
	sv_error *err;
	const unsigned char *d;
	size_t n;
	bool pipe;

	attr *attrs;
	size_t nattrs;
	sv_idmap id_attr; /* sample id -> attr index */
	bool id_all;

	rec *recs;
	size_t nrecs, rcap;
	unsigned char *dbuf; /* inflated COMPRESSED records */
	size_t dlen, dcap, dparsed;
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

	sv_perf_syms *syms;
	bool kallsyms_tried;
	char kallsyms_note[512];
	sv_frame_id *kfids; /* per kernel symbol (+1: unknown) */
	maps kmaps;
	uint64_t kgen, gen;

	proc *procs;
	size_t nprocs, proc_cap;
	sv_idmap proc_idx;
	thread *threads;
	size_t nthreads, thread_cap;
	sv_idmap thread_idx;
	sv_idmap thread_stk;
	char *comm_names;
	size_t comm_len, comm_cap;

	memo_slot *memo;
	size_t memo_cap, memo_n;
	uint64_t *memo_words;
	size_t memo_wlen, memo_wcap;
	uint64_t *chain; /* current sample's callchain copy (native order, markers kept) */
	size_t chain_cap;
	sv_frame_id *fids;
	size_t fid_cap;
	sv_frame_id unknown_fid;
	bool have_unknown;
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

static int fail(pdr *r, int code, size_t off, const char *fmt, ...) SV_PRINTF(4, 5);
static int fail(pdr *r, int code, size_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = sv_error_vset(r->err, code, fmt, ap);
	va_end(ap);
	sv_error_locate(r->err, r->in->name, -1, (long long)off);
	return rc;
}

static int oom(pdr *r)
{
	return sv_error_set(r->err, SV_ENOMEM, "out of memory");
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 64;
	while (ncap < need)
		ncap *= 2;
	if (ncap > SIZE_MAX / elem)
		return SV_ENOMEM;
	void *np = realloc(*p, ncap * elem);
	if (!np)
		return SV_ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

static void bad_sample(pdr *r, size_t off, const char *what)
{
	if (!r->bad_samples++)
		snprintf(r->first_bad, sizeof(r->first_bad), "record at byte offset %zu: %s", off, what);
}

/* ---- attrs and events ---- */

static const char *builtin_name(uint32_t type, uint64_t config)
{
	static const char *const hw[] = { "cycles", "instructions", "cache-references", "cache-misses", "branches",
					  "branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
					  "ref-cycles" };
	static const char *const sw[] = { "cpu-clock", "task-clock", "page-faults", "context-switches",
					  "cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
					  "emulation-faults", "dummy", "bpf-output", "cgroup-switches" };
	if (type == 0 && config < sizeof(hw) / sizeof(hw[0]))
		return hw[config];
	if (type == 1 && config < sizeof(sw) / sizeof(sw[0]))
		return sw[config];
	return NULL;
}

/* One perf_event_attr of `size` bytes (any version); ids from the id array that follows it. */
static int add_attr(pdr *r, const unsigned char *p, size_t size, size_t off)
{
	if (size < 64)
		return fail(r, SV_EFORMAT, off, "perf_event_attr of %zu bytes is shorter than the first version (64)", size);
	if (r->nattrs >= 4096)
		return fail(r, SV_ELIMIT, off, "more than 4096 events");
	attr *na = realloc(r->attrs, (r->nattrs + 1) * sizeof(*na));
	if (!na)
		return oom(r);
	r->attrs = na;
	attr *a = &na[r->nattrs];
	memset(a, 0, sizeof(*a));
	a->type = rd32(p);
	a->config = rd64(p + 8);
	a->period = rd64(p + 16);
	a->sample_type = rd64(p + 24);
	a->read_format = rd64(p + 32);
	a->flags = rd64(p + 40);
	if (size >= 80)
		a->branch_type = rd64(p + 72);
	if (size >= 96) {
		a->regs_user = rd64(p + 80);
		a->stack_user = rd32(p + 88);
	}
	if (r->nattrs == 0)
		r->id_all = (a->flags & ATTR_ID_ALL) != 0;
	r->nattrs++;
	return 0;
}

static int map_ids(pdr *r, size_t ai, const unsigned char *ids, size_t nids)
{
	for (size_t k = 0; k < nids; k++)
		if (sv_idmap_put(&r->id_attr, rd64(ids + 8 * k), (uint32_t)ai))
			return oom(r);
	return 0;
}

static int set_attr_name(pdr *r, size_t ai, const char *s, size_t maxlen)
{
	if (ai >= r->nattrs)
		return 0;
	size_t n = strnlen(s, maxlen);
	if (n > 1024)
		n = 1024;
	char *nm = strndup(s, n);
	if (!nm)
		return oom(r);
	free(r->attrs[ai].name);
	r->attrs[ai].name = nm;
	return 0;
}

/* ---- features ---- */

/* A perf header string: u32 length (with padding), then the bytes. */
static char *feat_string(const unsigned char *p, size_t n, size_t *used)
{
	if (n < 4)
		return NULL;
	uint32_t len = rd32(p);
	if (len > n - 4 || len > (1u << 20))
		return NULL;
	*used = 4 + (size_t)len;
	return strndup((const char *)p + 4, strnlen((const char *)p + 4, len));
}

static int feat_build_ids(pdr *r, const unsigned char *p, size_t n)
{
	for (size_t o = 0; o + 8 <= n;) {
		uint16_t misc, size;
		memcpy(&misc, p + o + 4, 2);
		memcpy(&size, p + o + 6, 2);
		if (size < 8 + 4 + 24 || size > n - o)
			break;
		const unsigned char *bid = p + o + 12;
		size_t blen = (misc & (1u << 15)) ? bid[20] : 20;
		if (blen > 20)
			blen = 20;
		if (!(misc & (1u << 15)))
			while (blen && !bid[blen - 1])
				blen--;
		const char *name = (const char *)p + o + 36;
		size_t nl = strnlen(name, size - 36);
		if (nl && sv_perf_dso_set_build_id(r->syms, name, nl, bid, blen))
			return oom(r);
		if ((misc & MISC_CPUMODE) == MISC_KERNEL && nl >= 17 && memcmp(name, "[kernel.kallsyms]", 17) == 0) {
			memcpy(r->kbid, bid, blen);
			r->kbid_len = blen;
		}
		o += size;
	}
	return 0;
}

static int feature(pdr *r, unsigned id, const unsigned char *p, size_t n)
{
	size_t used;
	char **dst = NULL;
	switch (id) {
	case 2: return feat_build_ids(r, p, n);
	case 3: dst = &r->hostname; break;
	case 4: dst = &r->osrelease; break;
	case 5: dst = &r->version; break;
	case 6: dst = &r->arch; break;
	case 7:
		if (n >= 8)
			r->nrcpus = rd32(p + 4);
		return 0;
	case 11: { /* u32 count, then strings */
		if (n < 4)
			return 0;
		uint32_t cnt = rd32(p);
		size_t o = 4, len = 0;
		char buf[1024] = "";
		for (uint32_t i = 0; i < cnt && i < 256; i++) {
			char *s = feat_string(p + o, n - o, &used);
			if (!s)
				break;
			len += (size_t)snprintf(buf + (len < sizeof(buf) ? len : sizeof(buf) - 1),
						len < sizeof(buf) ? sizeof(buf) - len : 1, "%s%s", i ? " " : "", s);
			free(s);
			o += used;
		}
		free(r->cmdline);
		r->cmdline = strdup(buf);
		return r->cmdline ? 0 : oom(r);
	}
	case 12: { /* EVENT_DESC: u32 nr, u32 attr size; per event attr, u32 nr ids, name, ids */
		if (n < 8)
			return 0;
		uint32_t nr = rd32(p), asz = rd32(p + 4);
		size_t o = 8;
		for (uint32_t i = 0; i < nr && i < 4096; i++) {
			if (asz > n - o || n - o - asz < 4)
				break;
			o += asz;
			uint32_t nids = rd32(p + o);
			o += 4;
			char *s = feat_string(p + o, n - o, &used);
			if (!s)
				break;
			int rc = set_attr_name(r, i, s, used);
			free(s);
			if (rc)
				return rc;
			o += used;
			if (nids > (n - o) / 8)
				break;
			o += 8 * (size_t)nids;
		}
		return 0;
	}
	default: return 0;
	}
	char *s = feat_string(p, n, &used);
	if (s) {
		free(*dst);
		*dst = s;
	}
	return 0;
}

/* ---- indexing records ---- */

static size_t popcount64(uint64_t v)
{
	return (size_t)__builtin_popcountll(v);
}

/* The attr a sample belongs to: by IDENTIFIER (first u64) or ID at its fixed place. */
static long sample_attr(pdr *r, const unsigned char *p, size_t n)
{
	if (r->nattrs == 1)
		return 0;
	uint64_t st = r->attrs[0].sample_type;
	size_t o;
	if (st & ST_IDENTIFIER)
		o = 0;
	else if (st & ST_ID)
		o = ((st & ST_IP) ? 8 : 0) + ((st & ST_TID) ? 8 : 0) + ((st & ST_TIME) ? 8 : 0) + ((st & ST_ADDR) ? 8 : 0);
	else
		return 0;
	if (o + 8 > n)
		return -1;
	uint32_t a = sv_idmap_get(&r->id_attr, rd64(p + o));
	return a == SV_IDMAP_NONE ? -1 : (long)a;
}

/* Time of a record (payload p, n bytes after the 8-byte header); `last` when it has none. */
static uint64_t record_time(pdr *r, uint32_t type, const unsigned char *p, size_t n, long *ai)
{
	*ai = -1;
	if (!r->nattrs)
		return r->last_time;
	if (type == R_SAMPLE) {
		long a = sample_attr(r, p, n);
		*ai = a;
		uint64_t st = r->attrs[a < 0 ? 0 : a].sample_type;
		size_t o = ((st & ST_IDENTIFIER) ? 8 : 0) + ((st & ST_IP) ? 8 : 0) + ((st & ST_TID) ? 8 : 0);
		if (!(st & ST_TIME) || o + 8 > n)
			return r->last_time;
		return rd64(p + o);
	}
	if (type >= 64 || !r->id_all)
		return r->last_time;
	uint64_t st = r->attrs[0].sample_type;
	if ((st & ST_IDENTIFIER) && r->nattrs > 1 && n >= 8) {
		uint32_t a = sv_idmap_get(&r->id_attr, rd64(p + n - 8));
		if (a != SV_IDMAP_NONE)
			st = r->attrs[a].sample_type;
	}
	size_t tsize = 8 * popcount64(st & (ST_TID | ST_TIME | ST_ID | ST_STREAM_ID | ST_CPU | ST_IDENTIFIER));
	if (!(st & ST_TIME) || tsize > n)
		return r->last_time;
	return rd64(p + n - tsize + ((st & ST_TID) ? 8 : 0));
}

static int index_buffer(pdr *r, const unsigned char *base, size_t from, size_t to, bool decomp, size_t *stop);

static int inflate_records(pdr *r, const unsigned char *p, size_t n, size_t off)
{
	if (!r->zs) {
		if (!(r->zs = ZSTD_createDStream()))
			return oom(r);
		ZSTD_initDStream(r->zs);
	}
	r->comp_off = off;
	ZSTD_inBuffer zin = { p, n, 0 };
	while (zin.pos < zin.size) {
		if (r->dcap - r->dlen < (1u << 16)) {
			if (r->dlen + (1u << 16) > r->dlimit)
				return fail(r, SV_ELIMIT, off,
					    "compressed records inflate to more than %" PRIu64 " bytes (1000 times the file, at most 8 GiB)",
					    r->dlimit);
			if (grow((void **)&r->dbuf, &r->dcap, r->dlen + (1u << 16), 1))
				return oom(r);
		}
		ZSTD_outBuffer zout = { r->dbuf, r->dcap, r->dlen };
		size_t ret = ZSTD_decompressStream(r->zs, &zout, &zin);
		if (ZSTD_isError(ret))
			return fail(r, SV_EFORMAT, off, "corrupt zstd data in a compressed record: %s", ZSTD_getErrorName(ret));
		bool progress = zout.pos > r->dlen;
		r->dlen = zout.pos;
		if (!progress && zin.pos < zin.size && zout.pos < zout.size)
			return fail(r, SV_EFORMAT, off, "corrupt zstd data in a compressed record");
	}
	/* Records inside; one may continue in the next compressed record. */
	size_t stop;
	int rc = index_buffer(r, r->dbuf, r->dparsed, r->dlen, true, &stop);
	r->dparsed = stop;
	return rc;
}

static int handle_record(pdr *r, const unsigned char *base, size_t off, bool decomp, uint32_t type, uint16_t misc,
			 const unsigned char *p, size_t n, size_t *extra)
{
	(void)misc;
	r->records++;
	if (type < R_KINDS)
		r->counts[type]++;
	switch (type) {
	case R_HEADER_ATTR: {
		if (!r->pipe)
			return 0;
		if (n < 8)
			return fail(r, SV_EFORMAT, off, "attribute record too short");
		uint32_t asz = rd32(p + 4);
		if (asz < 64 || asz > n)
			return fail(r, SV_EFORMAT, off, "attribute record: perf_event_attr size %u does not fit its %zu bytes", asz, n);
		int rc = add_attr(r, p, asz, off);
		if (!rc)
			rc = map_ids(r, r->nattrs - 1, p + asz, (n - asz) / 8);
		return rc;
	}
	case R_HEADER_FEATURE:
		if (n >= 8)
			return feature(r, (unsigned)rd64(p), p + 8, n - 8);
		return 0;
	case R_EVENT_UPDATE: /* u64 type (2 = name), u64 id, name */
		if (n > 16 && rd64(p) == 2) {
			uint32_t a = sv_idmap_get(&r->id_attr, rd64(p + 8));
			if (a != SV_IDMAP_NONE && !r->attrs[a].name)
				return set_attr_name(r, a, (const char *)p + 16, n - 16);
		}
		return 0;
	case R_HEADER_BUILD_ID:
		return feat_build_ids(r, p - 8, n + 8);
	case R_TRACING_DATA: /* its payload follows the record, padded to 8 */
		if (n >= 4)
			*extra = ((size_t)rd32(p) + 7) & ~(size_t)7;
		return 0;
	case R_AUXTRACE: /* u64 size, then size bytes after the record */
		if (n >= 8)
			*extra = (size_t)rd64(p);
		return 0;
	case R_COMPRESSED:
		if (decomp)
			return fail(r, SV_EFORMAT, off, "compressed record inside a compressed record");
		return inflate_records(r, p, n, off);
	case R_COMPRESSED2:
		if (decomp)
			return fail(r, SV_EFORMAT, off, "compressed record inside a compressed record");
		if (n < 8 || rd64(p) > n - 8)
			return fail(r, SV_EFORMAT, off, "compressed record: data size overruns the record");
		return inflate_records(r, p + 8, (size_t)rd64(p), off);
	default: break;
	}
	if ((type > 21 && type < 64) || type > R_COMPRESSED2) { /* skipped by its size */
		if (!r->skipped++)
			snprintf(r->first_skipped, sizeof(r->first_skipped), "type %u at byte offset %zu", type,
				 decomp ? r->comp_off : off);
		return 0;
	}
	if (type >= 64)
		return 0;
	long ai;
	uint64_t t = record_time(r, type, p, n, &ai);
	r->last_time = t;
	if (type == R_SAMPLE) {
		if (ai < 0) {
			r->unknown_id++;
			return 0;
		}
		r->attrs[ai].samples++;
	} else if (type != R_MMAP && type != R_MMAP2 && type != R_COMM && type != R_FORK && type != R_EXIT &&
		   type != R_LOST && type != R_LOST_SAMPLES) {
		return 0;
	}
	/* The kernel map's address (KASLR reference) is needed before any stack is named. */
	if (type == R_MMAP && n >= 32 && (int32_t)rd32(p) == -1 && n > 32 &&
	    strncmp((const char *)p + 32, "[kernel.kallsyms]", 17) == 0 && n >= 49)
		r->kernel_text = rd64(p + 24);
	if (grow((void **)&r->recs, &r->rcap, r->nrecs + 1, sizeof(*r->recs)))
		return oom(r);
	r->recs[r->nrecs++] = (rec){ t, (decomp ? LOC_DECOMP : 0) | (uint64_t)(p - 8 - base) };
	return 0;
}

/* Records back to back in [from, to) of base; *stop = where an incomplete one starts. */
static int index_buffer(pdr *r, const unsigned char *base, size_t from, size_t to, bool decomp, size_t *stop)
{
	size_t o = from;
	while (o < to) {
		if (to - o < 8)
			break;
		const unsigned char *h = base + o;
		uint32_t type = rd32(h);
		uint16_t misc, size;
		memcpy(&misc, h + 4, 2);
		memcpy(&size, h + 6, 2);
		if (size < 8)
			return fail(r, SV_EFORMAT, decomp ? r->comp_off : o, "%srecord of type %u has size %u (less than its header)",
				    decomp ? "compressed record holds a " : "", type, size);
		if (size > to - o)
			break;
		size_t extra = 0;
		int rc = handle_record(r, base, o, decomp, type, misc, h + 8, size - 8u, &extra);
		if (rc)
			return rc;
		o += size;
		if (extra) {
			if (extra > to - o) {
				r->truncated = true;
				snprintf(r->trunc_msg, sizeof(r->trunc_msg),
					 "the payload of the record at byte offset %zu runs past the end of the data", o - size);
				o = to;
				break;
			}
			o += extra;
		}
	}
	*stop = o;
	return 0;
}

/* ---- stable sort of the record index by time ---- */

static void sort_recs(rec *v, size_t n, rec *tmp)
{
	bool sorted = true;
	for (size_t i = 1; i < n && sorted; i++)
		sorted = v[i - 1].time <= v[i].time;
	if (sorted)
		return;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = v[j].time < v[i].time ? v[j++] : v[i++];
			while (i < mid)
				tmp[k++] = v[i++];
			while (j < hi)
				tmp[k++] = v[j++];
		}
		memcpy(v, tmp, n * sizeof(*v));
	}
}

/* ---- address spaces ---- */

static maps *maps_new(void)
{
	maps *m = calloc(1, sizeof(*m));
	if (m)
		m->refs = 1;
	return m;
}

static void maps_unref(maps *m)
{
	if (m && --m->refs == 0) {
		free(m->v);
		free(m);
	}
}

/* A private copy before changing a shared table. */
static maps *maps_own(maps *m)
{
	if (m->refs == 1)
		return m;
	maps *c = maps_new();
	if (!c || (m->n && !(c->v = malloc(m->n * sizeof(*c->v))))) {
		free(c);
		return NULL;
	}
	if (m->n)
		memcpy(c->v, m->v, m->n * sizeof(*c->v));
	c->n = c->cap = m->n;
	m->refs--;
	return c;
}

/* Insert [start, end): what it overlaps is trimmed or dropped (the newest mapping wins). */
static int maps_insert(maps *m, map nm)
{
	if (nm.end <= nm.start)
		return 0;
	size_t lo = 0, hi = m->n;
	while (lo < hi) { /* first map ending after nm.start */
		size_t mid = lo + (hi - lo) / 2;
		if (m->v[mid].end <= nm.start)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t first = lo, last = lo;
	while (last < m->n && m->v[last].start < nm.end)
		last++;
	/* first..last-1 overlap: keep a head of the first and a tail of the last. */
	map keep[2];
	size_t nk = 0;
	if (first < last && m->v[first].start < nm.start) {
		keep[nk] = m->v[first];
		keep[nk++].end = nm.start;
	}
	map insert_after = { 0, 0, 0, NULL };
	bool tail = false;
	if (first < last && m->v[last - 1].end > nm.end) {
		insert_after = m->v[last - 1];
		insert_after.pgoff += nm.end - insert_after.start;
		insert_after.start = nm.end;
		tail = true;
	}
	size_t nnew = nk + 1 + (tail ? 1 : 0);
	size_t removed = last - first;
	if (m->n - removed + nnew > m->cap && grow((void **)&m->v, &m->cap, m->n - removed + nnew, sizeof(*m->v)))
		return SV_ENOMEM;
	memmove(m->v + first + nnew, m->v + last, (m->n - last) * sizeof(*m->v));
	size_t k = first;
	for (size_t i = 0; i < nk; i++)
		m->v[k++] = keep[i];
	m->v[k++] = nm;
	if (tail)
		m->v[k++] = insert_after;
	m->n = m->n - removed + nnew;
	return 0;
}

static const map *maps_find(const maps *m, uint64_t addr)
{
	if (!m)
		return NULL;
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < m->v[lo - 1].end ? &m->v[lo - 1] : NULL;
}

/* ---- processes and threads ---- */

static proc *proc_get(pdr *r, int32_t pid)
{
	uint32_t i = sv_idmap_get(&r->proc_idx, (uint32_t)pid);
	if (i != SV_IDMAP_NONE)
		return &r->procs[i];
	if (grow((void **)&r->procs, &r->proc_cap, r->nprocs + 1, sizeof(*r->procs)))
		return NULL;
	proc *p = &r->procs[r->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->frame = UINT32_MAX;
	p->gen = ++r->gen;
	if (!(p->m = maps_new()) || sv_idmap_put(&r->proc_idx, (uint32_t)pid, (uint32_t)r->nprocs)) {
		maps_unref(p->m);
		return NULL;
	}
	r->nprocs++;
	return p;
}

static thread *thread_get(pdr *r, int32_t pid, int32_t tid)
{
	uint32_t i = sv_idmap_get(&r->thread_idx, (uint32_t)tid);
	if (i != SV_IDMAP_NONE) {
		thread *t = &r->threads[i];
		if (pid != -1 && t->pid != pid) { /* tid reused by another process */
			t->pid = pid;
			t->comm_added = false;
		}
		return t;
	}
	if (grow((void **)&r->threads, &r->thread_cap, r->nthreads + 1, sizeof(*r->threads)))
		return NULL;
	thread *t = &r->threads[r->nthreads];
	*t = (thread){ pid, tid, UINT32_MAX, false };
	if (sv_idmap_put(&r->thread_idx, (uint32_t)tid, (uint32_t)r->nthreads))
		return NULL;
	r->nthreads++;
	return t;
}

static int comm_intern(pdr *r, const char *s, size_t n, uint32_t *out)
{
	if (n > 255)
		n = 255;
	if (r->comm_len + n + 1 > (256u << 20))
		return SV_ELIMIT;
	if (grow((void **)&r->comm_names, &r->comm_cap, r->comm_len + n + 1, 1))
		return SV_ENOMEM;
	memcpy(r->comm_names + r->comm_len, s, n);
	r->comm_names[r->comm_len + n] = '\0';
	*out = (uint32_t)r->comm_len;
	r->comm_len += n + 1;
	return 0;
}

/* Apply one side-band record in time order. */
static int apply(pdr *r, uint32_t type, uint16_t misc, const unsigned char *p, size_t n)
{
	switch (type) {
	case R_MMAP:
	case R_MMAP2: {
		size_t fo = type == R_MMAP ? 32 : 32 + 24 + 8;
		if (n <= fo)
			return 0;
		int32_t pid = (int32_t)rd32(p);
		uint64_t start = rd64(p + 8), len = rd64(p + 16), pgoff = rd64(p + 24);
		const char *fname = (const char *)p + fo;
		size_t fl = strnlen(fname, n - fo);
		if (misc & MISC_EXEC) /* data mapping */
			return 0;
		if (type == R_MMAP2 && !(rd32(p + 56) & 4) && rd32(p + 56)) /* prot without PROT_EXEC */
			return 0;
		sv_perf_dso *d = sv_perf_dso_get(r->syms, fname, fl);
		if (!d)
			return oom(r);
		if (type == R_MMAP2 && (misc & MISC_MMAP_BUILD_ID) && !d->build_id_len) {
			size_t bl = p[32] <= 20 ? p[32] : 20;
			memcpy(d->build_id, p + 36, bl);
			d->build_id_len = (uint8_t)bl;
		}
		map nm = { start, start + len < start ? UINT64_MAX : start + len, pgoff, d };
		bool kernel = pid == -1 || (misc & MISC_CPUMODE) == MISC_KERNEL;
		if (kernel) {
			r->kgen = ++r->gen;
			return maps_insert(&r->kmaps, nm) ? oom(r) : 0;
		}
		proc *pr = proc_get(r, pid);
		if (!pr || !(pr->m = maps_own(pr->m)) || maps_insert(pr->m, nm))
			return oom(r);
		pr->gen = ++r->gen;
		return 0;
	}
	case R_COMM: {
		if (n <= 8)
			return 0;
		int32_t pid = (int32_t)rd32(p), tid = (int32_t)rd32(p + 4);
		const char *c = (const char *)p + 8;
		thread *t = thread_get(r, pid, tid);
		if (!t || comm_intern(r, c, strnlen(c, n - 8), &t->comm))
			return oom(r);
		/* As perf: exec does not drop the old mappings; the new image's mmaps replace what
		 * they overlap, and samples taken inside execve still name the old frames. */
		t->comm_added = false;
		return 0;
	}
	case R_FORK: {
		if (n < 16)
			return 0;
		int32_t pid = (int32_t)rd32(p), ppid = (int32_t)rd32(p + 4), tid = (int32_t)rd32(p + 8),
			ptid = (int32_t)rd32(p + 12);
		uint32_t pc = UINT32_MAX;
		uint32_t pi = sv_idmap_get(&r->thread_idx, (uint32_t)ptid);
		if (pi != SV_IDMAP_NONE)
			pc = r->threads[pi].comm;
		thread *t = thread_get(r, pid, tid);
		if (!t)
			return oom(r);
		t->comm = pc;
		t->comm_added = false;
		if (pid != ppid) { /* a new process shares its parent's mappings until it changes them */
			proc *pp = proc_get(r, ppid);
			proc *np = pp ? proc_get(r, pid) : NULL;
			if (!np)
				return oom(r);
			pp = proc_get(r, ppid); /* proc_get may have moved the array */
			if (np != pp && np->m->n == 0) {
				maps_unref(np->m);
				np->m = pp->m;
				np->m->refs++;
				np->gen = ++r->gen;
			}
		}
		return 0;
	}
	case R_LOST:
		if (n >= 16)
			r->lost += rd64(p + 8);
		return 0;
	case R_LOST_SAMPLES:
		if (n >= 8)
			r->lost_samples += rd64(p);
		return 0;
	default: return 0;
	}
}

/* ---- frames ---- */

static int intern_name(pdr *r, sv_frame_id *out, const char *module, size_t mlen, const char *sym, size_t slen)
{
	size_t len = mlen + 1 + slen;
	if (len > SV_MAX_NAME_LEN) {
		slen = SV_MAX_NAME_LEN - mlen - 1;
		len = SV_MAX_NAME_LEN;
	}
	if (grow((void **)&r->name, &r->name_cap, len + 1, 1))
		return SV_ENOMEM;
	memcpy(r->name, module, mlen);
	r->name[mlen] = '!';
	memcpy(r->name + mlen + 1, sym, slen);
	return r->sink->ops->intern_frame(r->sink->self, out, r->name, len);
}

static int unknown_frame(pdr *r, sv_frame_id *out)
{
	if (!r->have_unknown) {
		int rc = intern_name(r, &r->unknown_fid, "unknown", 7, "unknown", 7);
		if (rc)
			return rc;
		r->have_unknown = true;
	}
	*out = r->unknown_fid;
	return 0;
}

static int kernel_frame(pdr *r, sv_frame_id *out, uint64_t ip)
{
	if (!r->kallsyms_tried) {
		r->kallsyms_tried = true;
		sv_perf_kallsyms_load(r->syms, r->kbid, r->kbid_len, r->kernel_text, r->osrelease, r->kallsyms_note,
				 sizeof(r->kallsyms_note));
		size_t nk = sv_perf_kallsyms_count(r->syms) + 1;
		if (!(r->kfids = malloc(nk * sizeof(*r->kfids))))
			return SV_ENOMEM;
		memset(r->kfids, 0xff, nk * sizeof(*r->kfids));
	}
	long i = sv_perf_kallsyms_find(r->syms, ip);
	size_t slot = i < 0 ? sv_perf_kallsyms_count(r->syms) : (size_t)i;
	if (r->kfids[slot] != UINT32_MAX && i >= 0) {
		*out = r->kfids[slot];
		return 0;
	}
	if (i >= 0) {
		const char *sym, *module;
		sv_perf_kallsyms_sym(r->syms, i, &sym, &module);
		int rc = intern_name(r, &r->kfids[slot], module, strlen(module), sym, strlen(sym));
		*out = r->kfids[slot];
		return rc;
	}
	/* No symbol: the module the kernel maps name ("kernel.kallsyms" for the kernel). */
	const map *m = maps_find(&r->kmaps, ip);
	const char *module = m && !m->dso->jit ? m->dso->module : "kernel.kallsyms";
	if (!strncmp(module, "kernel.kallsyms", 15))
		module = "kernel.kallsyms";
	return intern_name(r, out, module, strlen(module), "unknown", 7);
}

static int user_frame(pdr *r, sv_frame_id *out, const proc *pr, uint64_t ip)
{
	const map *m = maps_find(pr->m, ip);
	if (!m)
		return unknown_frame(r, out);
	sv_perf_dso *d = m->dso;
	if (d->jit) {
		const char *sym = NULL, *module = NULL;
		if (sv_perf_jit_find(r->syms, pr->pid, ip, &sym, &module)) {
			const char *jm, *rest;
			size_t jl, rl;
			size_t sl = strlen(sym);
			if (sv_perf_jit_split(sym, sl, &jm, &jl, &rest, &rl))
				return intern_name(r, out, jm, jl, rl ? rest : "unknown", rl ? rl : 7);
			return intern_name(r, out, module, strlen(module), sym, sl);
		}
		char mod[64];
		int ml = snprintf(mod, sizeof(mod), "perf-%d.map", pr->pid);
		return intern_name(r, out, mod, (size_t)ml, "unknown", 7);
	}
	sv_perf_dso_load(r->syms, d);
	if (!d->fids) {
		if (!(d->fids = malloc((d->nsyms + 1) * sizeof(*d->fids))))
			return SV_ENOMEM;
		memset(d->fids, 0xff, (d->nsyms + 1) * sizeof(*d->fids));
	}
	long i = d->nsyms ? sv_perf_dso_find(d, sv_perf_dso_addr(d, ip - m->start + m->pgoff)) : -1;
	size_t slot = i < 0 ? d->nsyms : (size_t)i;
	if (d->fids[slot] == UINT32_MAX) {
		const char *sym = i < 0 ? "unknown" : sv_perf_dso_name(d, i);
		int rc = intern_name(r, &d->fids[slot], d->module, strlen(d->module), sym, strlen(sym));
		if (rc)
			return rc;
	}
	*out = d->fids[slot];
	return 0;
}

/* ---- samples ---- */

typedef struct sample {
	uint64_t ip, time, period;
	int32_t pid, tid;
	const unsigned char *chain; /* nr u64 entries */
	uint64_t nchain;
	bool has_chain;
	uint64_t regs_abi;
	const unsigned char *regs;
	size_t nregs;
	const unsigned char *stack;
	uint64_t stack_size;
	size_t attr;
} sample;

static bool parse_sample(const attr *a, const unsigned char *p, size_t n, sample *s, const char **why)
{
	uint64_t st = a->sample_type;
	size_t o = 0;
	memset(s, 0, sizeof(*s));
	s->pid = s->tid = -1;
#define NEED(k)                                       \
	do {                                          \
		if ((k) > n - o) {                    \
			*why = "sample fields overrun the record"; \
			return false;                 \
		}                                     \
	} while (0)
	if (st & ST_IDENTIFIER) {
		NEED(8);
		o += 8;
	}
	if (st & ST_IP) {
		NEED(8);
		s->ip = rd64(p + o);
		o += 8;
	}
	if (st & ST_TID) {
		NEED(8);
		s->pid = (int32_t)rd32(p + o);
		s->tid = (int32_t)rd32(p + o + 4);
		o += 8;
	}
	if (st & ST_TIME) {
		NEED(8);
		s->time = rd64(p + o);
		o += 8;
	}
	size_t skip = 8 * popcount64(st & (ST_ADDR | ST_ID | ST_STREAM_ID | ST_CPU));
	NEED(skip);
	o += skip;
	s->period = (a->flags & ATTR_FREQ) ? 1 : a->period;
	if (st & ST_PERIOD) {
		NEED(8);
		s->period = rd64(p + o);
		o += 8;
	}
	if (st & ST_READ) {
		uint64_t rf = a->read_format;
		size_t per = 1 + ((rf & 4) ? 1 : 0) + ((rf & 16) ? 1 : 0);
		size_t times = ((rf & 1) ? 1 : 0) + ((rf & 2) ? 1 : 0);
		if (rf & 8) {
			NEED(8);
			uint64_t nr = rd64(p + o);
			o += 8;
			if (nr > (n - o) / 8 / per) {
				*why = "read values overrun the record";
				return false;
			}
			NEED(8 * times + 8 * per * (size_t)nr);
			o += 8 * times + 8 * per * (size_t)nr;
		} else {
			NEED(8 * (per + times));
			o += 8 * (per + times);
		}
	}
	if (st & ST_CALLCHAIN) {
		NEED(8);
		uint64_t nr = rd64(p + o);
		o += 8;
		if (nr > (n - o) / 8) {
			*why = "callchain longer than its record";
			return false;
		}
		s->chain = p + o;
		s->nchain = nr;
		s->has_chain = true;
		o += 8 * (size_t)nr;
	}
	if (st & ST_RAW) {
		NEED(4);
		uint32_t sz = rd32(p + o);
		o += 4;
		NEED(sz);
		o += sz;
	}
	if (st & ST_BRANCH) {
		NEED(8);
		uint64_t nr = rd64(p + o);
		o += 8;
		if (a->branch_type & (1u << 17)) {
			NEED(8);
			o += 8;
		}
		if (nr > (n - o) / 24) {
			*why = "branch stack overruns the record";
			return false;
		}
		o += 24 * (size_t)nr;
	}
	if (st & ST_REGS_USER) {
		NEED(8);
		s->regs_abi = rd64(p + o);
		o += 8;
		if (s->regs_abi) {
			size_t nr = popcount64(a->regs_user);
			NEED(8 * nr);
			s->regs = p + o;
			s->nregs = nr;
			o += 8 * nr;
		}
	}
	if (st & ST_STACK_USER) {
		NEED(8);
		uint64_t sz = rd64(p + o);
		o += 8;
		if (sz) {
			if (sz > n - o || n - o - sz < 8) {
				*why = "user stack copy overruns the record";
				return false;
			}
			s->stack = p + o;
			o += sz;
			uint64_t dyn = rd64(p + o);
			o += 8;
			s->stack_size = dyn < sz ? dyn : sz;
		}
	}
#undef NEED
	return true;
}

static uint64_t hash_words(const uint64_t *w, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	for (size_t i = 0; i < n; i++)
		h = sv_hash_mix64(h ^ w[i]) + i;
	return h;
}

/* Stack of a chain key (words: pid/tid, generations, entries); NONE when not remembered. */
static memo_slot *memo_find(pdr *r, const uint64_t *key, size_t n, uint64_t h, bool *found)
{
	*found = false;
	if (!r->memo_cap)
		return NULL;
	size_t mask = r->memo_cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		memo_slot *s = &r->memo[i];
		if (!s->off)
			return s;
		if (s->hash == h && r->memo_words[s->off] == n && memcmp(&r->memo_words[s->off + 1], key, n * 8) == 0) {
			*found = true;
			return s;
		}
	}
}

static void memo_put(pdr *r, const uint64_t *key, size_t n, uint64_t h, sv_stack_id st)
{
	if (r->memo_wlen + n + 1 > MEMO_MAX_WORDS)
		return;
	if ((r->memo_n + 1) * 4 > r->memo_cap * 3) { /* rehash at 75 % */
		size_t ncap = r->memo_cap ? r->memo_cap * 2 : 1024;
		memo_slot *nm = calloc(ncap, sizeof(*nm));
		if (!nm)
			return;
		for (size_t i = 0; i < r->memo_cap; i++) {
			memo_slot *s = &r->memo[i];
			if (!s->off)
				continue;
			size_t j = s->hash & (ncap - 1);
			while (nm[j].off)
				j = (j + 1) & (ncap - 1);
			nm[j] = *s;
		}
		free(r->memo);
		r->memo = nm;
		r->memo_cap = ncap;
	}
	if (!r->memo_wlen)
		r->memo_wlen = 1; /* offset 0 marks an empty slot */
	if (grow((void **)&r->memo_words, &r->memo_wcap, r->memo_wlen + n + 1, 8))
		return;
	bool found;
	memo_slot *s = memo_find(r, key, n, h, &found);
	s->hash = h;
	s->off = r->memo_wlen;
	s->stack = st;
	r->memo_words[r->memo_wlen] = n;
	memcpy(&r->memo_words[r->memo_wlen + 1], key, n * 8);
	r->memo_wlen += n + 1;
	r->memo_n++;
}

static int thread_stack(pdr *r, sv_stack_id *out, proc *pr, thread *t)
{
	uint64_t key = ((uint64_t)(uint32_t)t->pid << 32) | (uint32_t)t->tid;
	uint32_t s = sv_idmap_get(&r->thread_stk, key);
	if (s != SV_IDMAP_NONE) {
		*out = s;
		return 0;
	}
	int rc = 0;
	if (pr->frame == UINT32_MAX) {
		char buf[64];
		int n = snprintf(buf, sizeof(buf), "Process (%d)", pr->pid); /* renamed at the end */
		if ((rc = r->sink->ops->intern_frame(r->sink->self, &pr->frame, buf, (size_t)n)))
			return rc;
	}
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "Thread (%d)", t->tid);
	sv_frame_id tf;
	sv_stack_id ps, ts;
	rc = r->sink->ops->intern_frame(r->sink->self, &tf, buf, (size_t)n);
	if (!rc)
		rc = r->sink->ops->intern_stack(r->sink->self, &ps, SV_STACK_NONE, pr->frame);
	if (!rc)
		rc = r->sink->ops->intern_stack(r->sink->self, &ts, ps, tf);
	if (!rc && sv_idmap_put(&r->thread_stk, key, ts))
		rc = SV_ENOMEM;
	if (!rc)
		*out = ts;
	return rc;
}

/* The process's comms as the sample's thread is called now (semantics §1.5). */
static int note_comm(pdr *r, proc *pr, thread *t)
{
	if (t->comm_added)
		return 0;
	t->comm_added = true;
	uint32_t c = t->comm;
	if (c == UINT32_MAX) { /* no COMM for the thread: its process's main thread, else ":tid" */
		uint32_t li = sv_idmap_get(&r->thread_idx, (uint32_t)t->pid);
		if (li != SV_IDMAP_NONE && r->threads[li].comm != UINT32_MAX) {
			c = r->threads[li].comm;
		} else {
			char buf[24];
			int n = snprintf(buf, sizeof(buf), ":%d", t->tid);
			if (comm_intern(r, buf, (size_t)n, &c))
				return SV_ENOMEM;
			t->comm = c;
		}
	}
	for (size_t i = 0; i < pr->ncomms; i++)
		if (!strcmp(r->comm_names + pr->comms[i], r->comm_names + c))
			return 0;
	if (pr->ncomms >= 256)
		return 0;
	if (grow((void **)&pr->comms, &pr->comm_cap, pr->ncomms + 1, sizeof(*pr->comms)))
		return SV_ENOMEM;
	pr->comms[pr->ncomms++] = c;
	return 0;
}

/* The user part of a --call-graph dwarf sample, unwound into pcs. */
static size_t unwind_user(pdr *r, proc *pr, const sample *s, uint64_t *pcs)
{
	if (!pr->uw && sv_perf_unwinder_new(&pr->uw, sv_perf_syms_callbacks(r->syms), pr->pid))
		return 0;
	if (pr->uw_gen != pr->gen) {
		pr->uw_gen = pr->gen;
		const sv_perf_dso *dsos[256];
		uint64_t bias[256];
		size_t nd = 0;
		for (size_t i = 0; i < pr->m->n && nd < 256; i++) {
			const map *m = &pr->m->v[i];
			sv_perf_dso *d = m->dso;
			if (d->jit)
				continue;
			sv_perf_dso_load(r->syms, d);
			if (!d->elf_path || d->elf_path[0] == '[')
				continue;
			/* load bias: runtime address minus ELF address of the segment holding pgoff */
			uint64_t b = m->start - m->pgoff;
			for (size_t k = 0; k < d->nloads; k++)
				if (m->pgoff >= d->loads[k].offset && m->pgoff - d->loads[k].offset < d->loads[k].filesz) {
					b = m->start - (m->pgoff - d->loads[k].offset + d->loads[k].vaddr);
					break;
				}
			bool dup = false;
			for (size_t k = 0; k < nd; k++)
				dup |= dsos[k] == d;
			if (!dup) {
				dsos[nd] = d;
				bias[nd++] = b;
			}
		}
		if (sv_perf_unwinder_sync(pr->uw, dsos, bias, nd))
			return 0;
	}
	uint64_t regs[64];
	size_t nregs = s->nregs < 64 ? s->nregs : 64;
	memcpy(regs, s->regs, nregs * 8);
	return sv_perf_unwinder_run(pr->uw, regs, nregs, r->attrs[s->attr].regs_user, s->stack, (size_t)s->stack_size, pcs,
				    UNWIND_MAX);
}

static int do_sample(pdr *r, const unsigned char *p, size_t n, uint16_t misc, size_t off)
{
	long ai = sample_attr(r, p, n);
	if (ai < 0 || !r->attrs[ai].selected) {
		r->samples_other++;
		return 0;
	}
	const attr *a = &r->attrs[ai];
	sample s;
	const char *why = NULL;
	if (!parse_sample(a, p, n, &s, &why)) {
		bad_sample(r, off, why);
		return 0;
	}
	s.attr = (size_t)ai;
	if (!r->have_t0) {
		r->have_t0 = true;
		r->t0 = s.time;
	}
	proc *pr = proc_get(r, s.pid);
	thread *t = pr ? thread_get(r, s.pid, s.tid) : NULL;
	if (!t)
		return oom(r);
	pr = proc_get(r, s.pid);
	if (note_comm(r, pr, t))
		return oom(r);
	t = thread_get(r, s.pid, s.tid);
	sv_stack_id st;
	int rc = thread_stack(r, &st, pr, t);
	if (rc)
		return fail(r, rc, off, "cannot intern thread");

	/* Key: ids, address-space generations, sample mode, callchain entries. */
	size_t nchain = s.has_chain ? (size_t)s.nchain : 1;
	if (nchain > SV_MAX_STACK_DEPTH)
		nchain = SV_MAX_STACK_DEPTH;
	bool dwarf = s.regs && s.stack && (a->sample_type & ST_REGS_USER) && (a->sample_type & ST_STACK_USER);
	if (grow((void **)&r->chain, &r->chain_cap, nchain + 5 + (dwarf ? UNWIND_MAX : 0), 8))
		return oom(r);
	uint64_t *key = r->chain;
	key[0] = ((uint64_t)(uint32_t)s.pid << 32) | (uint32_t)s.tid;
	key[1] = pr->gen;
	key[2] = r->kgen;
	key[3] = misc & MISC_CPUMODE;
	if (s.has_chain) {
		for (size_t i = 0; i < nchain; i++)
			key[4 + i] = rd64(s.chain + 8 * i);
	} else {
		key[4] = s.ip;
	}
	if (dwarf) {
		/* The chain holds the kernel part; the user part is unwound from the stack copy. */
		size_t k = 0;
		if (s.has_chain)
			while (k < nchain && key[4 + k] != CTX_USER)
				k++;
		else
			k = (misc & MISC_CPUMODE) == MISC_KERNEL ? 1 : 0;
		key[4 + k] = CTX_USER;
		size_t nu = unwind_user(r, pr, &s, key + 5 + k);
		nchain = k + 1 + nu;
		s.has_chain = true;
	}
	size_t klen = nchain + 4;
	uint64_t h = hash_words(key, klen);
	bool found;
	memo_slot *ms = memo_find(r, key, klen, h, &found);
	if (found) {
		st = ms->stack;
	} else {
		if (grow((void **)&r->fids, &r->fid_cap, nchain + 1, sizeof(*r->fids)))
			return oom(r);
		size_t nf = 0;
		unsigned mode = misc & MISC_CPUMODE;
		for (size_t i = 0; i < nchain; i++) {
			uint64_t ip = key[4 + i];
			if (s.has_chain && ip >= CTX_MAX) {
				if (ip != CTX_KERNEL && ip != CTX_USER && ip != CTX_HV && ip != CTX_GUEST &&
				    ip != CTX_GUEST_KERNEL && ip != CTX_GUEST_USER) {
					nf = 0; /* as perf: an invalid context drops the whole callchain */
					break;
				}
				mode = ip == CTX_KERNEL ? MISC_KERNEL : ip == CTX_USER ? MISC_USER : 0;
				continue;
			}
			if (mode == MISC_KERNEL)
				rc = kernel_frame(r, &r->fids[nf], ip);
			else if (mode == MISC_USER)
				rc = user_frame(r, &r->fids[nf], pr, ip);
			else
				rc = unknown_frame(r, &r->fids[nf]);
			if (rc)
				return fail(r, rc, off, "cannot name a frame");
			nf++;
		}
		for (size_t i = nf; i-- > 0;)
			if ((rc = r->sink->ops->intern_stack(r->sink->self, &st, st, r->fids[i])))
				return fail(r, rc, off, "cannot intern stack");
		memo_put(r, key, klen, h, st);
	}
	double t_ms = s.time >= r->t0 ? (double)(s.time - r->t0) / 1e6 : -(double)(r->t0 - s.time) / 1e6;
	double m = r->clock_event ? (double)s.period / 1e6 : (double)s.period;
	r->kept++;
	rc = r->sink->ops->add_sample(r->sink->self, st, t_ms, m, 1.0);
	return rc ? fail(r, rc, off, "cannot add sample") : 0;
}

/* ---- header, selection, finish ---- */

static int read_file_header(pdr *r, size_t *data_off, size_t *data_end)
{
	const unsigned char *d = r->d;
	size_t n = r->n;
	if (n < 16)
		return fail(r, SV_EFORMAT, 0, "truncated perf.data header (%zu bytes)", n);
	if (memcmp(d, "2ELIFREP", 8) == 0)
		return fail(r, SV_EUNSUPPORTED, 0, "perf.data written on a big-endian machine is not supported");
	if (memcmp(d, "PERFFILE", 8) == 0)
		return fail(r, SV_EUNSUPPORTED, 0, "perf.data version 1 (PERFFILE) is not supported; re-record with a newer perf");
	if (memcmp(d, "PERFILE2", 8) != 0)
		return fail(r, SV_EFORMAT, 0, "not a perf.data file (no PERFILE2 magic)");
	uint64_t hsize = rd64(d + 8);
	if (hsize == 16) {
		r->pipe = true;
		*data_off = 16;
		*data_end = n;
		return 0;
	}
	if (hsize < 104 || n < 104)
		return fail(r, SV_EFORMAT, n < 104 ? n : 8, "truncated perf.data header (%zu of 104 bytes)", n < 104 ? n : (size_t)hsize);
	uint64_t attr_size = rd64(d + 16), aoff = rd64(d + 24), asz = rd64(d + 32), doff = rd64(d + 40), dsz = rd64(d + 48);
	if (attr_size < 64 + 16 || attr_size > 4096)
		return fail(r, SV_EFORMAT, 16, "attribute entry size %" PRIu64 " out of range", attr_size);
	if (aoff > n || asz > n - aoff)
		return fail(r, SV_EFORMAT, 24, "attribute section (%" PRIu64 " bytes at %" PRIu64 ") lies past the end of the file (%zu bytes)",
			    asz, aoff, n);
	if (doff > n)
		return fail(r, SV_EFORMAT, 40, "data section starts at %" PRIu64 ", past the end of the file (%zu bytes)", doff, n);
	for (uint64_t o = 0; o + attr_size <= asz; o += attr_size) {
		const unsigned char *e = d + aoff + o;
		uint32_t sz = rd32(e + 4);
		size_t use = sz && sz <= attr_size - 16 ? sz : (size_t)attr_size - 16;
		int rc = add_attr(r, e, use, (size_t)(aoff + o));
		if (rc)
			return rc;
		uint64_t ioff = rd64(e + attr_size - 16), isz = rd64(e + attr_size - 8);
		if (ioff > n || isz > n - ioff)
			return fail(r, SV_EFORMAT, (size_t)(aoff + o), "id array of event %zu lies past the end of the file", r->nattrs - 1);
		if ((rc = map_ids(r, r->nattrs - 1, d + ioff, (size_t)isz / 8)))
			return rc;
	}
	if (!r->nattrs)
		return fail(r, SV_EFORMAT, 24, "no events in the attribute section");
	*data_off = (size_t)doff;
	if (dsz == 0 && n > doff) {
		/* perf was stopped before it rewrote the header: read to the end. */
		*data_end = n;
		r->truncated = true;
		snprintf(r->trunc_msg, sizeof(r->trunc_msg),
			 "the header gives no data size (perf stopped before finishing the file); read to the end");
		return 0;
	}
	if (dsz > n - doff) {
		r->truncated = true;
		snprintf(r->trunc_msg, sizeof(r->trunc_msg), "data section is %" PRIu64 " bytes but the file ends after %zu; read what is there",
			 dsz, n - (size_t)doff);
		*data_end = n;
		return 0;
	}
	*data_end = (size_t)(doff + dsz);
	/* Features: {offset, size} per set bit after the data section. */
	size_t fo = *data_end;
	for (unsigned bit = 1; bit < 256; bit++) {
		uint64_t word = rd64(d + 72 + 8 * (bit / 64));
		if (!(word >> (bit % 64) & 1))
			continue;
		if (fo + 16 > n)
			break;
		uint64_t off = rd64(d + fo), size = rd64(d + fo + 8);
		fo += 16;
		if (off > n || size > n - off)
			continue;
		int rc = feature(r, bit, d + off, (size_t)size);
		if (rc)
			return rc;
	}
	return 0;
}

static bool tracepoint(const attr *a)
{
	return a->type == 2;
}

static int choose_event(pdr *r)
{
	for (size_t i = 0; i < r->nattrs; i++) {
		attr *a = &r->attrs[i];
		if (!a->name) {
			const char *b = builtin_name(a->type, a->config);
			char buf[64];
			if (!b) {
				snprintf(buf, sizeof(buf), "%s%u:0x%" PRIx64, a->type == 2 ? "tracepoint" : "event", a->type, a->config);
				b = buf;
			}
			if (!(a->name = strdup(b)))
				return oom(r);
		}
	}
	const char *want = r->opts->event;
	if (!want) {
		for (int pass = 0; pass < 2 && !want; pass++)
			for (size_t i = 0; i < r->nattrs && !want; i++)
				if (r->attrs[i].samples && (pass || !tracepoint(&r->attrs[i])))
					want = r->attrs[i].name;
	}
	size_t hits = 0;
	for (size_t i = 0; want && i < r->nattrs; i++)
		if (!strcmp(r->attrs[i].name, want) && r->attrs[i].samples) {
			r->attrs[i].selected = true;
			r->clock_event = r->attrs[i].type == 1 && r->attrs[i].config <= 1;
			hits++;
		}
	if (r->opts->event && !hits) {
		char msg[400];
		size_t o = (size_t)snprintf(msg, sizeof(msg), "no samples of event '%s'; the file has:", r->opts->event);
		size_t listed = 0;
		for (size_t i = 0; i < r->nattrs && o < sizeof(msg) - 1; i++)
			if (r->attrs[i].samples)
				o += (size_t)snprintf(msg + o, sizeof(msg) - o, "%s %s", listed++ ? "," : "", r->attrs[i].name);
		if (!listed)
			snprintf(msg + o, sizeof(msg) - o, " no samples");
		return sv_error_set(r->err, SV_EINVAL, "%s", msg);
	}
	return 0;
}

static int note(pdr *r, int kind, const char *fmt, ...) SV_PRINTF(3, 4);
static int note(pdr *r, int kind, const char *fmt, ...)
{
	if (!r->sink->ops->add_note)
		return 0;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return r->sink->ops->add_note(r->sink->self, kind, msg);
}

static int finish(pdr *r)
{
	int rc = 0;
	/* Events: one line per name with its samples. */
	for (size_t i = 0; !rc && i < r->nattrs; i++) {
		const attr *a = &r->attrs[i];
		if (!a->samples)
			continue;
		bool dup = false;
		for (size_t k = 0; k < i; k++)
			dup |= r->attrs[k].samples && !strcmp(r->attrs[k].name, a->name);
		if (dup)
			continue;
		size_t total = 0;
		for (size_t k = i; k < r->nattrs; k++)
			if (!strcmp(r->attrs[k].name, a->name))
				total += r->attrs[k].samples;
		if (r->sink->ops->add_event)
			rc = r->sink->ops->add_event(r->sink->self, a->name, total, a->selected);
	}
	if (!rc && r->sink->ops->set_scaling)
		rc = r->sink->ops->set_scaling(r->sink->self, r->clock_event ? SV_SCALING_TIME : SV_SCALING_DATA);
	/* Process frames: their comms joined by ';', .NET helper threads left out. */
	size_t nren = 0;
	sv_frame_id *ids = malloc((r->nprocs + 1) * sizeof(*ids));
	char **names = calloc(r->nprocs + 1, sizeof(*names));
	if (!ids || !names)
		rc = SV_ENOMEM;
	for (size_t i = 0; !rc && i < r->nprocs; i++) {
		proc *p = &r->procs[i];
		if (p->frame == UINT32_MAX)
			continue;
		size_t total = 64;
		for (size_t k = 0; k < p->ncomms; k++)
			total += strlen(r->comm_names + p->comms[k]) + 1;
		char *buf = malloc(total);
		if (!buf) {
			rc = SV_ENOMEM;
			break;
		}
		size_t o = (size_t)snprintf(buf, total, "Process ");
		size_t kept = 0;
		for (int pass = 0; pass < 2 && !kept; pass++)
			for (size_t k = 0; k < p->ncomms; k++) {
				const char *c = r->comm_names + p->comms[k];
				if (pass == 0 && !strncmp(c, ".NET ", 5))
					continue;
				o += (size_t)snprintf(buf + o, total - o, "%s%s", kept++ ? ";" : "", c);
			}
		snprintf(buf + o, total - o, " (%d)", p->pid);
		ids[nren] = p->frame;
		names[nren++] = buf;
	}
	if (!rc && r->sink->ops->rename_frames)
		rc = r->sink->ops->rename_frames(r->sink->self, ids, (const char *const *)names, nren);
	for (size_t i = 0; i < nren; i++)
		free(names[i]);
	free(names);
	free(ids);
	if (rc)
		return oom(r);

	/* What was found, for `info`. */
	rc = note(r, SV_NOTE_INFO, "perf.data (%s mode)%s%s%s%s%s%s%s%s", r->pipe ? "pipe" : "file",
		  r->version ? ", perf " : "", r->version ? r->version : "", r->hostname ? ", host " : "",
		  r->hostname ? r->hostname : "", r->osrelease ? ", kernel " : "", r->osrelease ? r->osrelease : "",
		  r->arch ? " " : "", r->arch ? r->arch : "");
	if (!rc && r->cmdline)
		rc = note(r, SV_NOTE_INFO, "command: %s", r->cmdline);
	if (!rc)
		rc = note(r, SV_NOTE_INFO,
			  "records: %zu (%zu samples, %zu mmap, %zu mmap2, %zu comm, %zu fork, %zu exit)%s", r->records,
			  r->counts[R_SAMPLE], r->counts[R_MMAP], r->counts[R_MMAP2], r->counts[R_COMM], r->counts[R_FORK],
			  r->counts[R_EXIT], r->dlen ? "; zstd-compressed" : "");
	if (!rc && r->kallsyms_note[0])
		rc = note(r, r->kallsyms_note[0] == 'n' ? SV_NOTE_WARNING : SV_NOTE_INFO, "%s", r->kallsyms_note);
	/* User-space files: how many had symbols. */
	size_t used = 0, found = 0, shown = 0;
	char missing[400] = "";
	size_t ml = 0;
	for (size_t i = 0; i < sv_perf_dso_count(r->syms); i++) {
		sv_perf_dso *d = sv_perf_dso_at(r->syms, i);
		if (!d->tried || d->jit || d->kernel || d->path[0] == '[')
			continue;
		used++;
		if (d->elf_path) {
			found++;
		} else if (shown < 4 && ml < sizeof(missing) - 1) {
			ml += (size_t)snprintf(missing + ml, sizeof(missing) - ml, "%s%s", shown++ ? ", " : "", d->path);
		}
	}
	if (!rc && used)
		rc = note(r, found == used ? SV_NOTE_INFO : SV_NOTE_WARNING, "user symbols: %zu of %zu files found%s%s%s", found,
			  used, found < used ? " (not found: " : "", missing, found < used ? (used - found > shown ? ", …)" : ")") : "");
	if (!rc && (r->lost || r->lost_samples))
		rc = note(r, SV_NOTE_WARNING, "perf lost %zu events and %zu samples while recording", r->lost, r->lost_samples);
	if (!rc && r->bad_samples)
		rc = note(r, SV_NOTE_WARNING, "%zu malformed samples skipped; first: %s", r->bad_samples, r->first_bad);
	if (!rc && r->skipped)
		rc = note(r, SV_NOTE_WARNING, "%zu records of unknown type skipped by their size (first: %s)", r->skipped,
			  r->first_skipped);
	if (!rc && r->unknown_id)
		rc = note(r, SV_NOTE_WARNING, "%zu samples with an event id no attribute lists were skipped", r->unknown_id);
	if (!rc && r->truncated)
		rc = note(r, SV_NOTE_WARNING, "%s", r->trunc_msg);
	return rc ? oom(r) : 0;
}

static int pd_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	static const sv_import_opts none = { 0 };
	pdr r;
	memset(&r, 0, sizeof(r));
	r.sink = sink;
	r.in = in;
	r.opts = opts ? opts : &none;
	r.err = err;
	r.d = in->data;
	r.n = in->len;
	r.kmaps.refs = 1;
	uint64_t lim = (uint64_t)in->len * SV_MAX_ZIP_RATIO;
	r.dlimit = lim < SV_MAX_INPUT_BYTES ? lim : SV_MAX_INPUT_BYTES;
	sv_idmap_init(&r.id_attr);
	sv_idmap_init(&r.proc_idx);
	sv_idmap_init(&r.thread_idx);
	sv_idmap_init(&r.thread_stk);
	rec *tmp = NULL;
	sv_perf_sym_opts so = { r.opts->kallsyms, r.opts->debug_dirs, r.opts->perf_map_dir };
	int rc = sv_perf_syms_new(&r.syms, &so);
	if (rc) {
		oom(&r);
		goto out;
	}
	size_t doff = 0, dend = 0, stop = 0;
	if ((rc = read_file_header(&r, &doff, &dend)))
		goto out;
	if ((rc = index_buffer(&r, r.d, doff, dend, false, &stop)))
		goto out;
	if (stop < dend && !r.truncated) {
		r.truncated = true;
		snprintf(r.trunc_msg, sizeof(r.trunc_msg), "the data ends inside a record at byte offset %zu; %zu bytes ignored", stop,
			 dend - stop);
	}
	if (r.dparsed < r.dlen && !r.truncated) {
		r.truncated = true;
		snprintf(r.trunc_msg, sizeof(r.trunc_msg), "compressed records end inside a record; %zu inflated bytes ignored",
			 r.dlen - r.dparsed);
	}
	if (!r.nattrs) {
		rc = fail(&r, SV_EFORMAT, doff, "no event attributes before the records%s%s%s", r.truncated ? " (" : "",
			  r.truncated ? r.trunc_msg : "", r.truncated ? ")" : "");
		goto out;
	}
	if ((rc = choose_event(&r)))
		goto out;
	if (r.nrecs && !(tmp = malloc(r.nrecs * sizeof(*tmp)))) {
		rc = oom(&r);
		goto out;
	}
	sort_recs(r.recs, r.nrecs, tmp);
	for (size_t i = 0; i < r.nrecs; i++) {
		uint64_t loc = r.recs[i].loc;
		const unsigned char *h = (loc & LOC_DECOMP) ? r.dbuf + (loc & ~LOC_DECOMP) : r.d + loc;
		uint32_t type = rd32(h);
		uint16_t misc, size;
		memcpy(&misc, h + 4, 2);
		memcpy(&size, h + 6, 2);
		size_t off = (loc & LOC_DECOMP) ? r.comp_off : (size_t)loc;
		rc = type == R_SAMPLE ? do_sample(&r, h + 8, size - 8u, misc, off) : apply(&r, type, misc, h + 8, size - 8u);
		if (rc)
			goto out;
	}
	rc = finish(&r);
out:
	free(tmp);
	for (size_t i = 0; i < r.nattrs; i++)
		free(r.attrs[i].name);
	free(r.attrs);
	free(r.recs);
	free(r.dbuf);
	ZSTD_freeDStream(r.zs);
	free(r.hostname);
	free(r.osrelease);
	free(r.version);
	free(r.arch);
	free(r.cmdline);
	sv_perf_syms_free(r.syms);
	free(r.kfids);
	free(r.kmaps.v);
	for (size_t i = 0; i < r.nprocs; i++) {
		sv_perf_unwinder_free(r.procs[i].uw);
		maps_unref(r.procs[i].m);
		free(r.procs[i].comms);
	}
	free(r.procs);
	free(r.threads);
	free(r.comm_names);
	free(r.memo);
	free(r.memo_words);
	free(r.chain);
	free(r.fids);
	free(r.name);
	sv_idmap_dispose(&r.id_attr);
	sv_idmap_dispose(&r.proc_idx);
	sv_idmap_dispose(&r.thread_idx);
	sv_idmap_dispose(&r.thread_stk);
	return rc;
}

static bool pd_probe(const unsigned char *d, size_t n)
{
	return n >= 8 && (memcmp(d, "PERFILE2", 8) == 0 || memcmp(d, "2ELIFREP", 8) == 0 || memcmp(d, "PERFFILE", 8) == 0);
}

static const char *const pd_patterns[] = { "perf.data", ".data", NULL };

const sv_format sv_fmt_perf_data = { "perf-data", pd_patterns, pd_probe, pd_import, false, NULL };
