/* SPDX-License-Identifier: MIT */
/* PDB reader (stackview/symbols.h): the MSF 7.00 container, the PDB info stream (GUID, age,
 * the named streams), the DBI stream (modules, section headers, OMAP), the modules' procedure
 * symbols and line tables (C13 DEBUG_S_LINES with their files through DEBUG_S_FILECHKSMS and
 * the /names string table), and the public symbols. Every offset and size comes from an untrusted file and is checked before
 * use; streams are assembled into bounded buffers. The layouts are LLVM's PDB documentation
 * (llvm.org/docs/PDB) and Microsoft's microsoft-pdb headers (cvinfo.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msvc_demangle.h"
#include "stackview/input.h"
#include "stackview/symbols.h"
#include "sv/array.h"
#include "core/symtab_int.h"
#include "sv/idmap.h"

#define MSF_MAGIC "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0\0"
#define MSF2_MAGIC "Microsoft C/C++ program database 2.00\r\n\x1a" "JG"
#define NIL_STREAM 0xFFFFFFFFu
#define MAX_STREAMS (1u << 20)

typedef struct pdb {
	const unsigned char *d;
	size_t n;
	const char *name;
	sv_error *err;
	uint32_t bs, nblocks;
	uint32_t nstreams;
	uint32_t *sizes;
	uint32_t **blocks; /* per stream, its block indices (into dir) */
	unsigned char *dir;
	/* sections: from the section header stream (the original headers when OMAP rewrote the
	 * image), each (VirtualAddress, VirtualSize) */
	uint32_t (*sect)[2];
	size_t nsect;
	uint32_t (*omap)[2]; /* OMAP from source: (from, to), sorted by from */
	size_t nomap;
	/* the /names stream's strings (source file names), and the files added to the table by
	 * their offset there (+1; 0 = not yet) */
	unsigned char *names;
	size_t nnames;
	sv_idmap file_of;
} pdb;

static inline uint16_t u16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int fail(pdb *p, int code, size_t off, const char *msg)
{
	sv_error_set(p->err, code, "%s", msg);
	sv_error_locate(p->err, p->name, -1, (long long)off);
	return code;
}

/* The MSF superblock and the stream directory. */
static int read_msf(pdb *p)
{
	if (p->n >= sizeof(MSF2_MAGIC) - 1 && !memcmp(p->d, MSF2_MAGIC, sizeof(MSF2_MAGIC) - 1))
		return fail(p, SV_EUNSUPPORTED, 0, "PDB 2.00 (MSF 2) files are not supported; PDB 7.00 is");
	if (p->n < 56 || memcmp(p->d, MSF_MAGIC, 32))
		return fail(p, SV_EFORMAT, 0, "not a PDB file (no MSF 7.00 signature)");
	p->bs = u32(p->d + 32);
	p->nblocks = u32(p->d + 40);
	uint32_t dirbytes = u32(p->d + 44), mapaddr = u32(p->d + 52);
	if (p->bs != 512 && p->bs != 1024 && p->bs != 2048 && p->bs != 4096 && p->bs != 8192 && p->bs != 16384 &&
	    p->bs != 32768)
		return fail(p, SV_EFORMAT, 32, "corrupt PDB: block size is not a power of two from 512 to 32768");
	if ((uint64_t)p->nblocks * p->bs > p->n)
		return fail(p, SV_EFORMAT, 40, "truncated PDB: the file is shorter than its block count says");
	if (dirbytes < 4 || dirbytes > p->n)
		return fail(p, SV_EFORMAT, 44, "corrupt PDB: stream directory size out of range");
	uint32_t ndir = (dirbytes + p->bs - 1) / p->bs;
	if (mapaddr >= p->nblocks || (uint64_t)mapaddr * p->bs + (uint64_t)ndir * 4 > (uint64_t)p->nblocks * p->bs)
		return fail(p, SV_EFORMAT, 52, "corrupt PDB: the directory's block map is outside the file");
	if (!(p->dir = malloc((size_t)ndir * p->bs)))
		return SV_ENOMEM;
	const unsigned char *map = p->d + (size_t)mapaddr * p->bs;
	for (uint32_t i = 0; i < ndir; i++) {
		uint32_t b = u32(map + 4 * (size_t)i);
		if (b >= p->nblocks)
			return fail(p, SV_EFORMAT, (size_t)mapaddr * p->bs + 4 * (size_t)i, "corrupt PDB: a directory block is outside the file");
		memcpy(p->dir + (size_t)i * p->bs, p->d + (size_t)b * p->bs, p->bs);
	}
	/* NumStreams, StreamSizes[NumStreams], then each stream's block indices */
	p->nstreams = u32(p->dir);
	if (p->nstreams > MAX_STREAMS || (uint64_t)p->nstreams * 4 + 4 > dirbytes)
		return fail(p, SV_EFORMAT, (size_t)mapaddr * p->bs, "corrupt PDB: stream count out of range");
	p->sizes = malloc(((size_t)p->nstreams + 1) * sizeof(*p->sizes));
	p->blocks = malloc(((size_t)p->nstreams + 1) * sizeof(*p->blocks));
	if (!p->sizes || !p->blocks)
		return SV_ENOMEM;
	size_t o = 4 + 4 * (size_t)p->nstreams;
	for (uint32_t s = 0; s < p->nstreams; s++) {
		uint32_t size = u32(p->dir + 4 + 4 * (size_t)s);
		if (size == NIL_STREAM)
			size = 0;
		uint64_t nb = ((uint64_t)size + p->bs - 1) / p->bs;
		if (nb > p->nblocks || o + nb * 4 > dirbytes)
			return fail(p, SV_EFORMAT, (size_t)mapaddr * p->bs, "corrupt PDB: a stream's blocks overrun the directory");
		p->sizes[s] = size;
		p->blocks[s] = (uint32_t *)(void *)(p->dir + o); /* read with u32() only */
		o += (size_t)nb * 4;
	}
	return 0;
}

