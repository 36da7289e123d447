/* SPDX-License-Identifier: MIT */
/* Windows ETL importer: CPU samples with stacks from `.etl` and PerfView's `.etl.zip`
 * (spec/etl.md). The file is a run of buffers (Xpress-compressed in merged traces); the
 * buffers of each CPU are ordered by sequence number and the CPUs merged by timestamp, so
 * events arrive in time order. One pass collects samples, stack fragments (plain StackWalk
 * events and the stack-key references and definitions of stack caching), processes,
 * threads, images and CLR methods; a second pass, over the kept samples, stitches kernel and
 * user halves, back-fills thread -> process, names frames `module!?` or after CLR methods,
 * and pushes memoized stacks into the sink (semantics §1.3/§1.4 frame names).
 *
 * Everything read from the file is bounds-checked; sizes taken from the file never drive an
 * allocation beyond the documented limits (a buffer decompresses to at most 64 MiB). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "etl_int.h"
#include "stackview/formats.h"
#include "stackview/idmap.h"

#define BUF_HDR 0x48u
#define MAX_BUF_BYTES (64u << 20) /* decompressed size of one buffer */
#define MAX_CHAIN 64              /* samples tried per (timestamp) when matching a stack */
#define MAX_OVERLAP 256           /* images tried per address lookup */
#define MAX_HISTORY 256           /* records tried per thread, process, image or module id */
#define MAX_RATIO 1000u           /* decompressed events / file size, as for zips */

#define AS_NONE UINT32_MAX         /* stack half not known (yet) */
#define AS_EMPTY (UINT32_MAX - 1)  /* stack half known to be empty */
#define AS_NOSTACK (UINT32_MAX - 2) /* pair marker: the sample had no stack at all */

/* ---- little helpers ---- */

static inline uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static inline uint64_t rdptr(const unsigned char *p, unsigned ptr) { return ptr == 8 ? rd64(p) : rd32(p); }

/* Make room for `need` elements of `size` bytes in *p (capacity *cap). */
static int grow(void *pp, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap *= 2;
	void *n = realloc(*(void **)pp, ncap * size);
	if (!n)
		return SV_ENOMEM;
	*(void **)pp = n;
	*cap = ncap;
	return 0;
}

/* Append UTF-8 for the UTF-16LE string at p (at most n bytes, up to a NUL) to out[*len],
 * which has room for `cap` bytes in all; returns the bytes of input consumed incl. the NUL. */
static size_t utf16_to_utf8(const unsigned char *p, size_t n, char *out, size_t cap, size_t *len)
{
	size_t i = 0;
	while (i + 2 <= n) {
		uint32_t c = rd16(p + i);
		i += 2;
		if (c == 0)
			break;
		if (c >= 0xD800 && c < 0xDC00 && i + 2 <= n && rd16(p + i) >= 0xDC00 && rd16(p + i) < 0xE000) {
			c = 0x10000 + ((c - 0xD800) << 10) + (rd16(p + i) - 0xDC00u);
			i += 2;
		} else if (c >= 0xD800 && c < 0xE000) {
			c = 0xFFFD;
		}
		char b[4];
		size_t k;
		if (c < 0x80) {
			b[0] = (char)c;
			k = 1;
		} else if (c < 0x800) {
			b[0] = (char)(0xC0 | c >> 6);
			b[1] = (char)(0x80 | (c & 0x3F));
			k = 2;
		} else if (c < 0x10000) {
			b[0] = (char)(0xE0 | c >> 12);
			b[1] = (char)(0x80 | (c >> 6 & 0x3F));
			b[2] = (char)(0x80 | (c & 0x3F));
			k = 3;
		} else {
			b[0] = (char)(0xF0 | c >> 18);
			b[1] = (char)(0x80 | (c >> 12 & 0x3F));
			b[2] = (char)(0x80 | (c >> 6 & 0x3F));
			b[3] = (char)(0x80 | (c & 0x3F));
			k = 4;
		}
		if (*len + k < cap) {
			memcpy(out + *len, b, k);
			*len += k;
		}
	}
	out[*len] = '\0';
	return i;
}

/* A malloc'ed UTF-8 copy of a UTF-16 string field; *used = input bytes consumed. */
static char *dup_utf16(const unsigned char *p, size_t n, size_t *used)
{
	size_t cap = n / 2 * 3 + 1, len = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	size_t u = utf16_to_utf8(p, n, s, cap, &len);
	if (used)
		*used = u;
	return s;
}

/* ---- provider identities ---- */

/* GUIDs as stored in the file (Data1..3 little-endian, then Data4). */
typedef struct guid_name {
	unsigned char g[16];
	int group; /* kernel task GUID: its hook group; -1 otherwise */
	const char *name;
} guid_name;

static const guid_name known_guids[] = {
	{ { 0x00, 0xd9, 0xfd, 0x68, 0x3e, 0x4a, 0xd1, 0x11, 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 }, 0x00, "EventTrace" },
	{ { 0xd4, 0xa8, 0x6f, 0x3d, 0x05, 0xfe, 0xd0, 0x11, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c }, 0x01, "DiskIO" },
	{ { 0xd3, 0xa8, 0x6f, 0x3d, 0x05, 0xfe, 0xd0, 0x11, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c }, 0x02, "Memory" },
	{ { 0xd0, 0xa8, 0x6f, 0x3d, 0x05, 0xfe, 0xd0, 0x11, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c }, 0x03, "Process" },
	{ { 0x39, 0xdc, 0xcb, 0x90, 0x3e, 0x4a, 0xd1, 0x11, 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 }, 0x04, "FileIO" },
	{ { 0xd1, 0xa8, 0x6f, 0x3d, 0x05, 0xfe, 0xd0, 0x11, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c }, 0x05, "Thread" },
	{ { 0xc0, 0x0a, 0x28, 0x9a, 0xe0, 0xc8, 0xd1, 0x11, 0x84, 0xe2, 0x00, 0xc0, 0x4f, 0xb9, 0x98, 0xa2 }, 0x06, "TcpIp" },
	{ { 0x76, 0xfc, 0x82, 0x32, 0xed, 0xfe, 0x8e, 0x49, 0x8a, 0xa7, 0xe7, 0x0f, 0x45, 0x9d, 0x43, 0x0e }, 0x07, "Job" },
	{ { 0xc5, 0x50, 0x3a, 0xbf, 0xe0, 0xa9, 0x88, 0x49, 0xa0, 0x05, 0x2d, 0xf0, 0xb7, 0xc8, 0x0f, 0x80 }, 0x08, "UdpIp" },
	{ { 0x2e, 0x72, 0x53, 0xae, 0x63, 0xc8, 0xd2, 0x11, 0x86, 0x59, 0x00, 0xc0, 0x4f, 0xa3, 0x21, 0xa1 }, 0x09, "Registry" },
	{ { 0x65, 0x3a, 0x85, 0x01, 0x8f, 0x41, 0x36, 0x4f, 0xae, 0xfc, 0xdc, 0x0f, 0x1d, 0x2f, 0xd2, 0x35 }, 0x0B, "SystemConfig" },
	{ { 0xb4, 0xbf, 0x1d, 0xce, 0x7e, 0x13, 0xa6, 0x4d, 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc }, 0x0F, "PerfInfo" },
	{ { 0x1d, 0x5d, 0xb1, 0x2c, 0x9f, 0x5f, 0xd2, 0x11, 0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18 }, 0x14, "Image" },
	{ { 0x46, 0xfe, 0xf2, 0xde, 0xd6, 0x7b, 0x80, 0x4b, 0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3 }, 0x18, "StackWalk" },
	{ { 0xcd, 0xcc, 0x9d, 0x45, 0x9f, 0x53, 0x72, 0x4b, 0xa8, 0xd9, 0xf5, 0x68, 0x31, 0x42, 0x60, 0x9a }, 0x1A, "ALPC" },
	{ { 0x91, 0xee, 0x79, 0x9b, 0xfd, 0xb5, 0xc0, 0x41, 0xa2, 0x43, 0x42, 0x48, 0xe2, 0x66, 0xe9, 0xd0 }, -1, "Windows Kernel/SysConfig" },
	{ { 0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f, 0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde }, -1, "KernelTraceControl/ImageID" },
	{ { 0xc1, 0xf6, 0xcc, 0xbb, 0xd1, 0x6c, 0xc8, 0x48, 0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71 }, -1, "KernelTraceControl/MetaData" },
	{ { 0x23, 0x0d, 0x3c, 0xe1, 0xbc, 0xcc, 0x12, 0x4e, 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 }, -1, "Microsoft-Windows-DotNETRuntime" },
	{ { 0x1c, 0x02, 0x69, 0xa6, 0x50, 0xc4, 0x09, 0x46, 0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf, 0x18 }, -1, "Microsoft-Windows-DotNETRuntimeRundown" },
};
enum { G_SYSCONFIGEX = 15, G_CLR = 18, G_CLR_RUNDOWN = 19 };

