/* SPDX-License-Identifier: MIT */
/* ETL importer, container layer: the logfile header, the buffers (Xpress-compressed in
 * merged traces) and the per-CPU streams merged by timestamp (etl.md §3, §5). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "etl_int.h"
#include "sv/array.h"

/* ---- the logfile header (etl.md §5) ---- */

int sv_etl_read_header(etl_ctx *c)
{
	const unsigned char *f = c->file;
	if (c->flen < BUF_HDR + 32)
		return sv_etl_fail(c, SV_EFORMAT, c->flen, "not an ETL file: too short for a buffer header");
	uint32_t bsize = rd32(f), fill = rd32(f + 0x30);
	if (rd16(f + 0x34) & 0x40)
		return sv_etl_fail(c, SV_EFORMAT, 0x34, "not an ETL file: the first buffer is compressed");
	if (bsize < BUF_HDR + 32 || fill < BUF_HDR + 32 || fill > bsize)
		return sv_etl_fail(c, SV_EFORMAT, 0, "not an ETL file: first buffer size %" PRIu32 ", fill %" PRIu32, bsize, fill);
	if (bsize > c->flen)
		return sv_etl_fail(c, SV_EFORMAT, c->flen, "truncated ETL file: the first buffer needs %" PRIu32 " bytes", bsize);
	const unsigned char *r = f + BUF_HDR;
	int ht = r[2];
	if (r[3] != 0xC0 || (ht != 1 && ht != 2) || rd16(r + 6) != 0)
		return sv_etl_fail(c, SV_EFORMAT, BUF_HDR, "not an ETL file: no trace header event at the start");
	size_t rsize = rd16(r + 4);
	if (rsize < 32 || rsize > fill - BUF_HDR)
		return sv_etl_fail(c, SV_EFORMAT, BUF_HDR + 4, "corrupt ETL trace header: event size %zu", rsize);
	c->hdr_ts = rd64(r + 16);
	const unsigned char *p = r + 32;
	size_t plen = rsize - 32;
	if (plen < 0x30)
		return sv_etl_fail(c, SV_EFORMAT, BUF_HDR + 32, "corrupt ETL trace header: %zu bytes", plen);
	c->ptr = rd32(p + 0x2C);
	if (c->ptr != 4 && c->ptr != 8)
		return sv_etl_fail(c, SV_EFORMAT, BUF_HDR + 32 + 0x2C, "corrupt ETL trace header: pointer size %u", c->ptr);
	size_t need = c->ptr == 8 ? 0x118 : 0x110;
	if (plen < need)
		return sv_etl_fail(c, SV_EFORMAT, BUF_HDR + 32, "corrupt ETL trace header: %zu bytes, expected %zu", plen, need);
	c->os_major = p[4];
	c->os_minor = p[5];
	c->build = rd32(p + 8);
	c->ncpus = rd32(p + 0x0C);
	c->events_lost = rd32(p + 0x30);
	if (c->os_major < 6 || (c->os_major == 6 && c->os_minor < 1))
		return sv_etl_fail(c, SV_EUNSUPPORTED, BUF_HDR + 36,
			    "ETL files from Windows %u.%u are not supported (Windows 7 / 6.1 or later)", c->os_major,
			    c->os_minor);
	size_t o = c->ptr == 8 ? 0x100 : 0xF8;
	uint64_t perf = rd64(p + o);
	uint32_t clock = rd32(p + o + 0x10);
	uint32_t mhz = rd32(p + 0x34);
	c->freq = clock == 2 ? 1e7 : clock == 3 ? (double)mhz * 1e6 : (double)perf;
	if (!(c->freq > 0))
		return sv_etl_fail(c, SV_EFORMAT, BUF_HDR + 32 + o, "corrupt ETL trace header: clock frequency 0");
	c->compression = rd16(f + 0x2C);
	return 0;
}

/* ---- buffers and streams (etl.md §3) ---- */