/* Stream s assembled into a new buffer (*len bytes; NULL and 0 for an empty stream). */
static int read_stream(pdb *p, uint32_t s, unsigned char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	if (s >= p->nstreams)
		return fail(p, SV_EFORMAT, 0, "corrupt PDB: a stream index past the directory");
	uint32_t size = p->sizes[s];
	if (!size)
		return 0;
	unsigned char *buf = malloc(size);
	if (!buf)
		return SV_ENOMEM;
	const unsigned char *list = (const unsigned char *)p->blocks[s];
	for (uint32_t o = 0, i = 0; o < size; o += p->bs, i++) {
		uint32_t b = u32(list + 4 * (size_t)i);
		if (b >= p->nblocks) {
			free(buf);
			return fail(p, SV_EFORMAT, 0, "corrupt PDB: a stream block is outside the file");
		}
		uint32_t k = size - o < p->bs ? size - o : p->bs;
		memcpy(buf + o, p->d + (size_t)b * p->bs, k);
	}
	*out = buf;
	*len = size;
	return 0;
}

/* segment:offset -> RVA; false when the section or the OMAP has no place for it. */
static bool to_rva(const pdb *p, uint16_t seg, uint32_t off, uint32_t *rva)
{
	if (seg == 0 || seg > p->nsect)
		return false;
	uint64_t r = (uint64_t)p->sect[seg - 1][0] + off;
	if (r > UINT32_MAX)
		return false;
	if (p->nomap) { /* the last entry at or before r, its target moved by the distance */
		size_t lo = 0, hi = p->nomap;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (p->omap[mid][0] <= r)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || p->omap[lo - 1][1] == 0)
			return false;
		r = (uint64_t)p->omap[lo - 1][1] + (r - p->omap[lo - 1][0]);
		if (r > UINT32_MAX)
			return false;
	}
	*rva = (uint32_t)r;
	return true;
}

/* x86 C names lose their decoration (cdecl `_f`, stdcall `_f@8`, fastcall `@f@8`); C++
 * names (`?f@@...`) are demangled by the caller, or stay as they are. */
static void undecorate(const pdb *p, const sv_symtab *t, const char **s, size_t *n)
{
	(void)p;
	if (t->machine != 0x14C || *n < 2 || (*s)[0] == '?')
		return; /* (a lone "_" or "@" is a name of its own) */
	if ((*s)[0] == '_' || (*s)[0] == '@') {
		bool fast = (*s)[0] == '@';
		(*s)++;
		(*n)--;
		const char *at = memchr(*s, '@', *n);
		if (at && at > *s) {
			size_t k = (size_t)(at - *s) + 1;
			bool digits = k < *n;
			for (size_t i = k; i < *n; i++)
				digits &= (*s)[i] >= '0' && (*s)[i] <= '9';
			if ((digits || fast) && k > 1)
				*n = k - 1;
		}
	}
}

