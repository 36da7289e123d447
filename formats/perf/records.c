/* SPDX-License-Identifier: MIT */
/* perf.data reader, the record layer (spec/perf.md §5–6): located errors, attrs and their
 * event names, header features (build ids, tracing formats, hostname, ...), and the index of
 * kernel records with their times (zstd-compressed records inflated as one stream; their sort
 * by time is record_sort.c). Knows nothing of address spaces or stacks (stacks.c), which use it. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <zstd.h>

#include "data_int.h"

int sv_pdr_fail(pdr *r, int code, size_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = sv_error_vset(r->err, code, fmt, ap);
	va_end(ap);
	sv_error_locate(r->err, r->in->name, -1, (long long)off);
	return rc;
}

int sv_pdr_oom(pdr *r)
{
	return sv_error_set(r->err, SV_ENOMEM, "out of memory");
}


void sv_pdr_bad_sample(pdr *r, size_t off, const char *what)
{
	if (!r->bad_samples++)
		snprintf(r->first_bad, sizeof(r->first_bad), "record at byte offset %zu: %s", off, what);
}

/* ---- attrs and events ---- */

const char *sv_pdr_builtin_name(uint32_t type, uint64_t config)
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
int sv_pdr_add_attr(pdr *r, const unsigned char *p, size_t size, size_t off)
{
	if (size < 64)
		return sv_pdr_fail(r, SV_EFORMAT, off, "perf_event_attr of %zu bytes is shorter than the first version (64)", size);
	if (r->nattrs >= 4096)
		return sv_pdr_fail(r, SV_ELIMIT, off, "more than 4096 events");
	if (SV_ARRAY_RESERVE(r->attrs, r->attr_cap, r->nattrs + 1))
		return sv_pdr_oom(r);
	attr *a = &r->attrs[r->nattrs];
	memset(a, 0, sizeof(*a));
	a->first_time = UINT64_MAX;
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

int sv_pdr_map_ids(pdr *r, size_t ai, const unsigned char *ids, size_t nids)
{
	for (size_t k = 0; k < nids; k++)
		if (sv_idmap_put(&r->id_attr, rd64(ids + 8 * k), (uint32_t)ai))
			return sv_pdr_oom(r);
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
		return sv_pdr_oom(r);
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
			return sv_pdr_oom(r);
		if ((misc & MISC_CPUMODE) == MISC_KERNEL && nl >= 17 && memcmp(name, "[kernel.kallsyms]", 17) == 0) {
			memcpy(r->kbid, bid, blen);
			r->kbid_len = blen;
		}
		o += size;
	}
	return 0;
}

/* The tracing data holds each tracepoint's format as text ("name: sched_switch\nID: 372\n
 * format:\n\tfield:pid_t prev_pid;\toffset:24;\tsize:4;..."): find a tracepoint's id and where
 * the named fields sit in its data. */
static void tracing_format(const unsigned char *p, size_t n, const char *event, const char *const *fields,
			   tp_format *out)
{
	char tag[64];
	int tl = snprintf(tag, sizeof(tag), "name: %s\nID: ", event);
	const unsigned char *at = memmem(p, n, tag, (size_t)tl);
	if (!at)
		return;
	size_t o = (size_t)(at - p) + (size_t)tl;
	long id = 0;
	while (o < n && p[o] >= '0' && p[o] <= '9' && id < 1000000)
		id = id * 10 + (p[o++] - '0');
	const unsigned char *end = memmem(p + o, n - o, "print fmt:", 10);
	size_t lim = end ? (size_t)(end - p) : n;
	tp_format f = { id, { -1, -1, -1 }, { 0, 0, 0 } };
	while (o < lim) {
		const unsigned char *nl = memchr(p + o, '\n', lim - o);
		size_t le = nl ? (size_t)(nl - p) : lim;
		char line[256];
		size_t len = le - o < sizeof(line) - 1 ? le - o : sizeof(line) - 1;
		memcpy(line, p + o, len);
		line[len] = '\0';
		const char *fl = strstr(line, "field:"), *semi = fl ? strchr(fl, ';') : NULL, *off = strstr(line, "offset:"),
			   *size = strstr(line, "size:");
		int sz = size ? atoi(size + 5) : 0, v = off ? atoi(off + 7) : -1;
		for (int k = 0; fl && semi && v >= 0 && v < 4096 && (sz == 4 || sz == 8) && k < TPF_MAX && fields[k]; k++) {
			size_t kl = strlen(fields[k]);
			if ((size_t)(semi - fl) > kl && semi[-(long)kl - 1] == ' ' && !memcmp(semi - kl, fields[k], kl)) {
				f.off[k] = v;
				f.size[k] = sz;
			}
		}
		o = le + 1;
	}
	for (int k = 0; k < TPF_MAX && fields[k]; k++)
		if (f.off[k] < 0)
			return;
	*out = f;
}