static const char *group_name(int group)
{
	for (size_t i = 0; i < sizeof(known_guids) / sizeof(known_guids[0]); i++)
		if (known_guids[i].group == group)
			return known_guids[i].name;
	return NULL;
}

static int guid_index(const unsigned char *g)
{
	for (size_t i = 0; i < sizeof(known_guids) / sizeof(known_guids[0]); i++)
		if (memcmp(known_guids[i].g, g, 16) == 0)
			return (int)i;
	return -1;
}

/* Names of the kernel events this importer reads (group << 8 | opcode). */
static const char *hook_event_name(int group, int op)
{
	static const struct {
		int g, op;
		const char *name;
	} names[] = {
		{ 0x00, 0, "Header" }, { 0x00, 5, "Extension" }, { 0x00, 8, "RundownComplete" }, { 0x00, 32, "EndExtension" },
		{ 0x03, 1, "Start" }, { 0x03, 2, "Stop" }, { 0x03, 3, "DCStart" }, { 0x03, 4, "DCStop" },
		{ 0x03, 39, "Defunct" }, { 0x05, 1, "Start" }, { 0x05, 2, "Stop" },
		{ 0x05, 3, "DCStart" }, { 0x05, 4, "DCStop" }, { 0x05, 36, "CSwitch" }, { 0x05, 50, "ReadyThread" },
		{ 0x0F, 46, "Sample" }, { 0x0F, 72, "SetInterval" }, { 0x0F, 73, "CollectionStart" },
		{ 0x0F, 74, "CollectionEnd" }, { 0x14, 2, "Unload" }, { 0x14, 3, "DCStart" }, { 0x14, 4, "DCStop" },
		{ 0x18, 32, "Stack" }, { 0x18, 35, "KeyDelete" }, { 0x18, 36, "KeyRundown" }, { 0x18, 37, "KeyKernel" },
		{ 0x18, 38, "KeyUser" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].g == group && names[i].op == op)
			return names[i].name;
	return NULL;
}

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
	int guid;          /* index into known_guids, or -1 */
	const unsigned char *guid_bytes;
	uint32_t tid, pid;
	uint64_t ts;
	const unsigned char *payload;
	size_t plen;
	uint32_t cpu;
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
} esample;
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

typedef struct ekind {
	uint64_t key;
	char *name;
	size_t count;
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
	char **vol_nt, **vol_dos;
	size_t nvols, volcap;

	ekind *kinds;
	size_t nkinds, kindcap;
	sv_idmap kind_index;

	warn warns[W_COUNT];
	uint32_t first_pid;
} etl_ctx;

static void warnf(etl_ctx *c, int w, const char *fmt, ...) SV_PRINTF(3, 4);
static void warnf(etl_ctx *c, int w, const char *fmt, ...)
{
	if (c->warns[w].count++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->warns[w].first, sizeof(c->warns[w].first), fmt, ap);
		va_end(ap);
	}
}

static int fail(etl_ctx *c, int code, size_t off, const char *fmt, ...) SV_PRINTF(4, 5);
static int fail(etl_ctx *c, int code, size_t off, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Offsets are in the .etl itself: name the zip entry when it came out of one. */
	int rc = c->in->inner ? sv_error_set(c->err, code, "in %s: %s", c->in->inner, msg) : sv_error_set(c->err, code, "%s", msg);
	sv_error_locate(c->err, c->in->name, -1, (long long)off);
	return rc;
}

/* ---- the logfile header (etl.md §5) ---- */

static int read_logfile_header(etl_ctx *c)
{
	const unsigned char *f = c->file;
	if (c->flen < BUF_HDR + 32)
		return fail(c, SV_EFORMAT, c->flen, "not an ETL file: too short for a buffer header");
	uint32_t bsize = rd32(f), fill = rd32(f + 0x30);
	if (rd16(f + 0x34) & 0x40)
		return fail(c, SV_EFORMAT, 0x34, "not an ETL file: the first buffer is compressed");
	if (bsize < BUF_HDR + 32 || fill < BUF_HDR + 32 || fill > bsize)
		return fail(c, SV_EFORMAT, 0, "not an ETL file: first buffer size %" PRIu32 ", fill %" PRIu32, bsize, fill);
	if (bsize > c->flen)
		return fail(c, SV_EFORMAT, c->flen, "truncated ETL file: the first buffer needs %" PRIu32 " bytes", bsize);
	const unsigned char *r = f + BUF_HDR;
	int ht = r[2];
	if (r[3] != 0xC0 || (ht != 1 && ht != 2) || rd16(r + 6) != 0)
		return fail(c, SV_EFORMAT, BUF_HDR, "not an ETL file: no trace header event at the start");
	size_t rsize = rd16(r + 4);
	if (rsize < 32 || rsize > fill - BUF_HDR)
		return fail(c, SV_EFORMAT, BUF_HDR + 4, "corrupt ETL trace header: event size %zu", rsize);
	c->hdr_ts = rd64(r + 16);
	const unsigned char *p = r + 32;
	size_t plen = rsize - 32;
	if (plen < 0x30)
		return fail(c, SV_EFORMAT, BUF_HDR + 32, "corrupt ETL trace header: %zu bytes", plen);
	c->ptr = rd32(p + 0x2C);
	if (c->ptr != 4 && c->ptr != 8)
		return fail(c, SV_EFORMAT, BUF_HDR + 32 + 0x2C, "corrupt ETL trace header: pointer size %u", c->ptr);
	size_t need = c->ptr == 8 ? 0x118 : 0x110;
	if (plen < need)
		return fail(c, SV_EFORMAT, BUF_HDR + 32, "corrupt ETL trace header: %zu bytes, expected %zu", plen, need);
	c->os_major = p[4];
	c->os_minor = p[5];
	c->build = rd32(p + 8);
	c->ncpus = rd32(p + 0x0C);
	if (c->os_major < 6 || (c->os_major == 6 && c->os_minor < 1))
		return fail(c, SV_EUNSUPPORTED, BUF_HDR + 36,
			    "ETL files from Windows %u.%u are not supported (Windows 7 / 6.1 or later)", c->os_major,
			    c->os_minor);
	size_t o = c->ptr == 8 ? 0x100 : 0xF8;
	uint64_t perf = rd64(p + o);
	uint32_t clock = rd32(p + o + 0x10);
	uint32_t mhz = rd32(p + 0x34);
	c->freq = clock == 2 ? 1e7 : clock == 3 ? (double)mhz * 1e6 : (double)perf;
	if (!(c->freq > 0))
		return fail(c, SV_EFORMAT, BUF_HDR + 32 + o, "corrupt ETL trace header: clock frequency 0");
	c->compression = rd16(f + 0x2C);
	return 0;
}

/* ---- buffers and streams (etl.md §3) ---- */

static int walk_buffers(etl_ctx *c)
{
	size_t off = 0;
	while (off + BUF_HDR <= c->flen) {
		const unsigned char *h = c->file + off;
		uint32_t size = rd32(h);
		if (size == 0)
			break;
		if (size < BUF_HDR) {
			if (c->nbufs == 0)
				return fail(c, SV_EFORMAT, off, "corrupt ETL buffer: size %" PRIu32 " is smaller than its header", size);
			warnf(c, W_BUFFER, "buffer at byte offset %zu: size %" PRIu32 " is smaller than its header; rest of the file skipped", off, size);
			return 0;
		}
		if (size > c->flen - off) {
			warnf(c, W_BUFFER, "truncated buffer at byte offset %zu: needs %" PRIu32 " bytes, %zu left", off, size,
			      c->flen - off);
			return 0;
		}
		uint16_t flags = rd16(h + 0x34);
		uint32_t fill = rd32(h + 0x30);
		bool comp = flags & 0x40;
		if (fill < BUF_HDR || (!comp && fill > size) || fill - BUF_HDR > MAX_BUF_BYTES) {
			warnf(c, W_BUFFER, "buffer at byte offset %zu: fill level %" PRIu32 " out of range; skipped", off, fill);
		} else {
			if (grow(&c->bufs, &c->bufcap, c->nbufs + 1, sizeof(*c->bufs)))
				return SV_ENOMEM;
			uint32_t cpu = (flags & 0x20) ? rd16(h + 0x28) : h[0x28];
			c->bufs[c->nbufs] = (etl_buf){ off, size, fill, rd64(h + 0x18), cpu, (uint32_t)c->nbufs, comp };
			c->nbufs++;
			c->ncompressed += comp;
		}
		off += size;
	}
	if (off < c->flen && c->flen - off >= BUF_HDR && rd32(c->file + off) == 0)
		return 0;
	if (off < c->flen && c->flen - off < BUF_HDR)
		warnf(c, W_BUFFER, "%zu stray bytes at the end of the file (byte offset %zu)", c->flen - off, off);
	return 0;
}