/* Symbol records: u16 length (after itself), u16 kind, then the kind's fields. */
enum {
	S_COMPILE2 = 0x1116, S_COMPILE3 = 0x113C, CV_CFL_MASM = 0x03,
	S_PUB32 = 0x110E, S_LPROC32 = 0x110F, S_GPROC32 = 0x1110, S_LPROC32_ID = 0x1146, S_GPROC32_ID = 0x1147,
	S_LPROC32_DPC = 0x1155, S_LPROC32_DPC_ID = 0x1156,
};

static int walk_records(pdb *p, sv_symtab *t, const unsigned char *b, size_t len, size_t start, bool publics)
{
	size_t o = start;
	bool masm = false; /* the module was assembled: its procedures carry decorated names */
	while (o + 4 <= len) {
		size_t rl = u16(b + o);
		if (rl < 2 || rl > len - o - 2)
			break; /* the rest of a damaged stream is left out */
		uint16_t kind = u16(b + o + 2);
		const unsigned char *r = b + o + 4;
		size_t body = rl - 2;
		o += 2 + rl;
		if ((kind == S_COMPILE2 || kind == S_COMPILE3) && body >= 4)
			masm = (r[0] & 0xFF) == CV_CFL_MASM;
		if (publics && kind == S_PUB32 && body >= 11) {
			uint32_t off = u32(r + 4), rva;
			uint16_t seg = u16(r + 8);
			const char *nm = (const char *)r + 10;
			size_t nl = strnlen(nm, body - 10);
			t->publics++;
			if (!nl || !to_rva(p, seg, off, &rva))
				continue;
			char dm[1024];
			if (nm[0] == '?' && sv_msvc_demangle_name(nm, nl, dm, sizeof(dm))) { /* C++: its qualified name */
				nm = dm;
				nl = strlen(dm);
			} else {
				undecorate(p, t, &nm, &nl);
			}
			if (sv_symtab_add(t, rva, 0, nm, nl, true))
				return SV_ENOMEM;
		} else if (!publics && (kind == S_GPROC32 || kind == S_LPROC32 || kind == S_GPROC32_ID || kind == S_LPROC32_ID ||
					kind == S_LPROC32_DPC || kind == S_LPROC32_DPC_ID) &&
			   body >= 36) {
			uint32_t size = u32(r + 12), off = u32(r + 28), rva;
			uint16_t seg = u16(r + 32);
			const char *nm = (const char *)r + 35;
			size_t nl = strnlen(nm, body - 35);
			t->procs++;
			if (!nl || !to_rva(p, seg, off, &rva))
				continue;
			if (masm)
				undecorate(p, t, &nm, &nl);
			if (sv_symtab_add(t, rva, size, nm, nl, false))
				return SV_ENOMEM;
		}
	}
	return 0;
}

/* DBI: header, then the module info, section contribution, section map, file info, type
 * server map, EC and optional debug header substreams, in that order. */
/* The named stream map after the info stream's header (a string buffer, then a hash table of
 * (name offset, stream) pairs behind two bit vectors): the stream called `want`, or NIL. */
static uint32_t named_stream(const unsigned char *b, size_t len, const char *want)
{
	size_t o = 28;
	if (len < o + 4)
		return NIL_STREAM;
	uint32_t slen = u32(b + o);
	o += 4;
	if (slen > len - o)
		return NIL_STREAM;
	const unsigned char *str = b + o;
	o += slen;
	if (len - o < 8)
		return NIL_STREAM;
	uint32_t size = u32(b + o);
	o += 8; /* size, capacity */
	for (int v = 0; v < 2; v++) { /* the present and the deleted bit vectors */
		if (len - o < 4)
			return NIL_STREAM;
		uint32_t words = u32(b + o);
		o += 4;
		if (words > (len - o) / 4)
			return NIL_STREAM;
		o += (size_t)words * 4;
	}
	for (uint32_t i = 0; i < size && len - o >= 8; i++, o += 8) {
		uint32_t key = u32(b + o), stream = u32(b + o + 4);
		if (key < slen && strnlen((const char *)str + key, slen - key) == strlen(want) &&
		    !memcmp(str + key, want, strlen(want)))
			return stream;
	}
	return NIL_STREAM;
}