int sv_etl_walk_buffers(etl_ctx *c)
{
	size_t off = 0;
	while (off + BUF_HDR <= c->flen) {
		const unsigned char *h = c->file + off;
		uint32_t size = rd32(h);
		if (size == 0)
			break;
		if (size < BUF_HDR) {
			if (c->nbufs == 0)
				return sv_etl_fail(c, SV_EFORMAT, off, "corrupt ETL buffer: size %" PRIu32 " is smaller than its header", size);
			sv_etl_warn(c, W_BUFFER, "buffer at byte offset %zu: size %" PRIu32 " is smaller than its header; rest of the file skipped", off, size);
			return 0;
		}
		if (size > c->flen - off) {
			sv_etl_warn(c, W_BUFFER, "truncated buffer at byte offset %zu: needs %" PRIu32 " bytes, %zu left", off, size,
			      c->flen - off);
			return 0;
		}
		uint16_t flags = rd16(h + 0x34);
		uint32_t fill = rd32(h + 0x30);
		bool comp = flags & 0x40;
		if (fill < BUF_HDR || (!comp && fill > size) || fill - BUF_HDR > MAX_BUF_BYTES) {
			sv_etl_warn(c, W_BUFFER, "buffer at byte offset %zu: fill level %" PRIu32 " out of range; skipped", off, fill);
		} else {
			if (SV_ARRAY_RESERVE(c->bufs, c->bufcap, c->nbufs + 1))
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
		sv_etl_warn(c, W_BUFFER, "%zu stray bytes at the end of the file (byte offset %zu)", c->flen - off, off);
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
		/* (a listing reads the trace twice: the second pass goes on counting) */
		int prc = sv_input_progress_of(c->in, c->loaded, (c->listing ? 2ull : 1ull) * c->flen, c->err);
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
			return sv_etl_fail(c, SV_EUNSUPPORTED, b->off,
				    "compressed buffer in format %d (%s) is not supported; only Xpress (3) is", c->compression,
				    c->compression == 2 ? "LZNT1" : c->compression == 4 ? "Xpress-Huffman" : "unknown");
		/* Xpress can expand a few bytes into megabytes: bound the whole trace's events as
		 * a zip's entry is bounded (1000x the file, at most SV_MAX_INPUT_BYTES). */
		unsigned long long limit = (unsigned long long)c->flen * MAX_RATIO + (1ULL << 20);
		if (limit > SV_MAX_INPUT_BYTES)
			limit = SV_MAX_INPUT_BYTES;
		if (c->event_bytes + outlen > limit)
			return sv_etl_fail(c, SV_ELIMIT, b->off, "decompressed events exceed %llu bytes (%ux the file; limit)", limit,
				    MAX_RATIO);
		if (outlen > s->owncap) {
			if (c->inflight - s->owncap + outlen > (size_t)1 << 30)
				return sv_etl_fail(c, SV_ELIMIT, b->off, "decompressed buffers in flight exceed 1 GiB");
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
			sv_etl_warn(c, W_DECOMPRESS, "corrupt compressed buffer at byte offset %zu (at byte %zu of its data); skipped",
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

/* A NUL-terminated string at p within n bytes, or NULL. */
static const char *cstr_in(const unsigned char *p, size_t n)
{
	return n && memchr(p, 0, n) ? (const char *)p : NULL;
}

/* TraceLogging's self-describing names from a record's extended data items: the provider
 * traits (type 12: u16 size, the provider's UTF-8 name) and the event schema (type 11: u16
 * size, tag bytes while their high bit is set, the event's UTF-8 name, then the fields). */
static void tl_item(etl_rec *r, unsigned type, const unsigned char *d, size_t n)
{
	if (n < 3)
		return;
	if (type == 12) {
		r->tl_provider = cstr_in(d + 2, n - 2);
	} else if (type == 11) {
		size_t i = 2;
		while (i < n && d[i] & 0x80)
			i++;
		if (i < n && (r->tl_event = cstr_in(d + i + 1, n - i - 1))) {
			size_t e = i + 1 + strlen(r->tl_event) + 1;
			r->tl_fields = d + e, r->tl_fields_len = n - e;
		}
	}
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
				sv_etl_warn(c, W_KIND, "unknown event header kind 0x%02x at byte %zu of the buffer at byte offset %zu; skipped by size",
				      ht, pos + BUF_HDR, c->bufs[s->cur].off);
				break;
			}
		} else if ((fl & 0x80) && (fl & 0x10)) {
			hdr = 8;
			size = m & 0xFFFF;
		} else {
			sv_etl_warn(c, W_RECORD, "corrupt event at byte %zu of the buffer at byte offset %zu; rest of the buffer skipped",
			      pos + BUF_HDR, c->bufs[s->cur].off);
			s->data = NULL;
			continue;
		}
		if (size < hdr || size > s->len - pos) {
			sv_etl_warn(c, W_RECORD, "event size %zu at byte %zu of the buffer at byte offset %zu overruns it; rest skipped",
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
				sv_etl_warn(c, W_RECORD, "event extension items overrun the event at byte %zu of the buffer at byte offset %zu",
				      pos + BUF_HDR, c->bufs[s->cur].off);
				continue;
			}
			pay += ext;
			r->ptr = (ht & 1) ? 4 : 8;
			r->version = ver & 0xFF;
			r->type = p[6];
			r->group = p[7];
			if (hdr == 16) { /* the compact header: no thread, no process */
				r->ts = rd64(p + 8);
				r->no_ids = true;
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
			/* providers come in runs: the last one's index is kept */
			if (memcmp(p + 0x18, c->last_guid, 16) != 0) {
				memcpy(c->last_guid, p + 0x18, 16);
				c->last_guid_index = sv_etl_guid_index(p + 0x18);
			}
			r->guid = c->last_guid_index;
			if (kind == REC_CLASSIC) {
				r->id = p[4];
				r->version = rd16(p + 6);
				if (r->guid >= 0 && sv_etl_guids[r->guid].group >= 0) {
					r->kind = REC_HOOK;
					r->group = sv_etl_guids[r->guid].group;
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
						tl_item(r, rd16(p + pay + 2), p + pay + 8, rd16(p + pay + 6) < isz - 8 ? rd16(p + pay + 6) : isz - 8);
						pay += isz;
						if (!(link & 1))
							break;
					}
					if (pay == SIZE_MAX) {
						sv_etl_warn(c, W_RECORD, "corrupt extended data at byte %zu of the buffer at byte offset %zu",
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


int sv_etl_read_events(etl_ctx *c)
{
	if ((!c->proc_memo && !(c->proc_memo = calloc(PROC_MEMO, sizeof(*c->proc_memo)))) ||
	    (!c->thread_memo && !(c->thread_memo = calloc(PROC_MEMO, sizeof(*c->thread_memo)))))
		return SV_ENOMEM;
	memset(c->last_guid, 0, sizeof(c->last_guid));
	c->last_guid_index = sv_etl_guid_index(c->last_guid);
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
		/* the listing pass hands each record to the Events view's lister instead */
		if ((rc = c->list_fn ? sv_etl_list_record(c, &s->rec) : sv_etl_on_record(c, &s->rec)))
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