static int buf_cmp(const void *a, const void *b)
{
	const etl_buf *x = a, *y = b;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Load the next buffer of a stream; 1 loaded, 0 none left, <0 fatal. */
static int stream_load(etl_ctx *c, stream *s)
{
	while (s->next < s->nbufs) {
		const etl_buf *b = &c->bufs[s->bufs[s->next++]];
		c->loaded += b->size;
		int prc = sv_input_progress(c->in, c->loaded, c->err);
		if (prc)
			return prc;
		s->cur = b->index;
		s->pos = 0;
		size_t outlen = b->fill - BUF_HDR;
		if (!b->compressed) {
			s->data = c->file + b->off + BUF_HDR;
			s->len = outlen;
			c->event_bytes += outlen;
			return 1;
		}
		if (c->compression != 3 && c->compression != 0)
			return fail(c, SV_EUNSUPPORTED, b->off,
				    "compressed buffer in format %d (%s) is not supported; only Xpress (3) is", c->compression,
				    c->compression == 2 ? "LZNT1" : c->compression == 4 ? "Xpress-Huffman" : "unknown");
		/* Xpress can expand a few bytes into megabytes: bound the whole trace's events as
		 * a zip's entry is bounded (1000x the file, at most SV_MAX_INPUT_BYTES). */
		unsigned long long limit = (unsigned long long)c->flen * MAX_RATIO + (1ULL << 20);
		if (limit > SV_MAX_INPUT_BYTES)
			limit = SV_MAX_INPUT_BYTES;
		if (c->event_bytes + outlen > limit)
			return fail(c, SV_ELIMIT, b->off, "decompressed events exceed %llu bytes (%ux the file; limit)", limit,
				    MAX_RATIO);
		if (outlen > s->owncap) {
			if (c->inflight - s->owncap + outlen > (size_t)1 << 30)
				return fail(c, SV_ELIMIT, b->off, "decompressed buffers in flight exceed 1 GiB");
			free(s->own);
			c->inflight -= s->owncap;
			s->owncap = 0;
			s->own = malloc(outlen ? outlen : 1);
			if (!s->own)
				return SV_ENOMEM;
			s->owncap = outlen;
			c->inflight += outlen;
		}
		size_t bad = 0;
		if (sv_xpress_decompress(c->file + b->off + BUF_HDR, b->size - BUF_HDR, s->own, outlen, &bad)) {
			warnf(c, W_DECOMPRESS, "corrupt compressed buffer at byte offset %zu (at byte %zu of its data); skipped",
			      b->off, bad);
			continue;
		}
		s->data = s->own;
		s->len = outlen;
		c->event_bytes += outlen;
		return 1;
	}
	s->data = NULL;
	return 0;
}

/* The next record of a stream into s->rec; 1, 0 at the end, <0 fatal. */
static int stream_next(etl_ctx *c, stream *s)
{
	for (;;) {
		if (!s->data) {
			int rc = stream_load(c, s);
			if (rc <= 0)
				return rc;
		}
		size_t pos = s->pos;
		if (pos >= s->len || s->len - pos < 8) {
			s->data = NULL;
			continue;
		}
		const unsigned char *p = s->data + pos;
		uint32_t m = rd32(p);
		if (m == 0xFFFFFFFFu) {
			s->data = NULL;
			continue;
		}
		unsigned fl = m >> 24, ht = (m >> 16) & 0xFF;
		size_t size, hdr;
		int kind = -1;
		if ((fl & 0xC0) == 0xC0) {
			switch (ht) {
			case 0x01: case 0x02: hdr = 32; size = rd16(p + 4); kind = REC_HOOK; break;
			case 0x03: case 0x04: hdr = 24; size = rd16(p + 4); kind = REC_HOOK; break;
			case 0x10: case 0x11: hdr = 16; size = rd16(p + 4); kind = REC_HOOK; break;
			case 0x0A: case 0x14: hdr = 48; size = rd16(p); kind = REC_CLASSIC; break;
			case 0x0B: case 0x15: hdr = 72; size = rd16(p); kind = REC_CLASSIC; break;
			case 0x12: case 0x13: hdr = 80; size = rd16(p); kind = REC_EVENT; break;
			case 0x0C: case 0x0D: case 0x0E: case 0x0F: hdr = 8; size = rd16(p); break;
			default:
				hdr = 8;
				size = rd16(p);
				warnf(c, W_KIND, "unknown event header kind 0x%02x at byte %zu of the buffer at byte offset %zu; skipped by size",
				      ht, pos + BUF_HDR, c->bufs[s->cur].off);
				break;
			}
		} else if ((fl & 0x80) && (fl & 0x10)) {
			hdr = 8;
			size = m & 0xFFFF;
		} else {
			warnf(c, W_RECORD, "corrupt event at byte %zu of the buffer at byte offset %zu; rest of the buffer skipped",
			      pos + BUF_HDR, c->bufs[s->cur].off);
			s->data = NULL;
			continue;
		}
		if (size < hdr || size > s->len - pos) {
			warnf(c, W_RECORD, "event size %zu at byte %zu of the buffer at byte offset %zu overruns it; rest skipped",
			      size, pos + BUF_HDR, c->bufs[s->cur].off);
			s->data = NULL;
			continue;
		}
		s->pos = pos + ((size + 7) & ~(size_t)7);
		c->records++;
		if (kind < 0)
			continue;
		etl_rec *r = &s->rec;
		memset(r, 0, sizeof(*r));
		r->kind = kind;
		r->cpu = c->bufs[s->cur].cpu;
		r->buf = s->cur;
		r->pos = pos;
		r->guid = -1;
		size_t pay = hdr;
		if (kind == REC_HOOK) {
			uint16_t ver = rd16(p);
			size_t ext = (ver & 0x8000 ? 8 : 0) + 8 * ((ver >> 8) & 7);
			if (ext > size - hdr) {
				warnf(c, W_RECORD, "event extension items overrun the event at byte %zu of the buffer at byte offset %zu",
				      pos + BUF_HDR, c->bufs[s->cur].off);
				continue;
			}
			pay += ext;
			r->ptr = (ht & 1) ? 4 : 8;
			r->version = ver & 0xFF;
			r->type = p[6];
			r->group = p[7];
			if (hdr == 16) {
				r->ts = rd64(p + 8);
			} else {
				r->tid = rd32(p + 8);
				r->pid = rd32(p + 12);
				r->ts = rd64(p + 16);
			}
		} else {
			r->ptr = (ht == 0x0A || ht == 0x0B || ht == 0x12) ? 4 : 8;
			r->tid = rd32(p + 8);
			r->pid = rd32(p + 12);
			r->ts = rd64(p + 16);
			r->guid_bytes = p + 0x18;
			r->guid = guid_index(p + 0x18);
			if (kind == REC_CLASSIC) {
				r->id = p[4];
				r->version = rd16(p + 6);
				if (r->guid >= 0 && known_guids[r->guid].group >= 0) {
					r->kind = REC_HOOK;
					r->group = known_guids[r->guid].group;
					r->type = p[4];
				}
			} else {
				r->id = rd16(p + 0x28);
				r->version = p[0x2A];
				if (rd16(p + 4) & 1) { /* extended data items (etl.md §4.5) */
					for (;;) {
						if (size - pay < 8) {
							pay = SIZE_MAX;
							break;
						}
						size_t isz = rd16(p + pay);
						uint16_t link = rd16(p + pay + 4);
						if (isz < 8 || isz > size - pay) {
							pay = SIZE_MAX;
							break;
						}
						pay += isz;
						if (!(link & 1))
							break;
					}
					if (pay == SIZE_MAX) {
						warnf(c, W_RECORD, "corrupt extended data at byte %zu of the buffer at byte offset %zu",
						      pos + BUF_HDR, c->bufs[s->cur].off);
						continue;
					}
				}
			}
		}
		r->payload = p + pay;
		r->plen = size - pay;
		return 1;
	}
}

/* Heap of streams ordered by (timestamp, buffer in file order, position). */
static bool rec_before(const etl_rec *a, const etl_rec *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts;
	if (a->buf != b->buf)
		return a->buf < b->buf;
	return a->pos < b->pos;
}

static void heap_down(etl_ctx *c, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < c->nheap && rec_before(&c->streams[c->heap[l]].rec, &c->streams[c->heap[m]].rec))
			m = l;
		if (l + 1 < c->nheap && rec_before(&c->streams[c->heap[l + 1]].rec, &c->streams[c->heap[m]].rec))
			m = l + 1;
		if (m == i)
			return;
		uint32_t t = c->heap[i];
		c->heap[i] = c->heap[m];
		c->heap[m] = t;
		i = m;
	}
}

/* ---- address stacks ---- */

static bool is_kernel(const etl_ctx *c, uint64_t a)
{
	return c->ptr == 8 ? a >= 0xFFFF000000000000ULL : a >= 0x80000000ULL;
}