/* The file a DEBUG_S_LINES block names: its checksum entry in the module's
 * DEBUG_S_FILECHKSMS (chk) gives its /names offset; added to the table once. */
static int line_file(pdb *p, sv_symtab *t, const unsigned char *chk, size_t nchk, uint32_t at, uint32_t *file)
{
	if (!chk || at > nchk || nchk - at < 6)
		return fail(p, SV_EFORMAT, 0, "corrupt PDB: a line block names no file checksum entry");
	uint32_t off = u32(chk + at);
	uint32_t known = sv_idmap_get(&p->file_of, off);
	if (known != SV_IDMAP_NONE) {
		*file = known;
		return 0;
	}
	if (off >= p->nnames)
		return fail(p, SV_EFORMAT, 0, "corrupt PDB: a file name outside the /names stream");
	const char *name = (const char *)p->names + off;
	size_t n = strnlen(name, p->nnames - off);
	int rc = sv_symtab_add_file(t, name, n, file);
	return rc ? rc : sv_idmap_put(&p->file_of, off, *file);
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* One DEBUG_S_LINES subsection: a code range (section offset, size) and blocks of lines, a
 * block a file; each line's code runs to the next line's (in any block of the subsection)
 * or to the range's end. */
static int read_lines(pdb *p, sv_symtab *t, const unsigned char *b, size_t n, const unsigned char *chk, size_t nchk)
{
	if (n < 12)
		return fail(p, SV_EFORMAT, 0, "corrupt PDB: a line table shorter than its header");
	uint32_t base = u32(b), code = u32(b + 8);
	uint16_t seg = u16(b + 4), flags = u16(b + 6);
	size_t first = t->nlines, o = 12;
	while (n - o >= 12) {
		uint32_t at = u32(b + o), nl = u32(b + o + 4), bsize = u32(b + o + 8);
		size_t per = (flags & 1) ? 12 : 8; /* CV_LINES_HAVE_COLUMNS: a column pair each */
		if (bsize < 12 || bsize > n - o || nl > (bsize - 12) / per)
			return fail(p, SV_EFORMAT, 0, "corrupt PDB: a line block overruns its table");
		uint32_t file;
		int rc = line_file(p, t, chk, nchk, at, &file);
		for (uint32_t i = 0; !rc && i < nl; i++) {
			const unsigned char *e = b + o + 12 + 8 * (size_t)i;
			uint32_t off = u32(e), line = u32(e + 4) & 0xFFFFFF, rva;
			if (line && off < code && to_rva(p, seg, base + off, &rva)) { /* (line 0: none) */
				uint64_t room = (uint64_t)UINT32_MAX + 1 - rva; /* (a line's code stays below 4 GiB) */
				rc = sv_symtab_add_line(t, rva, code - off < room ? code - off : (uint32_t)room, line, file);
			}
		}
		if (rc)
			return rc;
		o += bsize;
	}
	/* each line's code ends where the next line of the range starts (in address order, the
	 * table's order among lines at one address: the earlier ones get no code, as DIA says) */
	size_t cnt = t->nlines - first;
	if (cnt < 2)
		return 0;
	struct sv_symtab_line *l = t->lines + first;
	uint64_t *order = cnt > 1 ? malloc(cnt * sizeof(*order)) : NULL;
	if (cnt > 1 && !order)
		return SV_ENOMEM;
	if (cnt > 1) {
		for (size_t i = 0; i < cnt; i++)
			order[i] = (uint64_t)l[i].rva << 32 | i;
		qsort(order, cnt, sizeof(*order), by_key);
		struct sv_symtab_line *sorted = malloc(cnt * sizeof(*sorted));
		if (!sorted) {
			free(order);
			return SV_ENOMEM;
		}
		for (size_t i = 0; i < cnt; i++)
			sorted[i] = l[(uint32_t)order[i]];
		memcpy(l, sorted, cnt * sizeof(*l));
		free(sorted);
	}
	free(order);
	for (size_t i = 0; i + 1 < cnt; i++)
		if (l[i + 1].rva - l[i].rva < l[i].size)
			l[i].size = l[i + 1].rva - l[i].rva;
	return 0;
}

/* A module's C13 debug subsections (after its symbols and C11 lines): its file checksums
 * first found, then its line tables. */
static int read_c13(pdb *p, sv_symtab *t, const unsigned char *b, size_t n)
{
	const unsigned char *chk = NULL;
	size_t nchk = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t o = 0; n - o >= 8;) {
			uint32_t kind = u32(b + o), len = u32(b + o + 4);
			if (len > n - o - 8)
				return fail(p, SV_EFORMAT, 0, "corrupt PDB: a debug subsection overruns its module");
			if (pass == 0 && kind == 0xF4) { /* DEBUG_S_FILECHKSMS */
				chk = b + o + 8;
				nchk = len;
			} else if (pass == 1 && kind == 0xF2) { /* DEBUG_S_LINES */
				int rc = read_lines(p, t, b + o + 8, len, chk, nchk);
				if (rc)
					return rc;
			}
			o += 8 + (((size_t)len + 3) & ~(size_t)3);
			if (o > n)
				break;
		}
	}
	return 0;
}