static void tracing_formats(pdr *r, const unsigned char *p, size_t n)
{
	if (r->keep_tracing && !r->tracing && n && (r->tracing = malloc(n))) {
		memcpy(r->tracing, p, n);
		r->tracing_len = n;
	}
	static const char *const sw[] = { "prev_pid", "prev_state", "next_pid" }, *const wk[] = { "pid", NULL, NULL };
	tracing_format(p, n, "sched_switch", sw, &r->tp[TP_SWITCH]);
	tracing_format(p, n, "sched_wakeup", wk, &r->tp[TP_WAKEUP]);
	tracing_format(p, n, "sched_wakeup_new", wk, &r->tp[TP_WAKEUP_NEW]);
	tracing_format(p, n, "sched_waking", wk, &r->tp[TP_WAKING]);
}

int sv_pdr_feature(pdr *r, unsigned id, const unsigned char *p, size_t n)
{
	size_t used;
	char **dst = NULL;
	switch (id) {
	case 1: tracing_formats(r, p, n); return 0;
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
		return r->cmdline ? 0 : sv_pdr_oom(r);
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


/* The attr a sample belongs to: by IDENTIFIER (first u64) or ID at its fixed place. */
long sv_pdr_sample_attr(pdr *r, const unsigned char *p, size_t n)
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
		long a = sv_pdr_sample_attr(r, p, n);
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

bool sv_pdr_record_id(pdr *r, const unsigned char *p, size_t n, int32_t *tid, uint64_t *time, uint32_t *cpu)
{
	if (!r->nattrs || !r->id_all)
		return false;
	uint64_t st = r->attrs[0].sample_type;
	if ((st & ST_IDENTIFIER) && r->nattrs > 1 && n >= 8) {
		uint32_t a = sv_idmap_get(&r->id_attr, rd64(p + n - 8));
		if (a != SV_IDMAP_NONE)
			st = r->attrs[a].sample_type;
	}
	size_t tsize = 8 * popcount64(st & (ST_TID | ST_TIME | ST_ID | ST_STREAM_ID | ST_CPU | ST_IDENTIFIER));
	if (!(st & ST_TID) || !(st & ST_TIME) || tsize > n)
		return false;
	const unsigned char *q = p + n - tsize;
	*tid = (int32_t)rd32(q + 4);
	*time = rd64(q + 8);
	q += 16 + ((st & ST_ID) ? 8 : 0) + ((st & ST_STREAM_ID) ? 8 : 0);
	*cpu = (st & ST_CPU) ? rd32(q) : UINT32_MAX;
	return true;
}

/* Append the inflated bytes of one compressed record's payload (at file offset off) to
 * dbuf. Both passes feed the same payloads to one decoder in file order, so they see the
 * same inflated stream at the same offsets. */
static int inflate_payload(pdr *r, const unsigned char *p, size_t n, size_t off)
{
	if (!r->zs) {
		if (!(r->zs = ZSTD_createDStream()))
			return sv_pdr_oom(r);
		ZSTD_initDStream(r->zs);
	}
	r->comp_off = off;
	ZSTD_inBuffer zin = { p, n, 0 };
	/* Until the input is used up and the output buffer was not filled: a full buffer
	 * may leave inflated bytes inside the decoder even when every input byte was read. */
	for (bool full = true; zin.pos < zin.size || full;) {
		if (r->dcap - r->dlen < (1u << 16)) {
			if (r->dbase + r->dlen + (1u << 16) > r->dlimit)
				return sv_pdr_fail(r, SV_ELIMIT, off,
					    "compressed records inflate to more than %" PRIu64 " bytes (1000 times the file, at most 8 GiB)",
					    r->dlimit);
			if (sv_array_reserve(&r->dbuf, &r->dcap, r->dlen + (1u << 16), 1))
				return sv_pdr_oom(r);
		}
		ZSTD_outBuffer zout = { r->dbuf, r->dcap, r->dlen };
		size_t ret = ZSTD_decompressStream(r->zs, &zout, &zin);
		if (ZSTD_isError(ret))
			return sv_pdr_fail(r, SV_EFORMAT, off, "corrupt zstd data in a compressed record: %s", ZSTD_getErrorName(ret));
		bool progress = zout.pos > r->dlen;
		r->dlen = zout.pos;
		full = zout.pos == zout.size;
		if (!progress && zin.pos < zin.size && !full)
			return sv_pdr_fail(r, SV_EFORMAT, off, "corrupt zstd data in a compressed record");
	}
	return 0;
}

/* Forget the inflated bytes before buffer offset k. */
static void drop_inflated(pdr *r, size_t k)
{
	memmove(r->dbuf, r->dbuf + k, r->dlen - k);
	r->dbase += k;
	r->dlen -= k;
}

/* The compressed bytes of a COMPRESSED or COMPRESSED2 record's payload (p, n bytes);
 * false when they overrun it. */
static bool compressed_bytes(uint32_t type, const unsigned char **p, size_t *n)
{
	if (type == R_COMPRESSED)
		return true;
	if (*n < 8 || rd64(*p) > *n - 8)
		return false;
	size_t len = (size_t)rd64(*p);
	*p += 8;
	*n = len;
	return true;
}

/* The bytes a record's payload (p, n bytes) says follow it outside its size. */
static size_t bytes_after(uint32_t type, const unsigned char *p, size_t n)
{
	if (type == R_TRACING_DATA && n >= 4) /* padded to 8 */
		return ((size_t)rd32(p) + 7) & ~(size_t)7;
	if (type == R_AUXTRACE && n >= 8)
		return (size_t)rd64(p);
	return 0;
}

/* The first pass: inflate, index the records inside (one may continue in the next
 * compressed record), and keep only the unfinished one's bytes. */
static int inflate_records(pdr *r, const unsigned char *p, size_t n, size_t off)
{
	int rc = inflate_payload(r, p, n, off);
	if (rc)
		return rc;
	size_t stop;
	if ((rc = sv_pdr_index_buffer(r, r->dbuf, 0, r->dlen, true, &stop)))
		return rc;
	drop_inflated(r, stop);
	return 0;
}

void sv_pdr_release(pdr *r, size_t upto)
{
	const size_t step = (size_t)32 << 20;
	if (upto > r->n)
		upto = r->n;
	upto &= ~(step - 1);
	if (!r->in->mapped || upto <= r->released)
		return;
	(void)madvise((void *)(uintptr_t)(r->d + r->released), upto - r->released, MADV_DONTNEED);
	r->released = upto;
}

void sv_pdr_rewind(pdr *r, size_t from, size_t to)
{
	r->zpos = from;
	r->zend = to;
	r->dbase = r->dlen = 0;
	r->released = 0; /* the second pass maps the pages in again */
	if (r->zs)
		ZSTD_initDStream(r->zs);
}

int sv_pdr_inflated(pdr *r, uint64_t at, size_t need, uint64_t keep, const unsigned char **out)
{
	if (keep > r->dbase + r->dlen)
		keep = r->dbase + r->dlen;
	/* Move the kept bytes down once the forgotten ones are most of the buffer. */
	if (keep > r->dbase && keep - r->dbase >= r->dlen / 2 && keep - r->dbase >= (1u << 20))
		drop_inflated(r, (size_t)(keep - r->dbase));
	if (at < r->dbase)
		return sv_pdr_fail(r, SV_EFORMAT, r->comp_off, "internal error: inflated record at %" PRIu64 " already let go", at);
	while (r->dbase + r->dlen < at + need) {
		/* The next compressed record in the data section, found as the first pass found it. */
		size_t o = r->zpos;
		if (r->zend - o < 8)
			return sv_pdr_fail(r, SV_EFORMAT, r->comp_off, "internal error: inflated record at %" PRIu64 " not found again", at);
		const unsigned char *h = r->d + o;
		uint32_t type = rd32(h);
		uint16_t size;
		memcpy(&size, h + 6, 2);
		if (size < 8 || size > r->zend - o)
			return sv_pdr_fail(r, SV_EFORMAT, o, "internal error: record at %zu not found again", o);
		const unsigned char *p = h + 8;
		size_t n = size - 8u, after = bytes_after(type, p, n);
		r->zpos = o + size + (after <= r->zend - o - size ? after : r->zend - o - size);
		if ((type == R_COMPRESSED || type == R_COMPRESSED2) && compressed_bytes(type, &p, &n)) {
			int rc = inflate_payload(r, p, n, o);
			if (rc)
				return rc;
		}
	}
	*out = r->dbuf + (at - r->dbase);
	return 0;
}

static int handle_record(pdr *r, const unsigned char *base, size_t off, bool decomp, uint32_t type,
			 const unsigned char *p, size_t n, size_t *extra)
{
	r->records++;
	if (type < R_KINDS)
		r->counts[type]++;
	switch (type) {
	case R_HEADER_ATTR: {
		if (!r->pipe)
			return 0;
		if (n < 8)
			return sv_pdr_fail(r, SV_EFORMAT, off, "attribute record too short");
		uint32_t asz = rd32(p + 4);
		if (asz < 64 || asz > n)
			return sv_pdr_fail(r, SV_EFORMAT, off, "attribute record: perf_event_attr size %u does not fit its %zu bytes", asz, n);
		int rc = sv_pdr_add_attr(r, p, asz, off);
		if (!rc)
			rc = sv_pdr_map_ids(r, r->nattrs - 1, p + asz, (n - asz) / 8);
		return rc;
	}
	case R_HEADER_FEATURE:
		if (n >= 8)
			return sv_pdr_feature(r, (unsigned)rd64(p), p + 8, n - 8);
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
		if (n >= 4) {
			*extra = bytes_after(type, p, n);
			size_t at = off + 8 + n, have = (decomp ? r->dlen : r->n);
			if (at < have)
				tracing_formats(r, base + at, rd32(p) < have - at ? rd32(p) : have - at);
		}
		return 0;
	case R_AUXTRACE: /* u64 size, then size bytes after the record */
		*extra = bytes_after(type, p, n);
		return 0;
	case R_COMPRESSED:
	case R_COMPRESSED2:
		if (decomp)
			return sv_pdr_fail(r, SV_EFORMAT, off, "compressed record inside a compressed record");
		if (!compressed_bytes(type, &p, &n))
			return sv_pdr_fail(r, SV_EFORMAT, off, "compressed record: data size overruns the record");
		return inflate_records(r, p, n, off);
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
		if (t < r->attrs[ai].first_time)
			r->attrs[ai].first_time = t;
	} else if (type != R_MMAP && type != R_MMAP2 && type != R_COMM && type != R_FORK && type != R_EXIT &&
		   type != R_LOST && type != R_LOST_SAMPLES && type != R_SWITCH) {
		return 0;
	}
	/* The kernel map's address (KASLR reference) is needed before any stack is named. */
	if (type == R_MMAP && n >= 49 && (int32_t)rd32(p) == -1 && memcmp(p + 32, "[kernel.kallsyms]", 17) == 0)
		r->kernel_text = rd64(p + 24);
	if (SV_ARRAY_RESERVE(r->recs, r->rcap, r->nrecs + 1))
		return sv_pdr_oom(r);
	r->recs[r->nrecs++] = (rec){ t, decomp ? LOC_DECOMP | (r->dbase + (uint64_t)(p - 8 - base)) : (uint64_t)(p - 8 - base) };
	return 0;
}

/* Records back to back in [from, to) of base; *stop = where an incomplete one starts. */
int sv_pdr_index_buffer(pdr *r, const unsigned char *base, size_t from, size_t to, bool decomp, size_t *stop)
{
	size_t o = from;
	while (o < to) {
		if (to - o < 8)
			break;
		const unsigned char *h = base + o;
		uint32_t type = rd32(h);
		uint16_t size;
		memcpy(&size, h + 6, 2);
		if (size < 8)
			return sv_pdr_fail(r, SV_EFORMAT, decomp ? r->comp_off : o, "%srecord of type %u has size %u (less than its header)",
				    decomp ? "compressed record holds a " : "", type, size);
		if (size > to - o)
			break;
		size_t extra = 0;
		int rc = handle_record(r, base, o, decomp, type, h + 8, size - 8u, &extra);
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
		if (!decomp)
			sv_pdr_release(r, o);
	}
	*stop = o;
	return 0;
}

/* ---- one SAMPLE record's fields, by the attr's sample_type ---- */

bool sv_pdr_parse_sample(const attr *a, const unsigned char *p, size_t n, sample *s, const char **why)
{
	uint64_t st = a->sample_type;
	size_t o = 0;
	memset(s, 0, sizeof(*s));
	s->pid = s->tid = -1;
	s->cpu = UINT32_MAX;
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
	size_t skip = 8 * popcount64(st & (ST_ADDR | ST_ID | ST_STREAM_ID));
	NEED(skip);
	o += skip;
	if (st & ST_CPU) {
		NEED(8);
		s->cpu = rd32(p + o);
		o += 8;
	}
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
		s->raw = p + o;
		s->raw_size = sz;
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