static int intern_addrs(etl_ctx *c, uint32_t *out, const unsigned char *p, size_t n, unsigned ptr)
{
	uint64_t h = 1469598103934665603ULL;
	if (grow(&c->addrs, &c->addrcap, c->naddrs + n, sizeof(*c->addrs)))
		return SV_ENOMEM;
	uint64_t *a = c->addrs + c->naddrs;
	for (size_t i = 0; i < n; i++) {
		a[i] = rdptr(p + i * ptr, ptr);
		h = (h ^ a[i]) * 1099511628211ULL;
	}
	h = sv_hash_mix64(h ^ n);
	uint32_t head = sv_idmap_get(&c->as_index, h);
	for (uint32_t id = head; id != SV_IDMAP_NONE && id != 0; id = c->as_next[id - 1]) {
		uint32_t k = id - 1;
		if (c->as_len[k] == n && memcmp(c->addrs + c->as_start[k], a, n * sizeof(*a)) == 0) {
			*out = k;
			return 0;
		}
	}
	if (c->nas >= AS_NOSTACK - 1)
		return fail(c, SV_ELIMIT, 0, "too many distinct stacks");
	if (grow(&c->as_start, &c->ascap, c->nas + 1, sizeof(*c->as_start)) ||
	    grow(&c->as_len, &c->aslencap, c->nas + 1, sizeof(*c->as_len)) ||
	    grow(&c->as_next, &c->asnextcap, c->nas + 1, sizeof(*c->as_next)))
		return SV_ENOMEM;
	uint32_t k = (uint32_t)c->nas++;
	c->as_start[k] = c->naddrs;
	c->as_len[k] = (uint32_t)n;
	c->as_next[k] = head == SV_IDMAP_NONE ? 0 : head;
	c->naddrs += n;
	*out = k;
	return sv_idmap_put(&c->as_index, h, k + 1);
}

/* ---- samples and stack stitching (etl.md §9) ---- */

static uint32_t list_get(const sv_idmap *m, uint64_t key)
{
	uint32_t v = sv_idmap_get(m, key);
	return v == SV_IDMAP_NONE ? 0 : v;
}

static esample *find_sample(etl_ctx *c, uint64_t ts, uint32_t tid)
{
	uint32_t v = list_get(&c->by_ts, ts);
	for (int i = 0; v && i < MAX_CHAIN; i++) {
		esample *s = &c->samples[v - 1];
		if (s->tid == tid)
			return s;
		v = s->next_ts;
	}
	return NULL;
}

static int push_pending(etl_ctx *c, esample *s)
{
	if (s->state & IN_PEND)
		return 0;
	s->state |= IN_PEND;
	s->next_pend = list_get(&c->pend, s->tid);
	return sv_idmap_put(&c->pend, s->tid, (uint32_t)(s - c->samples) + 1);
}

static int push_wait(etl_ctx *c, esample *s, uint64_t key, bool kernel)
{
	uint8_t bit = kernel ? IN_KW : IN_UW;
	if (s->state & bit)
		return 0;
	s->state |= bit;
	sv_idmap *m = kernel ? &c->kwait : &c->uwait;
	uint32_t head = list_get(m, key);
	if (kernel)
		s->next_kw = head;
	else
		s->next_uw = head;
	return sv_idmap_put(m, key, (uint32_t)(s - c->samples) + 1);
}

static int on_sample(etl_ctx *c, const etl_rec *r)
{
	unsigned P = c->ptr;
	if (r->plen < P + 7) {
		warnf(c, W_PAYLOAD, "short SampledProfile event at byte %zu of the buffer at byte offset %zu", r->pos + BUF_HDR,
		      c->bufs[r->buf].off);
		return 0;
	}
	c->raw_samples++;
	uint32_t tid = rd32(r->payload + P);
	uint8_t flags = r->payload[P + 6];
	if (tid == 0 && !(flags & 3)) {
		c->idle_samples++;
		return 0;
	}
	if (c->nsamples >= SV_MAX_SAMPLES)
		return fail(c, SV_ELIMIT, c->bufs[r->buf].off, "more than %u samples", SV_MAX_SAMPLES);
	if (grow(&c->samples, &c->samplecap, c->nsamples + 1, sizeof(*c->samples)))
		return SV_ENOMEM;
	esample *s = &c->samples[c->nsamples];
	memset(s, 0, sizeof(*s));
	s->ts = r->ts;
	s->ip = rdptr(r->payload, P);
	s->tid = tid;
	s->flags = flags & 3;
	s->cpu = (uint16_t)r->cpu;
	s->kid = s->uid = AS_NONE;
	s->next_ts = list_get(&c->by_ts, r->ts);
	c->nsamples++;
	return sv_idmap_put(&c->by_ts, r->ts, (uint32_t)c->nsamples);
}

static int on_stackwalk(etl_ctx *c, const etl_rec *r)
{
	unsigned P = c->ptr;
	const unsigned char *p = r->payload;
	int rc = 0;
	if (r->type == 35 || r->type == 36) { /* a stack key's definition */
		if (r->plen < 2 * (size_t)P)
			return 0;
		c->keydefs++;
		uint64_t key = rdptr(p, P);
		size_t n = (r->plen - P) / P;
		uint32_t aid;
		if ((rc = intern_addrs(c, &aid, p + P, n, P)))
			return rc;
		bool kernel = is_kernel(c, rdptr(p + P + (n - 1) * P, P));
		sv_idmap *m = kernel ? &c->kwait : &c->uwait;
		uint32_t v = list_get(m, key);
		if (!v)
			return 0;
		while (v) {
			esample *s = &c->samples[v - 1];
			if (kernel) {
				s->kid = aid;
				s->state &= (uint8_t)~IN_KW;
				v = s->next_kw;
			} else {
				s->uid = aid;
				s->state &= (uint8_t)~IN_UW;
				v = s->next_uw;
			}
		}
		return sv_idmap_put(m, key, 0);
	}
	if (r->plen < 16)
		return 0;
	uint64_t ets = rd64(p);
	uint32_t spid = rd32(p + 8), stid = rd32(p + 12);
	esample *s = find_sample(c, ets, stid);
	if (r->type == 32) {
		size_t n = (r->plen - 16) / P;
		if (n == 0)
			return 0;
		c->stacks32++;
		if (!s)
			return 0; /* the stack of some other event */
		s->spid = spid + 1;
		uint32_t aid;
		if ((rc = intern_addrs(c, &aid, p + 16, n, P)))
			return rc;
		if (is_kernel(c, rdptr(p + 16 + (n - 1) * P, P))) { /* kernel half: the user half comes later */
			s->kid = aid;
			if (spid == 0 || spid == 4)
				s->uid = AS_EMPTY;
			else if (s->uid == AS_NONE)
				rc = push_pending(c, s);
		} else if (!is_kernel(c, rdptr(p + 16, P))) { /* user half: completes the thread's pending samples */
			uint32_t v = list_get(&c->pend, stid);
			while (v) {
				esample *q = &c->samples[v - 1];
				q->state &= (uint8_t)~IN_PEND;
				if (q->uid == AS_NONE)
					q->uid = aid;
				v = q->next_pend;
			}
			if ((rc = sv_idmap_put(&c->pend, stid, 0)))
				return rc;
			if (s->uid == AS_NONE)
				s->uid = aid;
		} else { /* kernel and user frames in one record */
			s->kid = AS_EMPTY;
			s->uid = aid;
		}
		return rc;
	}
	if (r->plen < 16 + (size_t)P || (r->type != 37 && r->type != 38))
		return 0;
	c->keyrefs++;
	uint64_t key = rdptr(p + 16, P);
	if (r->type == 37) {
		if (!s)
			return 0;
		s->spid = spid + 1;
		if ((rc = push_wait(c, s, key, true)))
			return rc;
		if (spid == 0 || spid == 4)
			s->uid = AS_EMPTY;
		else if (s->uid == AS_NONE)
			rc = push_pending(c, s);
		return rc;
	}
	uint32_t v = list_get(&c->pend, stid);
	while (v) {
		esample *q = &c->samples[v - 1];
		q->state &= (uint8_t)~IN_PEND;
		uint32_t next = q->next_pend;
		if (q->uid == AS_NONE && (rc = push_wait(c, q, key, false)))
			return rc;
		v = next;
	}
	if ((rc = sv_idmap_put(&c->pend, stid, 0)))
		return rc;
	if (s) {
		s->spid = spid + 1;
		if (s->uid == AS_NONE)
			rc = push_wait(c, s, key, false);
	}
	return rc;
}

/* ---- processes, threads, images, CLR methods ---- */