static int read_dbi(pdb *p, sv_symtab *t, uint16_t *symrec)
{
	unsigned char *b;
	size_t len;
	int rc = read_stream(p, 3, &b, &len);
	if (rc)
		return rc;
	if (len < 64) {
		free(b);
		return fail(p, SV_EFORMAT, 0, "corrupt PDB: the DBI stream is shorter than its header");
	}
	*symrec = u16(b + 20);
	int32_t mod = (int32_t)u32(b + 24), sc = (int32_t)u32(b + 28), sm = (int32_t)u32(b + 32), fi = (int32_t)u32(b + 36),
		ts = (int32_t)u32(b + 40), dbg = (int32_t)u32(b + 48), ec = (int32_t)u32(b + 52);
	t->machine = u16(b + 58);
	int64_t total = 64 + (int64_t)mod + sc + sm + fi + ts + ec + dbg;
	if (mod < 0 || sc < 0 || sm < 0 || fi < 0 || ts < 0 || dbg < 0 || ec < 0 || total > (int64_t)len) {
		free(b);
		return fail(p, SV_EFORMAT, 0, "corrupt PDB: the DBI stream's substreams overrun it");
	}
	/* the optional debug header: stream indices, [4] OMAP from source, [5] section headers,
	 * [10] the original section headers (before OMAP) */
	const unsigned char *dh = b + 64 + mod + sc + sm + fi + ts + ec;
	uint32_t ndh = (uint32_t)dbg / 2;
	uint16_t omap = ndh > 4 ? u16(dh + 8) : 0xFFFF, sect = ndh > 5 ? u16(dh + 10) : 0xFFFF,
		 orig = ndh > 10 ? u16(dh + 20) : 0xFFFF;
	uint16_t use = omap != 0xFFFF && orig != 0xFFFF ? orig : sect;
	if (use != 0xFFFF) {
		unsigned char *sb;
		size_t sl;
		if ((rc = read_stream(p, use, &sb, &sl))) {
			free(b);
			return rc;
		}
		p->nsect = sl / 40;
		if (p->nsect && !(p->sect = malloc(p->nsect * sizeof(*p->sect))))
			rc = SV_ENOMEM;
		for (size_t i = 0; !rc && i < p->nsect; i++) {
			p->sect[i][0] = u32(sb + 40 * i + 12); /* VirtualAddress */
			p->sect[i][1] = u32(sb + 40 * i + 8);  /* VirtualSize */
		}
		free(sb);
	}
	if (!rc && omap != 0xFFFF && use == orig) {
		unsigned char *ob;
		size_t ol;
		if (!(rc = read_stream(p, omap, &ob, &ol))) {
			p->nomap = ol / 8;
			if (p->nomap && !(p->omap = malloc(p->nomap * sizeof(*p->omap))))
				rc = SV_ENOMEM;
			for (size_t i = 0; !rc && i < p->nomap; i++) {
				p->omap[i][0] = u32(ob + 8 * i);
				p->omap[i][1] = u32(ob + 8 * i + 4);
			}
			for (size_t i = 1; !rc && i < p->nomap; i++)
				if (p->omap[i][0] < p->omap[i - 1][0])
					rc = fail(p, SV_EFORMAT, 0, "corrupt PDB: its OMAP is not sorted");
			free(ob);
		}
	}
	/* module info: 64 fixed bytes (ModuleSymStream at 34, SymByteSize at 36), then the
	 * module and object names, the whole entry aligned to 4 */
	for (size_t o = 64; !rc && o + 64 <= 64 + (size_t)mod;) {
		const unsigned char *m = b + o;
		uint16_t stream = u16(m + 34);
		uint32_t symbytes = u32(m + 36), c11bytes = u32(m + 40), c13bytes = u32(m + 44);
		size_t e = o + 64, lim = 64 + (size_t)mod;
		for (int k = 0; k < 2 && e < lim; k++) {
			const unsigned char *z = memchr(b + e, 0, lim - e);
			e = z ? (size_t)(z - b) + 1 : lim;
		}
		o = (e + 3) & ~(size_t)3;
		if (stream == 0xFFFF || symbytes < 4)
			continue;
		unsigned char *ms;
		size_t ml;
		if ((rc = read_stream(p, stream, &ms, &ml)))
			break;
		if (ml >= 4 && u32(ms) == 4) /* CV_SIGNATURE_C13 */
			rc = walk_records(p, t, ms, symbytes < ml ? symbytes : ml, 4, false);
		uint64_t c13at = (uint64_t)symbytes + c11bytes;
		if (!rc && c13bytes && p->names && c13at <= ml && c13bytes <= ml - c13at)
			rc = read_c13(p, t, ms + c13at, c13bytes);
		free(ms);
	}
	free(b);
	return rc;
}