static int on_process(etl_ctx *c, const etl_rec *r)
{
	unsigned P = c->ptr;
	const unsigned char *p = r->payload;
	size_t n = r->plen;
	if (r->version < 2 || n < P + 16)
		return 0;
	uint32_t pid = rd32(p + P);
	size_t sid = r->version >= 4 ? 2 * P + 20 : r->version == 3 ? 2 * P + 16 : P + 16;
	bool wow64 = r->version >= 4 && n >= 2 * P + 20 && (rd32(p + 2 * P + 16) & 2);
	if (sid + 4 > n) {
		warnf(c, W_PAYLOAD, "short Process event for pid %" PRIu32, pid);
		return 0;
	}
	size_t name = sid + 4;
	if (rd32(p + sid) != 0) {
		if (sid + 2 * P + 2 > n) {
			warnf(c, W_PAYLOAD, "short Process event for pid %" PRIu32, pid);
			return 0;
		}
		name = sid + 2 * P + 8 + 4 * (size_t)p[sid + 2 * P + 1];
	}
	if (name > n) {
		warnf(c, W_PAYLOAD, "Process event for pid %" PRIu32 ": SID overruns the event", pid);
		return 0;
	}
	const unsigned char *nm = p + name;
	size_t nl = strnlen((const char *)nm, n - name);
	size_t cmd = name + nl + (nl < n - name);
	bool update = r->type == 2 || r->type == 4 || r->type == 39; /* End, DCEnd, Defunct */
	uint32_t last = list_get(&c->proc_by_pid, pid);
	if (update && last) {
		eproc *e = &c->procs[last - 1];
		if (e->image && e->image[0])
			return 0;
	} else {
		if (grow(&c->procs, &c->proccap, c->nprocs + 1, sizeof(*c->procs)))
			return SV_ENOMEM;
		last = (uint32_t)++c->nprocs;
		c->procs[last - 1] = (eproc){ .pid = pid, .ts = r->ts, .next = list_get(&c->proc_by_pid, pid) };
		int rc = sv_idmap_put(&c->proc_by_pid, pid, last);
		if (rc)
			return rc;
	}
	eproc *e = &c->procs[last - 1];
	free(e->image);
	free(e->cmdline);
	e->image = strndup((const char *)nm, nl);
	e->cmdline = dup_utf16(p + cmd, n - cmd, NULL);
	e->wow64 = wow64;
	return e->image && e->cmdline ? 0 : SV_ENOMEM;
}

static int on_thread(etl_ctx *c, const etl_rec *r)
{
	if (r->plen < 8)
		return 0;
	uint32_t pid = rd32(r->payload), tid = rd32(r->payload + 4);
	if (r->version == 0) {
		tid = rd32(r->payload);
		pid = rd32(r->payload + 4);
	}
	if (grow(&c->threads, &c->threadcap, c->nthreads + 1, sizeof(*c->threads)))
		return SV_ENOMEM;
	c->threads[c->nthreads] = (ethread){ tid, pid, r->ts, r->type == 1 || r->type == 3, list_get(&c->thread_by_tid, tid) };
	c->nthreads++;
	return sv_idmap_put(&c->thread_by_tid, tid, (uint32_t)c->nthreads);
}

static int on_image(etl_ctx *c, const etl_rec *r)
{
	unsigned P = c->ptr;
	const unsigned char *p = r->payload;
	size_t fname = r->version >= 2 ? 3 * (size_t)P + 32 : 2 * (size_t)P + 4;
	if (r->plen < fname)
		return 0;
	uint64_t base = rdptr(p, P), size = rdptr(p + P, P);
	uint32_t pid = rd32(p + 2 * P);
	uint64_t key = sv_hash_mix64(base) ^ pid;
	uint32_t head = list_get(&c->image_by_key, key);
	bool unload = r->group == 0x14 && r->type == 2, dcend = r->group == 0x14 && r->type == 4;
	for (uint32_t v = head, k = 0; (unload || dcend) && v && k < MAX_HISTORY; v = c->images[v - 1].next, k++) {
		eimage *im = &c->images[v - 1];
		if (im->pid != pid || im->base != base)
			continue;
		if (dcend) /* DCEnd adds only an image never seen */
			return 0;
		if (im->unload_ts == UINT64_MAX) {
			im->unload_ts = r->ts;
			return 0;
		}
	}
	if (unload)
		return 0;
	if (grow(&c->images, &c->imagecap, c->nimages + 1, sizeof(*c->images)))
		return SV_ENOMEM;
	char *path = dup_utf16(p + fname, r->plen - fname, NULL);
	if (!path)
		return SV_ENOMEM;
	c->images[c->nimages++] = (eimage){ pid, base, size, r->ts, UINT64_MAX, path, head };
	return sv_idmap_put(&c->image_by_key, key, (uint32_t)c->nimages);
}

/* The module a JIT method belongs to, or NULL. */
static const emodule *find_module(const etl_ctx *c, uint32_t pid, uint64_t id)
{
	uint32_t v = list_get(&c->module_by_key, sv_hash_mix64(id) ^ pid);
	for (int k = 0; v && k < MAX_HISTORY; v = c->modules[v - 1].next, k++)
		if (c->modules[v - 1].id == id && c->modules[v - 1].pid == pid)
			return &c->modules[v - 1];
	return NULL;
}

static int on_clr(etl_ctx *c, const etl_rec *r)
{
	const unsigned char *p = r->payload;
	size_t n = r->plen;
	bool method = r->id == 143 || (r->guid == G_CLR_RUNDOWN && r->id == 144);
	bool module = (r->guid == G_CLR && r->id == 152) || (r->guid == G_CLR_RUNDOWN && (r->id == 153 || r->id == 154));
	if (method && n >= 36) {
		size_t u1 = 0, u2 = 0;
		char *ns = dup_utf16(p + 36, n - 36, &u1);
		char *nm = ns ? dup_utf16(p + 36 + u1, n - 36 - u1, &u2) : NULL;
		char *sig = nm ? dup_utf16(p + 36 + u1 + u2, n - 36 - u1 - u2, NULL) : NULL;
		int rc = 0;
		if (!sig || grow(&c->methods, &c->methodcap, c->nmethods + 1, sizeof(*c->methods))) {
			rc = SV_ENOMEM;
		} else {
			/* Namespace.Name(args): the arguments are what the signature has in parentheses. */
			const char *open = strchr(sig, '('), *close = strrchr(sig, ')');
			size_t al = open && close && close > open ? (size_t)(close - open - 1) : 0;
			size_t len = strlen(ns) + strlen(nm) + al + 4;
			char *full = malloc(len);
			if (!full) {
				rc = SV_ENOMEM;
			} else {
				snprintf(full, len, "%s%s%s(%.*s)", ns, ns[0] ? "." : "", nm, (int)al, open ? open + 1 : "");
				c->methods[c->nmethods++] = (emethod){ r->pid, rd64(p + 16), rd32(p + 24), rd64(p + 8), r->ts, full };
			}
		}
		free(ns);
		free(nm);
		free(sig);
		return rc;
	}
	if (module && n >= 24) {
		uint64_t id = rd64(p);
		if (find_module(c, r->pid, id))
			return 0;
		if (grow(&c->modules, &c->modulecap, c->nmodules + 1, sizeof(*c->modules)))
			return SV_ENOMEM;
		char *path = dup_utf16(p + 24, n - 24, NULL);
		if (!path)
			return SV_ENOMEM;
		uint64_t key = sv_hash_mix64(id) ^ r->pid;
		c->modules[c->nmodules++] = (emodule){ r->pid, id, path, list_get(&c->module_by_key, key) };
		return sv_idmap_put(&c->module_by_key, key, (uint32_t)c->nmodules);
	}
	return 0;
}

static int on_volume(etl_ctx *c, const etl_rec *r)
{
	size_t u = 0;
	char *nt = dup_utf16(r->payload, r->plen, &u);
	char *dos = nt ? dup_utf16(r->payload + u, r->plen - u, NULL) : NULL;
	if (!dos || grow(&c->vol_nt, &c->volcap, c->nvols + 1, sizeof(char *)) ||
	    !(c->vol_dos = realloc(c->vol_dos, c->volcap * sizeof(char *)))) {
		free(nt);
		free(dos);
		return SV_ENOMEM;
	}
	if (!nt[0] || !dos[0]) {
		free(nt);
		free(dos);
		return 0;
	}
	c->vol_nt[c->nvols] = nt;
	c->vol_dos[c->nvols++] = dos;
	return 0;
}