int sv_symtab_read_pdb(sv_symtab **out, const unsigned char *data, size_t len, const char *name, sv_error *err)
{
	pdb p = { .d = data, .n = len, .name = name, .err = err };
	sv_symtab *t = sv_symtab_new_empty();
	unsigned char *info = NULL, *recs = NULL;
	size_t ilen = 0, rlen = 0;
	uint16_t symrec = 0xFFFF;
	int rc = t ? read_msf(&p) : SV_ENOMEM;
	/* the PDB info stream: Version, Signature, Age, GUID */
	if (!rc && !(rc = read_stream(&p, 1, &info, &ilen)) && ilen < 28)
		rc = fail(&p, SV_EFORMAT, 0, "corrupt PDB: the info stream is shorter than its header");
	sv_idmap_init(&p.file_of);
	if (!rc) {
		/* the /names stream (source file names): header signature, version, size */
		uint32_t ns = named_stream(info, ilen, "/names");
		unsigned char *nb = NULL;
		size_t nl = 0;
		if (ns < p.nstreams && !(rc = read_stream(&p, ns, &nb, &nl)) && nl >= 12 && u32(nb) == 0xEFFEEFFE &&
		    u32(nb + 8) <= nl - 12) {
			p.nnames = u32(nb + 8);
			memmove(nb, nb + 12, p.nnames);
			p.names = nb;
		} else {
			free(nb);
		}
	}
	if (!rc) {
		t->age = u32(info + 8);
		memcpy(t->guid, info + 12, 16);
		rc = p.nstreams > 3 ? read_dbi(&p, t, &symrec)
				    : fail(&p, SV_EFORMAT, 0, "corrupt PDB: no DBI stream (stream 3)");
	}
	if (!rc && symrec != 0xFFFF && !(rc = read_stream(&p, symrec, &recs, &rlen)))
		rc = walk_records(&p, t, recs, rlen, 0, true);
	free(info);
	free(recs);
	free(p.dir);
	free(p.sizes);
	free(p.blocks);
	free(p.sect);
	free(p.omap);
	free(p.names);
	sv_idmap_dispose(&p.file_of);
	if (rc) {
		if (rc == SV_ENOMEM)
			sv_error_set(err, SV_ENOMEM, NULL);
		sv_symtab_free(t);
		return rc;
	}
	sv_symtab_finish(t);
	*out = t;
	return 0;
}