static int count_kind(etl_ctx *c, const etl_rec *r)
{
	uint64_t key;
	if (r->kind == REC_HOOK)
		key = 1ULL << 63 | (uint64_t)r->group << 8 | (uint64_t)r->type;
	else
		key = sv_hash_bytes((const char *)r->guid_bytes, 16) ^ ((uint64_t)r->id * 0x9E3779B97F4A7C15ULL) ^
		      (uint64_t)r->kind;
	key &= ~(uint64_t)0 >> 1 | (r->kind == REC_HOOK ? 1ULL << 63 : 0);
	uint32_t k = sv_idmap_get(&c->kind_index, key);
	if (k != SV_IDMAP_NONE) {
		c->kinds[k].count++;
		return 0;
	}
	char name[160];
	if (r->kind == REC_HOOK) {
		const char *g = group_name(r->group), *e = hook_event_name(r->group, r->type);
		char gb[16], eb[24];
		if (!g)
			snprintf(gb, sizeof(gb), "Group(%d)", r->group), g = gb;
		if (!e)
			snprintf(eb, sizeof(eb), "Opcode(%d)", r->type), e = eb;
		if (r->group == 0x03 && r->type == 10) /* Image Load is logged under the Process group */
			g = "Image", e = "Load";
		snprintf(name, sizeof(name), "Windows Kernel/%s/%s", g, e);
	} else {
		char gb[40];
		const char *g = r->guid >= 0 ? known_guids[r->guid].name : NULL;
		if (!g) {
			const unsigned char *b = r->guid_bytes;
			snprintf(gb, sizeof(gb), "%08" PRIx32 "-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", rd32(b), rd16(b + 4),
				 rd16(b + 6), b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
			g = gb;
		}
		snprintf(name, sizeof(name), "%s/%s(%d)", g, r->kind == REC_EVENT ? "Event" : "Opcode", r->id);
	}
	if (grow(&c->kinds, &c->kindcap, c->nkinds + 1, sizeof(*c->kinds)))
		return SV_ENOMEM;
	char *dup = strdup(name);
	if (!dup)
		return SV_ENOMEM;
	c->kinds[c->nkinds] = (ekind){ key, dup, 1 };
	return sv_idmap_put(&c->kind_index, key, (uint32_t)c->nkinds++);
}

static int on_record(etl_ctx *c, const etl_rec *r)
{
	int rc = count_kind(c, r);
	if (rc)
		return rc;
	if (r->kind == REC_HOOK) {
		switch (r->group) {
		case 0x0F:
			if (r->type == 46)
				return on_sample(c, r);
			if ((r->type == 72 || r->type == 73) && r->plen >= 8 && rd32(r->payload) == 0 && rd32(r->payload + 4))
				c->interval = rd32(r->payload + 4);
			return 0;
		case 0x18:
			return on_stackwalk(c, r);
		case 0x03:
			if (r->type == 10)
				return on_image(c, r);
			if (r->type == 1 || r->type == 2 || r->type == 3 || r->type == 4 || r->type == 39)
				return on_process(c, r);
			return 0;
		case 0x05:
			return r->type >= 1 && r->type <= 4 ? on_thread(c, r) : 0;
		case 0x14:
			return r->type >= 2 && r->type <= 4 ? on_image(c, r) : 0;
		default:
			return 0;
		}
	}
	if (r->kind == REC_EVENT && (r->guid == G_CLR || r->guid == G_CLR_RUNDOWN))
		return on_clr(c, r);
	if (r->kind == REC_CLASSIC && r->guid == G_SYSCONFIGEX && r->id == 35)
		return on_volume(c, r);
	return 0;
}

static int read_events(etl_ctx *c)
{
	if (c->nbufs)
		qsort(c->bufs, c->nbufs, sizeof(*c->bufs), buf_cmp);
	uint32_t *order = malloc((c->nbufs ? c->nbufs : 1) * sizeof(*order));
	c->streams = calloc(c->nbufs ? c->nbufs : 1, sizeof(*c->streams));
	c->heap = malloc((c->nbufs ? c->nbufs : 1) * sizeof(*c->heap));
	if (!order || !c->streams || !c->heap) {
		free(order);
		return SV_ENOMEM;
	}
	/* Buffers stay sorted; records name buffers by file order, so re-index them. */
	etl_buf *byfile = malloc((c->nbufs ? c->nbufs : 1) * sizeof(*byfile));
	if (!byfile) {
		free(order);
		return SV_ENOMEM;
	}
	for (size_t i = 0; i < c->nbufs; i++) {
		byfile[c->bufs[i].index] = c->bufs[i];
		order[i] = c->bufs[i].index;
	}
	for (size_t i = 0; i < c->nbufs;) {
		size_t j = i;
		while (j < c->nbufs && c->bufs[j].cpu == c->bufs[i].cpu)
			j++;
		stream *s = &c->streams[c->nstreams++];
		s->bufs = order + i;
		s->nbufs = j - i;
		i = j;
	}
	free(c->bufs);
	c->bufs = byfile;
	int rc = 0;
	for (size_t i = 0; i < c->nstreams; i++) {
		rc = stream_next(c, &c->streams[i]);
		if (rc < 0)
			goto out;
		if (rc == 1)
			c->heap[c->nheap++] = (uint32_t)i;
	}
	rc = 0;
	for (size_t i = c->nheap; i-- > 0;)
		heap_down(c, i);
	while (c->nheap) {
		stream *s = &c->streams[c->heap[0]];
		if ((rc = on_record(c, &s->rec)))
			goto out;
		rc = stream_next(c, s);
		if (rc < 0)
			goto out;
		if (rc == 0)
			c->heap[0] = c->heap[--c->nheap];
		rc = 0;
		heap_down(c, 0);
	}
out:
	for (size_t i = 0; i < c->nstreams; i++)
		free(c->streams[i].own);
	free(order);
	return rc;
}

/* ---- the second pass: names and stacks ---- */

typedef struct emit {
	etl_ctx *c;
	pid_index *img_pids; /* images sorted by (pid, base) */
	size_t nimg_pids;
	pid_index *meth_pids;
	size_t nmeth_pids;
	sv_frame_id broken;
} emit;

static int image_cmp(const void *a, const void *b)
{
	const eimage *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return x->load_ts < y->load_ts ? -1 : x->load_ts > y->load_ts;
}

static int method_cmp(const void *a, const void *b)
{
	const emethod *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int build_pid_index(pid_index **out, size_t *n, const void *arr, size_t count, size_t size)
{
	*out = NULL;
	*n = 0;
	size_t cap = 0;
	for (size_t i = 0; i < count; i++) {
		uint32_t pid = *(const uint32_t *)((const char *)arr + i * size); /* pid is the first member */
		if (*n && (*out)[*n - 1].pid == pid) {
			(*out)[*n - 1].n++;
			continue;
		}
		if (grow(out, &cap, *n + 1, sizeof(**out)))
			return SV_ENOMEM;
		(*out)[(*n)++] = (pid_index){ pid, (uint32_t)i, 1 };
	}
	return 0;
}

static const pid_index *find_pid(const pid_index *idx, size_t n, uint32_t pid)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (idx[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && idx[lo].pid == pid ? &idx[lo] : NULL;
}

/* The image holding addr in pid at time ts: among those containing it, the latest loaded at
 * or before ts (not unloaded before it), else the earliest. */
static const eimage *find_image(const emit *e, uint32_t pid, uint64_t addr, uint64_t ts)
{
	const pid_index *pi = find_pid(e->img_pids, e->nimg_pids, pid);
	if (!pi)
		return NULL;
	const eimage *im = e->c->images + pi->first;
	size_t lo = 0, hi = pi->n;
	while (lo < hi) { /* first image with base > addr */
		size_t mid = (lo + hi) / 2;
		if (im[mid].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	const eimage *best = NULL;
	for (size_t i = lo, k = 0; i-- > 0 && k < MAX_OVERLAP; k++) {
		const eimage *x = &im[i];
		if (addr - x->base >= x->size)
			continue;
		bool live = x->load_ts <= ts && ts < x->unload_ts;
		bool best_live = best && best->load_ts <= ts && ts < best->unload_ts;
		if (!best || (live && (!best_live || x->load_ts > best->load_ts)) ||
		    (!live && !best_live && x->load_ts < best->load_ts))
			best = x;
	}
	return best;
}

static const emethod *find_method(const emit *e, uint32_t pid, uint64_t addr, uint64_t ts)
{
	const pid_index *pi = find_pid(e->meth_pids, e->nmeth_pids, pid);
	if (!pi)
		return NULL;
	const emethod *m = e->c->methods + pi->first;
	size_t lo = 0, hi = pi->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	const emethod *best = NULL;
	for (size_t i = lo, k = 0; i-- > 0 && k < MAX_OVERLAP; k++) {
		const emethod *x = &m[i];
		if (addr - x->start >= x->size)
			continue;
		if (!best || (x->ts <= ts && (best->ts > ts || x->ts > best->ts)))
			best = x;
	}
	return best;
}

/* "C:\dir\name.ext" -> appends "C:\dir\name" (NT device prefixes mapped to drive letters). */
static void append_module(const etl_ctx *c, char *out, size_t cap, size_t *len, const char *path)
{
	const char *rest = path;
	const char *dos = "";
	for (size_t i = 0; i < c->nvols; i++) {
		size_t l = strlen(c->vol_nt[i]);
		if (strncasecmp(path, c->vol_nt[i], l) == 0) {
			dos = c->vol_dos[i];
			rest = path + l;
			break;
		}
	}
	const char *base = rest;
	for (const char *q = rest; *q; q++)
		if (*q == '\\' || *q == '/')
			base = q + 1;
	const char *dot = strrchr(base, '.');
	size_t rl = dot && dot != base ? (size_t)(dot - rest) : strlen(rest);
	int n = snprintf(out + *len, cap - *len, "%s%.*s", dos, (int)rl, rest);
	if (n > 0)
		*len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

static const char *base_name(const char *path)
{
	const char *b = path;
	for (const char *q = path; *q; q++)
		if (*q == '\\' || *q == '/')
			b = q + 1;
	return b;
}

static int intern_name(emit *e, sv_frame_id *out, const char *name)
{
	return e->c->sink->ops->intern_frame(e->c->sink->self, out, name, strlen(name));
}

/* The frame of one address. */
static int address_frame(emit *e, sv_frame_id *out, uint32_t pid, uint64_t addr, uint64_t ts)
{
	etl_ctx *c = e->c;
	char buf[1024];
	size_t len = 0;
	bool kernel = is_kernel(c, addr);
	const eimage *im = find_image(e, kernel ? 0 : pid, addr, ts);
	const emethod *m = NULL;
	if (!im && !kernel)
		m = find_method(e, pid, addr, ts);
	if (im) {
		append_module(c, buf, sizeof(buf), &len, im->path);
		snprintf(buf + len, sizeof(buf) - len, "!?");
	} else if (m) {
		const emodule *mod = find_module(c, pid, m->module);
		const char *path = mod ? mod->path : NULL;
		if (path && path[0])
			append_module(c, buf, sizeof(buf), &len, path);
		else
			buf[len++] = '?';
		snprintf(buf + len, sizeof(buf) - len, "!%s", m->name);
	} else {
		snprintf(buf, sizeof(buf), "?!?");
	}
	return intern_name(e, out, buf);
}

/* Is the outermost frame a plausible thread start (semantics §1.3)? */
static bool complete_stack(emit *e, uint32_t pid, uint64_t addr, uint64_t ts, const char *exe)
{
	const eimage *im = find_image(e, is_kernel(e->c, addr) ? 0 : pid, addr, ts);
	if (!im)
		return false;
	const char *b = base_name(im->path);
	if (strcasecmp(b, "ntdll.dll") == 0)
		return true;
	if (exe && exe[0] && strcasecmp(b, exe) == 0)
		return true;
	return (pid == 0 || pid == 4) && (strcasecmp(b, "ntoskrnl.exe") == 0 || strcasecmp(b, "ntkrnlmp.exe") == 0);
}

static const eproc *find_proc(const etl_ctx *c, uint32_t pid, uint64_t ts)
{
	const eproc *best = NULL, *first = NULL;
	uint32_t k = 0;
	for (uint32_t v = list_get(&c->proc_by_pid, pid); v && k < MAX_HISTORY; v = c->procs[v - 1].next, k++) {
		const eproc *p = &c->procs[v - 1];
		first = p; /* the list runs newest to oldest */
		if (p->ts <= ts && (!best || p->ts > best->ts))
			best = p;
	}
	return best ? best : first;
}

/* tid -> pid at time ts: the latest Start/DCStart at or before ts, else the first thread
 * event after it (back-filling, etl.md §10). */
static bool thread_pid(const etl_ctx *c, uint32_t tid, uint64_t ts, uint32_t *pid)
{
	const ethread *best = NULL, *after = NULL;
	uint32_t k = 0;
	for (uint32_t v = list_get(&c->thread_by_tid, tid); v && k < MAX_HISTORY; v = c->threads[v - 1].next, k++) {
		const ethread *t = &c->threads[v - 1];
		if (t->start && t->ts <= ts) {
			if (!best || t->ts > best->ts)
				best = t;
		} else if (t->ts > ts && (!after || t->ts < after->ts)) {
			after = t;
		}
	}
	if (!best)
		best = after;
	if (!best)
		return false;
	*pid = best->pid;
	return true;
}

typedef struct ethr {
	uint32_t pid, tid;
	size_t samples;
	sv_stack_id stack; /* Process -> Thread */
	bool made;
} ethr;

static int emit_samples(etl_ctx *c, size_t *with_stack, size_t *jit_leaf, size_t *broken_count)
{
	emit e = { .c = c };
	int rc = 0;
	sv_idmap thr_index, pair_index, memo;
	sv_idmap_init(&thr_index);
	sv_idmap_init(&pair_index);
	sv_idmap_init(&memo);
	ethr *thr = NULL;
	size_t nthr = 0, thrcap = 0, npairs = 0, nmemo = 0, memocap = 0;
	struct {
		sv_stack_id stack;
		bool broken;
	} *memo_st = NULL; /* memoized stacks: (thread, kernel/user pair) -> stack */
	uint32_t *spid = NULL; /* per sample: pid */
	uint32_t *sthr = NULL; /* per sample: thread index */
	double ms = c->interval ? (double)c->interval / 1e4 : 1.0;

	if (c->nimages)
		qsort(c->images, c->nimages, sizeof(*c->images), image_cmp);
	if (c->nmethods)
		qsort(c->methods, c->nmethods, sizeof(*c->methods), method_cmp);
	if ((rc = build_pid_index(&e.img_pids, &e.nimg_pids, c->images, c->nimages, sizeof(*c->images))) ||
	    (rc = build_pid_index(&e.meth_pids, &e.nmeth_pids, c->methods, c->nmethods, sizeof(*c->methods))))
		goto out;
	spid = malloc((c->nsamples ? c->nsamples : 1) * sizeof(*spid));
	sthr = malloc((c->nsamples ? c->nsamples : 1) * sizeof(*sthr));
	if (!spid || !sthr) {
		rc = SV_ENOMEM;
		goto out;
	}
	/* Threads and their sample counts first: thread frames say how much CPU they used. */
	for (size_t i = 0; i < c->nsamples; i++) {
		const esample *s = &c->samples[i];
		uint32_t pid = 0;
		if (!thread_pid(c, s->tid, s->ts, &pid))
			pid = s->spid ? s->spid - 1 : s->tid == 0 ? 0 : UINT32_MAX;
		spid[i] = pid;
		uint64_t key = (uint64_t)pid << 32 | s->tid;
		uint32_t t = sv_idmap_get(&thr_index, key);
		if (t == SV_IDMAP_NONE) {
			if ((rc = grow(&thr, &thrcap, nthr + 1, sizeof(*thr))))
				goto out;
			thr[nthr] = (ethr){ pid, s->tid, 0, SV_STACK_NONE, false };
			t = (uint32_t)nthr++;
			if ((rc = sv_idmap_put(&thr_index, key, t)))
				goto out;
		}
		thr[t].samples++;
		sthr[i] = t;
	}
	if (c->nsamples && (rc = intern_name(&e, &e.broken, "BROKEN")))
		goto out;
	if (c->nsamples)
		c->first_pid = spid[0];
	const sv_sink_ops *ops = c->sink->ops;
	void *self = c->sink->self;
	for (size_t i = 0; i < c->nsamples; i++) {
		const esample *s = &c->samples[i];
		ethr *t = &thr[sthr[i]];
		uint32_t pid = spid[i];
		uint32_t kid = s->kid, uid = s->uid;
		bool any = kid < AS_EMPTY || uid < AS_EMPTY;
		if (!any) { /* no stack: the IP alone, under BROKEN */
			unsigned char ipb[8];
			for (int b = 0; b < 8; b++)
				ipb[b] = (unsigned char)(s->ip >> (8 * b));
			if ((rc = intern_addrs(c, &uid, ipb, 1, 8)))
				goto out;
			kid = AS_NOSTACK;
		} else {
			(*with_stack)++;
		}
		uint64_t pkey = (uint64_t)kid << 32 | uid;
		uint32_t pair = sv_idmap_get(&pair_index, pkey);
		if (pair == SV_IDMAP_NONE) {
			pair = (uint32_t)npairs++;
			if ((rc = sv_idmap_put(&pair_index, pkey, pair)))
				goto out;
		}
		uint64_t mkey = (uint64_t)sthr[i] << 32 | pair;
		uint32_t st = sv_idmap_get(&memo, mkey);
		/* The process record is needed only to name a new thread or a new stack. */
		const eproc *pr = (!t->made || st == SV_IDMAP_NONE) && pid != UINT32_MAX ? find_proc(c, pid, s->ts) : NULL;
		if (!t->made) {
			char name[1200];
			const char *img = pr && pr->image ? pr->image : "";
			const char *dot = strrchr(img, '.');
			int il = dot && dot != img ? (int)(dot - img) : (int)strlen(img);
			/* Args: the command line without the program (quoted or up to the first blank). */
			const char *args = pr && pr->cmdline ? pr->cmdline : "";
			if (*args == '"') {
				const char *q = strchr(args + 1, '"');
				args = q ? q + 1 : args + strlen(args);
			} else {
				while (*args && *args != ' ')
					args++;
			}
			while (*args == ' ')
				args++;
			bool is32 = pr ? pr->wow64 || c->ptr == 4 : c->ptr == 4;
			if (pid == UINT32_MAX)
				snprintf(name, sizeof(name), "Process%d ? Args:", is32 ? 32 : 64);
			else
				snprintf(name, sizeof(name), "Process%d %.*s (%" PRIu32 ") Args:%s%.900s", is32 ? 32 : 64, il,
					 il ? img : "?", pid, args[0] ? " " : "", args);
			sv_frame_id pf, tf;
			sv_stack_id ps;
			if ((rc = intern_name(&e, &pf, name)))
				goto out;
			double cpu = (double)t->samples * ms;
			snprintf(name, sizeof(name), "Thread (%" PRIu32 ") CPU=%.0fms", t->tid, cpu);
			if ((rc = intern_name(&e, &tf, name)) || (rc = ops->intern_stack(self, &ps, SV_STACK_NONE, pf)) ||
			    (rc = ops->intern_stack(self, &t->stack, ps, tf)))
				goto out;
			t->made = true;
		}
		/* innermost first: kernel half then user half */
		size_t kn = kid < AS_NOSTACK ? c->as_len[kid] : 0, un = uid < AS_EMPTY ? c->as_len[uid] : 0;
		const uint64_t *ka = kn ? c->addrs + c->as_start[kid] : NULL, *ua = un ? c->addrs + c->as_start[uid] : NULL;
		if (st == SV_IDMAP_NONE) {
			uint64_t outer = un ? ua[un - 1] : ka[kn - 1];
			bool broken = kid == AS_NOSTACK ||
				      !complete_stack(&e, pid, outer, s->ts, pr && pr->image ? pr->image : NULL);
			sv_stack_id cur = t->stack;
			if (broken && (rc = ops->intern_stack(self, &cur, cur, e.broken)))
				goto out;
			for (size_t k = un; k-- > 0;) {
				sv_frame_id f;
				if ((rc = address_frame(&e, &f, pid, ua[k], s->ts)) ||
				    (rc = ops->intern_stack(self, &cur, cur, f)))
					goto out;
			}
			for (size_t k = kn; k-- > 0;) {
				sv_frame_id f;
				if ((rc = address_frame(&e, &f, pid, ka[k], s->ts)) ||
				    (rc = ops->intern_stack(self, &cur, cur, f)))
					goto out;
			}
			if ((rc = grow(&memo_st, &memocap, nmemo + 1, sizeof(*memo_st))))
				goto out;
			memo_st[nmemo].stack = cur;
			memo_st[nmemo].broken = broken;
			st = (uint32_t)nmemo++;
			if ((rc = sv_idmap_put(&memo, mkey, st)))
				goto out;
		}
		*broken_count += memo_st[st].broken;
		if (!is_kernel(c, s->ip) && find_method(&e, pid, s->ip, s->ts) && !find_image(&e, pid, s->ip, s->ts))
			(*jit_leaf)++;
		double t_ms = s->ts >= c->hdr_ts ? (double)(s->ts - c->hdr_ts) * 1000.0 / c->freq : 0.0;
		if ((rc = ops->add_sample(self, memo_st[st].stack, t_ms, ms, 1.0)))
			goto out;
	}
out:
	free(memo_st);
	sv_idmap_dispose(&thr_index);
	sv_idmap_dispose(&pair_index);
	sv_idmap_dispose(&memo);
	free(thr);
	free(spid);
	free(sthr);
	free(e.img_pids);
	free(e.meth_pids);
	return rc;
}

static void ctx_dispose(etl_ctx *c)
{
	free(c->bufs);
	free(c->streams);
	free(c->heap);
	free(c->addrs);
	free(c->as_start);
	free(c->as_len);
	free(c->as_next);
	sv_idmap_dispose(&c->as_index);
	free(c->samples);
	sv_idmap_dispose(&c->by_ts);
	sv_idmap_dispose(&c->pend);
	sv_idmap_dispose(&c->kwait);
	sv_idmap_dispose(&c->uwait);
	for (size_t i = 0; i < c->nprocs; i++) {
		free(c->procs[i].image);
		free(c->procs[i].cmdline);
	}
	free(c->procs);
	sv_idmap_dispose(&c->proc_by_pid);
	free(c->threads);
	sv_idmap_dispose(&c->thread_by_tid);
	for (size_t i = 0; i < c->nimages; i++)
		free(c->images[i].path);
	free(c->images);
	sv_idmap_dispose(&c->image_by_key);
	for (size_t i = 0; i < c->nmethods; i++)
		free(c->methods[i].name);
	free(c->methods);
	for (size_t i = 0; i < c->nmodules; i++)
		free(c->modules[i].path);
	free(c->modules);
	sv_idmap_dispose(&c->module_by_key);
	for (size_t i = 0; i < c->nvols; i++) {
		free(c->vol_nt[i]);
		free(c->vol_dos[i]);
	}
	free(c->vol_nt);
	free(c->vol_dos);
	for (size_t i = 0; i < c->nkinds; i++)
		free(c->kinds[i].name);
	free(c->kinds);
	sv_idmap_dispose(&c->kind_index);
}

static int note(etl_ctx *c, int kind, const char *fmt, ...) SV_PRINTF(3, 4);
static int note(etl_ctx *c, int kind, const char *fmt, ...)
{
	if (!c->sink->ops->add_note)
		return 0;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return c->sink->ops->add_note(c->sink->self, kind, msg);
}

static int etl_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	(void)opts;
	etl_ctx c;
	memset(&c, 0, sizeof(c));
	c.sink = sink;
	c.in = in;
	c.err = err;
	c.file = in->data;
	c.flen = in->len;
	sv_idmap_init(&c.as_index);
	sv_idmap_init(&c.by_ts);
	sv_idmap_init(&c.pend);
	sv_idmap_init(&c.kwait);
	sv_idmap_init(&c.uwait);
	sv_idmap_init(&c.proc_by_pid);
	sv_idmap_init(&c.thread_by_tid);
	sv_idmap_init(&c.kind_index);
	sv_idmap_init(&c.image_by_key);
	sv_idmap_init(&c.module_by_key);
	size_t with_stack = 0, jit_leaf = 0, broken = 0;
	int rc = read_logfile_header(&c);
	if (!rc)
		rc = walk_buffers(&c);
	size_t nbufs = c.nbufs;
	if (!rc)
		rc = read_events(&c);
	if (!rc && sink->ops->set_scaling)
		rc = sink->ops->set_scaling(sink->self, SV_SCALING_TIME);
	if (!rc)
		rc = emit_samples(&c, &with_stack, &jit_leaf, &broken);
	if (rc == SV_ENOMEM)
		sv_error_set(err, SV_ENOMEM, NULL);
	for (size_t i = 0; !rc && i < c.nkinds; i++) {
		bool sample = c.kinds[i].key == (1ULL << 63 | 0x0F00 | 46);
		if (sink->ops->add_event)
			rc = sink->ops->add_event(sink->self, c.kinds[i].name, sample ? c.nsamples : c.kinds[i].count, sample);
	}
	if (!rc)
		rc = note(&c, SV_NOTE_INFO,
			  "Windows %u.%u build %u, %u CPUs, %u-bit pointers, clock %.0f Hz; %zu buffers (%zu compressed), "
			  "%zu events in %zu bytes",
			  c.os_major, c.os_minor, c.build, c.ncpus, c.ptr * 8, c.freq, nbufs, c.ncompressed, c.records,
			  c.event_bytes);
	if (!rc)
		rc = note(&c, SV_NOTE_INFO,
			  "CPU samples: %zu in the trace, %zu idle dropped, %zu kept (%zu with a stack, %zu under BROKEN), interval %.4g ms",
			  c.raw_samples, c.idle_samples, c.nsamples, with_stack, broken,
			  c.interval ? (double)c.interval / 1e4 : 1.0);
	if (!rc)
		rc = note(&c, SV_NOTE_INFO,
			  "stacks: %zu StackWalk events, %zu stack-key references, %zu key definitions; %zu processes, %zu images, "
			  "%zu CLR methods (%zu samples in JIT code named)",
			  c.stacks32, c.keyrefs, c.keydefs, c.nprocs, c.nimages, c.nmethods, jit_leaf);
	if (!rc && c.nsamples) {
		const esample *f = &c.samples[0];
		rc = note(&c, SV_NOTE_INFO, "first kept sample: %.3f ms, pid %" PRId64 ", tid %" PRIu32 ", CPU %u, IP 0x%" PRIx64,
			  f->ts >= c.hdr_ts ? (double)(f->ts - c.hdr_ts) * 1000.0 / c.freq : 0.0, c.first_pid == UINT32_MAX ? (int64_t)-1 : (int64_t)c.first_pid,
			  f->tid, f->cpu, f->ip);
	}
	const char *in_entry = in->inner ? "in " : "", *entry = in->inner ? in->inner : "", *sep = in->inner ? ": " : "";
	for (int w = 0; !rc && w < W_COUNT; w++)
		if (c.warns[w].count)
			rc = c.warns[w].count == 1
				     ? note(&c, SV_NOTE_WARNING, "%s%s%s%s", in_entry, entry, sep, c.warns[w].first)
				     : note(&c, SV_NOTE_WARNING, "%s%s%s%s (and %zu more like it)", in_entry, entry, sep,
					    c.warns[w].first, c.warns[w].count - 1);
	ctx_dispose(&c);
	return rc;
}

/* A trace header event at the start of the first buffer (etl.md §5). */
static bool etl_probe(const unsigned char *d, size_t len)
{
	if (len < BUF_HDR + 32)
		return false;
	const unsigned char *r = d + BUF_HDR;
	return r[3] == 0xC0 && (r[2] == 1 || r[2] == 2) && rd16(r + 6) == 0 && rd32(d) >= BUF_HDR + 32 &&
	       rd32(d + 0x30) >= BUF_HDR + 32;
}

static const char *const etl_patterns[] = { ".etl", NULL };
const sv_format sv_fmt_etl = { "etl", etl_patterns, etl_probe, etl_import, false, NULL };
